"""Calls of a custom-gradient function that a factory makes (`make_x(...)(x)`, `clip =
make_x(...); clip(x)`), every return of the factory handing back the same decorated inner
def: the call-site rules judge them as calls of that def, also when the factory is
imported from another project module."""
from conftest import lint
from test_call_sites_package_imports import findings

RULES = ["CG103", "CG105", "CG108", "CG111"]


def check(code):
    return lint(code, select=RULES)


def test_a_factory_made_function():
    code = """
    import tensorflow as tf

    def make_clipper(name):
        @tf.custom_gradient
        def clip_grad(x, bound=1.0):
            def grad(dy):
                return tf.clip_by_value(dy, -bound, bound)
            return tf.identity(x, name=name), grad
        return clip_grad

    x = tf.ones([2])
    clip = make_clipper("a")
    y = clip(x, bound=0.1)
    z = make_clipper("b")(x, 0.1)
    """
    assert check(code) == [("CG105", 14, 5), ("CG103", 15, 5)]


def test_a_factory_made_function_kept_on_self():
    code = """
    import tensorflow as tf

    def make_clipper(name):
        @tf.custom_gradient
        def clip_grad(x, bound=1.0):
            return tf.identity(x, name=name), lambda dy: tf.clip_by_value(dy, -bound, bound)
        return clip_grad

    def make_scaler():
        def scale(x, factor=1.0):
            return x * factor
        return scale

    class Head(object):
        def __init__(self):
            self.clip = make_clipper("h")
            self.scale = make_scaler()

        def __call__(self, x):
            return self.scale(self.clip(x), factor=2.0) + self.clip(x, bound=0.1)
    """
    assert check(code) == [("CG105", 21, 55)]


def test_factory_near_misses_stay_clean():
    code = """
    import tensorflow as tf

    def make_clipper(bound):
        @tf.custom_gradient
        def clip_grad(x):
            return tf.identity(x), lambda dy: tf.clip_by_value(dy, -bound, bound)
        return clip_grad

    def make_either(fast):
        @tf.custom_gradient
        def quick(x, scale=1.0):
            return tf.identity(x), lambda dy: dy * scale
        def slow(x, scale=1.0):
            return x * scale
        return quick if fast else slow

    x = tf.ones([2])
    y = make_clipper(0.1)(x)
    clip = make_clipper(0.2)
    z = clip(y)
    w = make_either(False)(x, scale=2.0)  # may be the plain one: not followed

    scaled = make_clipper(0.3)

    def use_plain():
        global scaled
        scaled = lambda x, bound=1.0: x * bound

    v = scaled(x, bound=0.1)  # a def may rebind it: not followed
    """
    assert check(code) == []


FACTORIES = """
import tensorflow as tf


def make_clipper(name):
    @tf.custom_gradient
    def clip_grad(x, bound=1.0):
        def grad(dy):
            return tf.clip_by_value(dy, -bound, bound)
        return tf.identity(x, name=name), grad
    return clip_grad


def make_scaler():
    def scale(x, factor=1.0):
        return x * factor
    return scale


def make_either(fast):
    @tf.custom_gradient
    def quick(x, scale=1.0):
        return tf.identity(x), lambda dy: dy * scale
    def slow(x, scale=1.0):
        return x * scale
    return quick if fast else slow
"""


def test_an_imported_factory(tmp_path):
    files = {"ops.py": FACTORIES,
             "main.py": "import tensorflow as tf\nimport ops\n"
                        "from ops import make_clipper, make_scaler, make_either\n"
                        "x = tf.ones([2])\nclip = make_clipper('a')\n"
                        "a = clip(x, bound=0.1)\nb = make_clipper('b')(x, 0.1)\n"
                        "c = ops.make_clipper('c')(x, bound=2.0)\nd = clip(x)\n"
                        "e = make_scaler()(x, factor=2.0)\n"
                        "f = make_either(False)(x, scale=2.0)\n"}
    assert findings(tmp_path, files) == {
        "main.py": [("CG103", 7), ("CG105", 6), ("CG105", 8)]}


def test_a_factory_re_exported_by_a_package(tmp_path):
    files = {"layers/__init__.py": "from .clipping import make_clipper, make_scaler\n",
             "layers/clipping.py": FACTORIES,
             "main.py": "import tensorflow as tf\nfrom layers import make_clipper, make_scaler\n"
                        "x = tf.ones([2])\ny = make_clipper('a')(x, bound=0.1)\n"
                        "z = make_scaler()(x, factor=2.0)\n"}
    assert findings(tmp_path, files) == {"main.py": [("CG105", 4)]}


def test_a_scalar_variable_passed_to_a_factory_made_function_is_cg111():
    code = """
    import tensorflow as tf

    def make_scale():
        @tf.custom_gradient
        def scale(x, w):
            def grad(dy):
                return dy * w, dy * x
            return x * w, grad
        return scale

    x = tf.ones([3])
    w = tf.Variable(2.0)
    b = make_scale()(x, w)
    """
    assert check(code) == [("CG111", 8, 28)]
