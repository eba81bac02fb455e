"""Run a function over many tasks on several processes; results come back one by one, in
the order of the input.

Order is what makes the output byte-identical whatever `--jobs` is. Results are handed on
as soon as they and every one before them are done, and only a few chunks are in flight
at a time, so neither the tasks nor the results of a run of any size pile up here. A pool
costs a process start-up per worker, so small runs stay in this process.

A stop is this process's to make: a terminal's Ctrl-C reaches every process of its group,
the workers too, and one that took it printed its traceback and could die halfway
through handing back a chunk's results, leaving the pool's thread waiting for the rest
forever. Workers ignore Ctrl-C; on a stop this process shuts the pool down.
"""
import collections
import contextlib
import gc
import signal
import sys

from cglint import check, interrupts

# Below this many tasks per worker a pool's start-up costs more than it saves.
MIN_FILES_PER_WORKER = 16
# Tasks sent to a worker at once: enough to make the round trip cheap next to checking
# them (a file takes about 10 ms), few enough that the workers finish together and the
# results stream out steadily.
CHUNK = 8
# Chunks in flight per worker: one being checked, the next waiting, one coming back.
IN_FLIGHT = 3

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
            flight[-1] = (chunk, executor.submit(_run_chunk, function, chunk))
        return bool(chunk)

    try:
        # The workers are forked at the first submission. A Ctrl-C or SIGTERM raised in
        # the middle of a fork (in the handlers that re-arm locks around it) would be
        # swallowed as "Exception ignored": hold them until the pool stands.
        # The pool's own thread, started there too, never takes a stop (see interrupts).
        with interrupts.stops_held():
            submit()
        while len(flight) < workers * IN_FLIGHT and submit():
            pass
        while flight:
            results = flight[0][1].result()
            flight.popleft()
            yield from results
            submit()
    except BrokenProcessPool:
        # A worker died (raised by a chunk's result, or by the next submission): the
        # chunks not handed on are done again, then the rest, by the caller.
        executor.shutdown(wait=False, cancel_futures=True)
        return itertools.chain((task for chunk, _ in flight for task in chunk), tasks)
    except BaseException:
        # Ctrl-C or SIGTERM in the middle, or the caller stopped reading: drop the chunks
        # not started, and wait for the workers to end after the chunk they hold (they
        # only read and check files). Not waiting left the pool's thread closing its
        # wake-up pipe while the interpreter's exit wrote to it, in Python 3.11: an
        # "Exception ignored ... Bad file descriptor" traceback at exit.
        executor.shutdown(wait=True, cancel_futures=True)
        raise
    executor.shutdown()
    return None
