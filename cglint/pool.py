"""Check many files on several processes; results come back in the order of the input.

Order is what makes the output byte-identical whatever `--jobs` is. A pool costs a process
start-up per worker, so small runs stay in this process.
"""
import contextlib
import gc
import signal
import sys

from cglint import check

# Below this many files a pool's start-up costs more than it saves.
MIN_FILES_PER_WORKER = 16

# Python's cyclic garbage collector, left running, walks the young objects every 700
# allocations, and a parsed file is hundreds of thousands of live tree nodes: it took a
# third of a cold run. Per-file data holds no reference cycles, so reference counting frees
# it; while checking, the collector runs only once per COLLECT_EVERY files, for anything
# that is cyclic after all, and what survives that (results, the API tables) is frozen
# out of later collections so that each one costs only what is new.
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


def check_all(items, jobs, on_result=None):
    """engine.Result for each item, in order; `on_result` is called as each one is done."""
    items = list(items)
    workers = min(jobs, len(items) // MIN_FILES_PER_WORKER)
    with collector_paused():
        if workers > 1:
            results = _in_pool(items, workers, on_result)
            if results is not None:
                return results
        results = []
        for item in items:
            results.append(check_item(item))
            if on_result:
                on_result(results[-1])
        return results


_STOPS = (signal.SIGINT, signal.SIGTERM)


def _start_worker():
    """In each worker: no cyclic collector (see COLLECT_EVERY), and the stop signals the
    pool's start held back received again."""
    gc.disable()
    signal.pthread_sigmask(signal.SIG_UNBLOCK, _STOPS)


def _in_pool(items, workers, on_result):
    """Results from worker processes, or None when a worker died (killed, out of memory):
    the caller then checks the files in its own process."""
    # Imported here: together they cost a third of cglint's start-up, and most runs
    # (an editor save, a pre-commit hook on a few files) never start a pool.
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor
    from concurrent.futures.process import BrokenProcessPool

    # Forking is the cheapest start on Linux, and safe here: the command line runs no
    # threads. Elsewhere fork is unsafe (macOS) or absent (Windows): take the default.
    context = multiprocessing.get_context("fork" if sys.platform.startswith("linux") else None)
    chunk = max(1, min(64, len(items) // (workers * 8)))
    results = []
    executor = ProcessPoolExecutor(workers, mp_context=context, initializer=_start_worker)
    try:
        # The workers are forked while the jobs are submitted. A Ctrl-C or SIGTERM raised
        # in the middle of a fork (in the handlers that re-arm locks around it) would be
        # swallowed as "Exception ignored": hold them until the pool stands.
        held = signal.pthread_sigmask(signal.SIG_BLOCK, _STOPS)
        try:
            done = executor.map(check_item, items, chunksize=chunk)
        finally:
            signal.pthread_sigmask(signal.SIG_SETMASK, held)
        for result in done:
            results.append(result)
            if on_result:
                on_result(result)
    except BrokenProcessPool:
        executor.shutdown(wait=False, cancel_futures=True)
        return None
    except BaseException:
        # Ctrl-C or SIGTERM in the middle: drop the chunks not started; the workers end
        # after the chunk they hold (they only read and check files).
        executor.shutdown(wait=False, cancel_futures=True)
        raise
    executor.shutdown()
    return results
