"""CG107: a `variables=None` parameter only deleted or tested for truth is harmless on TF
1.8. CG111: scalar variables made with keywords (`tf.Variable(initial_value=0.3)`,
`tf.get_variable("a", initializer=tf.constant(0.3))`) are scalar inputs too."""
import textwrap

import pytest

from cglint import engine
from conftest import lint

# A function whose variable comes in positionally: `variables` is always None on 1.8.
POSITIONAL_VARIABLE = """
import tensorflow as tf

w = tf.get_variable("w", [3], initializer=tf.ones_initializer())


@tf.custom_gradient
def scale(x, w):
    def grad(dy, variables=None):
        {body}
        return dy * w, tf.reduce_sum(dy * x, axis=0)
    return x * w, grad


loss = tf.reduce_sum(scale(tf.constant([[1.0, 2.0, 3.0]]), w))
"""


def _cg107(code):
    return lint(code, select=["CG107"])


@pytest.mark.parametrize("body", [
    "del variables  # Unused.",
    "unused = 1\n        del unused, variables",
    "assert not variables",
    "assert not variables, 'TF 1.8 passes no variables'",
    "assert variables is None",
    "if variables:\n            raise ValueError('unexpected variables')",
    "if not variables and dy is not None:\n            pass",
    "assert variables is None or not variables",
    "assert not bool(variables)",
    "unused = [v for v in [dy] if not variables]",
    "msg = 'none' if not variables else 'some'",
    "pass",
    # always empty on 1.8, which passes None: no variable is left without a gradient
    "extra = variables or []",
    "extra = [tf.zeros_like(v) for v in (variables or ())]",
    # read only where a test says it was given, which 1.8 never does
    "if variables:\n            extra = variables[0]",
    "if variables is not None:\n            extra = [dy * v for v in variables]",
    # a type test: false for None (probe Y, j09)
    "if isinstance(variables, list):\n            extra = [dy * v for v in variables]",
])
def test_cg107_variables_only_deleted_or_truth_tested_is_harmless(body):
    assert _cg107(POSITIONAL_VARIABLE.format(body=body)) == []


@pytest.mark.parametrize("body", [
    "assert len(variables) == 0",  # the value is used: a TypeError on None, not harmless
    "print(variables[0])",
    "extra = [tf.zeros_like(v) for v in variables]",
    "if variables is None:\n            extra = variables[0]",
    "if not variables:\n            extra = [dy * v for v in variables]",
])
def test_cg107_variables_used_for_its_value_is_reported(body):
    assert _cg107(POSITIONAL_VARIABLE.format(body=body)) == [("CG107", 9, 18)]


def test_cg107_truth_test_does_not_excuse_a_variable_read_by_closure():
    # `v` is read by closure, not passed: the only protocol that would give it a gradient
    # is the one 1.8 lacks, whatever the gradient function does with `variables`.
    code = """
    import tensorflow as tf

    v = tf.get_variable("v", [3])

    @tf.custom_gradient
    def f(x):
        def grad(dy, variables=None):
            {body}
            return dy * v
        return x * v, grad
    """
    for body in ("del variables", "assert not variables", "if variables: pass"):
        assert _cg107(code.format(body=body)) == [("CG107", 8, 18)], body


def test_cg107_a_deleted_required_variables_parameter_is_still_a_type_error():
    code = """
    import tensorflow as tf

    @tf.custom_gradient
    def f(x):
        def grad(dy, variables):
            del variables
            return dy
        return tf.identity(x), grad
    """
    found = engine.lint_text("t.py", textwrap.dedent(code),
                             engine.Options(select=("CG107",))).diagnostics
    assert [(d.line, d.message.split(",")[0]) for d in found] == [
        (6, "gradient function `grad` requires `variables`")]


def test_cg107_a_local_bool_is_not_the_builtin():
    code = POSITIONAL_VARIABLE.format(body="assert bool(variables)").replace(
        "import tensorflow as tf\n", "import tensorflow as tf\nfrom checks import bool\n")
    assert _cg107(code) == [("CG107", 10, 18)]


def test_cg107_a_returned_list_over_variables_or_nothing_is_empty_on_18():
    # `[... for v in (variables or [])]` is `[]` when variables is None: TF 1.8 flattens
    # `(dx, [])` to one gradient (measured). Over `variables` itself it is not excused.
    code = """
    import tensorflow as tf

    @tf.custom_gradient
    def half(x):
        def grad(dy, variables=None):
            return dy * 0.5, [tf.zeros_like(v) for v in (variables or [])]
        return tf.identity(x), grad
    """
    assert _cg107(code) == []
    assert _cg107(code.replace("(variables or [])", "variables")) == [
        ("CG107", 6, 18), ("CG107", 7, 26)]
    assert _cg107(code.replace("(variables or [])", "(variables or [x])")) == [
        ("CG107", 6, 18), ("CG107", 7, 26)]
    # a third operand, or the parameter rebound first: not always empty (measured: Num
    # gradients 3 for the trainable variables)
    assert _cg107(code.replace("(variables or [])", "(variables or tf.trainable_variables() "
                               "or [])")) == [("CG107", 6, 18), ("CG107", 7, 26)]
    assert _cg107(code.replace("return dy * 0.5,", "variables = tf.trainable_variables()\n"
                               "            return dy * 0.5,")) == [
        ("CG107", 6, 18), ("CG107", 8, 26)]


def test_cg107_variables_list_returned_is_still_reported():
    code = POSITIONAL_VARIABLE.format(body="assert not variables").replace(
        "return dy * w, tf.reduce_sum(dy * x, axis=0)",
        "return (dy * w, tf.reduce_sum(dy * x, axis=0)), [dy]")
    assert _cg107(code) == [("CG107", 11, 57)]  # the list, not the parameter


MIX = """
import tensorflow as tf


@tf.custom_gradient
def mix(a, b, alpha):
    def grad(dy):
        return dy * alpha, dy * (1.0 - alpha), {alpha_grad}
    return alpha * a + (1.0 - alpha) * b, grad


a = tf.constant([1.0, 2.0, 3.0])
b = tf.constant([0.0, 1.0, 1.0])
alpha = {made}
g = tf.gradients(tf.reduce_sum(mix(a, b, alpha)), [a, b, alpha])
"""

# Each was checked under TF 1.8 to make a tensor of shape ().
SCALARS = [
    'tf.Variable(initial_value=0.3, name="alpha")',
    'tf.Variable(name="alpha", initial_value=0.3)',
    'tf.get_variable("alpha", initializer=tf.constant(0.3))',
    'tf.get_variable("alpha", initializer=0.3)',
    'tf.get_variable(name="alpha", initializer=tf.constant(0.3), trainable=True)',
    'tf.get_variable("alpha", None, tf.float32, tf.constant(0.3))',
    'tf.get_variable("alpha", initializer=tf.zeros([]))',
    'tf.get_variable("alpha", shape=[], initializer=tf.constant_initializer(0.3))',
    'tf.get_variable("alpha", shape=(), initializer=tf.zeros_initializer())',
    'tf.constant(value=0.3)',
    'tf.constant(0.3, shape=[])',
    'tf.constant(0.3, shape=None)',
    'tf.convert_to_tensor(value=0.3)',
]
# Each was checked under TF 1.8 to make a tensor of shape (3,), or to raise at creation.
NOT_SCALARS = [
    'tf.Variable(initial_value=[0.3, 0.3, 0.3])',
    'tf.Variable(initial_value=tf.zeros([3]))',
    'tf.get_variable("alpha", initializer=tf.constant([0.3, 0.3, 0.3]))',
    'tf.get_variable("alpha", initializer=tf.ones([3]))',
    'tf.get_variable("alpha", [3], initializer=tf.constant_initializer(0.3))',
    'tf.get_variable("alpha", shape=[3], initializer=tf.constant_initializer(0.3))',
    'tf.get_variable("alpha", initializer=tf.constant_initializer(0.3))',  # no shape: raises
    'tf.constant(0.3, shape=[3])',
    'tf.constant(0.3, tf.float32, [3])',
]


@pytest.mark.parametrize("made", SCALARS)
def test_cg111_scalar_made_with_keywords(made):
    code = MIX.format(made=made, alpha_grad="dy * (a - b)")
    assert lint(code, select=["CG111"]) == [("CG111", 8, 48)]


@pytest.mark.parametrize("made", SCALARS)
def test_cg111_scalar_made_with_keywords_reduced_gradient_is_fine(made):
    code = MIX.format(made=made, alpha_grad="tf.reduce_sum(dy * (a - b))")
    assert lint(code, select=["CG111"]) == []


@pytest.mark.parametrize("made", NOT_SCALARS)
def test_cg111_tensors_made_with_keywords_are_not_scalars(made):
    code = MIX.format(made=made, alpha_grad="dy * (a - b)")
    assert lint(code, select=["CG111"]) == []


def test_cg111_keyword_scalar_in_eager_mode_is_fine():
    code = MIX.format(made='tf.Variable(initial_value=0.3, name="alpha")',
                      alpha_grad="dy * (a - b)").replace(
        "import tensorflow as tf\n", "import tensorflow as tf\ntf.enable_eager_execution()\n")
    assert lint(code, select=["CG111"]) == []


LOCAL = """
import tensorflow as tf


@tf.custom_gradient
def prelu(x, alpha):
    def grad(dy):
        {body}
        return dy, dalpha
    return x * alpha, grad


alpha = tf.Variable(0.25)
g = tf.gradients(tf.reduce_sum(prelu(tf.constant([-1.0, 2.0]), alpha)), [alpha])
"""


@pytest.mark.parametrize("body", [
    "dalpha = dy * x",
    "scaled = dy * x; dalpha = -scaled",
    "dalpha = tf.zeros_like(dy)",
])
def test_cg111_gradient_kept_in_a_local_name_first(body):
    # The probe's learnable PReLU slope: TF 1.8 raises "Incompatible shapes between op
    # input and calculated input gradient" for `dalpha = dy * x; return dy, dalpha`.
    assert lint(LOCAL.format(body=body), select=["CG111"]) == [("CG111", 9, 20)]


@pytest.mark.parametrize("body", [
    "dalpha = tf.reduce_sum(dy * x)",
    "dalpha = dy * x; dalpha = tf.reduce_sum(dalpha)",  # bound twice: not followed
    "dalpha = None",
    "from grads import dalpha",
])
def test_cg111_local_name_reduced_or_unknown_is_not_reported(body):
    assert lint(LOCAL.format(body=body), select=["CG111"]) == []


CROSS_MODULE_GRADS = """
import tensorflow as tf


@tf.custom_gradient
def weighted_sum(x, y, weight):
    def grad(dy):
        return dy * weight, dy * (1.0 - weight), dy * (x - y)
    return weight * x + (1.0 - weight) * y, grad
"""


@pytest.mark.parametrize("grads, call, line", [
    (CROSS_MODULE_GRADS, "weighted_sum(x, y, 0.3)", 7),
    # near-misses: the gradient is reduced, the scalar is in a slot whose gradient is
    # fine, every input is a scalar, the output is a scalar
    (CROSS_MODULE_GRADS.replace("dy * (x - y)", "tf.reduce_sum(dy * (x - y))"),
     "weighted_sum(x, y, 0.3)", None),
    (CROSS_MODULE_GRADS.replace("dy * weight,", "tf.reduce_sum(dy * weight),"),
     "weighted_sum(0.5, y, w)", None),
    (CROSS_MODULE_GRADS, "weighted_sum(1.0, 2.0, 0.3)", None),
    (CROSS_MODULE_GRADS.replace("weight * x + (1.0 - weight) * y",
                                "tf.reduce_sum(weight * x + (1.0 - weight) * y)"),
     "weighted_sum(x, y, 0.3)", None),
])
def test_cg111_scalar_passed_to_an_imported_function(tmp_path, grads, call, line):
    (tmp_path / "grads.py").write_text(textwrap.dedent(grads))
    model = tmp_path / "model.py"
    model.write_text(textwrap.dedent("""
        import tensorflow as tf
        from grads import weighted_sum

        x = tf.constant([1.0, 2.0, 3.0])
        y = tf.constant([4.0, 5.0, 6.0])
        w = tf.placeholder(tf.float32, [3])
        out = CALL
    """).replace("CALL", call))
    options = engine.Options(select=("CG111",), target_python=(2, 7))
    result = engine.lint_text(str(model), model.read_text(), options)
    expected = [] if line is None else [("CG111", line + 1)]
    assert [(d.code, d.line) for d in result.diagnostics] == expected


def test_cg111_many_reads_of_chained_local_names_stay_fast():
    # each local name followed once, however often it is read (60 reads of 5 chained
    # names took 11 s)
    import time

    names = ["a", "b", "c", "d", "e"]
    lines = ["        %s = %s" % (name, " + ".join([names[i - 1] if i else "x"] * 60))
             for i, name in enumerate(names)]
    code = LOCAL.replace("        {body}", "\n".join(lines) + "\n        dalpha = e")
    started = time.process_time()
    assert lint(code, select=["CG111"]) == []
    assert time.process_time() - started < 5


@pytest.mark.parametrize("base, reported", [
    # scalar outputs (dy is a scalar): fixtures/CG111/good_scalar_output_of_a_loss.py
    ("tf.losses.mean_squared_error(target, pred)", False),
    ("tf.losses.huber_loss(target, pred)", False),
    ("mse(pred, target)", False),
    ("tf.keras.backend.mean(tf.square(pred - target))", False),
    ("tf.reduce_logsumexp(pred)", False),
    ("tf.global_norm([pred])", False),
    ("tf.to_float(tf.count_nonzero(pred))", False),
    ("tf.tensordot(pred, target, 1)", False),  # a shape cglint does not know: may be one
    # never scalars: elementwise functions of a vector input, a matrix product, a loss
    # left unreduced, a reduction over one axis
    ("tf.nn.relu(pred)", True),
    ("tf.matmul(tf.expand_dims(pred, 0), tf.expand_dims(target, 1))", True),
    ("tf.losses.mean_squared_error(target, pred, reduction=tf.losses.Reduction.NONE)", True),
    ("tf.reduce_sum(tf.stack([pred, target]), axis=0)", True),
    ("tf.cast(pred, tf.float32)", True),
])
def test_cg111_an_output_that_may_be_a_scalar(base, reported):
    code = """
    import tensorflow as tf

    def mse(a, b):
        return tf.reduce_mean(tf.square(a - b))

    @tf.custom_gradient
    def weighted(pred, target, weight):
        base = BASE
        def grad(dy):
            return dy * weight, None, dy * base
        return weight * base, grad

    y = weighted(tf.constant([1.0, 2.0]), tf.zeros([2]), 0.5)
    """.replace("BASE", base)
    assert bool(lint(code, select=["CG111"])) is reported


@pytest.mark.parametrize("made, reported", [
    # fixtures/CG111/bad_one_element_prelu_slope.py fails under TF 1.8
    ('tf.get_variable("alpha", shape=[1])', "the one-element tensor `alpha`"),
    ('tf.get_variable("alpha", (1,))', "the one-element tensor `alpha`"),
    ('tf.placeholder(tf.float32, [1])', "the one-element tensor `alpha`"),
    ('tf.get_variable("alpha", shape=[])', "the scalar `alpha`"),
    # near-misses: per-channel slopes, one element of another kind
    ('tf.get_variable("alpha", shape=[3])', None),
    ('tf.get_variable("alpha", shape=[1, 3])', None),
    ('tf.get_variable("alpha", shape=[1.0])', None),
])
def test_cg111_a_one_element_input(made, reported):
    code = """
    import tensorflow as tf
    alpha = MADE

    @tf.custom_gradient
    def prelu(x, a):
        def grad(dy):
            return dy, dy * tf.minimum(x, 0.0)
        return tf.maximum(x, 0.0) + a * tf.minimum(x, 0.0), grad

    y = prelu(tf.constant([-1.0, 2.0, -3.0]), alpha)
    """.replace("MADE", made)
    found = lint(code, select=["CG111"])
    if reported is None:
        assert found == []
    else:
        from cglint import check, engine
        import textwrap
        result = check.check_text("m.py", textwrap.dedent(code),
                                  engine.Options(select=("CG111",)))
        (finding,) = result.diagnostics
        assert reported in finding.message
        assert ("[1]" in finding.message) is ("one-element" in reported)


@pytest.mark.parametrize("forward", [
    # from the review: each fails under TF 1.8 (Incompatible shapes, () against (3,))
    "out = tf.reshape(alpha * x + (1 - alpha) * y, [-1])",
    "h1 = alpha * x + y\n        h2 = tf.nn.relu(h1)\n        h3 = tf.tanh(h2)\n"
    "        h4 = tf.sigmoid(h3)\n        out = tf.sigmoid(h4)",
    "out = x[1:] * alpha + y[1:]",
    "out = tf.transpose(alpha * x + y)",
    "out = tf.keras.layers.Dense(3)(x) * alpha",
    "out = helper(x) * alpha",  # a function cglint does not follow keeps its shape
])
def test_cg111_outputs_that_keep_a_tensor_inputs_shape(forward):
    code = """
    import tensorflow as tf
    from somewhere import helper

    @tf.custom_gradient
    def weighted(x, y, alpha):
        FORWARD
        def grad(dy):
            return dy * alpha, dy * (1 - alpha), dy * (x - y)
        return out, grad

    z = weighted(tf.ones([3]), tf.zeros([3]), 0.3)
    """.replace("FORWARD", forward)
    assert [c for c, _, _ in lint(code, select=["CG111"])] == ["CG111"]


@pytest.mark.parametrize("body, reported", [
    # from the review: each name followed once (16 reassignments took 86 s)
    ("h = x * alpha\n" + "        h = tf.nn.relu(h)\n" * 10, True),
    ("h = x\n" + "        h = h * alpha\n" * 16, True),
    # shape-keeping functions of a scalar are a scalar: dy is one
    ("s = tf.reduce_sum(x)\n        h = tf.transpose(s * alpha)", False),
    ("s = tf.reduce_sum(x)\n        h = tf.reshape(s * alpha, [])", False),
    ("h = tf.reshape(x * alpha, [-1])", True),
])
def test_cg111_names_assigned_again_and_shape_keeping_functions(body, reported):
    import time

    code = """
    import tensorflow as tf

    @tf.custom_gradient
    def f(x, alpha):
        BODY
        def grad(dy):
            return dy * alpha, dy * x
        return h, grad

    y = f(tf.ones([3]), 0.3)
    """.replace("BODY", body)
    started = time.process_time()
    assert bool(lint(code, select=["CG111"])) is reported
    assert time.process_time() - started < 5


@pytest.mark.parametrize("weight, reported", [
    ("tf.nn.l2_loss(w)", True),  # a scalar tensor input (the review)
    ("tf.reduce_sum(w, **options)", False),  # `options` may hold an axis
])
def test_cg111_scalar_inputs_from_reductions(weight, reported):
    code = """
    import tensorflow as tf
    w = tf.ones([3])
    options = {}

    @tf.custom_gradient
    def weighted(x, y, alpha):
        def grad(dy):
            return dy * alpha, dy * (1 - alpha), dy * (x - y)
        return alpha * x + (1 - alpha) * y, grad

    z = weighted(tf.ones([3]), tf.zeros([3]), WEIGHT)
    """.replace("WEIGHT", weight)
    assert bool(lint(code, select=["CG111"])) is reported


@pytest.mark.parametrize("product", ["a * b", "b * a"])
def test_cg111_a_local_name_is_judged_alike_in_either_operand_order(product):
    # (review) a name first met at the depth bound was remembered as not keeping dy's
    # shape, and the order of operands decided the finding
    code = """
    import tensorflow as tf

    @tf.custom_gradient
    def f(x, alpha):
        def grad(dy):
            b = dy * x
            c3 = b * 2.0
            c2 = c3 * 2.0
            c1 = c2 * 2.0
            a = c1 * 2.0
            return dy * alpha, PRODUCT
        return x * alpha, grad

    y = f(tf.ones([3]), 0.3)
    """.replace("PRODUCT", product)
    assert [c for c, _, _ in lint(code, select=["CG111"])] == ["CG111"]


def test_cg107_iterating_a_defaulted_variables_says_it_is_none():
    # Measured (TF 1.8, py36): `TypeError: 'NoneType' object is not iterable` at
    # tf.gradients, before any count is checked.
    from cglint import engine
    code = ("import tensorflow as tf\nw = tf.Variable([2.0, 3.0])\n\n"
            "@tf.custom_gradient\ndef f(x):\n"
            "    def grad(dy, variables=None):\n"
            "        return dy * w, [dy * x for _ in variables]\n"
            "    return x * w, grad\n")
    found = engine.lint_text("m.py", code, engine.Options(select=("CG107",))).diagnostics
    assert [(d.line, d.col) for d in found] == [(6, 18), (7, 24)]
    assert "'NoneType' object is not iterable" in found[1].message
    # a default that can be iterated: the gradients are extra ones
    iterable = code.replace("variables=None", "variables=(w,)")
    found = engine.lint_text("m.py", iterable, engine.Options(select=("CG107",))).diagnostics
    assert "extra input gradients" in found[-1].message


@pytest.mark.parametrize("returned", [
    "dy * 2.0, []",
    "[dy * 2.0, []]",
    "dy * 2.0, ()",
    "[], dy * 2.0",
    "dy * 2.0, [], []",
    "dy * 2.0, [[]]",  # measured: [2., 2.] on py27 and py36
    "dy * 2.0, [[], ()]",
])
@pytest.mark.parametrize("params", ["dy, variables=None", "dy"])
def test_cg107_an_empty_list_beside_the_gradient_is_no_variable_gradient(returned, params):
    # TF 1.8 flattens the result: `(dx, [])` is one gradient, and runs (measured on py27
    # and py36: [2., 2.]), with or without a `variables` parameter.
    code = """
    import tensorflow as tf

    @tf.custom_gradient
    def scale(x):
        def grad(%s):
            return %s
        return x * 2.0, grad
    """ % (params, returned)
    assert lint(code, select=["CG103", "CG107"]) == []


def test_cg107_a_list_holding_a_gradient_is_still_reported():
    code = """
    import tensorflow as tf

    @tf.custom_gradient
    def scale(x):
        def grad(dy):
            return dy * 2.0, [dy]
        return x * 2.0, grad
    """
    assert lint(code, select=["CG103", "CG107"]) == [("CG107", 7, 26)]


def test_cg103_counts_an_empty_list_beside_the_gradient_as_nothing():
    # two inputs, `return dx, []`: one gradient (measured: Num gradients 2 ... num
    # inputs 3); CG107 no longer takes it, so CG103 counts it
    code = """
    import tensorflow as tf

    @tf.custom_gradient
    def average(a, b):
        def grad(dy, variables=None):
            return dy * 0.5, []
        return (a + b) * 0.5, grad
    """
    assert lint(code, select=["CG103", "CG107"]) == [("CG103", 7, 9)]
    assert lint(code.replace("dy * 0.5, []", "dy * 0.5, [], dy * 0.5"),
                select=["CG103", "CG107"]) == []


GRADIENT_REVERSAL = """
import tensorflow as tf

step = tf.train.get_or_create_global_step()
p = tf.cast(step, tf.float32) / 1000.0
rate = tf.ones([3])


@tf.custom_gradient
def grad_reverse(x, lam):
    def grad(dy):
        return -lam * dy, tf.zeros_like(dy)
    return tf.identity(x), grad


y = grad_reverse(tf.ones([2, 2]), LAM)
"""


@pytest.mark.parametrize("lam, reported", [
    # DANN's schedule of the reversal's weight, from the global step (probe q94, q94b):
    # under TF 1.8 each fails at tf.gradients with `Original input shape: ()`
    ("2.0 / (1.0 + tf.exp(-10.0 * p)) - 1.0", True),
    ("tf.cast(tf.train.get_or_create_global_step(), tf.float32)", True),
    ("tf.to_float(tf.train.get_global_step())", True),
    ("step", True),
    ("tf.train.exponential_decay(0.1, step, 100, 0.9, staircase=True)", True),
    ("tf.train.cosine_decay(learning_rate=0.1, global_step=step, decay_steps=100)", True),
    ("tf.train.piecewise_constant(step, [10, 20], [1.0, 0.5, 0.1])", True),
    ("tf.maximum(p, 0.1)", True),
    ("tf.minimum(1.0, tf.pow(0.9, p, name='decay'))", True),
    ("tf.cast(3, tf.float32)", True),
    ("tf.to_float(tf.size(rate))", True),
    ("tf.nn.leaky_relu(p, alpha=0.2)", True),
    # near-misses: a rate of shape (3,) makes a schedule of that shape (measured), values
    # not shown, elementwise functions of a tensor or of what `*` hides, and Python ints
    # (CG108's): tf.train.global_step runs the session and returns int(...) in TF 1.8
    ("tf.train.exponential_decay(rate, step, 100, 0.9)", False),
    ("tf.train.piecewise_constant(step, [10], values)", False),
    ("tf.maximum(rate, 0.1)", False),
    ("tf.pow(p, rate)", False),
    ("tf.exp(p, *rate)", False),
    ("3", False),
    ("tf.train.global_step(session, step)", False),
])
def test_cg111_a_scalar_derived_from_the_global_step(lam, reported):
    found = lint(GRADIENT_REVERSAL.replace("LAM", lam), select=["CG111"])
    assert (found == [("CG111", 12, 27)]) is reported, found


def test_cg111_a_long_chain_of_additions_is_followed_only_so_deep():
    # Each part of an argument's expression counts toward the depth bound: 1,000 terms
    # are no RecursionError (which the engine would report as CG001, too deeply nested).
    code = GRADIENT_REVERSAL.replace("LAM", " + ".join(["p"] * 1000))
    assert lint(code) == []
    assert lint(GRADIENT_REVERSAL.replace("LAM", " + ".join(["p"] * 4))) == [("CG111", 12, 27)]


def test_cg111_a_reduction_that_keeps_dims_keeps_the_rank():
    # `keepdims=True` leaves shape (1, 1) for a scalar's gradient (probe U, u72: measured
    # `Incompatible shapes ... Original input shape: ().  Calculated ... (1, 1)`); a
    # one-element input of shape [1] may match it, and is left alone.
    code = """
    import tensorflow as tf

    @tf.custom_gradient
    def scale(x, s):
        def grad(dy):
            kept = tf.reduce_mean(dy * x, axis=[0, 1], keep_dims=True)
            return dy * s, {gradient}
        return x * s, grad

    x = tf.ones([2, 3])
    y = scale(x, {weight})
    """
    def found(gradient, weight="tf.constant(3.0)"):
        return lint(code.format(gradient=gradient, weight=weight), select=["CG111"])
    assert found("tf.reduce_sum(dy * x, keepdims=True)") == [("CG111", 8, 24)]
    assert found("kept") == [("CG111", 8, 24)]
    assert found("tf.reduce_sum(dy * x, keepdims=True) * 0.5") == [("CG111", 8, 24)]
    assert found("-kept") == [("CG111", 8, 24)]
    assert found("tf.reduce_sum(dy * x, keepdims=False)") == []
    assert found("tf.reduce_sum(dy * x)") == []
    assert found("tf.reduce_sum(x, keepdims=True)") == []  # no upstream gradient in it
    assert found("tf.reduce_sum(dy * x, keepdims=True)",
                 "tf.get_variable('s', [1])") == []
    # the message names the keyword as written (probe Y, i06)
    message = engine.lint_text("t.py", textwrap.dedent(code.format(
        gradient="kept", weight="tf.constant(3.0)")),
        engine.Options(select=("CG111",))).diagnostics[0].message
    assert "(`keep_dims=True`)" in message and "without `keep_dims`" in message
