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
