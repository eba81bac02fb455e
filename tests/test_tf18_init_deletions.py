"""cg402.DELETED_BY_TENSORFLOW_INIT, measured: TF 1.8's `tensorflow/__init__.py` deletes
those packages once loaded, and importing them again does not bring the attribute back;
cglint reports a chain through them, and not an import of a module inside them."""
import subprocess

import pytest

from cglint.oracle import envs
from cglint.rules.cg402_missing_api import DELETED_BY_TENSORFLOW_INIT
from conftest import lint

PROGRAM = """
import importlib
import tensorflow as tf
for name in %r:
    importlib.import_module(name)
    assert not hasattr(tf, name.split(".")[1]), name
print("deleted")
"""


@pytest.mark.parametrize("name", envs.INTERPRETERS)
def test_the_packages_stay_deleted_after_an_import(interpreters, name):
    program = PROGRAM % sorted(DELETED_BY_TENSORFLOW_INIT)
    ran = subprocess.run([interpreters[name], "-c", program],
                         capture_output=True, text=True, timeout=300)
    assert ran.stdout.strip() == "deleted", ran.stderr[-2000:]


def test_a_chain_through_tf_python_is_reported_and_an_imported_module_is_not():
    code = """
    import tensorflow as tf
    import tensorflow.python
    from tensorflow.python.ops import gen_nn_ops
    x = tf.python.ops.gen_nn_ops.relu_grad
    y = gen_nn_ops.relu_grad
    """
    assert lint(code, select=["CG402"]) == [("CG402", 5, 5)]


AS_IMPORTS = """
import sys
for statement in ("import tensorflow.python.ops.array_ops as a",
                  "import tensorflow.core.framework.graph_pb2 as g",
                  "import tensorflow.python as p"):
    try:
        exec(statement)
    except AttributeError as error:
        print("AttributeError")
    else:
        print("ok")
from tensorflow.python.ops import array_ops as a  # the fix
print(a.__name__)
"""


@pytest.mark.parametrize("name", envs.INTERPRETERS)
def test_import_as_through_a_deleted_package_fails_and_the_fix_works(interpreters, name):
    ran = subprocess.run([interpreters[name], "-c", AS_IMPORTS], capture_output=True,
                         text=True, timeout=300)
    assert ran.stdout.split() == ["AttributeError"] * 3 + ["tensorflow.python.ops.array_ops"], \
        ran.stderr[-2000:]


def test_an_import_as_through_a_deleted_package_is_reported():
    code = """
    import tensorflow.python.ops.array_ops as array_ops
    import tensorflow.python as tfp
    import os, tensorflow.core.framework.graph_pb2 as graph_pb2
    import tensorflow.python.ops.math_ops
    from tensorflow.python.ops import nn_ops as nn
    import tensorflow.contrib.slim as slim
    try:
        import tensorflow.python.ops.gen_nn_ops as gen_nn_ops
    except AttributeError:
        gen_nn_ops = None
    try:
        import tensorflow.python.ops.gen_math_ops as gen_math_ops
    except ImportError:  # does not catch it
        gen_math_ops = None
    """
    assert lint(code, select=["CG402"]) == [
        ("CG402", 2, 1), ("CG402", 3, 1), ("CG402", 4, 1), ("CG402", 13, 5)]
    # Python 3.7 binds `as` names from sys.modules
    assert lint(code, select=["CG402"], target_python=(3, 7)) == []


def test_the_fix_writes_a_from_import_where_27_and_36_take_it():
    from cglint import autofix, engine

    options = engine.Options(select=("CG402",))
    text = ("import tensorflow.python.ops.array_ops as array_ops\n"
            "import tensorflow.python as tfp\n"
            "import os, tensorflow.python.ops.nn_ops as nn_ops\n")
    fixed = autofix.fix_text("m.py", text, options).text
    assert fixed == ("from tensorflow.python.ops import array_ops as array_ops\n"
                     "import tensorflow.python as tfp\n"
                     "import os, tensorflow.python.ops.nn_ops as nn_ops\n")


def test_a_chain_through_tf_python_written_in_full_is_reported():
    """`tensorflow.python.ops.math_ops.add` after `import tensorflow.python.ops.math_ops`
    reads the deleted attribute (measured), though its name is the public `tf.add`."""
    code = """
    import tensorflow.python.ops.math_ops
    x = tensorflow.python.ops.math_ops.add
    """
    assert lint(code, select=["CG402"]) == [("CG402", 3, 5)]


def test_an_import_as_of_a_module_no_wheel_has_is_its_import_error_only():
    code = "import tensorflow.python.ops.nonexistent_ops as n\n"
    found = lint(code, select=["CG402"])
    assert found == [("CG402", 1, 1)]
    from cglint import check, engine
    (diagnostic,) = check.check_alone("a.py", code, engine.Options(
        select=("CG402",))).diagnostics
    assert "raises ImportError" in diagnostic.message and diagnostic.fix is None
