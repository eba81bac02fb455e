"""CG103 leaves out the returns TF 1.8 never runs: under `if dy is None:` (or the `else`
of `if dy is not None:`) for a positional parameter of the gradient function. TF 1.8 passes
one tensor per output, zeros for one not differentiated, never None (tf18-facts e5):
fixtures/CG103/good_unreachable_none_branch.py runs on py27 and py36. A test of anything
else (a value of the enclosing function, the `variables` keyword TF 1.8 never passes)
may run, and its return still counts (fixtures/CG103/bad_none_branch_of_a_closure_value.py:
`ValueError: Num gradients 2 generated for op name: "IdentityN"`)."""
import pytest

from conftest import lint

MUL = """
import tensorflow as tf


def make(scale=None):
    @tf.custom_gradient
    def mul(x, w):
        def grad(PARAMS):
            BODY
        return x * w, grad
    return mul
"""
SPREAD = """
import tensorflow as tf


@tf.custom_gradient
def spread(*xs):
    def grad(dy):
        if dy is None:
            return None
        return dy, dy
    return xs[0] + xs[1], grad


y = spread(tf.constant(1.0), tf.constant(2.0), tf.constant(3.0))
"""


def _cg103(body, params="dy"):
    code = MUL.replace("PARAMS", params).replace("BODY", body.replace("\n", "\n            "))
    return [line for _, line, _ in lint(code, select=["CG103"])]


@pytest.mark.parametrize("body, params", [
    ("if dy is None:\n    return None\nreturn dy * w, dy * x", "dy"),
    ("if None is dy:\n    return None\nreturn dy * w, dy * x", "dy"),
    ("if dy is not None:\n    return dy * w, dy * x\nelse:\n    return None", "dy"),
    ("if daux is None:\n    return dy * w\nreturn dy * w + daux, dy * x", "dy, daux"),
    ("for _ in range(1):\n    if dy is None:\n        return None\nreturn dy * w, dy * x", "dy"),
])
def test_a_return_tf18_never_runs_decides_no_count(body, params):
    assert _cg103(body, params) == []


@pytest.mark.parametrize("body, params", [
    ("if scale is None:\n    return dy * w\nreturn dy * w * scale, dy * x * scale", "dy"),
    ("if variables is None:\n    return dy * w\nreturn dy * w, dy * x", "dy, variables=None"),
    ("if dy is not None:\n    return dy * w\nreturn dy * w, dy * x", "dy"),
    ("if dy is None or scale:\n    return dy * w\nreturn dy * w, dy * x", "dy"),
])
def test_a_return_that_may_run_counts(body, params):
    assert _cg103(body, params) == [10]


def test_a_star_args_call_is_judged_by_the_returns_that_run():
    """The one count left (2) meets a call passing three inputs."""
    assert [line for _, line, _ in lint(SPREAD, select=["CG103"])] == [14]
