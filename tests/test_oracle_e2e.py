"""The oracle end to end, under real TensorFlow 1.8 on Python 2.7 and 3.6.

The first run on a fresh machine builds both interpreters (about a minute, in
~/.cache/cglint or $CGLINT_CACHE_DIR); $CGLINT_TF_PYTHON points at others.
"""
import json
import os
import signal
import subprocess
import sys
import tempfile
import textwrap
import threading
import time
import uuid

import pytest

from cglint.oracle import confirm, envs
from cglint.oracle.runner import Job, run_fixtures
from signal_masks import threads, threads_taking_stops

FIXTURES = {
    "ok.py": """
        # lint: clean
        # run: ok
        import tensorflow as tf

        @tf.custom_gradient
        def double_grad(x):
            def grad(dy):
                return dy * 2.0
            return tf.identity(x), grad

        assert not tf.executing_eagerly(), "graph mode is the default"
        x = tf.constant([1.0, 2.0])
        g = tf.gradients(tf.reduce_sum(double_grad(x)), [x])[0]
        with tf.Session() as sess:
            assert list(sess.run(g)) == [2.0, 2.0]
    """,
    "assertion.py": """
        # lint: CG101 7:9
        # run: AssertionError: gradient is None
        import tensorflow as tf

        @tf.custom_gradient
        def scale(x):
            w = tf.Variable(2.0)
            def grad(dy):
                return dy * w
            return x * w, grad

        y = scale(tf.constant(3.0))
        w = tf.trainable_variables()[0]
        assert tf.gradients(y, [w])[0] is not None, "gradient is None for w"
    """,
    "fstring.py": """
        # lint: CG301 5:7
        # run[py27]: SyntaxError
        # run[py36]: ok
        x = 1
        print(f"{x}")
    """,
    "eager.py": """
        # lint: clean
        # mode: eager
        # run: ok
        import tensorflow as tf

        @tf.custom_gradient
        def f(x):
            def grad(dy):
                return dy * 3.0
            return x * 2.0, grad

        assert tf.executing_eagerly(), "eager mode was asked for"
        x = tf.constant(2.0)
        with tf.GradientTape() as tape:
            tape.watch(x)
            y = f(x)
        assert float(tape.gradient(y, x)) == 3.0
    """,
    # Twice the same registration: KeyError if two fixtures ever shared a process.
    "register_a.py": """
        # lint: clean
        # run: ok
        import tensorflow as tf

        @tf.RegisterGradient("CglintOracleGrad")
        def _grad(op, dy):
            return dy
    """,
    "sandbox.py": """
        # lint: clean
        # run: ok
        import os, resource, sys
        import numpy as np

        assert "CGLINT_TEST_SECRET" not in os.environ, "a secret reached the fixture"
        assert os.environ["HOME"] == os.getcwd() != os.path.dirname(__file__)
        assert __name__ == "__main__" and sys.argv == [__file__]
        assert sys.path[0] == os.path.dirname(__file__)
        assert resource.getrlimit(resource.RLIMIT_CORE)[0] == 0
        assert resource.getrlimit(resource.RLIMIT_CPU)[0] != resource.RLIM_INFINITY
        try:
            np.ones(6 << 30, dtype=np.uint8)
        except MemoryError:
            pass
        else:
            raise AssertionError("a 6 GiB array was allowed")
    """,
}
FIXTURES["register_b.py"] = FIXTURES["register_a.py"]


def write(folder, files):
    os.makedirs(str(folder), exist_ok=True)
    paths = {}
    for name, source in files.items():
        paths[name] = str(folder / name)
        with open(paths[name], "w") as handle:
            handle.write(textwrap.dedent(source).lstrip())
    return paths


@pytest.fixture(scope="module")
def interpreters():
    found, errors = envs.find_interpreters(tf_pythons=envs.tf_pythons_from_env())
    if errors:
        pytest.fail("TF 1.8 interpreters unavailable: %s" % errors)
    return found


def test_setup_reuses_the_built_interpreters(interpreters, capsys):
    assert confirm.main(["--setup"]) == 0
    out = capsys.readouterr().out
    for name, python in interpreters.items():
        assert "%s  %s" % (name, python) in out


def test_fixtures_are_confirmed_on_both_interpreters(interpreters, tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("CGLINT_TEST_SECRET", "hunter2")
    write(tmp_path / "fixtures", FIXTURES)
    code = confirm.main([str(tmp_path / "fixtures"), "--format", "json", "--timeout", "30"])
    report = json.loads(capsys.readouterr().out)
    failed = [record for record in report["records"] if record["status"] != "confirmed"]
    assert failed == [] and code == 0
    assert report["summary"]["confirmed"] == report["summary"]["total"] == 2 * len(FIXTURES)
    observed = {(os.path.basename(r["path"]), r["interpreter"]): r["observed"] for r in report["records"]}
    assert observed[("fstring.py", "py27")].startswith("SyntaxError: invalid syntax")
    assert observed[("fstring.py", "py36")] == "ok"
    assert observed[("assertion.py", "py27")] == "AssertionError: gradient is None for w"


def test_mismatch_is_reported_with_the_program_output(interpreters, tmp_path, capsys):
    paths = write(tmp_path, {"wrong.py": """
        # lint: clean
        # run: ok
        print("about to fail")
        raise ValueError("wrong on purpose")
    """})
    assert confirm.main([paths["wrong.py"], "--interpreter", "py36"]) == 1
    out = capsys.readouterr().out.splitlines()
    assert out[0] == "MISMATCH   %s [py36] expected ok, got ValueError: wrong on purpose" % paths["wrong.py"]
    assert "    | about to fail" in out
    assert out[-2:] == ["    | ValueError: wrong on purpose", "confirmed 0/1"]


def test_hangs_crashes_and_floods_are_reported_and_the_run_goes_on(interpreters, tmp_path):
    paths = write(tmp_path, {
        "hang.py": "import time\nwhile True:\n    time.sleep(0.1)\n",
        "exit3.py": "import os, sys\nprint('bye')\nsys.stdout.flush()\nos._exit(3)\n",
        "segfault.py": "import ctypes\nctypes.string_at(0)\n",
        "flood.py": ("import sys\nfor i in range(300000):\n    sys.stdout.write('spam %d\\n' % i)\n"
                     "raise ValueError('after the flood')\n"),
        "fine.py": "print('fine')\n",
    })
    names = ["hang.py", "exit3.py", "segfault.py", "flood.py", "fine.py"]
    jobs = [Job(paths[name], interpreter) for interpreter in sorted(interpreters) for name in names]
    results = {(os.path.basename(r.job.path), r.job.interpreter): r
               for r in run_fixtures(jobs, interpreters, workers=2, timeout=3)}
    for interpreter in interpreters:
        assert results["hang.py", interpreter].describe() == "timeout after 3s"
        assert results["exit3.py", interpreter].describe() == "exited with status 3 without a result"
        assert results["exit3.py", interpreter].output == "bye\n"
        assert results["segfault.py", interpreter].describe() == "crashed: signal 11 (SIGSEGV)"
        flood = results["flood.py", interpreter]
        assert flood.describe() == "ValueError: after the flood"
        assert len(flood.output) <= 8192 and flood.output.rstrip().endswith("ValueError: after the flood")
        assert results["fine.py", interpreter].describe() == "ok"


def test_a_fixture_that_kills_its_harness_does_not_stop_the_run(interpreters, tmp_path, monkeypatch):
    """Without the sandbox (--unsafe-no-sandbox) a fixture can reach its harness; the
    harness's temp folder goes all the same."""
    temp = tmp_path / "temp"
    temp.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(temp))
    paths = write(tmp_path, {
        "killer.py": "import os, signal, time\nos.kill(os.getppid(), signal.SIGKILL)\ntime.sleep(30)\n",
        "fine.py": "print('fine')\n",
    })
    jobs = [Job(paths["killer.py"], "py36"), Job(paths["fine.py"], "py36")]
    killed, fine = run_fixtures(jobs, interpreters, workers=1, timeout=20, sandbox=False)
    assert killed.failure == "the py36 harness was killed by signal 9 (SIGKILL)"
    assert fine.describe() == "ok"
    assert os.listdir(str(temp)) == []


def test_a_sandboxed_fixture_cannot_reach_its_harness(interpreters, tmp_path):
    """In the sandbox the fixture is pid 2 under its own init, which signals cannot kill."""
    paths = write(tmp_path, {
        "killer.py": """
            import os, signal
            assert os.getppid() == 1
            for pid in (1, os.getppid()):
                os.kill(pid, signal.SIGKILL)
            print("still here")
        """,
        "fine.py": "print('fine')\n",
    })
    jobs = [Job(paths["killer.py"], "py36"), Job(paths["fine.py"], "py36")]
    killer, fine = run_fixtures(jobs, interpreters, workers=1, timeout=20)
    assert killer.describe() == "ok" and killer.output == "still here\n", killer.output
    assert fine.describe() == "ok"


def harness_pids(ancestor):
    """The harness processes that descend from `ancestor` (through bwrap)."""
    found = []
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            with open("/proc/%s/cmdline" % pid, "rb") as handle:
                if b"harness.py" not in handle.read() or os.readlink("/proc/%s/exe" % pid).endswith("bwrap"):
                    continue
            parent = int(pid)
            while parent > 1 and parent != ancestor:
                with open("/proc/%d/stat" % parent) as handle:
                    parent = int(handle.read().rsplit(")", 1)[1].split()[1])
            if parent == ancestor:
                found.append(int(pid))
        except (OSError, ValueError):
            continue
    return found


def test_a_sandboxed_harness_killed_from_outside_is_reported(interpreters, tmp_path):
    paths = write(tmp_path, {"slow.py": "import time\ntime.sleep(30)\n", "fine.py": "print('fine')\n"})
    jobs = [Job(paths["slow.py"], "py36"), Job(paths["fine.py"], "py36")]

    def kill_harness():
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            for pid in harness_pids(os.getpid()):
                with open("/proc/%d/task/%d/children" % (pid, pid)) as handle:
                    if handle.read().strip():  # slow.py has started
                        os.kill(pid, signal.SIGKILL)
                        return
            time.sleep(0.1)

    killer = threading.Thread(target=kill_harness)
    killer.start()
    slow, fine = run_fixtures(jobs, interpreters, workers=1, timeout=20)
    killer.join()
    assert slow.failure == "the py36 harness was killed by signal 9 (SIGKILL)", slow.failure
    assert fine.describe() == "ok"


def processes_with(token):
    found = []
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            with open("/proc/%s/cmdline" % pid, "rb") as handle:
                if token.encode() in handle.read():
                    found.append(int(pid))
        except OSError:
            continue
    return found


@pytest.mark.parametrize("signum, status, said", [
    (signal.SIGTERM, 143, "cglint confirm: terminated"),
    (signal.SIGINT, 130, "cglint confirm: interrupted"),
    (signal.SIGKILL, -9, None),
])
def test_a_stopped_confirm_leaves_no_folder_and_no_process(interpreters, tmp_path, signum, status, said):
    """Before, SIGTERM or a kill left cglint-py36-* folders and Ctrl-C printed a traceback."""
    token = "cglint-stopped-%s" % uuid.uuid4().hex
    write(tmp_path / "fx", {"sleeps.py": """
        # lint: clean
        # run[py36]: ok
        import os
        os.execv("/bin/sh", ["sh", "-c", "sleep 120", %r])
    """ % token})
    temp = tmp_path / "temp"
    temp.mkdir()
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    env = dict(os.environ, TMPDIR=str(temp), PYTHONPATH=root,
               CGLINT_TF_PYTHON=os.pathsep.join(interpreters.values()))
    proc = subprocess.Popen([sys.executable, "-m", "cglint", "confirm", str(tmp_path / "fx")],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env, cwd=str(tmp_path))
    deadline = time.monotonic() + 120
    while not processes_with(token) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert processes_with(token), "the fixture never started"
    # A stop the kernel handed to the harness's reader thread did not wake the main thread:
    # confirm waited out the fixture's timeout. Only the main thread may take one.
    assert threads(proc.pid), "the harness's reader thread is not running"
    assert threads_taking_stops(proc.pid) == []
    proc.send_signal(signum)
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == status
    if said:
        assert err.decode().strip().splitlines() == [said]
    deadline = time.monotonic() + 10
    while processes_with(token) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert processes_with(token) == []
    assert os.listdir(str(temp)) == []


@pytest.mark.parametrize("sandbox", [True, False], ids=["sandboxed", "unsafe"])
def test_arguments_go_in_and_a_payload_comes_back(interpreters, tmp_path, sandbox):
    paths = write(tmp_path, {
        "answer.py": """
            import json, os, sys
            with open(os.environ["CGLINT_PAYLOAD_FILE"], "w") as handle:
                json.dump({"argv": sys.argv[1:], "pid": os.getpid()}, handle)
        """,
        "garbage.py": """
            import os
            with open(os.environ["CGLINT_PAYLOAD_FILE"], "w") as handle:
                handle.write("{not json")
        """,
        "huge.py": """
            import os
            with open(os.environ["CGLINT_PAYLOAD_FILE"], "w") as handle:
                handle.write('"%s"' % ("x" * (2 << 20)))
        """,
        "silent.py": "x = 1\n",
    })
    jobs = [Job(paths["answer.py"], name, argv=("--one", "{\"two\": 2}")) for name in sorted(interpreters)]
    jobs += [Job(paths[name], "py36") for name in ("garbage.py", "huge.py", "silent.py")]
    results = run_fixtures(jobs, interpreters, workers=2, timeout=20, sandbox=sandbox)
    for result in results[:len(interpreters)]:
        assert result.describe() == "ok"
        assert result.payload["argv"] == ["--one", "{\"two\": 2}"]
    garbage, huge, silent = results[len(interpreters):]
    assert garbage.payload is None and garbage.payload_error.startswith("payload is not JSON")
    assert huge.payload is None and huge.payload_error == "payload larger than 1048576 bytes"
    assert silent.payload is None and silent.payload_error == "" and silent.describe() == "ok"
