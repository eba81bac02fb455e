"""`--fix` and `--diff`: safe fixes applied in passes, written atomically, never to a file
that does not parse; standard input fixed to standard output."""
import io
import sys

import pytest

from cglint import autofix, engine
from cglint.cli import main
from cglint.diagnostics import Diagnostic, Edit
from cglint.source import Span

BAD = (
    "import tensorflow as tf\n"
    "\n"
    "@tf.custom_gradient\n"
    "def f(x):\n"
    "    return x, lambda dy: (dy, dy)  # noqa: CG103, CG101\n"
)
FIXED = BAD.replace(", CG101", "")


@pytest.fixture(autouse=True)
def in_tmp(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)


def run(capsys, *args):
    code = main(["--report-unused-noqa"] + list(args))
    out, err = capsys.readouterr()
    return code, out, err


def test_fix_rewrites_the_file_and_reports_what_is_left(tmp_path, capsys):
    (tmp_path / "a.py").write_text(BAD)
    (tmp_path / "b.py").write_text(BAD.replace("  # noqa: CG103, CG101", "  # noqa: CG101"))
    code, out, _ = run(capsys, ".", "--fix")
    assert (tmp_path / "a.py").read_text() == FIXED
    assert (tmp_path / "b.py").read_text() == BAD.replace("  # noqa: CG103, CG101", "")
    assert code == 1  # b.py's CG103 has no safe fix
    assert out.splitlines() == [
        "b.py:5:26: CG103 `f` takes 1 tensor input but its gradient function `lambda` "
        "returns 2 gradients",
        "Fixed 2 findings.",
        "Found 1 finding in 2 files checked.",
    ]
    assert run(capsys, ".", "--fix")[1].splitlines()[-1] == "Found 1 finding in 2 files checked."


def test_fix_keeps_line_endings_and_encoding(tmp_path, capsys):
    original = ("# -*- coding: latin-1 -*-\n# caf\xe9\n" + BAD).replace("\n", "\r\n")
    (tmp_path / "a.py").write_bytes(original.encode("latin-1"))
    assert run(capsys, "a.py", "--fix")[0] == 0
    expected = ("# -*- coding: latin-1 -*-\n# caf\xe9\n" + FIXED).replace("\n", "\r\n")
    assert (tmp_path / "a.py").read_bytes() == expected.encode("latin-1")


def test_diff_shows_the_fix_and_changes_nothing(tmp_path, capsys):
    (tmp_path / "a.py").write_text(BAD)
    (tmp_path / "clean.py").write_text("x = 1\n")
    code, out, err = run(capsys, ".", "--diff")
    assert code == 1 and (tmp_path / "a.py").read_text() == BAD
    assert out.splitlines() == [
        "--- a/a.py", "+++ b/a.py", "@@ -2,4 +2,4 @@", " ", " @tf.custom_gradient",
        " def f(x):",
        "-    return x, lambda dy: (dy, dy)  # noqa: CG103, CG101",
        "+    return x, lambda dy: (dy, dy)  # noqa: CG103",
    ]
    assert err == "1 file would be changed.\n"
    (tmp_path / "a.py").write_text(FIXED)
    assert run(capsys, ".", "--diff")[:2] == (0, "")


def test_fix_and_diff_together_is_a_usage_error(capsys):
    assert run(capsys, ".", "--fix", "--diff")[0] == 2


def test_a_file_that_does_not_parse_is_never_touched(tmp_path, capsys):
    broken = BAD + "def g(:\n"
    (tmp_path / "a.py").write_text(broken)
    result = engine.Result("a.py", [Diagnostic("a.py", 5, 36, "CG003", "unused",
                                               fix=(Edit(Span(5, 1, 5, 2), "X"),))])
    fixed = autofix.fix_text("a.py", broken, engine.Options(report_unused_noqa=True), result)
    assert fixed.text == broken and fixed.applied == 0
    run(capsys, "a.py", "--fix")
    assert (tmp_path / "a.py").read_text() == broken


def test_a_fix_that_would_break_the_syntax_is_dropped():
    text = "x = 1\n"
    bad_fix = Diagnostic("a.py", 1, 1, "CG003", "m", fix=(Edit(Span(1, 1, 1, 2), "def"),))
    result = engine.Result("a.py", [bad_fix])
    assert autofix.fix_text("a.py", text, engine.Options(), result=result).text == text


def test_overlapping_fixes_wait_for_the_next_pass():
    text = "x = 1\n"
    first = Diagnostic("a.py", 1, 1, "CG003", "one")
    second = Diagnostic("a.py", 1, 2, "CG003", "two")
    edits = {first: (Edit(Span(1, 1, 1, 4), "y ="),), second: (Edit(Span(1, 2, 1, 5), "z"),)}
    chosen = autofix._compatible_edits(text, list(edits.items()))
    assert chosen == list(edits[first])


def test_fix_from_standard_input_prints_the_fixed_source(monkeypatch, capsys):
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(BAD.encode())))
    code, out, err = run(capsys, "-", "--fix", "--stdin-filename", "pkg/m.py")
    assert code == 0 and out == FIXED
    assert "Found 0" not in err and "All clear: 1 file checked." in err
