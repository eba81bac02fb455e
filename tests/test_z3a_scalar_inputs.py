"""CG111 follows a scalar kept on the object (`self.alpha = tf.Variable(0.25)` set once
by the class's methods, a Keras layer's `self.add_weight("s", shape=())`) and one picked
from a dict or list display (`HPARAMS["lambda"]`) (probe z3a). TF 1.8: `ValueError:
Incompatible shapes between op input and calculated input gradient` (fixtures/CG111/
bad_scalar_slope_kept_on_self.py, bad_keras_scalar_weight.py,
bad_scalar_from_a_hparams_dict.py)."""
import pytest

from conftest import lint

CLASS = """
import tensorflow as tf

TABLE = {"lam": tf.constant(0.1), "vec": tf.ones([2])}
LIST = [tf.constant(0.1), tf.Variable(0.2)]


@tf.custom_gradient
def scale(x, s):
    def grad(dy):
        return dy * s, dy * x
    return x * s, grad


class Block(BASE):
    def __init__(self):
        INIT

    def build(self, shape):
        BUILD

    def __call__(self, x):
        return scale(x, ARG)
"""


def _cg111(arg, init="pass", build="pass", base="object"):
    code = CLASS.replace("ARG", arg).replace("INIT", init).replace("BUILD", build).replace(
        "BASE", base)
    return [finding for finding in lint(code) if finding[0] == "CG111"]


@pytest.mark.parametrize("arg, init, build, base", [
    ("self.a", "self.a = tf.Variable(0.25)", "pass", "object"),
    ("self.a", "self.a = tf.constant(0.25)", "pass", "object"),
    ("self.a", "pass", "self.a = tf.get_variable('a', [])", "object"),
    ("self.a", "pass", "self.a = self.add_weight('a', shape=())", "tf.keras.layers.Layer"),
    ("self.a", "pass", "self.a = self.add_weight('a', ())", "tf.layers.Layer"),
    ("self.a", "pass", "self.a = self.add_variable('a', shape=[])", "tf.keras.layers.Layer"),
    ("TABLE['lam']", "pass", "pass", "object"),
    ("LIST[0]", "pass", "pass", "object"),
    ("LIST[i]", "pass", "pass", "object"),
])
def test_reported(arg, init, build, base):
    assert len(_cg111(arg, init, build, base)) == 1


@pytest.mark.parametrize("arg, init, build, base", [
    ("self.a", "self.a = tf.Variable(tf.ones([2]))", "pass", "object"),
    # set twice, or set some other way: not followed
    ("self.a", "self.a = tf.Variable(0.25)", "self.a = tf.Variable(tf.ones([2]))", "object"),
    ("self.a", "self.a, self.b = tf.Variable(0.25), 1", "pass", "object"),
    ("self.a", "pass", "self.a = self.add_weight('a', shape=(2,))", "tf.keras.layers.Layer"),
    # a class of its own with its own add_weight: unknown
    ("self.a", "pass", "self.a = self.add_weight('a', shape=())", "object"),
    ("TABLE['vec']", "pass", "pass", "object"),
    ("TABLE[key]", "pass", "pass", "object"),
    ("other.a", "self.a = tf.Variable(0.25)", "pass", "object"),
])
def test_not_reported(arg, init, build, base):
    assert _cg111(arg, init, build, base) == []
