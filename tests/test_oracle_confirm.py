"""`cglint confirm` without TensorFlow: collecting, planning, reporting, usage errors."""
import json
import os
import stat

import pytest

from cglint.oracle import confirm, sandbox
from cglint.oracle.headers import Outcome
from cglint.oracle.runner import Job, Result


def write(path, text):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as handle:
        handle.write(text)
    return path


def test_collect_walks_folders_in_order_and_skips_non_fixtures(tmp_path):
    root = str(tmp_path)
    write(os.path.join(root, "CG103", "bad_b.py"), "")
    write(os.path.join(root, "CG103", "bad_a.py"), "")
    write(os.path.join(root, "CG101", "good.py"), "")
    write(os.path.join(root, "CG101", "README.md"), "")
    write(os.path.join(root, "CG101", "README.py"), "")
    write(os.path.join(root, "CG101", "__pycache__", "good.py"), "")
    write(os.path.join(root, ".hidden", "x.py"), "")
    single = write(os.path.join(root, "CG103", "bad_a.py"), "")
    assert confirm.collect([root, single]) == [
        os.path.join(root, "CG101", "good.py"),
        os.path.join(root, "CG103", "bad_a.py"),
        os.path.join(root, "CG103", "bad_b.py"),
    ]


def test_collect_rejects_missing_paths(tmp_path):
    with pytest.raises(confirm.UsageError, match="no such file"):
        confirm.collect([str(tmp_path / "nope")])


def test_plan_makes_a_record_per_interpreter_and_keeps_bad_headers(tmp_path):
    both = write(str(tmp_path / "a.py"), "# lint: clean\n# run: ok\n# mode: eager\n")
    one = write(str(tmp_path / "b.py"), "# lint: CG301 1:1\n# run[py27]: SyntaxError\n")
    bad = write(str(tmp_path / "c.py"), "# lint: clean\n")
    records = confirm.plan([both, one, bad])
    assert [(r.path, r.interpreter, r.mode, str(r.expected)) for r in records[:3]] == [
        (both, "py27", "eager", "ok"), (both, "py36", "eager", "ok"), (one, "py27", "graph", "SyntaxError")]
    assert records[3].status == "error" and "no `# run:` header" in records[3].error
    assert [r.interpreter for r in confirm.plan([both, one], selected=("py36",))] == ["py36"]


def record(expected, **result):
    rec = confirm.Record("fixtures/CG103/bad_x.py", "py27", "graph", expected)
    rec.result = Result(Job(rec.path, "py27"), **result)
    return rec


def test_confirmed_line():
    rec = record(Outcome("ValueError", "Num gradients"), outcome="ValueError", message="Num gradients 3 generated")
    assert rec.status == "confirmed"
    assert confirm.format_text(rec) == "confirmed  fixtures/CG103/bad_x.py [py27] ValueError: Num gradients"


def test_mismatch_lines_show_the_end_of_the_output():
    output = "\n".join("line %d" % i for i in range(30)) + "\n"
    rec = record(Outcome("ValueError", "Num gradients"), outcome="ok", output=output)
    assert rec.status == "mismatch"
    lines = confirm.format_text(rec).splitlines()
    assert lines[0] == "MISMATCH   fixtures/CG103/bad_x.py [py27] expected ValueError: Num gradients, got ok"
    assert lines[1:] == ["    | line %d" % i for i in range(30 - confirm.OUTPUT_LINES, 30)]


def test_a_failure_never_matches_even_ok():
    rec = record(Outcome("ok"), failure="timeout after 60s")
    assert rec.status == "mismatch"
    assert confirm.format_text(rec) == "MISMATCH   fixtures/CG103/bad_x.py [py27] expected ok, got timeout after 60s"
    assert rec.to_json()["failure"] == "timeout after 60s"


def test_error_line():
    rec = confirm.Record("f.py", error="bad header: no `# run:` header")
    assert confirm.format_text(rec) == "ERROR      f.py: bad header: no `# run:` header"


@pytest.mark.parametrize("argv", [["--jobs", "0"], ["--jobs", "-3"], ["--jobs", "x"], ["--timeout", "-1"], ["--timeout", "inf"],
                                  ["--timeout", "1e12"], ["--timeout", "nan"],
                                  ["--interpreter", "py35"], ["--format", "xml"]])
def test_bad_options_are_usage_errors(argv, capsys):
    assert confirm.main(argv) == 2


def test_missing_path_is_a_usage_error(tmp_path, capsys):
    assert confirm.main([str(tmp_path / "nope")]) == 2
    assert "no such file or folder" in capsys.readouterr().err


def test_no_fixtures_is_a_usage_error(tmp_path, capsys):
    assert confirm.main([str(tmp_path)]) == 2
    assert "no fixtures" in capsys.readouterr().err


def test_no_usable_interpreter_exits_2_and_says_why(tmp_path, capsys, monkeypatch):
    gpu = tmp_path / "python"
    gpu.write_text("#!/bin/sh\ncat <<'EOF'\n%s\nEOF\n" % json.dumps(
        {"python": "3.6", "error": "ImportError: libcublas.so.9.0: cannot open shared object file"}))
    gpu.chmod(gpu.stat().st_mode | stat.S_IEXEC)
    write(str(tmp_path / "fx" / "a.py"), "# lint: clean\n# run[py36]: ok\n")
    monkeypatch.delenv("CGLINT_TF_PYTHON", raising=False)
    assert confirm.main([str(tmp_path / "fx"), "--tf-python", str(gpu)]) == 2
    assert "tensorflow-gpu 1.8 needs CUDA 9 libraries" in capsys.readouterr().err
    monkeypatch.setenv("CGLINT_TF_PYTHON", str(gpu))
    assert confirm.main(["--setup"]) == 2


def test_without_a_sandbox_confirm_refuses_unless_told(tmp_path, capsys, monkeypatch):
    """Where the kernel forbids namespaces, untrusted fixtures are not run at all."""
    monkeypatch.setattr(sandbox, "unavailable", lambda: "bwrap: No permissions to create new namespace")
    ran = tmp_path / "ran"
    write(str(tmp_path / "fx" / "a.py"), "# lint: clean\n# run[py36]: ok\nopen(%r, 'w')\n" % str(ran))
    assert confirm.main([str(tmp_path / "fx")]) == 2
    err = capsys.readouterr().err
    assert "no sandbox for the fixtures: bwrap: No permissions to create new namespace" in err
    assert "--unsafe-no-sandbox" in err
    assert not ran.exists()
    runs = []

    def run_fixtures(jobs, *args):
        runs.append(args)
        return [Result(job, outcome="ok") for job in jobs]

    monkeypatch.setattr(confirm, "run_fixtures", run_fixtures)
    monkeypatch.setattr(confirm.envs, "find_interpreters", lambda *args: ({"py36": "python"}, {}))
    assert confirm.main([str(tmp_path / "fx"), "--unsafe-no-sandbox"]) == 0
    assert runs and runs[0][-1] is False  # sandboxed=False reached the runner
