"""Fuzzing in the suite: generated programs and mutated fixtures never crash the linter.

Every input must give findings, CG001 (does not parse), CG002 (does not decode) or nothing,
never a traceback or an internal error, through `check.check_bytes` and through the
command line (exit 0 or 1, never 2). The oracle for one input is `check_input` in
bench/fuzz.py, which also runs the long fuzz (`python3 bench/fuzz.py --count 100000`).

Deterministic: hypothesis runs derandomized (no example database), and the mutations are
drawn from fixed seeds, so CI sees the same inputs every time. About 40 s in all (2 cores).
"""
import importlib.util
import json
import os
import subprocess
import sys
import warnings

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from cglint import check, engine, files

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
# hypothesmith compiles what it generates, and Python warns about odd programs.
pytestmark = pytest.mark.filterwarnings("ignore::SyntaxWarning")


def _load_bench_fuzz():
    spec = importlib.util.spec_from_file_location(
        "cglint_bench_fuzz", os.path.join(ROOT, "bench", "fuzz.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


fuzz = _load_bench_fuzz()
SEEDS = fuzz.load_seeds(os.path.join(ROOT, "fixtures"))
FUZZ = settings(derandomize=True, database=None, deadline=None, print_blob=True,
                suppress_health_check=list(HealthCheck))


def check_input(data):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the generated programs warn; cglint must not care
        fuzz.check_input(data)


def test_there_are_seeds():
    assert len(SEEDS) > 50


def test_a_crash_found_by_the_long_fuzz_in_cg111_stays_fixed():
    """Regression input from the long fuzz (seed 1, input 6765): more positional arguments
    at a call than the custom-gradient function has parameters, one of them a scalar."""
    data = (b"import tensorflow as tf\n@tf.custom_gradient\ndef weighted_sum(x, y):\n"
            b"    def grad(dy):\n        return (dy * weight, dy * (1 - weight), dy * (x - y))\n"
            b"    return (forward_output, grad)\nout = weighted_sum(x, y, 0.3)\n")
    result = check.check_bytes("f.py", data, engine.Options())
    assert not result.error, result.error
    assert [d.code for d in result.diagnostics] == ["CG103"]


# ------------------------------------------------------------------ generated programs

try:
    import hypothesmith
except ImportError:  # the [test] extra installs it
    hypothesmith = None
needs_hypothesmith = pytest.mark.skipif(hypothesmith is None, reason="pip install hypothesmith")


@needs_hypothesmith
@settings(FUZZ, max_examples=100)
@given(hypothesmith.from_grammar() if hypothesmith else st.nothing())
def test_generated_programs_from_the_grammar(source):
    data = source.encode("utf-8", "surrogatepass")
    check_input(data)
    check_input(b"import tensorflow as tf\n" + data)  # the TensorFlow rules run too


@needs_hypothesmith
@settings(FUZZ, max_examples=8)
@given(hypothesmith.from_node() if hypothesmith else st.nothing())
def test_generated_programs_from_syntax_trees(source):
    check_input(b"import tensorflow as tf\n" + source.encode("utf-8", "surrogatepass"))


# ------------------------------------------------------------------- mutated fixtures

seeds = st.sampled_from(SEEDS)


@settings(FUZZ, max_examples=150)
@given(seeds, st.lists(st.tuples(st.floats(0, 1, exclude_max=True), st.integers(0, 7)),
                       min_size=1, max_size=8))
def test_byte_flips(seed, flips):
    data = bytearray(seed)
    for where, bit in flips:
        data[int(where * len(data))] ^= 1 << bit
    check_input(bytes(data))


@settings(FUZZ, max_examples=100)
@given(seeds, st.floats(0, 1))
def test_truncation(seed, where):
    check_input(seed[:int(where * len(seed))])


@settings(FUZZ, max_examples=100)
@given(seeds, st.lists(st.floats(0, 1), min_size=1, max_size=3))
def test_inserted_nuls(seed, places):
    data = seed
    for where in places:
        index = int(where * len(data))
        data = data[:index] + b"\x00" + data[index:]
    check_input(data)


@settings(FUZZ, max_examples=150)
@given(seeds, st.lists(st.tuples(st.floats(0, 1, exclude_max=True),
                                 st.text(" \t\x0c", max_size=12)), min_size=1, max_size=6))
def test_random_indentation_and_mixed_tabs(seed, changes):
    lines = seed.splitlines(True)
    for where, indent in changes:
        index = int(where * len(lines))
        lines[index] = indent.encode() + lines[index].lstrip(b" \t")
    check_input(b"".join(lines))


@settings(FUZZ, max_examples=100)
@given(seeds, st.integers(4, 8), st.booleans())
def test_tabs_for_spaces(seed, width, crlf):
    out = []
    for line in seed.splitlines(True):
        body = line.lstrip(b" ")
        spaces = len(line) - len(body)
        out.append(b"\t" * (spaces // width) + b" " * (spaces % width) + body)
    data = b"".join(out)
    check_input(data.replace(b"\n", b"\r\n") if crlf else data)


encodings = st.sampled_from(fuzz.ENCODINGS) | st.text(
    st.characters(min_codepoint=32, max_codepoint=126), max_size=20)


@settings(FUZZ, max_examples=200)
@given(seeds, encodings, st.sampled_from(fuzz.CODING_FORMS), st.integers(0, 2),
       st.booleans(), st.booleans())
def test_random_encodings_and_coding_lines(seed, encoding, form, line, reencode, bom):
    body = seed
    if reencode:
        try:
            body = ("# caf\xe9 \u0436\n" + seed.decode("utf-8")).encode(encoding, "replace")
        except (LookupError, TypeError, ValueError):
            pass
    lines = body.splitlines(True)
    lines.insert(min(line, len(lines)), form % encoding.encode("latin-1", "replace") + b"\n")
    data = b"".join(lines)
    check_input(b"\xef\xbb\xbf" + data if bom else data)


@settings(FUZZ, max_examples=150)
@given(st.integers(0, 2 ** 32 - 1))
def test_stacked_mutations(number):
    """Everything bench/fuzz.py does (splices, tokens, grammar-aware subtree moves, deep
    nesting ...), 1-8 mutations deep."""
    check_input(fuzz.make_input(SEEDS, 20240, number))


# ------------------------------------------------------------------ the command line

CLI_INPUTS = 240


@pytest.fixture(scope="module")
def mutated_tree(tmp_path_factory):
    folder = tmp_path_factory.mktemp("mutated")
    for number in range(CLI_INPUTS):
        (folder / ("m%03d.py" % number)).write_bytes(fuzz.make_input(SEEDS, 777, number))
    return folder


def cglint(*args, stdin=None):
    env = dict(os.environ, PYTHONPATH=ROOT + os.pathsep + os.environ.get("PYTHONPATH", ""))
    return subprocess.run([sys.executable, "-m", "cglint", "--no-cache"] + list(args),
                          input=stdin, capture_output=True, env=env, timeout=300)


def assert_no_crash(done):
    err = done.stderr.decode("utf-8", "replace")
    assert done.returncode in (0, 1), err[-3000:]
    assert "Traceback" not in err and "internal error" not in err, err[-3000:]


@pytest.mark.parametrize("jobs", ["1", "2"])
def test_command_line_on_a_tree_of_mutated_files(mutated_tree, jobs):
    done = cglint("--jobs", jobs, "--report-unused-noqa", "--format", "json", str(mutated_tree))
    assert_no_crash(done)
    records = json.loads(done.stdout)["findings"]
    assert {os.path.basename(r["path"]) for r in records} <= {
        "m%03d.py" % n for n in range(CLI_INPUTS)}
    # Each input's verdict through the command line is the one check_bytes gives.
    for number in range(0, CLI_INPUTS, 7):
        path = str(mutated_tree / ("m%03d.py" % number))
        data = open(path, "rb").read()
        expected = {d.code for d in check.check_bytes(path, data, engine.Options(report_unused_noqa=True)).diagnostics}
        if files.decode(path, data).__class__ is files.Unreadable:
            assert expected == {"CG002"}
        got = {r["code"] for r in records if r["path"] == path}
        assert expected - {"CG202", "CG203"} <= got, path  # whole-run rules see other files


def test_command_line_fix_on_mutated_files(mutated_tree, tmp_path):
    """--fix never touches a file that does not decode or parse, and what it writes parses."""
    import shutil

    tree = tmp_path / "tree"
    shutil.copytree(str(mutated_tree), str(tree))
    before = {path.name: path.read_bytes() for path in tree.iterdir()}
    assert_no_crash(cglint("--fix", "--jobs", "2", str(tree)))
    for name, data in before.items():
        after = (tree / name).read_bytes()
        codes = {d.code for d in check.check_bytes(name, data, engine.Options()).diagnostics}
        if codes & {"CG001", "CG002"}:
            assert after == data, name
        elif after != data:
            fixed = {d.code for d in check.check_bytes(name, after, engine.Options()).diagnostics}
            assert not fixed & {"CG001", "CG002"}, name
    assert sorted(p.name for p in tree.iterdir()) == sorted(before)


def test_command_line_reads_mutated_standard_input():
    for number in range(4):
        data = fuzz.make_input(SEEDS, 4242, number)
        assert_no_crash(cglint("-", "--stdin-filename", "x.py", stdin=data))


def test_atheris_target_runs(tmp_path):
    """The coverage-guided target (`bench/fuzz.py --atheris`), for a couple hundred inputs
    from a corpus of three fixtures."""
    pytest.importorskip("atheris", reason="pip install atheris (optional)")
    for number in range(3):
        (tmp_path / ("seed%d.py" % number)).write_bytes(SEEDS[number * 17])
    done = subprocess.run(
        [sys.executable, os.path.join(ROOT, "bench", "fuzz.py"), "--atheris", "-runs=200",
         "-max_len=4096", "-seed=1", str(tmp_path)], capture_output=True, timeout=300, cwd=ROOT)
    err = done.stderr.decode("utf-8", "replace")
    assert done.returncode == 0, err[-3000:]
    assert "Done 200 runs" in err


def test_a_missing_dependency_is_an_environment_error_not_a_crash(tmp_path):
    """As on a fresh machine where `python3 bench/fuzz.py` runs outside the venv."""
    (tmp_path / "fissix").mkdir()
    (tmp_path / "fissix" / "__init__.py").write_text(
        "raise ImportError(\"No module named 'fissix' (hidden by the test)\")\n")
    done = subprocess.run(
        [sys.executable, os.path.join(ROOT, "bench", "fuzz.py"), "--count", "20", "--jobs", "1",
         "--out", str(tmp_path / "out")],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, universal_newlines=True, timeout=300,
        env=dict(os.environ, PYTHONPATH=os.pathsep.join([str(tmp_path), ROOT])))
    assert done.returncode == 2, done.stdout + done.stderr
    assert "CRASH" not in done.stdout + done.stderr
    assert done.stderr.startswith("environment error: fissix, needed by cglint, cannot be "
                                  "imported"), done.stderr
    assert not (tmp_path / "out").exists()
