"""CG203 on two different Defuns of one module given the same literal func_name, both
called (helper R1): the second one's call raises InvalidArgumentError in one graph."""
import textwrap

from cglint import check, engine

HEAD = """\
import tensorflow as tf
from tensorflow.python.framework import function
"""

FIRST = """\
@function.Defun(tf.float32, func_name=%s)
def first(x):
    return x
"""

SECOND = """\
@function.Defun(tf.float32, func_name=%s)
def second(x):
    return %s
"""


def codes(text):
    results = check.check_texts({"snippet.py": HEAD + textwrap.dedent(text)},
                                engine.Options(select=("CG203",)))
    return [(d.code, d.line) for result in results for d in result.diagnostics]


def program(name='"Scale"', other='"Scale"', body="x * 1.0", calls="first(x) + second(x)"):
    return (FIRST % name) + (SECOND % (other, body)) + "x = tf.constant(1.0)\ny = %s\n" % calls


def test_two_different_defuns_of_one_name():
    assert codes(program()) == [("CG203", 6)]


def test_identical_definitions_are_clean():
    assert codes(program(body="x")) == []


def test_one_never_called_is_clean():
    assert codes(program(calls="first(x)")) == []


def test_other_names_are_clean():
    assert codes(program(other='"Other"')) == []
    assert codes(program(name="NAME", other="NAME")) == []


def test_helpers_not_called_are_clean():
    assert codes("""\
        def scale_a(x):
            @function.Defun(tf.float32, tf.float32, func_name="ScaleGradient")
            def scaler(x, s):
                return x
            return scaler(x, tf.constant(2.0))

        def scale_b(x):
            @function.Defun(tf.float32, func_name="ScaleGradient")
            def scaler(x):
                return x
            return scaler(x)

        y = scale_a(tf.constant(1.0))
        """) == []
