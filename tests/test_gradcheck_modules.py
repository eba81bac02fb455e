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


SQUARE = textwrap.dedent("""
    @tf.custom_gradient
    def square(x):
        return x * x, lambda dy: dy * TWO * x
""")


def test_package_modules_import_as_the_project_imports_them(interpreters, tmp_path):
    # tmp_path is under /tmp, which the sandbox hides but for what a module needs
    project = tmp_path / "project"
    write(project, "setup.py", "")
    write(project, "common.py", "TWO = 2.0\n")
    write(project, "mypkg/__init__.py", "")
    write(project, "mypkg/sub/__init__.py", "")
    write(project, "mypkg/consts.py", "TWO = 2.0\n")
    paths = [
        write(project, "mypkg/relative.py", "import tensorflow as tf\nfrom .consts import TWO\n" + SQUARE),
        write(project, "mypkg/sub/deeper.py", "import tensorflow as tf\nfrom ..consts import TWO\n" + SQUARE),
        write(project, "mypkg/absolute.py", "import tensorflow as tf\nfrom mypkg.consts import TWO\n" + SQUARE),
        # a script in src/ that puts its project's root on sys.path itself
        write(project, "src/script.py", "import os, sys\nimport tensorflow as tf\n"
              "sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..'))\n"
              "from common import TWO\n" + SQUARE),
    ]
    orphan = write(tmp_path / "loose", "src/script.py", "import os, sys\nimport tensorflow as tf\n"
                   "sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..'))\n"
                   "from common import TWO\n" + SQUARE)
    write(tmp_path / "loose", "common.py", "TWO = 2.0\n")
    targets, problems = command.plan(paths + [orphan], {})
    assert not problems
    found = {(os.path.relpath(v.path, str(tmp_path)), v.interpreter): v for v in verdicts.check(
        targets, interpreters, ("py27", "py36"), modes=("graph",), workers=2, timeout=60)}
    for py in ("py27", "py36"):
        for path in paths:
            verdict = found[os.path.relpath(path, str(tmp_path)), py]
            assert (verdict.status, verdict.message) == ("ok", "with automatic inputs x=(5,)"), path
        # no project root to show: the sandbox hides `..`, and the message says so
        loose = found["loose/src/script.py", py]
        assert loose.status == "error"
        assert loose.message.endswith("; the sandbox hides /tmp but for the module's package or "
                                      "project folder (setup.py, pyproject.toml, .git...)")


def test_the_module_sees_its_own_argv_and_folder_and_an_exit_at_import_says_why(
        interpreters, tmp_path):
    write(tmp_path, "config.json", '{"two": 2.0}')
    paths = [
        write(tmp_path, "with_argparse.py", textwrap.dedent("""
            import argparse
            import tensorflow as tf

            parser = argparse.ArgumentParser()
            parser.add_argument("--lr", type=float, default=0.1)
            FLAGS = parser.parse_args()
            TWO = 2.0
        """) + SQUARE),
        write(tmp_path, "reads_config.py", textwrap.dedent("""
            import json
            import tensorflow as tf

            with open("config.json") as handle:
                TWO = json.load(handle)["two"]
        """) + SQUARE),
        write(tmp_path, "needs_data.py", textwrap.dedent("""
            import argparse
            import tensorflow as tf

            parser = argparse.ArgumentParser()
            parser.add_argument("--data", required=True)
            FLAGS = parser.parse_args()
            TWO = 2.0
        """) + SQUARE),
    ]
    targets, _ = command.plan(paths, {})
    by_file = {(os.path.basename(v.path), v.interpreter): v for v in verdicts.check(
        targets, interpreters, ("py27", "py36"), modes=("graph",), workers=2, timeout=60)}
    for py in ("py27", "py36"):
        assert by_file["with_argparse.py", py].status == "ok"
        assert by_file["reads_config.py", py].status == "ok"
        exits = by_file["needs_data.py", py]
        assert exits.status == "error"
        assert exits.message.startswith("the module exits while being imported (line 6): sys.exit(2) "
                                        "after writing: ")
        assert exits.message.endswith("argument --data is required" if py == "py27" else
                                      "the following arguments are required: --data")
