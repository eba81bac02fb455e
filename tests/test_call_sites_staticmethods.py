"""Calls of a custom-gradient function that is a staticmethod (stacked over the decorator)
called through its class, an instance, `self` or `cls`, also of a class imported from
another project module. The call-site rules judge them as they judge calls of a plain
decorated def."""
import textwrap

from conftest import lint
from test_call_sites_package_imports import findings

RULES = ["CG103", "CG105", "CG108", "CG111"]

STATIC = """
import tensorflow as tf


class Ops(object):
    @staticmethod
    @tf.custom_gradient
    def grl(x, lam=1.0):
        def grad(dy):
            return -lam * dy
        return tf.identity(x), grad
"""


def check(code):
    return lint(code, select=RULES)


def test_a_staticmethod_through_its_class_an_instance_self_and_cls():
    code = STATIC + """
    @classmethod
    def build(cls, x):
        return cls.grl(x, lam=0.5)

    def apply(self, x):
        return self.grl(x, 0.5)


x = tf.ones([2])
a = Ops.grl(x, lam=0.1)
b = Ops().grl(x, "hard")
ops = Ops()
c = ops.grl(x, lam=0.2)
"""
    assert check(code) == [("CG105", 15, 16), ("CG103", 18, 16), ("CG105", 22, 5),
                           ("CG103", 23, 5), ("CG108", 23, 18), ("CG105", 25, 5)]


def test_staticmethod_near_misses_stay_clean():
    code = STATIC + """
    @staticmethod
    def weight(x, scale=1.0):
        return x * scale

    def apply(self, x):
        return self.grl(x, lam=0.5)  # the subclass's own grl


class Plain(Ops):
    def grl(self, x, lam=1.0):
        return x * lam


class Hidden(object):
    @staticmethod
    @tf.custom_gradient
    def grl(x, lam=1.0):
        return tf.identity(x), lambda dy: dy * lam

    def __init__(self):
        self.grl = lambda x, lam=1.0: x * lam


class Reversed(object):
    @tf.custom_gradient
    @staticmethod
    def grl(x, lam=1.0):
        return tf.identity(x), lambda dy: dy * lam


x = tf.ones([2])
a = Ops.grl(Ops.weight(x, scale=2.0))
b = Ops().grl(x)
c = Hidden().grl(x, lam=0.3)
d = Reversed.grl(x, lam=0.3)
"""
    # (the staticmethod below the decorator is wrong at its def, and its calls are left)
    assert check(code) == [("CG108", 37, 6)]


def test_an_imported_class_s_staticmethod(tmp_path):
    files = {"nets/__init__.py": "from .ops import Ops\n",
             "nets/ops.py": textwrap.dedent(STATIC) + "\n    @staticmethod\n"
                            "    def weight(x, scale=1.0):\n        return x * scale\n",
             "nets/heads.py": "from . import Ops\n\ndef f(h):\n    return Ops.grl(h, lam=0.1)\n",
             "main.py": "import tensorflow as tf\nimport nets.ops\nfrom nets.ops import Ops\n"
                        "from nets import Ops as O\nx = tf.ones([2])\n"
                        "a = Ops().grl(x, lam=0.5)\nb = nets.ops.Ops.grl(x, 0.5)\n"
                        "c = O.grl(O.weight(x, scale=2.0))\nd = Ops.grl(x, 'hard')\n"
                        "ops = Ops()\ne = ops.grl(ops.weight(x, scale=2.0), lam=0.1)\n"}
    assert findings(tmp_path, files) == {
        "main.py": [("CG103", 7), ("CG103", 9), ("CG105", 6), ("CG105", 11), ("CG108", 9)],
        "nets/heads.py": [("CG105", 4)]}


def test_a_scalar_variable_passed_to_a_staticmethod_is_cg111():
    code = """
    import tensorflow as tf

    class Ops(object):
        @staticmethod
        @tf.custom_gradient
        def scale(x, w):
            def grad(dy):
                return dy * w, dy * x
            return x * w, grad

    x = tf.ones([3])
    w = tf.Variable(2.0)
    a = Ops.scale(x, w)
    """
    assert check(code) == [("CG111", 9, 28)]
