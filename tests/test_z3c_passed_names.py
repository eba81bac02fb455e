"""CG202 at a caller's string when the override map's gradient name is a parameter of
the def holding the map (the Keras Grad-CAM recipe's `modify_backprop(model, name)`),
probe z3c j22: each call in the module passing a known string is a use of that name."""
import textwrap

import pytest

from cglint import check, engine

CODE = """
import tensorflow as tf


@tf.RegisterGradient("GuidedBackProp")
def _guided(op, grad):
    return tf.nn.relu(grad)


def modify_backprop(build, name):
    with tf.get_default_graph().gradient_override_map({"Relu": name}):
        return build()


x = tf.constant([[-1.0, 2.0]])
CALLS
"""


@pytest.mark.parametrize("calls, found", [
    ('y = modify_backprop(lambda: tf.nn.relu(x), "GuidedBackProp")', []),
    ('y = modify_backprop(lambda: tf.nn.relu(x), "GuidedBackprop")', [("CG202", 16, 44)]),
    ('y = modify_backprop(lambda: tf.nn.relu(x), name="GuidedBackprop")', [("CG202", 16, 49)]),
    ('NAME = "GuidedBackprop"\ny = modify_backprop(lambda: tf.nn.relu(x), NAME)',
     [("CG202", 17, 44)]),
    ('y = modify_backprop(lambda: tf.nn.relu(x), "Guided" + suffix())', []),
    ('y = modify_backprop(lambda: tf.nn.relu(x), "Identity")', []),  # (TF's own)
])
def test_names_passed_to_the_def_holding_the_map(calls, found):
    code = textwrap.dedent(CODE).replace("CALLS", calls)
    results = check.check_texts({"snippet.py": code}, engine.Options(select=("CG202",)))
    got = sorted((d.code, d.line, d.col) for result in results for d in result.diagnostics)
    assert got == found
