"""cglint.fix: applying edits, re-encoding like the original, atomic writes; and the
CG301 fix end to end on the fixtures."""
import errno
import glob
import os
import stat
import subprocess

import pytest

from cglint import fix
from cglint.fix import OverlappingEdits, apply_edits, encode_like, write_atomic
from cglint.diagnostics import Edit
from cglint.source import Span
from cglint.facts import ModuleFacts
from cglint.parse import parse
from cglint.rules.cg301_fstring import FStringRule

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PYTHON27 = os.path.expanduser("~/.pyenv/versions/2.7.18/bin/python")


def test_apply_edits_replaces_by_line_and_column():
    text = "a = 1\nb = f(x)\n"
    edits = [Edit(Span(2, 5, 2, 9), "g(y)"), Edit(Span(1, 5, 1, 6), "10")]
    assert apply_edits(text, edits) == "a = 10\nb = g(y)\n"


def test_apply_edits_across_lines_and_crlf():
    text = "a = (1,\r\n     2)\r\nb\r\n"
    assert apply_edits(text, [Edit(Span(1, 5, 2, 8), "3")]) == "a = 3\r\nb\r\n"


def test_adjacent_edits_are_fine_overlapping_ones_raise():
    text = "abcdef"
    assert apply_edits(text, [Edit(Span(1, 1, 1, 3), "X"), Edit(Span(1, 3, 1, 5), "Y")]) == "XYef"
    with pytest.raises(OverlappingEdits):
        apply_edits(text, [Edit(Span(1, 1, 1, 4), "X"), Edit(Span(1, 3, 1, 5), "Y")])
    with pytest.raises(OverlappingEdits):
        apply_edits(text, [Edit(Span(1, 2, 1, 2), "X"), Edit(Span(1, 2, 1, 2), "Y")])


def test_positions_outside_the_text_raise():
    with pytest.raises(ValueError):
        apply_edits("abc\n", [Edit(Span(1, 6, 1, 7), "X")])
    with pytest.raises(ValueError):
        apply_edits("abc\n", [Edit(Span(4, 1, 4, 1), "X")])


def test_encode_like_keeps_encoding_bom_and_line_endings():
    original = "# -*- coding: latin-1 -*-\r\nx = 'é'\r\n".encode("latin-1")
    assert encode_like("# -*- coding: latin-1 -*-\nx = 'è'\n", original) == "# -*- coding: latin-1 -*-\r\nx = 'è'\r\n".encode("latin-1")
    assert encode_like("a\r\nb\r\n", b"a\r\nb\r\n") == b"a\r\nb\r\n"  # read without translation
    assert encode_like("x = 1\n", b"\xef\xbb\xbfx = 0\n") == b"\xef\xbb\xbfx = 1\n"
    assert encode_like("\ufeffx = 1\n", b"\xef\xbb\xbfx = 0\n") == b"\xef\xbb\xbfx = 1\n"


def test_write_atomic_keeps_mode_and_follows_symlinks(tmp_path):
    target = tmp_path / "model.py"
    target.write_bytes(b"old\n")
    os.chmod(target, 0o751)
    link = tmp_path / "link.py"
    link.symlink_to(target)
    write_atomic(str(link), b"new\n")
    assert target.read_bytes() == b"new\n"
    assert link.is_symlink()
    assert stat.S_IMODE(os.stat(target).st_mode) == 0o751
    assert sorted(p.name for p in tmp_path.iterdir()) == ["link.py", "model.py"]


def test_write_atomic_leaves_the_old_file_when_writing_fails(tmp_path, monkeypatch):
    target = tmp_path / "model.py"
    target.write_bytes(b"old\n")

    def fail(descriptor):
        raise OSError("disk full")

    monkeypatch.setattr(os, "fsync", fail)
    with pytest.raises(OSError):
        write_atomic(str(target), b"new\n")
    assert target.read_bytes() == b"old\n"
    assert [p.name for p in tmp_path.iterdir()] == ["model.py"]


def fix_text(text, target=(2, 7)):
    module = ModuleFacts("m.py", text, parse(text, target), target)
    findings = list(FStringRule().check(module))
    edits = [edit for finding in findings if finding.fix for edit in finding.fix]
    return apply_edits(text, edits), findings


def test_second_fix_changes_nothing():
    text = 'x = f"{a!r:>{w}}" "{b}"\ny = f"{a=}"\n'
    fixed, findings = fix_text(text)
    assert len(findings) == 2 and findings[0].fix and not findings[1].fix
    assert "not fixable automatically" in findings[1].message
    assert fix_text(fixed)[0] == fixed
    assert fixed == 'x = "{!r:>{}}" "{{b}}".format(a, w)\ny = f"{a=}"\n'


def test_no_findings_for_python36():
    assert fix_text('x = f"{a}"\n', target=(3, 6))[1] == []


BAD_FSTRING_FIXTURES = sorted(glob.glob(os.path.join(ROOT, "fixtures", "CG301", "bad_*.py")))


@pytest.mark.skipif(not os.path.exists(PYTHON27), reason="needs the real Python 2.7")
@pytest.mark.parametrize("path", BAD_FSTRING_FIXTURES, ids=os.path.basename)
def test_fixed_fixtures_compile_under_python27_and_lint_clean(path, tmp_path):
    with open(path, "rb") as stream:
        original = stream.read()
    fixed, findings = fix_text(original.decode("utf-8"))
    assert findings and all(finding.fix for finding in findings)
    assert fix_text(fixed)[1] == []
    out = tmp_path / os.path.basename(path)
    write_atomic(str(out), encode_like(fixed, original))
    check = 'import sys; compile(open(sys.argv[1]).read(), sys.argv[1], "exec")'
    subprocess.run([PYTHON27, "-c", check, str(out)], check=True)


def _hard_linked(tmp_path, text=b"x = 1\n" * 50):
    path = tmp_path / "a.py"
    path.write_bytes(text)
    os.link(str(path), str(tmp_path / "b.py"))
    return path, text


@pytest.mark.parametrize("expected", [False, True])
def test_a_hard_linked_file_is_restored_when_the_write_fails_midway(tmp_path, monkeypatch,
                                                                     expected):
    """A file with several links is overwritten in place, which is not atomic: a full
    disk midway cut one in half (probe: a 64 KiB tmpfs). The old text goes back."""
    path, text = _hard_linked(tmp_path)
    real_write, calls = os.write, []

    def failing_write(descriptor, data):
        calls.append(len(data))
        if len(calls) == 2:
            raise OSError(errno.ENOSPC, "No space left on device")
        return real_write(descriptor, bytes(data)[:7])  # a short write first

    monkeypatch.setattr(os, "write", failing_write)
    with pytest.raises(OSError):
        fix.write_atomic(str(path), b"y = 2\n" * 80,
                         (text, os.stat(str(path))) if expected else None)
    monkeypatch.setattr(os, "write", real_write)
    assert path.read_bytes() == text == (tmp_path / "b.py").read_bytes()


def test_a_hard_linked_file_that_would_not_fit_is_left_as_it_was(tmp_path, monkeypatch):
    path, text = _hard_linked(tmp_path)

    def full(descriptor, offset, length):
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(os, "posix_fallocate", full, raising=False)
    with pytest.raises(OSError):
        fix.write_atomic(str(path), text * 2)
    assert path.read_bytes() == text


def test_a_hard_linked_file_is_fixed_through_its_inode(tmp_path):
    path, text = _hard_linked(tmp_path)
    fix.write_atomic(str(path), b"short\n")
    assert (tmp_path / "b.py").read_bytes() == b"short\n" == path.read_bytes()
