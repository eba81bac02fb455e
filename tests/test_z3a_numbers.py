"""CG110 (probe z3a): numbers reached through a class constant (`self.NO_GRADIENT`), a
dict display of the module (`FIXED["phase"]`) and `math.pi` / `np.pi`; and the gating of
minimize() saves a number only for an input of shape (): for a visibly shaped one
(`tf.Variable([3.0, 3.0])`, `tf.get_variable("s", [2])`) tf.tuple makes it a tensor of
shape () and TF 1.8 raises `ValueError: Incompatible shapes between op input and
calculated input gradient` (fixtures/CG110/bad_float_zero_for_a_vector_under_minimize.py;
good_float_zero_gated_by_minimize.py, a scalar, runs)."""
import pytest

from conftest import lint

PLAIN = """
import math
import numpy as np
import tensorflow as tf

FIXED = {"zero": 0.0, "none": None}


class Op(object):
    ZERO = 0.0
    NONE = None

    def __call__(self, x, b):
        @tf.custom_gradient
        def f(x, b):
            def grad(dy):
                return dy, VALUE
            return x + b, grad
        return f(x, b)


x, b = tf.constant([1.0]), tf.constant([0.5])
g = tf.gradients(Op()(x, b), x)
"""


@pytest.mark.parametrize("value", ["self.ZERO", "Op.ZERO", "FIXED['zero']", "math.pi",
                                   "np.pi", "np.inf"])
def test_numbers_reached(value):
    found = [f for f in lint(PLAIN.replace("VALUE", value)) if f[0] == "CG110"]
    assert len(found) == (value != "Op.ZERO")  # (a class's own name: not followed)


@pytest.mark.parametrize("value", ["self.NONE", "FIXED['none']", "FIXED[key]", "math.sqrt",
                                   "dy * math.pi", "self.other"])
def test_no_number(value):
    assert [f for f in lint(PLAIN.replace("VALUE", value)) if f[0] == "CG110"] == []


def test_a_class_constant_the_instance_changes_is_not_followed():
    code = PLAIN.replace("VALUE", "self.ZERO").replace(
        "    def __call__", "    def freeze(self):\n        self.ZERO = tf.zeros([1])\n\n"
        "    def __call__")
    assert [f for f in lint(code) if f[0] == "CG110"] == []


GATED = """
import tensorflow as tf


@tf.custom_gradient
def frozen_scale(x, s):
    def grad(dy):
        return dy * s, NUMBER
    return x * s, grad


w = tf.Variable([1.0, 2.0])
s = SCALE
loss = tf.reduce_sum(frozen_scale(w, s))
train = tf.train.GradientDescentOptimizer(0.1).minimize(loss)
"""


@pytest.mark.parametrize("number, scale, reported", [
    ("0.0", "tf.Variable(3.0)", False),
    ("0.0", "tf.Variable([3.0, 3.0])", True),
    ("0.0", "tf.get_variable('s', [2])", True),
    ("0.0", "tf.get_variable('s', shape=[None, 2])", True),
    ("0.0", "tf.constant([3.0, 3.0])", True),
    ("0.0", "tf.placeholder(tf.float32)", False),
    ("0.0", "tf.placeholder(tf.float32, [])", False),
    ("0", "tf.constant([3.0, 3.0])", True),
    ("0", "tf.constant(3.0)", False),
])
def test_gating_saves_a_number_for_a_scalar_input_only(number, scale, reported):
    code = GATED.replace("NUMBER", number).replace("SCALE", scale)
    assert len([f for f in lint(code) if f[0] == "CG110"]) == reported


def test_the_message_names_the_shape_under_gating():
    from cglint import check, engine

    code = GATED.replace("NUMBER", "0.0").replace("SCALE", "tf.Variable([3.0, 3.0])")
    result = check.check_alone("snippet.py", code, engine.Options(select=("CG110",)))
    (finding,) = result.diagnostics
    assert "tensor of shape ()" in finding.message
    plain = code.replace(".minimize(loss)", ".minimize(loss)\ng = tf.gradients(loss, w)")
    (finding,) = check.check_alone("snippet.py", plain,
                                   engine.Options(select=("CG110",))).diagnostics
    assert "needs a tensor or None" in finding.message
