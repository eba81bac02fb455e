"""Override maps held in a class attribute (`self.OVERRIDES`) and gradient names read
from a module constant dict (`GRADS["relu"]`), probe z3c d06/d15: judged as literals,
unless the module may change them."""
import textwrap

import pytest

from cglint import check, engine


def lint(code):
    results = check.check_texts({"snippet.py": textwrap.dedent(code)},
                                engine.Options(select=("CG2",)))
    return sorted((d.code, d.line) for result in results for d in result.diagnostics)


CLASS_MAP = """
import tensorflow as tf

@tf.RegisterGradient("GuidedRelu")
def _g(op, grad):
    return tf.nn.relu(grad)

class Saliency(object):
    OVERRIDES = {KEY: VALUE}

    def __init__(self, x):
        CHANGE
        with tf.get_default_graph().gradient_override_map(self.OVERRIDES):
            self.y = tf.nn.relu(x)
"""


@pytest.mark.parametrize("key, value, change, found", [
    ('"Relu"', '"GuidedRelu"', "pass", []),
    ('"Relu"', '"GuidedRelU"', "pass", [("CG202", 9)]),
    ('"ReLU"', '"GuidedRelu"', "pass", [("CG201", 9)]),
    ('"Relu"', '"GuidedRelU"', 'self.OVERRIDES["Relu"] = "GuidedRelu"', []),
    ('"Relu"', '"GuidedRelU"', 'self.OVERRIDES.update(Relu="GuidedRelu")', []),
    ('"Relu"', '"GuidedRelU"', 'self.OVERRIDES = {"Relu": "GuidedRelu"}', []),
])
def test_an_override_map_in_a_class_attribute(key, value, change, found):
    code = CLASS_MAP.replace("KEY", key).replace("VALUE", value).replace("CHANGE", change)
    assert lint(code) == found


DICT_NAME = """
import tensorflow as tf

GRADS = {"relu": "GuidedRelu", "sign": VALUE}
CHANGE

@tf.RegisterGradient("GuidedRelu")
def _g(op, grad):
    return tf.nn.relu(grad)

@tf.RegisterGradient("SignSTE")
def _s(op, grad):
    return grad

x = tf.constant([1.0])
with tf.get_default_graph().gradient_override_map({"Sign": GRADS[KEY]}):
    y = tf.sign(x)
"""


@pytest.mark.parametrize("value, key, change, found", [
    ('"SignSTE"', '"sign"', "", []),
    ('"SignSte"', '"sign"', "", [("CG202", 16)]),
    ('"SignSte"', '"missing"', "", []),  # (KeyError at run time: not CG202's)
    ('"SignSte"', '"sign"', 'GRADS["sign"] = "SignSTE"', []),
    ('"SignSte"', '"sign"', 'GRADS.update(sign="SignSTE")', []),
])
def test_a_gradient_name_read_from_a_module_dict(value, key, change, found):
    code = DICT_NAME.replace("VALUE", value).replace("KEY", key).replace("CHANGE", change)
    assert lint(code) == found
