"""`--fix` and `--diff`: safe fixes applied in passes, written atomically, never to a file
that does not parse; standard input fixed to standard output."""
import io
import os
import sys

import pytest

from cglint import autofix, check, engine
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


def test_the_diff_of_a_crlf_file_keeps_its_line_endings(tmp_path, capsys):
    # so that `patch` and `git apply` take it
    (tmp_path / "a.py").write_bytes(BAD.replace("\n", "\r\n").encode())
    code, out, _ = run(capsys, "a.py", "--diff")
    body = [line for line in out.split("\n") if line[:1] in (" ", "-", "+")
            and not line.startswith(("---", "+++"))]
    assert body and all(line.endswith("\r") for line in body)
    assert (tmp_path / "a.py").read_bytes() == BAD.replace("\n", "\r\n").encode()


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


def test_a_fix_that_would_break_the_syntax_is_dropped(capsys):
    text = "x = 1\n"
    bad_fix = Diagnostic("a.py", 1, 1, "CG003", "m", fix=(Edit(Span(1, 1, 1, 2), "def"),))
    result = engine.Result("a.py", [bad_fix])
    fixed = autofix.fix_text("a.py", text, engine.Options(), result=result)
    assert fixed.text == text and fixed.rejected == [bad_fix]
    assert fixed.result.diagnostics[0].fix is None  # no longer offered, nor counted
    assert "a.py:1:1: not applying the CG003 fix" in capsys.readouterr().err


def test_a_fix_that_would_break_the_syntax_leaves_the_other_fixes_applied(
        tmp_path, capsys, monkeypatch):
    from cglint.rules import cg301_fstring

    def convert(source, *args):  # a bug making one fix a SyntaxError
        return "(" if "broken" in source else real(source, *args)

    real = cg301_fstring.convert
    monkeypatch.setattr(cg301_fstring, "convert", convert)
    text = 'a = f"{x}"\nb = f"broken {x}"\nc = f"{y}"\n'
    (tmp_path / "a.py").write_text(text)
    code, out, err = run(capsys, "a.py", "--fix", "--target-python", "2.7", "--no-cache")
    assert (tmp_path / "a.py").read_text() == (
        'a = "{}".format(x)\nb = f"broken {x}"\nc = "{}".format(y)\n')
    assert "a.py:2:5: not applying the CG301 fix: the file would not parse after it" in err
    assert "Fixed 2 findings." in out and "fixable" not in out


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


@pytest.mark.parametrize("source, fixed", [
    (b'x = f"{1}"\r\ny = 2\r\n', b'x = "{}".format(1)\r\ny = 2\r\n'),
    (b'\xef\xbb\xbfx = f"{1}"\n', b'\xef\xbb\xbfx = "{}".format(1)\n'),
    # (the \xe9 outside the f-string: a template past ASCII gets an unsafe fix on 2.7)
    (b'# -*- coding: latin-1 -*-\nx = f"{1}" + "\xe9"\n',
     b'# -*- coding: latin-1 -*-\nx = "{}".format(1) + "\xe9"\n'),
    (b'\xef\xbb\xbf# caf\xc3\xa9\r\ny = 2\n',) * 2,  # nothing to fix
], ids=["crlf", "bom", "latin-1", "unfixed"])
def test_fix_from_standard_input_keeps_encoding_bom_and_line_endings(tmp_path, source, fixed):
    """An editor replaces its buffer with what comes out: the bytes a fix on disk writes
    (probe p15: CRLF came back as LF, the BOM was dropped, latin-1 came back as UTF-8)."""
    import subprocess

    done = subprocess.run(
        [sys.executable, "-m", "cglint", "--no-cache", "--isolated", "-", "--fix",
         "--stdin-filename", "m.py"], input=source, stdout=subprocess.PIPE,
        stderr=subprocess.PIPE, cwd=str(tmp_path), timeout=300,
        env=dict(os.environ, PYTHONPATH=os.path.dirname(os.path.dirname(
            os.path.abspath(__file__)))))
    assert done.stdout == fixed, done.stderr
    (tmp_path / "m.py").write_bytes(source)
    assert main(["--no-cache", "--isolated", "-q", "--fix", "m.py"]) == 0
    assert (tmp_path / "m.py").read_bytes() == fixed  # as on disk


# ------------------------------------------------------ --fix never destroys user data

def test_fix_writes_the_file_it_read_through_a_link_and_dotdot(tmp_path, capsys):
    """`proj/link/../model.py` with link -> ../elsewhere/sub is elsewhere/model.py to the
    kernel; the path shown (normalised) is proj/model.py, another file."""
    (tmp_path / "elsewhere" / "sub").mkdir(parents=True)
    (tmp_path / "proj").mkdir()
    (tmp_path / "proj" / "link").symlink_to("../elsewhere/sub")
    (tmp_path / "elsewhere" / "model.py").write_text(BAD)
    (tmp_path / "proj" / "model.py").write_text("x = 1\n")
    code, _, err = run(capsys, "proj/link/../model.py", "--fix")
    assert (tmp_path / "elsewhere" / "model.py").read_text() == FIXED
    assert (tmp_path / "proj" / "model.py").read_text() == "x = 1\n"
    assert code == 0 and not err


def test_fix_leaves_a_file_edited_meanwhile_alone(tmp_path, capsys, monkeypatch):
    """Another process saves the file between cglint's read and its write: the fix of
    the old text must not replace the new text."""
    (tmp_path / "a.py").write_text(BAD)
    (tmp_path / "b.py").write_text(BAD)
    edited = "# saved by the editor\n" + BAD
    real = autofix.fix_text

    def edit_meanwhile(path, *args, **kwargs):
        if path == "a.py":
            with open("a.py", "w") as handle:  # in place, same size or not
                handle.write(edited)
        return real(path, *args, **kwargs)

    monkeypatch.setattr(autofix, "fix_text", edit_meanwhile)
    code, out, err = run(capsys, ".", "--fix")
    assert (tmp_path / "a.py").read_text() == edited
    assert (tmp_path / "b.py").read_text() == FIXED
    assert "not fixing a.py: it changed since it was read" in err
    assert code == 1 and "a.py:5:" in out  # its findings stay unfixed


def test_fix_leaves_a_file_replaced_meanwhile_alone(tmp_path, capsys, monkeypatch):
    """Same size, same content, another inode (an editor's save-by-rename)."""
    (tmp_path / "a.py").write_text(BAD)
    real = autofix.fix_text

    def replace_meanwhile(path, *args, **kwargs):
        (tmp_path / "new.py.tmp").write_text(BAD)
        os.replace(str(tmp_path / "new.py.tmp"), str(tmp_path / "a.py"))
        return real(path, *args, **kwargs)

    monkeypatch.setattr(autofix, "fix_text", replace_meanwhile)
    code, _, err = run(capsys, "a.py", "--fix")
    assert (tmp_path / "a.py").read_text() == BAD and "not fixing a.py" in err and code == 1


def test_fix_against_a_concurrent_writer_loses_no_edit(tmp_path):
    """A real writer process saves 50 new versions of the first file while `cglint --fix`
    checks a 150-file tree, at ten different moments: the file always ends as the
    writer's last version or the fix of it, never as a fix of an older version."""
    import subprocess
    import time

    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    env = dict(os.environ, PYTHONPATH=root)
    writer = (
        "import sys, time\n"
        "for n in range(50):\n"
        "    with open(sys.argv[1], 'w') as handle:\n"
        "        handle.write('# version %d\\n' % n + " + repr(BAD) + ")\n"
        "    time.sleep(0.002)\n")
    last = "# version 49\n" + BAD
    for trial in range(10):
        for name in range(150):
            (tmp_path / ("m%03d.py" % name)).write_text(BAD)
        lint = subprocess.Popen(
            [sys.executable, "-m", "cglint", "--fix", "--no-cache", "--report-unused-noqa",
             "--quiet", "--jobs", "1", str(tmp_path)],
            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env)
        time.sleep(0.3 + 0.05 * trial)
        subprocess.run([sys.executable, "-c", writer, str(tmp_path / "m000.py")], check=True)
        err = lint.communicate(timeout=120)[1]
        assert b"Traceback" not in err
        assert (tmp_path / "m000.py").read_text() in (last, last.replace(BAD, FIXED)), trial


def test_fix_keeps_hard_links(tmp_path, capsys):
    """Like ruff and black, a file with several names is written through its inode: every
    name sees the fix (replacing it would leave the other names with the old text)."""
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "a.py").write_text(BAD)
    os.link(str(tmp_path / "src" / "a.py"), str(tmp_path / "other_name.py"))
    inode = os.stat(str(tmp_path / "src" / "a.py")).st_ino
    assert run(capsys, "src", "--fix")[0] == 0
    for path in (tmp_path / "src" / "a.py", tmp_path / "other_name.py"):
        assert path.read_text() == FIXED
        assert os.stat(str(path)).st_ino == inode and os.stat(str(path)).st_nlink == 2
    assert sorted(os.listdir(str(tmp_path / "src"))) == ["a.py"]


def test_fix_keeps_setuid_setgid_mode_and_owner(tmp_path, capsys):
    import stat

    (tmp_path / "a.py").write_text(BAD)
    other = os.geteuid() == 0
    if other:  # as root: another owner too (a chown after the chmod cleared the bits)
        os.chown(str(tmp_path / "a.py"), 12345, 23456)
    os.chmod(str(tmp_path / "a.py"), 0o6754)
    assert run(capsys, "a.py", "--fix")[0] == 0
    info = os.stat(str(tmp_path / "a.py"))
    assert (tmp_path / "a.py").read_text() == FIXED
    assert stat.S_IMODE(info.st_mode) == 0o6754
    if other:
        assert (info.st_uid, info.st_gid) == (12345, 23456)


def test_fix_keeps_extended_attributes(tmp_path, capsys):
    path = str(tmp_path / "a.py")
    (tmp_path / "a.py").write_text(BAD)
    try:
        os.setxattr(path, "user.cglint_test", b"kept")
    except (OSError, AttributeError):
        pytest.skip("no user extended attributes on this file system")
    assert run(capsys, "a.py", "--fix")[0] == 0
    assert (tmp_path / "a.py").read_text() == FIXED
    assert os.getxattr(path, "user.cglint_test") == b"kept"


def test_fix_changes_only_the_fixed_lines_of_a_file_with_mixed_line_endings(tmp_path, capsys):
    original = (
        b"import tensorflow as tf\n"
        b'DOC = """first\r\nsecond\nthird\r\n"""\r\n'
        b"\r\n"
        b"@tf.custom_gradient\n"
        b"def f(x):\r\n"
        b"    return x, lambda dy: (dy, dy)  # noqa: CG103, CG101\n"
        b"y = 1\r\n"
    )
    (tmp_path / "a.py").write_bytes(original)
    assert run(capsys, "a.py", "--fix")[0] == 0
    assert (tmp_path / "a.py").read_bytes() == original.replace(b", CG101", b"")


def test_a_fix_that_adds_lines_keeps_the_other_lines_endings():
    data = b'a = 1\r\nb = """x\r\ny\nz"""\nc = 2\r\n'
    assert autofix.encode_like_original('a = 1\nnew\nb = """x\ny\nz"""\nc = 3\n', data) == (
        b'a = 1\r\nnew\r\nb = """x\r\ny\nz"""\nc = 3\r\n')
    assert autofix.encode_like_original('b = """x\ny\nz"""\nc = 2\n', data) == (
        b'b = """x\r\ny\nz"""\nc = 2\r\n')
    assert autofix.encode_like_original("x = 1\n", b"\xef\xbb\xbfx = 0\r\n") == (
        b"\xef\xbb\xbfx = 1\r\n")


def test_a_fix_the_file_encoding_cannot_hold_is_reported_not_written(tmp_path, capsys,
                                                                     monkeypatch):
    original = ("# -*- coding: latin-1 -*-\n" + BAD).encode("latin-1")
    (tmp_path / "a.py").write_bytes(original)
    real = autofix.fix_text

    def euro(*args, **kwargs):
        fixed = real(*args, **kwargs)
        fixed.text = fixed.text.replace("# noqa", "# \u20ac noqa")
        return fixed

    monkeypatch.setattr(autofix, "fix_text", euro)
    code, _, err = run(capsys, "a.py", "--fix")
    assert (tmp_path / "a.py").read_bytes() == original
    assert "cannot fix a.py" in err and "Traceback" not in err


def test_a_name_that_is_another_function_in_the_newest_release_is_fixed_only_unsafely():
    # tf.math.in_top_k is tf.nn.in_top_k in 1.15 only: TF 2's takes `targets` first, so
    # renaming a call copied from TF 2 docs swaps its arguments (InTopKV2 TypeError)
    text = ("import tensorflow as tf\n"
            "hit = tf.math.in_top_k(labels, logits, 1)\n"
            "value = tf.math.log(x)\n")
    options = engine.Options(select=("CG402",))
    fixed = autofix.fix_text("a.py", text, options)
    assert fixed.text == text.replace("tf.math.log", "tf.log")
    unsafe = autofix.fix_text("a.py", text, options, unsafe=True)
    assert "tf.nn.in_top_k(labels, logits, 1)" in unsafe.text
    messages = [d.message for d in check.check_alone("a.py", text, options).diagnostics]
    assert "is another function: check the order of its arguments" in messages[0]
    assert "another function" not in messages[1]


def test_names_past_the_table_get_their_prefixs_replacement():
    # class attributes are not enumerated: the chain under compat.v1, or after a renamed
    # name, is the 1.8 prefix with the rest
    text = ("import tensorflow as tf\n"
            "ops = tf.get_collection(tf.compat.v1.GraphKeys.UPDATE_OPS)\n"
            "mode = tf.compat.v1.estimator.ModeKeys.TRAIN\n"
            "doc = tf.math.log.__doc__\n"
            "odd = tf.compat.v1.NoSuchThing.attribute\n")
    options = engine.Options(select=("CG402",))
    # past the table, the attribute is not known to be there: an unsafe fix
    assert "tf.compat.v1.GraphKeys" in autofix.fix_text("a.py", text, options).text
    fixed = autofix.fix_text("a.py", text, options, unsafe=True).text
    assert "tf.get_collection(tf.GraphKeys.UPDATE_OPS)" in fixed
    assert "mode = tf.estimator.ModeKeys.TRAIN" in fixed
    messages = [d.message for d in check.check_alone("a.py", text, options).diagnostics]
    assert "use `tf.log.__doc__`" in messages[2]
    # near-misses: a first name 1.8 lacks, a method a 1.8 class lacks get no replacement
    assert "use `" not in messages[3]
    methods = ("import tensorflow as tf\nu = tf.compat.v1.data.Dataset.unbatch\n"
               "e = tf.compat.v1.nn.rnn_cell.LSTMCell.get_initial_state\n")
    found = check.check_alone("a.py", methods, options).diagnostics
    assert len(found) == 2 and not any("use `" in d.message for d in found)


def test_the_diff_of_a_cr_only_file_is_what_fix_writes(tmp_path, capsys):
    # diff(1) and patch(1) end lines at "\n" only: the whole CR-only file is one line,
    # its `\r`s kept, so the patch applies and gives the bytes --fix writes.
    data = b"import tensorflow as tf\rx = tf.math.log(1.0)\ry = 2\r"
    (tmp_path / "a.py").write_bytes(data)
    _, out, _ = run(capsys, "a.py", "--diff")
    assert out.split("\n")[3:] == ["-" + data.decode(), "\\ No newline at end of file",
                                    "+" + data.decode().replace("math.", ""),
                                    "\\ No newline at end of file", ""]
    run(capsys, "a.py", "--fix")
    assert (tmp_path / "a.py").read_bytes() == data.replace(b"math.", b"")


def test_a_bom_declares_utf8_for_fix_and_the_editor_paths_too(tmp_path):
    path = tmp_path / "a.py"
    path.write_bytes(b"\xef\xbb\xbf# caf\xc3\xa9\nimport tensorflow as tf\nx = tf.math.log(1.0)\n")
    text = path.read_bytes().decode("utf-8-sig")
    options = engine.Options(target_python=(2, 7))
    fixed = autofix.fix_text(str(path), text, options, bom=True).text
    assert "coding" not in fixed and "tf.log(1.0)" in fixed
    assert not any("coding" in d.message for d in check.check_alone(
        str(path), text, options, bom=True).diagnostics)


@pytest.mark.skipif(not __import__("shutil").which("patch"), reason="needs patch(1)")
def test_the_diff_of_a_bom_or_latin1_file_patches_it_to_what_fix_writes(tmp_path):
    # The diff holds the file's own bytes (its BOM, latin-1 text), so `patch -p1` applies
    # it and gives what --fix writes.
    import subprocess
    import shutil as _shutil

    latin1 = ("# -*- coding: latin-1 -*-\nimport tensorflow as tf\n"
              "label = 'caf\xe9'\nx = tf.math.log(tf.constant(2.0))\n").encode("latin-1")
    bom = b"\xef\xbb\xbfimport tensorflow as tf\nx = tf.math.log(tf.constant(2.0))\n"
    for folder in ("patched", "fixed"):
        (tmp_path / folder).mkdir()
        (tmp_path / folder / "latin.py").write_bytes(latin1)
        (tmp_path / folder / "bom.py").write_bytes(bom)
    command = [sys.executable, "-m", "cglint", "--no-cache", "--isolated"]
    diff = subprocess.run(command + ["--diff", "."], cwd=str(tmp_path / "patched"),
                          stdout=subprocess.PIPE, stderr=subprocess.PIPE).stdout
    assert b"caf\xe9" in diff and b"\xef\xbb\xbfimport" in diff
    subprocess.run(["patch", "-p1", "--quiet"], input=diff, cwd=str(tmp_path / "patched"),
                   check=True)
    subprocess.run(command + ["--fix", "-q", "."], cwd=str(tmp_path / "fixed"),
                   stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    for name in ("latin.py", "bom.py"):
        fixed = (tmp_path / "fixed" / name).read_bytes()
        assert fixed != (latin1 if name == "latin.py" else bom)  # a fix was made
        assert (tmp_path / "patched" / name).read_bytes() == fixed
    assert _shutil.which("patch")


def test_the_diff_of_a_file_without_a_final_newline_marks_it(tmp_path, capsys):
    # as diff(1) does, so that patch(1) takes it
    (tmp_path / "a.py").write_text("import tensorflow as tf\nx = tf.math.log(tf.constant(2.0))")
    _, out, _ = run(capsys, "a.py", "--diff")
    assert out.endswith("-x = tf.math.log(tf.constant(2.0))\n\\ No newline at end of file\n"
                        "+x = tf.log(tf.constant(2.0))\n\\ No newline at end of file\n")


def test_a_python_2_file_is_never_fixed_not_even_its_unused_noqa_codes(tmp_path, capsys):
    text = 'import tensorflow as tf\nprint "py2 file"\nx = tf.log(2.0)  # noqa: CG101\n'
    (tmp_path / "a.py").write_text(text)
    code, out, _ = run(capsys, "a.py", "--fix", "--target-python", "2.7", "--no-cache")
    assert (tmp_path / "a.py").read_text() == text and "CG003" in out
    assert autofix.fix_text("a.py", text, engine.Options(report_unused_noqa=True,
                                                         target_python=(2, 7))).text == text
