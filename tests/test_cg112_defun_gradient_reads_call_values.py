"""CG112: a Defun made on every call of a function, whose python_grad_func reads that
call's values (fixtures/CG112 proves the silent wrong gradient under TF 1.8)."""
import pytest

from conftest import lint

HEAD = """
import tensorflow as tf
from tensorflow.python.framework import function
"""


def check(code):
    return lint(HEAD + code, select=["CG112"])


def test_a_nested_grad_def_reading_a_parameter():
    assert check("""
def clip(x, low, high):
    def back(op, dy):
        return tf.clip_by_value(dy, low, high)

    @function.Defun(tf.float32, python_grad_func=back, func_name="Clip")
    def forward(v):
        return v
    return forward(x)
""") == [("CG112", 7, 37)]


def test_a_lambda_reading_a_local_computed_from_a_parameter():
    assert check("""
def scale_gradient(x, scale):
    factor = scale * 2
    @function.Defun(tf.float32, python_grad_func=lambda op, g: g * factor)
    def forward(v):
        return v
    return forward(x)
""") == [("CG112", 7, 68)]


def test_the_earliest_read_is_reported_once():
    assert check("""
def clip(x, low, high):
    def back(op, dy):
        lo = low
        return tf.clip_by_value(dy, lo, high)

    @function.Defun(tf.float32, python_grad_func=back)
    def forward(v):
        return v
    return forward(x)
""") == [("CG112", 7, 14)]


def test_a_value_of_an_outer_function_read_through_a_nested_one():
    assert check("""
def make(scale):
    def build(x):
        def back(op, dy):
            return dy * scale

        @function.Defun(tf.float32, python_grad_func=back)
        def forward(v):
            return v
        return forward(x)
    return build
""") == [("CG112", 8, 25)]


@pytest.mark.parametrize("code", [
    # the values travel as inputs of the Defun and are read from op.inputs
    """
def scale_gradient(x, scale):
    @function.Defun(tf.float32, tf.float32,
                    python_grad_func=lambda op, g: (g * op.inputs[1], None))
    def forward(v, unused_scale):
        return v
    return forward(x, tf.constant(scale))
""",
    # a computed func_name: each call may name its own Defun (TF's scaled_softplus)
    """
def scale_gradient(x, scale):
    @function.Defun(tf.float32, python_grad_func=lambda op, g: g * scale,
                    func_name="Scale_%s" % x.dtype.name)
    def forward(v):
        return v
    return forward(x)
""",
    # the body reads the call's value too: its hashed name differs between calls
    """
def scale_gradient(x, scale):
    @function.Defun(tf.float32, python_grad_func=lambda op, g: g * scale)
    def forward(v):
        return v * scale
    return forward(x)
""",
    # module-level values, literals, defs, imports and the gradient's own names
    """
SCALE = 0.5

def helper(g):
    return g

def scale_gradient(x):
    eps = 1e-6
    import numpy as np
    def back(op, dy):
        local = dy * SCALE + eps
        return helper(local) * np.float32(1)

    @function.Defun(tf.float32, python_grad_func=back)
    def forward(v):
        return v
    return forward(x)
""",
    # a module-level Defun, and a gradient function defined at module level
    """
scale = 2.0

@function.Defun(tf.float32, python_grad_func=lambda op, g: g * scale)
def forward(v):
    return v

def back(op, g):
    return g * scale

def apply(x, scale):
    @function.Defun(tf.float32, python_grad_func=back)
    def inner(v):
        return v
    return inner(x)
""",
    # grad_func (a Defun of its own) is not the Python gradient function
    """
def scale_gradient(x, scale):
    @function.Defun(tf.float32, tf.float32)
    def grad(v, dy):
        return dy
    @function.Defun(tf.float32, grad_func=grad)
    def forward(v):
        return v
    return forward(x)
""",
])
def test_near_misses(code):
    assert check(code) == []
