"""Hostile trees: every odd path gets a clear finding or message, the rest of the tree is
still checked, and time and memory stay bounded.

Bounds, measured on the whole `cglint` process tree (peak RSS of the process and the
pool workers it waited for, from wait4) on 2 cores:
  - the big hostile tree (50 MB file, a million-line file, 10,000-deep nesting in source
    and in folders, loops, FIFO, socket, ...): under 1 GiB and 120 s;
  - a million-line file alone: under 300 MiB and 60 s (it is skipped: over MAX_LINES).
"""
import errno
import os
import signal
import resource
import shutil
import socket
import stat
import subprocess
import sys
import time

import pytest

from cglint import files
from cglint.cli import main

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
from snippets import BAD
GiB, MiB = 1 << 30, 1 << 20
DEPTH = 10000


# Runs a command and writes its peak RSS (KiB, its reaped children included) to a file.
# Linux counts in a process's peak RSS the memory of the process it was forked from, as
# it stood then: measured straight from pytest, late in a long session, a 36 MiB run of
# cglint read as 300 MiB. Forked from this small launcher, it is measured as it is.
_LAUNCHER = """
import os, signal, sys
pid = os.fork()
if pid == 0:
    os.execv(sys.argv[2], sys.argv[2:])
_, status, usage = os.wait4(pid, 0)
with open(sys.argv[1], "w") as handle:
    handle.write(str(usage.ru_maxrss))
if os.WIFSIGNALED(status):
    signal.signal(os.WTERMSIG(status), signal.SIG_DFL)
    os.kill(os.getpid(), os.WTERMSIG(status))
sys.exit(os.WEXITSTATUS(status))
"""


def run_measured(args, timeout=300, env=None, prefix=()):
    """Run `python -m cglint ARGS`: (exit code, stdout bytes, stderr text, seconds, peak
    RSS bytes of it and its reaped children)."""
    env = dict(env or os.environ)
    env["PYTHONPATH"] = ROOT + os.pathsep + env.get("PYTHONPATH", "")
    out = os.path.join(os.environ.get("TMPDIR", "/tmp"), "cglint-hostile-%d.out" % os.getpid())
    err = out + ".err"
    peak = out + ".rss"
    started = time.monotonic()
    with open(out, "wb") as stdout, open(err, "wb") as stderr:
        process = subprocess.Popen(
            list(prefix) + [sys.executable, "-c", _LAUNCHER, peak, sys.executable, "-m",
                            "cglint"] + list(args),
            stdout=stdout, stderr=stderr, stdin=subprocess.DEVNULL, env=env,
            start_new_session=True)
        deadline = started + timeout
        while True:
            pid, status, usage = os.wait4(process.pid, os.WNOHANG)
            if pid:
                break
            if time.monotonic() > deadline:
                os.killpg(process.pid, signal.SIGKILL)  # the launcher and cglint
                process.wait()
                pytest.fail("cglint took over %ds" % timeout)
            time.sleep(0.05)
        process.returncode = os.waitstatus_to_exitcode(status)
    seconds = time.monotonic() - started
    with open(peak) as handle:
        rss = int(handle.read()) * 1024
    with open(out, "rb") as stdout, open(err, "rb") as stderr:
        result = (process.returncode, stdout.read(), stderr.read().decode("utf-8", "replace"),
                  seconds, rss)
    for path in (out, err, peak):
        os.unlink(path)
    return result


def findings(out, top):
    """{(path relative to top, code)} from text output; paths are bytes (any file name)."""
    found = set()
    prefix = os.fsencode(str(top)) + b"/"
    for line in out.splitlines():
        if b": CG" not in line:
            continue
        head, _, rest = line.partition(b": CG")
        path = head.rsplit(b":", 2)[0]
        found.add((path[len(prefix):] if path.startswith(prefix) else path,
                   "CG" + rest.split()[0].decode()))
    return found


def make_deep_folders(top, depth, files_at=()):
    """top/d/d/.../d `depth` deep (far past PATH_MAX), with a BAD f.py at the given levels.
    Built through directory descriptors: the path is too long for any path call."""
    fd = os.open(str(top), os.O_RDONLY)
    try:
        for level in range(1, depth + 1):
            os.mkdir("d", dir_fd=fd)
            inner = os.open("d", os.O_RDONLY, dir_fd=fd)
            os.close(fd)
            fd = inner
            if level in files_at:
                handle = os.open("f.py", os.O_WRONLY | os.O_CREAT, 0o644, dir_fd=fd)
                os.write(handle, BAD.encode())
                os.close(handle)
    finally:
        os.close(fd)


def remove_deep_folders(top):
    """Remove top/d/d/... iteratively: shutil.rmtree recurses once per level and would
    hit the recursion limit (pytest's own clean-up of old temp folders too)."""
    top_fd = os.open(str(top), os.O_RDONLY)
    current, number = "d", 0
    try:
        while current is not None:
            fd = os.open(current, os.O_RDONLY, dir_fd=top_fd)
            following = None
            for name in os.listdir(fd):
                if name == "d":
                    number += 1
                    following = "flat%d" % number
                    os.rename("d", following, src_dir_fd=fd, dst_dir_fd=top_fd)
                else:
                    os.unlink(name, dir_fd=fd)
            os.close(fd)
            os.rmdir(current, dir_fd=top_fd)
            current = following
    finally:
        os.close(top_fd)


@pytest.fixture
def deep_cleanup():
    made = []
    yield made.append
    for top in made:
        if os.path.exists(os.path.join(str(top), "d")):
            remove_deep_folders(top)


def test_the_hostile_tree_is_reported_and_bounded(tmp_path, monkeypatch, deep_cleanup):
    tree = tmp_path / "tree"
    tree.mkdir()
    for name in ("a_first.py", "m_middle.py", "z_last.py"):
        (tree / name).write_text(BAD)
    # Symbolic link loops: a folder linked to its parent, two files linked to each other.
    (tree / "loop").symlink_to(tree)
    (tree / "ping.py").symlink_to(tree / "pong.py")
    (tree / "pong.py").symlink_to(tree / "ping.py")
    (tree / "dangling.py").symlink_to(tree / "nowhere.py")
    # A folder named like a file: walked into, not read.
    (tree / "x.py").mkdir()
    (tree / "x.py" / "inner.py").write_text(BAD)
    # Unreadable even to root: reading /proc/self/mem at offset 0 is EIO.
    (tree / "mem.py").symlink_to("/proc/self/mem")
    # A FIFO and a socket: opening them would block (or fail); neither may hang the run.
    os.mkfifo(str(tree / "fifo.py"))
    monkeypatch.chdir(tree)  # a socket path must be short
    server = socket.socket(socket.AF_UNIX)
    server.bind("sock.py")
    # Huge: 50 MB, and a million lines (6 MB, which the parser alone turns into 2.4 GB).
    with open(str(tree / "fifty_mb.py"), "wb") as handle:
        line = b"x = 'padding padding padding padding padding padding padding'\n"
        handle.write(line * (50 * MiB // len(line) + 1))
    (tree / "million_lines.py").write_text("x = 1\n" * 1000000)
    # 10,000-deep nesting in source: brackets, unary operators, indentation.
    (tree / "deep_brackets.py").write_text("x = " + "(" * DEPTH + ")" * DEPTH + "\n")
    (tree / "deep_unary.py").write_text("x = " + "-" * DEPTH + "1\n")
    (tree / "deep_attributes.py").write_text("import tensorflow as tf\nx = tf" + ".a" * DEPTH + "\n")
    # (10,000 nested blocks would need 50 MB of indentation; Python stops at 100 anyway.)
    (tree / "deep_blocks.py").write_text(
        "".join(" " * i + "if x:\n" for i in range(1000)) + " " * 1000 + "pass\n")
    # 10,000-deep folders, with files 3 levels and 10,000 levels down.
    deep_cleanup(tree)
    make_deep_folders(tree, DEPTH, files_at=(3, DEPTH))
    # A name that is not UTF-8.
    with open(os.path.join(os.fsencode(str(tree)), b"caf\xe9_\xff.py"), "wb") as handle:
        handle.write(BAD.encode())

    code, out, err, seconds, rss = run_measured(["--no-cache", "--jobs", "2", str(tree)])
    server.close()
    assert code == 1, err
    assert "Traceback" not in err and "internal error" not in err, err
    print("hostile tree: %.1f s, peak RSS %d MiB" % (seconds, rss // MiB))
    assert seconds < 120, "the hostile tree took %.0f s" % seconds
    assert rss < GiB, "peak RSS %d MiB" % (rss // MiB)
    found = findings(out, tree)
    expected = {
        (b"a_first.py", "CG103"), (b"m_middle.py", "CG103"), (b"z_last.py", "CG103"),
        (b"x.py/inner.py", "CG103"), (b"d/d/d/f.py", "CG103"), (b"caf\xe9_\xff.py", "CG103"),
        (b"ping.py", "CG002"), (b"pong.py", "CG002"), (b"dangling.py", "CG002"),
        (b"mem.py", "CG002"), (b"fifo.py", "CG002"), (b"sock.py", "CG002"),
        (b"fifty_mb.py", "CG002"), (b"million_lines.py", "CG002"),
        (b"deep_brackets.py", "CG001"), (b"deep_unary.py", "CG001"), (b"deep_blocks.py", "CG001"),
        (b"deep_attributes.py", "CG001"),
    }
    assert expected <= found, sorted(expected - found)
    # The folders past PATH_MAX: one CG002 for the first folder that cannot be opened.
    too_deep = [path for path, code in found if path.startswith(b"d/d/d/d/") and code == "CG002"]
    assert len(too_deep) == 1 and b"File name too long" in out
    messages = out.decode("utf-8", "surrogateescape")
    for text in ("Too many levels of symbolic links", "broken symbolic link",
                 "Input/output error", "not a regular file", "larger than 20 MB",
                 "more than %d lines" % files.MAX_LINES, "too deeply nested"):
        assert text in messages, text
    assert not any(path.startswith(b"loop/") for path, _ in found)  # each file once


def test_a_million_line_file_alone_is_fast_and_small(tmp_path):
    (tmp_path / "million.py").write_text("x = 1\n" * 1000000)
    code, out, err, seconds, rss = run_measured(["--no-cache", str(tmp_path / "million.py")])
    assert code == 1 and b"CG002" in out and not err
    print("a million lines: %.1f s, peak RSS %d MiB" % (seconds, rss // MiB))
    assert seconds < 60 and rss < 300 * MiB, (seconds, rss // MiB)


def test_the_largest_file_under_the_caps_stays_under_1_gib(tmp_path):
    """MAX_LINES lines of the densest statement (the parser's worst case per byte)."""
    (tmp_path / "big.py").write_text("x = 1\n" * files.MAX_LINES)
    code, out, err, seconds, rss = run_measured(["--no-cache", str(tmp_path / "big.py")])
    assert code == 0, (out, err)
    print("%d lines: %.1f s, peak RSS %d MiB" % (files.MAX_LINES, seconds, rss // MiB))
    assert seconds < 120 and rss < GiB, (seconds, rss // MiB)


# ------------------------------------------------------------------------- races

def run_in_process(args, capsys):
    code = main(args)
    out, err = capsys.readouterr()
    assert "Traceback" not in out + err
    return code, out, err


def test_files_that_vanish_or_change_type_mid_run(tmp_path, monkeypatch, capsys):
    """Between discovery and reading, files are deleted, replaced by a FIFO (reading must
    not block) or by a folder, and a folder not yet walked is deleted."""
    for name in ("a.py", "b_gone.py", "c_fifo.py", "d_folder.py", "z.py"):
        (tmp_path / name).write_text(BAD)
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "inner.py").write_text(BAD)
    (tmp_path / "zz").mkdir()
    (tmp_path / "zz" / "later.py").write_text(BAD)
    real_discover = files.discover

    def racing_discover(paths, *rest):
        for path, problem in real_discover(paths, *rest):
            name = os.path.basename(path)
            if name == "b_gone.py":
                os.unlink(path)
            elif name == "c_fifo.py":
                os.unlink(path)
                os.mkfifo(path)
            elif name == "d_folder.py":
                os.unlink(path)
                os.mkdir(path)
            elif name == "inner.py":
                shutil.rmtree(str(tmp_path / "zz"))  # walked after sub/
            yield path, problem

    monkeypatch.setattr(files, "discover", racing_discover)
    started = time.monotonic()
    code, out, err = run_in_process(["--no-cache", "--jobs", "1", str(tmp_path)], capsys)
    assert time.monotonic() - started < 30  # a blocking open of the FIFO would hang here
    lines = {line.split(":")[0].replace(str(tmp_path) + os.sep, ""): line
             for line in out.splitlines() if ": CG" in line}
    assert "CG103" in lines["a.py"] and "CG103" in lines["z.py"]
    assert "CG103" in lines[os.path.join("sub", "inner.py")]
    assert "CG002 cannot read: No such file or directory" in lines["b_gone.py"]
    assert "CG002 cannot read: not a regular file" in lines["c_fifo.py"]
    assert "CG002 cannot read" in lines["d_folder.py"]
    assert "CG002 cannot read: No such file or directory" in lines["zz"]
    assert code == 1


def test_read_bytes_never_blocks_on_a_fifo(tmp_path):
    fifo = str(tmp_path / "f.py")
    os.mkfifo(fifo)
    with pytest.raises(OSError) as raised:
        files.read_bytes(fifo)
    assert raised.value.errno == errno.EINVAL
    assert isinstance(files.load(fifo), files.Unreadable)


# ------------------------------------------------------------- permissions as root

def _without_file_permission_override():
    """A command prefix under which chmod 0 holds, also for root (which otherwise reads
    everything): drop CAP_DAC_OVERRIDE and CAP_DAC_READ_SEARCH with setpriv."""
    if os.geteuid() != 0:
        return []
    setpriv = shutil.which("setpriv")
    if setpriv is None:
        pytest.skip("running as root without setpriv: chmod 0 cannot make a file unreadable")
    drop = "-dac_override,-dac_read_search"
    return [setpriv, "--bounding-set=" + drop, "--inh-caps=" + drop]


def test_unreadable_files_and_folders(tmp_path):
    prefix = _without_file_permission_override()
    (tmp_path / "ok.py").write_text(BAD)
    (tmp_path / "secret.py").write_text(BAD)
    (tmp_path / "secret.py").chmod(0)
    (tmp_path / "locked").mkdir()
    (tmp_path / "locked" / "hidden.py").write_text(BAD)
    (tmp_path / "locked").chmod(0)
    try:
        code, out, err, _, _ = run_measured(["--no-cache", str(tmp_path)], prefix=prefix)
    finally:
        (tmp_path / "locked").chmod(0o755)
    assert code == 1 and "Traceback" not in err, err
    found = findings(out, tmp_path)
    assert {(b"ok.py", "CG103"), (b"secret.py", "CG002"), (b"locked", "CG002")} <= found
    assert b"Permission denied" in out


# --------------------------------------------------------------- non-UTF-8 names

def _tree_with_a_latin1_name(tmp_path):
    with open(os.path.join(os.fsencode(str(tmp_path)), b"caf\xe9.py"), "wb") as handle:
        handle.write(BAD.encode())
    (tmp_path / "plain.py").write_text(BAD)


def test_non_utf8_file_names_in_text_output(tmp_path):
    _tree_with_a_latin1_name(tmp_path)
    env = dict(os.environ, LC_ALL="C.UTF-8")
    env.pop("PYTHONIOENCODING", None)
    code, out, err, _, _ = run_measured(["--no-cache", str(tmp_path)], env=env)
    assert code == 1 and "Traceback" not in err, err
    assert {(b"caf\xe9.py", "CG103"), (b"plain.py", "CG103")} <= findings(out, tmp_path)


@pytest.mark.parametrize("fmt", ["text", "json"])  # sarif: file URIs, percent-encoded
def test_non_utf8_file_names_with_strict_utf8_output(tmp_path, fmt):
    _tree_with_a_latin1_name(tmp_path)
    env = dict(os.environ, PYTHONIOENCODING="utf-8")
    code, out, err, _, _ = run_measured(["--no-cache", "--format", fmt, str(tmp_path)], env=env)
    assert code == 1 and "Traceback" not in err, err
    text = out.decode("utf-8")  # output must be valid UTF-8
    if fmt != "text":
        import json

        json.loads(text)


def test_a_linked_folder_is_not_walked_and_fix_never_writes_through_it(tmp_path):
    """`proj/sub/ext -> ../../outside`: `cglint --fix .` rewrote outside/o.py (probe).
    Walking does not follow linked folders, as os.walk, flake8 and ruff; named on the
    command line, the folder is checked."""
    fixable = "x = f'{1}'\n"  # CG301, which --fix rewrites for Python 2.7
    (tmp_path / "outside").mkdir()
    (tmp_path / "outside" / "o.py").write_text(fixable)
    (tmp_path / "proj" / "sub").mkdir(parents=True)
    (tmp_path / "proj" / "sub" / "in.py").write_text(fixable)
    (tmp_path / "proj" / "sub" / "ext").symlink_to(tmp_path / "outside")
    listed = subprocess.run([sys.executable, "-m", "cglint", "--show-files", "proj"],
                            cwd=str(tmp_path), capture_output=True, text=True,
                            env=dict(os.environ, PYTHONPATH=ROOT), timeout=120)
    assert listed.stdout.split() == ["proj/sub/in.py"]
    done = subprocess.run([sys.executable, "-m", "cglint", "--fix", "--no-cache", "proj"],
                          cwd=str(tmp_path), capture_output=True,
                          env=dict(os.environ, PYTHONPATH=ROOT), timeout=120)
    assert done.returncode in (0, 1), done.stderr
    assert (tmp_path / "outside" / "o.py").read_text() == fixable
    assert (tmp_path / "proj" / "sub" / "in.py").read_text() != fixable
    named = subprocess.run([sys.executable, "-m", "cglint", "--show-files", "proj/sub/ext"],
                           cwd=str(tmp_path), capture_output=True, text=True,
                           env=dict(os.environ, PYTHONPATH=ROOT), timeout=120)
    assert named.stdout.split() == ["proj/sub/ext/o.py"]
