"""CG101/CG102: variables made or read in a custom gradient the way real code spells them
(probe z3b; every bad case checked under TF 1.8 on 2.7 and 3.6: a None gradient)."""
import pytest

from conftest import lint

_SITE = """
import functools
import tensorflow as tf
slim = tf.contrib.slim

PRELUDE

@tf.custom_gradient
def f(x):
    y = BODY
    def grad(dy):
        return dy
    return y, grad
"""


def _site(prelude, body):
    return _SITE.replace("PRELUDE", prelude).replace("BODY", body)


@pytest.mark.parametrize("prelude, body", [
    # contrib layers with weights that were missing from the table
    ("", "tf.contrib.layers.instance_norm(x)"),
    ("", "tf.contrib.layers.group_norm(x, groups=2)"),
    # a creator reached by value: a partial, a lambda, a layer runner
    ("dense = functools.partial(tf.layers.dense, units=4)", "dense(x)"),
    ("fc = lambda h: tf.layers.dense(h, 2)", "fc(x)"),
    ("", "slim.stack(x, slim.fully_connected, [4, 2])"),
    ("", "slim.repeat(x, 2, slim.conv2d, 3, [3, 3])"),
    # a class of the module made inside: its __init__ (and a layer's build) run
    ("class Scale(tf.keras.layers.Layer):\n"
     "    def build(self, shape):\n"
     "        self.k = self.add_weight('k', shape=(3,))\n"
     "    def call(self, x):\n"
     "        return x * self.k", "Scale()(x)"),
    ("class Tiny(tf.keras.Model):\n"
     "    def __init__(self):\n"
     "        super(Tiny, self).__init__()\n"
     "        self.d = tf.keras.layers.Dense(2)\n"
     "    def call(self, x):\n"
     "        return self.d(x)", "Tiny()(x)"),
    ("class Linear(object):\n"
     "    def __init__(self):\n"
     "        self.w = tf.get_variable('w', [3])", "x * Linear().w"),
    # a staticmethod helper called on its class
    ("class Ops(object):\n"
     "    @staticmethod\n"
     "    def weight(shape):\n"
     "        return tf.Variable(tf.ones(shape))", "x * Ops.weight([3])"),
])
def test_cg101_creators_the_body_reaches(prelude, body):
    found = lint(_site(prelude, body), select=["CG101"])
    assert [code for code, _, _ in found] == ["CG101"], found


@pytest.mark.parametrize("prelude, body", [
    ("act = functools.partial(tf.nn.leaky_relu, alpha=0.1)", "act(x)"),
    ("sq = lambda t: tf.square(t)", "sq(x)"),
    ("", "slim.stack(x, tf.nn.relu, [1, 2])"),
    ("class Double(tf.keras.layers.Layer):\n"
     "    def build(self, shape):\n"
     "        self.factor = 2.0\n"
     "    def call(self, x):\n"
     "        return x * self.factor", "Double()(x)"),
    ("class Cfg(object):\n"
     "    def __init__(self):\n"
     "        self.scale = 0.5", "x * Cfg().scale"),
    ("dense = functools.partial(tf.layers.dense, units=4, trainable=False)", "dense(x)"),
])
def test_cg101_near_misses_reached_by_value(prelude, body):
    assert lint(_site(prelude, body), select=["CG101"]) == []


def test_cg101_message_names_the_partial_and_a_layer_weight_gets_no_gradient():
    from cglint import check, engine
    code = _site("dense = functools.partial(tf.layers.dense, units=4)", "dense(x)")
    result = check.check_alone("snippet.py", code, engine.Options(select=("CG101",)))
    message = result.diagnostics[0].message
    assert message.startswith("`dense`, a `functools.partial` of `tf.layers.dense`, creates")
    code = _site("class Scale(tf.keras.layers.Layer):\n"
                 "    def build(self, shape):\n"
                 "        self.k = self.add_weight('k', shape=(3,))\n"
                 "    def call(self, x):\n"
                 "        return x * self.k", "Scale()(x)")
    result = check.check_alone("snippet.py", code, engine.Options(select=("CG101",)))
    # a trainable layer weight: no gradient (not "already exists", which a new Keras
    # layer never raises)
    assert "no gradient (None)" in result.diagnostics[0].message


@pytest.mark.parametrize("prelude, body", [
    # the tutorials' helper that returns a new variable
    ("def weight_variable(shape):\n"
     "    initial = tf.truncated_normal(shape, stddev=0.1)\n"
     "    return tf.Variable(initial)\n"
     "W = weight_variable([3])", "x * W"),
    ("def make(name):\n"
     "    w = tf.get_variable(name, [3])\n"
     "    return w\n"
     "W = make('w')", "x * W"),
    # names bound by unpacking a tuple of variables
    ("W, B = tf.get_variable('w', [3]), tf.get_variable('b', [3])", "x * W + B"),
    # a whole list or tuple of variables
    ("weights = [tf.get_variable('w%d' % i, [3]) for i in range(2)]",
     "tf.add_n([x * w for w in weights])"),
    ("weights = (tf.Variable(tf.ones([3])), tf.Variable(tf.ones([3])))",
     "x * weights[0] * tf.add_n(list(weights))"),
    # a Keras layer class of the module with a weight, made outside, called inside
    ("class Scale(tf.keras.layers.Layer):\n"
     "    def build(self, shape):\n"
     "        self.k = self.add_weight('k', shape=(3,))\n"
     "    def call(self, x):\n"
     "        return x * self.k\n"
     "scale = Scale()", "scale(x)"),
])
def test_cg102_variables_the_module_makes_less_directly(prelude, body):
    found = lint(_site(prelude, body), select=["CG102"])
    assert found and {code for code, _, _ in found} == {"CG102"}, found


@pytest.mark.parametrize("prelude, body", [
    # reads of the shape only: no gradient wanted
    ("w = tf.get_variable('w', [3])", "x[:tf.shape(w)[0]] + tf.zeros_like(w)"),
    ("w = tf.get_variable('w', [3])", "x * tf.cast(tf.size(w), tf.float32)"),
    # helpers and displays that hold no variable, or not only variables
    ("def make_kernel(shape):\n    return tf.constant(0.5, shape=shape)\nW = make_kernel([3])",
     "x * W"),
    ("lo, hi = tf.constant(0.0), tf.constant(1.0)", "tf.clip_by_value(x, lo, hi)"),
    ("mixed = [tf.Variable(1.0), tf.constant(1.0)]", "x * tf.add_n(mixed)"),
    ("weights = [tf.Variable(1.0), tf.Variable(2.0)]", "x * len(weights)"),
    ("weights = [tf.Variable(1.0)]\nweights.extend(others)", "x * tf.add_n(weights)"),
    ("class Double(tf.keras.layers.Layer):\n"
     "    def call(self, x):\n"
     "        return x * 2.0\n"
     "double = Double()", "double(x)"),
])
def test_cg102_near_misses_of_less_direct_variables(prelude, body):
    assert lint(_site(prelude, body), select=["CG102"]) == []


@pytest.mark.parametrize("body, reported", [
    ("x * [v for v in tf.trainable_variables() if 'scale' in v.name][0]", True),
    ("x * tf.contrib.framework.get_trainable_variables('enc')[0]", True),
    ("x * slim.get_trainable_variables('enc')[-1]", True),
    # near-misses: the comprehension makes something else of them, or reads all variables
    ("x * [tf.stop_gradient(v) for v in tf.trainable_variables()][0]", False),
    ("x * [v for v in tf.global_variables() if 'scale' in v.name][0]", False),
    ("x * tf.cast(len([v for v in tf.trainable_variables()]), tf.float32)", False),
])
def test_cg102_trainable_variables_picked_by_name(body, reported):
    code = _site("tf.get_variable('scale', [3])", body)
    found = lint(code, select=["CG102"])
    assert bool(found) is reported, found


_CLASS = """
import tensorflow as tf

class Model(object):
    def _make(self, name, shape):
        return MADE
    def __init__(self):
        self.w = self._make("w", [3])
    def forward(self, x):
        @tf.custom_gradient
        def f(x):
            def grad(dy):
                return dy * self.w
            return x * self.w, grad
        return f(x)
"""


@pytest.mark.parametrize("made, reported", [
    ("tf.get_variable(name, shape)", True),
    ("tf.Variable(tf.ones(shape), name=name)", True),
    ("tf.constant(1.0, shape=shape)", False),
    ("tf.get_variable(name, shape, trainable=False)", False),
])
def test_cg102_attribute_set_by_a_method_that_makes_the_variable(made, reported):
    found = lint(_CLASS.replace("MADE", made), select=["CG102"])
    assert bool(found) is reported, found
