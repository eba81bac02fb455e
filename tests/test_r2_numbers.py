"""CG110 for numbers from `sum` of an empty list and from a helper's number default
(probe z3a U8: d/d08, d/d10; fixtures/CG110/bad_sum_of_an_empty_list.py,
bad_helper_default_number.py, good_sum_of_tensors_and_helper_given_a_tensor.py)."""
import pytest

from conftest import lint

CODE = """
import tensorflow as tf


def _or_zero(g=0.0, *, h=0):
    return g


def _kw(*, h=0):
    return h


def _either(g=0.0):
    if g is None:
        return 1.0
    return g


@tf.custom_gradient
def f(x, b):
    extra = []
    terms = [x * 0.0]
    numbers = [0.0, 1.0]
    changed = []
    changed.append(x)

    def grad(dy):
        BODY
    return x + b, grad
"""


def _cg110(body):
    code = CODE.replace("BODY", body.replace("\n", "\n        "))
    return [finding for finding in lint(code, target_python=(3, 6)) if finding[0] == "CG110"]


@pytest.mark.parametrize("body", [
    "return dy, sum(extra)",
    "return dy, sum([])",
    "return dy, sum(())",
    "return dy, sum(numbers)",
    "return dy, sum(extra, 0.0)",
    "return dy, _or_zero()",
    "return dy, _or_zero(0)",
    "return dy, _or_zero(g=1.0)",
    "return dy, _kw()",
    "return dy, _either()",
])
def test_number_reported(body):
    assert len(_cg110(body)) == 1


@pytest.mark.parametrize("body", [
    "return dy, sum(terms)",
    "return dy, sum(changed)",  # appended to: holds a tensor
    "return dy, sum(extra, dy)",  # a tensor start
    "return dy, _or_zero(dy)",
    "return dy, _or_zero(g=dy * 0.0)",
    "return dy, _or_zero(*[dy])",
    "return dy, _kw(h=dy)",
])
def test_tensor_clean(body):
    assert _cg110(body) == []


def test_sum_rebound_is_not_the_builtin():
    code = CODE.replace("BODY", "return dy, sum(extra)").replace(
        "import tensorflow as tf\n", "import tensorflow as tf\nfrom mylib import sum\n")
    assert [f for f in lint(code) if f[0] == "CG110"] == []
