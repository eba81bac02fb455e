"""CG108 near-misses: an int used where TF takes an int tensor (an index, a slice bound, a
count, an axis) and a bool used only as a tensor predicate work on TF 1.8 graph mode, which
makes them an int32 and a bool tensor; the same arguments meeting a float tensor or a
Python test still fail and are still reported."""
import textwrap

import pytest

from cglint import check, engine
from conftest import lint


def cg108(code):
    return lint(code, select=["CG108"])


def test_an_int_used_as_an_index_or_slice_bound_is_not_reported():
    code = """
    import tensorflow as tf

    TABLE = [1.0, 2.0, 3.0]

    @tf.custom_gradient
    def top_rows(x, k):
        def grad(dy):
            return tf.concat([dy, tf.zeros_like(x[k:])], axis=0), None
        return x[:k], grad

    @tf.custom_gradient
    def picks(x, k):
        h = tf.nn.relu(x)
        y = x[k] + x[::k] + x[k, 0] + x[:, :k] + h[:k - 1] + x[-k] + x[2 * k:]
        y = y + tf.shape(x)[k] + x[0][k]
        return y, lambda dy: (dy[k:], None)

    x = tf.ones([3, 3])
    a = top_rows(x, 2)
    b = picks(x, 1)
    """
    assert cg108(code) == []


def test_an_int_passed_as_an_index_count_or_axis_of_a_tf_function_is_not_reported():
    code = """
    import tensorflow as tf

    @tf.custom_gradient
    def ops(x, k):
        y = tf.gather(x, k) + tf.gather(x, indices=k) + tf.gather(x, [0], axis=k)
        y = y + tf.nn.top_k(x, k)[0] + tf.nn.top_k(x, k=k).values
        y = y + tf.one_hot(k, 3) + tf.one_hot([0], k) + tf.reduce_sum(x, k)
        y = y + tf.reduce_max(x, axis=k) + tf.concat([x, x], k) + tf.expand_dims(x, k)
        y = y + tf.pad(x, [[k, k], [0, 0]]) + tf.cast(tf.range(2 * k), tf.float32)
        y = y + tf.unsorted_segment_sum(x, [0, 0], k) + tf.to_float(tf.argmax(x, k))
        y = y + tf.cast(tf.sequence_mask(k, 3), tf.float32) + tf.cumsum(x, axis=k)
        return y, lambda dy: (tf.reshape(dy, [k, -1]), None)

    y = ops(tf.ones([2, 3]), 1)
    """
    assert cg108(code) == []


def test_an_int_in_arithmetic_with_a_shape_on_the_way_to_a_tf_function_is_not_reported():
    # `tf.shape(x)[0] - k` is int32 arithmetic: the pad amount of the probe's program
    # (runs on TF 1.8 and gives [1, 1, 0, 0]).
    code = """
    import tensorflow as tf

    @tf.custom_gradient
    def take_first(x, k):
        def grad(dy):
            return tf.pad(dy, [[0, tf.shape(x)[0] - k]]), None
        return x[:k], grad

    @tf.custom_gradient
    def tail(x, k):
        return x[tf.size(x) - k:] + x[:tf.rank(x) * k], lambda dy: (dy, None)

    a = take_first(tf.ones([4]), 2)
    b = tail(tf.ones([4]), 1)
    """
    assert cg108(code) == []


def test_an_int_in_arithmetic_with_a_float_tensor_result_is_still_reported():
    code = """
    import tensorflow as tf

    @tf.custom_gradient
    def mixed(x, k):
        return x * (tf.reduce_sum(x) - k), lambda dy: (dy, None)

    @tf.custom_gradient
    def wide(x, k):
        return x[:tf.shape(x, out_type=tf.int64)[0] - k], lambda dy: (dy, None)

    a = mixed(tf.ones([4]), 2)
    b = wide(tf.ones([4]), 2)
    """
    # an int64 shape cannot meet the int32 tensor the int becomes
    assert cg108(code) == [("CG108", 12, 25), ("CG108", 13, 24)]


def test_an_int_meeting_a_float_or_a_python_use_is_still_reported():
    code = """
    import tensorflow as tf

    TABLE = [1.0, 2.0, 3.0]

    @tf.custom_gradient
    def scaled(x, k):
        return x[:k] * k, lambda dy: (dy, None)

    @tf.custom_gradient
    def looked_up(x, k):
        return x * TABLE[k], lambda dy: (dy, None)

    @tf.custom_gradient
    def unstacked(x, k):
        return tf.unstack(x)[k], lambda dy: (dy, None)

    @tf.custom_gradient
    def attrs(x, k):
        return tf.stack([x, x], axis=k), lambda dy: (dy, None)

    @tf.custom_gradient
    def split(x, k):
        return tf.split(x, k)[0], lambda dy: (dy, None)

    @tf.custom_gradient
    def halved(x, k):
        return x[:k / 2], lambda dy: (dy, None)

    @tf.custom_gradient
    def static(x, k):
        return x * x.shape[k].value, lambda dy: (dy, None)

    @tf.custom_gradient
    def counted(x, k):
        return x[:len(range(k))], lambda dy: (dy, None)

    @tf.custom_gradient
    def branch(x, k):
        y = x[:k] if k > 1 else x
        return y, lambda dy: (dy, None)

    x = tf.ones([3])
    a = scaled(x, 2)
    b = looked_up(x, 2)
    c = unstacked(x, 2)
    d = attrs(x, 0)
    e = split(x, 3)
    f = halved(x, 2)
    g = static(x, 0)
    h = counted(x, 2)
    i = branch(x, 2)
    """
    # Arithmetic with a float; a Python list indexed by a tensor (a module's, or one a TF
    # function returns); an attribute that must be a Python int; `/` makes a float tensor
    # on Python 3; a static shape, `range()` and an `if` need a Python int.
    assert cg108(code) == [("CG108", 44, 15), ("CG108", 45, 18), ("CG108", 46, 18),
                           ("CG108", 47, 14), ("CG108", 48, 14), ("CG108", 49, 15),
                           ("CG108", 50, 15), ("CG108", 51, 16), ("CG108", 52, 15)]


def test_a_bool_used_only_as_a_tensor_predicate_is_not_reported():
    code = """
    import tensorflow as tf

    @tf.custom_gradient
    def st_dropout(x, training):
        mask = tf.cast(tf.random_uniform(tf.shape(x)) > 0.5, tf.float32)
        y = tf.cond(training, lambda: x * mask * 2.0, lambda: x)
        return y, lambda dy: (dy, None)

    @tf.custom_gradient
    def predicates(x, flag):
        y = tf.where(flag, x * 2.0, x)
        y = tf.cond(pred=tf.logical_and(flag, x[0] > 0), true_fn=lambda: y, false_fn=lambda: x)
        y = tf.cond(tf.logical_or(tf.logical_not(flag), False), lambda: y, lambda: x)
        y = y * tf.cast(flag, tf.float32)
        def grad(dy):
            return tf.where(condition=flag, x=dy, y=dy * 2.0), None
        return y, grad

    x = tf.ones([3])
    a = st_dropout(x, True)
    b = predicates(x, False)
    """
    assert cg108(code) == []


def test_a_bool_reaching_a_python_test_or_arithmetic_is_still_reported():
    code = """
    import tensorflow as tf

    @tf.custom_gradient
    def branched(x, training):
        y = tf.cond(training, lambda: x * 2.0, lambda: x)
        if training:
            y = y * 2.0
        return y, lambda dy: (dy, None)

    @tf.custom_gradient
    def negated(x, training):
        return tf.cond(not training, lambda: x, lambda: x * 2.0), lambda dy: (dy, None)

    @tf.custom_gradient
    def combined(x, training):
        y = tf.where(training and True, x, x * 2.0)
        return y, lambda dy: (dy, None)

    @tf.custom_gradient
    def chosen(x, training):
        return (x * 2.0 if training else x), lambda dy: (dy, None)

    @tf.custom_gradient
    def looped(x, training):
        while training:
            x = x * 2.0
        return x, lambda dy: (dy, None)

    @tf.custom_gradient
    def masked(x, training):
        return x * training, lambda dy: (dy, None)

    @tf.custom_gradient
    def unused(x, training):
        return x, lambda dy: (dy, None)

    x = tf.ones([3])
    a = branched(x, True)
    b = negated(x, True)
    c = combined(x, True)
    d = chosen(x, True)
    e = looped(x, False)
    f = masked(x, True)
    g = unused(x, True)
    """
    # An unused flag stays reported (tests/test_rules_gradients.py's argument kinds).
    assert cg108(code) == [("CG108", 39, 17), ("CG108", 40, 16), ("CG108", 41, 17),
                           ("CG108", 42, 15), ("CG108", 43, 15), ("CG108", 44, 15),
                           ("CG108", 45, 15)]


def test_the_bool_message_names_the_tensor_predicate_way_out():
    from cglint import check, engine
    import textwrap

    code = textwrap.dedent("""
    import tensorflow as tf

    @tf.custom_gradient
    def masked(x, training):
        return x * training, lambda dy: (dy, None)

    y = masked(tf.ones([3]), True)
    """)
    result = check.check_alone("snippet.py", code, engine.Options(select=("CG108",)))
    (finding,) = result.diagnostics
    assert "`if`" in finding.message and "tf.cond" in finding.message


def test_eager_mode_still_passes_ints_and_bools_through():
    code = """
    import tensorflow as tf
    tf.enable_eager_execution()

    @tf.custom_gradient
    def scaled(x, k, flag):
        y = x * k if flag else x
        return y, lambda dy: (dy, None, None)

    y = scaled(tf.ones([3]), 2, True)
    """
    assert cg108(code) == []


def test_a_tuple_is_called_a_tuple():
    code = """
    import tensorflow as tf

    @tf.custom_gradient
    def pair_mul(ab):
        return ab[0] * ab[1], lambda dy: (dy, dy)

    a, b = tf.constant(1.0), tf.constant(2.0)
    y = pair_mul((a, b))
    z = pair_mul([a, b])
    """
    from cglint import check, engine
    import textwrap

    result = check.check_text("m.py", textwrap.dedent(code), engine.Options(select=("CG108",)))
    assert [d.message.split(" as ")[0] for d in result.diagnostics] == [
        "`pair_mul` gets a Python tuple", "`pair_mul` gets a Python list"]


def test_arguments_a_partial_binds_positionally():
    code = """
    import functools
    import tensorflow as tf

    @tf.custom_gradient
    def quantize(mode, x):
        def grad(dy):
            if mode == "hard":
                return None, tf.zeros_like(dy)
            return None, dy
        return tf.round(x), grad

    hard = functools.partial(quantize, "hard")
    none = functools.partial(quantize, None)
    listed = functools.partial(quantize, [1.0, 2.0])
    fine = functools.partial(quantize, tf.constant(1.0))
    y = hard(tf.constant([0.4])) + none(tf.constant([0.4]))
    """
    # a string and None bound positionally; a list's count is the call's: not judged
    assert cg108(code) == [("CG108", 13, 36), ("CG108", 14, 36)]


@pytest.mark.parametrize("decorators, reported", [
    ("@tf.custom_gradient\n        @staticmethod", True),
    ("@tf.custom_gradient\n        @classmethod", True),
    ("@staticmethod\n        @tf.custom_gradient", False),
])
def test_a_method_descriptor_below_the_decorator(decorators, reported):
    code = """
    import tensorflow as tf

    class Ops(object):
        DECORATORS
        def ste(x):
            return tf.round(x), lambda dy: dy
    """.replace("DECORATORS", decorators)
    assert bool(cg108(code)) is reported


@pytest.mark.parametrize("body, kind, builtin", [
    ("levels = float(2 ** k - 1)", "an int", "float"),
    ("levels = float(2 ** k - 1)", "a float", "float"),
    ("for _ in range(k):\n            x = x * 0.5", "an int", "range"),
    # measured under TF 1.8: fixtures/CG108/bad_float_needed_by_max_and_math.py
    ("t = max(k, 1e-3)", "a float", "max"),
    ("t = min(k, 1)", "an int", "min"),
    ("t = round(k * 4)", "a float", "round"),
    ("import math\n    t = math.sqrt(k)", "a float", "math.sqrt"),
    ("from math import log\n    t = -log(k)", "a float", "math.log"),
])
def test_a_number_python_needs_as_a_number(body, kind, builtin):
    from cglint import check, engine
    import textwrap

    value = "2" if kind == "an int" else "2.0"
    code = textwrap.dedent("""
    import tensorflow as tf

    @tf.custom_gradient
    def quantize(x, k):
        BODY
        return tf.identity(x), lambda dy: (dy, None)

    y = quantize(tf.constant([0.5]), VALUE)
    """).replace("BODY", body).replace("VALUE", value)
    result = check.check_text("m.py", code, engine.Options(select=("CG108",)))
    (finding,) = result.diagnostics
    assert ("gets %s" % kind) in finding.message
    assert "Python's `%s()` cannot take" % builtin in finding.message


@pytest.mark.parametrize("body", [
    "t = tf.maximum(k, 1e-3)",  # TF's own: takes the tensor
    "t = tf.sqrt(k)",
    "def max(a, b):\n        return a\n    t = max(k, 1.0)",  # the module's own max
    "t = abs(k)",  # a tensor has __abs__
    "t = math.pi * k",  # a constant of math, not a function
])
def test_a_number_a_tensor_function_takes_is_left_alone(body):
    from cglint import check, engine
    import textwrap

    code = textwrap.dedent("""
    import math
    import tensorflow as tf

    @tf.custom_gradient
    def scaled(x, k):
        BODY
        return x * t, lambda dy: (dy * t, None)

    y = scaled(tf.constant([0.5]), 2.0)
    """).replace("BODY", body)
    result = check.check_text("m.py", code, engine.Options(select=("CG001", "CG108")))
    assert result.diagnostics == []


@pytest.mark.parametrize("body, reported", [
    # fixtures/CG108/good_int_compared_as_a_tensor.py runs under TF 1.8
    ("y = tf.cond(k > 100, lambda: x, lambda: tf.zeros_like(x))", False),
    ("y = tf.where(tf.greater(k, 1), x, x * 2.0)", False),
    ("y = tf.where(tf.logical_not(tf.equal(k, 3)), x, -x)", False),
    ("y = x * tf.to_float(tf.minimum(k, 2))", False),
    # each fails under TF 1.8: a Python `if` on the bool tensor (TypeError), an int32
    # minimum times a float (ValueError), an int32 compared with 0.5 (TypeError)
    ("if k > 100:\n        x = x * 2.0\n    y = x", True),
    ("y = x * tf.minimum(k, 2)", True),
    ("y = tf.cond(k > 0.5, lambda: x, lambda: x)", True),
])
def test_an_int_compared_with_ints_as_a_tensor(body, reported):
    from cglint import check, engine
    import textwrap

    code = textwrap.dedent("""
    import tensorflow as tf

    @tf.custom_gradient
    def gated(x, k):
        BODY
        return y, lambda dy: (dy, None)

    y = gated(tf.constant([1.0]), 3)
    """).replace("BODY", body)
    result = check.check_text("m.py", code, engine.Options(select=("CG001", "CG108")))
    assert [d.code for d in result.diagnostics] == (["CG108"] if reported else [])


@pytest.mark.parametrize("binding, reported", [
    # fixtures/CG108/bad_bool_from_a_comparison.py fails under TF 1.8
    ("flag = mode == 'train'", True),
    ("flag = mode is not None", True),
    ("flag = not mode", True),
    ("flag = True", True),
    ("flag = None", True),
    # near-misses: a comparison of tensors is a bool tensor; a name assigned twice is
    # not followed; a tensor
    ("flag = x > 0.5", False),
    ("flag = True\n    flag = x > 0.5", False),
    ("flag = tf.constant(True)", False),
    ("flag = x == 1", False),  # a NumPy array's comparison gives an array (review)
])
def test_a_python_bool_in_a_local_name(binding, reported):
    from cglint import check, engine
    import textwrap

    code = textwrap.dedent("""
    import tensorflow as tf

    @tf.custom_gradient
    def noisy_round(x, training):
        y = tf.round(x + 0.1) if training else tf.round(x)
        return y, lambda dy: (dy, None)

    def model_fn(x, mode):
        BINDING
        return noisy_round(x, flag)
    """).replace("BINDING", binding)
    result = check.check_text("m.py", code, engine.Options(select=("CG001", "CG108")))
    assert [d.code for d in result.diagnostics] == (["CG108"] if reported else [])


@pytest.mark.parametrize("binding, reported", [
    # how `ops.first_k` uses an int, bool or list is not seen from here: a name holding
    # one is left alone (the literal is what the call shows); None and strings fail
    # whatever the body does
    ("k = 2", False),
    ("k = True", False),
    ("k = None", True),
    ("k = mode == 'train'", False),
    ("k = 'train'", True),
])
def test_a_name_passed_to_another_modules_function(tmp_path, binding, reported):
    from cglint import check, engine

    (tmp_path / "ops.py").write_text(
        "import tensorflow as tf\n@tf.custom_gradient\ndef first_k(x, k):\n"
        "    return x[:k], lambda dy: (dy, None)\n")
    model = tmp_path / "model.py"
    model.write_text("import tensorflow as tf\nfrom ops import first_k\n"
                     "def f(x, mode):\n    %s\n    return first_k(x, k)\n" % binding)
    found = check.check_alone(str(model), model.read_text(),
                              engine.Options(select=("CG108",))).diagnostics
    assert bool(found) is reported, found


def test_an_int_a_nested_def_rebinds_by_nonlocal_is_not_judged_as_an_int():
    code = """
    import tensorflow as tf

    @tf.custom_gradient
    def scale(x, k):
        return x * k, lambda dy: (dy * k, tf.reduce_sum(dy * x))

    def rebound(x):
        k = 3
        def to_tensor():
            nonlocal k
            k = tf.constant(2.0)
        to_tensor()
        return scale(x, k)

    def plain(x):
        k = 3
        return scale(x, k)
    """
    assert lint(code, select=["CG108"], target_python=(3, 6)) == [("CG108", 18, 21)]


def test_a_dtype_is_named_a_dtype_not_a_function():
    code = textwrap.dedent("""
    import tensorflow as tf

    @tf.custom_gradient
    def ste_cast(x, dtype):
        return tf.cast(tf.round(x), dtype), lambda dy: (dy, None)

    ste_cast(tf.constant([0.4]), tf.float32)
    ste_cast(tf.constant([0.4]), tf.dtypes.int32)
    ste_cast(tf.constant([0.4]), tf.round)
    """)
    found = check.check_alone("t.py", code, engine.Options(select=("CG108",))).diagnostics
    assert [d.message.split(" as a")[0] for d in found] == [
        "`ste_cast` gets a `tf.DType`", "`ste_cast` gets a `tf.DType`",
        "`ste_cast` gets a function"]


def test_a_bool_used_as_a_layers_training_flag_is_the_tensor_it_takes():
    # Measured under TF 1.8 (py27, py36): tf.layers.dropout/batch_normalization's
    # `training=` and contrib's `is_training=` take a bool tensor.
    from conftest import lint
    code = """
    import tensorflow as tf

    @tf.custom_gradient
    def f(x, training):
        y = tf.layers.dropout(x, rate=0.5, training=training)
        y = tf.contrib.layers.batch_norm(y, is_training=training)
        return y, lambda dy: (dy, None)

    z = f(tf.ones([2, 3]), False)
    """
    assert lint(code, select=["CG108"]) == []
    tested = code.replace("return y, lambda", "y = y if training else x\n        return y, lambda")
    assert lint(tested, select=["CG108"]) == [("CG108", 11, 24)]
