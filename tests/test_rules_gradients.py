"""CG101-CG110 on code written the way users write custom gradients, and near-misses."""
import textwrap

import pytest

from cglint import check, engine
from conftest import codes, lint


def test_cg101_variable_created_inside_each_creator():
    code = """
    import tensorflow as tf
    from tensorflow.contrib import layers

    @tf.custom_gradient
    def f(x):
        w = tf.Variable(1.0)
        v = tf.get_variable("v", [1])
        h = tf.layers.dense(x, 3)
        k = tf.keras.layers.Dense(3)(x)
        m = layers.fully_connected(x, 3)
        def grad(dy):
            return dy
        return x * w * v + h + k + m, grad
    """
    assert lint(code, select=["CG101"]) == [
        ("CG101", 7, 9), ("CG101", 8, 9), ("CG101", 9, 9), ("CG101", 10, 9), ("CG101", 11, 9)]


def test_cg101_near_misses():
    code = """
    import tensorflow as tf

    w = tf.get_variable("w", [1])

    @tf.custom_gradient
    def f(x, w):
        act = tf.keras.layers.Activation("relu")(x)
        init = tf.contrib.layers.xavier_initializer()
        def grad(dy):
            tmp = tf.Variable(0.0)  # inside the grad fn, not the forward pass
            return dy, dy
        return act * w, grad

    def not_custom(x):
        return tf.Variable(x)
    """
    assert codes(code, select=["CG101"]) == []


@pytest.mark.parametrize("made, reported", [
    ('tf.Variable(0.0, trainable=False)', False),  # a new one each run: nothing fails
    ('tf.layers.dense(x, 4, trainable=False)', False),  # dense, then dense_1
    ('tf.get_variable("n", [], trainable=False)', True),  # the second run raises
    ('tf.get_local_variable("n", [])', True),
    ('tf.get_variable("n", [])', True),  # trainable: a None gradient
])
def test_cg101_variables_no_optimizer_trains(made, reported):
    code = """
    import tensorflow as tf

    @tf.custom_gradient
    def f(x):
        total = MADE
        def grad(dy):
            return tf.identity(dy)
        return tf.identity(x), grad
    """.replace("MADE", made)
    assert (codes(code, select=["CG101"]) == ["CG101"]) is reported
    if reported and "trainable=False" in made:
        options = engine.Options(select=("CG101",))
        result = check.check_alone("snippet.py", textwrap.dedent(code), options)
        assert "already exists" in result.diagnostics[0].message
    reused = code.replace("        total", "        with tf.variable_scope(\"s\", "
                          "reuse=tf.AUTO_REUSE):\n            total")
    assert (codes(reused, select=["CG101"]) == ["CG101"]) is (made == 'tf.get_variable("n", [])')
    eager = code.replace("import tensorflow as tf\n", "import tensorflow as tf\n"
                         "    tf.enable_eager_execution()\n")
    # under eager execution tf.Variable raises RuntimeError, and a trainable one gets no
    # gradient; a non-trainable get_variable runs twice (checked under TF 1.8)
    expected = made.startswith("tf.Variable") or made == 'tf.get_variable("n", [])'
    assert (codes(eager, select=["CG101"]) == ["CG101"]) is expected


@pytest.mark.parametrize("held, read, reported", [
    ("{'h1': tf.Variable(tf.ones([3, 2])), 'b1': 0.5}", "weights['h1']", True),
    ("[tf.get_variable('w0', [3, 2]), tf.Variable(1.0)]", "weights[0]", True),
    ("[tf.get_variable('w0', [3, 2]), tf.Variable(1.0)]", "weights[-1]", True),
    ("{'a': tf.Variable(1.0), 'b': tf.Variable(2.0)}", "weights[key]", True),
    # near-misses: not a variable there, a slice, a key it does not hold, a non-trainable
    # one, a description of it
    ("{'h1': tf.Variable(tf.ones([3, 2])), 'b1': 0.5}", "weights['b1']", False),
    ("{'a': tf.Variable(1.0), 'b': 2.0}", "weights[key]", False),
    ("[tf.Variable(1.0), tf.Variable(2.0)]", "weights[0:1]", False),
    ("{'h1': tf.Variable(1.0)}", "weights['h2']", False),
    ("{'h1': tf.Variable(1.0, trainable=False)}", "weights['h1']", False),
    ("{'h1': tf.Variable(tf.ones([3]))}", "weights['h1'].shape[0]", False),
])
def test_cg102_a_variable_kept_in_a_dict_or_list(held, read, reported):
    code = """
    import tensorflow as tf

    weights = HELD
    key = 'a'

    @tf.custom_gradient
    def f(x):
        def grad(dy):
            return dy
        return x * READ, grad
    """.replace("HELD", held).replace("READ", read)
    assert (lint(code, select=["CG102"]) == [("CG102", 11, 16)]) is reported
    passed_in = code.replace("def f(x):", "def f(x, weights):")
    assert lint(passed_in, select=["CG102"]) == []
    rebound = code.replace("key = 'a'", "weights = {}")
    assert lint(rebound, select=["CG102"]) == []


PASSED_AND_READ = """
import tensorflow as tf

w = tf.get_variable("w", initializer=tf.constant([1.0, 2.0]))
v = tf.get_variable("v", initializer=tf.constant([1.0, 2.0]))


@tf.custom_gradient
def weighted(x, weight):
    def grad(dy):
        return dy * weight, dy * x
    return x * w, grad


x = tf.constant([3.0, 4.0])
CALLS
"""


@pytest.mark.parametrize("calls, reported", [
    # The probe's program: `w` is passed in too, and its gradient comes through that slot
    # (TF 1.8 gives [3, 4]), though the body reads the module's name, not its parameter.
    ("y = weighted(x, w)", False),
    ("y = weighted(x, w) + weighted(2.0 * x, w)", False),
    # near-misses: a call that passes another variable, or none at all
    ("y = weighted(x, w) + weighted(x, v)", True),
    ("", True),
])
def test_cg102_a_variable_every_call_also_passes_in(calls, reported):
    found = lint(PASSED_AND_READ.replace("CALLS", calls), select=["CG102"])
    assert (found == [("CG102", 12, 16)]) is reported


def test_cg102_closure_read_reported_once_at_first_read():
    code = """
    import tensorflow as tf

    w = tf.Variable([1.0, 2.0], name="w")
    dense = tf.layers.Dense(2)

    @tf.custom_gradient
    def f(x):
        y = x * w + w
        z = dense(y)
        def grad(dy):
            return dy * w
        return z, grad
    """
    assert lint(code, select=["CG102"]) == [("CG102", 9, 13), ("CG102", 10, 9)]


def test_cg102_near_misses_argument_local_and_constants():
    code = """
    import tensorflow as tf

    w = tf.Variable(1.0)
    scale = 3.0
    c = tf.constant(2.0)

    @tf.custom_gradient
    def f(x, w):
        y = x * w * scale * c
        def grad(dy):
            return dy * w, dy
        return y, grad

    def g(x):
        w = tf.Variable(2.0)
        @tf.custom_gradient
        def inner(x, w):
            return x * w, lambda dy: (dy, dy)
        return inner(x, w)
    """
    assert codes(code, select=["CG102"]) == []


def test_cg103_too_many_and_too_few():
    code = """
    import tensorflow as tf

    @tf.custom_gradient
    def one(x):
        def grad(dy):
            return dy, dy
        return tf.identity(x), grad

    @tf.custom_gradient
    def three(a, b, c):
        def grad(dy):
            if True:
                return dy, dy
            return dy, dy, dy
        return a + b + c, grad
    """
    assert lint(code, select=["CG103"]) == [("CG103", 7, 9), ("CG103", 14, 13)]


def test_cg103_module_level_grad_fn_and_lambda():
    code = """
    import tensorflow as tf

    def back(dy):
        return [dy, dy, dy]

    @tf.custom_gradient
    def mix(x, y):
        return x * y, back

    @tf.custom_gradient
    def sq(x, y):
        return x * x, lambda dy: dy
    """
    assert lint(code, select=["CG103"]) == [("CG103", 5, 5), ("CG103", 13, 30)]


def test_cg103_near_misses_flattening_none_and_unknowns():
    code = """
    import tensorflow as tf

    @tf.custom_gradient
    def a(x, y):
        def grad(dy):
            return [dy, None]
        return x + y, grad

    @tf.custom_gradient
    def b(x, y):
        def grad(dy):
            return ((dy, dy),)
        return x + y, grad

    @tf.custom_gradient
    def c(x, y):
        def grad(dy):
            grads = [dy]
            grads.append(dy)
            return grads
        return x + y, grad

    @tf.custom_gradient
    def d(*xs):
        return xs[0], lambda dy: dy

    @tf.custom_gradient
    def e(x, y):
        def grad(dy):
            return tf.gradients(x * y, [x, y], grad_ys=dy)
        return x * y, grad

    @tf.custom_gradient
    def f(x):
        return tf.identity(x), lambda dy: None
    """
    assert codes(code, select=["CG103"]) == []


def test_cg103_positional_float_at_call_in_graph_mode_only():
    bad = """
    import tensorflow as tf

    @tf.custom_gradient
    def scaled(x, scale=2.0):
        def grad(dy):
            return dy * scale
        return x * scale, grad

    y1 = scaled(tf.constant(1.0))
    y2 = scaled(tf.constant(1.0), 3.0)
    """
    assert lint(bad, select=["CG103"]) == [("CG103", 11, 6)]
    eager = "import tensorflow as tf\ntf.enable_eager_execution()\n" + bad.replace("\n    ", "\n")
    assert codes(eager, select=["CG103"]) == []


def test_cg104_grad_parameters_vs_outputs():
    code = """
    import tensorflow as tf

    @tf.custom_gradient
    def pair(x):
        def grad(dy):
            return dy
        return (x, x * 2.0), grad

    @tf.custom_gradient
    def single(x):
        def grad(dy1, dy2):
            return dy1
        return x * 2.0, grad

    @tf.custom_gradient
    def zero(x):
        def grad():
            return None
        return x * 2.0, grad
    """
    assert lint(code, select=["CG104"]) == [("CG104", 6, 5), ("CG104", 12, 5), ("CG104", 18, 5)]


def test_cg104_near_misses():
    code = """
    import tensorflow as tf

    @tf.custom_gradient
    def pair(x):
        def grad(*dys):
            return dys[0]
        return [x, x * 2.0], grad

    @tf.custom_gradient
    def pair2(x):
        def grad(dy1, dy2):
            return dy1 + dy2
        return (x, x * 2.0), grad

    @tf.custom_gradient
    def split(x):
        def grad(dy):
            return dy
        return tf.split(x, PARTS), grad

    @tf.custom_gradient
    def single(x):
        def grad(dy, variables=None):
            return dy
        return tf.sign(x), grad
    """
    # PARTS may be 1: a split into a number not written there is not counted (into 2, it
    # is two outputs, and 1.8 raises TypeError: grad() takes 1 positional argument).
    assert codes(code, select=["CG104"]) == []
    assert codes(code.replace("PARTS", "2"), select=["CG104"]) == ["CG104"]


def test_cg105_keywords_graph_only():
    code = """
    import tensorflow as tf

    @tf.custom_gradient
    def f(x, scale=2.0):
        return x * scale, lambda dy: dy

    opts = {"scale": 3.0}
    a = f(tf.ones([2]), scale=3.0)
    b = f(tf.ones([2]), **opts)
    c = f(tf.ones([2]))
    d = max(1, key=None)
    """
    assert lint(code, select=["CG105"]) == [("CG105", 9, 5), ("CG105", 10, 5)]
    eager = code.replace("import tensorflow as tf\n", "import tensorflow as tf\n"
                         "    tf.enable_eager_execution()\n")
    assert codes(eager, select=["CG105"]) == []



def test_cg105_under_eager_only_what_tf_traces_into_a_graph_is_reported():
    # Eager execution takes keywords, but `tfe.defun` and a dataset's `.map`/`.filter`
    # trace their function into a graph. Definitions (a keyword-only parameter) are fine
    # under eager, and so are calls outside those functions, an `if
    # tf.executing_eagerly():` branch inside one, and `.map` of something not a dataset.
    code = """
    import tensorflow as tf
    tfe = tf.contrib.eager
    tf.enable_eager_execution()

    @tf.custom_gradient
    def f(x, *, scale=2.0):
        return x * scale, lambda dy: dy

    @tfe.defun
    def traced(x):
        return f(x, scale=3.0)

    def eager_only(x):
        return f(x, scale=3.0)

    def each(row):
        return f(row, scale=3.0)

    def checked(row):
        if tf.executing_eagerly():
            return f(row, scale=3.0)
        return row

    ds = tf.data.TFRecordDataset(["a"]).map(each).map(checked)
    other = tfe.defun(lambda x: f(x, scale=1.0))
    items = Pool().map(lambda x: f(x, scale=1.0))
    """
    assert lint(code, select=["CG105"], target_python=(3, 6)) == [
        ("CG105", 12, 12), ("CG105", 18, 12), ("CG105", 26, 29)]


def test_cg105_call_form_only_calls_through_the_wrapper():
    code = """
    import tensorflow as tf

    def f(x, scale=2.0):
        return x * scale, lambda dy: dy

    h = tf.custom_gradient(f)
    plain = f(1.0, scale=2.0)
    y = h(tf.ones([2]), scale=3.0)
    """
    assert lint(code, select=["CG105"]) == [("CG105", 9, 5)]


def test_cg106_return_shapes():
    code = """
    import tensorflow as tf

    @tf.custom_gradient
    def only(x):
        y = tf.nn.relu(x)
        def grad(dy):
            return dy
        return y

    @tf.custom_gradient
    def swapped(x):
        def grad(dy):
            return dy
        return grad, x * 2.0

    @tf.custom_gradient
    def called(x):
        def grad(dy):
            return dy
        y = x * 2.0
        return y, grad(y)

    @tf.custom_gradient
    def three(x):
        return x, lambda dy: dy, 1

    @tf.custom_gradient
    def nothing(x):
        y = x * 2.0

    @tf.custom_gradient
    def none_grad(x):
        return x * 2.0, None
    """
    assert lint(code, select=["CG106"]) == [
        ("CG106", 9, 5), ("CG106", 15, 5), ("CG106", 22, 5), ("CG106", 26, 5), ("CG106", 29, 1),
        ("CG106", 34, 5)]


def test_cg106_near_misses():
    code = """
    import tensorflow as tf

    @tf.custom_gradient
    def as_list(x):
        def grad(dy):
            return dy
        return [x * 2.0, grad]

    @tf.custom_gradient
    def via_name(x):
        def grad(dy):
            return dy
        result = (x * 2.0, grad)
        return result

    @tf.custom_gradient
    def via_helper(x):
        return make_pair(x)

    @tf.custom_gradient
    def raises(x):
        raise NotImplementedError
    """
    assert codes(code, select=["CG106"]) == []


def test_cg106_a_factory_of_any_kind_is_not_a_called_gradient_function():
    # made under TF 1.8: fixtures/CG106/good_grad_from_factory_of_lambdas.py
    code = """
    import functools
    import tensorflow as tf

    def make_partial(b):
        return functools.partial(lambda bound, dy: dy * bound, b)

    def ident(dy):
        return dy

    def factory(c):
        g = make_partial(c)
        return g if c else ident

    def outer(c):
        return factory(c)

    def recursive(n):
        return recursive(n - 1) if n else (lambda dy: dy)

    def helper_grad(dy):
        return dy * 2.0

    @tf.custom_gradient
    def through_factories(x):
        return tf.identity(x), outer(0.5)

    @tf.custom_gradient
    def through_recursion(x):
        return tf.identity(x), recursive(3)

    @tf.custom_gradient
    def called_module_grad(x):
        y = tf.identity(x)
        return y, helper_grad(y)

    @tf.custom_gradient
    def called_identity_grad(x):
        def grad(dy):
            return dy
        y = tf.identity(x)
        return y, grad(y)
    """
    assert [line for _, line, _ in lint(code, select=["CG106"])] == [35, 42]


def test_a_gradient_function_made_by_a_factory_is_checked_like_any_other():
    code = """
    import tensorflow as tf

    def make_clip(limit):
        def grad(dy):
            return tf.clip_by_value(dy, -limit, limit)
        return grad

    def make_pair_grad():
        return lambda dy: (dy, dy)

    def scale(dy):
        return 2.0 * dy

    @tf.custom_gradient
    def clip_grad(x):
        return tf.identity(x), make_clip(0.5)

    @tf.custom_gradient
    def split(x):
        return [2.0 * x, 3.0 * x], make_clip(1.0)

    @tf.custom_gradient
    def one_input(x):
        return tf.identity(x), make_pair_grad()

    @tf.custom_gradient
    def called(x):
        return tf.identity(x), scale(x)
    """
    # A factory's call hands back the gradient function: its parameters and returns are
    # the ones checked. Calling a function that returns tensors is still CG106.
    assert lint(code) == [("CG104", 5, 5), ("CG103", 10, 23), ("CG106", 29, 5)]


def test_cg107_variables_parameter_and_list_return():
    code = """
    import tensorflow as tf

    @tf.custom_gradient
    def f(x):
        w = tf.get_variable("w", [])
        def grad(dy, variables=None):
            return dy * w, [dy * x]
        return x * w, grad
    """
    assert lint(code, select=["CG103", "CG107"]) == [("CG107", 7, 18), ("CG107", 8, 24)]


def test_cg108_argument_kinds():
    code = """
    import tensorflow as tf

    @tf.custom_gradient
    def f(x, opt):
        return x, lambda dy: (dy, None)

    a = f(tf.ones([2]), None)
    b = f(tf.ones([2]), "fast")
    c = f(tf.ones([2]), tf.nn.relu)
    d = f(tf.ones([2]), {"k": 1})
    e = f([tf.ones([2]), tf.ones([2])], 3)
    g = f(tf.ones([2]), True)
    h = f(tf.ones([2]), 0.5)
    """
    # `e` is fine: the stacked list is returned as the one tensor it is, with a gradient,
    # and the int is never used; so is `b`: a string tensor the function never reads.
    assert lint(code, select=["CG108"]) == [
        ("CG108", 8, 21), ("CG108", 10, 21), ("CG108", 11, 21), ("CG108", 13, 21)]
    used = code.replace("return x, lambda", "return (x if opt == 'fast' else -x), lambda")
    assert ("CG108", 9, 21) in lint(used, select=["CG108"])
    # where TF wants a Python string (measured: `Expected string for argument 'padding'`,
    # and `name=` and a tested tf.equal raise the tensor-as-bool TypeError)
    for use in ("tf.identity(x, name=opt)", "tf.nn.conv1d(x, x, 1, padding=opt)",
                "x if tf.equal(opt, 'a') else x", "tf.identity(x) if tf.equal(opt, 'a') else x"):
        wrong = code.replace("return x, lambda", "return %s, lambda" % use)
        assert ("CG108", 9, 21) in lint(wrong, select=["CG108"]), use
    right = code.replace("return x, lambda", "return tf.where(tf.equal(opt, 'a'), x, -x), lambda")
    assert ("CG108", 9, 21) not in lint(right, select=["CG108"])
    eager = code.replace("import tensorflow as tf\n", "import tensorflow as tf\n"
                         "    tf.enable_eager_execution()\n")
    # Eager passes raw values: only None, callables and dicts still fail.
    assert lint(eager, select=["CG108"]) == [
        ("CG108", 9, 21), ("CG108", 11, 21), ("CG108", 12, 21)]


def test_cg108_methods_but_not_staticmethods():
    code = """
    import tensorflow as tf

    class Scaler(object):
        @tf.custom_gradient
        def apply(self, x):
            return x * 2.0, lambda dy: dy * 2.0

        @staticmethod
        @tf.custom_gradient
        def fine(x):
            return x * 2.0, lambda dy: dy * 2.0
    """
    assert lint(code, select=["CG108"]) == [("CG108", 6, 5)]


def test_cg109_tape_in_graph_mode():
    code = """
    import tensorflow as tf

    @tf.custom_gradient
    def f(x):
        return x * 2.0, lambda dy: dy * 7.0

    x = tf.constant(1.0)
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = f(x)
    """
    assert lint(code, select=["CG109"]) == [("CG109", 9, 6)]
    eager = code.replace("import tensorflow as tf\n", "import tensorflow as tf\n"
                         "    tf.enable_eager_execution()\n")
    assert codes(eager, select=["CG109"]) == []
    no_custom = "import tensorflow as tf\nwith tf.GradientTape() as t:\n    pass\n"
    assert codes(no_custom) == []


def test_cg109_only_tapes_whose_block_may_run_a_custom_gradient():
    code = """
    import tensorflow as tf

    @tf.custom_gradient
    def st_round(x):
        return tf.round(x), lambda dy: dy

    def model(x):
        return st_round(x) * 2.0

    def loss(x):
        return tf.reduce_sum(x * x)

    x = tf.constant([0.4, 1.6])
    with tf.GradientTape() as unrelated:
        unrelated.watch(x)
        l2 = loss(x) + float(len([1]))
    with tf.GradientTape() as through_helper:
        through_helper.watch(x)
        y = model(x)
    with tf.GradientTape() as mapped:
        mapped.watch(x)
        z = tf.map_fn(st_round, x)
    with tf.GradientTape() as unknown:
        unknown.watch(x)
        u = some_module.forward(x)
    tape = tf.GradientTape()
    """
    # The first block runs TF ops, a helper of TF ops and builtins: nothing to ignore.
    assert lint(code, select=["CG109"]) == [("CG109", 18, 6), ("CG109", 21, 6),
                                            ("CG109", 24, 6), ("CG109", 27, 8)]


def test_cg110_numbers_as_gradients():
    code = """
    import tensorflow as tf

    @tf.custom_gradient
    def f(x, y):
        def grad(dy):
            return dy, -1.0
        return x + y, grad

    @tf.custom_gradient
    def g(x, flag):
        def grad(dy):
            return dy, None
        return x, grad
    """
    assert lint(code, select=["CG110"]) == [("CG110", 7, 20)]


def test_aliases_and_decorator_forms_all_found():
    code = """
    import tensorflow
    import tensorflow.contrib.eager as tfe
    from tensorflow import custom_gradient as cg
    import tensorflow as T

    @tensorflow.custom_gradient
    def a(x):
        return x, lambda dy: (dy, dy)

    @tfe.custom_gradient
    def b(x):
        return x, lambda dy: (dy, dy)

    @cg
    def c(x):
        return x, lambda dy: (dy, dy)

    @T.contrib.eager.custom_gradient
    def d(x):
        return x, lambda dy: (dy, dy)
    """
    assert [f[1] for f in lint(code, select=["CG103"])] == [9, 13, 17, 21]


def test_not_tensorflow_means_no_findings():
    code = """
    import numpy as tf

    def custom_gradient(f):
        return f

    @tf.custom_gradient
    def a(x):
        return x, lambda dy: (dy, dy)

    @custom_gradient
    def b(x):
        v = tf.Variable(1)
        return x
    """
    assert codes(code) == []


def test_python2_file_gets_the_same_findings_as_its_python3_twin():
    py3 = """
    import tensorflow as tf

    @tf.custom_gradient
    def f(x):
        print("forward", x)
        def grad(dy):
            print("backward")
            return dy, dy
        return x * 2.0, grad
    """
    py2 = py3.replace('print("forward", x)', 'print "forward", x').replace(
        'print("backward")', 'print >>sys.stderr, "backward"')
    assert lint(py2) == lint(py3) == [("CG103", 9, 9)]


def test_python2_columns_are_mapped_back_to_the_original_line():
    code = """
    import tensorflow as tf

    @tf.custom_gradient
    def f(x):
        def grad(dy):
            print "g"; return dy, dy
        return x, grad
    """
    assert lint(code, select=["CG103"]) == [("CG103", 7, 20)]


WEIGHTED_SUM = """
import tensorflow as tf

@tf.custom_gradient
def weighted_sum(x, y, weight):
    forward_output = x * weight + y * (1 - weight)

    def grad(dy):
        return dy * weight, dy * (1 - weight), dy * (x - y)

    return forward_output, grad

x = tf.constant([1.0, 2.0, 3.0])
y = tf.constant([4.0, 5.0, 6.0])
out = weighted_sum(x, y, 0.3)
"""


def test_cg111_the_seed_weighted_sum():
    assert lint(WEIGHTED_SUM) == [("CG111", 9, 48)]
    constant = WEIGHTED_SUM.replace("weighted_sum(x, y, 0.3)", "weighted_sum(x, y, tf.constant(0.3))")
    assert lint(constant) == [("CG111", 9, 48)]


def test_cg111_near_misses():
    reduced = WEIGHTED_SUM.replace("dy * (x - y)", "tf.reduce_sum(dy * (x - y))")
    all_scalars = WEIGHTED_SUM.replace("weighted_sum(x, y, 0.3)", "weighted_sum(1.0, 2.0, 0.3)")
    tensor_weight = WEIGHTED_SUM.replace("weighted_sum(x, y, 0.3)", "weighted_sum(x, y, w)")
    eager = WEIGHTED_SUM.replace("import tensorflow as tf\n",
                                 "import tensorflow as tf\ntf.enable_eager_execution()\n")
    for code in (reduced, all_scalars, tensor_weight, eager):
        assert codes(code, select=["CG111"]) == []


def test_columns_count_characters_not_utf8_bytes():
    code = """
    import tensorflow as tf

    @tf.custom_gradient
    def f(x):
        def grad(dy):
            s = "ü"; return dy, dy
        return x, grad
    """
    assert lint(code, select=["CG103"]) == [("CG103", 7, 18)]


def test_cg103_compat_v1_multi_output_calls_are_not_one_gradient():
    # tensor2tensor's shake-shake: a Defun grad_func returning `tf.gradients(...)` reached
    # through `tensorflow.compat.v1` (a list, one gradient per input) works in TF 1.8.
    clean = """
        import tensorflow.compat.v1 as tf
        from tensorflow.python.framework import function

        @function.Defun()
        def pair_grad(x1, x2, dy):
            y = x1 * 0.5 + x2 * 0.5
            dx = tf.gradients(ys=[y], xs=[x1, x2], grad_ys=[dy])
            return dx

        @function.Defun(grad_func=pair_grad)
        def pair(x1, x2):
            return x1 * 0.3 + x2 * 0.7

        @tf.custom_gradient
        def halves(a, b):
            def grad(dy):
                return tf.split(dy, 2)
            return a + b, grad
    """
    assert lint(clean, select=("CG103",)) == []
    near_miss = """
        import tensorflow.compat.v1 as tf
        from tensorflow.python.framework import function

        @function.Defun()
        def pair_grad(x1, x2, dy):
            return tf.identity(dy)

        @function.Defun(grad_func=pair_grad)
        def pair(x1, x2):
            return x1 * 0.3 + x2 * 0.7
    """
    assert codes(near_miss, select=("CG103",)) == ["CG103"]


def test_cg103_helper_parameters_count_as_the_arguments_passed():
    # A helper's parameter is whatever its caller passed: a list of two gradients handed to
    # `_pack(grads): return grads` is two gradients (TF 1.8 runs both: verified).
    clean = """
        import tensorflow as tf

        def _pack(grads):
            return grads

        def _join(a, b):
            return a + b

        @tf.custom_gradient
        def f(a, b):
            def grad(dy):
                return _pack([dy, dy])
            return a + b, grad

        @tf.custom_gradient
        def g(a, b):
            def grad(dy):
                return _join([dy], [dy])
            return a + b, grad
    """
    assert lint(clean, select=("CG103",)) == []
    near_miss = """
        import tensorflow as tf

        def _pack(grads):
            return grads

        def _scaled(dy, k):
            return (dy * k,)

        @tf.custom_gradient
        def f(a, b):
            def grad(dy):
                return _pack(dy)
            return a + b, grad

        @tf.custom_gradient
        def g(a, b):
            def grad(dy):
                return _scaled(dy, k=2.0)
            return a + b, grad
    """
    assert [c for c, _, _ in lint(near_miss, select=("CG103",))] == ["CG103", "CG103"]


def test_cg105_kwargs_reads_guarded_by_membership_are_optional():
    # `kwargs["factor"]` under `if "factor" in kwargs` never runs in graph mode: the
    # function works there (TF 1.8 py2.7 and py3.6: verified), so nothing is reported.
    clean = """
        import tensorflow as tf

        @tf.custom_gradient
        def scale(x, **kwargs):
            if "factor" in kwargs:
                f = kwargs["factor"]
            else:
                f = 2.0
            def grad(dy):
                return dy * f
            return x * f, grad

        @tf.custom_gradient
        def scale2(x, **kwargs):
            f = kwargs["factor"] if "factor" in kwargs else 2.0
            def grad(dy):
                return dy * f
            return x * f, grad

        @tf.custom_gradient
        def scale3(x, **kwargs):
            kwargs.setdefault("factor", 2.0)
            f = kwargs["factor"]
            def grad(dy):
                return dy * f
            return x * f, grad

        @tf.custom_gradient
        def scale6(x, **kwargs):
            f = kwargs["factor"] if kwargs.get("factor") else 2.0
            if kwargs.has_key("bias"):
                f = f + kwargs["bias"]
            def grad(dy):
                return dy * f
            return x * f, grad

        @tf.custom_gradient
        def scale5(x, **kwargs):
            for key in kwargs:
                x = x * kwargs[key]
            def grad(dy):
                return dy
            return x, grad

        @tf.custom_gradient
        def scale4(x, **kwargs):
            try:
                f = kwargs["factor"]
            except KeyError:
                f = 2.0
            def grad(dy):
                return dy * f
            return x * f, grad
    """
    assert lint(clean, select=("CG105",)) == []
    near_miss = """
        import tensorflow as tf

        @tf.custom_gradient
        def scale(x, **kwargs):
            if "other" in kwargs:
                pass
            f = kwargs["factor"]
            g = kwargs.pop("g")
            def grad(dy):
                return dy * f * g
            return x * f, grad
    """
    assert lint(near_miss, select=("CG105",)) == [("CG105", 8, 9), ("CG105", 9, 9)]


def test_cg102_shape_and_dtype_of_a_variable_are_not_reads():
    # `self.w.shape` / `w.dtype` inside the function read no value: the variable passed as
    # an input trains (TF 1.8 py2.7 and py3.6: d/dw is not None, verified).
    clean = """
        import tensorflow as tf

        v = tf.get_variable("v", [2])

        class Layer(object):
            def __init__(self):
                self.w = tf.get_variable("w", [])

            def __call__(self, x):
                @tf.custom_gradient
                def f(x, w_in):
                    n = self.w.get_shape().ndims
                    dt = self.w.dtype
                    k = tf.zeros(v.shape, dtype=v.dtype)
                    def grad(dy):
                        return dy * w_in, dy * x
                    return x * w_in, grad
                return f(x, self.w)
    """
    assert lint(clean, select=("CG102",)) == []
    # (a call that passes `self.w` itself gets w's gradient through that slot, whatever
    # the body reads: the near-miss passes another tensor)
    near_miss = clean.replace("dt = self.w.dtype", "dt = self.w * 2.0").replace(
        "return f(x, self.w)", "return f(x, tf.identity(self.w))")
    assert lint(near_miss, select=("CG102",)) == [("CG102", 14, 18)]


def test_cg103_decorated_helpers_are_not_followed_static_methods_are():
    # A decorator may change what a helper returns (`with_none` adds a slot: TF 1.8 runs
    # it, verified); a staticmethod called through self binds no self.
    clean = """
        import tensorflow as tf

        def with_none(fn):
            def wrapped(*args):
                return fn(*args), None
            return wrapped

        @with_none
        def _grad_x(dy, y):
            return dy * y

        @tf.custom_gradient
        def mul(x, y):
            def grad(dy):
                return _grad_x(dy, y)
            return x * y, grad
    """
    assert lint(clean, select=("CG103",)) == []
    near_miss = """
        import tensorflow as tf

        class Mul(object):
            @staticmethod
            def _grads(dy, x, y):
                return (dy * y,)

            def __call__(self, x, y):
                @tf.custom_gradient
                def mul(x, y):
                    def grad(dy):
                        return self._grads(dy, x, y)
                    return x * y, grad
                return mul(x, y)
    """
    assert lint(near_miss, select=("CG103",)) == [("CG103", 13, 17)]


def test_cg102_variables_no_optimizer_trains_may_be_read_by_closure():
    # A moving average kept in `trainable=False` (or a local) variable needs no gradient:
    # reading it by closure loses nothing.
    clean = """
        import tensorflow as tf

        steps = tf.get_local_variable("steps", [], initializer=tf.zeros_initializer())

        class Norm(object):
            def __init__(self):
                self.mean = tf.get_variable("mean", [2], trainable=False)

            def __call__(self, x):
                mean = self.mean

                @tf.custom_gradient
                def f(x):
                    def grad(dy):
                        return dy
                    return x - mean - self.mean + steps, grad
                return f(x)
    """
    assert lint(clean, select=("CG102",)) == []
    near_miss = clean.replace("trainable=False", "trainable=True")
    assert lint(near_miss, select=("CG102",)) == [("CG102", 17, 24), ("CG102", 17, 31)]


def test_cg103_self_method_overridden_by_a_subclass_is_not_followed():
    # `self._grads` may run the subclass's: Mul()(a, b) works in TF 1.8 (verified).
    clean = """
        import tensorflow as tf

        class Base(object):
            def _grads(self, dy, x, y):
                return (dy,)

            def __call__(self, x, y):
                @tf.custom_gradient
                def mul(x, y):
                    def grad(dy):
                        return self._grads(dy, x, y)
                    return x * y, grad
                return mul(x, y)

        class Mul(Base):
            def _grads(self, dy, x, y):
                return dy * y, dy * x
    """
    assert lint(clean, select=("CG103",)) == []
    near_miss = clean.replace("class Mul(Base):\n            def _grads",
                              "class Mul(Base):\n            def _other")
    assert near_miss != clean
    assert lint(near_miss, select=("CG103",)) == [("CG103", 12, 17)]


def test_cg105_imported_name_rebound_after_the_def_is_not_a_site(tmp_path):
    # ops.scale is rebound to a plain wrapper that takes `factor`: the importer's keyword
    # call works in TF 1.8 (verified); a def per branch is as unknown.
    (tmp_path / "ops.py").write_text(textwrap.dedent("""
        import tensorflow as tf

        def _with_factor(fn):
            def wrapped(x, factor=1.0):
                return fn(x) * factor
            return wrapped

        @tf.custom_gradient
        def scale(x):
            def grad(dy):
                return dy * 2.0
            return x * 2.0, grad

        scale = _with_factor(scale)

        if tf.__version__ < "1.7":
            def twice(x, factor=2.0):
                return x * factor
        else:
            @tf.custom_gradient
            def twice(x):
                def grad(dy):
                    return dy * 2.0
                return x * 2.0, grad

        @tf.custom_gradient
        def thrice(x):
            def grad(dy):
                return dy * 3.0
            return x * 3.0, grad
    """))
    model = tmp_path / "model.py"
    model.write_text(textwrap.dedent("""
        import tensorflow as tf
        from ops import scale, twice, thrice

        x = tf.constant(1.0)
        y = scale(x, factor=3.0) + twice(x, factor=1.0)
        z = thrice(x, factor=1.0)
    """))
    options = engine.Options(select=("CG105",), target_python=(2, 7))
    result = engine.lint_text(str(model), model.read_text(), options)
    assert [(d.code, d.line) for d in result.diagnostics] == [("CG105", 7)]


def test_cg102_weights_a_tensorflow_layer_adds_are_variables():
    # `self.add_weight` in a Keras Layer's build makes a variable: read by closure in
    # `call`, TF 1.8 gives it a None gradient (verified).
    bad = """
        import tensorflow as tf

        class Scale(tf.keras.layers.Layer):
            def build(self, input_shape):
                self.w = self.add_weight("w", shape=[])
                self.frozen = self.add_weight("f", shape=[], trainable=False)

            def call(self, x):
                @tf.custom_gradient
                def f(x):
                    def grad(dy):
                        return dy * self.w
                    return x * self.w * self.frozen, grad
                return f(x)
    """
    assert lint(bad, select=("CG102",)) == [("CG102", 14, 24)]
    not_a_layer = bad.replace("tf.keras.layers.Layer", "object")
    assert lint(not_a_layer, select=("CG102",)) == []


def test_instance_attributes_stored_otherwise_agree_with_no_assignment():
    # `self.w, self.b = ...` or `self.opt += ...` may store anything: neither CG102 nor
    # CG403 may rely on the plain `self.x = tf...(...)` elsewhere in the class.
    template = """
        import tensorflow as tf

        class Model(object):
            def __init__(self):
                self.w = tf.get_variable("w", [])
                self.opt = tf.train.AdamOptimizer(0.1)

            def reset(self, pair):
                STORE

            def __call__(self, x, loss):
                self.opt.minimize(loss, bogus=True)

                @tf.custom_gradient
                def f(x):
                    def grad(dy):
                        return dy
                    return x * self.w, grad
                return f(x)
    """
    plain = template.replace("STORE", "pass")
    assert lint(plain, select=("CG102", "CG403")) == [("CG403", 13, 33), ("CG102", 19, 24)]
    for store in ("self.w, self.opt = pair", "self.w += pair; self.opt += pair",
                  "self.w: object = pair; self.opt: object = pair"):
        assert lint(template.replace("STORE", store), select=("CG102", "CG403")) == [], store


def test_variables_made_or_read_in_helpers_the_forward_pass_calls():
    code = """
    import tensorflow as tf

    w = tf.Variable([2.0, 3.0])

    def dense(x, units):
        kernel = tf.get_variable("kernel", [3, units])
        return tf.matmul(x, kernel)

    def deeper(x):
        return dense(x, 2) + 1.0

    def project(x):
        return x * w

    def scale(x, v):
        return x * v

    def plain(x):
        return tf.nn.relu(x) * 2.0

    def recursive(x, n):
        return x if n == 0 else recursive(x, n - 1)

    @tf.custom_gradient
    def through_helpers(x):
        y = deeper(x) + project(x) + plain(x) + recursive(x, 3)
        return y, lambda dy: dy

    @tf.custom_gradient
    def passed_in(x, v):
        y = scale(x, v) + plain(x)
        def grad(dy):
            return dy * v, project(dy)
        return y, grad
    """
    # The helpers are reported at their call in the custom-gradient function; a variable
    # passed in as an input, a helper only the gradient function calls, or one that makes
    # no variable, are not.
    found = lint(code, select=["CG101", "CG102"])
    assert found == [("CG101", 27, 9), ("CG102", 27, 21)]
    messages = [d.message for d in engine.lint_text(
        "t.py", textwrap.dedent(code), engine.Options(select=("CG101", "CG102"))).diagnostics]
    assert messages[0].startswith("`tf.get_variable` in `dense()` (line 7), which this call "
                                  "runs, creates or reuses a variable inside custom-gradient "
                                  "function `through_helpers`")
    assert "reads variable `w` from an enclosing scope in `project()` (line 14), which this " \
        "call runs" in messages[1]


def test_cg107_a_variables_parameter_is_harmless_only_when_nothing_needs_it():
    code = """
    import tensorflow as tf

    w = tf.Variable(1.0)

    @tf.custom_gradient
    def harmless(x):
        def grad(dy, variables=None):
            assert variables is None
            return tf.clip_by_value(dy, -1.0, 1.0)
        return tf.identity(x), grad

    @tf.custom_gradient
    def uses_it(x):
        def grad(dy, variables=None):
            return dy * len(variables)
        return tf.identity(x), grad

    @tf.custom_gradient
    def empty_on_18(x):
        def grad(dy, variables=None):
            return dy * (1 + len(variables or []))
        return tf.identity(x), grad

    @tf.custom_gradient
    def reads_a_variable(x):
        def grad(dy, variables=None):
            return dy
        return x * w, grad

    @tf.custom_gradient
    def requires_it(x):
        def grad(dy, variables):
            return dy
        return tf.identity(x), grad
    """
    found = [(line, message.split(":")[0]) for _, line, message in [
        (d.code, d.line, d.message) for d in engine.lint_text(
            "t.py", textwrap.dedent(code), engine.Options(select=("CG107",))).diagnostics]]
    assert found == [
        (15, "gradient function `grad` takes `variables`, which TF 1.8 never passes"),
        (27, "gradient function `grad` takes `variables`, which TF 1.8 never passes"),
        (33, "gradient function `grad` requires `variables`, which TF 1.8 never passes")]


def test_cg107_variables_read_only_where_a_test_says_it_was_given():
    # TF 1.8 never passes `variables`: a read in the branch of a test that fails on
    # None, or after an early return on None, never runs there (probe V: dirt).
    code = """
    import tensorflow as tf

    @tf.custom_gradient
    def conditional(x):
        def grad(dy, variables=None):
            extra = list(variables if variables is not None else [])
            return dy * (1.0 + len(extra))
        return tf.identity(x), grad

    @tf.custom_gradient
    def early_return(x):
        def grad(dy, variables=None):
            if variables is None:
                return dy
            return dy * len(variables)
        return tf.identity(x), grad

    @tf.custom_gradient
    def tested_first(x):
        def grad(dy, variables=None):
            n = variables is not None and len(variables)
            if not variables:
                pass
            else:
                n = len(variables)
            return dy
        return tf.identity(x), grad

    @tf.custom_gradient
    def read_when_none(x):
        def grad(dy, variables=None):
            extra = list(variables if variables is None else [])
            return dy
        return tf.identity(x), grad

    @tf.custom_gradient
    def early_return_without_exit(x):
        def grad(dy, variables=None):
            if variables is None:
                dy = dy * 2.0
            return dy * len(variables)
        return tf.identity(x), grad

    @tf.custom_gradient
    def other_default(x):
        def grad(dy, variables=()):
            extra = list(variables if variables is not None else [])
            return dy * len(extra)
        return tf.identity(x), grad
    """
    assert lint(code, select=["CG107"]) == [("CG107", 32, 18), ("CG107", 39, 18),
                                            ("CG107", 47, 18)]


def test_cg103_star_args_functions_are_checked_at_each_call():
    code = """
    import tensorflow as tf

    @tf.custom_gradient
    def summed(*xs):
        def grad(dy):
            return dy, dy
        return tf.add_n(list(xs)), grad

    @tf.custom_gradient
    def any_number(*xs):
        return tf.add_n(list(xs)), lambda dy: [dy for _ in xs]

    a = b = c = tf.ones([2])
    two = summed(a, b)
    three = summed(a, b, c)
    spread = summed(*[a, b, c])
    fine = any_number(a, b, c)
    """
    # `*[a, b, c]` passes three, as `three` does.
    assert lint(code, select=["CG103"]) == [("CG103", 16, 9), ("CG103", 17, 10)]


def test_a_lambda_made_a_custom_gradient_by_a_call_is_a_site():
    code = """
    import tensorflow as tf

    identity = tf.custom_gradient(lambda x: (tf.identity(x), lambda dy: dy))
    doubled = tf.custom_gradient(lambda x: (x * 2.0, lambda dy: (dy, dy)))
    first = tf.custom_gradient(lambda x: (lambda dy: dy, x))
    y = identity(tf.ones([2]))
    z = identity(x=tf.ones([2]))
    """
    assert lint(code) == [("CG103", 5, 61), ("CG106", 6, 38), ("CG105", 8, 5)]


def test_cg103_a_method_gradient_with_a_slot_for_self_is_cg108s_alone():
    code = """
    import tensorflow as tf

    class Scaler(object):
        @tf.custom_gradient
        def apply(self, x):
            return x * 3.0, lambda dy: (None, dy * 3.0)

        @tf.custom_gradient
        def mix(self, x, y):
            return x + y, lambda dy: dy
    """
    assert lint(code, select=["CG103", "CG108"]) == [
        ("CG108", 6, 5), ("CG108", 10, 5), ("CG103", 11, 34)]


def test_gradient_counts_of_concatenated_lists_splits_and_dict_outputs():
    code = """
    import tensorflow as tf

    @tf.custom_gradient
    def gate(x, y, z):
        return x + y + z, lambda dy: [dy] + [None] * 3

    @tf.custom_gradient
    def pair(x, y):
        return x + y, lambda dy: tf.split(tf.concat([dy, dy, dy], 0), 3)

    @tf.custom_gradient
    def sizes(x, y):
        return x + y, lambda dy: tf.split(dy, [1, 1], axis=0)

    @tf.custom_gradient
    def unstacked(x, y):
        return x + y, lambda dy: tf.unstack(tf.stack([dy, dy, dy]), num=3)

    @tf.custom_gradient
    def shifted(x):
        return x, lambda dy: dy + [1.0]

    @tf.custom_gradient
    def heads(x):
        def grad(dy):
            return dy
        return {"a": x, "b": 2.0 * x}, grad

    @tf.custom_gradient
    def any_split(x, y, n):
        return x + y, lambda dy: tf.split(dy, n)
    """
    # A list plus a list is their counts; `dy + [1.0]` is a tensor sum; a dict's values
    # are its outputs; a split of an unwritten number is not counted.
    assert lint(code, select=["CG103", "CG104"]) == [
        ("CG103", 6, 34), ("CG103", 10, 30), ("CG103", 18, 30), ("CG104", 26, 5)]


def test_cg105_an_empty_dict_unpacked_passes_no_keyword():
    code = """
    import tensorflow as tf

    @tf.custom_gradient
    def scaled(x, scale=2.0):
        return x * scale, lambda dy: (dy * scale, None)

    x = tf.ones([2])
    opts = {}
    a = scaled(x, **opts)
    b = scaled(x, **{})
    c = scaled(x, **dict())
    filled = {}
    filled["scale"] = 3.0
    d = scaled(x, **filled)
    handed = {}
    configure(handed)
    e = scaled(x, **handed)
    f = scaled(x, **{"scale": 3.0})
    """
    # TF 1.8 raises only `if kwargs:`: an empty dict passes no keyword.
    assert lint(code, select=["CG105"]) == [("CG105", 15, 5), ("CG105", 18, 5),
                                            ("CG105", 19, 5)]


def test_cg103_a_gradient_function_named_through_a_local_alias():
    code = """
    import tensorflow as tf

    def pair(dy):
        return dy, dy

    def single(dy):
        return dy

    @tf.custom_gradient
    def aliased(x):
        grad = pair
        return tf.round(x), grad

    @tf.custom_gradient
    def rebound(x):
        grad = pair
        grad = single
        return tf.round(x), grad
    """
    # An alias bound once is its function; a name bound twice may be either, unknown.
    assert lint(code, select=["CG103"]) == [("CG103", 5, 5)]


def test_templates_and_keras_models_own_variables_they_make_when_called():
    code = """
    import tensorflow as tf

    def _scale(x):
        return x * tf.get_variable("w", [], initializer=tf.ones_initializer())

    scale = tf.make_template("scale", _scale)
    model = tf.keras.Sequential([tf.keras.layers.Dense(2)])

    @tf.custom_gradient
    def through_template(x):
        return scale(x), lambda dy: dy

    @tf.custom_gradient
    def through_model(x):
        return model(x), lambda dy: dy

    @tf.custom_gradient
    def built_inside(x):
        inner = tf.keras.Sequential([tf.keras.layers.Dense(2)])
        return inner(x), lambda dy: dy
    """
    assert lint(code, select=["CG101", "CG102"]) == [
        ("CG102", 12, 12), ("CG102", 16, 12), ("CG101", 20, 13), ("CG101", 20, 34)]


def test_cg103_a_gradient_function_returning_its_star_parameter():
    code = """
    import tensorflow as tf

    @tf.custom_gradient
    def mul(x, w):
        def grad(*dys):
            return dys
        return x * w, grad

    @tf.custom_gradient
    def both(x, w):
        def grad(*dys):
            return dys
        return (x * w, x + w), grad
    """
    # One output: one upstream gradient handed back for two inputs; two outputs: two.
    assert lint(code, select=["CG103"]) == [("CG103", 7, 9)]


def test_a_partial_of_a_gradient_function_is_checked_without_its_bound_parameters():
    code = """
    import functools
    import tensorflow as tf

    def clip(limit, dy):
        return tf.clip_by_value(dy, -limit, limit)

    def clip_pair(limit, dy):
        return tf.clip_by_value(dy, -limit, limit), dy

    @tf.custom_gradient
    def clipped(x):
        return tf.identity(x), functools.partial(clip, 0.5)

    @tf.custom_gradient
    def paired(x):
        return tf.identity(x), functools.partial(clip_pair, 0.5)

    @tf.custom_gradient
    def two_outputs(x):
        return [x, 2.0 * x], functools.partial(clip, 0.5)
    """
    assert lint(code, select=["CG103", "CG104"]) == [
        ("CG104", 5, 1), ("CG103", 9, 5)]


def test_a_bound_method_as_the_gradient_function_is_checked_without_self():
    code = """
    import tensorflow as tf

    class Clipper(object):
        def __init__(self, limit):
            self.limit = limit

        def grad(self, dy):
            return tf.clip_by_value(dy, -self.limit, self.limit), dy

        def one(self, dy):
            return tf.clip_by_value(dy, -self.limit, self.limit)

        def apply(self, x):
            @tf.custom_gradient
            def inner(x):
                return tf.identity(x), self.one
            return inner(x)

    clipper = Clipper(0.5)

    @tf.custom_gradient
    def clip_grad(x):
        return tf.identity(x), clipper.grad

    @tf.custom_gradient
    def two(x):
        return [x, 2.0 * x], clipper.one
    """
    assert lint(code, select=["CG103", "CG104"]) == [
        ("CG103", 9, 9), ("CG104", 11, 5)]


def test_cg102_a_variable_read_under_stop_gradient_wants_no_gradient():
    code = """
    import tensorflow as tf

    w = tf.get_variable("w", [3])

    @tf.custom_gradient
    def stopped(x):
        return x * tf.stop_gradient(w * 2.0), lambda dy: dy * w

    @tf.custom_gradient
    def read(x):
        return x * tf.stop_gradient(x) * w, lambda dy: dy * w
    """
    assert lint(code, select=["CG102"]) == [("CG102", 12, 38)]


def test_helpers_imported_from_another_module_of_the_project(tmp_path):
    from cglint import check

    (tmp_path / "layers.py").write_text(
        "import tensorflow as tf\n"
        "w = tf.Variable([1.0, 2.0])\n"
        "def dense(x, units):\n"
        "    kernel = tf.get_variable('kernel', [2, units])\n"
        "    return tf.matmul(x, kernel)\n"
        "def scale(x):\n"
        "    return x * w\n"
        "def plain(x, v):\n"
        "    return tf.nn.relu(x) * v\n")
    main = ("import tensorflow as tf\n"
            "from layers import dense, plain\n"
            "import layers\n"
            "v = 2.0\n"
            "@tf.custom_gradient\n"
            "def f(x):\n"
            "    y = dense(x, 2) + layers.scale(x) + plain(x, v)\n"
            "    return y, lambda dy: dy\n")
    (tmp_path / "main.py").write_text(main)
    options = engine.Options(select=("CG101", "CG102"))
    found = check.check_alone(str(tmp_path / "main.py"), main, options).diagnostics
    assert [(d.code, d.line, d.col) for d in found] == [("CG101", 7, 9), ("CG102", 7, 23)]
    assert "in `dense()` (layers.py:4), which this call runs" in found[0].message
    assert "reads variable `w` from an enclosing scope in `scale()` (layers.py:7)" in \
        found[1].message


# The request's weighted_sum (WEIGHTED_SUM above) as a definition alone, for calls below.
WEIGHTED_SUM_DEF = """
    import tensorflow as tf

    @tf.custom_gradient
    def weighted_sum(x, y, weight):
        def grad(dy):
            return dy * weight, dy * (1.0 - weight), dy * (x - y)
        return weight * x + (1.0 - weight) * y, grad
"""


def test_cg111_scalar_tensors_bound_to_names_and_zeros_like_the_upstream():
    code = WEIGHTED_SUM_DEF + """
    @tf.custom_gradient
    def soft_clip(x, limit):
        return tf.clip_by_value(x, -limit, limit), lambda dy: (dy, tf.zeros_like(dy))

    x = tf.ones([3])
    y = tf.zeros([3])
    w_const = tf.constant(0.3)
    w_var = tf.Variable(0.3)
    w_feed = tf.placeholder(tf.float32, shape=[])
    w_vector = tf.constant([0.3, 0.3, 0.3])
    a = weighted_sum(x, y, w_const)
    b = weighted_sum(x, y, w_var)
    c = weighted_sum(x, y, w_feed)
    d = weighted_sum(x, y, w_vector)
    e = soft_clip(x, 3.0)
    f = soft_clip(x, tf.zeros_like(x))
    """
    found = [(d.code, d.line, d.message) for d in engine.lint_text(
        "t.py", textwrap.dedent(code), engine.Options(select=("CG111",))).diagnostics]
    # One finding per slot, at the first call that passes a scalar there; the vector
    # weight and a full-shape limit are not scalars.
    assert [(code_, line) for code_, line, _ in found] == [("CG111", 7), ("CG111", 12)]
    assert "gets the scalar `w_const` for `weight` (line 20)" in found[0][2]
    assert "gets the scalar 3.0 for `limit`" in found[1][2]


@pytest.mark.parametrize("weight, scalar", [
    ("tf.constant(0.3)", True), ("tf.Variable(0.3)", True), ("tf.Variable(tf.constant(0.3))", True),
    ("tf.placeholder(tf.float32, shape=[])", True), ("tf.placeholder(tf.float32, [])", True),
    ("tf.get_variable('w', [], initializer=tf.zeros_initializer())", True),
    ("tf.constant([0.3, 0.3, 0.3])", False), ("tf.placeholder(tf.float32, [3])", False),
    ("tf.Variable(tf.ones([3]))", False), ("tf.placeholder(tf.float32)", False),
])
def test_cg111_which_weights_are_surely_scalars(weight, scalar):
    code = WEIGHTED_SUM_DEF + """
    w = WEIGHT
    s = weighted_sum(tf.ones([3]), tf.zeros([3]), w)
    """.replace("WEIGHT", weight)
    assert (lint(code, select=["CG111"]) != []) == scalar


def test_cg110_numpy_values_are_no_gradients_either():
    code = """
    import numpy as np
    import tensorflow as tf

    @tf.custom_gradient
    def f(x):
        return tf.identity(x), lambda dy: np.zeros(2, dtype=np.float32)

    @tf.custom_gradient
    def g(x):
        return tf.identity(x), lambda dy: dy * np.float32(2.0)
    """
    # A NumPy value inside arithmetic on a tensor is a tensor again: only a bare one.
    assert lint(code, select=["CG110"]) == [("CG110", 7, 39)]


def test_cg111_a_scalar_output_has_a_scalar_upstream_gradient():
    code = WEIGHTED_SUM_DEF + """
    @tf.custom_gradient
    def scaled_sum(v, s):
        out = tf.reduce_sum(v, axis=None) * s
        return out, lambda dy: (dy * s * tf.ones_like(v), dy * tf.reduce_sum(v))

    @tf.custom_gradient
    def row_sums(v, s):
        return tf.reduce_sum(v, axis=1) * s, lambda dy: (dy * s, dy * v)

    v = tf.ones([3])
    a = scaled_sum(v, 2.0)
    b = row_sums(tf.ones([2, 3]), 2.0)
    c = weighted_sum(v, v, 0.3)
    """
    # A full reduction makes dy a scalar; a reduction over one axis does not.
    assert [line for _, line, _ in lint(code, select=["CG111"])] == [7, 17]


def test_cg108_a_list_of_numbers_is_one_vector():
    code = """
    import tensorflow as tf

    @tf.custom_gradient
    def scale(x, w):
        return x * w, lambda dy: (dy * w, tf.reduce_sum(dy * x))

    @tf.custom_gradient
    def scale_each(x, w):
        a, b = w
        return x * a + x * b, lambda dy: (dy * (a + b), dy * x, dy * x)

    a = scale(tf.ones([2]), [4.0, 5.0])
    b = scale(tf.ones([2]), [tf.ones([]), tf.ones([])])
    c = scale_each(tf.ones([2]), [tf.ones([]), tf.ones([])])
    """
    # `scale` takes the stacked list as the one tensor it is (one gradient for it);
    # `scale_each` unpacks it, and gives a gradient per element.
    assert lint(code, select=["CG108"]) == [("CG108", 15, 30)]


def test_cg108_a_list_or_an_int_the_function_takes_as_the_tensor_it_is():
    code = """
    import tensorflow as tf

    @tf.custom_gradient
    def tile_to(x, n, factors):
        y = tf.tile(x, [n]) * tf.cast(n, tf.float32) * factors[0]
        return y, lambda dy: (tf.reshape(dy, [n, -1]), None, tf.zeros_like(factors))

    @tf.custom_gradient
    def counted(x, n, factors):
        total = tf.add_n([x] * n) + sum(factors)
        return total, lambda dy: (dy, None, tf.zeros_like(factors))

    @tf.custom_gradient
    def looped(x, n, factors):
        for f in factors:
            x = x * f
        return x, lambda dy: (dy, None, [dy for _ in range(n)])

    a, b = tf.ones([2]), tf.ones([2])
    y = tile_to(a, 3, [a, b])
    z = counted(a, 3, [a, b])
    w = looped(a, 3, [a, b])
    """
    # [x] * n needs a Python int; sum() and a loop need a Python list; a gradient function
    # of unknown count gives no reason to trust the list.
    assert lint(code, select=["CG108"]) == [
        ("CG108", 22, 16), ("CG108", 22, 19), ("CG108", 23, 15), ("CG108", 23, 18)]


def test_cg103_a_star_unpacked_list_display_counts_its_items():
    code = """
    import tensorflow as tf

    @tf.custom_gradient
    def summed(*xs):
        return tf.add_n(list(xs)), lambda dy: [dy] * 2

    pair = (tf.ones([1]), tf.ones([1]))
    three = [tf.ones([1]), tf.ones([1]), tf.ones([1])]
    grown = [tf.ones([1])]
    grown.append(tf.ones([1]))
    a = summed(*pair)
    b = summed(*three)
    c = summed(*grown)
    d = summed(tf.ones([1]), *[tf.ones([1]), tf.ones([1])])
    """
    # A list changed in place (`grown.append`) is not counted.
    assert lint(code, select=["CG103"]) == [("CG103", 13, 5), ("CG103", 15, 5)]


def test_cg109_a_tape_over_a_custom_gradient_of_another_module(tmp_path):
    from cglint import check, engine

    (tmp_path / "rounding.py").write_text(
        "import tensorflow as tf\n\n@tf.custom_gradient\ndef st_round(x):\n"
        "    return tf.round(x), lambda dy: dy\n")
    main = tmp_path / "main.py"
    main.write_text(
        "import tensorflow as tf\nimport rounding\nfrom helpers import unknown\n\n"
        "x = tf.ones([2])\n"
        "with tf.GradientTape() as t:\n    y = rounding.st_round(x)\n"
        "with tf.GradientTape() as u:\n    z = unknown(x)\n"
        "with tf.GradientTape() as v:\n    w = tf.round(x)\n")
    result = check.check_alone(str(main), main.read_text(), engine.Options())
    # Only the tape that visibly runs the other module's custom gradient.
    assert [(d.code, d.line) for d in result.diagnostics] == [("CG109", 6)]


def test_cg108_a_float_only_when_the_function_tests_it_in_python():
    code = """
    import tensorflow as tf

    @tf.custom_gradient
    def maybe(x, scale):
        y = x * scale if scale > 1.0 else x
        return y, lambda dy: (dy * scale, None)

    @tf.custom_gradient
    def scaled(x, scale):
        return x * scale, lambda dy: (dy * scale, None)

    a = maybe(tf.ones([2]), 3.0)
    b = scaled(tf.ones([2]), 3.0)
    """
    assert lint(code, select=["CG108"]) == [("CG108", 13, 25)]


@pytest.mark.parametrize("binding, reported", [
    ("ZERO = 0.0", True),
    ("ZERO = -1", True),
    # near-misses: a tensor, None, bound twice, bound again in the gradient function
    ("ZERO = tf.constant(0.0)", False),
    ("ZERO = None", False),
    ("ZERO = 0.0\nZERO = tf.zeros([])", False),
])
def test_cg110_a_module_constant_returned_as_a_gradient(binding, reported):
    code = """
    import tensorflow as tf

    BINDING

    @tf.custom_gradient
    def binarize(x, threshold):
        def grad(dy):
            return dy, ZERO
        return tf.cast(x > threshold, tf.float32), grad
    """.replace("BINDING", binding.replace("\n", "\n    "))
    found = lint(code, select=["CG110"])
    assert bool(found) is reported and all(code == "CG110" for code, _, _ in found)


def test_cg110_a_helper_of_the_module_that_returns_a_number():
    code = """
    import tensorflow as tf

    def _no_grad():
        return 0

    def _zeros_like(x):
        if x is None:
            return 0
        return tf.zeros_like(x)

    @tf.custom_gradient
    def select(x, mask):
        return x * mask, lambda dy: (dy * mask, _no_grad())

    @tf.custom_gradient
    def pick(x, mask):
        return x * mask, lambda dy: (dy * mask, _zeros_like(mask))
    """
    # A helper that may return a tensor is not reported.
    assert lint(code, select=["CG110"]) == [("CG110", 14, 45)]


def test_cg101_a_method_of_an_object_the_module_makes():
    code = """
    import tensorflow as tf

    class Scale(object):
        def build(self):
            return tf.get_variable("w", [2])

    class Based(Scale):
        pass

    scale = Scale()
    based = Based()

    @tf.custom_gradient
    def scaled(x):
        w = scale.build()
        v = based.build()
        return x * w * v, lambda dy: dy * w * v
    """
    # `based` is an instance of a subclass: its method is not followed.
    assert lint(code, select=["CG101"]) == [("CG101", 16, 9)]


def test_cg111_a_scalar_made_by_a_helper_of_the_module():
    code = """
    import tensorflow as tf

    def temperature():
        return tf.constant(2.0)

    def maybe_vector(flag):
        if flag:
            return tf.constant(2.0)
        return tf.ones([3])

    @tf.custom_gradient
    def tempered(logits, temp):
        return logits / temp, lambda dy: (dy / temp, -dy * logits / (temp * temp))

    logits = tf.ones([3])
    a = tempered(logits, temperature())
    b = tempered(logits, maybe_vector(True))
    """
    # A helper that may return a vector is not a scalar.
    assert [line for _, line, _ in lint(code, select=["CG111"])] == [14]


def test_cg111_arithmetic_and_reductions_of_scalars_are_scalars():
    code = """
    import tensorflow as tf

    @tf.custom_gradient
    def avg(x, y):
        return (x + y) / 2, lambda dy: (dy / 2, dy / 2)

    x = tf.constant(1.0)
    y = tf.constant(3.0)
    v = tf.ones([3])
    a = avg(x * 2.0, y)
    b = avg(tf.identity(x), y)
    c = avg(tf.reduce_sum(v), y)
    d = avg(v * 2.0, y)
    """
    # Every input of a, b and c is a scalar, so dy is one; d's first input is a vector.
    assert [line for _, line, _ in lint(code, select=["CG111"])] == [6]
    assert lint(code.replace("    d = avg(v * 2.0, y)\n", ""), select=["CG111"]) == []


def test_cg103_counts_what_both_branches_of_a_cond_give():
    code = """
    import tensorflow as tf

    @tf.custom_gradient
    def f(x):
        def grad(dy):
            return tf.cond(x > 0.0, lambda: dy, lambda: -dy), dy
        return x * 1.0, grad

    @tf.custom_gradient
    def g(x):
        def positive():
            return dy_of(x)
        def grad(dy):
            return tf.cond(x > 0.0, lambda: (dy, dy), lambda: (dy, -dy))
        return x * 1.0, grad

    @tf.custom_gradient
    def h(x):
        def grad(dy):
            return tf.cond(x > 0.0, lambda: dy, lambda: (dy, dy))
        return x * 1.0, grad

    @tf.custom_gradient
    def k(x):
        def grad(dy):
            return tf.cond(x > 0.0, lambda: dy, lambda: -dy)
        return x * 1.0, grad
    """
    # h's branches disagree: unknown, not reported; k is right.
    assert [line for _, line, _ in lint(code, select=["CG103"])] == [7, 15]


def test_cg103_a_staticmethod_of_a_class_as_the_gradient_function():
    code = """
    import tensorflow as tf

    class S(object):
        @staticmethod
        def two(dy):
            return dy, dy

        @staticmethod
        def one(dy):
            return dy

        def method(self, dy):
            return dy, dy

    @tf.custom_gradient
    def f(x):
        return tf.round(x), S.two

    @tf.custom_gradient
    def g(x):
        return tf.round(x), S.one

    @tf.custom_gradient
    def h(x):
        return tf.round(x), S.method
    """
    # S.method through the class is a plain function of (self, dy): not followed.
    assert [line for _, line, _ in lint(code, select=["CG103", "CG104"])] == [7]


def test_cg101_a_layer_weight_made_in_the_custom_gradient_of_its_call():
    code = """
    import tensorflow as tf

    class Scaler(tf.layers.Layer):
        def call(self, inputs):
            @tf.custom_gradient
            def scale(x):
                w = self.add_variable("w", [])
                return x * w, lambda dy: dy * w
            return scale(inputs)

    class Plain(object):
        def call(self, inputs):
            @tf.custom_gradient
            def scale(x):
                w = self.add_variable("w", [])
                return x * w, lambda dy: dy * w
            return scale(inputs)
    """
    # Plain is no TF class: its add_variable is its own business.
    assert lint(code, select=["CG101"]) == [("CG101", 8, 17)]


def test_cg108_estimator_mode_keys_are_strings():
    code = """
    import tensorflow as tf

    @tf.custom_gradient
    def scaled(x, mode):
        s = 2.0 if mode == tf.estimator.ModeKeys.TRAIN else 100.0
        return x * s, lambda dy: (dy * s, None)

    y = scaled(tf.ones([1]), tf.estimator.ModeKeys.TRAIN)
    """
    assert lint(code, select=["CG108"]) == [("CG108", 9, 26)]


def test_cg105_keras_lambda_passes_its_arguments_as_keywords():
    code = """
    import tensorflow as tf

    @tf.custom_gradient
    def grad_reverse(x, lam=1.0):
        return tf.identity(x), lambda dy: (-lam * dy, None)

    def plain(x, lam):
        return x * lam

    inputs = tf.keras.layers.Input(shape=(2,))
    a = tf.keras.layers.Lambda(grad_reverse, arguments={"lam": 0.5})(inputs)
    b = tf.keras.layers.Lambda(grad_reverse)(inputs)
    c = tf.keras.layers.Lambda(plain, arguments={"lam": 0.5})(inputs)
    d = tf.keras.layers.Lambda(grad_reverse, arguments={})(inputs)
    """
    assert lint(code, select=["CG105"]) == [("CG105", 12, 5)]


def test_review_cases_of_cg103_cg105_cg108():
    code = """
    import tensorflow as tf

    @tf.custom_gradient
    def maybe(x, scale):
        if scale is None or isinstance(scale, float):
            scale = 1.0
        return x * scale, lambda dy: (dy * scale, None)

    @tf.custom_gradient
    def total(xs):
        return tf.add_n(xs), lambda dy: tf.stack([dy, dy])

    @tf.custom_gradient
    def mix(a, b):
        return a * b, lambda dy: (dy * b, dy * a, dy)

    def add_third(parts, z):
        parts.append(z)

    x = tf.ones([2])
    a = maybe(x, 3.0)
    b = total([x, x])
    parts = [x, x]
    add_third(parts, x)
    c = mix(*parts)
    d = tf.keras.layers.Lambda(maybe, arguments=None)(x)
    """
    # `is None` and isinstance ask nothing of the tensor; add_n needs the list; `parts`
    # changes through a call; Lambda with arguments=None passes no keyword.
    assert lint(code, select=["CG103", "CG105", "CG108"]) == [
        ("CG103", 16, 30), ("CG108", 23, 11)]


@pytest.mark.parametrize("change", ["del parts[0]", "parts[1:] = []", "parts[0] = a"])
def test_cg103_a_named_list_changed_through_a_subscript_is_not_counted(change):
    code = NAMED_PARTS.replace("y = sum_all(*parts)", change + "\ny = sum_all(*parts)")
    assert lint(code.replace("READ", ""), select=["CG103"]) == []


UNPACKED = """
import tensorflow as tf


def nested(g):
    return [g, g], g


@tf.custom_gradient
def pair_sum(x, y):
    def grad(dy):
        BODY
    return x + y, grad


a, b = tf.constant([1.0, 2.0]), tf.constant([3.0, 4.0])
grads = tf.gradients(pair_sum(a, b), [a, b])
with tf.Session() as session:
    session.run(grads)
"""


@pytest.mark.parametrize("body, reported", [
    # names unpacked from a TF call of tensors are one gradient each (measured "Num
    # gradients 4" and "Num gradients 2" generated for two inputs)
    ("ga, gb = tf.split(dy, 2); return ga, gb, dy", True),
    ("ga, gb = tf.split(dy, 2); return ga * 0.5", True),
    ("mean, var = tf.nn.moments(dy, [0]); return mean, var, dy", True),
    # no list takes `/`, a unary minus or a float: one value, whatever `g` holds
    ("g = nested(dy)[1]; return g / 2", True),
    ("g = nested(dy)[1]; return -g", True),
    # two gradients, counted: fine
    ("ga, gb = tf.unstack(tf.stack([dy, 2.0 * dy])); return ga, gb * 0.5", False),
    # near-misses, each of two gradients (they run): a name that may hold a list
    ("ga, gb = nested(dy); return ga", False),
    ("ga, gb = [[dy, dy], dy]; return ga", False),
    ("ga, gb = [[dy], dy]; return ga * 2", False),
    ("ga, gb = [[dy], [dy]]; return ga + gb", False),
    ("_, pair = tf.while_loop(lambda i, p: i < 1, lambda i, p: (i + 1, p), (0, [dy, dy]))"
     "; return pair", False),
    ("ga, *rest = tf.unstack(tf.stack([dy, dy, dy])); return rest", False),
    ("ga, gb = tf.unstack(tf.stack([dy, dy])); ga = [ga, gb]; return ga", False),
])
def test_cg103_unpacked_names_and_operations_no_list_takes(body, reported):
    found = lint(UNPACKED.replace("BODY", body), select=["CG103"], target_python=(3, 6))
    assert bool(found) is reported, found


@pytest.mark.parametrize("body, reported", [
    # over a literal range or a display: one gradient an item (measured "Num gradients 4")
    ("return [tf.identity(dy) for _ in range(3)]", True),
    ("return [dy * 0.5 for _ in range(1, 4)]", True),
    ("return [g * 0.5 for g in (dy, dy, dy)]", True),
    ("return [tf.identity(dy) for _ in range(2)]", False),
    # near-misses, each of two gradients (they run): a condition, a length not written
    # as literals, two loops, an element that is not one gradient, a `range` of the code's
    ("return [dy for i in range(3) if i]", False),
    ("n = 2; return [dy for _ in range(n)]", False),
    ("return [dy for _ in range(1) for _ in range(2)]", False),
    ("return [(dy, dy) for _ in range(1)]", False),
    ("range = lambda n: [0, 0]; return [dy for _ in range(5)]", False),
])
def test_cg103_a_list_comprehension_of_a_literal_length(body, reported):
    found = lint(UNPACKED.replace("BODY", body), select=["CG103"])
    assert bool(found) is reported, found


def test_cg103_a_range_too_long_for_len_is_not_counted():
    body = "return [dy for _ in range(%d)], [dy for _ in range(True)]" % 10 ** 30
    assert lint(UNPACKED.replace("BODY", body), select=["CG103"]) == []


@pytest.mark.parametrize("returned, reported", [
    ("dy * s, (dy if TRAIN else 0.0)", True),
    ("[dy * s] + [0.0]", True),
    ("(dy * s,) + (0,)", True),
    ("dy * s, float(0)", True),
    # near-misses: tensors and None in the same spellings, a `float` of the code's
    ("dy * s, (dy if TRAIN else None)", False),
    ("[dy * s] + [None]", False),
    ("dy * s, float(dy)", False),
])
def test_cg110_numbers_in_other_spellings(returned, reported):
    code = """
    import tensorflow as tf

    TRAIN = True

    @tf.custom_gradient
    def scale(x, s):
        def grad(dy):
            return RETURNED
        return x * s, grad
    """.replace("RETURNED", returned)
    assert bool(lint(code, select=["CG110"])) is reported


def test_cg110_a_module_constant_a_def_assigns_again_under_global():
    code = """
    import tensorflow as tf

    ZERO = 0.0

    def setup():
        global ZERO
        ZERO = tf.constant(0.0)

    @tf.custom_gradient
    def f(x, t):
        return tf.identity(x), lambda dy: (dy, ZERO)
    """
    assert lint(code, select=["CG110"]) == []


APPENDED = """
import tensorflow as tf


@tf.custom_gradient
def affine(x, w, b):
    def grad(dy):
        grads = [dy * w]
        BODY
        return grads
    return x * w + b, grad
"""


@pytest.mark.parametrize("body, reported", [
    # the probe's program (3 inputs, 2 gradients): ValueError "Num gradients 2 ..."
    ("grads.append(dy * x)", True),
    ("grads.extend([dy * x, dy, dy])", True),
    # 3 gradients: fine
    ("grads.append(dy * x); grads.append(dy)", False),
    ("grads.extend([dy * x, dy])", False),
    # counted only when plain statements of the body add to it
    ("for g in (dy * x,): grads.append(g)", False),
    ("if dy is not None: grads.append(dy)", False),
    ("grads.extend(others)", False),
])
def test_cg103_a_gradient_list_built_with_append(body, reported):
    found = lint(APPENDED.replace("BODY", body), select=["CG103"])
    assert (found == [("CG103", 10, 9)]) is reported


NAMED_PARTS = """
import tensorflow as tf


@tf.custom_gradient
def sum_all(*xs):
    def grad(dy):
        return [dy, dy]
    return tf.add_n(list(xs)), grad


a, b, c = tf.constant(1.0), tf.constant(2.0), tf.constant(3.0)
parts = [a, b, c]
y = sum_all(*parts)
READ
"""


@pytest.mark.parametrize("read, reported", [
    # read only (the probe's program: TF 1.8 raises "Num gradients 2 ... do not match")
    ("g = tf.gradients(y, parts)", True),
    ("n = len(parts) + 0 * tf.size(parts[0])", True),
    # may change it in place: not counted
    ("parts.append(a)", False),
    ("more = parts", False),
    ("print(parts)", False),
])
def test_cg103_a_named_list_unpacked_into_the_call(read, reported):
    # (a `del parts[0]` or slice assignment before the call: see the next test)
    found = lint(NAMED_PARTS.replace("READ", read), select=["CG103"])
    assert (found == [("CG103", 14, 5)]) is reported


EAGER_GUARDED = """
import tensorflow as tf
EAGER_ON

@tf.custom_gradient
def reverse(x, scale=1.0):
    return tf.identity(x), lambda dy: -dy * scale

def run(x):
    if TEST:
        with tf.GradientTape() as tape:
            tape.watch(x)
            y = tf.reduce_sum(reverse(x, scale=2.0))
        return tape.gradient(y, x)
    OTHER
    return tf.gradients(tf.reduce_sum(reverse(x)), x)[0]
"""


@pytest.mark.parametrize("test, other, expected", [
    ("tf.executing_eagerly()", "", []),
    ("tf.contrib.eager.executing_eagerly()", "", []),
    # the tape's branch runs in graph mode: the tape ignores the custom gradient, and the
    # keyword raises
    ("not tf.executing_eagerly()", "", [("CG109", 11, 14), ("CG105", 13, 31)]),
    # near-misses: a test that does not decide the mode
    ("tf.executing_eagerly() and x is not None", "", [("CG109", 11, 14), ("CG105", 13, 31)]),
    ("x is not None", "", [("CG109", 11, 14), ("CG105", 13, 31)]),
])
def test_code_under_an_executing_eagerly_test_runs_in_that_mode_only(test, other, expected):
    code = EAGER_GUARDED.replace("EAGER_ON", "").replace("TEST", test).replace("OTHER", other)
    assert lint(code, select=["CG105", "CG109"]) == expected


def test_a_map_after_an_eager_branch_that_returns_runs_in_graph_mode_only():
    code = """
    import tensorflow as tf
    tf.enable_eager_execution()

    def binarize(x):
        if tf.executing_eagerly():
            return x + tf.stop_gradient(tf.sign(x) - x)
        with tf.get_default_graph().gradient_override_map({"Sign": "Identity"}):
            return tf.sign(x)
    """
    assert lint(code, select=["CG201"]) == []
    # near-misses: the eager branch does not leave, or the test is of something else
    assert lint(code.replace("return x +", "y = x +"), select=["CG201"]) == [("CG201", 8, 10)]
    assert lint(code.replace("tf.executing_eagerly()", "x is None"),
                select=["CG201"]) == [("CG201", 8, 10)]


@pytest.mark.parametrize("helper, reported", [
    ("return tf.reduce_sum(reverse(h) * 2.0)", True),
    # near-miss: the imported helper runs no custom gradient
    ("return tf.reduce_sum(h * 2.0)", False),
])
def test_cg109_a_tape_over_another_modules_helper_that_runs_a_custom_gradient(
        tmp_path, helper, reported):
    (tmp_path / "grads.py").write_text(textwrap.dedent("""
        import tensorflow as tf

        @tf.custom_gradient
        def reverse(x):
            return tf.identity(x), lambda dy: -dy

        def discriminator(h):
            HELPER
    """).replace("HELPER", helper))
    model = tmp_path / "model.py"
    model.write_text("import tensorflow as tf\nimport grads\n\nx = tf.constant([1.0])\n"
                     "with tf.GradientTape() as tape:\n    loss = grads.discriminator(x)\n")
    options = engine.Options(select=("CG109",))
    found = check.check_alone(str(model), model.read_text(), options).diagnostics
    assert [(d.code, d.line) for d in found] == ([("CG109", 5)] if reported else [])


def test_cg102_a_variable_passed_in_and_read_as_an_attribute():
    code = """
    import tensorflow as tf

    class Params(object):
        def __init__(self):
            self.w = tf.get_variable("w", [2])

    params = Params()

    @tf.custom_gradient
    def weighted(x, weight):
        return x * params.w, lambda dy: (dy * weight, dy * x)

    y = weighted(tf.constant([1.0, 2.0]), params.w)
    """
    assert lint(code, select=["CG102"]) == []
    assert lint(code.replace("(tf.constant([1.0, 2.0]), params.w)",
                             "(tf.constant([1.0, 2.0]), tf.ones([2]))"),
                select=["CG102"]) == [("CG102", 12, 16)]


DEFUN = """
import tensorflow as tf
from tensorflow.python.framework import function

w = tf.get_variable("w", initializer=[2.0, 3.0])
SCALE = 2.0


def _grad(op, dy):
    return GRADS


@function.Defun(tf.float32, python_grad_func=_grad)
def mul(x):
    return BODY
"""


@pytest.mark.parametrize("body, grads, reported", [
    # the op's inputs are x and the captured `w` (TF 1.8 runs the probe's program and
    # gives [2, 3], [1, 1]): two gradients are right, and one is not countable here
    ("x * w", "dy * op.inputs[1], dy * x", False),
    ("x * w", "dy * w", False),
    # no tensor captured: the declared input alone
    ("x * SCALE + sum(v for v in [1.0])", "dy * SCALE, dy", True),
    ("tf.abs(x)", "dy, dy", True),
])
def test_cg103_a_defun_that_reads_outer_tensors_has_inputs_of_them(body, grads, reported):
    found = lint(DEFUN.replace("BODY", body).replace("GRADS", grads), select=["CG103"])
    assert bool(found) is reported, found


OBJECT_HELD = """
import tensorflow as tf


class Params(object):
    def __init__(self):
        self.w = MADE


params = Params()


@tf.custom_gradient
def gated(x):
    return x * params.w, lambda dy: dy * params.w
"""


@pytest.mark.parametrize("made, reported", [
    ('tf.get_variable("w", shape=(2,))', True),
    ("tf.Variable([1.0, 2.0])", True),
    # near-misses: no variable, or one no optimizer trains
    ("tf.constant([1.0, 2.0])", False),
    ("tf.Variable([1.0, 2.0], trainable=False)", False),
])
def test_cg102_a_variable_of_an_object_the_module_made(made, reported):
    found = lint(OBJECT_HELD.replace("MADE", made), select=["CG102"])
    assert (found == [("CG102", 15, 16)]) is reported, found
    # set anew outside its class: not known to be a variable there
    replaced = OBJECT_HELD.replace("MADE", made).replace(
        "params = Params()\n", "params = Params()\nparams.w = tf.constant([1.0, 2.0])\n")
    assert lint(replaced, select=["CG102"]) == []


@pytest.mark.parametrize("sources, says_attribute_error", [
    ("model.trainable_weights", True),
    ("tf.trainable_variables()", True),
    ("[w]", True),
    ("x", False),
])
def test_cg109_says_what_variables_as_sources_do(sources, says_attribute_error):
    code = textwrap.dedent("""
    import tensorflow as tf

    @tf.custom_gradient
    def rev(x):
        return tf.identity(x), lambda dy: -dy

    model = tf.keras.Sequential([tf.keras.layers.Dense(1, input_shape=(2,))])
    w = tf.get_variable("w", [2])
    x = tf.constant([[1.0, 2.0]])
    with tf.GradientTape() as tape:
        tape.watch(x)
        loss = tf.reduce_sum(rev(model(x) * w))
    grads = tape.gradient(loss, SOURCES)
    """).replace("SOURCES", sources)
    result = check.check_text("m.py", code, engine.Options(select=("CG109",)))
    (finding,) = result.diagnostics
    assert ("'Variable' object has no attribute '_id'" in finding.message) is \
        says_attribute_error


@pytest.mark.parametrize("imports, made, code", [
    # standalone Keras on the TF backend (how most code of TF 1.8's time spelled it)
    ("from keras.layers import Dense", "Dense(2)", "CG101"),
    ("import keras", "keras.layers.Dense(2)", "CG101"),
    ("from keras import backend as K", "K.variable([1.0, 2.0])", "CG101"),
    ("", "tf.keras.backend.variable([1.0, 2.0])", "CG101"),
])
def test_keras_variables_made_inside(imports, made, code):
    source = """
    import tensorflow as tf
    IMPORTS

    @tf.custom_gradient
    def f(x):
        w = MADE
        return tf.identity(x), lambda dy: dy
    """.replace("IMPORTS", imports).replace("MADE", made)
    assert [found[0] for found in lint(source, select=["CG101"])] == [code]


@pytest.mark.parametrize("imports, made", [
    ("from keras import backend as K", "K.variable([1.0, 2.0])"),
    ("from keras.layers import Dense", "Dense(2)"),
])
def test_keras_variables_read_by_closure(imports, made):
    source = """
    import tensorflow as tf
    IMPORTS

    w = MADE

    @tf.custom_gradient
    def f(x):
        return x * w, lambda dy: dy
    """.replace("IMPORTS", imports).replace("MADE", made)
    assert [found[0] for found in lint(source, select=["CG102"])] == ["CG102"]


def test_keras_lambda_arguments_and_scalar_variables():
    source = """
    import tensorflow as tf
    import keras
    from keras import backend as K

    @tf.custom_gradient
    def reverse(x, l=1.0):
        return tf.identity(x), lambda dy: -dy * l

    @tf.custom_gradient
    def prelu(x, alpha):
        return x * alpha, lambda dy: (dy * alpha, dy * x)

    y = keras.layers.Lambda(reverse, arguments={"l": 0.5})
    z = prelu(tf.constant([1.0, -2.0]), K.variable(0.25))
    """
    assert sorted(found[0] for found in lint(source, select=["CG105", "CG111"])) == [
        "CG105", "CG111"]


@pytest.mark.parametrize("returned, reported", [
    ("grad, 0.", True), ("[grad, 0]", True), ("grad, None", False), ("grad, grad * 0.0", False),
])
def test_cg110_numbers_from_a_registered_gradient(returned, reported):
    code = """
    import tensorflow as tf

    @tf.RegisterGradient("LeakyPass")
    def _leaky_pass(op, grad):
        return RETURNED
    """.replace("RETURNED", returned)
    found = lint(code, select=["CG110"])
    assert bool(found) is reported, found


@pytest.mark.parametrize("body", [
    "helper(x)",  # a def of the module that reads `w`
    "(lambda v: v * w)(x)",  # a lambda inside the body that reads it
])
def test_cg103_a_defun_that_may_read_outer_tensors_elsewhere(body):
    code = DEFUN.replace("BODY", body).replace("GRADS", "dy * op.inputs[1], dy * x")
    code = code.replace("def _grad(op, dy):", "def helper(v):\n    return v * w\n\n\n"
                        "def _grad(op, dy):")
    assert lint(code, select=["CG103"]) == []


def test_a_dataset_helper_fan_stays_fast():
    # each def judged once (four levels of defs with 30 returns took 47 s)
    import time

    lines = ["import tensorflow as tf", "def d0(n):", "    return tf.data.Dataset.range(n)"]
    for level in range(1, 5):
        lines.append("def d%d(n):" % level)
        lines += ["    if n == %d:\n        return d%d(n)" % (i, level - 1) for i in range(30)]
        lines.append("    return d%d(n)" % (level - 1))
    lines.append("ds = d4(3).batch(2, drop_remainder=True)")
    started = time.process_time()
    assert [f[0] for f in lint("\n".join(lines) + "\n")] == ["CG403"]
    assert time.process_time() - started < 5


def test_cg110_a_long_chain_of_conditional_expressions():
    # judged without recursion: 1,200 nested `if ... else` kept their finding
    chain = "0" + "".join(" if c%d else dy" % i for i in range(1200))
    code = ("import tensorflow as tf\n\n@tf.custom_gradient\ndef f(x, t):\n"
            "    def grad(dy):\n        return dy, (%s)\n    return x, grad\n" % chain)
    assert [found[0] for found in lint(code, select=["CG110"])] == ["CG110"]


def test_cg109_variable_sources_are_the_tapes_own():
    # Another function's tape of the same name, a layer's output tensor, a resource
    # variable: not this tape's variables (the review's cases).
    code = textwrap.dedent("""
    import tensorflow as tf

    @tf.custom_gradient
    def clip(x):
        return tf.identity(x), lambda dy: tf.clip_by_value(dy, -1.0, 1.0)

    def saliency(x):
        with tf.GradientTape() as tape:
            tape.watch(x)
            loss = tf.reduce_sum(clip(tf.layers.dense(x, 3)))
        return tape.gradient(loss, x)

    def train_step(model, x):
        with tf.GradientTape() as tape:
            loss = tf.reduce_sum(clip(model(x)))
        return tape.gradient(loss, model.trainable_weights)

    def resource(x):
        r = tf.get_variable("r", [3], use_resource=True)
        with tf.GradientTape() as tape:
            loss = tf.reduce_sum(clip(x * r))
        return tape.gradient(loss, [r])
    """)
    result = check.check_text("m.py", code, engine.Options(select=("CG109",)))
    says = [(d.line, "'_id'" in d.message) for d in result.diagnostics]
    assert says == [(9, False), (15, True), (21, False)]


@pytest.mark.parametrize("grad, reported", [
    # measured under TF 1.8: fixtures/CG110/bad_defun_python_grad_number.py
    ("def _grad(op, dy):\n    return dy * op.inputs[1], 0", True),
    ("_grad = lambda op, dy: (dy, 0.0)", True),
    ("def _grad(op, dy):\n    return dy * op.inputs[1], None", False),
    ("def _grad(op, dy):\n    return dy * op.inputs[1], tf.zeros_like(op.inputs[1])", False),
])
def test_cg110_numbers_from_a_defun_python_grad_func(grad, reported):
    code = "\n".join([
        "import tensorflow as tf", "from tensorflow.python.framework import function",
        grad,
        "@function.Defun(tf.float32, tf.float32, python_grad_func=_grad)",
        "def scale(x, s):", "    return x * s"])
    found = lint(code, select=["CG110"])
    assert bool(found) is reported, found


def test_cg110_a_defun_grad_func_is_an_op_of_its_own():
    # grad_func is a Defun: what it returns become its op's outputs, not judged here
    code = """
    import tensorflow as tf
    from tensorflow.python.framework import function

    @function.Defun(tf.float32, tf.float32, tf.float32)
    def scale_grad(x, s, dy):
        return dy * s, 0.0

    @function.Defun(tf.float32, tf.float32, grad_func=scale_grad)
    def scale(x, s):
        return x * s
    """
    assert lint(code, select=["CG110"]) == []


@pytest.mark.parametrize("xs, reported", [
    # measured under TF 1.8: fixtures/CG103/*_delegated_to_tf_gradients.py
    ("[a, b]", True),
    ("[a, b, c]", False),
    ("(a, b, c)", False),
    ("[a, b] + [c]", False),
    ("inputs", False),  # a name the module does not show: unknown
])
def test_cg103_a_gradient_function_delegating_to_tf_gradients(xs, reported):
    code = """
    import tensorflow as tf

    @tf.custom_gradient
    def fma(a, b, c):
        y = a * b + c

        def grad(dy):
            return tf.gradients(a * b + c, XS, grad_ys=dy)
        return y, grad
    """.replace("XS", xs)
    assert bool(lint(code, select=["CG103"])) is reported


def test_cg103_an_outer_name_that_is_not_the_sites_own_input_is_not_counted():
    # `w` is a module variable, `rest` a *args: neither is known to be one tensor
    code = """
    import tensorflow as tf
    w = tf.get_variable("w", [2])

    @tf.custom_gradient
    def f(x, *rest):
        def grad(dy):
            return tf.gradients(x * w, [x, w] + list(rest), grad_ys=dy)
        return x * w, grad
    """
    assert lint(code, select=["CG103"]) == []


@pytest.mark.parametrize("alias, call, expected", [
    # measured under TF 1.8: fixtures/CG105/*_through_an_alias.py
    ("sg = scale_grad", "sg(x, 3.0)", ["CG103"]),
    ("sg = scale_grad", "sg(x, factor=3.0)", ["CG105"]),
    ("a = scale_grad\nsg = a", "sg(x, factor=3.0)", ["CG105"]),
    ("sg = scale_grad", "sg(x)", []),
    # near-misses: rebound to something else, or assigned twice
    ("sg = scale_grad\nsg = tf.identity", "sg(x, 3.0)", []),
    ("sg = scale_grad if FLAG else tf.identity", "sg(x, 3.0)", []),
    ("sg = scale_grad\ndef sg(x, f):\n    return x", "sg(x, 3.0)", []),
])
def test_calls_through_a_plain_alias(alias, call, expected):
    code = "\n".join([
        "import tensorflow as tf", "FLAG = True", "@tf.custom_gradient",
        "def scale_grad(x, factor=2.0):", "    def grad(dy):", "        return dy * factor",
        "    return tf.identity(x), grad", alias, "x = tf.constant([1.0])", "y = " + call])
    assert [code for code, _, _ in lint(code, select=["CG103", "CG105"])] == expected


def test_an_alias_loop_ends():
    # (a site in the module, so that aliases are followed at all)
    code = """
    import tensorflow as tf

    @tf.custom_gradient
    def f(x):
        return x, lambda dy: dy

    a = b
    b = a
    y = a(tf.constant(1.0), k=2)
    """
    assert lint(code, select=["CG001", "CG103", "CG105", "CG108"]) == []


def test_an_alias_a_def_may_rebind_is_not_followed():
    code = """
    import tensorflow as tf

    @tf.custom_gradient
    def scale_grad(x):
        return x, lambda dy: dy

    activation = scale_grad

    def use_plain_identity():
        global activation
        activation = tf.identity

    def model(x):
        return activation(x, name="out")
    """
    assert lint(code, select=["CG105"]) == []


@pytest.mark.parametrize("made, body, expected", [
    # fixtures/CG102/bad_rnn_cell_made_outside.py: no gradient under TF 1.8
    ("cell = tf.nn.rnn_cell.GRUCell(2)", "out, _ = tf.nn.dynamic_rnn(cell, x, dtype=tf.float32)",
     ["CG102"]),
    ("cell = tf.contrib.rnn.BasicLSTMCell(2)",
     "out, _ = tf.nn.dynamic_rnn(cell=cell, inputs=x, dtype=tf.float32)", ["CG102"]),
    ("", "out, _ = tf.nn.dynamic_rnn(tf.nn.rnn_cell.GRUCell(2), x, dtype=tf.float32)",
     ["CG101"]),
    # near-misses: the cell run outside; an object that owns no weights
    ("cell = tf.nn.rnn_cell.GRUCell(2)\nouter, _ = tf.nn.dynamic_rnn(cell, tf.ones([1, 1, 3]), "
     "dtype=tf.float32)", "out = x * 2.0", []),
    ("cell = tf.nn.rnn_cell.LSTMStateTuple(1, 2)", "out = x * 2.0", []),
])
def test_an_rnn_cell_run_inside_a_custom_gradient(made, body, expected):
    code = "\n".join([
        "import tensorflow as tf", made, "@tf.custom_gradient", "def f(x):",
        "    " + body, "    return out, lambda dy: dy"])
    assert [c for c, _, _ in lint(code, select=["CG101", "CG102"])] == expected


@pytest.mark.parametrize("imports, call, reported", [
    # fixtures/CG103/*star_imported*: Num gradients ValueError under TF 1.8
    ("from ops import *", "scale_grad(x, 3.0)", True),
    ("from other import *\nfrom ops import *", "scale_grad(x, 3.0)", True),
    ("from ops import *\nfrom other import *", "scale_grad(x, 3.0)", True),
    # near-misses: the module's own def; a name a star import leaves out; no star; a
    # later star import that defines the name as a plain function
    ("from ops import *\ndef scale_grad(x, f):\n    return x", "scale_grad(x, 3.0)", False),
    ("from ops import *", "_private_grad(x, 3.0)", False),
    ("import ops", "scale_grad(x, 3.0)", False),
    ("from ops import *\nfrom plain import *", "scale_grad(x, 3.0)", False),
    # `__all__` decides what a star import brings; a module cglint cannot read may bring
    # the name too
    ("from plain import *\nfrom listed import *", "scale_grad(x, 3.0)", False),
    ("from ops import *\nfrom listed import *", "scale_grad(x, 3.0)", True),
    ("from ops import *\nfrom numpy import *", "scale_grad(x, 3.0)", False),
    ("from ops import *\nfrom passes_on import *", "scale_grad(x, 3.0)", False),
])
def test_cg103_a_custom_gradient_function_from_a_star_import(tmp_path, imports, call,
                                                              reported):
    site = "\n".join(["import tensorflow as tf", "@tf.custom_gradient",
                      "def %s(x, factor=1.0):", "    y = tf.identity(x)",
                      "    return y, lambda dy: dy * factor"])
    (tmp_path / "ops.py").write_text(site % "scale_grad" + "\n" + site % "_private_grad" + "\n")
    (tmp_path / "other.py").write_text("def unrelated(x):\n    return x\n")
    (tmp_path / "plain.py").write_text("def scale_grad(x, factor=1.0):\n    return x\n")
    # (its own `scale_grad` is plain: honouring `__all__` is what leaves `ops`'s in place)
    (tmp_path / "listed.py").write_text(
        '__all__ = ["conv"]\ndef scale_grad(x, factor=1.0):\n    return x\n')
    (tmp_path / "passes_on.py").write_text("from plain import *\n")
    model = tmp_path / "model.py"
    model.write_text("import tensorflow as tf\n%s\nx = tf.constant(1.0)\ny = %s\n" % (
        imports, call))
    options = engine.Options(select=("CG103",))
    found = check.check_alone(str(model), model.read_text(), options).diagnostics
    assert bool(found) is reported, found


def test_many_star_imports_stay_fast(tmp_path):
    # each star module read once (9 modules of 60 defs and 150 calls took 7.8 s: every
    # call parsed every later module again)
    import time

    for index in range(10):
        (tmp_path / ("m%d.py" % index)).write_text("".join(
            "def f%d_%d(x):\n    return x\n" % (index, k) for k in range(200)))
    with open(str(tmp_path / "m9.py"), "a") as handle:  # a site: the calls are looked up
        handle.write("import tensorflow as tf\n@tf.custom_gradient\ndef site(x, f=1.0):\n"
                     "    return x, lambda dy: dy\n")
    lines = ["from m%d import *" % index for index in range(10)]
    lines += ["y%d = f0_%d(%d)" % (k, k % 200, k) for k in range(300)] + [
        "z = site(tf.constant(1.0), tf.constant(2.0))"]
    model = tmp_path / "model.py"
    model.write_text("import tensorflow as tf\n" + "\n".join(lines) + "\n")
    started = time.process_time()
    found = check.check_alone(str(model), model.read_text(), engine.Options()).diagnostics
    assert [d.code for d in found] == ["CG103"]  # `site(1, 2)`: the lookups did run
    assert time.process_time() - started < 5


@pytest.mark.parametrize("stores, reported", [
    # fixtures/CG105/*_through_an_attribute.py: ValueError under TF 1.8
    ("self.act = soft_clip", True),
    ("act = soft_clip\n            self.act = act", True),
    # near-misses: set twice, to something else, or a method of the class
    ("self.act = soft_clip\n            self.act = tf.identity", False),
    ("self.act = tf.nn.relu", False),
    ("self.act = self.method", False),
])
def test_cg105_a_custom_gradient_function_kept_on_self(stores, reported):
    code = """
    import tensorflow as tf

    @tf.custom_gradient
    def soft_clip(x, limit=1.0):
        return limit * tf.tanh(x / limit), lambda dy: dy

    class Model(object):
        def __init__(self):
            STORES

        def method(self, x, limit=1.0):
            return x

        def __call__(self, x):
            return self.act(x, limit=2.0)
    """.replace("STORES", stores)
    assert bool(lint(code, select=["CG001", "CG105"])) is reported


@pytest.mark.parametrize("params, imports, read, reported", [
    # fixtures/CG102/bad_variable_from_another_module: None gradient under TF 1.8
    ('W = tf.get_variable("W", [2])', "from params import W", "W", True),
    ('W = tf.Variable([1.0, 2.0])', "import params", "params.W", True),
    # near-misses: no variable, bound twice, TensorFlow's own module, not trained
    ('W = tf.constant([1.0, 2.0])', "from params import W", "W", False),
    ('W = tf.Variable([1.0])\nW = tf.constant([1.0])', "from params import W", "W", False),
    ('W = tf.Variable([1.0], trainable=False)', "from params import W", "W", False),
    ("", "from tensorflow import float32 as W", "W", False),
])
def test_cg102_a_variable_another_project_module_makes(tmp_path, params, imports, read,
                                                        reported):
    (tmp_path / "params.py").write_text("import tensorflow as tf\n%s\n" % params)
    model = tmp_path / "main.py"
    model.write_text("\n".join([
        "import tensorflow as tf", imports, "@tf.custom_gradient", "def st_scale(x):",
        "    y = tf.round(x * %s)" % read, "    return y, lambda dy: dy", ""]))
    options = engine.Options(select=("CG102",))
    found = check.check_alone(str(model), model.read_text(), options)
    assert bool(found.diagnostics) is reported, found.diagnostics
    if reported:  # the finding rests on params.py: the cache must know
        assert any(d.path.endswith("params.py") for d in found.dependencies)


def test_cg109_a_tape_is_judged_by_the_override_maps_its_block_opens():
    # A graph-mode tape records only the ops made in its block: an override map opened
    # elsewhere in the module never reaches it (measured: both gradients right).
    code = """
    import tensorflow as tf
    from helpers import unknown

    def binarize(x):
        with tf.get_default_graph().gradient_override_map({"Sign": "Identity"}):
            return tf.sign(x)

    x = tf.constant([-0.5, 2.0])
    y = binarize(x)
    with tf.GradientTape() as unrelated:
        unrelated.watch(x)
        loss = tf.reduce_sum(x * x)
    with tf.GradientTape() as through_a_helper:
        through_a_helper.watch(x)
        loss = tf.reduce_sum(binarize(x))
    with tf.GradientTape() as direct:
        direct.watch(x)
        with tf.get_default_graph().gradient_override_map({"Sign": "Identity"}):
            loss = tf.reduce_sum(tf.sign(x))
    with tf.GradientTape() as not_followed:
        loss = unknown(x)
    with tf.get_default_graph().gradient_override_map({"Sign": "Identity"}):
        with tf.GradientTape() as opened_in_the_block:
            opened_in_the_block.watch(x)
            loss = tf.reduce_sum(tf.sign(x))
    """
    assert lint(code, select=["CG109"]) == [("CG109", 14, 6), ("CG109", 17, 6),
                                            ("CG109", 21, 6), ("CG109", 24, 10)]


def test_cg102_a_variable_default_is_read_only_by_calls_that_leave_it_out():
    code = """
    import tensorflow as tf

    w = tf.get_variable("w", [2])
    k = 2.0

    @tf.custom_gradient
    def scale(x, w=w):
        return x * w, lambda dy: (dy * w, dy * x)

    @tf.custom_gradient
    def passed(x, w=w):
        return x * w, lambda dy: (dy * w, dy * x)

    @tf.custom_gradient
    def constant(x, k=k):
        return x * k, lambda dy: (dy * k, None)

    @tf.custom_gradient
    def unused(x, w=w):
        return x * 2.0, lambda dy: (dy * 2.0, None)

    @tf.custom_gradient
    def never_called_here(x, w=w):
        return x * w, lambda dy: (dy * w, dy * x)

    x = tf.ones([2])
    a = scale(x, w) + scale(x)
    b = passed(x, w) + passed(x, *[w])
    c = constant(x) + unused(x)
    """
    assert lint(code, select=["CG102"]) == [("CG102", 8, 16)]


def test_eager_modules_are_graph_only_inside_what_tf_traces():
    # An eager module never takes the graph branch of `if tf.executing_eagerly():` outside
    # traced code: CG105 and CG108 agree there, whatever else the module traces.
    code = """
    import tensorflow as tf
    tf.enable_eager_execution()

    @tf.custom_gradient
    def f(x, s=1.0):
        return x * s, lambda dy: (dy * s, None)

    def run(x):
        if tf.executing_eagerly():
            return f(x)
        return f(x, s=2.0) + f(x, 3)

    parse = lambda row: f(row, s=2.0) + f(row, 3)
    rows = tf.data.Dataset.range(3).map(parse)
    batched = tf.contrib.data.map_and_batch(map_func=lambda r: f(r, s=2.0), batch_size=2)
    """
    assert lint(code, select=["CG105", "CG108"]) == [
        ("CG105", 14, 21), ("CG108", 14, 44), ("CG105", 16, 60)]
    alone = code.replace("    rows = tf.data.Dataset.range(3).map(parse)\n", "").replace(
        "    batched = tf.contrib.data.map_and_batch(map_func=lambda r: f(r, s=2.0), "
        "batch_size=2)\n", "")
    assert lint(alone, select=["CG105", "CG108"]) == []


def test_a_method_wrapped_through_self_is_a_custom_gradient_of_its_other_parameters():
    # `tf.custom_gradient(self._forward)`: `self` is bound (no CG108 for it), the inputs
    # are the other parameters, and the body is judged as any custom-gradient function's.
    code = """
    import tensorflow as tf

    class Layer(object):
        def _forward(self, x, y):
            w = tf.get_variable("w", [2])

            def grad(dy):
                return dy, dy, dy
            return x * y * w, grad

        def __call__(self, x, y):
            return tf.custom_gradient(self._forward)(x, y)

        @staticmethod
        def _static(x):
            return x, lambda dy: (dy, dy)

        def other(self, x):
            return tf.custom_gradient(self._static)(x)
    """
    assert lint(code) == [("CG101", 6, 13), ("CG103", 9, 13)]


def test_tf18s_own_tests_of_eager_execution_decide_branches_too():
    # context.in_eager_mode(), tfe.in_eager_mode(), context.context().executing_eagerly()
    # and not context.in_graph_mode() are 1.8's spellings of tf.executing_eagerly().
    template = """
    import tensorflow as tf
    from tensorflow.python.eager import context
    tfe = tf.contrib.eager

    @tf.custom_gradient
    def f(x, factor=2.0):
        return x * factor, lambda dy: dy * factor

    def g(x):
        if TEST:
            return f(x, factor=3.0)
        return f(x)
    """
    for test in ("context.in_eager_mode()", "tfe.in_eager_mode()",
                 "context.context().executing_eagerly()", "not context.in_graph_mode()"):
        assert lint(template.replace("TEST", test), select=["CG105"]) == [], test
    assert lint(template.replace("TEST", "context.in_graph_mode()"), select=["CG105"]) == [
        ("CG105", 12, 16)]


@pytest.mark.parametrize("made, read, reported", [
    # a comprehension, a loop of appends, item stores, extend and update of displays
    ("weights = [tf.Variable([2.0, 3.0]) for _ in range(2)]", "weights[0]", True),
    ("weights = {k: tf.get_variable(k, [2]) for k in 'ab'}", "weights['a']", True),
    ("weights = []\nfor i in range(2):\n    weights.append(tf.get_variable('w%d' % i, [2]))",
     "weights[-1]", True),
    ("weights = [tf.Variable(1.0)]\nweights.insert(0, tf.Variable(2.0))", "weights[0]", True),
    ("weights = {}\nfor i in range(2):\n    weights['h%d' % i] = tf.get_variable('h%d' % i, [2])",
     "weights['h0']", True),
    ("weights = []\nweights.extend([tf.Variable(1.0), tf.Variable(2.0)])", "weights[1]", True),
    ("weights = {}\nweights.update({'a': tf.Variable(1.0)}, b=tf.Variable(2.0))",
     "weights['a']", True),
    ("def build():\n    weights.append(tf.get_variable('w', [2]))\nweights = []\nbuild()",
     "weights[0]", True),
    ("weights = {'h1': tf.Variable(1.0)}\nweights['out'] = tf.constant(1.0)", "weights['h1']",
     True),
    ("weights = {}\nweights.setdefault('a', tf.Variable(1.0))\nweights.update(b=2.0)",
     "weights['a']", True),
    # near-misses: something else put in, something put in that cannot be seen, a list
    # never filled, a slice, a non-trainable variable, a tensor of a comprehension
    ("weights = []\nfor i in range(2):\n    weights.append(tf.get_variable('w%d' % i, [2]))\n"
     "weights.append(tf.constant(1.0))", "weights[0]", False),
    ("weights = {'a': tf.Variable(1.0)}\nweights['a'] = tf.constant(1.0)", "weights['a']", False),
    ("weights = {'a': tf.Variable(1.0)}\nweights[key] = tf.constant(1.0)", "weights['a']", False),
    ("weights = {'a': tf.Variable(1.0)}\nweights.update(a=1.0)", "weights['a']", False),
    ("weights = {'h1': tf.Variable(1.0)}\nweights['out'] = tf.constant(1.0)", "weights[key]",
     False),
    ("weights = [tf.Variable(1.0)]\nweights[0] = tf.constant(1.0)", "weights[0]", False),
    ("weights = [tf.Variable(1.0)]\nweights.extend(others)", "weights[0]", False),
    ("weights = {}\nweights.update(**others)", "weights['a']", False),
    ("weights = []\nweights.append(*others)", "weights[0]", False),
    ("weights = {}\nweights['a'], weights['b'] = others", "weights['a']", False),
    ("weights = []", "weights[0]", False),
    ("weights = [tf.Variable(1.0) for _ in range(2)]", "weights[:1]", False),
    ("weights = [tf.Variable(1.0, trainable=False) for _ in range(2)]", "weights[0]", False),
    ("weights = [tf.constant(1.0) for _ in range(2)]", "weights[0]", False),
    ("weights = []\nweights.append(tf.Variable(1.0))\nweights += [2.0]", "weights[0]", False),
    # a container that goes where anything may fill it or move its elements (measured:
    # layers[-1] of the first is Const:0 on py36)
    ("def add_to(container, value):\n    container.append(value)\nweights = []\n"
     "for i in range(2):\n    weights.append(tf.get_variable('w%d' % i, [2]))\n"
     "add_to(weights, tf.constant([1.0, 2.0]))", "weights[-1]", False),
    ("weights = [tf.Variable(1.0)]\nother = weights\nother.append(tf.constant(1.0))",
     "weights[-1]", False),
    ("def made():\n    return weights\nweights = [tf.Variable(1.0)]\n"
     "made().append(tf.constant(1.0))", "weights[-1]", False),
    ("class Holder(object):\n    pass\nholder = Holder()\nweights = [tf.Variable(1.0)]\n"
     "holder.weights = weights\nholder.weights.append(tf.constant(1.0))", "weights[-1]",
     False),
    ("weights = [tf.Variable(1.0)]\nadd = weights.append\nadd(tf.constant(1.0))",
     "weights[-1]", False),
    ("weights = [tf.Variable(1.0), tf.constant(1.0)]\nweights.reverse()", "weights[0]", False),
    ("weights = [tf.Variable(1.0), tf.constant(1.0)]\ndel weights[0]", "weights[0]", False),
    # reads that change nothing in it
    ("weights = [tf.Variable(1.0)]\nfor w in weights:\n    print(w)\n"
     "n = len(weights) + weights.index(weights[0])\nassert weights[0] in weights\n"
     "saver = tf.train.Saver(var_list=weights)\nvalues = tf.stack(weights)", "weights[0]",
     True),
])
def test_cg102_a_variable_in_a_list_or_dict_the_module_fills(made, read, reported):
    code = textwrap.dedent("""
    import tensorflow as tf

    others = [1.0]
    key = 'a'
    """) + made + textwrap.dedent("""


    @tf.custom_gradient
    def f(x):
        def grad(dy):
            return dy
        return x * READ, grad
    """).replace("READ", read)
    line = code.count("\n")  # the last line reads it
    assert (lint(code, select=["CG102"]) == [("CG102", line, 16)]) is reported
    assert lint(code.replace("def f(x):", "def f(x, weights):"), select=["CG102"]) == []


@pytest.mark.parametrize("read, reported", [
    ("tf.trainable_variables()[0]", True),
    ("tf.trainable_variables(scope='s')[-1]", True),
    ("tf.get_collection(tf.GraphKeys.TRAINABLE_VARIABLES)[0]", True),
    ("tf.get_collection_ref(key='trainable_variables')[0]", True),
    # near-misses: a collection that may hold a step counter or moving statistics (no
    # gradient wanted), another collection, a slice, the count of them
    ("tf.global_variables()[0]", False),
    ("tf.get_collection(tf.GraphKeys.UPDATE_OPS)[0]", False),
    ("tf.get_collection('losses')[0]", False),
    ("tf.trainable_variables()[:1]", False),
    ("len(tf.trainable_variables())", False),
    ("tf.trainable_variables()[0].shape[0]", False),
])
def test_cg102_a_variable_read_from_the_graphs_collection(read, reported):
    # Under TF 1.8 the variable the element is gets None from tf.gradients, as any other
    # read by closure (checked with get_collection and trainable_variables).
    code = """
    import tensorflow as tf

    w = tf.Variable([2.0, 3.0])

    @tf.custom_gradient
    def f(x):
        v = READ
        def grad(dy):
            return dy * v
        return x * v, grad
    """.replace("READ", read)
    assert (lint(code, select=["CG102"]) == [("CG102", 8, 9)]) is reported


def test_cg102_a_list_given_as_a_class_keyword_escapes_without_an_error():
    # review: a keyword of a class statement (no call) raised AttributeError in CG102
    code = """
    import tensorflow as tf
    layers = []
    for i in range(2):
        layers.append(tf.get_variable("w%d" % i, [2]))

    class A(object, extra=layers):
        pass

    @tf.custom_gradient
    def f(x):
        y = x * layers[-1]
        def grad(dy):
            return dy
        return y, grad
    """
    assert lint(code, select=["CG102"], target_python=(3, 6)) == []


STRUCTURED = """
import tensorflow as tf
nest = tf.contrib.framework.nest


@tf.custom_gradient
def mul(x, w):
    def grad(dy):
        BODY
    return x * w, grad
"""


def _cg103_messages(body, select=("CG103",)):
    code = STRUCTURED.replace("BODY", body.replace("\n", "\n        "))
    options = engine.Options(select=tuple(select), target_python=(3, 6))
    result = check.check_alone("snippet.py", code, options)
    assert not result.error, result.error
    return [(d.code, d.message) for d in result.diagnostics]


@pytest.mark.parametrize("body", [
    # probe U, FP1 and FP2: each measured on TF 1.8 (py27, py36): two gradients, runs
    "return tf.clip_by_global_norm([dy * w, dy * x], 1.0)[0]",
    "clipped = tf.clip_by_global_norm([dy * w, dy * x], 1.0)[0]\nreturn clipped",
    "clipped, _ = tf.clip_by_global_norm([dy * w, dy * x], 1.0)\nreturn clipped",
    "return tf.contrib.framework.nest.map_structure(lambda t: t * 0.5, (dy, dy))",
    "return nest.map_structure(lambda t: t * 0.5, [dy, dy])",
    "return nest.pack_sequence_as((x, w), [dy * 0.5, dy * 0.5])",
    # the same family
    "return nest.map_structure(tf.identity, (dy, dy))",
    "return nest.flatten([dy, [dy]])",
    "return tf.tuple([dy * w, dy * x])",
    "return tf.identity_n([dy * w, dy * x])",
    "return tf.meshgrid(dy, dy)",
    "return tf.gradients(x * w, [x, w], grad_ys=dy)[0], None",
    "return tf.split(dy, 4)[1:3]",
    "clipped, norm = tf.clip_by_global_norm([dy * w], 1.0)\nreturn clipped[0], norm",
    # unknown: no finding
    "return nest.map_structure(lambda t: (t, t), (dy, dy))",
    "return nest.map_structure(_scale, (dy, dy, dy))",
    "return nest.flatten_up_to([1, 2], [dy, dy, dy])",
    "return tf.clip_by_global_norm([dy * w, dy * x], 1.0)[i]",
    "return tf.unstack(dy)",
])
def test_cg103_structured_results_near_misses(body):
    assert _cg103_messages(body) == []


@pytest.mark.parametrize("body, returned", [
    # probe U, M2 (u133): TF 1.8 `Num gradients 4`: the list of 2 and the norm
    ("return tf.clip_by_global_norm([dy * w, dy * x], 1.0)", 3),
    ("return tf.clip_by_global_norm([dy * w, dy * x, dy], 1.0)[0]", 3),
    ("clipped = tf.clip_by_global_norm([dy], 1.0)[0]\nreturn clipped", 1),
    ("return nest.map_structure(lambda t: t * 0.5, (dy, dy, dy))", 3),
    ("return nest.flatten([dy, [dy, dy]])", 3),
    ("return tf.tuple([dy * w, dy * x, dy])", 3),
    ("return tf.identity_n([dy * w])", 1),
    ("return tf.meshgrid(dy, dy, dy)", 3),
    ("return tf.gradients(x * w, [x, w], grad_ys=dy)[0]", 1),
    ("return tf.nn.moments(dy, [0])[0]", 1),
    ("return tf.unstack(dy)[0]", 1),
    ("return (dy * w, dy * x)[0]", 1),
])
def test_cg103_counts_structured_results(body, returned):
    assert _cg103_messages(body) == [("CG103", "`mul` takes 2 tensor inputs but its gradient "
                                      "function `grad` returns %d gradient%s"
                                      % (returned, "" if returned == 1 else "s"))]


def test_cg103_tf2_nest_is_cg402_alone():
    # probe U, u116: `tf.nest` is TF 2's; its map_structure keeps the two gradients
    found = _cg103_messages("return tf.nest.map_structure(lambda t: t * 0.5, (dy, dy))",
                            select=("CG103", "CG402"))
    assert [code for code, _ in found] == ["CG402"]


def test_cg103_a_list_of_known_items_joined_with_a_display():
    # probe Y, c22: `gs = tf.split(dy, 2); return gs + [dy]` is three gradients for two
    # inputs (`Num gradients 4`, measured on py27 and py36); a tensor plus a list is one.
    code = """
    import tensorflow as tf

    @tf.custom_gradient
    def f(x, w):
        def grad(dy):
            gs = tf.split(dy, 2)
            return gs + [dy]
        return tf.concat([x, w], 0), grad

    @tf.custom_gradient
    def g(x, w, v):
        def grad(dy):
            gs = tf.split(dy, 2)
            return gs + [dy[:1]]
        return tf.concat([x, w, v], 0), grad

    @tf.custom_gradient
    def h(x, w):
        def grad(dy):
            return dy + [1.0, 2.0], dy
        return x * w, grad
    """
    assert lint(code, select=["CG103"]) == [("CG103", 8, 9)]
