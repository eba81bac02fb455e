"""CG204 counts the op types a `with gradient_override_map` block's Python operators
surely build: an operand surely a tensor, an operator of one op type (helper R1)."""
import textwrap

from cglint import check, engine

HEAD = """\
import numpy as np
import tensorflow as tf
g = tf.get_default_graph()
"""


def codes(body):
    text = HEAD + textwrap.dedent(body)
    results = check.check_texts({"snippet.py": text}, engine.Options(select=("CG204",)))
    return [(d.code, d.line) for result in results for d in result.diagnostics]


def test_operator_on_module_constants_builds_the_op():
    assert codes("""\
        x = tf.constant([0.5, 2.0])
        w = tf.constant([3.0, 3.0])
        with g.gradient_override_map({"Mul": "Identity"}):
            y = x * w
        """) == [("CG204", 6)]


def test_operator_on_a_tf_call_and_a_number():
    assert codes("""\
        x = tf.placeholder(tf.float32)
        with g.gradient_override_map({"Sub": "Identity"}):
            y = tf.square(x) - 1.0
        """) == [("CG204", 5)]


def test_operator_on_a_variable_in_a_function():
    assert codes("""\
        def model(inputs):
            v = tf.Variable(1.0)
            h = v + 0.0
            with g.gradient_override_map({"Mul": "Identity"}):
                return -h * 2.0
        """) == [("CG204", 7)]


def test_near_misses_stay_clean():
    assert codes("""\
        scale = 3.0
        weights = np.array([1.0, 2.0])
        parts = tf.split(tf.constant([1.0, 2.0]), 2)
        t = tf.constant(1.0)

        def reset():
            global t
            t = 2.0

        def helper(a, b):
            with g.gradient_override_map({"Mul": "Identity"}):
                return a * b  # unknown operands

        with g.gradient_override_map({"Mul": "Identity"}):
            factor = scale * 2.0          # numbers
            table = weights * weights     # numpy arrays
            twice = parts * 2             # a list of tensors: repeated
            again = t * 2.0               # a name declared global elsewhere
        """) == []


def test_operator_of_several_op_types_is_not_sure():
    # `a ^ b` builds LogicalAnd, LogicalNot and LogicalOr: one of them is `LogicalOr`,
    # but which the map is about is left to CG201.
    assert codes("""\
        a = tf.constant([True])
        with g.gradient_override_map({"LogicalOr": "Identity"}):
            y = a ^ a
        """) == []
