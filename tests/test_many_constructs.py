"""Files with thousands of one construct (generated code, long experiment scripts) are
checked in time that grows with the file, not with its square: each used to redo per
construct a walk of the whole module or function (`parent_of` descents, a scope's
`tape.gradient` calls, a function's parameter uses). The bounds are ten times what the
check takes now and a fraction of what it took before; they catch a hang, not a slowdown
(speed is bench/'s business)."""
import time

from conftest import lint

BOUND = 8  # seconds of CPU


def _timed(code, **options):
    started = time.process_time()
    found = lint(code, **options)
    return found, time.process_time() - started


def test_a_thousand_tapes_in_one_file():
    # 2,000 tapes took 81 s: each tape walked its scope for `gradient` calls and
    # descended from the module to find its parent
    lines = ["import tensorflow as tf", "x = tf.constant(1.0)", "@tf.custom_gradient",
             "def f(x):", "    def grad(dy):", "        return dy", "    return x, grad"]
    for i in range(1000):
        lines += ["with tf.GradientTape() as t%d:" % i, "    t%d.watch(x)" % i,
                  "    y%d = f(x) * %d.0" % (i, i), "g%d = t%d.gradient(y%d, x)" % (i, i, i)]
    found, seconds = _timed("\n".join(lines) + "\n", select=["CG109"])
    assert [code for code, _, _ in found] == ["CG109"] * 1000
    assert seconds < BOUND


def test_three_thousand_override_maps_in_one_file():
    # 12 s: each map's parent found by a descent through every top-level statement
    lines = ["import tensorflow as tf", "g = tf.get_default_graph()", "x = tf.constant(1.0)",
             "@tf.RegisterGradient('MyGrad')", "def _g(op, dy):", "    return dy"]
    for i in range(3000):
        lines += ["with g.gradient_override_map({'Relu': 'MyGrad'}):",
                  "    y%d = tf.nn.relu(x * %d.0)" % (i, i), "d%d = tf.gradients(y%d, x)" % (i, i)]
    lines += ["with g.gradient_override_map({'ReLU': 'MyGrad'}):", "    z = tf.nn.relu(x)"]
    found, seconds = _timed("\n".join(lines) + "\n")
    assert [(code, line) for code, line, _ in found] == [("CG201", len(lines) - 1)]
    assert seconds < BOUND


def test_hundreds_of_calls_of_one_long_custom_gradient_function():
    # 500 partials and 500 calls of a 400-line function took 40 s: each call walked the
    # function for its parameter's uses
    lines = ["import functools", "import tensorflow as tf", "@tf.custom_gradient",
             "def f(x, k):", "    y = x[:k]"]
    lines += ["    y = y * 1.0%d + x[%d:k] * tf.reduce_sum(x)" % (i, i % 3) for i in range(400)]
    lines += ["    def grad(dy):", "        return dy * 2.0, None", "    return y, grad"]
    lines += ["g%d = functools.partial(f, tf.constant([%d.0]), %d)" % (i, i, i)
              for i in range(300)]
    lines += ["h%d = f(tf.constant([1.0]), %d)" % (i, i) for i in range(300)]
    lines += ["bad = f(tf.constant([1.0]), 2.5)", "if_flag = f(tf.constant([1.0]), None)"]
    found, seconds = _timed("\n".join(lines) + "\n", select=["CG108"])
    # the int is a slice bound each time (handled); None is not
    assert [(code, line) for code, line, _ in found] == [("CG108", len(lines))]
    assert seconds < BOUND


def test_a_chain_of_modules_registering_patterns(tmp_path):
    # 22 modules, each importing the one before and registering `"G<k>_%s" % x`: every
    # file's patterns were added to the run's own lists, which doubled with each file (a
    # hang)
    from cglint import lint_run

    for k in range(24):
        lines = ["import tensorflow as tf"] + (["import m%d" % (k - 1)] if k else [])
        lines += ['def reg(x, f):\n    tf.RegisterGradient("G%d_%%s" %% x)(f)' % k,
                  "g = tf.get_default_graph()",
                  'with g.gradient_override_map({"Identity": "Missing%d"}):' % k,
                  "    y = tf.identity(1.0)"]
        (tmp_path / ("m%d.py" % k)).write_text("\n".join(lines) + "\n")
    found, seconds = _run_folder(tmp_path)
    assert sorted(found) == sorted("CG202 m%d.py" % k for k in range(24))
    assert seconds < BOUND


def _run_folder(folder, *options):
    """`cglint --no-cache FOLDER`'s findings as `CODE file` strings, and the CPU seconds
    the run took (its processes are children: process_time does not see them)."""
    import resource
    import subprocess
    import sys

    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    completed = subprocess.run([sys.executable, "-m", "cglint", "--no-cache",
                                "--format", "json"] + list(options) + [str(folder)],
                               timeout=300,
                               stdout=subprocess.PIPE, universal_newlines=True)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    import json
    found = ["%s %s" % (item["code"], item["path"].rsplit("/", 1)[1])
             for item in json.loads(completed.stdout)["findings"]]
    return found, (after.ru_utime + after.ru_stime) - (before.ru_utime + before.ru_stime)


def test_a_hub_importing_five_hundred_modules(tmp_path):
    # main.py imports every module, and each registers TF's own "Relu": each module's
    # check resolved the hub's 500 imports again (12 s)
    for k in range(500):
        (tmp_path / ("m%d.py" % k)).write_text(
            "import tensorflow as tf\n@tf.RegisterGradient('Relu')\ndef _g%d(op, g):\n"
            "    return g\n" % k)
    (tmp_path / "main.py").write_text("".join("import m%d\n" % k for k in range(500)))
    found, seconds = _run_folder(tmp_path, "--jobs", "1")
    assert sorted(found) == sorted("CG203 m%d.py" % k for k in range(500))
    assert seconds < BOUND


def test_many_registrations_in_a_function_called_many_times():
    # 2,000 registrations in `setup`, called 2,000 times: each registration worked out the
    # calls of `setup` again (25 s at 2,000)
    lines = ["import tensorflow as tf", "def setup(f):"]
    lines += ['    tf.RegisterGradient("G%d")(f)' % i for i in range(2000)]
    lines += ["setup(%d)" % i for i in range(2000)]
    found, seconds = _timed("\n".join(lines) + "\n", select=["CG203"])
    assert len(found) == 2000
    assert seconds < BOUND


def test_many_unpackings_of_one_empty_dict():
    # `f(x, **opts)` 4,000 times: each call walked the module for `opts`'s uses
    lines = ["import tensorflow as tf", "@tf.custom_gradient", "def f(x):",
             "    return x, lambda dy: dy", "opts = {}", "x = tf.constant(1.0)"]
    lines += ["y%d = f(x, **opts)" % i for i in range(4000)]
    found, seconds = _timed("\n".join(lines) + "\n", select=["CG105"])
    assert found == []
    assert seconds < BOUND


def test_many_reads_of_a_name_bound_many_times():
    # 3,000 module-level bindings of `w` and 3,000 reads in the custom gradient: each read
    # judged every binding
    lines = ["import tensorflow as tf"] + ["w = tf.Variable(%d.0)" % i for i in range(3000)]
    lines += ["@tf.custom_gradient", "def f(x):"] + ["    x = x * w"] * 3000
    lines += ["    return x, lambda dy: dy"]
    found, seconds = _timed("\n".join(lines) + "\n", select=["CG102"])
    assert [code for code, _, _ in found] == ["CG102"]
    assert seconds < BOUND


def test_thousands_of_calls_in_an_eager_module_with_a_traced_function():
    # 2 s for 2,900 calls: each asked whether it is in a traced function by climbing to
    # the module (now one walk of the traced functions)
    lines = ["import tensorflow as tf", "tf.enable_eager_execution()", "@tf.custom_gradient",
             "def f(x, s=1.0):", "    return x * s, lambda dy: dy * s",
             "ds = tf.data.Dataset.range(3).map(lambda i: f(i, s=2.0))",
             "y = " + " + ".join("f(x, s=%d.0)" % i for i in range(1500))]
    found, seconds = _timed("\n".join(lines) + "\n", select=["CG105", "CG108"])
    assert found == [("CG105", 6, 45)]
    assert seconds < BOUND
