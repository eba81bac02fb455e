"""Ask an interpreter what it is and whether it imports TensorFlow, in subprocesses.

Both scripts run INSIDE the inspected interpreter (any Python from 2.7 on), so they keep
to syntax Python 2.7 and 3.3+ share. The first one imports nothing installed: package
versions come from the names of `*.dist-info` / `*.egg-info` folders on sys.path, first
one wins, as the import system would pick. The second one imports TensorFlow, which runs
installed code; it gets its own process, a timeout and a cleaned environment.
"""
import json
import os
import re
import selectors
import signal
import subprocess
import tempfile
import time

from cglint.oracle.envs import KEEP_ENV

DESCRIBE = r"""
import json, os, re, sys
found = {}
for folder in sys.path:
    try:
        names = sorted(os.listdir(folder or "."))
    except OSError:
        continue
    for name in names:
        match = re.match(r"^([A-Za-z0-9_.]+?)-([0-9][^-]*?)(-py[0-9.]+)?\.(dist|egg)-info$", name)
        if match:
            key = re.sub(r"[-_.]+", "-", match.group(1)).lower()
            found.setdefault(key, match.group(2))
print(json.dumps({"version": "%d.%d.%d" % sys.version_info[:3],
                  "executable": sys.executable, "packages": found}))
"""

IMPORT = r"""
import json, sys
try:
    import tensorflow as tf
    info = {"version": tf.__version__, "cuda": bool(tf.test.is_built_with_cuda())}
except BaseException as exc:
    info = {"error": "%s: %s" % (type(exc).__name__, exc)}
sys.stdout.write("CGLINT-DOCTOR " + json.dumps(info) + "\n")
"""

# The most a probed command may print to stdout or to stderr. The answers are a few KB
# (ldconfig -p of a big machine some hundreds); an nvidia-smi or a "python" that floods
# its output would otherwise fill the memory and the report.
MAX_OUTPUT = 4 << 20

# TF's own wrapper around a failed native load; the line that names the cause is elsewhere.
GENERIC = ("Failed to load the native TensorFlow runtime", "Traceback (most recent call last)",
           "See https://www.tensorflow.org/install", "for some common reasons and solutions")


class ProbeError(Exception):
    """The interpreter could not be run or did not answer; the message says which."""


def environment(home=None):
    """The inspected interpreter's environment: the loader and locale settings the user's
    own runs see, no inherited secrets, no PYTHONPATH that would inspect another tree."""
    env = {key: os.environ[key] for key in KEEP_ENV if key in os.environ}
    env.setdefault("PATH", os.defpath)
    env.setdefault("LANG", "C.UTF-8")
    env["PYTHONIOENCODING"] = "utf-8"
    env["PYTHONDONTWRITEBYTECODE"] = "1"
    env["TF_CPP_MIN_LOG_LEVEL"] = "2"
    if home or "HOME" in os.environ:  # where `pip install --user` packages live
        env["HOME"] = home or os.environ["HOME"]
    return env


def run(command, timeout, env=None):
    """(exit code, stdout, stderr) of a command in a scratch folder; ProbeError if it cannot
    start, outlives `timeout` or prints more than MAX_OUTPUT bytes to either stream (the
    whole process group is killed, so a child that keeps the pipes open cannot hang us)."""
    with tempfile.TemporaryDirectory(prefix="cglint-doctor-") as scratch:
        try:
            proc = subprocess.Popen(command, cwd=scratch, env=env or environment(),
                                    stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                    stderr=subprocess.PIPE, start_new_session=True)
        except OSError as error:
            raise ProbeError("cannot run %s: %s" % (command[0], error.strerror or error))
        try:
            out, err = _read_bounded(proc, command[0], timeout)
        except BaseException:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
            raise
        finally:
            proc.stdout.close()
            proc.stderr.close()
    return (proc.returncode, out.decode("utf-8", "replace"), err.decode("utf-8", "replace"))


def _read_bounded(proc, name, timeout):
    """Both streams of `proc` until it ends; ProbeError past the timeout or the size."""
    deadline = time.monotonic() + timeout
    read = {proc.stdout: bytearray(), proc.stderr: bytearray()}
    with selectors.DefaultSelector() as selector:
        for stream in read:
            selector.register(stream, selectors.EVENT_READ)
        while selector.get_map():
            left = deadline - time.monotonic()
            if left <= 0:
                raise ProbeError("%s did not answer within %g s" % (name, timeout))
            for key, _ in selector.select(left):
                chunk = os.read(key.fd, 1 << 16)
                if not chunk:
                    selector.unregister(key.fileobj)
                    continue
                read[key.fileobj] += chunk
                if len(read[key.fileobj]) > MAX_OUTPUT:
                    raise ProbeError("%s printed more than %d MiB; stopped"
                                     % (name, MAX_OUTPUT >> 20))
    try:
        proc.wait(max(0.0, deadline - time.monotonic()))
    except subprocess.TimeoutExpired:
        raise ProbeError("%s did not answer within %g s" % (name, timeout))
    return bytes(read[proc.stdout]), bytes(read[proc.stderr])


def describe(python, timeout):
    """{"version": "3.6.15", "executable": ..., "packages": {"numpy": "1.19.5", ...}}."""
    code, out, err = run([python, "-c", DESCRIBE], timeout)
    try:
        return json.loads(out.strip().splitlines()[-1])
    except (IndexError, ValueError):
        raise ProbeError("%s is not a working Python (exit %s): %s"
                         % (python, code, last_line(err) or "no output"))


def import_tensorflow(python, timeout):
    """{"version": "1.8.0", "cuda": False} or {"error": the line that names the cause}."""
    try:
        code, out, err = run([python, "-c", IMPORT], timeout)
    except ProbeError as error:
        return {"error": str(error)}
    for line in out.splitlines():
        if line.startswith("CGLINT-DOCTOR "):
            info = json.loads(line[len("CGLINT-DOCTOR "):])
            if "error" in info:
                info["error"] = cause(info["error"])
            return info
    return {"error": "the interpreter died importing tensorflow (exit %s): %s"
                     % (code, last_line(err) or "no output")}


def cause(message):
    """The line of an import error that names what is wrong, e.g. the missing `.so`."""
    lines = [line.strip() for line in message.splitlines() if line.strip()]
    for line in lines:
        if re.search(r"\.so[.\d]*: cannot open shared object file", line):
            return line if re.match(r"^\w+Error: ", line) else "ImportError: " + line
    specific = [line for line in lines if re.match(r"^\w+(Error|Exception|Warning)\b", line)
                and not any(generic in line for generic in GENERIC)]
    return (specific or lines or [message])[-1]


def last_line(text):
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    return lines[-1] if lines else ""
