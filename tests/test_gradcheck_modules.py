"""`cglint gradcheck` on modules as projects write them: module-level tensors and
variables, variables made inside the function, packages, argparse at import, files read
next to the module. Runs under real TensorFlow 1.8."""
import os
import textwrap

from cglint.gradcheck import command, verdicts


def write(folder, name, source):
    path = folder / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(textwrap.dedent(source).lstrip())
    return str(path)


def graph_verdicts(interpreters, paths, pythons=("py27", "py36"), modes=("graph",)):
    """{(function, interpreter): verdict}."""
    targets, problems = command.plan(paths, {})
    assert not problems
    return {(v.function, v.interpreter): v for v in verdicts.check(
        targets, interpreters, pythons, modes=modes, workers=2, timeout=60)}


def test_module_level_tensors_and_variables_are_usable_and_variables_initialized(
        interpreters, tmp_path):
    path = write(tmp_path, "module_tensors.py", """
        import numpy as np
        import tensorflow as tf

        FREQ = tf.constant(10.0)
        W = tf.Variable(np.full((5,), 0.5, np.float32), name="W")
        SCALE = tf.Variable(2.0, trainable=False, name="SCALE")

        @tf.custom_gradient
        def fast_sin(x):
            return tf.sin(x * FREQ), lambda dy: dy * FREQ * tf.cos(x * FREQ)

        @tf.custom_gradient
        def scaled(x):
            return x * SCALE, lambda dy: dy * SCALE

        @tf.custom_gradient
        def uses_global_var(x):
            return x * W, lambda dy: dy * W

        @tf.custom_gradient
        def var_inside(x):
            v = tf.get_variable("v", shape=(), initializer=tf.constant_initializer(3.0))
            return x * v, lambda dy: dy * v

        @tf.custom_gradient
        def var_protocol(x):
            v = tf.get_variable("u", shape=(), initializer=tf.constant_initializer(3.0))
            def grad(dy, variables=None):
                return dy * v, [tf.reduce_sum(dy * x)]
            return x * v, grad
    """)
    found = graph_verdicts(interpreters, [path])
    for py in ("py27", "py36"):
        # were "must be from the same graph" and "Attempting to use uninitialized value"
        assert found["fast_sin", py].status == "ok"
        assert found["scaled", py].status == "ok"  # not trainable: no gradient is expected
        glob = found["uses_global_var", py]
        assert glob.status == "mismatch" and glob.confirms == ["CG102"]
        assert glob.message.startswith("variable `W` is read, not passed in: it gets no gradient "
                                       "and never trains (confirms CG102)")
        inside = found["var_inside", py]
        assert inside.status == "mismatch" and inside.confirms == ["CG101"]
        assert inside.message.startswith("variable `v` is made inside the function: it gets no "
                                         "gradient and never trains (confirms CG101)")
        # the gradient of x is still checked, with the variable the first call made
        assert inside.modes["graph"]["inputs"][0]["message"] == ""
        protocol = found["var_protocol", py]
        assert protocol.status == "error" and "CG107" in protocol.confirms
        assert protocol.message.startswith("ValueError: Num gradients 3 generated for op")
