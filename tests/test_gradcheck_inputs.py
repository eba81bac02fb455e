"""`cglint gradcheck`: what each function is fed. Python-number parameters keep their type
in the check pass too; automatic inputs are said so, and shapes that do not fit them
point to a spec. Runs under real TensorFlow 1.8."""
import textwrap

from cglint.gradcheck import command, verdicts


def write(folder, name, source):
    path = folder / name
    path.write_text(textwrap.dedent(source).lstrip())
    return str(path)


def checked(interpreters, path, pythons=("py27", "py36"), modes=("graph", "eager")):
    """{(function, interpreter): verdict}."""
    targets, problems = command.plan([path], {})
    assert not problems
    return {(v.function, v.interpreter): v for v in verdicts.check(
        targets, interpreters, pythons, modes=modes, workers=2, timeout=60)}


def test_number_parameters_stay_python_numbers_and_only_arrays_are_differentiated(
        interpreters, tmp_path):
    path = write(tmp_path, "numbers.py", """
        import tensorflow as tf

        # an int used as a size: a float tensor in its place cannot be a shape
        # cglint: gradcheck x=(6,) groups=2
        @tf.custom_gradient
        def group_sum(x, groups):
            y = tf.reduce_sum(tf.reshape(x, [groups, -1]), axis=1)
            def grad(dy):
                tiled = tf.tile(tf.expand_dims(dy, 1), [1, tf.size(x) // groups])
                return tf.reshape(tiled, tf.shape(x)), None
            return y, grad

        # a fixed hyperparameter may get a zero gradient as well as None
        # cglint: gradcheck x=(5,) scale=0.5
        @tf.custom_gradient
        def scaled(x, scale):
            return x * scale, lambda dy: (dy * scale, tf.zeros_like(scale))
    """)
    found = checked(interpreters, path)
    for py in ("py27", "py36"):
        for function in ("group_sum", "scaled"):
            verdict = found[function, py]
            assert verdict.status == "ok", (function, py, verdict.message)
            assert [entry["name"] for entry in verdict.modes["graph"]["inputs"]] == ["x"]
            assert verdict.worst_input == "x" and verdict.max_abs_error < 1e-6


def test_an_int_parameter_divides_as_python_2_divides_it(interpreters, tmp_path):
    path = write(tmp_path, "intdiv.py", """
        import tensorflow as tf

        # cglint: gradcheck x=(4,) n=4
        @tf.custom_gradient
        def mean_n(x, n):
            def grad(dy):
                return dy * (1 / n) * tf.ones_like(x), None   # 0 on Python 2
            return tf.reduce_sum(x) * (1.0 / n), grad
    """)
    found = checked(interpreters, path, modes=("eager",))
    assert found["mean_n", "py36"].status == "ok", found["mean_n", "py36"].message
    assert found["mean_n", "py27"].status == "mismatch"
    assert found["mean_n", "py27"].message.startswith(
        "gradient of `x` differs everywhere (custom gradient is 0 where the numerical one is not)")


AUTOMATIC = """
    import tensorflow as tf

    @tf.custom_gradient
    def add_bias(x, b):
        return x + b, lambda dy: (dy, dy)   # b's gradient is not summed over the batch

    @tf.custom_gradient
    def add_bias_summed(x, b):
        return x + b, lambda dy: (dy, tf.reduce_sum(dy, axis=0))

    @tf.custom_gradient
    def add_bias_mean(x, b):
        def grad(dy):   # right for one row, a third of the truth for three
            rows = tf.reshape(dy, [-1, tf.size(b)])
            return dy, tf.reshape(tf.reduce_mean(rows, axis=0), tf.shape(b))
        return x + b, grad

    @tf.custom_gradient
    def softmax_rows(x):
        y = tf.nn.softmax(x)
        return y, lambda dy: y * (dy - tf.reduce_sum(dy * y, axis=1, keep_dims=True))

    @tf.custom_gradient
    def dense(x, w):
        def grad(dy):
            return tf.matmul(dy, w, transpose_b=True), tf.matmul(x, dy, transpose_a=True)
        return tf.matmul(x, w), grad

    @tf.custom_gradient
    def conv(x, w):
        def grad(dy):
            return (tf.nn.conv2d_backprop_input(tf.shape(x), w, dy, [1, 1, 1, 1], "SAME"),
                    tf.nn.conv2d_backprop_filter(x, tf.shape(w), dy, [1, 1, 1, 1], "SAME"))
        return tf.nn.conv2d(x, w, [1, 1, 1, 1], "SAME"), grad

    @tf.custom_gradient
    def misspelt(x):
        return tf.squre(x), lambda dy: dy * 2.0 * x
"""


def test_automatic_inputs_are_said_and_tried_until_they_fit_and_broadcast(interpreters, tmp_path):
    found = checked(interpreters, write(tmp_path, "automatic.py", AUTOMATIC), pythons=("py36",))

    def verdict(function):
        return found[function, "py36"]
    # fits with one shape for both, but its gradient is wrong when b is broadcast: said, on an
    # ok (a function whose inputs always have one shape is right)
    for mode in ("graph", "eager"):
        note = verdict("add_bias").modes[mode]["note"]
        assert note.startswith("with automatic inputs x=(5,), b=(5,); at x=(3, 4), b=(4,): "), note
        assert note.endswith("; sum a broadcast input's gradient over the broadcast axes; or, if never "
                             "broadcast: `# cglint: gradcheck x=(5,) b=(5,)`"), note
    # graph mode's TF error names `b` as eager's comparison does: one note for both
    assert (verdict("add_bias").status, verdict("add_bias").message) == ("ok", (
        "with automatic inputs x=(5,), b=(5,); at x=(3, 4), b=(4,): gradient of `b` has shape (3, 4) "
        "for an input of shape (4,); sum a broadcast input's gradient over the broadcast axes; or, "
        "if never broadcast: `# cglint: gradcheck x=(5,) b=(5,)`"))
    assert (verdict("add_bias_summed").status, verdict("add_bias_summed").message) == (
        "ok", "with automatic inputs x=(3, 4), b=(4,)")
    mean = verdict("add_bias_mean")
    assert mean.status == "mismatch"
    assert mean.message == ("gradient of `b` differs everywhere (custom gradient is 0.333x the "
                            "numerical one); with automatic inputs x=(3, 4), b=(4,)")
    # fails at tf.gradients with a vector, fits a matrix
    assert (verdict("softmax_rows").status, verdict("softmax_rows").message) == (
        "ok", "with automatic inputs x=(3, 4)")
    assert (verdict("dense").status, verdict("dense").message) == (
        "ok", "with automatic inputs x=(3, 4), w=(4, 5)")
    assert verdict("dense").modes["graph"]["shapes"] == {"x": [3, 4], "w": [4, 5]}
    conv = verdict("conv")
    assert conv.status == "no-inputs"
    assert conv.message.startswith("automatic inputs do not fit: give its input shapes, "
                                   "`# cglint: gradcheck x=(...) w=(...)`; at x=(5,), w=(5,): ")
    # not a matter of shapes: the error it is
    assert verdict("misspelt").status == "error"
    assert "has no attribute 'squre'" in verdict("misspelt").message
    assert verdict("misspelt").message.endswith("; with automatic inputs x=(5,)")
