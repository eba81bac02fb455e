"""CG111's reverse (probe z3a U10): a gradient surely of shape () for an input a call
passes visibly of rank one or more: TF 1.8 raises `ValueError: Incompatible shapes between
op input and calculated input gradient` at tf.gradients (fixtures/CG111/bad_reduced_*,
bad_l2_loss_*; the good_reduc* fixtures run)."""
import pytest

from conftest import lint

CODE = """
import tensorflow as tf


@tf.custom_gradient
def f(x, b):
    def grad(dy):
        BODY
    return x + b, grad


x = tf.constant([1.0, 2.0])
B_VALUE
y = f(x, b)
"""


def _cg111(body, b="b = tf.Variable([0.5, 0.5])", target_python=(2, 7)):
    code = CODE.replace("BODY", body.replace("\n", "\n        ")).replace("B_VALUE", b)
    return [finding for finding in lint(code, target_python=target_python)
            if finding[0] == "CG111"]


@pytest.mark.parametrize("body", [
    "return dy, tf.reduce_sum(dy)",
    "return dy, tf.reduce_mean(dy * x) * 2.0",
    "return dy, -tf.reduce_sum(dy, keepdims=False)",
    "return dy, tf.nn.l2_loss(dy)",
    "db = tf.reduce_sum(dy * x)\nreturn dy, db",
    "return [dy, tf.cast(tf.reduce_max(dy), tf.float32)]",
    "return dy, tf.reduce_sum(dy) + tf.reduce_mean(dy)",
])
def test_reduced_gradient_for_vector_input_reported(body):
    assert len(_cg111(body)) == 1
    assert len(_cg111(body, target_python=(3, 6))) == 1


@pytest.mark.parametrize("b", [
    "b = tf.get_variable('b', [2])",
    "b = tf.placeholder(tf.float32, [None])",
    "b = tf.constant([0.5])",
    "b = tf.zeros([2, 2])",
])
def test_visibly_shaped_inputs(b):
    assert len(_cg111("return dy, tf.reduce_sum(dy)", b=b)) == 1


@pytest.mark.parametrize("body", [
    "return dy, tf.reduce_sum(dy, axis=0)",  # keeps an axis here: rank unknown
    "return dy, tf.reduce_sum(dy, keepdims=True)",
    "return dy, tf.reduce_sum(dy) * x",  # broadcast back to x's shape
    "return dy, tf.ones_like(b) * tf.reduce_sum(dy)",
    "return dy, dy",
    "return dy, None",
    "return dy, 0.0",  # a number: CG110's business
    "db = tf.reduce_sum(dy)\ndb = db * x\nreturn dy, db",
])
def test_not_surely_scalar_clean(body):
    assert _cg111(body) == []


@pytest.mark.parametrize("b", [
    "b = tf.placeholder(tf.float32)",  # unknown shape
    "b = tf.Variable(0.5)",  # a scalar: fine
    "b = tf.get_variable('b', [])",
    "b = make_b()",
])
def test_inputs_not_visibly_shaped_clean(b):
    assert _cg111("return dy, tf.reduce_sum(dy)", b=b) == []


def test_eager_left_alone():
    code = "import tensorflow as tf\ntf.enable_eager_execution()\n" + CODE.replace(
        "BODY", "return dy, tf.reduce_sum(dy)").replace("B_VALUE", "b = tf.constant([0.5])")
    assert [f for f in lint(code) if f[0] == "CG111"] == []
