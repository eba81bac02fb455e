"""The oracle cannot hurt the host: fixtures under the real TF 1.8 interpreters that fork,
hang, spin, allocate, write without end or reach for the network are stopped and
reported, leave no process and no file behind, and the run goes on.

What tests/test_oracle_e2e.py already shows is not repeated here: a secret variable set in
the test is absent, HOME is the working folder, core dumps are off, a 6 GiB numpy array is
a MemoryError, a sleeping fixture times out, segfaults, floods and a killed harness.
"""
import errno
import os
import socket
import textwrap
import time

import pytest

from cglint.oracle import envs
from cglint.oracle.envs import KEEP_ENV
from cglint.oracle.runner import Job, run_fixtures


@pytest.fixture(scope="module")
def interpreters():
    found, errors = envs.find_interpreters(tf_pythons=envs.tf_pythons_from_env())
    if errors:
        pytest.fail("TF 1.8 interpreters unavailable: %s" % errors)
    return found


def write(folder, sources):
    paths = {}
    for name, text in sources.items():
        paths[name] = str(folder / name)
        with open(paths[name], "w") as handle:
            handle.write(textwrap.dedent(text).lstrip())
    return paths


def run(interpreters, paths, names, timeout):
    jobs = [Job(paths[name], interpreter) for interpreter in sorted(interpreters) for name in names]
    started = time.monotonic()
    results = run_fixtures(jobs, interpreters, workers=2, timeout=timeout)
    return {(os.path.basename(r.job.path), r.job.interpreter): r for r in results}, \
        time.monotonic() - started


def alive(pid):
    """Whether `pid` runs (a zombie waiting for init to reap it counts as dead)."""
    try:
        with open("/proc/%d/stat" % pid) as handle:
            return handle.read().rsplit(")", 1)[1].split()[0] != "Z"
    except (IOError, OSError):
        return False


def closed_port():
    probe = socket.socket()
    probe.bind(("127.0.0.1", 0))
    port = probe.getsockname()[1]
    probe.close()  # nothing listens there now
    return port


FINE = "print('fine')\n"

# The grandchild writes its pid where the test can read it, then sleeps forever.
FORK = """
    import os, sys, time
    marker = {marker!r}
    pid = os.fork()
    if pid == 0:
        with open(marker + ".tmp", "w") as handle:
            handle.write(str(os.getpid()))
        os.rename(marker + ".tmp", marker)
        while True:
            time.sleep(1)
    while not os.path.exists(marker):
        time.sleep(0.01)
    {then}
"""


def test_forks_that_outlive_the_fixture_are_killed(interpreters, tmp_path):
    """Whether the fixture hangs (timeout) or ends normally, the whole process group goes."""
    pids = tmp_path / "pids"
    pids.mkdir()
    sources = {"fine.py": FINE}
    for interpreter in interpreters:
        for kind, then in (("hangs", "time.sleep(3600)"), ("exits", "print('parent done')")):
            marker = str(pids / ("%s-%s" % (kind, interpreter)))
            sources["fork_%s_%s.py" % (kind, interpreter)] = FORK.format(marker=marker, then=then)
    paths = write(tmp_path, sources)
    jobs = [Job(paths[name], name.rsplit("_", 1)[1][:-3]) for name in sorted(paths) if name != "fine.py"]
    jobs += [Job(paths["fine.py"], interpreter) for interpreter in sorted(interpreters)]
    results = {(os.path.basename(r.job.path), r.job.interpreter): r
               for r in run_fixtures(jobs, interpreters, workers=2, timeout=5)}
    for interpreter in interpreters:
        assert results["fork_hangs_%s.py" % interpreter, interpreter].describe() == "timeout after 5s"
        assert results["fork_exits_%s.py" % interpreter, interpreter].describe() == "ok"
        assert results["fine.py", interpreter].describe() == "ok"
    grandchildren = [int((pids / name).read_text()) for name in os.listdir(str(pids))]
    assert len(grandchildren) == 2 * len(interpreters)
    deadline = time.monotonic() + 10
    while any(alive(pid) for pid in grandchildren) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not [pid for pid in grandchildren if alive(pid)], "leftover processes"


def test_limits_network_disk_and_environment(interpreters, tmp_path, monkeypatch):
    for name in ("AWS_SECRET_ACCESS_KEY", "GITHUB_TOKEN", "CGLINT_SANDBOX_SECRET"):
        monkeypatch.setenv(name, "hunter2")
    port = closed_port()
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
            print("cwd=" + os.getcwd())
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
        "fill_disk.py": """
            import os, resource
            assert resource.getrlimit(resource.RLIMIT_FSIZE)[0] == 1 << 30
            print("cwd=" + os.getcwd())
            chunk = b"x" * (1 << 20)
            with open("fill.bin", "wb") as handle:
                while True:
                    handle.write(chunk)
                    handle.flush()
        """,
        "connect_local.py": """
            import socket
            client = socket.socket()
            client.settimeout(3)
            client.connect(("127.0.0.1", {port}))
        """.format(port=port),
        # 192.0.2.1 (TEST-NET-1) is tried only from an isolated network namespace, where
        # nothing can be sent: on some hosts it is the real gateway.
        "connect_testnet.py": """
            import errno, socket
            probe = socket.socket()
            try:
                probe.connect(("127.0.0.1", {port}))
            except socket.error as error:
                isolated = error.errno == errno.ENETUNREACH
            if not isolated:
                raise RuntimeError("network not isolated: 192.0.2.1 not tried")
            client = socket.socket()
            client.settimeout(3)
            client.connect(("192.0.2.1", 80))
        """.format(port=port),
        "fine.py": FINE,
    })
    names = ["environment.py", "allocate.py", "spin.py", "fill_disk.py", "connect_local.py",
             "connect_testnet.py", "fine.py"]
    results, seconds = run(interpreters, paths, names, timeout=20)
    for interpreter in interpreters:
        def get(name):
            return results[name, interpreter]

        environment = get("environment.py")
        assert environment.describe() == "ok", environment.output
        assert get("allocate.py").describe() == "MemoryError"
        assert get("spin.py").describe() == "crashed: signal 24 (SIGXCPU)"
        fill = get("fill_disk.py")
        assert fill.outcome in ("OSError", "IOError") and "File too large" in fill.message, \
            fill.describe()
        for result in (environment, fill):  # the working folders are gone
            folder = result.output.split("cwd=", 1)[1].split()[0]
            assert not os.path.exists(folder), folder
        for name in ("connect_local.py", "connect_testnet.py"):
            result = get(name)
            assert result.outcome is not None and result.outcome != "ok", result.describe()
            assert result.seconds < 10, (name, result.seconds)
            if os.geteuid() == 0:  # the harness could make an empty network namespace
                assert "[Errno %d]" % errno.ENETUNREACH in result.message, result.describe()
        assert get("fine.py").describe() == "ok"
    print("sandbox run: %.1f s" % seconds)
