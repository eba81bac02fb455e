"""Calls of a custom-gradient function that `tf.custom_gradient(self._forward)` makes of a
bound method and keeps on `self` (`self._rev = ...` in `__init__`, `self._rev(x)` in
another method): the call-site rules judge them as calls of the method less `self`."""
from conftest import lint


def check(code):
    return lint(code, select=["CG103", "CG105", "CG108", "CG111"])


def test_a_bound_method_made_a_custom_gradient_and_kept_on_self():
    code = """
    import tensorflow as tf

    class GradientReversal(object):
        def __init__(self):
            self._rev = tf.custom_gradient(self._forward)

        def _forward(self, x, alpha=1.0):
            return tf.identity(x), lambda dy: -alpha * dy

        def __call__(self, x, alpha):
            return self._rev(x, alpha=alpha) + self._rev(x)
    """
    assert check(code) == [("CG105", 12, 16)]


def test_bound_method_near_misses_stay_clean():
    code = """
    import tensorflow as tf

    class GradientReversal(object):
        def __init__(self, alpha):
            self.alpha = alpha
            self._rev = tf.custom_gradient(self._forward)

        def _forward(self, x):
            return tf.identity(x), lambda dy: -self.alpha * dy

        def __call__(self, x):
            return self._rev(x)

    class Switched(object):
        def __init__(self, plain):
            self._rev = tf.custom_gradient(self._forward)
            if plain:
                self._rev = self._scale

        def _forward(self, x, alpha=1.0):
            return tf.identity(x), lambda dy: -alpha * dy

        def _scale(self, x, alpha=1.0):
            return x * alpha

        def __call__(self, x):
            return self._rev(x, alpha=0.5)  # set twice: not followed
    """
    assert check(code) == []
