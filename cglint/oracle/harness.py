"""Fork server that runs cglint fixtures inside a TensorFlow 1.8 interpreter.

Runs under Python 2.7 and 3.6 and is executed by path: it never imports cglint.
It imports tensorflow once (about 1 s, nearly all of a fixture's cost) and forks one
child per fixture, so each fixture still starts from a process that has only imported
TF: its own gradient registry, its own choice of eager or graph mode.
Forking is safe here: right after `import tensorflow` the process has one thread
(measured on 1.8 under 2.7 and 3.6), and TF starts its thread pools only when a
session or eager context is made, which happens in the child.
The server imports nothing more (not even tensorflow.contrib): TF 1.8 refuses
tf.enable_eager_execution() once a default graph exists, and importing contrib makes one.

Protocol, one JSON object per line:
  host -> stdin:  {"id": 1, "path": "/abs/fixture.py", "mode": "graph", "timeout": 60,
                   "argv": ["optional", "arguments"]}
  server -> host: first {"hello": {...}} or {"error": "..."}, then per request
                  {"id": 1, "result": {"outcome": "ok"} | {"outcome": "ValueError",
                   "message": "..."} | {"harness_error": "..."} | null,
                   "status": exit status or null, "signal": number or null,
                   "timed_out": bool, "output": "last KB of stdout+stderr", "seconds": 0.2,
                   "payload": JSON value or null, "payload_error": "..." (only when unreadable)}
The payload is the program's structured answer (a driver such as gradcheck's, run as the
program): it writes one JSON value to the file named by $CGLINT_PAYLOAD_FILE, in its
private job folder; the server forwards it if it is valid JSON of at most PAYLOAD_CAP bytes.
Closing stdin stops the server and kills the children still running.
"""
from __future__ import absolute_import, division, print_function

import errno
import fcntl
import json
import os
import platform
import random
import resource
import select
import shutil
import signal
import sys
import tempfile
import time
import traceback
import types

OUTPUT_TAIL = 8192  # bytes of a child's stdout+stderr kept for the report
MESSAGE_CAP = 65536
PAYLOAD_CAP = 1 << 20
# RLIMIT_DATA rather than RLIMIT_AS: TF and glibc reserve address space per thread and
# per malloc arena, which grows with the core count, not with what a fixture uses.
DATA_LIMIT = 4 << 30
FILE_LIMIT = 1 << 30
PR_SET_PDEATHSIG = 1

try:
    text_type = unicode  # noqa: F821 (Python 2)
except NameError:
    text_type = str


def text(value):
    """str(value) as text, also for Python 2 exceptions with non-ASCII messages."""
    result = "<unprintable %s>" % type(value).__name__
    for convert in (str, text_type, repr):
        try:
            result = convert(value)
            break
        except Exception:
            continue
    if isinstance(result, bytes):
        result = result.decode("utf-8", "replace")
    return result[:MESSAGE_CAP]


def set_nonblocking(fd):
    fcntl.fcntl(fd, fcntl.F_SETFL, fcntl.fcntl(fd, fcntl.F_GETFL) | os.O_NONBLOCK)


def read_some(fd):
    """Bytes available on a non-blocking fd: b"" at end of file, None when none yet."""
    try:
        return os.read(fd, 65536)
    except OSError as exc:
        if exc.errno in (errno.EAGAIN, errno.EINTR):
            return None
        raise


HAVE_PROC = os.path.isdir("/proc/self")


def wait_for(pid):
    while True:
        try:
            return os.waitpid(pid, 0)[1]
        except OSError as exc:
            if exc.errno != errno.EINTR:
                raise


def is_zombie(pid):
    """Linux: whether `pid` has exited and waits to be reaped (False when unknown)."""
    try:
        with open("/proc/%d/stat" % pid) as handle:
            return handle.read().rsplit(")", 1)[1].split()[0] == "Z"
    except (IOError, OSError, IndexError):
        return False


def kill_group(pid):
    for kill in (os.killpg, os.kill):  # the child may not have called setsid() yet
        try:
            kill(pid, signal.SIGKILL)
        except OSError:
            pass


class Child(object):
    def __init__(self, request, jobdir, out):
        self.request = request
        self.jobdir = jobdir
        self.out = out
        self.tail = b""
        self.started = time.time()
        self.deadline = self.started + float(request["timeout"])
        self.timed_out = False

    def read(self):
        data = read_some(self.out)
        if data == b"":
            os.close(self.out)
            self.out = None
        elif data:
            self.tail = (self.tail + data)[-OUTPUT_TAIL:]
        return data

    def drain(self):
        for _ in range(64):  # bounded: a grandchild may still hold the pipe and keep writing
            if self.out is None or not self.read():
                break
        if self.out is not None:
            os.close(self.out)
            self.out = None


class Server(object):
    def __init__(self, tf, proto):
        self.tf = tf
        self.proto = proto
        self.base = tempfile.mkdtemp(prefix="cglint-harness-")
        self.children = {}  # pid -> Child
        self.pending = b""
        self.stdin_open = True
        self.wake_r, self.wake_w = os.pipe()
        set_nonblocking(self.wake_r)
        set_nonblocking(self.wake_w)
        # SIGCHLD writes to wake_w, so select() wakes when a child exits even if a
        # grandchild still holds the child's output pipe open.
        signal.signal(signal.SIGCHLD, lambda signum, frame: None)
        signal.siginterrupt(signal.SIGCHLD, False)
        signal.set_wakeup_fd(self.wake_w)

    def send(self, message):
        send(self.proto, message)

    def serve(self):
        try:
            while self.stdin_open:
                self.step()
        finally:
            self.stop()

    def step(self):
        outs = [child.out for child in self.children.values() if child.out is not None]
        deadlines = [child.deadline for child in self.children.values() if not child.timed_out]
        timeout = max(0.0, min(deadlines) - time.time()) if deadlines else None
        try:
            ready = select.select([0, self.wake_r] + outs, [], [], timeout)[0]
        except select.error as exc:  # Python 2 does not retry on EINTR
            if exc.args[0] != errno.EINTR:
                raise
            ready = []
        for child in list(self.children.values()):
            if child.out in ready:
                child.read()
        if self.wake_r in ready:
            while read_some(self.wake_r):
                pass
        if 0 in ready:
            self.read_requests()
        now = time.time()
        for pid, child in self.children.items():
            if not child.timed_out and now >= child.deadline:
                child.timed_out = True
                kill_group(pid)
        self.reap()

    def read_requests(self):
        data = os.read(0, 65536)
        if not data:
            self.stdin_open = False
            return
        self.pending += data
        while b"\n" in self.pending:
            line, self.pending = self.pending.split(b"\n", 1)
            if line.strip():
                self.start(json.loads(line.decode("utf-8")))

    def start(self, request):
        jobdir = tempfile.mkdtemp(dir=self.base)
        out_r, out_w = os.pipe()
        sys.stdout.flush()
        sys.stderr.flush()
        pid = os.fork()
        if pid == 0:
            os.close(out_r)
            inherited = [self.proto.fileno(), self.wake_r, self.wake_w]
            inherited += [child.out for child in self.children.values() if child.out is not None]
            run_child(self.tf, request, jobdir, out_w, inherited)  # never returns
        os.close(out_w)
        set_nonblocking(out_r)
        self.children[pid] = Child(request, jobdir, out_r)

    def reap(self):
        if HAVE_PROC:
            # A fixture that exits may leave processes in its group (a forked child that
            # sleeps forever): kill the group while the exited leader is a zombie, which
            # keeps its pid (the group id) from being reused, and only then reap it.
            for pid in list(self.children):
                if is_zombie(pid):
                    kill_group(pid)
                    self.finish(self.children.pop(pid), wait_for(pid))
            return
        while self.children:
            try:
                pid, status = os.waitpid(-1, os.WNOHANG)
            except OSError as exc:
                if exc.errno == errno.EINTR:
                    continue
                if exc.errno == errno.ECHILD:
                    break
                raise
            if pid == 0:
                break
            if pid in self.children:
                self.finish(self.children.pop(pid), status)

    def finish(self, child, status):
        child.drain()
        result = None
        try:
            with open(os.path.join(child.jobdir, "result.json")) as handle:
                result = json.load(handle)
        except (IOError, OSError, ValueError):
            pass
        reply = {
            "id": child.request["id"],
            "result": result,
            "status": os.WEXITSTATUS(status) if os.WIFEXITED(status) else None,
            "signal": os.WTERMSIG(status) if os.WIFSIGNALED(status) else None,
            "timed_out": child.timed_out,
            "output": child.tail.decode("utf-8", "replace"),
            "seconds": round(time.time() - child.started, 3),
        }
        reply.update(read_payload(child.jobdir))
        self.send(reply)
        shutil.rmtree(child.jobdir, ignore_errors=True)

    def stop(self):
        for pid, child in self.children.items():
            kill_group(pid)
            os.waitpid(pid, 0)
            if child.out is not None:
                os.close(child.out)
        self.children = {}
        shutil.rmtree(self.base, ignore_errors=True)


def read_payload(jobdir):
    """{"payload": value} from the program's payload file, {"payload_error": why}, or {}."""
    path = os.path.join(jobdir, "payload.json")
    try:
        with open(path, "rb") as handle:
            data = handle.read(PAYLOAD_CAP + 1)
    except (IOError, OSError):
        return {}
    if len(data) > PAYLOAD_CAP:
        return {"payload_error": "payload larger than %d bytes" % PAYLOAD_CAP}
    try:
        return {"payload": json.loads(data.decode("utf-8"))}
    except ValueError as exc:
        return {"payload_error": "payload is not JSON: %s" % text(exc)}


def send(proto, message):
    proto.write(json.dumps(message) + "\n")
    proto.flush()


def run_child(tf, request, jobdir, out_w, inherited):
    """In the forked child: isolate, run the fixture, leave result.json, exit."""
    try:
        parent = os.getppid()
        os.setsid()  # own process group: a timeout kills whatever the fixture started
        die_with_parent(parent)
        isolate_network()
        signal.set_wakeup_fd(-1)
        signal.signal(signal.SIGCHLD, signal.SIG_DFL)
        for fd in inherited:
            os.close(fd)
        null = os.open(os.devnull, os.O_RDONLY)
        os.dup2(null, 0)
        os.dup2(out_w, 1)
        os.dup2(out_w, 2)
        os.close(null)
        os.close(out_w)
        limit_resources(float(request["timeout"]))
        work = os.path.join(jobdir, "work")
        os.mkdir(work)
        os.chdir(work)
        os.environ["HOME"] = os.environ["TMPDIR"] = work
        os.environ["CGLINT_PAYLOAD_FILE"] = os.path.join(jobdir, "payload.json")
        tempfile.tempdir = None  # the server cached its own; use TMPDIR=work
        reseed()
        result = run_fixture(tf, request["path"], request["mode"], request.get("argv", []))
    except BaseException:
        result = {"harness_error": traceback.format_exc()[-MESSAGE_CAP:]}
    for stream in (sys.stdout, sys.stderr, sys.__stdout__, sys.__stderr__):
        try:
            stream.flush()
        except Exception:
            pass
    try:
        partial = os.path.join(jobdir, "result.tmp")
        with open(partial, "w") as handle:
            json.dump(result, handle)
        os.rename(partial, os.path.join(jobdir, "result.json"))
    finally:
        os._exit(0)


def die_with_parent(parent):
    """Linux: the child dies with the server instead of running on orphaned."""
    try:
        import ctypes
        ctypes.CDLL(None).prctl(PR_SET_PDEATHSIG, signal.SIGKILL)
    except (ImportError, OSError, AttributeError):
        pass
    if os.getppid() != parent:
        os._exit(1)


CLONE_NEWUSER = 0x10000000
CLONE_NEWNET = 0x40000000


def isolate_network():
    """Linux: an empty network namespace (not even loopback up), so that a fixture that
    tries to connect anywhere fails at once with ENETUNREACH and sends nothing. Needs
    root (or user namespaces); elsewhere fixtures keep the host's network."""
    try:
        import ctypes
        libc = ctypes.CDLL(None, use_errno=True)
        for flags in (CLONE_NEWNET, CLONE_NEWUSER | CLONE_NEWNET):
            if libc.unshare(flags) == 0:
                return True
    except (ImportError, OSError, AttributeError):
        pass
    return False


def limit_resources(timeout):
    # The CPU limit is a backstop; the server's wall-clock timeout normally comes first.
    cpu = int(2 * timeout) + 10
    for limit, soft, hard in ((resource.RLIMIT_CORE, 0, 0),
                              (resource.RLIMIT_DATA, DATA_LIMIT, DATA_LIMIT),
                              (resource.RLIMIT_FSIZE, FILE_LIMIT, FILE_LIMIT),
                              (resource.RLIMIT_CPU, cpu, cpu + 5)):
        current = resource.getrlimit(limit)[1]
        if current != resource.RLIM_INFINITY:
            soft, hard = min(soft, current), min(hard, current)
        resource.setrlimit(limit, (soft, hard))


def reseed():
    """A fresh process would not share the server's random state."""
    random.seed()
    numpy = sys.modules.get("numpy")
    if numpy is not None:
        numpy.random.seed()


def native(value):
    """Python 2: JSON gives unicode where paths and argv want str."""
    if not isinstance(value, str):
        value = value.encode(sys.getfilesystemencoding() or "utf-8")
    return value


def run_fixture(tf, path, mode, argv=()):
    """Run `path` as __main__: {"outcome": "ok"} or the uncaught exception's name and message."""
    path = native(path)
    sys.argv = [path] + [native(arg) for arg in argv]
    sys.path.insert(0, os.path.dirname(path))
    sys.dont_write_bytecode = True  # a project fixture's modules leave no .pyc behind
    module = types.ModuleType("__main__")
    module.__file__ = path
    sys.modules["__main__"] = module
    try:
        if mode == "eager":
            tf.enable_eager_execution()
        with open(path, "rb") as handle:
            source = handle.read()
        # dont_inherit: this file's __future__ imports must not change how the fixture compiles
        code = compile(source, path, "exec", 0, True)
        exec(code, module.__dict__)
    except SystemExit as exc:
        if exc.code in (None, 0):
            return {"outcome": "ok"}
        return {"outcome": "SystemExit", "message": text(exc.code)}
    except BaseException:
        kind, value, trace = sys.exc_info()
        try:
            sys.stdout.flush()  # so the captured tail ends with the traceback
        except Exception:
            pass
        traceback.print_exception(kind, value, trace.tb_next)  # skip this frame, as python would
        return {"outcome": kind.__name__, "message": text(value)}
    return {"outcome": "ok"}


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    if sys.path and os.path.abspath(sys.path[0] or ".") == here:
        sys.path.pop(0)  # the oracle's own modules must not shadow anything TF imports
    proto = os.fdopen(os.dup(1), "w")
    os.dup2(2, 1)  # stray prints (TF's or ours) must not corrupt the protocol
    try:
        import tensorflow as tf
    except Exception as exc:
        send(proto, {"error": "%s: %s" % (type(exc).__name__, text(exc))})
        return 1
    if "--preload-contrib" in sys.argv[1:]:
        # For graph-mode fixtures that use contrib: importing it costs ~2 s of CPU per
        # process on 3.6, paid once here instead of in every child. Such a server can
        # never run an eager fixture (contrib makes the default graph; see above).
        try:
            import tensorflow.contrib  # noqa: F401
        except Exception:
            pass  # children import it themselves and meet the error there
    server = Server(tf, proto)
    send(proto, {"hello": {"python": platform.python_version(), "tf": tf.__version__}})
    server.serve()
    return 0


if __name__ == "__main__":
    sys.exit(main())
