"""CG108: non-tensor arguments whose value the module shows from afar, and NumPy
functions that need a number (probe z3b; each bad case fails under TF 1.8 on 2.7 and
3.6, each near-miss runs)."""
import pytest

from conftest import lint

_CG = """
import numpy as np
import tensorflow as tf

PRELUDE

@tf.custom_gradient
def op(x, p):
    y = BODY
    def grad(dy):
        return dy, None
    return y, grad

CALLS
"""


def _code(prelude, body, calls):
    return _CG.replace("PRELUDE", prelude).replace("BODY", body).replace("CALLS", calls)


@pytest.mark.parametrize("prelude, body, calls", [
    # a module constant
    ('MODE = "fast"', 'x * 2.0 if p == "fast" else x', "op(tf.ones([2]), MODE)"),
    ("USE_NOISE = False", "x + 1.0 if p else x", "op(tf.ones([2]), USE_NOISE)"),
    ("K = 2", "x * p", "op(tf.ones([2]), K)"),
    ("MASK = None", "x", "op(tf.ones([2]), MASK)"),
    # a default of the caller's parameter, left out by a call of the module
    ("", "x if p is None else x + p",
     "def attend(x, mask=None):\n    return op(x, mask)\nattend(tf.ones([2]))"),
    ("", "x + 1.0 if p else x",
     "def model(x, is_training=True):\n    return op(x, is_training)\nmodel(tf.ones([2]))"),
    ("", "tf.cast(x, p)",
     "def to(x, dtype=tf.float16):\n    return op(x, dtype)\nto(tf.ones([2]))"),
    # a NumPy function that needs a number
    ("", "x * float(np.exp(-p))", "op(tf.ones([2]), 0.5)"),
    ("", "x * np.sqrt(p)", "op(tf.ones([2]), 0.5)"),
])
def test_cg108_values_shown_from_afar(prelude, body, calls):
    found = lint(_code(prelude, body, calls), select=["CG108"])
    assert [code for code, _, _ in found] == ["CG108"], found


@pytest.mark.parametrize("prelude, body, calls", [
    # a module constant used as the tensor it becomes
    ("AXIS = 1", "x / tf.reduce_sum(x, axis=p, keepdims=True)", "op(tf.ones([2, 3]), AXIS)"),
    ('MODE = "train"', 'tf.where(tf.equal(p, "train"), x * 2.0, x)', "op(tf.ones([2]), MODE)"),
    ("SCALE = 0.5", "x * p", "op(tf.ones([2]), SCALE)"),
    # a constant some function may change
    ('MODE = "fast"\ndef set_mode(m):\n    global MODE\n    MODE = m',
     'x * 2.0 if p == "fast" else x', "op(tf.ones([2]), MODE)"),
    # every call passes the argument; or the caller tests it first
    ("", "x * p", "def attend(x, mask=None):\n    return op(x, mask)\n"
     "attend(tf.ones([2]), tf.ones([2]))"),
    ("", "x * p", "def attend(x, mask=None):\n    if mask is None:\n        return x\n"
     "    return op(x, mask)\nattend(tf.ones([2]))"),
    ("", "x * p", "def attend(x, mask=None):\n    return op(x, mask) if mask is not None "
     "else x\nattend(tf.ones([2]))"),
    # NumPy functions that work on a tensor
    ("", "x * np.square(np.abs(p))", "op(tf.ones([2]), -0.5)"),
])
def test_cg108_near_misses_shown_from_afar(prelude, body, calls):
    assert lint(_code(prelude, body, calls), select=["CG108"]) == []


def test_cg108_message_says_where_the_value_comes_from():
    from cglint import check, engine
    code = _code("", "x if p is None else x + p",
                 "def attend(x, mask=None):\n    return op(x, mask)\n\nattend(tf.ones([2]))")
    result = check.check_alone("snippet.py", code, engine.Options(select=("CG108",)))
    assert "gets None (`mask`, left to its default by the call on line 17)" in \
        result.diagnostics[0].message


@pytest.mark.parametrize("spread, shown", [
    ("**self.kwargs", "`**self.kwargs`"),
    ("**params['act']", "`**params['act']`"),
    ("**kw", "`**kw`"),
])
def test_cg105_names_the_spread_keywords_as_written(spread, shown):
    from cglint import check, engine
    code = """
import tensorflow as tf

@tf.custom_gradient
def leaky(x, alpha=0.2):
    def grad(dy):
        return dy
    return x, grad

class Act(object):
    def __init__(self, params, **kwargs):
        self.kwargs = kwargs
        params = params
    def __call__(self, x, params, kw):
        return leaky(x, SPREAD)
""".replace("SPREAD", spread)
    result = check.check_alone("snippet.py", code, engine.Options(select=("CG105",)))
    assert "keyword argument %s:" % shown in result.diagnostics[0].message


@pytest.mark.parametrize("prelude, argument, reported", [
    ("dense = tf.keras.layers.Dense(3)", "dense", True),
    ("", "tf.keras.layers.Dense(3)", True),
    ("", "tf.SparseTensor([[0, 0]], [1.0], [2, 2])", True),
    ("model = tf.keras.Sequential([tf.keras.layers.Dense(2)])", "model", True),
    # near-misses: what TF converts, or makes a tensor
    ("w = tf.Variable(tf.ones([2]))", "w", False),
    ("", "tf.layers.dense(tf.ones([2, 2]), 2)", False),
    ("", "tf.keras.layers.Dense(2)(tf.ones([2, 2]))", False),
])
def test_cg108_objects_tf_cannot_convert(prelude, argument, reported):
    code = _code(prelude, "x", "op(tf.ones([2]), %s)" % argument)
    assert bool(lint(code, select=["CG108"])) is reported


@pytest.mark.parametrize("body, argument, reported", [
    # a list of numbers is one float tensor in graph mode: Python cannot unpack it
    ("tf.clip_by_value(x, *p)", "[0.0, 0.5]", True),
    ("x * float(len(p))", "[0.5, 1.5]", True),
    ("tf.add_n([x * b for b in p])", "(0.5, 1.5)", True),
    # ...but may index it, or use it as the vector it becomes
    ("tf.clip_by_value(x, p[0], p[1])", "[0.0, 0.5]", False),
    ("x * p", "[0.5, 1.5]", False),
    # np.float32(...) is a float like the literal: reported only where Python tests it
    ("tf.minimum(x, p) if p > 0 else x", "np.float32(0.5)", True),
    ("tf.minimum(x, p)", "np.float32(0.5)", False),
])
def test_cg108_lists_of_numbers_and_numpy_floats(body, argument, reported):
    code = _code("", body, "op(tf.ones([2]), %s)" % argument)
    assert bool(lint(code, select=["CG108"])) is reported


def test_cg108_a_name_bound_to_a_list_of_numbers_that_is_unpacked():
    code = _code("", "x", "").replace("    y = x\n", "    lo, hi = p\n    y = x\n")
    code += "def run():\n    bounds = [0.0, 0.5]\n    return op(tf.ones([2]), bounds)\n"
    assert [c for c, _, _ in lint(code, select=["CG108"])] == ["CG108"]
