"""`cglint gradcheck`: specs, discovery and judging on the host; then the fixtures under
fixtures/gradcheck/ and hostile modules under real TensorFlow 1.8 on Python 2.7 and 3.6.

Each fixture states its expected verdicts in its header:
    # gradcheck: FUNCTION STATUS[: fragment of the message]
    # gradcheck: FUNCTION confirms CODE
"""
import json
import os
import re
import textwrap

import pytest

from cglint import cli
from cglint.config import ConfigError
from cglint.gradcheck import command, discover, predictions, settings, spec, verdicts
from fixture_files import ROOT

GRADCHECK = os.path.join(ROOT, "gradcheck")
_EXPECT = re.compile(r"^#\s*gradcheck:\s*(\S+)\s+([a-z-]+):?\s*(.*)$")


def write(folder, name, source):
    path = folder / name
    path.write_text(textwrap.dedent(source).lstrip())
    return str(path)


# -- specs ------------------------------------------------------------------------------

def test_a_spec_gives_shapes_numbers_and_expressions():
    parsed = spec.parse(" x=(3, 4) y = (5,) weight=0.3 n=-2 z=np.random.uniform(0.5, 3.0, (5,)) "
                        "w=np.array([1.0, 2.0]) s='a b=c'")
    assert parsed.params == {
        "x": spec.Param("shape", (3, 4)), "y": spec.Param("shape", (5,)),
        "weight": spec.Param("number", 0.3), "n": spec.Param("number", -2),
        "z": spec.Param("expr", "np.random.uniform(0.5, 3.0, (5,))"),
        "w": spec.Param("expr", "np.array([1.0, 2.0])"), "s": spec.Param("expr", "'a b=c'")}
    assert not parsed.skip


def test_skip_with_and_without_a_reason():
    assert spec.parse("skip").skip and spec.parse("skip").reason == ""
    assert spec.parse("skip straight-through estimator").reason == "straight-through estimator"
    assert not spec.parse("skipper=(3,)").skip


@pytest.mark.parametrize("text, message", [
    ("x=(3, 4", "x=(3, 4: not a Python expression"),
    ("(3, 4)", "expected `name=value` pairs or `skip`"),
    ("x=(3,) x=(4,)", "`x` is given twice"),
    ("x=(-1, 3)", "a shape cannot have negative sizes"),
])
def test_bad_specs_say_what_is_wrong(text, message):
    with pytest.raises(spec.SpecError, match=re.escape(message)):
        spec.parse(text)


def test_spec_comments_above_the_decorators_merge_and_stop_at_code():
    lines = textwrap.dedent("""\
        # cglint: gradcheck x=(9,)
        y = 1
        # cglint: gradcheck x=(3, 4)
        # an ordinary comment
        # cglint: gradcheck weight=0.5
        @tf.custom_gradient
        def f(x, weight):
    """).splitlines()
    assert spec.from_comments(lines, 6).params == {
        "x": spec.Param("shape", (3, 4)), "weight": spec.Param("number", 0.5)}
    with pytest.raises(spec.SpecError, match="line 1: "):
        spec.from_comments(["# cglint: gradcheck x=(", "def f(x):"], 2)


# -- settings ---------------------------------------------------------------------------

def test_settings_from_pyproject_and_setup_cfg(tmp_path):
    (tmp_path / "pyproject.toml").write_text(textwrap.dedent("""
        [tool.cglint]
        select = ["CG1"]
        [tool.cglint.gradcheck]
        "ops/act.py::clipped_relu" = "x=(3, 4)"
        "ops/act.py::ste" = "skip by design"
    """))
    found = settings.read(str(tmp_path / "pyproject.toml"))
    act = os.path.join(str(tmp_path), "ops", "act.py")
    assert found[act, "clipped_relu"].params == {"x": spec.Param("shape", (3, 4))}
    assert found[act, "ste"].skip
    (tmp_path / "setup.cfg").write_text("[cglint]\nselect = CG1\n[cglint.gradcheck]\n"
                                        "ops/act.py::Relu = x=(2,) w=0.5\n")
    found = settings.read(str(tmp_path / "setup.cfg"))
    assert found[act, "Relu"].params["w"] == spec.Param("number", 0.5)


def test_the_linter_still_reads_a_pyproject_with_a_gradcheck_table(tmp_path):
    from cglint import config
    (tmp_path / "pyproject.toml").write_text(
        '[tool.cglint]\nselect = ["CG1"]\n[tool.cglint.gradcheck]\n"a.py::f" = "skip"\n')
    assert config.read(str(tmp_path / "pyproject.toml")).select == ("CG1",)


@pytest.mark.parametrize("entry, message", [
    ('"a.py" = "skip"', "expected a key like"),
    ('"a.py::f" = 3', "expected a spec string"),
    ('"a.py::f" = "x=(3,"', "not a Python expression"),
])
def test_bad_settings_name_the_key(tmp_path, entry, message):
    (tmp_path / "pyproject.toml").write_text("[tool.cglint.gradcheck]\n%s\n" % entry)
    with pytest.raises(ConfigError, match=re.escape(message)):
        settings.read(str(tmp_path / "pyproject.toml"))


# -- discovery --------------------------------------------------------------------------

DISCOVERED = """
    import tensorflow as tf
    from tensorflow import custom_gradient as cg
    import tensorflow.contrib.eager as tfe

    @cg
    def aliased(x, scale=2.0):
        def grad(dy):
            return dy * scale
        return x * scale, grad

    def _raw(x):
        return tf.identity(x), lambda dy: dy

    wrapped = tf.custom_gradient(_raw)

    # cglint: gradcheck x=(2,) scale=3.0
    @tfe.custom_gradient
    def given_default(x, scale=2.0):
        return x * scale, lambda dy: dy * scale

    @tf.custom_gradient
    def star(*xs):
        return xs[0], lambda dy: dy

    # cglint: gradcheck b=(2,)
    @tf.custom_gradient
    def gap(x, a=1.0, b=2.0):
        return x, lambda dy: (dy, None, None)

    # cglint: gradcheck z=(2,)
    @tf.custom_gradient
    def unknown(x):
        return x, lambda dy: dy

    def _inner_raw(x):
        return tf.identity(x), lambda dy: dy

    def outer():
        h = tf.custom_gradient(_inner_raw)
        again = tf.custom_gradient(_raw)
        return h, again

    def not_a_custom_gradient(x):
        return x
"""


def test_discovery_finds_every_form_and_says_why_one_cannot_run(tmp_path):
    path = write(tmp_path, "ops.py", DISCOVERED)
    found = {t.function: t for t in discover.targets_in(path)}
    assert sorted(found) == ["_inner_raw", "aliased", "gap", "given_default", "star", "unknown", "wrapped"]
    assert found["aliased"].call == "aliased" and found["aliased"].params == [("x", None)]
    assert found["wrapped"].call == "wrapped" and found["wrapped"].aliases == ("_raw",)
    assert found["given_default"].params == [("x", spec.Param("shape", (2,))),
                                             ("scale", spec.Param("number", 3.0))]
    assert found["star"].reason == "takes *xs: gradcheck passes positional inputs only"
    assert found["gap"].reason.startswith("parameter `a` has a default but a later parameter is given")
    assert found["unknown"].reason_status == "error"
    assert "takes no parameter `z`" in found["unknown"].reason
    # wrapped again inside a function: the module-level wrapper is still the target
    assert found["_inner_raw"].reason == "made a custom gradient inside a function: not reachable from module level"


def test_a_lambda_made_a_custom_gradient_is_a_target_not_a_crash(tmp_path):
    path = write(tmp_path, "lambdas.py", """
        import tensorflow as tf

        square = tf.custom_gradient(lambda x: (x * x, lambda dy: dy * 2.0 * x))

        class Layer(object):
            act = staticmethod(tf.custom_gradient(lambda x: (tf.nn.relu(x), lambda dy: dy)))

        def build():
            h = tf.custom_gradient(lambda x: (x, lambda dy: dy))
            return h
    """)
    found = {t.function: t for t in discover.targets_in(path)}
    assert sorted(found) == ["Layer.lambda", "build.h", "square"]
    assert found["square"].call == "square" and found["square"].params == [("x", None)]
    for name in ("Layer.lambda", "build.h"):
        assert found[name].reason == ("a lambda not assigned to a module-level name: "
                                      "not reachable from module level")


FACTORIES = """
    import tensorflow as tf

    def make_scaled(factor):
        @tf.custom_gradient
        def scaled(x):
            return tf.identity(x), lambda dy: dy * factor
        return scaled

    # cglint: gradcheck x=(3,)
    half = make_scaled(0.5)
    identity = make_scaled(1.0)

    def make_unused():
        @tf.custom_gradient
        def never_made(x):
            return tf.identity(x), lambda dy: dy
        return never_made

    def make_other():
        @tf.custom_gradient
        def kept_inside(x):
            return tf.identity(x), lambda dy: dy
        return tf.identity

    other = make_other()

    class Ops(object):
        @staticmethod
        @tf.custom_gradient
        def square(x):
            return x * x, lambda dy: dy * 2.0 * x

        class Inner(object):
            @staticmethod
            @tf.custom_gradient
            def cube(x):
                return x * x * x, lambda dy: dy * 3.0 * x * x

        @tf.custom_gradient
        def method(self, x):
            return tf.identity(x), lambda dy: dy
"""


def test_factory_products_and_static_methods_are_reached_by_their_module_level_names(tmp_path):
    path = write(tmp_path, "factories.py", FACTORIES)
    found = {t.function: t for t in discover.targets_in(path)}
    assert sorted(found) == ["Ops.Inner.cube", "Ops.method", "Ops.square", "half", "identity",
                             "make_other.kept_inside", "make_unused.never_made"]
    for name in ("half", "identity"):  # one function each, made with its own factor
        assert (found[name].call, found[name].aliases, found[name].reason) == (
            name, ("make_scaled.scaled",), "")
    assert found["half"].params == [("x", spec.Param("shape", (3,)))]  # its spec is above it
    assert found["identity"].params == [("x", None)]
    for name in ("Ops.square", "Ops.Inner.cube"):
        assert (found[name].call, found[name].reason) == (name, "")
    assert found["Ops.method"].reason == "a method: gradcheck cannot build the instance it is called on"
    assert found["make_unused.never_made"].reason == ("defined inside `make_unused`: not reachable "
                                                      "from module level")
    assert found["make_other.kept_inside"].call == ""


def test_factory_products_and_static_methods_run(interpreters, tmp_path):
    found = _graph_verdicts(interpreters, write(tmp_path, "factories.py", FACTORIES))
    assert found["half"].status == "mismatch"
    assert found["half"].message.startswith("gradient of `x` differs everywhere (custom gradient "
                                            "is 0.5x the numerical one)")
    for name in ("identity", "Ops.square", "Ops.Inner.cube"):
        assert found[name].status == "ok", (name, found[name].message)


def test_an_internal_error_in_one_file_exits_2_after_the_others(tmp_path, capsys, monkeypatch):
    write(tmp_path, "a_bad.py", "import tensorflow as tf\n")
    write(tmp_path, "b_good.py", """
        import tensorflow as tf

        # cglint: gradcheck skip by design
        @tf.custom_gradient
        def ste(x):
            return tf.round(x), lambda dy: dy
    """)
    real = discover.targets_in

    def failing(path, *args):
        if path.endswith("a_bad.py"):
            raise AttributeError("'Lambda' object has no attribute 'decorator_list'")
        return real(path, *args)

    monkeypatch.setattr(discover, "targets_in", failing)
    assert cli.main(["gradcheck", str(tmp_path)]) == 2
    out, err = capsys.readouterr()
    assert "a_bad.py: internal error while finding its custom-gradient functions: AttributeError" in err
    assert "skipped by its spec: by design" in out


REBOUND = """
    import tensorflow as tf

    def log1pexp(x):
        e = tf.exp(x)
        def grad(dy):
            return dy * (1.0 - 1.0 / (1.0 + e)) * 2.0   # wrong: an extra factor 2
        return tf.log(1.0 + e), grad

    # cglint: gradcheck x=(4,)
    log1pexp = tf.custom_gradient(log1pexp)

    def _sq(x):
        return x * x, lambda dy: dy * 2.0 * x

    sq_a = tf.custom_gradient(_sq)
"""


def test_f_equals_custom_gradient_of_f_is_found_by_its_name(tmp_path):
    path = write(tmp_path, "rebound.py", REBOUND)
    found = {t.function: t for t in discover.targets_in(path)}
    assert sorted(found) == ["log1pexp", "sq_a"]
    rebound = found["log1pexp"]
    assert (rebound.line, rebound.call, rebound.aliases) == (3, "log1pexp", ())
    assert rebound.params == [("x", spec.Param("shape", (4,)))]  # its spec is above the assignment
    assert (found["sq_a"].call, found["sq_a"].aliases) == ("sq_a", ("_sq",))


def test_discovery_reads_settings_over_comments_and_notes_static_findings(tmp_path):
    path = write(tmp_path, "ops.py", """
        import tensorflow as tf

        # cglint: gradcheck x=(2,)
        @tf.custom_gradient
        def f(x):
            def grad(dy):
                return dy, dy
            return tf.identity(x), grad
    """)
    (target,) = discover.targets_in(path, {"f": spec.parse("x=(7,)")})
    assert target.params == [("x", spec.Param("shape", (7,)))]
    assert ("CG103", 7) in target.findings["py36"] and ("CG103", 7) in target.findings["py27"]


def test_unparsable_and_unreadable_files_are_file_errors(tmp_path):
    with pytest.raises(discover.FileError, match="cannot parse"):
        discover.targets_in(write(tmp_path, "broken.py", "def f(:\n"))
    (tmp_path / "latin.py").write_bytes(b"# coding: klingon\nx = 1\n")
    with pytest.raises(discover.FileError):
        discover.targets_in(str(tmp_path / "latin.py"))


# -- judging ----------------------------------------------------------------------------

def test_predictions_need_the_predicted_error():
    findings = [("CG103", 9), ("CG101", 5), ("CG111", 9)]
    assert predictions.confirmed(findings, "ValueError", "ValueError: Num gradients 3 generated") == ["CG103"]
    assert predictions.confirmed(findings, "ValueError", "ValueError: Incompatible shapes") == ["CG111"]
    assert predictions.confirmed(findings, "TypeError", "TypeError: Num gradients") == []
    assert predictions.confirmed([], "ValueError", "Num gradients") == []


def _target(**kwargs):
    target = discover.Target("m.py", 3, "f", call="f", params=[("x", None)])
    for key, value in kwargs.items():
        setattr(target, key, value)
    return target


def _ok(mode, error=1e-10):
    return {"mode": mode, "done": True, "status": "ok", "message": "", "stage": "done",
            "inputs": [{"name": "x", "max_abs_error": error, "message": ""}]}


def test_a_run_without_an_answer_says_why_and_how_far_it_got():
    from cglint.oracle.runner import Job, Result
    job = Job("driver.py", "py36")
    crashed = Result(job, failure="crashed: signal 11 (SIGSEGV)", payload={"stage": "import"})
    assert verdicts.answer_of(crashed)["message"] == "the interpreter crashed: signal 11 (SIGSEGV) during import"
    hung = Result(job, failure="timeout after 5s", payload={"stage": "check pass"})
    assert verdicts.answer_of(hung)["message"] == "timeout after 5s during check pass"
    exited = Result(job, outcome="SystemExit", message="3", payload={"stage": "user pass"})
    assert verdicts.answer_of(exited)["message"] == "stopped by SystemExit: 3 during user pass"
    garbled = Result(job, outcome="ok", payload_error="payload is not JSON: ...")
    assert verdicts.answer_of(garbled)["status"] == "error"


def test_graph_and_eager_answers_combine_into_one_verdict():
    both_ok = verdicts.combine(_target(), "py36", {"graph": _ok("graph"), "eager": _ok("eager", 3e-10)}, 0.2)
    assert (both_ok.status, both_ok.message, both_ok.max_abs_error, both_ok.worst_input) == ("ok", "", 3e-10, "x")
    eager_only = {"status": "error", "stage": "call", "message": "RuntimeError: tf.Variable not supported\nmore"}
    verdict = verdicts.combine(_target(), "py36", {"graph": _ok("graph"), "eager": eager_only}, 0.2)
    assert verdict.status == "ok"
    assert verdict.message == "eager: not supported (RuntimeError: tf.Variable not supported)"
    count = {"status": "error", "stage": "tf.gradients", "exception": "ValueError",
             "message": "ValueError: Num gradients 3 generated for op name: \"IdentityN\"\nop: ..."}
    wrong = {"status": "mismatch", "stage": "done", "message": "gradient of `x` differs everywhere",
             "inputs": [{"name": "x", "max_abs_error": 2.0, "message": "gradient of `x` differs everywhere"}]}
    verdict = verdicts.combine(_target(findings={"py36": [("CG103", 5)]}), "py36",
                               {"graph": count, "eager": wrong}, 0.2)
    assert verdict.status == "error" and verdict.confirms == ["CG103"]
    assert verdict.message == ('graph: ValueError: Num gradients 3 generated for op name: "IdentityN" '
                               '(confirms CG103); eager: gradient of `x` differs everywhere')
    same = verdicts.combine(_target(), "py27", {"graph": wrong, "eager": wrong}, 0.2)
    assert same.message == "gradient of `x` differs everywhere" and same.max_abs_error == 2.0
    # an error row shows no error of a mode that was ok or of another status
    for other in (_ok("eager", 3e-10), wrong):
        verdict = verdicts.combine(_target(), "py36", {"graph": count, "eager": other}, 0.2)
        assert (verdict.status, verdict.max_abs_error, verdict.worst_input) == ("error", None, None)
    mismatch = verdicts.combine(_target(), "py36", {"graph": wrong, "eager": _ok("eager", 3e-10)}, 0.2)
    assert (mismatch.status, mismatch.max_abs_error) == ("mismatch", 2.0)
    # each note once, and one reason to check at float32, the first mode's
    graph32, eager32 = _ok("graph"), _ok("eager")
    graph32["note"] = "checked at float32 (at float64: ValueError: dtype); with automatic inputs x=(5,)"
    eager32["note"] = ("checked at float32 (at float64: InvalidArgumentError: cannot compute Mul); "
                       "with automatic inputs x=(5,)")
    verdict = verdicts.combine(_target(), "py36", {"graph": graph32, "eager": eager32}, 0.2)
    assert verdict.message == "checked at float32 (at float64: ValueError: dtype); with automatic inputs x=(5,)"


def test_json_has_null_for_nan_and_infinite_errors():
    nan = float("nan")
    answer = {"status": "mismatch", "inputs": [{"name": "x", "max_abs_error": nan,
                                                "max_rel_error": float("inf"), "message": "m"}]}
    verdict = verdicts.Verdict("m.py", 3, "f", "py36", "mismatch", "m", max_abs_error=nan,
                               max_rel_error=nan, worst_input="x", modes={"graph": answer})
    text = json.dumps(verdict.to_json(), allow_nan=False)  # raises on a NaN left anywhere
    record = json.loads(text)
    assert record["max_abs_error"] is None and record["max_rel_error"] is None
    assert record["modes"]["graph"]["inputs"][0]["max_abs_error"] is None
    assert record["modes"]["graph"]["inputs"][0]["max_rel_error"] is None
    assert record["line"] == 3 and record["seconds"] == 0.0


# -- under TensorFlow 1.8 ---------------------------------------------------------------

def expectations():
    """{(file, function): (status, fragment, [codes])} from the fixtures' headers."""
    expected = {}
    for name in sorted(os.listdir(GRADCHECK)):
        path = os.path.join(GRADCHECK, name)
        with open(path, encoding="utf-8") as handle:
            for line in handle:
                if not line.startswith("#"):
                    break
                match = _EXPECT.match(line.strip())
                if not match:
                    continue
                function, status, rest = match.groups()
                entry = expected.setdefault((name, function), ["", "", []])
                if status == "confirms":
                    entry[2].append(rest or function)
                else:
                    entry[0], entry[1] = status, rest or ""
    return expected


@pytest.fixture(scope="module")
def fixture_verdicts(interpreters):
    targets, problems = command.plan([GRADCHECK], {})
    assert not problems
    return verdicts.check(targets, interpreters, ("py27", "py36"), workers=2, timeout=60)


def test_every_gradcheck_fixture_gets_its_verdict_on_both_interpreters(fixture_verdicts):
    expected = expectations()
    seen = {}
    for verdict in fixture_verdicts:
        key = (os.path.basename(verdict.path), verdict.function)
        assert key in expected, "no `# gradcheck:` line for %s" % (key,)
        status, fragment, codes = expected[key]
        where = "%s::%s [%s]: %s %s" % (key + (verdict.interpreter, verdict.status, verdict.message))
        assert verdict.status == status, where
        assert fragment in verdict.message, where
        assert verdict.confirms == codes, where
        seen.setdefault(key, set()).add(verdict.interpreter)
    assert set(seen) == set(expected)
    assert all(found == {"py27", "py36"} for found in seen.values())


def test_mismatches_name_the_worst_input_and_its_error(fixture_verdicts):
    by_name = {(v.function, v.interpreter): v for v in fixture_verdicts}
    relu = by_name["clipped_relu", "py36"]
    assert relu.worst_input == "x" and relu.max_abs_error > 0.1
    none = by_name["product_none", "py27"]
    assert none.worst_input == "y"
    masked = by_name["masked_clipped_relu", "py36"]
    assert masked.max_abs_error < 1e-6
    assert masked.modes["graph"]["dtype"] == masked.modes["eager"]["dtype"] == "float64"
    assert masked.modes["graph"]["shapes"] == {"x": [3, 4]}
    for mode in ("graph", "eager"):  # each run's own cost, wall and CPU
        assert 0 < masked.modes[mode]["cpu_seconds"] < 60 and 0 < masked.modes[mode]["seconds"] < 60
    # no spec, and a (5,) vector cannot be multiplied by its transpose: (3, 4) came next
    gram = by_name["gram", "py27"]
    assert gram.status == "ok" and gram.modes["eager"]["shapes"] == {"x": [3, 4]}


HOSTILE = {
    "broken_import.py": """
        import tensorflow as tf
        import no_such_module_anywhere

        @tf.custom_gradient
        def f(x):
            return tf.identity(x), lambda dy: dy
    """,
    "hang.py": """
        import time
        import tensorflow as tf

        @tf.custom_gradient
        def f(x):
            while True:
                time.sleep(0.1)
            return tf.identity(x), lambda dy: dy
    """,
    "crash.py": """
        import ctypes
        import tensorflow as tf
        ctypes.string_at(0)

        @tf.custom_gradient
        def f(x):
            return tf.identity(x), lambda dy: dy
    """,
    "flood.py": """
        import sys
        import tensorflow as tf

        @tf.custom_gradient
        def f(x):
            for i in range(100000):
                sys.stdout.write("spam %d\\n" % i)
            return tf.identity(x) * 2.0, lambda dy: dy * 2.0
    """,
    "leaves.py": """
        import os
        import tensorflow as tf
        os._exit(0)

        @tf.custom_gradient
        def f(x):
            return tf.identity(x), lambda dy: dy
    """,
    "bad_inputs.py": """
        import tensorflow as tf

        # cglint: gradcheck x=np.no_such_function(3)
        @tf.custom_gradient
        def f(x):
            return tf.identity(x), lambda dy: dy

        # cglint: gradcheck x=(4,) n=3
        @tf.custom_gradient
        def g(x, n):
            return x * n, lambda dy: (dy * n, None)
    """,
    "fstring.py": """
        import tensorflow as tf
        print(f"{tf.__version__}")

        @tf.custom_gradient
        def f(x):
            return tf.identity(x) * 2.0, lambda dy: dy * 2.0
    """,
    "eager_module.py": """
        import tensorflow as tf
        tf.enable_eager_execution()

        @tf.custom_gradient
        def f(x):
            return x * 2.0, lambda dy: dy * 3.0
    """,
    "sibling_user.py": """
        import tensorflow as tf
        from sibling_helper import FACTOR

        # Wrong away from 0: only a threshold at 1 (of x, then of |x|) explains it.
        @tf.custom_gradient
        def f(x):
            return x * FACTOR, lambda dy: tf.where(x > 1.0, dy, dy * FACTOR)

        @tf.custom_gradient
        def g(x):
            return x * FACTOR, lambda dy: tf.where(tf.abs(x) > 1.0, dy, dy * FACTOR)
    """,
    "sibling_helper.py": "FACTOR = 3.0\n",
}


def test_hostile_modules_are_reported_per_function_and_the_run_goes_on(interpreters, tmp_path):
    paths = [write(tmp_path, name, source) for name, source in sorted(HOSTILE.items())]
    targets, _ = command.plan(paths, {})
    found = {(os.path.basename(v.path), v.function, v.interpreter): v for v in verdicts.check(
        targets, interpreters, ("py27", "py36"), workers=2, timeout=8)}
    for py in ("py27", "py36"):
        def verdict(name, function="f"):
            return found[name, function, py]
        assert verdict("broken_import.py").status == "error"
        message = verdict("broken_import.py").message
        assert message.startswith("the module failed to import (line 2): ")  # ModuleNotFoundError on 3.6
        first, hint = message.split("; ")
        assert first.endswith("Error: No module named %sno_such_module_anywhere%s" % (
            ("", "") if py == "py27" else ("'", "'")))
        assert hint.startswith("the sandbox hides /tmp but for the module's package")
        assert verdict("hang.py").message == "timeout after 8s during user pass"
        assert verdict("crash.py").message == "the interpreter crashed: signal 11 (SIGSEGV) during import"
        assert verdict("leaves.py").message == "the process exited with status 0 during import"
        assert verdict("flood.py").status == "ok"
        # eager-only user code: its own enable_eager_execution() works, and it is checked once
        eager = verdict("eager_module.py")
        assert eager.message == ("gradient of `x` differs everywhere (custom gradient is 1.5x the "
                                 "numerical one); the module enables eager execution itself: "
                                 "checked in eager mode only; with automatic inputs x=(5,)")
        # the linter's CG301 (anywhere in the file) predicts the import error on 2.7 only
        if py == "py27":
            assert verdict("fstring.py").status == "error" and verdict("fstring.py").confirms == ["CG301"]
            assert verdict("fstring.py").message == (
                "the module failed to import: SyntaxError: invalid syntax (fstring.py, line 2) (confirms CG301)")
        else:
            assert verdict("fstring.py").status == "ok"
        assert verdict("bad_inputs.py").status == "no-inputs"
        assert verdict("bad_inputs.py").message.startswith(
            "parameter `x`: cannot evaluate np.no_such_function(3): AttributeError")
        # an int is passed as the user would: graph mode makes it an int32 tensor
        assert verdict("bad_inputs.py", "g").status == "error"
        assert "Tensor conversion requested dtype float32 for Tensor with dtype int32" in \
            verdict("bad_inputs.py", "g").message
        assert verdict("sibling_user.py").message.startswith(
            "gradient of `x` differs where x > 1, matches where x <= 1")
        assert verdict("sibling_user.py", "g").message.startswith(
            "gradient of `x` differs where |x| > 1, matches where |x| <= 1")


def test_a_def_its_name_does_not_hold_after_import_is_not_checked(interpreters, tmp_path):
    path = write(tmp_path, "branches.py", """
        import tensorflow as tf

        USE_FAST_GRAD = False

        if USE_FAST_GRAD:
            @tf.custom_gradient
            def gelu(x):
                return x * tf.sigmoid(1.702 * x), lambda dy: dy  # not the true gradient
        else:
            @tf.custom_gradient
            def gelu(x):
                s = tf.sigmoid(1.702 * x)
                return x * s, lambda dy: dy * (s + 1.702 * x * s * (1.0 - s))

        @tf.custom_gradient
        def triple(x):
            return 3.0 * x, lambda dy: dy * 3.0

        @tf.custom_gradient
        def triple(x):
            return 3.0 * x, lambda dy: dy * 2.0
    """)
    targets, _ = command.plan([path], {})
    found = {(v.line, v.interpreter): v for v in verdicts.check(
        targets, interpreters, ("py27", "py36"), modes=("graph",), workers=2, timeout=60)}
    for py in ("py27", "py36"):
        assert (found[7, py].status, found[7, py].message) == ("no-inputs", (
            "not checked: after import `gelu` is the function at line 11, so this one cannot "
            "be reached by name"))
        assert found[11, py].status == "ok"
        assert found[16, py].status == "no-inputs"
        assert "`triple` is the function at line 20" in found[16, py].message
        assert found[20, py].status == "mismatch"


def _graph_verdicts(interpreters, path, pythons=("py36",)):
    """{function: verdict} of a graph-mode run of every function in `path`."""
    targets, _ = command.plan([path], {})
    return {(v.function if len(pythons) == 1 else (v.function, v.interpreter)): v
            for v in verdicts.check(targets, interpreters, pythons, modes=("graph",),
                                    workers=2, timeout=60)}


def test_large_inputs_are_sampled_at_random_and_the_verdict_says_so(interpreters, tmp_path):
    path = write(tmp_path, "boxes.py", """
        import tensorflow as tf

        # cglint: gradcheck boxes=(100, 4)
        @tf.custom_gradient
        def box_area(boxes):
            ymin, xmin, ymax, xmax = tf.unstack(boxes, axis=1)
            h, w = ymax - ymin, xmax - xmin
            def grad(dy):
                return tf.stack([-dy * w, dy * h, dy * w, dy * h], axis=1)  # xmin's is -dy * h
            return h * w, grad

        # cglint: gradcheck x=(30, 10)
        @tf.custom_gradient
        def square(x):
            return x * x, lambda dy: dy * 2.0 * x
    """)
    found = _graph_verdicts(interpreters, path)
    wrong = found["box_area"]  # a stride of 2 over 400 elements never probed column 1
    assert wrong.status == "mismatch"
    assert re.search(r"differs at \d+ of 200 sampled elements \(worst boxes\[\d+, 1\]", wrong.message)
    assert wrong.message.endswith("compared a seeded random sample: 200 of the 400 elements of `boxes`")
    entry = wrong.modes["graph"]["inputs"][0]
    assert (entry["compared"], entry["size"]) == (200, 400)
    assert found["square"].status == "ok"
    assert found["square"].message == "compared a seeded random sample: 200 of the 300 elements of `x`"


def test_small_gradients_are_judged_relative_to_their_size_and_wide_ranges_to_each_output(
        interpreters, tmp_path):
    path = write(tmp_path, "scales.py", """
        import tensorflow as tf

        WEIGHT_DECAY = 1e-6

        # cglint: gradcheck w=(3, 4)
        @tf.custom_gradient
        def l2_half(w):
            def grad(dy):
                return dy * WEIGHT_DECAY * w          # wrong: 2 * WEIGHT_DECAY * w
            return WEIGHT_DECAY * tf.reduce_sum(w * w), grad

        # cglint: gradcheck w=(3, 4)
        @tf.custom_gradient
        def l2(w):
            return WEIGHT_DECAY * tf.reduce_sum(w * w), lambda dy: dy * 2.0 * WEIGHT_DECAY * w

        # cglint: gradcheck logits=(4, 10)
        @tf.custom_gradient
        def scaled_logits(logits):
            return logits * 1e-6, lambda dy: -dy * 1e-6   # wrong sign

        @tf.custom_gradient
        def sharp_exp(x):
            y = tf.exp(10.0 * x)
            return y, lambda dy: dy * 10.0 * y

        @tf.custom_gradient
        def sharp_exp_wrong(x):
            y = tf.exp(10.0 * x)
            return y, lambda dy: dy * 10.0 * tf.maximum(y, 1.0)  # wrong where y < 1

        @tf.custom_gradient
        def small32(x):
            c = tf.constant(1e-4, dtype=tf.float32)
            return c * x * x, lambda dy: dy * c * x   # wrong: 2 c x, checked at float32

        # a softmax tail moves no float32 output at all: below resolution, not 0
        # cglint: gradcheck x=(30, 40)
        @tf.custom_gradient
        def logsumexp32(x):
            x = tf.cast(x, tf.float32)
            def grad(dy):
                return tf.expand_dims(dy, 1) * 3.0 * tf.nn.softmax(x * 3.0)
            return tf.reduce_logsumexp(x * 3.0, axis=1), grad
    """)
    found = _graph_verdicts(interpreters, path)
    assert found["l2_half"].status == "mismatch"
    assert "custom gradient is 0.5x the numerical one" in found["l2_half"].message
    assert found["scaled_logits"].status == "mismatch"
    assert "custom gradient is -1x the numerical one" in found["scaled_logits"].message
    assert found["l2"].status == "ok"
    assert found["small32"].status == "mismatch" and "checked at float32" in found["small32"].message
    assert found["logsumexp32"].status == "ok", found["logsumexp32"].message
    # y reaches 5e9 at one element: the others' derivatives are not lost in its rounding
    assert found["sharp_exp"].status == "ok", found["sharp_exp"].message
    wrong = found["sharp_exp_wrong"]
    assert wrong.status == "mismatch"
    assert wrong.message.startswith("gradient of `x` differs where x <= 0, matches where x > 0")
    # the worst element shown is one that fails, not the largest error (5e10 +- rounding)
    custom, numerical = re.search(r"custom (\S+), numerical (\S+)\)", wrong.message).groups()
    assert custom != numerical and abs(float(numerical)) < 10


def test_inputs_outside_the_domain_are_said_so_not_a_mismatch(interpreters, tmp_path):
    path = write(tmp_path, "domain.py", """
        import tensorflow as tf

        @tf.custom_gradient
        def log_cg(x):
            return tf.log(x), lambda dy: dy / x

        # cglint: gradcheck x=np.random.uniform(0.1, 0.9, (5,))
        @tf.custom_gradient
        def log_in_domain(x):
            return tf.log(x), lambda dy: dy / x

        # a step from 1e-7 crosses 0: that element has no numerical value to compare with
        # cglint: gradcheck x=np.array([1e-7, 0.5, 2.0])
        @tf.custom_gradient
        def sqrt_edge(x):
            y = tf.sqrt(x)
            return y, lambda dy: dy * 0.5 / y
    """)
    found = _graph_verdicts(interpreters, path)
    assert (found["log_cg"].status, found["log_cg"].message) == ("no-inputs", (
        "NaN/inf output at 2 of 5 elements (out of domain?): "
        "`# cglint: gradcheck x=np.random.uniform(0.1, 0.9, (5,))`; with automatic inputs x=(5,)"))
    assert found["log_in_domain"].status == "ok"
    edge = found["sqrt_edge"]
    assert edge.status == "ok" and edge.max_abs_error < 1e-6
    assert edge.message == ("the numerical gradient of `x` is not finite at 1 of 3 elements (a step "
                            "leaves the function's domain): not compared there")


def test_an_ok_row_shows_the_error_of_a_compared_gradient_not_a_numbers_derivative(
        interpreters, tmp_path):
    path = write(tmp_path, "leaky.py", """
        import tensorflow as tf

        # cglint: gradcheck x=(5,) alpha=0.1
        @tf.custom_gradient
        def leaky(x, alpha=0.2):
            def grad(dy):
                return dy * tf.where(x > 0, tf.ones_like(x), alpha * tf.ones_like(x)), None
            return tf.where(x > 0, x, alpha * x), grad
    """)
    verdict = _graph_verdicts(interpreters, path)["leaky"]
    assert verdict.status == "ok"
    assert verdict.worst_input == "x" and verdict.max_abs_error < 1e-6


# -- the command ------------------------------------------------------------------------

def test_the_command_selects_one_function_and_writes_json(interpreters, tmp_path, capsys):
    path = os.path.join(GRADCHECK, "wrong_gradients.py")
    code = cli.main(["gradcheck", path + "::scale_unused", "--format", "json", "--mode", "graph"])
    (record,) = json.loads(capsys.readouterr().out)
    assert code == 0
    assert {k: record[k] for k in ("path", "line", "function", "interpreter", "status", "worst_input")} == {
        "path": path, "line": 26, "function": "scale_unused", "interpreter": "py36", "status": "ok",
        "worst_input": "x"}
    assert record["max_abs_error"] < 1e-6 and record["max_rel_error"] < 1e-6
    assert record["message"] == "with automatic inputs x=(5,), unused=(5,) (and broadcast: x=(3, 4), unused=(4,))"
    assert cli.main(["gradcheck", path + "::square_half", "--mode", "graph", "--python", "2.7"]) == 1
    out = capsys.readouterr().out
    assert "mismatch  py27" in out and "1 checks: 1 mismatch" in out
    # a tolerance wide enough accepts the wrong factor
    assert cli.main(["gradcheck", path + "::square_half", "--mode", "graph", "--atol", "10"]) == 0


def test_a_rebound_wrong_gradient_is_checked_and_fails(interpreters, tmp_path, capsys):
    path = write(tmp_path, "rebound.py", REBOUND)
    assert cli.main(["gradcheck", path + "::log1pexp", "--mode", "graph"]) == 1
    assert "custom gradient is 2x the numerical one" in capsys.readouterr().out


def test_runs_are_reproducible_and_a_function_given_twice_is_checked_once(interpreters, capsys):
    selector = os.path.join(GRADCHECK, "weighted_sum.py") + "::weighted_sum_tensor_weight"
    runs = []
    for _ in range(2):
        assert cli.main(["gradcheck", selector, selector, "--format", "json", "--mode", "eager"]) == 0
        runs.append(json.loads(capsys.readouterr().out))
    assert len(runs[0]) == 1
    assert runs[0][0]["max_abs_error"] == runs[1][0]["max_abs_error"] > 0


def test_settings_specs_reach_the_run(interpreters, tmp_path, capsys):
    write(tmp_path, "ops.py", """
        import tensorflow as tf

        @tf.custom_gradient
        def ste(x):
            return tf.round(x), lambda dy: dy
    """)
    (tmp_path / "pyproject.toml").write_text('[tool.cglint.gradcheck]\n"ops.py::ste" = "skip by design"\n')
    assert cli.main(["gradcheck", str(tmp_path / "ops.py")]) == 0
    assert "skipped by its spec: by design" in capsys.readouterr().out


@pytest.mark.parametrize("argv, message", [
    (["gradcheck", "no/such/file.py"], "no such file or folder: no/such/file.py"),
    (["gradcheck", os.path.join(GRADCHECK, "multi.py") + "::nothing"], "has no custom-gradient function `nothing`"),
    (["gradcheck", "missing.py::f"], "expected FILE::function with an existing file"),
])
def test_usage_errors_exit_2(argv, message, capsys):
    assert cli.main(argv) == 2
    assert message in capsys.readouterr().err


def test_bad_arguments_and_help(capsys):
    assert cli.main(["gradcheck", "x.py", "--atol", "-1"]) == 2
    assert "--atol: must be a number >= 0: -1" in capsys.readouterr().err
    for option, value, message in (
            ("--seed", "-1", "expected 0 to 4294967294, got -1"),  # numpy refused it in every run
            ("--seed", str(2 ** 32 - 1), "expected 0 to 4294967294"),  # r's seed is --seed + 1
            ("--jobs", "-3", "expected 1 or more, got -3"),
            ("--jobs", "0", "expected 1 or more, got 0")):
        assert cli.main(["gradcheck", "x.py", option, value]) == 2
        assert "%s: %s" % (option, message) in capsys.readouterr().err
    for huge in ("inf", "1e12", "nan"):  # past a day they overflowed the runner's waits
        assert cli.main(["gradcheck", "x.py", "--timeout", huge]) == 2
        assert "--timeout: expected more than 0 and at most 86400 seconds (a day), got %s" \
            % huge in capsys.readouterr().err
    assert cli.main(["gradcheck", "--help"]) == 0
    assert "IMPORTS AND RUNS" in capsys.readouterr().out


def test_the_linter_help_says_gradcheck_runs_code(capsys):
    assert cli.main(["--help"]) == 0
    assert "imports and runs the checked code" in " ".join(capsys.readouterr().out.split())


def test_a_tree_without_custom_gradients_exits_0(tmp_path, capsys):
    write(tmp_path, "plain.py", "x = 1\n")
    assert cli.main(["gradcheck", str(tmp_path)]) == 0
    assert "no custom-gradient functions" in capsys.readouterr().err


def test_a_module_level_with_statement_is_no_internal_error(tmp_path):
    path = write(tmp_path, "reads.py", """
        import json
        import tensorflow as tf

        with open("config.json") as handle:
            CONFIG = json.load(handle)

        @tf.custom_gradient
        def square(x):
            return x * x, lambda dy: dy * 2.0 * x

        square2 = tf.custom_gradient(lambda x: (x * x, lambda dy: dy * 2.0 * x))
    """)
    targets, problems = command.plan([path], {})
    assert problems == [] and [t.function for t in targets] == ["square", "square2"]
