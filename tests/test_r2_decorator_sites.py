"""A module's own decorator that applies tf.custom_gradient to the function it takes
(probe z3a U6): `return tf.custom_gradient(f)`, or a functools.wraps wrapper calling
`tf.custom_gradient(f)(*args)`. The decorated def is a custom-gradient function, checked
like one (fixtures/CG103/*_decorator.py, confirmed under TF 1.8)."""
import pytest

from conftest import lint

DECORATED = """
import functools
import tensorflow as tf


DECORATOR


@deco
def scale(x, s):
    def grad(dy):
        return dy * s
    return x * s, grad


y = scale(tf.constant([1.0]), tf.constant([2.0]))
"""

WRAPS = """
def deco(f):
    @functools.wraps(f)
    def wrapper(*args, **kwargs):
        return tf.custom_gradient(f)(*args, **kwargs)
    return wrapper
"""


def _codes(decorator):
    return [finding for finding in lint(DECORATED.replace("DECORATOR", decorator))
            if finding[0] == "CG103"]


@pytest.mark.parametrize("decorator", [
    WRAPS,
    "def deco(f):\n    return tf.custom_gradient(f)",
    "def deco(f):\n    def run(*xs):\n        return tf.custom_gradient(f)(*xs)\n    return run",
    # the wrapper reorders its arguments: still a custom gradient, its calls not followed
    "def deco(f):\n    def run(a, b):\n        return tf.custom_gradient(f)(b, a)\n"
    "    return run",
])
def test_decorated_def_is_a_site(decorator):
    assert len(_codes(decorator)) == 1


@pytest.mark.parametrize("decorator", [
    "def deco(f):\n    return f",
    "def deco(f):\n    def run(*xs):\n        return f(*xs)\n    return run",
    # returns the result, not a function: no decorator of a custom gradient
    "def deco(f):\n    return tf.custom_gradient(f)(1.0)",
    # takes two parameters: not a plain decorator
    "def deco(f, g=None):\n    return tf.custom_gradient(f)",
])
def test_other_decorators_clean(decorator):
    assert _codes(decorator) == []


def test_extra_positional_through_forwarding_wrapper():
    code = DECORATED.replace("DECORATOR", WRAPS).replace(
        "return dy * s", "return dy * s, None").replace(
        "y = scale(tf.constant([1.0]), tf.constant([2.0]))",
        "y = scale(tf.constant([1.0]), tf.constant([2.0]), 3.0)").replace(
        "def scale(x, s):", "def scale(x, s, t=1.0):")
    assert [f[0] for f in lint(code) if f[0] == "CG103"] == ["CG103"]
