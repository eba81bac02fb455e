"""CG203 on a gradient name built from an attribute `__init__` sets once and nothing
changes (the DANN FlipGradientBuilder with its counter never incremented): the same
name on every call (helper R1)."""
import textwrap

from cglint import check, engine

BUILDER = """\
import itertools
import uuid
import tensorflow as tf
from tensorflow.python.framework import ops


class FlipGradientBuilder(object):
    def __init__(self, start=0):
        self.num_calls = {init}

    def __call__(self, x, l=1.0):
        grad_name = {name}

        @ops.RegisterGradient(grad_name)
        def _flip_gradients(op, grad):
            return [tf.negative(grad) * l]

        with tf.get_default_graph().gradient_override_map({{"Identity": grad_name}}):
            y = tf.identity(x)
        {after}
        return y
{extra}

flip_gradient = FlipGradientBuilder()
x = tf.constant([1.0, 2.0])
y = flip_gradient(x) + {second}
"""


def codes(init="0", name='"FlipGradient%d" % self.num_calls', after="pass", extra="",
          second="flip_gradient(x, 0.5)"):
    text = BUILDER.format(init=init, name=name, after=after, extra=extra, second=second)
    results = check.check_texts({"snippet.py": text}, engine.Options(select=("CG2",)))
    return [(d.code, d.line) for result in results for d in result.diagnostics]


def test_counter_never_incremented():
    assert codes() == [("CG203", 14)]


def test_string_attribute_set_once():
    assert codes(init='"Flip"', name='self.num_calls + "Gradient"') == [("CG203", 14)]


def test_builder_called_once_is_clean():
    assert codes(second="1.0") == []


def test_counter_incremented_is_clean():
    assert codes(after="self.num_calls += 1") == []


def test_counter_changed_elsewhere_is_clean():
    assert codes(extra="\n    def reset(self):\n        self.num_calls = 0\n") == []
    assert codes(extra="\nFlipGradientBuilder().num_calls = 3\n") == []
    assert codes(extra='\nsetattr(FlipGradientBuilder(), "num_calls", 2)\n') == []


def test_attribute_from_a_parameter_or_a_call_is_clean():
    assert codes(init="start") == []
    assert codes(init="next(itertools.count())") == []
    assert codes(init="uuid.uuid4().hex", name='"Flip" + self.num_calls') == []
