"""CG202/CG203 with gradient names held in constants of other project modules (`from
names import GRAD`, `import names` then `names.GRAD`, relative imports) or in class
attributes read as `self.GRAD` / `cls.GRAD` / `Cls.GRAD` (probe z1, FN-7: m/m07_proj,
tmp/c202b, y/y01, y/y03; m06 and y02 are the correct programs). Every project is linted
whole and one file at a time: both must give the same findings."""
import contextlib
import io
import os
import textwrap

import pytest

from cglint.cli import main as cglint_main

REGISTER = """\
import tensorflow as tf
from names import BINARY_GRAD


@tf.RegisterGradient(BINARY_GRAD)
def _st(op, grad):
    return grad
"""

MAIN = """\
import tensorflow as tf
import register
import names

x = tf.constant([-2.0, 0.5])
with tf.get_default_graph().gradient_override_map({"Sign": VALUE}):
    b = tf.sign(x)
g = tf.gradients(tf.reduce_sum(b), [x])[0]
"""


def _lint(tmp_path, files, select="CG2"):
    """{"whole": [...], "alone": [...]}: "path:line:col: CODE" of each finding."""
    for name, code in files.items():
        path = tmp_path / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(code))
    here = os.getcwd()
    os.chdir(str(tmp_path))
    found = {}
    try:
        for mode, runs in (("whole", [["."]]), ("alone", [[name] for name in sorted(files)])):
            found[mode] = []
            for paths in runs:
                out = io.StringIO()
                with contextlib.redirect_stdout(out):
                    cglint_main(["--no-cache", "--isolated", "--select", select, "-q"] + paths)
                found[mode] += [" ".join(line.split(" ")[:2]).lstrip("./")
                                for line in out.getvalue().splitlines() if " CG" in line]
            found[mode].sort()
    finally:
        os.chdir(here)
    assert found["whole"] == found["alone"], found
    return found["whole"]


@pytest.mark.parametrize("names, value, expected", [
    # m07: the map's value is a typo of the imported constant's name
    ('BINARY_GRAD = "BinaryStraightThrough"\n', '"BinaryStraightThru"',
     ["main.py:6:60: CG202"]),
    # m06: the map reads the same constant
    ('BINARY_GRAD = "BinaryStraightThrough"\n', 'names.BINARY_GRAD', []),
    ('BINARY_GRAD = "BinaryStraightThrough"\n', '"BinaryStraightThrough"', []),
    # built from constants there
    ('PREFIX = "Binary"\nBINARY_GRAD = PREFIX + "StraightThrough"\n',
     '"BinaryStraightThrough"', []),
    ('PREFIX = "Binary"\nBINARY_GRAD = PREFIX + "StraightThrough"\n',
     '"BinaryStraightThru"', ["main.py:6:60: CG202"]),
    # a name bound twice there is unknown: any name may be registered
    ('BINARY_GRAD = "A"\nBINARY_GRAD = "B"\n', '"C"', []),
])
def test_a_name_imported_from_a_project_module(tmp_path, names, value, expected):
    files = {"names.py": names, "register.py": REGISTER,
             "main.py": MAIN.replace("VALUE", value)}
    assert _lint(tmp_path, files) == expected


def test_a_name_read_as_an_attribute_of_an_imported_module(tmp_path):
    # tmp/c202b: `import names` then `@tf.RegisterGradient(names.NAME)`
    files = {"names.py": 'NAME = "BinaryST"\n', "main.py": """\
        import tensorflow as tf
        import names

        @tf.RegisterGradient(names.NAME)
        def _st(op, grad):
            return grad

        x = tf.constant([1.0])
        with tf.get_default_graph().gradient_override_map({"Sign": "BinaryST2"}):
            b = tf.sign(x)
        """}
    assert _lint(tmp_path, files) == ["main.py:9:60: CG202"]


@pytest.mark.parametrize("register", [
    "from .names import GRAD\n\n@tf.RegisterGradient(GRAD)\n",
    "from . import names\n\n@tf.RegisterGradient(names.GRAD)\n",
    "from pkg.names import GRAD\n\n@tf.RegisterGradient(GRAD)\n",
    "import pkg.names\n\n@tf.RegisterGradient(pkg.names.GRAD)\n",
])
def test_a_name_imported_within_a_package(tmp_path, register):
    files = {
        "pkg/__init__.py": "",
        "pkg/names.py": 'GRAD = "GuidedReluPkg"\n',
        "pkg/reg.py": "import tensorflow as tf\n" + register +
                      "def _g(op, grad):\n    return grad\n",
        "main.py": """\
            import tensorflow as tf
            import pkg.reg

            x = tf.constant([1.0])
            with tf.get_default_graph().gradient_override_map({"Relu": "GuidedReluPk"}):
                y = tf.nn.relu(x)
            """,
    }
    assert _lint(tmp_path, files) == ["main.py:5:60: CG202"]


GUIDED_CLASS = """\
import tensorflow as tf
from tensorflow.python.framework import ops


class GuidedBackprop(object):
    GRAD_NAME = "GuidedReluY01"

    def __init__(self):
        if self.GRAD_NAME not in ops._gradient_registry._registry:
            @tf.RegisterGradient(REGISTERED)
            def _guided(op, grad):
                return tf.nn.relu(grad) * tf.cast(op.outputs[0] > 0.0, grad.dtype)

    def saliency(self, x):
        g = tf.get_default_graph()
        with g.gradient_override_map({"Relu": MAPPED}):
            y = tf.nn.relu(x * 2.0 - 1.0)
        return tf.gradients(tf.reduce_sum(-y), [x])[0]

    @classmethod
    def name(cls):
        return cls.GRAD_NAME

EXTRA
x = tf.constant([[0.2, 0.8, 1.5]])
sal = GuidedBackprop().saliency(x)
"""


@pytest.mark.parametrize("registered, mapped, extra, expected", [
    # y01: the map's value is a typo of the class attribute
    ("self.GRAD_NAME", '"GuidedReluY1"', "", ["m.py:16:47: CG202"]),
    ("GuidedBackprop.GRAD_NAME", '"GuidedReluY1"', "", ["m.py:16:47: CG202"]),
    # y02: the same attribute both times
    ("self.GRAD_NAME", "self.GRAD_NAME", "", []),
    ("self.GRAD_NAME", "GuidedBackprop.GRAD_NAME", "", []),
    ("self.GRAD_NAME", '"GuidedReluY01"', "", []),
    # the attribute assigned elsewhere, or bound again by a subclass: unknown
    ("self.GRAD_NAME", '"GuidedReluY1"', "GuidedBackprop.GRAD_NAME = 'Other'\n", []),
    ("self.GRAD_NAME", '"GuidedReluY1"',
     "class Other(GuidedBackprop):\n    GRAD_NAME = 'GuidedReluY1'\n", []),
])
def test_a_name_held_in_a_class_attribute(tmp_path, registered, mapped, extra, expected):
    code = GUIDED_CLASS.replace("REGISTERED", registered).replace("MAPPED", mapped)
    assert _lint(tmp_path, {"m.py": code.replace("EXTRA", extra)}) == expected


def test_a_class_attribute_read_through_cls(tmp_path):
    code = """\
        import tensorflow as tf


        class Guided(object):
            GRAD_NAME = "GuidedReluCls"

            @classmethod
            def register(cls):
                @tf.RegisterGradient(cls.GRAD_NAME)
                def _guided(op, grad):
                    return grad

            @staticmethod
            def saliency(x):
                with tf.get_default_graph().gradient_override_map({"Relu": "GuidedReluCl"}):
                    return tf.nn.relu(x)


        Guided.register()
        y = Guided.saliency(tf.constant([1.0]))
        """
    assert _lint(tmp_path, {"m.py": code}) == ["m.py:15:68: CG202"]


def test_a_constructor_registering_a_class_attribute_twice(tmp_path):
    # y03: no guard, two instances: `KeyError: "Registering two gradient with name
    # 'GuidedReluY03' !..."` in TF 1.8 (py27 and py36)
    code = """\
        import tensorflow as tf

        class GuidedBackprop(object):
            GRAD_NAME = "GuidedReluY03"

            def __init__(self):
                @tf.RegisterGradient(self.GRAD_NAME)
                def _guided(op, grad):
                    return tf.nn.relu(grad) * tf.cast(op.outputs[0] > 0.0, grad.dtype)

            def saliency(self, x):
                with tf.get_default_graph().gradient_override_map({"Relu": self.GRAD_NAME}):
                    y = tf.nn.relu(x * 2.0 - 1.0)
                return tf.gradients(tf.reduce_sum(-y), [x])[0]

        x = tf.constant([[0.2, 0.8, 1.5]])
        a = GuidedBackprop().saliency(x)
        b = GuidedBackprop().saliency(x * 2.0)
        """
    assert _lint(tmp_path, {"m.py": code}) == ["m.py:7:10: CG203"]


def test_two_modules_registering_one_imported_constant(tmp_path):
    register = ("import tensorflow as tf\nfrom names import GRAD\n\n"
                "@tf.RegisterGradient(GRAD)\ndef _g(op, grad):\n    return grad\n")
    files = {"names.py": 'GRAD = "SharedGrad"\n', "reg_a.py": register, "reg_b.py": register,
             "main.py": "import reg_a\nimport reg_b\n"}
    found = _lint(tmp_path, files, select="CG203")
    assert found == ["reg_b.py:4:2: CG203"], found
