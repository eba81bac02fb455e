"""CG401-CG403: names and keywords newer than TF 1.8, through every alias form."""
from conftest import codes, lint


def test_newer_names_in_every_alias_form():
    code = """
    import tensorflow
    import tensorflow as T
    from tensorflow import math as tfmath
    import tensorflow.compat.v1 as v1
    tfc = T.compat

    a = tensorflow.math.log(1.0)
    b = T.random.normal([2])
    c = tfmath.log1p(1.0)
    d = tfc.v1.placeholder
    e = T.function
    """
    assert lint(code) == [("CG402", 5, 1), ("CG402", 8, 5), ("CG402", 9, 5), ("CG402", 10, 5),
                          ("CG402", 11, 5), ("CG402", 12, 5)]


def test_no_tf18_name_is_flagged_core_or_contrib():
    code = """
    import tensorflow as tf
    tfe = tf.contrib.eager
    names = [
        tf.custom_gradient, tf.RegisterGradient, tf.NoGradient, tf.Print, tf.log, tf.GradientTape,
        tf.math.polyval, tf.compat.as_bytes, tf.keras.layers.Dense, tf.layers.dense,
        tf.contrib.eager.custom_gradient, tf.contrib.layers.recompute_grad, tfe.Variable,
        tfe.implicit_gradients, tf.contrib.framework.nest.flatten, tf.nn.leaky_relu,
        tf.nn.swish, tf.data.Dataset, tf.linalg.einsum, tf.train.AdamOptimizer,
        tf.enable_eager_execution, tf.test.compute_gradient_error, tf.float32,
    ]
    v = tf.Variable(1.0)
    w = v.assign(2.0)
    tf.reduce_sum(v, keepdims=True)
    tf.reduce_sum(v, keep_dims=True)
    tf.gradients(v, [v], grad_ys=None, stop_gradients=None)
    tf.GradientTape(persistent=True)
    """
    assert codes(code) == []


def test_tf_print_is_cg401_with_the_python2_note():
    without_future = "import tensorflow as tf\ntf.print(1)\n"
    [finding] = lint(without_future)
    assert finding == ("CG401", 2, 1)
    from cglint import engine
    message = engine.lint_text("a.py", without_future, engine.Options()).diagnostics[0].message
    assert "SyntaxError" in message
    with_future = "from __future__ import print_function\n" + without_future
    message = engine.lint_text("a.py", with_future, engine.Options()).diagnostics[0].message
    assert "SyntaxError" not in message


def test_unknown_keywords_only_where_the_signature_says_so():
    code = """
    import tensorflow as tf
    tf.gradients(1.0, [1.0], unconnected_gradients="zero")
    tf.GradientTape(watch_accessed_variables=False)
    tf.reduce_sum(1.0, keepdims=True)
    tf.nn.relu(1.0, name="r")
    tf.get_variable("w", [1], use_resource=True)
    tf.keras.layers.Dense(3, activation="relu", kernel_initializer="zeros", name="d")
    """
    assert lint(code) == [("CG403", 3, 26), ("CG403", 4, 17)]


def test_imports_that_18_cannot_import():
    code = """
    from tensorflow.keras.layers import Dense
    import tensorflow.keras
    from tensorflow.contrib.eager import Variable
    import tensorflow.contrib.eager as tfe
    from tensorflow.python.ops import custom_gradient
    from tensorflow.contrib import layers
    """
    assert lint(code) == [("CG402", 2, 1), ("CG402", 3, 1), ("CG402", 4, 1)]


def test_compat_v1_gets_a_safe_fix_keeping_the_alias():
    from cglint import engine
    text = "import tensorflow as T\ns = T.compat.v1.Session()\nm = T.math.log(1.0)\n"
    result = engine.lint_text("a.py", text, engine.Options())
    fixes = {d.line: edits for d, edits in result.fixes}
    assert [e.text for e in fixes[2]] == ["T.Session"]
    assert 3 not in fixes  # tf.math.log -> tf.log is a different module path: no autofix


def test_target_tf_changes_the_verdict():
    from cglint import engine
    text = "import tensorflow as tf\ntf.compat.v1.Session()\n"
    assert engine.lint_text("a.py", text, engine.Options(target_tf="1.13")).diagnostics == []
