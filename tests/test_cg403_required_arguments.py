"""CG403: calls of TF 1.8 functions that leave out a parameter 1.8 requires (measured on
TF 1.8: `TypeError` when the call runs, or at decoration for a decorator)."""
import pytest

from cglint import tfapi
from conftest import lint


def test_custom_gradient_with_parentheses_is_reported_at_the_decorator():
    code = """\
        import tensorflow as tf

        @tf.custom_gradient()
        def ident(x):
            return tf.identity(x), lambda dy: dy
        """
    assert lint(code, select=["CG403"]) == [("CG403", 3, 2)]


@pytest.mark.parametrize("binding,decorator", [
    ("from tensorflow import custom_gradient", "custom_gradient"),
    ("cg = tf.custom_gradient", "cg"),
    ("tfe = tf.contrib.eager", "tfe.custom_gradient"),
    ("import tensorflow.contrib.eager as tfe", "tfe.custom_gradient"),
])
def test_custom_gradient_with_parentheses_through_aliases(binding, decorator):
    code = "import tensorflow as tf\n%s\n\n\n@%s()\ndef ident(x):\n" \
           "    return tf.identity(x), lambda dy: dy\n" % (binding, decorator)
    assert lint(code, select=["CG403"]) == [("CG403", 5, 2)]


def test_the_message_names_the_missing_parameters_and_the_type_error():
    from cglint import check, engine

    code = "import tensorflow as tf\n\n\n@tf.custom_gradient()\ndef f(x):\n" \
           "    return x, lambda dy: dy\n\n\ne = tf.errors.NotFoundError(None)\n"
    result = check.check_alone("a.py", code, engine.Options(select=("CG403",)))
    first, second = [d.message for d in result.diagnostics]
    assert "`tf.custom_gradient` requires argument `f`" in first
    assert "`TypeError` at decoration in TF 1.8" in first
    assert "`@tf.custom_gradient` passes it the function" in first
    assert "requires arguments `op`, `message`" in second and "`TypeError` when" in second


def test_the_decorator_fix_drops_the_parentheses():
    from cglint import autofix, engine

    code = "import tensorflow as tf\n\n\n@tf.custom_gradient ( )\ndef f(x):\n" \
           "    return x, lambda dy: dy\n"
    fixed = autofix.fix_text("a.py", code, engine.Options())
    assert fixed.text == code.replace("@tf.custom_gradient ( )", "@tf.custom_gradient")


@pytest.mark.parametrize("call", [
    "tf.gradients(y)", "tf.nn.dropout(x)", "tf.keras.layers.Dense()",
    "tf.reshape(x)", "tf.errors.InvalidArgumentError('bad input')",
    "tf.gradients(xs=[x])",
])
def test_calls_leaving_out_a_required_parameter(call):
    code = "import tensorflow as tf\nx = tf.ones([2])\ny = x * 2.0\nz = %s\n" % call
    assert lint(code, select=["CG403"]) == [("CG403", 4, 5)]


@pytest.mark.parametrize("call", [
    "tf.gradients(y, [x])", "tf.gradients(ys=y, xs=[x])", "tf.gradients(y, xs=[x])",
    "tf.gradients(*pair)", "tf.gradients(y, **options)", "tf.nn.dropout(x, 0.5)",
    "tf.keras.layers.Dense(3)", "tf.Variable()", "tf.custom_gradient(f)",
    # slim and contrib.layers take arguments from an `arg_scope`, maybe another module's
    "tf.contrib.slim.max_pool2d(x)", "tf.contrib.layers.conv2d(x)",
    # a keyword 1.8 lacks is the call's TypeError, and its own finding
    "tf.nn.dropout(x, rate=0.5)",
    # a callable object: its recorded `__call__` counts `self`
    "tf.nn.swish(x)",
    # a class's method called through the class passes `self` itself
    "tf.train.Optimizer.minimize(opt, y)",
])
def test_calls_that_pass_what_1_8_requires_or_may_are_not_reported(call):
    code = "import tensorflow as tf\nx = tf.ones([2])\ny = x * 2.0\npair = (y, [x])\n" \
           "options = {'xs': [x]}\nf = None\nopt = tf.train.AdamOptimizer()\nz = %s\n" % call
    assert [f for f in lint(code, select=["CG403"]) if f[1] == 8 and f[2] == 5] == []


def test_a_version_test_or_a_type_error_handler_guards_the_call():
    code = """\
        from distutils.version import LooseVersion
        import tensorflow as tf
        x = tf.ones([2])
        if LooseVersion(tf.__version__) >= LooseVersion("1.13"):
            y = tf.nn.dropout(x)
        try:
            z = tf.nn.dropout(x)
        except TypeError:
            z = tf.nn.dropout(x, keep_prob=0.5)
        """
    assert lint(code, select=["CG403"]) == []


def test_a_string_version_test_that_passes_on_1_8_guards_nothing():
    # "1.8.0" >= "1.13" as strings: the branch runs on 1.8 (measured: TypeError, keep_prob)
    code = 'import tensorflow as tf\nx = tf.ones([2])\nif tf.__version__ >= "1.13":\n' \
           '    y = tf.nn.dropout(x)\n'
    assert lint(code, select=["CG403"]) == [("CG403", 4, 9)]


def test_unpassed_required_is_unknown_where_1_8_cannot_tell():
    assert tfapi.unpassed_required("tensorflow.custom_gradient", 0, ()) == ("f",)
    assert tfapi.unpassed_required("tensorflow.gradients", 1, {"xs"}) == ()
    assert tfapi.unpassed_required("tensorflow.contrib.slim.conv2d", 1, ()) is None
    assert tfapi.unpassed_required("tensorflow.nn.swish", 0, ()) is None
    assert tfapi.unpassed_required("tensorflow.gradients", 0, (), target="1.15") is None
    assert tfapi.unpassed_required("tensorflow.no_such_function", 0, ()) is None


def test_a_module_with_an_argument_scope_may_leave_arguments_out():
    # tensorpack's examples: `enable_argscope_for_module(tf.layers)`, then
    # `argscope([tf.layers.conv2d], kernel_size=3)` passes what the calls leave out.
    code = """
    import tensorflow as tf
    from tensorpack import argscope, enable_argscope_for_module

    enable_argscope_for_module(tf.layers)

    def vgg(x):
        with argscope([tf.layers.conv2d], kernel_size=3, padding="same"):
            return tf.layers.conv2d(x, 64, name="conv1_1")
    """
    assert lint(code, select=["CG403"]) == []
    assert lint(code.replace("argscope", "scope_of"), select=["CG403"]) == [("CG403", 9, 16)]


def test_a_word_in_a_comment_is_no_argument_scope():
    # probe Y, b03: only a call opens or enables a scope
    code = """
    import tensorflow as tf
    # like slim's arg_scope, but nothing passes the axis here
    c = tf.concat([tf.ones([2]), tf.ones([2])])
    """
    assert lint(code, select=["CG403"]) == [("CG403", 4, 5)]
