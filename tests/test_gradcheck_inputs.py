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
