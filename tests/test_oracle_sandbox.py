"""The oracle cannot hurt the host: each attack of issue 14 as a fixture run under the
real TF 1.8 interpreters, in the bubblewrap sandbox, and the run goes on.

What tests/test_oracle_e2e.py already shows is not repeated here: a secret variable set in
the test is absent, HOME is the working folder, core dumps are off, a 6 GiB numpy array is
a MemoryError, a sleeping fixture times out, segfaults, floods and a killed harness.
Most fixtures check their own view from inside and end "ok" (or with the exception that
names what stopped them); the host then checks that nothing reached it.
"""
import os
import socket
import subprocess
import sys
import textwrap
import time
import uuid

import pytest

from cglint.oracle import envs, sandbox
from cglint.oracle.envs import KEEP_ENV
from cglint.oracle.runner import HARNESS, Job, run_fixtures

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


@pytest.fixture(scope="module")
def interpreters():
    found, errors = envs.find_interpreters(tf_pythons=envs.tf_pythons_from_env())
    if errors:
        pytest.fail("TF 1.8 interpreters unavailable: %s" % errors)
    why = sandbox.unavailable()
    if why:
        pytest.fail("no sandbox on this machine: %s" % why)
    return found


def write(folder, sources):
    paths = {}
    for name, text in sources.items():
        paths[name] = str(folder / name)
        with open(paths[name], "w") as handle:
            handle.write(textwrap.dedent(text).lstrip())
    return paths


def run(interpreters, paths, names, timeout, workers=2):
    jobs = [Job(paths[name], interpreter) for interpreter in sorted(interpreters) for name in names]
    started = time.monotonic()
    results = run_fixtures(jobs, interpreters, workers=workers, timeout=timeout)
    return {(os.path.basename(r.job.path), r.job.interpreter): r for r in results}, \
        time.monotonic() - started


def assert_ok(results, name, interpreters):
    for interpreter in interpreters:
        result = results[name, interpreter]
        assert result.describe() == "ok", "%s [%s]: %s\n%s" % (name, interpreter, result.describe(),
                                                               result.output)


def processes_with(token):
    """Host pids whose command line holds `token`."""
    found = []
    for pid in os.listdir("/proc"):
        try:
            with open("/proc/%s/cmdline" % pid, "rb") as handle:
                if token.encode() in handle.read():
                    found.append(int(pid))
        except (OSError, ValueError):
            continue
    return found


def closed_port():
    probe = socket.socket()
    probe.bind(("127.0.0.1", 0))
    port = probe.getsockname()[1]
    probe.close()  # nothing listens there now
    return port


FINE = "print('fine')\n"

# A setsid() grandchild that execs `sleep` with a token the host can look for; the
# fixture checks it runs before going on, so the test cannot pass by the exec failing.
FORK = """
    import os, sys, time
    token = {token!r}
    r, w = os.pipe()
    child = os.fork()
    if child == 0:
        os.setsid()
        grandchild = os.fork()
        if grandchild == 0:
            os.execv("/bin/sh", ["sh", "-c", "sleep 3600", token])
        os.write(w, str(grandchild).encode())
        os._exit(0)
    os.waitpid(child, 0)
    grandchild = int(os.read(r, 64))
    for _ in range(200):
        with open("/proc/%d/cmdline" % grandchild, "rb") as handle:
            if token.encode() in handle.read():
                break
        time.sleep(0.01)
    else:
        raise RuntimeError("the grandchild never ran")
    {then}
"""


def test_every_descendant_dies_with_the_fixture(interpreters, tmp_path):
    """setsid() grandchildren too, whether the fixture hangs (timeout) or ends normally."""
    token = "cglint-grandchild-%s" % uuid.uuid4().hex
    sources = {"fine.py": FINE}
    for kind, then in (("hangs", "time.sleep(3600)"), ("exits", "print('parent done')")):
        sources["fork_%s.py" % kind] = FORK.format(token=token, then=then)
    paths = write(tmp_path, sources)
    results, _ = run(interpreters, paths, sorted(paths), timeout=8)
    for interpreter in interpreters:
        assert results["fork_hangs.py", interpreter].describe() == "timeout after 8s"
        assert results["fork_exits.py", interpreter].describe() == "ok", \
            results["fork_exits.py", interpreter].output
    assert_ok(results, "fine.py", interpreters)
    assert processes_with(token) == [], "leftover processes"


def test_the_filesystem_is_read_only_but_for_a_private_tmp(interpreters, tmp_path):
    """No file in HOME, ~/.cache/cglint, the checkout, the fixture's folder or the TF
    interpreter's site-packages (a .pth there would run in every later run)."""
    name = "cglint-sandbox-%s" % uuid.uuid4().hex
    targets = [os.path.expanduser("~"), envs.cache_root(), ROOT, str(tmp_path), "/dev", "/run",
               "/var/tmp", os.path.dirname(HARNESS)]
    paths = write(tmp_path, {"writer.py": """
        import errno, os, site, sys
        import tensorflow as tf
        name = {name!r}
        site_packages = os.path.dirname(os.path.dirname(tf.__file__))
        written = []
        for folder in {targets!r} + [site_packages]:
            for attempt in ("file", "pth", "folder"):
                path = os.path.join(folder, name + (".pth" if attempt == "pth" else ""))
                try:
                    if attempt == "folder":
                        os.mkdir(path + "-dir")
                    else:
                        with open(path, "w") as handle:
                            handle.write("import os\\n")
                    written.append(path)
                except (IOError, OSError) as error:
                    # A folder under /tmp that the fixture does not need is not even there.
                    hidden = error.errno == errno.ENOENT and folder.startswith("/tmp/")
                    assert hidden or error.errno in (errno.EROFS, errno.EACCES, errno.EPERM), (
                        path, error)
        assert not written, written
        fixture_top = os.path.abspath(__file__).split("/")[2]  # bound back: /tmp/<top>/...
        assert sorted(os.listdir("/tmp")) == sorted([".cglint", ".shm", "work", fixture_top]), \
            os.listdir("/tmp")
        for folder in ("/tmp", "/dev/shm", os.environ["HOME"]):
            with open(os.path.join(folder, name), "w") as handle:
                handle.write("mine")
        print("site=" + site_packages)
    """.format(name=name, targets=targets)})
    results, _ = run(interpreters, paths, ["writer.py"], timeout=60)
    assert_ok(results, "writer.py", interpreters)
    for interpreter in interpreters:
        targets.append(results["writer.py", interpreter].output.split("site=")[1].split()[0])
    leftovers = [os.path.join(folder, entry) for folder in targets + ["/tmp", "/dev/shm"]
                 for entry in os.listdir(folder) if entry.startswith(name)]
    assert leftovers == []


def test_each_fixture_has_its_own_tmp_and_shm(interpreters, tmp_path):
    """Two fixtures running at once each create the same names exclusively."""
    name = "cglint-shared-%s" % uuid.uuid4().hex
    paths = write(tmp_path, {"claim_%d.py" % n: """
        import os, time
        for folder in ("/tmp", "/dev/shm"):
            os.close(os.open(os.path.join(folder, {name!r}), os.O_CREAT | os.O_EXCL | os.O_WRONLY))
        time.sleep(3)  # both run at once (two workers)
    """.format(name=name) for n in (1, 2)})
    results, _ = run(interpreters, paths, ["claim_1.py", "claim_2.py"], timeout=60)
    assert_ok(results, "claim_1.py", interpreters)
    assert_ok(results, "claim_2.py", interpreters)


def test_the_disk_cap_is_for_all_files_together(interpreters, tmp_path):
    """Per-file limits let 50 files of 100 MB through; the private tmpfs holds 1 GiB in all,
    /dev/shm included, and a single file stops at 512 MiB."""
    paths = write(tmp_path, {
        "many_files.py": """
            import os
            chunk = b"x" * (1 << 20)
            print("cwd=" + os.getcwd())
            for n in range(50):
                with open("fill-%d.bin" % n, "wb") as handle:
                    for _ in range(100):
                        handle.write(chunk)
                        handle.flush()
        """,
        "shm_and_tmp.py": """
            chunk = b"x" * (1 << 20)
            for path in ("/dev/shm/a", "/dev/shm/b", "/dev/shm/c", "/tmp/a", "/tmp/b", "/tmp/c"):
                with open(path, "wb") as handle:
                    for _ in range(200):
                        handle.write(chunk)
                        handle.flush()
        """,
        "one_file.py": """
            import resource
            assert resource.getrlimit(resource.RLIMIT_FSIZE)[0] == 512 << 20
            chunk = b"x" * (1 << 20)
            with open("fill.bin", "wb") as handle:
                while True:
                    handle.write(chunk)
                    handle.flush()
        """,
    })
    results, _ = run(interpreters, paths, ["many_files.py", "shm_and_tmp.py", "one_file.py"],
                     timeout=60)
    for interpreter in interpreters:
        for name in ("many_files.py", "shm_and_tmp.py"):
            result = results[name, interpreter]
            assert result.outcome in ("OSError", "IOError") and "No space left" in result.message, \
                result.describe()
        one = results["one_file.py", interpreter]
        assert one.outcome in ("OSError", "IOError") and "File too large" in one.message, one.describe()


def test_memory_cap_counts_shared_mappings(interpreters, tmp_path):
    """RLIMIT_DATA alone let an 8 GiB shared anonymous mapping through (8.1 GiB resident)."""
    paths = write(tmp_path, {"shared.py": """
        import mmap
        block = mmap.mmap(-1, 8 << 30)  # MAP_SHARED, anonymous
        for offset in range(0, len(block), 4096):
            block[offset:offset + 1] = b"x"
    """})
    results, _ = run(interpreters, paths, ["shared.py"], timeout=60)
    for interpreter in interpreters:
        result = results["shared.py", interpreter]
        assert "Cannot allocate memory" in result.message or result.outcome == "MemoryError", \
            result.describe()


def test_process_count_is_capped(interpreters, tmp_path):
    """405 processes at once went through before; the fixture's pids cgroup stops it."""
    paths = write(tmp_path, {"fork_bomb.py": """
        import errno, os, time
        started = 0
        try:
            for _ in range(1000):
                if os.fork() == 0:
                    time.sleep(60)
                    os._exit(0)
                started += 1
        except OSError as error:
            assert error.errno == errno.EAGAIN, error
            print("stopped after %d" % started)
        else:
            raise RuntimeError("1000 processes at once")
    """})
    results, _ = run(interpreters, paths, ["fork_bomb.py"], timeout=60)
    assert_ok(results, "fork_bomb.py", interpreters)
    for interpreter in interpreters:
        started = int(results["fork_bomb.py", interpreter].output.split("stopped after ")[1].split()[0])
        assert 100 < started < 1000


def test_no_network_and_no_way_back_to_the_hosts(interpreters, tmp_path):
    """No capability for setns() or mount(), no host UNIX socket (path or abstract), an
    empty network namespace."""
    port = closed_port()
    socket_path = str(tmp_path / "host.sock")
    listener = socket.socket(socket.AF_UNIX)
    listener.bind(socket_path)
    listener.listen(5)
    listener.setblocking(False)
    abstract = socket.socket(socket.AF_UNIX)
    abstract_name = "\0cglint-test-%s" % uuid.uuid4().hex
    abstract.bind(abstract_name)
    abstract.listen(5)
    abstract.setblocking(False)
    paths = write(tmp_path, {"escape.py": """
        import ctypes, errno, os, socket
        libc = ctypes.CDLL(None, use_errno=True)
        status = open("/proc/self/status").read()
        for line in ("CapEff:\\t0000000000000000", "CapBnd:\\t0000000000000000", "NoNewPrivs:\\t1"):
            assert line in status, line
        CLONE_NEWNET = 0x40000000
        for pid in os.listdir("/proc"):
            if pid.isdigit():
                try:
                    fd = os.open("/proc/%s/ns/net" % pid, os.O_RDONLY)
                except OSError as error:  # init's: not dumpable
                    assert error.errno == errno.EACCES, error
                    continue
                assert libc.setns(fd, CLONE_NEWNET) == -1 and ctypes.get_errno() == errno.EPERM
        assert libc.mount(b"none", b"/tmp", b"tmpfs", 0, None) == -1
        assert ctypes.get_errno() == errno.EPERM
        for address in ({socket_path!r}, {abstract!r}):
            try:
                client = socket.socket(socket.AF_UNIX)
                client.connect(address)
            except socket.error as error:
                assert error.errno == errno.EACCES, error
            else:
                raise RuntimeError("reached " + repr(address))
        client = socket.socket()
        try:
            client.connect(("127.0.0.1", {port}))
        except socket.error as error:
            assert error.errno == errno.ENETUNREACH, error
        else:
            raise RuntimeError("reached the host's loopback")
    """.format(socket_path=socket_path, abstract=abstract_name, port=port)})
    try:
        results, _ = run(interpreters, paths, ["escape.py"], timeout=60)
        assert_ok(results, "escape.py", interpreters)
        for server in (listener, abstract):
            with pytest.raises(BlockingIOError):
                server.accept()
    finally:
        listener.close()
        abstract.close()


def test_own_pid_namespace_hides_the_hosts_processes(interpreters, tmp_path, monkeypatch):
    """Before, /proc/<cglint pid>/environ of the host was readable (secrets)."""
    secret = "cglint-secret-%s" % uuid.uuid4().hex
    monkeypatch.setenv("CGLINT_SANDBOX_SECRET", secret)
    paths = write(tmp_path, {"snoop.py": """
        import errno, os
        pids = sorted(int(pid) for pid in os.listdir("/proc") if pid.isdigit())
        assert pids == [1, os.getpid()], pids
        assert os.getpid() == 2
        for pid in pids:
            try:
                with open("/proc/%d/environ" % pid, "rb") as handle:
                    assert {secret!r}.encode() not in handle.read()
            except (IOError, OSError) as error:  # init's: not dumpable
                assert pid == 1 and error.errno == errno.EACCES, error
        assert not os.path.exists("/proc/{host}"), "the host's cglint"
        for fd in os.listdir("/proc/1/fd"):  # init's pipes: its status pipe to the harness
            try:
                os.close(os.open("/proc/1/fd/" + fd, os.O_WRONLY | os.O_NONBLOCK))
            except OSError as error:
                assert error.errno == errno.EACCES, error
            else:
                raise AssertionError("init's file descriptor %s is open to the fixture" % fd)
    """.format(secret=secret, host=os.getpid())})
    results, _ = run(interpreters, paths, ["snoop.py"], timeout=60)
    assert_ok(results, "snoop.py", interpreters)


def test_a_fixture_cannot_forge_another_fixtures_result(interpreters, tmp_path):
    """Before, replies written into the harness's protocol pipe made a failing fixture
    running alongside 'confirmed'. The forger writes replies for every request id into
    every pipe it can find; the failing fixture still fails."""
    paths = write(tmp_path, {
        "forger.py": """
            import json, os, time
            forged = "".join(json.dumps({"id": n, "result": {"outcome": "ok"}, "status": 0,
                                         "signal": None, "timed_out": False, "output": "",
                                         "seconds": 0.1}) + "\\n" for n in range(1, 40))
            deadline = time.time() + 4
            while time.time() < deadline:
                for pid in os.listdir("/proc"):
                    folder = "/proc/%s/fd" % pid
                    if not pid.isdigit() or not os.path.isdir(folder):
                        continue
                    try:
                        fds = os.listdir(folder)
                    except OSError:  # init's: not dumpable
                        continue
                    for fd in fds:
                        try:
                            target = os.open(os.path.join(folder, fd), os.O_WRONLY | os.O_NONBLOCK)
                        except OSError:
                            continue
                        try:
                            os.write(target, forged.encode())
                        except OSError:
                            pass
                        os.close(target)
                time.sleep(0.05)
        """,
        "fails.py": "import time\ntime.sleep(1)\nraise ValueError('really fails')\n",
    })
    results, _ = run(interpreters, paths, ["forger.py", "fails.py"], timeout=60)
    for interpreter in interpreters:
        assert results["fails.py", interpreter].describe() == "ValueError: really fails"


def test_limits_and_environment(interpreters, tmp_path, monkeypatch):
    for name in ("AWS_SECRET_ACCESS_KEY", "GITHUB_TOKEN", "CGLINT_SANDBOX_SECRET"):
        monkeypatch.setenv(name, "hunter2")
    paths = write(tmp_path, {
        "environment.py": """
            import os
            allowed = set({allowed!r}) | {{"HOME", "TMPDIR", "PYTHONIOENCODING",
                                          "PYTHONDONTWRITEBYTECODE",
                                          "CGLINT_PAYLOAD_FILE"}}  # set by the harness
            extra = sorted(set(os.environ) - allowed)
            assert not extra, "inherited: %s" % extra
            assert os.getcwd() == os.environ["HOME"] == os.environ["TMPDIR"]
            assert os.listdir(".") == [], "the working folder is fresh"
            assert os.getcwd() != os.path.dirname(os.path.abspath(__file__))
        """.format(allowed=list(KEEP_ENV)),
        "allocate.py": "block = bytearray(6 << 30)\n",
        "spin.py": """
            import resource
            soft, hard = resource.getrlimit(resource.RLIMIT_CPU)
            assert soft == 2 * 20 + 10, soft  # 2 x the timeout + 10 s
            resource.setrlimit(resource.RLIMIT_CPU, (1, hard))  # the kernel enforces it
            while True:
                pass
        """,
        "sibling.py": "VALUE = 42\n",
        "imports_sibling.py": "import sibling\nassert sibling.VALUE == 42\n",
        "fine.py": FINE,
    })
    names = ["environment.py", "allocate.py", "spin.py", "imports_sibling.py", "fine.py"]
    results, seconds = run(interpreters, paths, names, timeout=20)
    for interpreter in interpreters:
        assert results["allocate.py", interpreter].describe() == "MemoryError"
        assert results["spin.py", interpreter].describe() == "crashed: signal 24 (SIGXCPU)"
    for name in ("environment.py", "imports_sibling.py", "fine.py"):
        assert_ok(results, name, interpreters)
    print("sandbox run: %.1f s" % seconds)


def test_without_a_sandbox_nothing_runs(tmp_path, monkeypatch):
    """Where the sandbox cannot be made, every run says why instead of running unsandboxed."""
    monkeypatch.setattr(sandbox, "unavailable", lambda: "the kernel refuses namespaces")
    fixture = tmp_path / "f.py"
    fixture.write_text("open(%r, 'w')\n" % str(tmp_path / "ran"))
    (result,) = run_fixtures([Job(str(fixture), "py36")], {"py36": sys.executable})
    assert result.failure == "no sandbox: the kernel refuses namespaces"
    assert not (tmp_path / "ran").exists()


def test_bwrap_command_shows_hidden_fixture_folders_read_only():
    command = sandbox.command("bwrap", ["python"], ["/tmp/a", "/tmp/a/b", "/tmp/c.py"])
    assert command[-2:] == ["--", "python"]
    binds = [command[i + 1] for i, arg in enumerate(command) if arg == "--ro-bind"]
    assert binds == ["/", "/tmp/a", "/tmp/c.py"]
    assert "--unshare-all" in command and "--die-with-parent" in command
    assert sandbox.hidden_folders(["/tmp/x/f.py", "/tmp/g.py", "/work/h.py"]) == \
        ["/tmp/g.py", "/tmp/x"]


def test_a_payload_file_that_is_a_link_or_a_fifo_is_not_followed(interpreters, tmp_path):
    """The harness reads the payload the program leaves: a FIFO must not block it, a link
    must not make it read a file of its own choosing."""
    paths = write(tmp_path, {
        "fifo.py": "import os\nos.mkfifo(os.environ['CGLINT_PAYLOAD_FILE'])\n",
        "link.py": "import os\nos.symlink('/proc/self/environ', os.environ['CGLINT_PAYLOAD_FILE'])\n",
        "fine.py": FINE,
    })
    results, _ = run(interpreters, paths, ["fifo.py", "link.py", "fine.py"], timeout=30)
    for interpreter in interpreters:
        assert results["fifo.py", interpreter].payload_error.startswith("payload is not JSON")
        assert results["link.py", interpreter].payload_error == ""  # no file followed
        for name in ("fifo.py", "link.py", "fine.py"):
            assert results[name, interpreter].describe() == "ok"
            assert results[name, interpreter].payload is None


def test_cgroups_of_killed_runs_are_removed_by_the_next(tmp_path):
    """A `kill -9` of cglint leaves its empty cgroups; the next run removes those whose
    process is gone, and only those."""
    dead = subprocess.Popen(["true"])
    dead.wait()
    stale = tmp_path / ("cglint-%d-1" % dead.pid)
    (stale / "fixture-1").mkdir(parents=True)
    alive = tmp_path / ("cglint-%d-1" % os.getpid())
    alive.mkdir()
    other = tmp_path / "someone-else"
    other.mkdir()
    sandbox._remove_stale(str(tmp_path))
    assert sorted(os.listdir(str(tmp_path))) == sorted([alive.name, other.name])


def test_setup_says_when_there_is_no_process_cap(monkeypatch, capsys):
    monkeypatch.setattr(sandbox, "PIDS_ROOTS", ("/nonexistent/cgroup",))
    assert not sandbox.process_cap_available()
    monkeypatch.setattr(envs, "find_interpreters", lambda *args: ({}, {}))
    from cglint.oracle import confirm
    assert confirm.main(["--setup"]) == 0
    assert "fixtures run without a process-count cap" in capsys.readouterr().err
