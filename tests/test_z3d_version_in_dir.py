"""version_tests: `"v1" in dir(tf.compat)` is decided by the table for the target (TF 1.8:
`tf.compat` has no `v1`, measured: /tmp/probe_z3d/v/v13, v18), so that a rebinding of `tf`
under that test is decided as under `hasattr` (cglint.rebindings)."""
import ast

import pytest

from cglint.version_tests import evaluate
from conftest import lint


def resolve(expr):
    dotted = []
    while isinstance(expr, ast.Attribute):
        dotted.append(expr.attr)
        expr = expr.value
    if isinstance(expr, ast.Name) and expr.id == "tf":
        return ".".join(["tensorflow"] + dotted[::-1])
    return None


@pytest.mark.parametrize("test,value", [
    ('"v1" in dir(tf.compat)', False),
    ('"v1" not in dir(tf.compat)', True),
    ('"compat" in dir(tf)', True),
    ('"compat" in dir(tf) and "v1" in dir(tf.compat)', False),
    ('"log" in dir(tf)', True),
    ('"sort" in dir(tf)', False),
    # unknown: a listing of what the table does not know, or is not TensorFlow's
    ('"v1" in dir(np.compat)', None),
    ('"x" in dir(tf.compat.v1)', None),
    ('"v1" in vars(tf.compat)', None),
    ('"v1" in dir(tf.compat, 1)', None),
])
def test_evaluated_with_the_target_table(test, value):
    assert evaluate(ast.parse(test).body[0].value, (1, 8), resolve, lambda name: None) is value


def test_rebinding_under_a_dir_test_is_decided():
    code = """\
        import tensorflow as tf

        print(tf.__version__)
        if "compat" in dir(tf) and "v1" in dir(tf.compat):
            tf = tf.compat.v1
        y = tf.math.log(tf.ones([2]))
        """
    assert lint(code, select=["CG402"]) == [("CG402", 6, 5)]


def test_dir_tests_decide_rebindings_and_branches_without_other_version_words():
    """`in dir()` alone (no "hasattr" or "version" in the file) decides the top-level
    tests: a `tf = tf.compat.v1` under a test false on 1.8 is not taken, and the branch a
    test true on 1.8 leaves is never run."""
    from conftest import lint

    taken = lint("""
    import tensorflow as tf
    if "compat" in dir(tf) and "v1" in dir(tf.compat):
        tf = tf.compat.v1
    y = tf.math.log(1.0)
    """, select=["CG402"])
    assert taken == [("CG402", 5, 5)]
    left = lint("""
    import tensorflow as tf
    if "compat" in dir(tf) and "v1" not in dir(tf.compat):
        log = tf.log
    else:
        log = tf.math.log
    """, select=["CG402"])
    assert left == []
