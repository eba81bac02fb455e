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

With --sandbox CGROUPS the server runs inside bubblewrap (cglint/oracle/sandbox.py) and
gives each fixture its own namespaces, filesystem, cgroup and no capabilities
(fixture_jail.py); CGROUPS is its pids cgroup folder, or "-" when there is none.
Each fixture's result comes back on a pipe of its own, which no other fixture can reach.

Protocol, one JSON object per line:
  host -> stdin:  {"id": 1, "path": "/abs/fixture.py", "mode": "graph", "timeout": 60,
                   "argv": ["optional", "arguments"], "show": ["/tmp/folder", ...]}
                  (sandboxed: "show" names what under /tmp the program needs to see)
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
import re
import resource
import select
import shutil
import signal
import stat
import struct
import sys
import tempfile
import time
import traceback
import types

OUTPUT_TAIL = 8192  # bytes of a child's stdout+stderr kept for the report
MESSAGE_CAP = 65536
RESULT_CAP = 1 << 20
PAYLOAD_CAP = 1 << 20
# RLIMIT_DATA for private memory; RLIMIT_AS also counts shared and file mappings. TF
# reserves address space per thread (8 MiB stacks) and glibc per malloc arena: the
# server caps the arenas (M_ARENA_MAX) so that the margin holds on many cores too.
DATA_LIMIT = 4 << 30
ADDRESS_LIMIT = 6 << 30
ARENA_MAX = 8
FILE_LIMIT = 512 << 20  # per file; the fixture's tmpfs caps the total
DISK_LIMIT = 1 << 30
PIDS_LIMIT = max(256, 8 * (os.cpu_count() if hasattr(os, "cpu_count") else 2))  # threads count too
CGROUP_MOUNT = "/run/cglint-pids"  # as in sandbox.py
# The payload's folder as the fixture sees it: a small tmpfs of the server's, bound in,
# so that the payload outlives a fixture killed on timeout.
SANDBOX_PAYLOAD_DIR = "/tmp/.cglint"
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
    def __init__(self, request, jobdir, out, results, status=None, cgroup=None):
        self.request = request
        self.jobdir = jobdir
        self.out = out
        self.results = results  # the read end of this fixture's own result pipe
        self.status = status  # sandboxed: init writes the fixture's wait status and payload here
        self.status_data = b""
        self.cgroup = cgroup
        self.result = b""
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

    def read_result(self):
        data = read_some(self.results)
        if data == b"" or (data and len(self.result) + len(data) > RESULT_CAP):
            os.close(self.results)
            self.results = None
            self.result = self.result if data == b"" else b""
        elif data:
            self.result += data

    def read_status(self):
        while len(self.status_data) <= 4:  # bounded: init writes 4 bytes
            data = read_some(self.status)
            if not data:
                return
            self.status_data += data

    def drain(self):
        for _ in range(64):  # bounded: a grandchild may still hold the pipe and keep writing
            if self.out is None or not self.read():
                break
        if self.out is not None:
            os.close(self.out)
            self.out = None
        for _ in range(64):
            if self.results is None:
                break
            before = len(self.result)
            self.read_result()
            if self.results is not None and len(self.result) == before:
                break
        if self.results is not None:
            os.close(self.results)
            self.results = None

    def outcome(self):
        try:
            return json.loads(self.result.decode("utf-8"))
        except ValueError:
            return None


class Server(object):
    def __init__(self, tf, proto, sandbox=None):
        self.tf = tf
        self.proto = proto
        self.sandbox = sandbox  # None, or the pids cgroup folder ("" when there is none)
        self.free_cgroups = []  # made once, used again: a cgroup costs ~15 ms to make
        self.cgroup_count = 0
        self.base = tempfile.mkdtemp(prefix="cglint-harness-")  # in the sandbox, its own /tmp
        self.jobs = self.base
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
        outs += [child.results for child in self.children.values() if child.results is not None]
        outs += [child.status for child in self.children.values() if child.status is not None]
        deadlines = [child.deadline for child in self.children.values() if not child.timed_out]
        timeout = max(0.0, min(deadlines) - time.time()) if deadlines else None
        try:
            ready = select.select([0, self.wake_r] + outs, [], [], timeout)[0]
        except select.error as exc:  # Python 2 does not retry on EINTR
            if exc.args[0] != errno.EINTR:
                raise
            ready = []
        for child in list(self.children.values()):
            if child.out is not None and child.out in ready:
                child.read()
            if child.results is not None and child.results in ready:
                child.read_result()
            if child.status is not None and child.status in ready:
                child.read_status()
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

    def inherited(self):
        fds = [self.proto.fileno(), self.wake_r, self.wake_w]
        for child in self.children.values():
            fds += [fd for fd in (child.out, child.results, child.status) if fd is not None]
        return fds

    def start(self, request):
        if self.sandbox is not None:
            return self.start_jailed(request)
        jobdir = tempfile.mkdtemp(dir=self.jobs)
        out_r, out_w = os.pipe()
        result_r, result_w = os.pipe()
        sys.stdout.flush()
        sys.stderr.flush()
        pid = os.fork()
        if pid == 0:
            os.close(out_r)
            os.close(result_r)
            run_child(self.tf, request, jobdir, out_w, result_w, self.inherited())  # never returns
        os.close(out_w)
        os.close(result_w)
        set_nonblocking(out_r)
        set_nonblocking(result_r)
        self.children[pid] = Child(request, jobdir, out_r, result_r)

    def start_jailed(self, request):
        """Clone the fixture's init straight into new namespaces (fixture_jail.py), put it
        in a cgroup of its own, then let it go on."""
        out_r, out_w = os.pipe()
        result_r, result_w = os.pipe()
        status_r, status_w = os.pipe()
        go_r, go_w = os.pipe()
        source = read_source(request["path"])  # init's view of /tmp will be its own
        jobdir = tempfile.mkdtemp(dir=self.jobs)
        jail.mount("tmpfs", jobdir, "tmpfs", jail.MS_NOSUID | jail.MS_NODEV,
                   "size=%d,mode=1777" % (2 * PAYLOAD_CAP))
        cgroup = self.take_cgroup()
        sys.stdout.flush()
        sys.stderr.flush()
        try:
            pid = jail.clone_into_namespaces()
        except Exception:
            for fd in (out_r, out_w, result_r, result_w, status_r, status_w, go_r, go_w):
                os.close(fd)
            if cgroup:
                self.free_cgroups.append(cgroup)
            remove_jobdir(jobdir, mounted=True)
            self.send({"id": request["id"], "result": {"harness_error": traceback.format_exc()},
                       "status": None, "signal": None, "timed_out": False, "output": "", "seconds": 0})
            return
        if pid == 0:
            for fd in [out_r, result_r, status_r, go_w] + self.inherited():
                os.close(fd)
            run_init(self.tf, request, source, jobdir, go_r, out_w, result_w, status_w)  # never returns
        for fd in (out_w, result_w, status_w, go_r):
            os.close(fd)
        try:
            if cgroup:
                with open(os.path.join(cgroup, "cgroup.procs"), "w") as handle:
                    handle.write(str(pid))
            os.write(go_w, b"go")
        except (IOError, OSError):
            kill_group(pid)  # init meets end of file on go_r and exits
        os.close(go_w)
        for fd in (out_r, result_r, status_r):
            set_nonblocking(fd)
        self.children[pid] = Child(request, jobdir, out_r, result_r, status_r, cgroup)

    def take_cgroup(self):
        if not self.sandbox:
            return None
        if self.free_cgroups:
            return self.free_cgroups.pop()
        self.cgroup_count += 1
        path = os.path.join(self.sandbox, "fixture-%d" % self.cgroup_count)
        os.mkdir(path)
        with open(os.path.join(path, "pids.max"), "w") as handle:
            handle.write(str(PIDS_LIMIT))
        return path

    def reap(self):
        if HAVE_PROC:
            # A fixture that exits may leave processes in its group (a forked child that
            # sleeps forever): kill the group while the exited leader is a zombie, which
            # keeps its pid (the group id) from being reused, and only then reap it.
            for pid in list(self.children):
                if is_zombie(pid):
                    kill_group(pid)
                    self.finish(pid, self.children.pop(pid), wait_for(pid))
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
                self.finish(pid, self.children.pop(pid), status)

    def finish(self, pid, child, status):
        child.drain()
        if child.status is not None:  # from init: the fixture's own status
            child.read_status()
            os.close(child.status)
            child.status = None
            if len(child.status_data) == 4:
                status = struct.unpack("=i", child.status_data)[0]
        reply = {
            "id": child.request["id"],
            "result": child.outcome(),
            "status": os.WEXITSTATUS(status) if os.WIFEXITED(status) else None,
            "signal": os.WTERMSIG(status) if os.WIFSIGNALED(status) else None,
            "timed_out": child.timed_out,
            "output": child.tail.decode("utf-8", "replace"),
            "seconds": round(time.time() - child.started, 3),
        }
        reply.update(read_payload(os.path.join(child.jobdir, "payload.json")))
        self.send(reply)
        remove_jobdir(child.jobdir, mounted=self.sandbox is not None)
        if child.cgroup:  # empty again: init's end killed all of the namespace
            self.free_cgroups.append(child.cgroup)

    def stop(self):
        for pid, child in self.children.items():
            kill_group(pid)
            os.waitpid(pid, 0)
            for fd in (child.out, child.results, child.status):
                if fd is not None:
                    os.close(fd)
            if child.cgroup:
                self.free_cgroups.append(child.cgroup)
        self.children = {}
        for cgroup in self.free_cgroups:
            try:
                os.rmdir(cgroup)
            except OSError:
                pass
        shutil.rmtree(self.base, ignore_errors=True)


def remove_jobdir(jobdir, mounted):
    if mounted:
        try:
            jail.umount(jobdir)
        except Exception:
            pass
    shutil.rmtree(jobdir, ignore_errors=True)


def payload_bytes(path):
    """At most PAYLOAD_CAP + 1 bytes of the program's payload file; None when it left none.
    The program made the file: a link or a FIFO in its place is not followed or waited on."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
    except OSError:
        return None
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            return b"\0not a regular file"
        data = b""
        while len(data) <= PAYLOAD_CAP:
            chunk = os.read(fd, PAYLOAD_CAP + 1 - len(data))
            if not chunk:
                break
            data += chunk
        return data
    finally:
        os.close(fd)


def read_payload(path):
    """{"payload": value} from the program's payload file, {"payload_error": why}, or {}."""
    return parse_payload(payload_bytes(path))


def parse_payload(data):
    if data is None:
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


def run_child(tf, request, jobdir, out_w, result_w, inherited):
    """Without the sandbox: the forked child runs the fixture under rlimits only."""
    try:
        parent = os.getppid()
        os.setsid()  # own process group: a timeout kills whatever the fixture started
        die_with_parent(parent)
        isolate_network()
        detach(inherited)
        redirect_output(out_w)
        work = os.path.join(jobdir, "work")
        os.mkdir(work)
        result = run_limited(tf, request, work, os.path.join(jobdir, "payload.json"))
    except BaseException:
        result = {"harness_error": traceback.format_exc()[-MESSAGE_CAP:]}
    report(result, result_w)


def run_init(tf, request, source, jobdir, go_r, out_w, result_w, status_w):
    """pid 1 of the fixture's namespaces: private filesystem, no capabilities, fork, reap."""
    try:
        jail.after_clone()
        jail.set_dumpable(False)
        jail.set_death_signal(signal.SIGKILL)  # the server gone (bwrap killed): all goes
        if read_all(go_r) != b"go":
            os._exit(1)  # the server died, or could not put us in our cgroup
        os.close(go_r)
        # No fd of the server's stays behind (init's are reachable from the fixture
        # through /proc/1/fd): its request pipe on 0, its stderr on 1 and 2.
        redirect_output(os.dup(out_w))
        resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
        shown = [native(path) for path in request.get("show") or [os.path.dirname(request["path"])]]
        jail.private_filesystem(DISK_LIMIT, shown, CGROUP_MOUNT, (jobdir, SANDBOX_PAYLOAD_DIR))
        work = "/tmp/work"
        os.mkdir(work)
        jail.drop_capabilities()
        fixture = os.fork()
        if fixture == 0:
            os.close(status_w)
            try:
                redirect_output(out_w)
                jail.set_dumpable(True)
                jail.refuse_unix_sockets()
                result = run_limited(tf, request, work, os.path.join(SANDBOX_PAYLOAD_DIR, "payload.json"),
                                     source)
            except BaseException:
                result = {"harness_error": traceback.format_exc()[-MESSAGE_CAP:]}
            report(result, result_w)
        os.close(out_w)
        os.close(result_w)
        status = reap_until(fixture)
        os.write(status_w, struct.pack("=i", status))
    except BaseException:
        report({"harness_error": traceback.format_exc()[-MESSAGE_CAP:]}, result_w)
    os._exit(0)  # the kernel now kills everything left in the namespace


def detach(inherited):
    """Forget the server's signal set-up and its pipes (other fixtures' included)."""
    signal.set_wakeup_fd(-1)
    signal.signal(signal.SIGCHLD, signal.SIG_DFL)
    for fd in inherited:
        os.close(fd)


def redirect_output(out_w):
    null = os.open(os.devnull, os.O_RDONLY)
    os.dup2(null, 0)
    os.dup2(out_w, 1)
    os.dup2(out_w, 2)
    os.close(null)
    os.close(out_w)


def run_limited(tf, request, work, payload_file, source=None):
    limit_resources(float(request["timeout"]))
    os.chdir(work)
    os.environ["HOME"] = os.environ["TMPDIR"] = work
    os.environ["CGLINT_PAYLOAD_FILE"] = payload_file
    tempfile.tempdir = None  # the server cached its own; use TMPDIR=work
    reseed()
    return run_fixture(tf, request["path"], request["mode"], request.get("argv", []), source)


def report(result, result_w):
    """Write the result on this fixture's own pipe and exit."""
    for stream in (sys.stdout, sys.stderr, sys.__stdout__, sys.__stderr__):
        try:
            stream.flush()
        except Exception:
            pass
    try:
        data = json.dumps(result).encode("utf-8")
        while data:
            data = data[os.write(result_w, data[:65536]):]
    finally:
        os._exit(0)


def read_source(path):
    try:
        with open(native(path), "rb") as handle:
            return handle.read()
    except (IOError, OSError):
        return None  # the fixture meets the error itself, as an outcome


def read_all(fd):
    data = b""
    while True:
        chunk = os.read(fd, 4096)
        if not chunk:
            return data
        data += chunk


def reap_until(pid):
    """As init: reap every process that ends until `pid` does; its status."""
    while True:
        try:
            done, status = os.waitpid(-1, 0)
        except OSError as exc:
            if exc.errno == errno.EINTR:
                continue
            raise
        if done == pid:
            return status


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
                              (resource.RLIMIT_AS, ADDRESS_LIMIT, ADDRESS_LIMIT),
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


CODING_LINE = re.compile(br"^[ \t\f]*#.*?coding[:=][ \t]*[-\w.]+")


def run_fixture(tf, path, mode, argv=(), source=None):
    """Run `path` (whose text is `source` when given) as __main__: {"outcome": "ok"} or
    the uncaught exception's name and message."""
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
        if source is None:
            with open(path, "rb") as handle:
                source = handle.read()
        check_declared_encoding(source, path)
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


def check_declared_encoding(source, path):
    """Python 2 reads a script file as ASCII unless a UTF-8 BOM or a PEP 263 coding line
    says otherwise; compile() of a byte string skips that check, which `python main.py`
    makes: raise its SyntaxError (message as 2.7's own)."""
    if sys.version_info[0] != 2 or source.startswith(b"\xef\xbb\xbf"):
        return
    lines = source.split(b"\n")
    first = lines[0].strip()
    # the second line counts after a first line of a comment or blanks, read as ASCII
    second = len(lines) > 1 and (not first or first.startswith(b"#")) and all(
        byte < 128 for byte in bytearray(lines[0]))
    if CODING_LINE.match(lines[0]) or (second and CODING_LINE.match(lines[1])):
        return
    for number, line in enumerate(lines, 1):
        for byte in bytearray(line):
            if byte > 127:
                raise SyntaxError("Non-ASCII character '\\x%02x' in file %s on line %d, but no "
                                  "encoding declared; see http://python.org/dev/peps/pep-0263/ "
                                  "for details" % (byte, path, number))


jail = None  # fixture_jail, imported by main() when sandboxed


def cap_malloc_arenas():
    """glibc reserves 64 MiB of address space per arena, up to 8 per core: bound them so
    RLIMIT_AS measures what a fixture uses, not the machine's core count."""
    try:
        import ctypes
        ctypes.CDLL(None).mallopt(-8, ARENA_MAX)  # M_ARENA_MAX
    except (ImportError, OSError, AttributeError):
        pass


def main():
    global jail
    here = os.path.dirname(os.path.abspath(__file__))
    args = sys.argv[1:]
    sandbox = args[args.index("--sandbox") + 1] if "--sandbox" in args else None
    if sandbox is not None:
        sandbox = "" if sandbox == "-" else sandbox
        sys.path.insert(0, here)
        import fixture_jail as jail
        sys.path.pop(0)
        sys.modules.pop("fixture_jail", None)  # a fixture may have a module of that name
        os.environ.pop("PWD", None)  # bwrap's, for --chdir
        jail.empty_network()
    if sys.path and os.path.abspath(sys.path[0] or ".") == here:
        sys.path.pop(0)  # the oracle's own modules must not shadow anything TF imports
    cap_malloc_arenas()
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
    server = Server(tf, proto, sandbox)
    send(proto, {"hello": {"python": platform.python_version(), "tf": tf.__version__}})
    server.serve()
    return 0


if __name__ == "__main__":
    sys.exit(main())
