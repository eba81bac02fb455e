"""Checks for the language server, run in child processes.

A check of a big buffer takes seconds (a 5 MB file about 7 s); on the server's event loop it
held every request of the editor that long. Here it runs in a worker process, so the loop
keeps answering, and a check made stale by a newer edit is stopped by ending its process
(unless it ends within a second anyway), which also gives back all the memory it took.
The first workers are copies of the server made before it starts (no import to wait for);
later ones, replacing a killed worker, are fresh interpreters that import cglint and pygls
(a second or more) while the others serve.

The server calls functions of cglint.integrations.lsp by name (WORKER_CALLS there); their
arguments and results travel pickled over the worker's standard input and output. Both
ends are this program, so the pickles are trusted.
"""
import asyncio
import collections
import gc
import logging
import os
import pickle
import signal
import subprocess
import sys
import threading
import traceback

import cglint
from cglint import interrupts

log = logging.getLogger("cglint.lsp")
WORKERS = 2  # at most this many checks at once: a big file does not hold up the others
# Seconds a superseded job may still run before its worker is killed: most checks end
# sooner, and a killed worker costs a fresh import.
GRACE = 1.0


class Superseded(Exception):
    """The document changed (or closed) before the job finished; its result would be stale."""


class JobFailed(Exception):
    """The job raised, or its worker died; the message says which."""


class Worker:
    """One child process serving calls, one at a time: a fresh interpreter, or with
    `fork`, a copy of this process (ready at once, its imports done; only safe while the
    process has a single thread)."""

    def __init__(self, fork=False):
        self.process = _forked() if fork else _spawned()
        self.last_key = None  # the document it worked on last: its check is cached there

    def call(self, name, args):
        """The function's result; blocks, so it runs in a thread of the server's."""
        try:
            pickle.dump((name, args), self.process.stdin, pickle.HIGHEST_PROTOCOL)
            self.process.stdin.flush()
            ok, value = pickle.load(self.process.stdout)
        except (OSError, EOFError, pickle.UnpicklingError) as error:
            self.close()
            raise JobFailed("the worker process ended (%s, exit code %s)"
                            % (type(error).__name__, self.process.returncode))
        if not ok:
            raise JobFailed(value)
        return value

    def kill(self):
        """End the process now; a call waiting on it fails at once (and closes it)."""
        if self.process.poll() is None:
            self.process.kill()

    def close(self):
        self.kill()
        self.process.wait()
        for stream in (self.process.stdin, self.process.stdout):
            try:
                stream.close()
            except OSError:  # a broken pipe on flushing: the process is gone anyway
                pass


def _spawned():
    root = os.path.dirname(os.path.dirname(os.path.abspath(cglint.__file__)))
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, (root, env.get("PYTHONPATH"))))
    return subprocess.Popen([sys.executable, "-m", __name__], env=env,
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE)


def _forked():
    calls_in, calls_out = os.pipe()
    results_in, results_out = os.pipe()
    pid = os.fork()
    if pid == 0:  # the worker: calls on 0, results on 1, nothing else of the server's
        code = 1
        try:
            os.dup2(calls_in, 0)
            os.dup2(results_out, 1)
            os.closerange(3, 1 << 16)
            code = main(warm=False)  # the server warmed up before forking
        except BaseException:
            traceback.print_exc()
        finally:
            os._exit(code)
    os.close(calls_in)
    os.close(results_out)
    return Forked(pid, os.fdopen(calls_out, "wb"), os.fdopen(results_in, "rb"))


class Forked:
    """What a Worker uses of subprocess.Popen, for a child made by os.fork()."""

    def __init__(self, pid, stdin, stdout):
        self.pid, self.stdin, self.stdout = pid, stdin, stdout
        self.returncode = None
        self._lock = threading.Lock()  # reaped once, from either thread

    def poll(self):
        return self._reap(os.WNOHANG)

    def wait(self):
        return self._reap(0)

    def kill(self):
        with self._lock:
            if self.returncode is None:
                os.kill(self.pid, signal.SIGKILL)

    def _reap(self, flags):
        with self._lock:
            if self.returncode is None:
                pid, status = os.waitpid(self.pid, flags)
                if pid:
                    self.returncode = os.waitstatus_to_exitcode(status)
            return self.returncode


class Job:
    def __init__(self, key, stamp, name, args, future):
        self.key, self.stamp, self.name, self.args, self.future = key, stamp, name, args, future
        self.worker = None  # set while it runs
        self.stale = False  # superseded while running: its result goes nowhere


class Jobs:
    """Runs calls in up to `size` workers, first come first served, with two rules:
    jobs of one document (`key`) run one after another (on the worker that has its last
    check cached), and a job older than a document's newest `stamp` is dropped; if it is
    running, its caller is told at once and its worker killed unless it ends within
    GRACE seconds."""

    def __init__(self, size=WORKERS, start=Worker):
        self.size = size
        self.start = start
        self.idle = []  # started workers with no job
        self.running = []  # Jobs
        self.pending = collections.deque()
        self.closed = False

    def run(self, key, stamp, name, *args):
        """An asyncio future of `name(*args)` run in a worker; it fails with Superseded when
        a job with a newer stamp for the same key comes first."""
        self.supersede(key, stamp)
        future = asyncio.get_running_loop().create_future()
        self.pending.append(Job(key, stamp, name, args, future))
        self._dispatch()
        return future

    def supersede(self, key, stamp):
        """Drop the jobs of `key` older than `stamp`; a running one is left GRACE seconds
        to end before its worker is killed."""
        for job in [job for job in self.pending if job.key == key and job.stamp < stamp]:
            self.pending.remove(job)
            _fail(job.future, Superseded())
        for job in [job for job in self.running
                    if job.key == key and job.stamp < stamp and not job.stale]:
            job.stale = True
            _fail(job.future, Superseded())
            asyncio.get_running_loop().call_later(GRACE, self._end_stale, job)

    def _end_stale(self, job):
        if job in self.running:
            job.worker.kill()  # its thread then sees the end of the process and cleans up

    def forget(self, key):
        self.supersede(key, float("inf"))

    def warm(self, fork=False):
        """Start workers up to `size` ahead of the jobs: a worker imports for a second or
        more on a busy machine, and the second one is what lets a buffer be checked while
        a big one is. `fork`: copies of this process, while it has a single thread."""
        fork = fork and threading.active_count() == 1
        while not self.closed and len(self.idle) + len(self.running) < self.size:
            try:
                self.idle.append(Worker(fork=True) if fork else self.start())
            except OSError as error:  # said again, to the editor, by the next job
                log.warning("cglint: cannot start a worker process: %s", error)
                return

    def close(self):
        self.closed = True
        for job in self.pending:
            _fail(job.future, Superseded())
        self.pending.clear()
        for job in self.running:
            job.worker.kill()
        for worker in self.idle:
            worker.close()
        self.idle = []

    def _dispatch(self):
        if self.closed:
            return
        busy_keys = {job.key for job in self.running if not job.stale}
        for job in list(self.pending):
            if job.key in busy_keys:
                continue
            worker = self._worker_for(job.key)
            if worker is None:
                return
            self.pending.remove(job)
            busy_keys.add(job.key)
            job.worker = worker
            worker.last_key = job.key
            self.running.append(job)
            _in_thread(worker.call, job.name, job.args).add_done_callback(
                lambda done, job=job: self._finished(job, done))

    def _worker_for(self, key):
        ended = [worker for worker in self.idle if worker.process.poll() is not None]
        for worker in ended:  # killed from outside while idle: not for a job
            self.idle.remove(worker)
            worker.close()
        for worker in self.idle:
            if worker.last_key == key:
                self.idle.remove(worker)
                return worker
        if self.idle:
            return self.idle.pop(0)
        if len(self.running) < self.size:
            try:
                return self.start()
            except OSError as error:  # no process to be had: fail the jobs, keep serving
                log.error("cglint: cannot start a worker process: %s", error)
                for job in self.pending:
                    _fail(job.future, JobFailed("cannot start a worker process: %s" % error))
                self.pending.clear()
        return None

    def _finished(self, job, done):
        self.running.remove(job)
        worker = job.worker
        if worker.process.poll() is None and not self.closed:
            self.idle.append(worker)
        else:
            worker.close()
            self.warm()  # a fresh one for the next edit, importing while the user types
        error = done.exception()
        if error is not None:
            _fail(job.future, error)
        elif not job.future.done():
            job.future.set_result(done.result())
        self._dispatch()


def _fail(future, error):
    if not future.done():
        future.set_exception(error)
        future.exception()  # retrieved: nobody may be waiting for a superseded job


def _in_thread(function, *args):
    """An asyncio future of function(*args) run in a new daemon thread (daemon: a worker
    stuck at exit must not keep the server alive)."""
    loop = asyncio.get_running_loop()
    future = loop.create_future()

    def settle(error, value):
        if not future.done():
            future.set_exception(error) if error else future.set_result(value)

    def run():
        try:
            outcome = (None, function(*args))
        except BaseException as error:  # handed to the loop, which decides
            outcome = (error, None)
        try:
            loop.call_soon_threadsafe(settle, *outcome)
        except RuntimeError:  # the loop has closed: the server is exiting
            pass

    interrupts.start_thread(run, name="cglint-lsp-call")
    return future


def main(warm=True):
    """The worker: calls in on standard input, results out on standard output. `warm`: a
    check of lsp.WARM_UP_TEXT first (a fresh interpreter; a fork of the server is warm),
    and what the worker then holds is frozen out of the garbage collector (see serve)."""
    calls = sys.stdin.buffer
    results = os.fdopen(os.dup(1), "wb")
    os.dup2(2, 1)  # anything printed goes to standard error, never into the results
    sys.stdout = sys.stderr
    from cglint.integrations import lsp

    if warm:
        lsp.warm_up()
        gc.collect()
        gc.freeze()
    return serve(calls, results, lsp)


def serve(calls, results, module):
    """Run the calls pickled on `calls` (functions of `module` named in its WORKER_CALLS)
    and pickle each (ok, result or traceback) to `results`, until `calls` ends; 0.

    The cyclic garbage collector runs between calls, never during one: left on, it walked
    the young objects every 700 allocations of a check (a 2,000-line buffer makes hundreds
    of thousands) and, now and then, everything the worker holds. After the reply is sent
    it costs the editor nothing (under a millisecond once the start-up state is frozen)."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        while True:
            try:
                name, args = pickle.load(calls)
            except (EOFError, OSError):  # the server has gone
                return 0
            try:
                if name not in module.WORKER_CALLS:
                    raise ValueError("not a worker call: %r" % (name,))
                reply = (True, getattr(module, name)(*args))
            except Exception:  # the server logs it; the worker serves on
                reply = (False, traceback.format_exc())
            try:
                pickle.dump(reply, results, pickle.HIGHEST_PROTOCOL)
                results.flush()
            except OSError:
                return 0
            del reply
            gc.collect()
    finally:
        if enabled:
            gc.enable()


if __name__ == "__main__":
    sys.exit(main())
