"""CG203 at the caller of a helper another project module defines that registers a
fixed gradient name each time it runs (probe z3c h06): called twice, in a loop or in a
comprehension, the second call raises KeyError. Judged alike alone and whole; the
defining module reports nothing (it cannot know its callers)."""
import contextlib
import io
import os

import pytest

from cglint.cli import main as cglint_main

HELPER = '''import tensorflow as tf
from tensorflow.python.framework import ops


def reverse(x):
    @tf.RegisterGradient("ReverseGrad")
    def _reverse(op, grad):
        return [-grad]
    with tf.get_default_graph().gradient_override_map({"Identity": "ReverseGrad"}):
        return tf.identity(x)


def guarded(x):
    try:
        tf.RegisterGradient("GuardedGrad")(lambda op, grad: [-grad])
    except KeyError:
        pass
    return tf.identity(x)


def fresh(x, name):
    tf.RegisterGradient(name)(lambda op, grad: [-grad])
    return tf.identity(x)


_DONE = []


def once(x):
    if not _DONE:
        tf.RegisterGradient("OnceGrad")(lambda op, grad: [-grad])
        _DONE.append(True)
    return tf.identity(x)
'''


def lint(tmp_path, main, paths):
    (tmp_path / "pkg").mkdir(exist_ok=True)
    (tmp_path / "pkg" / "__init__.py").write_text("")
    (tmp_path / "pkg" / "helpers.py").write_text(HELPER)
    (tmp_path / "main.py").write_text("import tensorflow as tf\n" + main)
    here = os.getcwd()
    os.chdir(str(tmp_path))
    try:
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            cglint_main(["--no-cache", "--isolated", "--select", "CG203", "-q"] + paths)
    finally:
        os.chdir(here)
    return [line.split(" CG203 ")[0] for line in out.getvalue().splitlines()
            if " CG203 " in line]


@pytest.mark.parametrize("main, found", [
    ("from pkg.helpers import reverse\nx = tf.constant(1.0)\na = reverse(x)\nb = reverse(x)\n",
     ["main.py:5:5:"]),
    ("from pkg.helpers import reverse\nfor i in range(2):\n    y = reverse(tf.constant(1.0))\n",
     ["main.py:4:9:"]),
    ("from pkg.helpers import reverse as grl\nys = [grl(tf.constant(1.0)) for _ in 'ab']\n",
     ["main.py:3:7:"]),
    ("from .pkg.helpers import reverse\n", []),  # (not called)
    ("from pkg.helpers import reverse\ny = reverse(tf.constant(1.0))\n", []),
    ("from pkg.helpers import guarded, fresh, once\nx = tf.constant(1.0)\n"
     "a = guarded(x) + guarded(x)\nb = fresh(x, 'A') + fresh(x, 'B')\nc = once(x) + once(x)\n",
     []),
    ("from pkg.helpers import reverse\nx = tf.constant(1.0)\na = reverse(x)\n"
     "def reverse(x):\n    return x\nb = reverse(x)\n", []),  # (rebound: not the import)
])
def test_an_imported_helper_registering_each_run_called_twice(tmp_path, main, found):
    for paths in (["."], ["main.py"]):
        assert lint(tmp_path, main, paths) == found, paths
    assert lint(tmp_path, main, ["pkg/helpers.py"]) == []


@pytest.mark.parametrize("guard, sets, reported", [
    ("if not _DONE:", "_DONE.append(True)", False),
    ("if not _DONE:", "_DONE.add('guided')", False),
    ("if not _DONE:", "_DONE['guided'] = True", False),
    ("if not _DONE:", "_DONE.count(True)", True),  # (reads it: still empty)
    ("if _DONE:", "_DONE.append(True)", True),  # (runs only once it is set)
])
def test_a_run_once_guard_on_a_container_it_fills(guard, sets, reported):
    """probe z3c: `if not _DONE: register; _DONE.append(True)` registers once (TF 1.8
    runs it twice without error); it was reported CG203."""
    from cglint import check, engine

    code = ("import tensorflow as tf\n_DONE = CONTAINER\n\n\ndef once(x):\n"
            "    GUARD\n        tf.RegisterGradient('OnceGrad')(lambda op, grad: [-grad])\n"
            "        SETS\n    return tf.identity(x)\n\n\nc = once(1.0) + once(2.0)\n")
    container = "{}" if "[" in sets and "'" in sets else ("set()" if "add" in sets else "[]")
    code = code.replace("CONTAINER", container).replace("GUARD", guard).replace("SETS", sets)
    results = check.check_texts({"snippet.py": code}, engine.Options(select=("CG203",)))
    found = [d for result in results for d in result.diagnostics]
    assert bool(found) is reported, code


WRAPPER = '''import numpy as np
import tensorflow as tf


def py_func(func, inp, Tout, stateful=True, name=None, grad=None):
    rnd_name = "PyFuncGrad" + str(np.random.randint(0, 1E+8))
    tf.RegisterGradient(rnd_name)(grad)
    with tf.get_default_graph().gradient_override_map({"PyFunc": rnd_name}):
        return tf.py_func(func, inp, Tout, stateful=stateful, name=name)
'''


@pytest.mark.parametrize("returned, inputs, found", [
    ("grad * op.inputs[1]", "[x, w]", ["main.py:6:5:"]),
    ("grad * op.inputs[1], grad * op.inputs[0]", "[x, w]", []),
    ("grad, grad", "[x]", ["main.py:6:5:"]),
    ("grad", "[x]", []),
])
def test_gradients_passed_to_an_imported_py_func_wrapper(tmp_path, returned, inputs, found):
    """probe z3c h04: the `py_func` recipe kept in a utilities module; the caller's
    gradient function must return one gradient per tensor of its `inp`."""
    (tmp_path / "utils.py").write_text(WRAPPER)
    (tmp_path / "main.py").write_text(
        "import tensorflow as tf\nfrom utils import py_func\n\n\ndef _grad(op, grad):\n"
        "    return %s\n\n\nx = tf.constant([1.0]); w = tf.constant([2.0])\n"
        "y = py_func(lambda *a: a[0], %s, tf.float32, grad=_grad)\n" % (returned, inputs))
    here = os.getcwd()
    os.chdir(str(tmp_path))
    try:
        for paths in (["."], ["main.py"], ["utils.py"]):
            out = io.StringIO()
            with contextlib.redirect_stdout(out):
                cglint_main(["--no-cache", "--isolated", "--select", "CG204", "-q"] + paths)
            got = [line.split(" CG204 ")[0] for line in out.getvalue().splitlines()
                   if " CG204 " in line]
            assert got == ([] if paths == ["utils.py"] else found), paths
    finally:
        os.chdir(here)


@pytest.mark.parametrize("main, found", [
    ("import pkg.helpers as h\nx = tf.constant(1.0)\na = h.reverse(x)\nb = h.reverse(x)\n",
     ["main.py:5:5:"]),
    ("import pkg.helpers\nx = tf.constant(1.0)\na = pkg.helpers.reverse(x)\n"
     "b = pkg.helpers.reverse(x)\n", ["main.py:5:5:"]),
    ("from pkg import helpers\nx = tf.constant(1.0)\na = helpers.reverse(x)\n"
     "b = helpers.reverse(x)\n", ["main.py:5:5:"]),
    ("from pkg import helpers\nx = tf.constant(1.0)\na = helpers.reverse(x)\n"
     "b = helpers.once(x) + helpers.once(x)\n", []),
])
def test_module_attribute_calls_of_an_imported_helper(tmp_path, main, found):
    for paths in (["."], ["main.py"]):
        assert lint(tmp_path, main, paths) == found, paths


def test_gradients_passed_to_a_py_func_wrapper_of_an_imported_module(tmp_path):
    (tmp_path / "utils.py").write_text(WRAPPER)
    (tmp_path / "main.py").write_text(
        "import tensorflow as tf\nimport utils\n\n\ndef _grad(op, grad):\n"
        "    return grad\n\n\nx = tf.constant([1.0]); w = tf.constant([2.0])\n"
        "y = utils.py_func(lambda *a: a[0], [x, w], tf.float32, grad=_grad)\n")
    here = os.getcwd()
    os.chdir(str(tmp_path))
    try:
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            cglint_main(["--no-cache", "--isolated", "--select", "CG204", "-q", "main.py"])
    finally:
        os.chdir(here)
    assert "main.py:6:5: CG204" in out.getvalue()
