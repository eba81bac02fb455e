"""Run a function over many tasks on several processes; results come back one by one, in
the order of the input.

Order is what makes the output byte-identical whatever `--jobs` is. Results are handed on
as soon as they and every one before them are done, and only a few chunks are in flight
at a time, so neither the tasks nor the results of a run of any size pile up here. A pool
costs a process start-up per worker, so small runs stay in this process.

A stop is this process's to make: a terminal's Ctrl-C reaches every process of its group,
the workers too, and one that took it printed its traceback and could die halfway
through handing back a chunk's results, leaving the pool's thread waiting for the rest
forever. Workers ignore Ctrl-C; on a stop this process ends them (SIGTERM, then SIGKILL)
and waits for them and the pool's thread a bounded time only (`_end`).
"""
import collections
import contextlib
import gc
import signal
import sys
import time

from cglint import check, interrupts

# Below this many tasks per worker a pool's start-up costs more than it saves.
MIN_FILES_PER_WORKER = 16
# Tasks sent to a worker at once: enough to make the round trip cheap next to checking
# them (a file takes about 10 ms), few enough that the workers finish together and the
# results stream out steadily.
CHUNK = 8
# Chunks in flight per worker: one being checked, the next waiting, one coming back.
IN_FLIGHT = 3
# Seconds a stopped pool's workers get to end after SIGTERM, then after SIGKILL; then its
# thread to end. They die in milliseconds: this only bounds the wait when they do not.
END_SECONDS = 1

# Python's cyclic garbage collector, left running, walks the young objects every 700
# allocations, and a parsed file is hundreds of thousands of live tree nodes: it took a
# third of a cold run. Per-file data holds no reference cycles, so reference counting frees
# it; while checking, the collector runs only once per COLLECT_EVERY files, for anything
# that is cyclic after all, and what survives that (the API tables, the project's module
# summaries) is frozen out of later collections so that each one costs only what is new.
COLLECT_EVERY = 64
_checked = 0


def check_item(item):
    """Check one (path, data bytes, options) item."""
    global _checked
    result = check.check_bytes(*item)
    _checked += 1
    if _checked % COLLECT_EVERY == 0 and not gc.isenabled():
        gc.collect()
        gc.freeze()
    return result


@contextlib.contextmanager
def collector_paused():
    """Automatic garbage collection off (see COLLECT_EVERY), as it was afterwards."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        gc.unfreeze()
        if enabled:
            gc.enable()


def workers_for(jobs, count):
    """Processes worth starting for `count` tasks when `jobs` are allowed."""
    return max(1, min(jobs, count // MIN_FILES_PER_WORKER))


def imap(function, tasks, workers, initializer=None, initargs=()):
    """function(task) for each of `tasks` (an iterable, read as the work goes on), in
    order. With `workers` > 1, on that many processes, each set up by
    initializer(*initargs); when one dies (killed, out of memory) the rest is done here.
    The cyclic collector is paused while this process checks (see COLLECT_EVERY)."""
    tasks = iter(tasks)
    if workers > 1:
        left = yield from _in_pool(function, tasks, workers, initializer, initargs)
        if left is None:
            return
        tasks = left
    with collector_paused():
        for task in tasks:
            yield function(task)


def _start_worker(initializer, initargs):
    """In each worker: no cyclic collector (see COLLECT_EVERY); Ctrl-C ignored (a
    Ctrl-C held back since the fork is dropped) and SIGTERM ending it at once, even
    inside a long call in C: the run's stops are the parent's (see the module's doc);
    then the caller's set-up."""
    gc.disable()
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    signal.pthread_sigmask(signal.SIG_UNBLOCK, interrupts.STOP_SIGNALS)
    if initializer is not None:
        initializer(*initargs)


def _run_chunk(function, chunk):
    return [function(task) for task in chunk]


def _in_pool(function, tasks, workers, initializer, initargs):
    """Yield function(task) from worker processes, in order; return None when every task
    is done, or, when a worker died, an iterator of the tasks not done (the caller does
    them in its own process)."""
    # Imported here: together they cost a third of cglint's start-up, and most runs
    # (an editor save, a pre-commit hook on a few files) never start a pool.
    import itertools
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor
    from concurrent.futures.process import BrokenProcessPool

    # Forking is the cheapest start on Linux, and safe here: the command line runs no
    # threads. Elsewhere fork is unsafe (macOS) or absent (Windows): take the default.
    context = multiprocessing.get_context("fork" if sys.platform.startswith("linux") else None)
    executor = ProcessPoolExecutor(workers, mp_context=context, initializer=_start_worker,
                                   initargs=(initializer, initargs))
    flight = collections.deque()  # (tasks of a chunk, its future), oldest first

    def submit():
        chunk = list(itertools.islice(tasks, CHUNK))
        if chunk:
            flight.append((chunk, None))  # kept even when the pool turns out broken
            # Stops are held while the pool submits. The first submission forks the
            # workers, and a Ctrl-C or SIGTERM raised in the middle of a fork (in the
            # handlers that re-arm locks around it) would be swallowed as "Exception
            # ignored"; the pool's own thread, started there too, never takes a stop (see
            # interrupts). And one raised while the pool's lock is taken would leave it
            # taken, for its shutdown to wait on forever.
            with interrupts.stops_held():
                flight[-1] = (chunk, executor.submit(_run_chunk, function, chunk))
        return bool(chunk)

    try:
        while len(flight) < workers * IN_FLIGHT and submit():
            pass
        while flight:
            results = flight[0][1].result()
            flight.popleft()
            yield from results
            submit()
        executor.shutdown()
    except BrokenProcessPool:
        # A worker died (raised by a chunk's result, or by the next submission): the
        # chunks not handed on are done again, then the rest, by the caller.
        _end(executor)
        return itertools.chain((task for chunk, _ in flight for task in chunk), tasks)
    except BaseException:
        # Ctrl-C or SIGTERM in the middle, or the caller stopped reading: the workers'
        # chunks are dropped (they only read and check files).
        _end(executor)
        raise
    return None


def _end(executor):
    """Shut the pool down at once: its workers are ended (the chunks they hold are lost),
    then its thread is waited for, each a bounded time. The thread must be done before
    the interpreter's exit wakes it: it closes its wake-up pipe as it ends, and the exit's
    write to that printed "Exception ignored ... Bad file descriptor" (Python 3.11). It
    was waited for with the workers alive: forever, when one had died holding a queue's
    lock or halfway through a message."""
    from multiprocessing.connection import wait

    # Taken before shutdown(), which drops them.
    processes = list((getattr(executor, "_processes", None) or {}).values())
    thread = getattr(executor, "_executor_manager_thread", None)
    results = getattr(executor, "_result_queue", None)
    with interrupts.stops_held():  # a second Ctrl-C must not leave the workers running
        executor.shutdown(wait=False, cancel_futures=True)
        for end in ("terminate", "kill"):
            for process in processes:
                getattr(process, end)()
            deadline = time.monotonic() + END_SECONDS
            while processes and time.monotonic() < deadline:
                ended = wait([process.sentinel for process in processes],
                             deadline - time.monotonic())
                processes = [process for process in processes if process.sentinel not in ended]
            if not processes:
                break
        if not processes and results is not None:
            # This process holds the results pipe's writing end as well: with it closed, a
            # read of a message that a dead worker left unfinished ends (EOF), and the
            # pool's thread with it.
            results._writer.close()
        if thread is not None:
            thread.join(END_SECONDS)
