"""`cglint gradcheck`: a mismatch that looks like an intentional estimator says how to mark
it skipped; a spec that cannot apply is a warning, not silence; a random forward pass is
said to be random. Runs under TF 1.8."""
import textwrap

from cglint.gradcheck import command, verdicts


def write(folder, name, source):
    path = folder / name
    path.write_text(textwrap.dedent(source).lstrip())
    return str(path)


def graph_verdicts(interpreters, path):
    targets, _ = command.plan([path], {})
    return {v.function: v for v in verdicts.check(
        targets, interpreters, ("py36",), modes=("graph",), workers=2, timeout=60)}


def test_intentional_estimators_get_a_hint_to_skip_them(interpreters, tmp_path):
    path = write(tmp_path, "estimators.py", """
        import tensorflow as tf

        @tf.custom_gradient
        def round_ste(x):
            return tf.round(x), lambda dy: dy

        @tf.custom_gradient
        def reverse(x):
            return tf.identity(x), lambda dy: -dy

        @tf.custom_gradient
        def block(x):
            return tf.identity(x), lambda dy: tf.zeros_like(dy)

        @tf.custom_gradient
        def clip(x):
            return tf.identity(x), lambda dy: tf.clip_by_value(dy, -0.1, 0.1)

        @tf.custom_gradient
        def half(x):
            return x * x, lambda dy: dy * x  # a plain bug: no hint
    """)
    found = graph_verdicts(interpreters, path)
    hints = {"round_ste": "straight-through estimator", "reverse": "gradient reversal",
             "block": "stop-gradient", "clip": "clipped gradient"}
    for function, estimator in hints.items():
        assert found[function].status == "mismatch"
        assert found[function].message.endswith("; %s? if on purpose: `# cglint: gradcheck skip %s`"
                                                "; with automatic inputs x=(5,)"
                                                % (estimator, estimator)), found[function].message
    assert "custom gradient is 0 where the numerical one is not" in found["block"].message
    assert found["half"].message == ("gradient of `x` differs everywhere (custom gradient is "
                                     "0.5x the numerical one); with automatic inputs x=(5,)")


def test_specs_that_apply_to_nothing_are_warnings_and_an_int_array_says_so(
        interpreters, tmp_path, capsys):
    (tmp_path / "pyproject.toml").write_text(
        '[tool.cglint.gradcheck]\n"ops.py::renamed_away" = "skip intentional"\n')
    path = write(tmp_path, "ops.py", """
        import numpy as np
        import tensorflow as tf

        # cglint: gradcheck a=(2, 3) b=(3, 4)

        @tf.custom_gradient
        def blank_line(a, b):
            return tf.matmul(a, b), lambda dy: (tf.matmul(dy, b, transpose_b=True),
                                                tf.matmul(a, dy, transpose_a=True))

        @tf.custom_gradient
        def inside(x):
            # cglint: gradcheck x=(2, 3)
            return x * x, lambda dy: dy * 2.0 * x

        # cglint: gradcheck x=np.arange(1, 6)
        @tf.custom_gradient
        def log_int(x):
            return tf.log(x), lambda dy: dy / x
    """)
    assert command.main([path, "--mode", "graph"]) == 1
    err = capsys.readouterr().err.splitlines()
    assert err[:3] == [
        "cglint gradcheck: warning: %s:4: this `# cglint: gradcheck` comment applies to no "
        "function: a spec goes on the comment lines right above a custom-gradient def or its "
        "decorators, with no blank line between" % path,
        "cglint gradcheck: warning: %s:13: this `# cglint: gradcheck` comment applies to no "
        "function: a spec goes on the comment lines right above a custom-gradient def or its "
        "decorators, with no blank line between" % path,
        "cglint gradcheck: warning: %s: the gradcheck settings entry for `renamed_away` applies "
        "to nothing: the file has no custom-gradient function of that name" % path]
    found = graph_verdicts(interpreters, path)
    assert (found["log_int"].status, found["log_int"].message) == ("no-inputs", (
        "`x` is an int64 array, which cannot be differentiated: give floats, as .astype(float)"))


def test_a_random_forward_pass_is_said_to_be_random_not_a_mismatch(interpreters, tmp_path):
    path = write(tmp_path, "dropout.py", """
        import tensorflow as tf

        # cglint: gradcheck x=(20,)
        @tf.custom_gradient
        def dropout(x):
            mask = tf.cast(tf.random_uniform(tf.shape(x), seed=1) > 0.5, x.dtype) * 2.0
            return x * mask, lambda dy: dy * mask
    """)
    targets, _ = command.plan([path], {})
    (verdict,) = verdicts.check(targets, interpreters, ("py36",), workers=2, timeout=60)
    assert (verdict.status, verdict.message) == ("no-inputs", (
        "not deterministic: two runs at the same inputs differ (random ops?); pass the random "
        "values (a mask) in as an input, or `# cglint: gradcheck skip random forward`"))
    assert set(verdict.modes) == {"graph", "eager"}


def test_a_gradient_of_the_wrong_shape_names_its_parameter_in_graph_mode(interpreters, tmp_path):
    path = write(tmp_path, "shapes.py", """
        import tensorflow as tf

        # cglint: gradcheck x=(3, 4) b=(4,)
        @tf.custom_gradient
        def bias_no_reduce(x, b):
            return x + b, lambda dy: (dy, dy)

        # two outputs come first among the inputs of TF's IdentityN
        # cglint: gradcheck x=(3, 4) b=(4,)
        @tf.custom_gradient
        def two_outputs(x, b):
            return (x + b, x * 2.0), lambda dy, dz: (dy + 2.0 * dz, dy)
    """)
    found = graph_verdicts(interpreters, path)
    for function in ("bias_no_reduce", "two_outputs"):
        assert found[function].status == "error"
        assert found[function].message.startswith(
            "gradient of `b` has shape (3, 4) for an input of shape (4,) (ValueError: Incompatible "
            "shapes between op input and calculated input gradient.  Forward operation: IdentityN")
