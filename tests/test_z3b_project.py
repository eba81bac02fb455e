"""Values another project module binds at its top level, read from disk: a variable its
helper makes (CG102) and a literal constant (CG108). Alone == whole (probe z3b, m02/m03:
each fails under TF 1.8 on 2.7 and 3.6)."""
from test_call_sites_package_imports import findings

_F = """
import tensorflow as tf
from params import VALUE

@tf.custom_gradient
def op(x, mode):
    y = x * 2.0 if mode == "fast" else x * VALUE
    def grad(dy):
        return dy, None
    return y, grad
"""


def test_a_variable_another_module_makes_with_its_helper(tmp_path):
    params = ("import tensorflow as tf\n\ndef weight_variable(shape):\n"
              "    return tf.Variable(tf.truncated_normal(shape))\n\n"
              "VALUE = weight_variable([3])\n")
    main = _F + "\nop(tf.ones([3]), tf.constant('fast'))\n"
    assert findings(tmp_path, {"params.py": params, "main.py": main},
                    select=("CG102",)) == {"main.py": [("CG102", 7)]}


def test_a_helper_of_another_module_that_makes_no_variable(tmp_path):
    params = ("import tensorflow as tf\n\ndef weight_variable(shape):\n"
              "    return tf.constant(0.5, shape=shape)\n\n"
              "VALUE = weight_variable([3])\n")
    main = _F + "\nop(tf.ones([3]), tf.constant('fast'))\n"
    assert findings(tmp_path, {"params.py": params, "main.py": main},
                    select=("CG102",)) == {}


def test_a_string_constant_of_another_module(tmp_path):
    main = _F.replace("from params import VALUE", "from config import MODE\nVALUE = 1.0")
    main += "\nop(tf.ones([3]), MODE)\n"
    assert findings(tmp_path, {"config.py": 'MODE = "fast"\n', "main.py": main},
                    select=("CG108",)) == {"main.py": [("CG108", 13)]}
    # a constant a function there may change is not followed
    changed = 'MODE = "fast"\n\ndef set_mode(m):\n    global MODE\n    MODE = m\n'
    assert findings(tmp_path, {"config.py": changed, "main.py": main},
                    select=("CG108",)) == {}
