"""CG106 for a tensor or a constant where the gradient function belongs (probe z3a):
`return [y1, y2]` with the gradient function forgotten, and `grad` reused for a tensor
after its def. TF 1.8 unpacks the pair and calls the second item at tf.gradients:
`TypeError: 'Tensor' object is not callable` (fixtures/CG106/bad_two_outputs_without_grad_fn.py,
bad_grad_name_rebound_to_a_tensor.py)."""
import pytest

from conftest import lint

FORWARD = """
import tensorflow as tf


def helper(dy):
    return dy


@tf.custom_gradient
def f(x):
    def grad(dy):
        return dy
    BODY
"""


def _cg106(body):
    code = FORWARD.replace("BODY", body.replace("\n", "\n    "))
    return [finding for finding in lint(code) if finding[0] == "CG106"]


@pytest.mark.parametrize("body", [
    "return [x * 2.0, x * 3.0]",
    "return x, tf.ones_like(x)",
    "return tf.identity(x), x",
    "return x, 'grad'",
    "return x, 1.0",
    "grad = tf.gradients(x * x, x)[0]\nreturn x * x, grad",
    "grad = x * 2.0\nreturn x, grad",
    "y = x * x\ngrad = tf.ones_like(y)\nreturn y, grad",
])
def test_reported(body):
    assert len(_cg106(body)) == 1


@pytest.mark.parametrize("body", [
    "return x, grad",
    "return x, tf.negative",
    "return x, tf.zeros_like",
    "return x, helper",
    "g = tf.zeros_like\nreturn x, g",
    # the def comes after the tensor: the function is returned
    "grad = tf.ones_like(x)\ndef grad(dy):\n    return dy\nreturn x, grad",
    # bound in a branch or a loop: not followed
    "if x is None:\n    grad = tf.ones_like(x)\nreturn x, grad",
    "for grad in [helper]:\n    pass\nreturn x, grad",
    "grad = make(x)\nreturn x, grad",
    "return x, make(x)",
])
def test_not_reported(body):
    assert _cg106(body) == []


@pytest.mark.parametrize("body", [
    "grad = tf.make_template('grad', grad)\nreturn x, grad",
    "grad = tf.contrib.eager.defun(grad)\nreturn x, grad",
    "return x, tf.make_template('grad', grad)",
    "return x, tf.make_template('grad', lambda dy: dy)",
])
def test_tensorflow_calls_handed_a_function_may_give_one(body):
    assert _cg106(body) == []


@pytest.mark.parametrize("params, reported", [
    ("dy, *, scale", 1),
    ("dy, *, scale, bound", 2),
    ("dy, *, scale=0.5", 0),
    ("dy, *, variables", 0),  # CG107's
    ("*dys, scale", 1),
])
def test_required_keyword_only_parameters(params, reported):
    code = """
import tensorflow as tf


@tf.custom_gradient
def f(x):
    def grad(%s):
        return x
    return tf.identity(x), grad
""" % params
    found = [f for f in lint(code, target_python=(3, 6)) if f[0] == "CG104"]
    assert len(found) == reported
