"""CG107 leaves alone a `kwargs.get("variables")` that the gradient function only tests,
in a function that uses no variable, as it does a tested `variables=None` parameter
(probe z3a: fixtures/CG107/good_kwargs_variables_only_tested.py runs on TF 1.8); with a
variable read it is still reported (bad_kwargs_variables_tested_with_a_variable.py: the
weight gets no gradient)."""
import pytest

from conftest import lint

GRAD = """
import tensorflow as tf

weight = tf.Variable([2.0])


@tf.custom_gradient
def f(x):
    def grad(*dys, **kwargs):
        BODY
        return dys[0] * 2.0
    return x * FACTOR, grad
"""


def _cg107(body, factor="2.0"):
    code = GRAD.replace("BODY", body.replace("\n", "\n        ")).replace("FACTOR", factor)
    return [finding for finding in lint(code) if finding[0] == "CG107"]


@pytest.mark.parametrize("body", [
    "if kwargs.get('variables'):\n    raise ValueError('none expected')",
    "assert not kwargs.get('variables')",
    "assert kwargs.get('variables') is None",
    "if kwargs.get('variables') is not None:\n    raise ValueError('none expected')",
])
def test_only_tested_is_harmless(body):
    assert _cg107(body) == []


@pytest.mark.parametrize("body, factor", [
    ("if kwargs.get('variables'):\n    raise ValueError('none expected')", "weight"),
    ("vs = kwargs.get('variables')", "2.0"),
    ("print(kwargs.get('variables'))", "2.0"),
])
def test_used_or_with_variables_is_reported(body, factor):
    assert len(_cg107(body, factor)) == 1
