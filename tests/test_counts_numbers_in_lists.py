"""CG110 finds a Python number inside a repeated or concatenated gradient list and in a `*`
item (`[dy] + [0] * 2`, `(dy, *[0.0] * 2)`): TF 1.8 (py27 and py36) raises
`AttributeError: 'int' object has no attribute 'name'` at tf.gradients
(fixtures/CG110/bad_zero_in_a_repeated_list.py). None and tensors repeated so are fine."""
import pytest

from conftest import lint

PICK = """
import tensorflow as tf


@tf.custom_gradient
def pick(x, lo, hi):
    def grad(dy):
        return RETURNED

    return tf.clip_by_value(x, lo, hi), grad
"""


def _cg110(returned, target_python=(2, 7)):
    return [(line, col) for code, line, col in lint(
        PICK.replace("RETURNED", returned), select=["CG110"], target_python=target_python)]


@pytest.mark.parametrize("returned, col", [
    ("[dy] + [0] * 2", 24),
    ("[dy] + 2 * [0.0]", 28),
    ("(dy,) + (0,) * 2", 25),
    ("[dy] + [None] + [0]", 33),
    ("[dy, None] + [0] * 1", 30),
])
def test_a_number_in_a_repeated_list_is_reported(returned, col):
    assert _cg110(returned) == [(8, col)]


def test_a_number_in_a_starred_item_is_reported():
    assert _cg110("(dy, *[0] * 2)", target_python=(3, 6)) == [(8, 23)]


@pytest.mark.parametrize("returned", [
    "[dy] + [None] * 2",
    "[dy] * 3",
    "[dy * 2] * 3",
    "(dy, *[None] * 2)",
    "[dy] + [dy * 0] * 2",
    "dy * 2, None, None",
])
def test_no_number_no_finding(returned):
    assert _cg110(returned, target_python=(3, 6)) == []
