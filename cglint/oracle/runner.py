"""Host side: run fixtures in one harness fork server per TF 1.8 interpreter.

At most `workers` fixtures run at once across all servers. The server enforces each
fixture's wall-clock timeout (it holds the unreaped child, so killing its process
group cannot hit a recycled pid); the host only guards against a server that dies
or stops answering, and then starts a new one for the fixtures still to run.

Each server runs inside a bubblewrap sandbox (sandbox.py) unless the caller passes
sandbox=False (`confirm --unsafe-no-sandbox`). A sandboxed run leaves no file behind
even when the host is killed: a server's stderr goes to an unnamed temp file and all
else lives in the sandbox's own tmpfs. Unsandboxed, a server's temp folder is the host's
to remove (a killed harness cannot), so a `kill -9` of the host leaves that one.
"""
import argparse
import errno
import itertools
import json
import os
import queue
import shutil
import signal
import subprocess
import tempfile
import time
from collections import deque
from dataclasses import dataclass

from cglint import interrupts
from cglint.oracle import sandbox as sandboxing
from cglint.oracle.envs import clean_env, explain_import_error

HARNESS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "harness.py")
GRACE = 60.0  # beyond a fixture's timeout: the server's own start-up and bookkeeping
SERVER_PIDS = 8192  # a whole server's cgroup; each fixture has its own, smaller cap
# The longest --timeout: a larger (or infinite) one overflows the clocks and waits it is
# handed to (a lock's wait, select, a deadline as a timestamp).
MAX_TIMEOUT = 24 * 3600.0


@dataclass(frozen=True)
class Job:
    path: str
    interpreter: str  # "py27" or "py36"
    mode: str = "graph"
    argv: tuple = ()  # the program's sys.argv[1:]
    # When the program is a driver that imports a user's module (gradcheck): that module,
    # whose code (not the driver's) decides whether a contrib server suits the job.
    module: str = ""
    # More paths whose folders the sandbox shows, read-only (a module's package root).
    shows: tuple = ()


@dataclass
class Result:
    job: Job
    outcome: str = None  # "ok" or the exception class name; None when the program gave none
    message: str = ""
    failure: str = ""  # why there is no outcome: "timeout after 60s", "crashed: signal 11 (SIGSEGV)"
    output: str = ""  # the last KB of the program's stdout and stderr
    seconds: float = 0.0
    payload: object = None  # the JSON value the program left in $CGLINT_PAYLOAD_FILE, if any
    payload_error: str = ""  # why a payload it left could not be read

    def describe(self):
        if self.outcome is None:
            return self.failure
        first = self.message.strip().splitlines()[0] if self.message.strip() else ""
        return "%s: %s" % (self.outcome, first) if first else self.outcome


def result_from(job, reply, timeout):
    """A Result from the harness's reply to one request."""
    result = Result(job, output=reply.get("output", ""), seconds=reply.get("seconds", 0.0),
                    payload=reply.get("payload"), payload_error=reply.get("payload_error", ""))
    outcome = reply.get("result") or {}
    if reply.get("timed_out"):
        result.failure = "timeout after %gs" % timeout
    elif "outcome" in outcome:
        result.outcome, result.message = outcome["outcome"], outcome.get("message", "")
    elif "harness_error" in outcome:
        result.failure = "harness error: %s" % outcome["harness_error"].strip().splitlines()[-1]
        result.output += "\n" + outcome["harness_error"]
    elif reply.get("signal"):
        result.failure = "crashed: signal %d (%s)" % (reply["signal"], _signal_name(reply["signal"]))
    else:
        result.failure = "exited with status %s without a result" % reply.get("status")
    return result


def _signal_name(number):
    try:
        return signal.Signals(number).name
    except ValueError:
        return "unknown"


class Server:
    """One harness process: requests go to its stdin, replies come back on `events`."""

    def __init__(self, name, python, events, preload_contrib=False, jail=None):
        """`jail`: None to run unsandboxed, else (bwrap path, folders to show read-only)."""
        self.name = name
        self.key = (name, preload_contrib)
        self.hello = None
        self.sandboxed = jail is not None
        self.cgroup = None
        self.home = None  # unsandboxed: the harness's temp folder, removed even if it is killed
        self.stderr = sandboxing.stderr_file()
        argv = [python, "-s", "-B", HARNESS] + (["--preload-contrib"] if preload_contrib else [])
        if jail is None:
            self.home = home = tempfile.mkdtemp(prefix="cglint-%s-" % name)
        else:
            if not os.access(python, os.X_OK):  # said here: inside, only bwrap's stderr would
                raise FileNotFoundError(errno.ENOENT, "not an executable file", python)
            bwrap, binds = jail
            self.cgroup = sandboxing.PidsCgroup(SERVER_PIDS)
            inside = sandboxing.CGROUP_MOUNT if self.cgroup.path else "-"
            argv = sandboxing.command(bwrap, argv + ["--sandbox", inside], binds,
                                      self.cgroup.path)
            home = "/tmp"  # the sandbox's own
        try:
            self.proc = subprocess.Popen(
                argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=self.stderr,
                cwd=tempfile.gettempdir(), env=clean_env(home), start_new_session=True)
        except OSError:
            self.stderr.close()
            if self.cgroup:
                self.cgroup.remove()
            if self.home:
                shutil.rmtree(self.home, ignore_errors=True)
            raise
        interrupts.start_thread(self._read, events)

    def _read(self, events):
        for line in self.proc.stdout:
            try:
                events.put((self, json.loads(line.decode("utf-8"))))
            except ValueError:
                break
        self.proc.stdout.close()
        events.put((self, None))

    def send(self, request):
        try:
            self.proc.stdin.write(json.dumps(request).encode("utf-8") + b"\n")
            self.proc.stdin.flush()
        except OSError:
            pass  # the reader thread reports the dead server

    def exit_reason(self):
        try:
            code = self.proc.wait(5)
        except subprocess.TimeoutExpired:
            return "the %s harness closed its output" % self.name
        if self.sandboxed and code > 128:
            code = 128 - code  # bwrap passes on a signal as 128 + its number
        if code < 0:
            return "the %s harness was killed by signal %d (%s)" % (self.name, -code, _signal_name(-code))
        self.stderr.seek(0, os.SEEK_END)
        self.stderr.seek(max(0, self.stderr.tell() - 500))
        tail = self.stderr.read().decode("utf-8", "replace").strip()
        return "the %s harness exited with status %d: %s" % (self.name, code, tail)

    def close(self, wait=5.0):
        try:
            self.proc.stdin.close()  # the server kills its children and exits
            self.proc.wait(wait)
        except (OSError, subprocess.TimeoutExpired):
            pass
        if self.proc.poll() is None:
            os.killpg(self.proc.pid, signal.SIGKILL)
            self.proc.wait()
        self.stderr.close()
        if self.cgroup:
            self.cgroup.remove()
        if self.home:
            shutil.rmtree(self.home, ignore_errors=True)


def wants_contrib(job):
    """Whether a fixture can run in a server that imported tensorflow.contrib already:
    it uses contrib and stays in graph mode (an eager fixture needs a graph-free start)."""
    if job.mode != "graph":
        return False
    try:
        with open(job.module or job.path, "rb") as handle:
            source = handle.read()
    except OSError:
        return False
    return b"contrib" in source and b"enable_eager_execution" not in source


def timeout_seconds(text):
    """The argparse type of the --timeout of confirm, gradcheck and doctor: more than 0
    seconds and at most MAX_TIMEOUT."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError("expected a number of seconds, got %r" % text)
    if not 0 < value <= MAX_TIMEOUT:  # nan included
        raise argparse.ArgumentTypeError("expected more than 0 and at most %d seconds (a day), "
                                         "got %s" % (MAX_TIMEOUT, text))
    return value


def whole_number(lowest, highest=None):
    """An argparse type: a whole number from `lowest` (to `highest`), as confirm's and
    gradcheck's --jobs (from 1) and gradcheck's --seed take."""
    def convert(text):
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError("expected a whole number, got %r" % text)
        if value < lowest or highest is not None and value > highest:
            raise argparse.ArgumentTypeError("expected %d %s, got %s" % (
                lowest, "or more" if highest is None else "to %d" % highest, text))
        return value
    return convert


def run_fixtures(jobs, interpreters, workers=2, timeout=60.0, sandbox=True):
    """Run each Job under `interpreters[job.interpreter]`; Results in the order of `jobs`.

    sandbox=False runs fixtures with rlimits only (`--unsafe-no-sandbox`). Where no
    sandbox can be made, every Result's failure says why and nothing runs."""
    jail = None
    if sandbox:
        why = sandboxing.unavailable()
        if why:
            return [Result(job, failure="no sandbox: %s" % why) for job in jobs]
        visible = [job.path for job in jobs] + [job.module for job in jobs if job.module] + [
            path for job in jobs for path in job.shows] + [HARNESS]
        # An interpreter's prefix (the folder above its bin/), both the one it is called by
        # (a venv's, which may lie under /tmp) and the one its link resolves to.
        visible += [os.path.dirname(os.path.realpath(python)) for python in interpreters.values()]
        visible += [os.path.dirname(os.path.abspath(python)) for python in interpreters.values()]
        jail = (sandboxing.bwrap_path(), sandboxing.hidden_folders(visible))
    results = [None] * len(jobs)
    todo = deque(range(len(jobs)))
    events = queue.Queue()
    servers, broken = {}, {}  # interpreter -> Server / why it cannot start
    never_up = {}  # interpreter -> servers that died before saying hello
    inflight = {}  # request id -> (server, job index, host deadline)
    ids = itertools.count(1)

    def fail_server(server, why):
        if servers.get(server.key) is server:
            del servers[server.key]
        if server.hello is None:
            # Never came up. Twice means it cannot (no TensorFlow, say): do not retry for
            # every fixture. Once may be a kill from outside while it was starting.
            never_up[server.key] = never_up.get(server.key, 0) + 1
            if never_up[server.key] >= 2:
                broken[server.key] = why
        for rid, (owner, index, _) in list(inflight.items()):
            if owner is server:
                del inflight[rid]
                results[index] = Result(jobs[index], failure=why)
        server.close(wait=0)

    try:
        while todo or inflight:
            while todo and len(inflight) < workers:
                index = todo.popleft()
                job = jobs[index]
                key = (job.interpreter, wants_contrib(job))
                if job.interpreter in interpreters and key not in servers and key not in broken:
                    try:
                        servers[key] = Server(job.interpreter, interpreters[job.interpreter], events,
                                              preload_contrib=key[1], jail=jail)
                    except OSError as exc:
                        broken[key] = "cannot start %s: %s" % (interpreters[job.interpreter], exc)
                if key not in servers:
                    why = broken.get(key, "no %s interpreter" % job.interpreter)
                    results[index] = Result(job, failure=why)
                    continue
                rid = next(ids)
                inflight[rid] = (servers[key], index, time.time() + timeout + GRACE)
                needed = [job.path] + ([job.module] if job.module else []) + list(job.shows)
                servers[key].send({"id": rid, "path": os.path.abspath(job.path), "mode": job.mode,
                                   "timeout": timeout, "argv": list(job.argv),
                                   "show": sandboxing.hidden_folders(needed)})
            if not inflight:
                continue
            wait = min(deadline for _, _, deadline in inflight.values()) - time.time()
            try:
                server, reply = events.get(timeout=max(0.0, wait))
            except queue.Empty:
                stuck = {owner for owner, _, deadline in inflight.values() if deadline <= time.time()}
                for owner in stuck:
                    fail_server(owner, "the %s harness stopped answering" % owner.name)
                continue
            if servers.get(server.key) is not server:
                continue  # late news from a server already given up on
            if reply is None or "error" in reply:
                fail_server(server, explain_import_error(reply["error"]) if reply else server.exit_reason())
            elif "hello" in reply:
                server.hello = reply["hello"]
            elif reply.get("id") in inflight:
                _, index, _ = inflight.pop(reply["id"])
                results[index] = result_from(jobs[index], reply, timeout)
    finally:
        for server in servers.values():
            server.close()
    return results
