"""CG401-CG403: names and keywords newer than TF 1.8, through every alias form."""
import json
import os

import pytest

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
    assert [(e.text, e.safe) for e in fixes[3]] == [("T.log", True)]  # tf.log from 1.10


def test_renames_are_safe_only_for_the_same_object_and_a_fitting_call():
    from cglint import engine
    text = ("import tensorflow as tf\n"
            "a = tf.random.normal([2], seed=1)\n"  # tf.random_normal from 1.12: safe
            "b = tf.random.set_seed(1)\n"  # a 1.8 rename, never the same object: unsafe
            "c = tf.math.log(1.0, base=2)\n"  # 1.8's tf.log takes no `base`: no fix
            "d = tf.print(a)\n")  # tf.Print is not a drop-in: no fix
    result = engine.lint_text("a.py", text, engine.Options())
    fixes = {d.line: edits for d, edits in result.fixes}
    assert [(e.text, e.safe) for e in fixes[2]] == [("tf.random_normal", True)]
    assert [(e.text, e.safe) for e in fixes[3]] == [("tf.set_random_seed", False)]
    assert 4 not in fixes and 5 not in fixes


def test_a_name_that_became_the_18_object_only_later_gets_an_unsafe_fix():
    # tf.nn.avg_pool2d came in 1.14 as another function and is 1.15's tf.nn.avg_pool,
    # which by then took `ksize=2`: the rewritten call raises on 1.8 (`Expected list for
    # 'ksize'`, measured), so the fix is not applied without --unsafe-fixes.
    from cglint import engine
    # With one size (`ksize=2`) even the unsafe fix is withheld (probe W: redner).
    text = ("import tensorflow as tf\n"
            "p = tf.nn.avg_pool2d(x, ksize=[1, 2, 2, 1], strides=(1, 2, 2, 1), padding='SAME')\n"
            "m = tf.math.log(x)\n"  # tf.log's own alias from its first release: safe
            "q = tf.nn.avg_pool2d(x, ksize=2, strides=[1, 2, 2, 1], padding='SAME')\n"
            "r = tf.nn.avg_pool2d(x, [1, 2, 2, 1], [2, 2], 'SAME')\n")
    result = engine.lint_text("a.py", text, engine.Options())
    fixes = {d.line: edits for d, edits in result.fixes}
    assert [(e.text, e.safe) for e in fixes[2]] == [("tf.nn.avg_pool", False)]
    assert [(e.text, e.safe) for e in fixes[3]] == [("tf.log", True)]
    assert 4 not in fixes and 5 not in fixes
    assert [d.line for d in result.diagnostics] == [2, 3, 4, 5]


def test_renamed_keywords_get_their_18_spelling():
    from cglint import engine
    text = ("import tensorflow as tf\n"
            "m = tf.nn.moments(x, [0], keepdims=True)\n"
            "s = tf.reduce_sum(x, keepdims=True)\n"  # 1.8 takes both spellings
            "l = tf.nn.softmax_cross_entropy_with_logits(labels=y, logits=x, axis=1)\n"
            "g = tf.gradients(x, [x], unconnected_gradients='zero')\n")
    result = engine.lint_text("a.py", text, engine.Options())
    assert [(d.code, d.line, d.col) for d in result.diagnostics] == [
        ("CG403", 2, 27), ("CG403", 4, 65), ("CG403", 5, 26)]
    fixes = {d.line: edits for d, edits in result.fixes}
    assert [e.text for e in fixes[2]] == ["keep_dims"] and [e.text for e in fixes[4]] == ["dim"]
    assert 5 not in fixes
    assert "it spells it `keep_dims`" in result.diagnostics[0].message


def test_renames_are_per_function_from_tfs_upgrade_script():
    """The renames come from tf_upgrade_v2's function_keyword_renames (generated data),
    per function: not only keepdims/axis, and not for a function TF never renamed."""
    from cglint import engine
    text = ("import tensorflow as tf\n"
            "c = tf.nn.conv2d(x, filters=w, strides=[1, 1, 1, 1], padding='SAME')\n"
            "b = tf.image.crop_and_resize(i, boxes, box_indices=n, crop_size=[4, 4])\n"
            # 1.8's unit_norm takes `dim` and not `axis`, but TF never renamed it:
            # reported, with no spelling guessed and no fix
            "u = tf.contrib.layers.unit_norm(x, axis=1)\n")
    result = engine.lint_text("a.py", text, engine.Options())
    assert [(d.code, d.line) for d in result.diagnostics] == [
        ("CG403", 2), ("CG403", 3), ("CG403", 4)]
    fixes = {d.line: edits for d, edits in result.fixes}
    assert [e.text for e in fixes[2]] == ["filter"] and [e.text for e in fixes[3]] == ["box_ind"]
    assert 4 not in fixes and "spells it" not in result.diagnostics[2].message


def test_keyword_renames_are_generated_data():
    from cglint import tfapi
    with open(os.path.join(os.path.dirname(tfapi.__file__), "data",
                           "tf_keyword_renames.json"), encoding="utf-8") as handle:
        data = json.load(handle)
    assert data["doc"].startswith("Generated by tools/gen_keyword_renames.py; do not edit.")
    assert data["renames"]["tensorflow.nn.moments"] == {"keepdims": "keep_dims"}
    assert tfapi.earlier_keyword("tensorflow.nn.moments", "keepdims") == "keep_dims"
    assert tfapi.earlier_keyword("tensorflow.nn.moments", "axes") is None
    assert tfapi.earlier_keyword("tensorflow.reduce_mean", "axis") == "reduction_indices"


def test_target_tf_changes_the_verdict():
    from cglint import engine
    text = "import tensorflow as tf\ntf.compat.v1.Session()\n"
    assert engine.lint_text("a.py", text, engine.Options(target_tf="1.13")).diagnostics == []


def _messages(code, select=("CG4",)):
    from cglint import engine
    import textwrap
    result = engine.lint_text("a.py", textwrap.dedent(code), engine.Options(select=select))
    return [(d.code, d.line, d.message) for d in result.diagnostics]


def test_import_paths_of_the_wheel_are_not_attribute_names():
    # contrib.autograph is in the 1.8 wheel but tf.contrib does not load it.
    code = """
    from tensorflow.contrib.autograph.pyct import anno
    from tensorflow.contrib.autograph.pyct.static_analysis.annos import NodeAnno
    from tensorflow.contrib.boosted_trees.proto import learner_pb2
    x = anno.Basic.SKIP_PROCESSING
    y = learner_pb2.LearnerConfig
    z = anno.no_such_function
    """
    [(code_, line, message)] = _messages(code)
    assert (code_, line) == ("CG402", 7)
    assert "module `tensorflow.contrib.autograph.pyct.anno` has no `no_such_function`" in message


def test_names_bound_by_working_imports_are_followed_into_their_modules():
    code = """
    from tensorflow.contrib.slim.nets import resnet_v1
    from tensorflow.contrib.nccl.ops import gen_nccl_ops
    a = resnet_v1.resnet_v1_50
    b = gen_nccl_ops.nccl_all_reduce
    c = resnet_v1.resnet_v1_5000
    """
    assert lint(code) == [("CG402", 6, 5)]


def test_an_attribute_reached_after_its_module_is_imported():
    code = """
    import tensorflow as tf
    import tensorflow.contrib.autograph
    a = tf.contrib.autograph.to_graph
    """
    assert lint(code) == []
    [(_, line, message)] = _messages("import tensorflow as tf\nf = tf.contrib.autograph.to_graph\n")
    assert line == 2 and "`import tensorflow.contrib.autograph` loads it" in message


def test_gpu_only_modules_import_and_are_never_suggested_as_attributes():
    code = """
    import tensorflow as tf
    import tensorflow.contrib.tensorrt as trt
    from tensorflow.contrib.tensorrt import create_inference_graph
    g = trt.create_inference_graph
    """
    assert lint(code) == []
    [(_, _, message)] = _messages("import tensorflow as tf\ng = tf.contrib.tensorrt.create_inference_graph\n")
    assert "`import tensorflow.contrib.tensorrt` loads it (GPU build only)" in message
    assert "use `tf.contrib.tensorrt" not in message


def test_a_failing_aliased_import_is_reported_once():
    code = """
    import tensorflow.compat.v1 as tf
    x = tf.placeholder(tf.float32)
    s = tf.Session()
    """
    assert lint(code) == [("CG402", 2, 1)]


def test_names_reached_through_aliases_of_a_failing_import_are_its_finding():
    code = """
    import tensorflow.compat.v1 as tf
    import tensorflow as tf1
    flags = tf.flags
    FLAGS = flags.FLAGS
    print(FLAGS.output_dir, flags.FLAGS.data_dir)
    nn = tf1.nn
    y = nn.gelu(1.0)
    def f(x):
        FLAGS = tf1.flags.FLAGS
        return FLAGS.model_dir, x
    """
    # The import is the one cause of the first five lines. An alias of an import that
    # works is judged by what it reaches (tf.nn.gelu is new in 2.4), and a flag read
    # through a working module is no API name.
    assert lint(code) == [("CG402", 2, 1), ("CG402", 8, 5)]


def test_messages_say_what_the_table_covers_and_the_18_spelling():
    code = """
    import tensorflow as tf
    a = tf.RMSPropOptimizer
    b = tf.moments
    c = tf.image.per_image_whitening
    """
    messages = [message for _, _, message in _messages(code)]
    assert messages[0].endswith("(the table covers 1.8 to 2.15); TF 1.8 has `RMSPropOptimizer` as "
                                "`tf.train.RMSPropOptimizer`")
    assert messages[1].endswith("TF 1.8 has `moments` as `tf.nn.moments`")
    assert "no TensorFlow release" not in messages[2] and "1.8 has" not in messages[2]


def test_import_messages_never_suggest_a_failing_spelling():
    [(_, _, keras)] = _messages("from tensorflow.keras.layers import Dense\n")
    assert keras.endswith("reach it as an attribute instead (`tf.keras.layers.Dense`)")
    [(_, _, compat)] = _messages("import tensorflow.compat.v1 as tf\n")
    assert "attribute instead" not in compat and "new in 1.13" in compat


def test_private_names_of_known_modules_are_not_flagged():
    code = """
    import tensorflow as tf
    from tensorflow.contrib.layers import feature_column
    a = feature_column._RealValuedColumn
    b = tf.contrib.layers.feature_column._SparseColumn
    """
    assert lint(code) == []


def test_imports_follow_the_wheels_and_what_the_18_interpreter_did():
    code = """
    from tensorflow.contrib.autograph.pyct.anno import Basic
    from tensorflow.contrib.autograph.pyct.anno import nothing
    import tensorflow.contrib.recurrent.python.recurrent_api
    import tensorflow.python.debug.lib.grpc_debug_test_server
    from tensorflow.python.ops import math_ops
    """
    found = _messages(code)
    assert [(code_, line) for code_, line, _ in found] == [("CG402", 3), ("CG402", 4)]
    assert "(module `tensorflow.contrib.autograph.pyct.anno` has no `nothing`)" in found[0][2]
    assert "ImportError: cannot import name 'functional_bidirectional_rnn'" in found[1][2]
    # grpc_debug_test_server fails in the probe only for want of portpicker: not TF's doing.


def test_a_from_import_of_a_missing_module_is_one_finding():
    code = """
    from tensorflow.contrib.rnn.python.ops.core_rnn import static_rnn, static_bidirectional_rnn
    """
    [(code_, line, message)] = _messages(code)
    assert message.startswith("`from tensorflow.contrib.rnn.python.ops.core_rnn import ...` "
                              "raises ImportError in TF 1.8 (no TF 1.8 wheel has module")


def test_contrib_only_spellings_are_offered_with_care():
    [(_, _, message)] = _messages("import tensorflow as tf\nx = tf.merge_summary\n")
    assert message.endswith("TF 1.8 has a `merge_summary` only in contrib "
                            "(`tf.contrib.deprecated.merge_summary`): check it is the same function")
    [(_, _, message)] = _messages("import tensorflow as tf\nx = tf.sub\n")
    assert ".python." not in message


def test_tf_print_through_a_failing_import_is_the_import_finding():
    code = """
    from __future__ import print_function
    import tensorflow.compat.v1 as tf
    tf.print(1)
    """
    assert lint(code) == [("CG402", 3, 1)]


def test_a_contrib_name_the_table_does_not_list_after_18_is_not_called_absent_everywhere():
    messages = [message for _, _, message in _messages(
        "import tensorflow as tf\n"
        "a = tf.contrib.tpu.InputPipelineConfig\n"
        "b = tf.contrib.tpu.InputPipelineConfig.PER_HOST_V2\n")]
    assert messages[0].endswith("(it may be in 1.9 to 1.15, whose contrib the table does not "
                                "list)")
    assert "`tf.contrib.tpu.InputPipelineConfig` is absent, and may be in 1.9 to 1.15" in \
        messages[1]
    assert not any("no release" in message for message in messages)


def test_cg403_steps_of_a_tf_data_pipeline():
    code = """
    import tensorflow as tf
    a = tf.data.Dataset.range(10).map(lambda i: i * 2).batch(2, drop_remainder=True)
    ds = tf.data.TFRecordDataset(["train.tfrecord"])
    ds = ds.map(lambda record: record, num_parallel_calls=4)
    ds = ds.shuffle(100).batch(4, drop_remainder=True)
    fine = ds.prefetch(buffer_size=1).padded_batch(2, padded_shapes=[None])
    other = make_dataset()
    unknown = other.batch(2, drop_remainder=True)
    mixed = tf.data.TFRecordDataset(["f"])
    mixed = build(mixed)
    maybe = mixed.batch(2, drop_remainder=True)
    """
    # A dataset's steps keep it a dataset, through names rebound step by step; a value
    # from anything else (a project function) is not known to be one.
    assert lint(code) == [("CG403", 3, 61), ("CG403", 6, 31)]


def test_names_rebound_from_each_other_are_looked_at_once_each():
    # 30 names, each rebound 30 times from the others: without a memo the pipeline search
    # is 30 ** 6 looks; with it, one per name.
    names = ["n%d" % i for i in range(30)]
    lines = ["import tensorflow as tf", "n0 = tf.data.TFRecordDataset(['f'])"]
    lines += ["%s = %s.map(f)" % (name, names[(i + j + 1) % 30])
              for i, name in enumerate(names) for j in range(30)]
    lines.append("y = n5.batch(2, drop_remainder=True)")
    assert lint("\n".join(lines) + "\n") == []  # n0 is also rebound: not surely a dataset


def test_attributes_the_code_sets_on_tensorflow_are_its_own():
    code = """
    import tensorflow as tf
    tf.model = tf.keras.Sequential()
    tf.model.add(tf.keras.layers.Dense(units=1, input_dim=1))
    if not hasattr(tf, "log1p_safe"):
        tf.log1p_safe = tf.log1p
    y = tf.log1p_safe(1.0)
    tf.compat.v1.helper = None
    z = tf.no_such_name
    """
    # What the code stores is there afterwards; the module it stores into must exist.
    assert lint(code) == [("CG402", 8, 1), ("CG402", 9, 5)]


def test_cg402_methods_a_made_object_lacks_in_18():
    code = """
    import tensorflow as tf
    ds = tf.data.Dataset.from_tensor_slices([1, 2, 3]).batch(2).unbatch()
    it = ds.make_one_shot_iterator()
    opt = tf.train.AdamOptimizer(0.1)
    opt.minimize(tf.constant(1.0))
    opt.get_config()
    with tf.GradientTape() as tape:
        pass
    tape.gradient(1, 2)
    tape.batch_jacobian(1, 2)
    if hasattr(tape, "jacobian"):
        tape.jacobian(1, 2)
    session = tf.Session()
    session.make_callable(1)
    """
    # At the method's name; a tested method is guarded; a session's methods are not
    # judged (only tapes, pipelines and optimizers).
    assert lint(code, select=["CG402"]) == [
        ("CG402", 3, 61), ("CG402", 7, 5), ("CG402", 11, 6)]


def test_cg403_calls_of_names_bound_to_tensorflow_functions():
    code = """
    import tensorflow as tf
    from tensorflow import gradients
    from tensorflow.nn import moments as mom
    x = tf.ones([2])
    g = gradients(x, x, unconnected_gradients="zero")
    m = tf.nn.moments
    m(x, [0], keepdims=True)
    mom(x, [0], keepdims=True)
    """
    # `mom` comes through an import that fails: the import is the one finding.
    assert lint(code, select=["CG402", "CG403"]) == [
        ("CG402", 4, 1), ("CG403", 6, 21), ("CG403", 8, 11)]


def test_cg403_no_1_8_spelling_for_a_keyword_of_the_function_tf2_gave_the_name_to():
    code = """
    import tensorflow as tf
    x = tf.ones([2, 5, 3])
    y = tf.batch_to_space(input=x, block_shape=[2], crops=[[0, 0]])
    m = tf.nn.moments(x, [0], keepdims=True)
    """
    # TF 2's batch_to_space is 1.x batch_to_space_nd: 1.x batch_to_space's int
    # block_size is no spelling of its list block_shape. moments' keepdims is a rename.
    from cglint import check, engine
    import textwrap
    result = check.check_alone("snippet.py", textwrap.dedent(code), engine.Options())
    found = {d.line: (d.message, d.fix is not None) for d in result.diagnostics}
    assert "spells" not in found[4][0] and not found[4][1]
    assert "spells it `keep_dims`" in found[5][0] and found[5][1]


def test_cg402_no_fix_when_the_call_leaves_out_what_18_requires():
    from cglint import check, engine
    import textwrap
    code = """
    import tensorflow as tf
    a = tf.TensorSpec([None, 3])
    b = tf.TensorSpec([None, 3], tf.float32)
    c = tf.TensorSpec(shape=[2], dtype=tf.int32)
    """
    result = check.check_alone("snippet.py", textwrap.dedent(code), engine.Options())
    fixable = {d.line: d.fix is not None for d in result.diagnostics}
    # 1.8's TensorSpec requires a dtype, which later releases default to float32.
    assert fixable == {3: False, 4: True, 5: True}


def test_cg402_a_method_guarded_on_the_class_or_stored_on_the_object():
    code = """
    import tensorflow as tf
    with tf.GradientTape(persistent=True) as tape:
        pass
    if hasattr(tf.GradientTape, "jacobian"):
        tape.jacobian(1, 2)
    opt = tf.train.AdamOptimizer(0.1)
    opt.warm = lambda: 1
    opt.warm()
    opt.get_config()
    """
    assert lint(code, select=["CG402"]) == [("CG402", 10, 5)]


@pytest.mark.parametrize("tried, handler, reported", [
    ("import tensorflow.compat.v1 as tf", "ImportError", True),
    ("from tensorflow.compat import v1 as tf", "(ImportError, AttributeError)", True),
    ("import tensorflow.compat.v1 as tf", "Exception", True),
    # near-misses: an import 1.8 has (both bindings stay: unknown), a handler that is no
    # fallback for an import
    ("import tensorflow.contrib.eager as tf", "ImportError", False),
    ("import tensorflow.compat.v1 as tf", "ValueError", False),
])
def test_an_import_fallback_binds_the_fallback_on_1_8(tried, handler, reported):
    code = """
    try:
        TRIED
    except HANDLER:
        import tensorflow as tf
    y = tf.math.log(tf.constant(1.0))
    """.replace("TRIED", tried).replace("HANDLER", handler)
    assert (("CG402", 6, 5) in lint(code)) is reported


def test_a_dataset_a_factory_made_once_is_judged_by_its_methods():
    code = """
    import tensorflow as tf

    train = tf.data.Dataset.from_tensor_slices([1.0, 2.0, 3.0])
    batched = train.batch(2, drop_remainder=True)
    shuffled = train.shuffle(buffer_size=3)

    def input_fn(make):
        ds = tf.data.Dataset.range(10)
        other = make()
        return ds.batch(4, drop_remainder=True), other.batch(4, drop_remainder=True)
    """
    # near-misses: a keyword 1.8 takes, a receiver of unknown making
    assert lint(code) == [("CG403", 5, 26), ("CG403", 11, 24)]


def test_a_dataset_a_helper_of_the_module_returns_is_judged_by_its_methods():
    code = """
    import tensorflow as tf

    def make_ds(n):
        return tf.data.Dataset.range(n)

    def make_batched(n):
        ds = make_ds(n)
        return ds.shuffle(buffer_size=8)

    def maybe(n):
        if n:
            return tf.data.Dataset.range(n)
        return [n]

    a = make_ds(10).batch(4, drop_remainder=True)
    b = make_batched(10).batch(4, drop_remainder=True)
    c = maybe(10).batch(4, drop_remainder=True)
    d = make_ds(10).batch(batch_size=4)
    """
    # near-misses: a helper that may return something else; a keyword 1.8 takes
    assert lint(code) == [("CG403", 16, 26), ("CG403", 17, 31)]


@pytest.mark.parametrize("handler, reported", [
    ("AttributeError", True),  # guards the name, which 1.8 has; the keyword still raises
    ("TypeError", False),
    ("Exception", False),
])
def test_a_keyword_is_guarded_only_by_what_catches_its_type_error(handler, reported):
    code = """
    import tensorflow as tf
    try:
        loss = tf.nn.softmax_cross_entropy_with_logits_v2(labels=a, logits=b, axis=-1)
    except HANDLER:
        loss = tf.nn.softmax_cross_entropy_with_logits(labels=a, logits=b)
    """.replace("HANDLER", handler)
    assert (lint(code) == [("CG403", 4, 75)]) is reported


def test_a_keyword_whose_initials_the_18_signature_has_gets_a_hint_not_a_fix():
    code = """
    import tensorflow as tf
    opt = tf.keras.optimizers.Adam(learning_rate=0.01)
    sgd = tf.keras.optimizers.SGD(learning_rate=0.1, lr=0.1)
    """
    from cglint import check, engine
    import textwrap
    result = check.check_alone("a.py", textwrap.dedent(code), engine.Options(select=("CG403",)))
    messages = [d.message for d in result.diagnostics]
    assert messages[0].endswith("did you mean `lr`?") and not result.fixes
    assert "did you mean" not in messages[1]  # near-miss: it passes `lr` already


def test_cg402_a_tapes_gradient_of_a_list_of_targets():
    # facts e6: TF 1.8's GradientTape.gradient takes one target tensor (measured in eager
    # and graph mode); sources may be a list, and other objects' `gradient` are not tapes.
    code = """
    import tensorflow as tf

    x = tf.constant([1.0, 2.0])
    with tf.GradientTape() as tape:
        tape.watch(x)
        y1, y2 = x * x, x * 3.0
    a = tape.gradient([y1, y2], x)
    b = tape.gradient(target=(y1, y2), sources=x)
    c = tape.gradient(y1 + y2, [x])
    d = tape.gradient([y1, y2][0], x)
    e = model.gradient([y1, y2], x)
    """
    assert lint(code, select=["CG402"]) == [("CG402", 8, 19), ("CG402", 9, 26)]


def test_cg402_a_tapes_gradient_of_a_name_bound_to_a_list_of_targets():
    # probe t16: `targets = (y1, y2); tape.gradient(targets, x)` raises AttributeError
    # on py27 and py36 as the display does; a name bound to anything else is not judged
    code = """
    import tensorflow as tf

    x = tf.constant([1.0, 2.0])
    with tf.GradientTape(persistent=True) as tape:
        tape.watch(x)
        y1, y2 = x * x, x * 3.0
    targets = (y1, y2)
    listed = [y1]
    listed.append(y2)
    total = y1 + y2
    a = tape.gradient(targets, x)
    b = tape.gradient(listed, x)
    c = tape.gradient(total, x)
    """
    assert lint(code, select=["CG402"]) == [("CG402", 12, 19), ("CG402", 13, 19)]


@pytest.mark.parametrize("tape, inside, reported", [
    ("tf.GradientTape()", True, True),
    ("tf.GradientTape(persistent=False)", True, True),
    ("tf.GradientTape(persistent=True)", True, False),  # allowed, if slower
    ("tf.GradientTape(persistent=keep)", True, False),  # unknown
    ("tf.GradientTape()", False, False),
])
def test_cg402_a_tapes_gradient_inside_its_own_block(tape, inside, reported):
    # probe t76: RuntimeError "Trying to call tape.gradient on a non-persistent tape while
    # it is still active" on py27 and py36, eager and graph mode alike (measured); TF 2
    # allows it, so TF 2 snippets do it
    code = ("import tensorflow as tf\nx = tf.constant([1.0])\nwith %s as t:\n"
            "    t.watch(x)\n    y = x * x\n%sg = t.gradient(y, x)\n"
            "    def later():\n        return t.gradient(y, x)\n" % (
                tape, "    " if inside else ""))
    assert lint(code, select=["CG402"]) == ([("CG402", 6, 9)] if reported else [])


def test_cg402_a_tensor_as_a_tapes_output_gradients_is_fixed_as_a_list():
    # probe t07: a bare tensor crashes eager 1.8 with a segmentation fault and raises
    # TypeError in graph mode (measured on py27 and py36); a list of one works
    from cglint import autofix, engine

    code = """
    import tensorflow as tf
    x = tf.constant([1.0, 2.0])
    with tf.GradientTape() as t:
        t.watch(x)
        y = x * 2.0
    dy = tf.ones_like(y)
    a = t.gradient(y, x, output_gradients=dy)
    b = t.gradient(y, x, tf.constant([1.0, 0.5]))
    c = t.gradient(y, x, [dy])
    d = t.gradient(y, x, output_gradients=None)
    e = t.gradient(y, x, grads)
    f = t.gradient(y, x, tf.unstack(dy))
    """
    assert lint(code, select=["CG402"]) == [("CG402", 8, 39), ("CG402", 9, 22)]
    import textwrap
    fixed = autofix.fix_text("a.py", textwrap.dedent(code), engine.Options(
        select=("CG402",))).text
    assert "output_gradients=[dy])" in fixed and "[tf.constant([1.0, 0.5])])" in fixed


def test_cg402_a_try_import_of_a_name_the_table_does_not_list_may_fail(tmp_path):
    # The API table judges a name of a module attribute access reaches only by listing it:
    # an unknown one may fail (measured: ModuleNotFoundError in the fallback), so the
    # fallback is checked; a listed one (graph_editor's) surely imports.
    code = """
    import tensorflow as tf
    try:
        from tensorflow.contrib.IMPORTED
    except ImportError:
        from tensorflow.python.ops.op_selector import get_backward_walk_ops
    """
    absent = code.replace("IMPORTED", "keras.api.keras.layers import NoSuchLayer")
    present = code.replace("IMPORTED", "graph_editor import get_backward_walk_ops")
    assert lint(absent, select=["CG402"]) == [("CG402", 6, 5)]
    assert lint(present, select=["CG402"]) == []


def test_cg402_a_backport_only_a_function_would_import_gives_nothing(tmp_path):
    # `proj/a.py` imports the backporting module inside a def: importing `proj.a` does not
    # store tf.TensorSpec (measured AttributeError); at a's top level it does.
    from cglint import check, engine

    (tmp_path / "proj").mkdir()
    (tmp_path / "proj" / "__init__.py").write_text("")
    (tmp_path / "proj" / "compat.py").write_text(
        "import tensorflow as tf\nfrom tensorflow.python.framework.tensor_spec import "
        "TensorSpec\n\ndef backport():\n    tf.TensorSpec = TensorSpec\n\nbackport()\n")
    main = "import tensorflow as tf\nimport proj.a\n\nspec = tf.TensorSpec((2,), tf.float32)\n"
    (tmp_path / "main.py").write_text(main)
    options = engine.Options(select=("CG402",))
    for body, reported in (("def later():\n    from proj import compat\n", True),
                           ("from proj import compat\n", False)):
        (tmp_path / "proj" / "a.py").write_text(body)
        found = check.check_alone(str(tmp_path / "main.py"), main, options).diagnostics
        assert bool(found) is reported, body


def test_cg402_autotune_as_a_number_of_parallel_calls_is_not_told_to_use_contrib():
    # 1.8's tf.contrib.data.AUTOTUNE (-1) fails as num_parallel_calls (measured:
    # InvalidArgumentError); prefetch takes it, so the suggestion stays there.
    from cglint import check, engine

    code = ("import tensorflow as tf\nds = tf.data.Dataset.range(3)\n"
            "ds = ds.map(lambda x: x, num_parallel_calls=tf.data.experimental.AUTOTUNE)\n"
            "ds = ds.prefetch(tf.data.experimental.AUTOTUNE)\n")
    found = check.check_alone("t.py", code, engine.Options(select=("CG402",))).diagnostics
    assert ["use `tf.contrib.data.AUTOTUNE`" in d.message for d in found] == [False, True]
    assert "pass a number" in found[0].message


def test_cg403_positional_arguments_of_a_function_taking_names_only():
    # probe t53: TF 1.8's cross-entropy functions start with `_sentinel` and raise
    # `ValueError: Only call ... with named arguments` on a positional one (measured on
    # py27 and py36); TF 2 takes (labels, logits, axis) positionally, TF 0.x took (logits,
    # targets): the unsafe fix names them by what their own words say (probe W: wgangp's
    # `(disc_fake, tf.ones_like(disc_fake))` is TF 0.x's), and not at all otherwise.
    from cglint import autofix, engine
    import textwrap

    code = """
    import tensorflow as tf
    a = tf.nn.softmax_cross_entropy_with_logits_v2(labels, logits)
    b = tf.nn.sigmoid_cross_entropy_with_logits(l, logits=g)
    c = tf.nn.sparse_softmax_cross_entropy_with_logits((y_label), g)
    d = tf.nn.softmax_cross_entropy_with_logits_v2(labels=l, logits=g)
    e = tf.nn.softmax_cross_entropy_with_logits(l, g, -1, "loss")
    f = tf.nn.softmax(l, -1)
    g = tf.losses.softmax_cross_entropy(l, g)
    h = tf.nn.sigmoid_cross_entropy_with_logits(d_fake, tf.ones_like(d_fake))
    i = tf.nn.softmax_cross_entropy_with_logits(model.logits, targets, -1)
    j = tf.nn.softmax_cross_entropy_with_logits(logits, logits_of_labels)
    k = tf.nn.softmax_cross_entropy_with_logits(tf.reshape(scores, [-1, num_labels]), y_)
    """
    assert lint(code, select=["CG403"]) == [
        ("CG403", 3, 48), ("CG403", 4, 45), ("CG403", 5, 53), ("CG403", 7, 45),
        ("CG403", 10, 45), ("CG403", 11, 45), ("CG403", 12, 45), ("CG403", 13, 45)]
    safe = autofix.fix_text("a.py", textwrap.dedent(code), engine.Options(
        select=("CG403",))).text
    assert safe == textwrap.dedent(code)  # TF 0.x passed (logits, targets): unsafe
    fixed = autofix.fix_text("a.py", textwrap.dedent(code), engine.Options(
        select=("CG403",)), unsafe=True).text.splitlines()
    assert fixed[2] == "a = tf.nn.softmax_cross_entropy_with_logits_v2(labels=labels, logits=logits)"
    assert fixed[3] == "b = tf.nn.sigmoid_cross_entropy_with_logits(labels=l, logits=g)"
    assert fixed[4] == "c = tf.nn.sparse_softmax_cross_entropy_with_logits((y_label), g)"
    assert fixed[6] == 'e = tf.nn.softmax_cross_entropy_with_logits(l, g, -1, "loss")'
    assert fixed[9] == ("h = tf.nn.sigmoid_cross_entropy_with_logits(logits=d_fake, "
                        "labels=tf.ones_like(d_fake))")
    assert fixed[10] == ("i = tf.nn.softmax_cross_entropy_with_logits(logits=model.logits, "
                         "labels=targets, dim=-1)")
    assert fixed[11] == "j = tf.nn.softmax_cross_entropy_with_logits(logits, logits_of_labels)"
    # (`num_labels` is the reshape's, not the argument's word: probe Y)
    assert fixed[12] == textwrap.dedent(code).splitlines()[12]


def test_cg402_contrib_autotune_as_parallel_calls():
    # probe t52: 1.8's tf.contrib.data.AUTOTUNE is -1, which `map` refuses when the
    # pipeline runs (measured on py27 and py36), also through the TF 1.x fallback
    code = """
    import tensorflow as tf
    try:
        AUTOTUNE = tf.data.experimental.AUTOTUNE
    except AttributeError:
        AUTOTUNE = tf.contrib.data.AUTOTUNE
    ONE = tf.contrib.data.AUTOTUNE
    TWO = 2 if flag else tf.contrib.data.AUTOTUNE
    ds = tf.data.Dataset.range(4)
    a = ds.map(f, num_parallel_calls=AUTOTUNE)
    b = ds.map(f, num_parallel_calls=tf.contrib.data.AUTOTUNE)
    c = ds.map(f, num_parallel_calls=ONE)
    d = ds.prefetch(tf.contrib.data.AUTOTUNE)
    e = ds.prefetch(buffer_size=AUTOTUNE)
    g = ds.map(f, num_parallel_calls=TWO)
    h = ds.map(f, num_parallel_calls=4)
    """
    assert lint(code, select=["CG402"]) == [("CG402", 10, 34), ("CG402", 11, 34),
                                            ("CG402", 12, 34)]


def test_cg402_what_18_refuses_under_eager_execution():
    # probe t62, t64, t65: RuntimeError on py27 and py36 (measured); TF 2 takes
    # tf.Variable and tf.gradients (in a tf.function) eagerly
    code = """
    import tensorflow as tf
    before = tf.placeholder(tf.float32)
    tf.enable_eager_execution()
    v = tf.Variable(1.0)
    p = tf.placeholder(tf.float32)
    def f(y, x):
        return tf.gradients(y, x)
    with tf.Graph().as_default():
        ok = tf.placeholder(tf.float32)
    if not tf.executing_eagerly():
        ok2 = tf.Variable(2.0)
    w = tf.contrib.eager.Variable(1.0)
    g = tf.get_variable("g", [2])

    @tf.contrib.eager.defun
    def graph_function(x):
        return tf.gradients(x * x, x)

    @tf.custom_gradient
    def scale(x):
        w = tf.Variable([2.0, 3.0])
        def grad(dy):
            return dy * w
        return x * w, grad
    """
    found = lint(code, select=["CG402", "CG101"])
    assert found == [("CG402", 5, 5), ("CG402", 6, 5), ("CG402", 8, 12), ("CG101", 22, 9)]
    # only a switch 1.8 has turns eager execution on: `tf.compat.v1...` fails first
    assert lint(code.replace("tf.enable_eager", "tf.compat.v1.enable_eager"),
                select=["CG402"])[1:] == []


def test_a_same_named_keras_function_is_offered_with_a_caveat(run_lint):
    # (probe Z2) `tf.nn.l2` and `tf.train.Adam` are not Keras's `l2` and `Adam`: the hint
    # says where 1.8 has the name, and that it may be another function
    from cglint import check, engine

    text = ("import tensorflow as tf\nx = tf.constant(1.0)\na = tf.nn.l2(x, x)\n"
            "c = tf.moments(x, [0])\n")
    result = check.check_alone("m.py", text, engine.Options(select=("CG402",)))
    messages = [d.message for d in result.diagnostics]
    assert messages[0].endswith("TF 1.8 has a `l2` only in Keras "
                                "(`tf.keras.regularizers.l2`): check it is the same function")
    assert messages[1].endswith("TF 1.8 has `moments` as `tf.nn.moments`")
