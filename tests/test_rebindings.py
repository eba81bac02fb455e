"""Top-level tests that pick a TensorFlow alias (`if hasattr(tf.compat, "v1"): tf =
tf.compat.v1`) are decided as the target runs them: names resolve through the branch it
takes, and stay unknown when the test cannot be decided."""
import ast
import textwrap

import pytest

from cglint.facts import ModuleFacts
from cglint.parse import parse


def resolve_last(code, target_tf="1.8"):
    text = textwrap.dedent(code)
    module = ModuleFacts("m.py", text, parse(text), (3, 6), target_tf)
    expr = module.tree.body[-1].value
    return module.resolve(expr)


@pytest.mark.parametrize("code", [
    # the feature test, in its usual spellings
    """
    import tensorflow as tf
    if hasattr(tf, "compat") and hasattr(tf.compat, "v1"):
        tf = tf.compat.v1
    tf.math
    """,
    """
    import tensorflow as tf
    if not hasattr(tf.compat, "v1"):
        pass
    else:
        tf = tf.compat.v1
    tf.math
    """,
    # a test of the release, with an `elif` 1.8 does not take either
    """
    import tensorflow as tf
    if tf.__version__.startswith("2"):
        tf = tf.compat.v1
    elif tf.__version__.startswith("0."):
        tf = tf.contrib.deprecated
    tf.math
    """,
    # both branches bind; 1.8 takes the else
    """
    import tensorflow
    if hasattr(tensorflow.compat, "v1"):
        tf = tensorflow.compat.v1
    else:
        tf = tensorflow
    tf.math
    """,
    # the one-line forms
    """
    import tensorflow as tf
    tf = tf.compat.v1 if hasattr(tf.compat, "v1") else tf
    tf.math
    """,
    """
    import tensorflow
    tf = tensorflow.compat.v1 if tensorflow.__version__ >= "2" else tensorflow
    tf.math
    """,
])
def test_the_branch_18_takes_decides_the_alias(code):
    assert resolve_last(code) == "tensorflow.math"


@pytest.mark.parametrize("code", [
    # a test that is not about TensorFlow: either branch may run
    """
    import os
    import tensorflow as tf
    if os.environ.get("TF2"):
        tf = tf.compat.v1
    tf.math
    """,
    # `tf` was bound to something else before the test: its value there is unknown
    """
    import tensorflow as tf
    tf = make_tf()
    if hasattr(tf.compat, "v1"):
        tf = tf.compat.v1
    tf.math
    """,
    # a feature 1.8 has: the body runs, and binds what the table cannot follow
    """
    import tensorflow as tf
    if hasattr(tf, "layers"):
        tf = load()
    tf.math
    """,
    # an unknown operand before a decisive one: not decided
    """
    import tensorflow as tf
    if flag or hasattr(tf.compat, "v1"):
        tf = tf.compat.v1
    tf.math
    """,
])
def test_an_undecided_test_leaves_the_alias_unknown(code):
    assert resolve_last(code) is None


def test_a_feature_18_has_takes_the_body():
    assert resolve_last("""
    import tensorflow as tf
    if hasattr(tf, "layers"):
        layers = tf.layers
    else:
        layers = tf.keras.layers
    layers.dense
    """) == "tensorflow.layers.dense"


def test_only_top_level_tests_are_decided():
    # In a function the test runs each call, and `tf` is that function's own name.
    text = textwrap.dedent("""
    import tensorflow as tf
    def build():
        if hasattr(tf.compat, "v1"):
            tf = tf.compat.v1
        return tf.math
    """)
    module = ModuleFacts("m.py", text, parse(text), (3, 6), "1.8")
    returned = [node for node in ast.walk(module.tree) if isinstance(node, ast.Return)][0]
    assert module.resolve(returned.value) is None


def test_a_target_that_takes_the_rebinding_never_sees_the_module():
    # TF 1.15 has tf.compat.v1: after the test `tf` is no longer plain tensorflow.
    assert resolve_last("""
    import tensorflow as tf
    if hasattr(tf.compat, "v1"):
        tf = tf.compat.v1
    tf.math
    """, target_tf="1.15") != "tensorflow.math"


@pytest.mark.parametrize("repeated", [10, 40])
def test_many_rebindings_of_one_alias_stay_fast(repeated):
    # Each alias followed once: ten `tf = tf.compat.v1` once took 10**8 steps (a hang)
    # when the resolved name reached the failing-import check.
    import time

    from conftest import lint

    lines = ["import tensorflow as tf", "if tf.__version__.startswith('9.0'):",
             "    tf = tf.compat.v1"]
    for i in range(1, repeated):
        lines += ["elif tf.__version__.startswith('9.%d'):" % i, "    tf = tf.compat.v1"]
    unconditional = ["import tensorflow as tf"] + ["tf = tf.compat.v1"] * repeated
    started = time.process_time()
    assert lint("\n".join(lines + ["y = tf.math.log(1.0)"])) == [
        ("CG402", 2 * repeated + 2, 5)]
    assert lint("\n".join(unconditional + ["y = tf.math.log(1.0)"])) == []
    assert time.process_time() - started < 5


@pytest.mark.parametrize("target", ['MODULES["tf"]', "config.tf", "tf, other"])
def test_a_conditional_expression_assigned_to_anything_but_a_name(target):
    from conftest import lint

    value = 'tf.compat.v1 if hasattr(tf.compat, "v1") else tf'
    if "," in target:
        value = "(%s), None" % value
    code = "import tensorflow as tf\nMODULES = {}\nconfig = object()\n%s = %s\n" % (
        target, value)
    assert lint(code) == []  # no crash, and nothing to say
