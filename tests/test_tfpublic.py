"""Internal module paths of TF 1.8's public functions and classes read as their public
names (tools/gen_tf18_public_names.py)."""
from conftest import lint

from cglint.tfpublic import public_name


def test_internal_paths_are_their_public_names():
    assert public_name("tensorflow.python.ops.variable_scope.get_variable") == \
        "tensorflow.get_variable"
    assert public_name("tensorflow.python.layers.core.dense") == "tensorflow.layers.dense"
    assert public_name("tensorflow.python.keras.layers.Dense") == \
        "tensorflow.keras.layers.Dense"
    # a method of a class reached through its module path
    assert public_name("tensorflow.python.ops.variables.Variable.assign") == \
        "tensorflow.Variable.assign"


def test_other_names_stay_as_they_are():
    for name in ("tensorflow.get_variable", "numpy.float32", "tensorflow.python.ops",
                 "tensorflow.python.ops.gen_nn_ops._relu_grad",  # private: CG402's
                 "tensorflow.python.ops.variable_scope.no_such_name",
                 # contrib's public names are not used (odd re-export paths)
                 "tensorflow.python.framework.function.Defun"):
        assert public_name(name) == name


def test_rules_read_the_internal_spelling_as_the_public_one():
    code = """
    import tensorflow as tf
    from tensorflow.python.ops import variable_scope

    @tf.custom_gradient
    def f(x):
        w = variable_scope.get_variable("w", [])
        return x * w, lambda dy: dy * w
    """
    assert lint(code, select=["CG101"]) == [("CG101", 7, 9)]
