"""Check many files on several processes; results come back in the order of the input.

Order is what makes the output byte-identical whatever `--jobs` is. A pool costs a process
start-up per worker, so small runs stay in this process.
"""
import multiprocessing
import sys
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool

from cglint import check

# Below this many files a pool's start-up costs more than it saves.
MIN_FILES_PER_WORKER = 16


def check_item(item):
    """Check one (path, data bytes, options, report_unused_noqa) item."""
    return check.check_bytes(*item)


def check_all(items, jobs, on_result=None):
    """engine.Result for each item, in order; `on_result` is called as each one is done."""
    items = list(items)
    workers = min(jobs, len(items) // MIN_FILES_PER_WORKER)
    if workers > 1:
        try:
            return _in_pool(items, workers, on_result)
        except BrokenProcessPool:  # a worker died (killed, out of memory): redo it here
            pass
    results = []
    for item in items:
        results.append(check_item(item))
        if on_result:
            on_result(results[-1])
    return results


def _in_pool(items, workers, on_result):
    # Forking is the cheapest start on Linux, and safe here: the command line runs no
    # threads. Elsewhere fork is unsafe (macOS) or absent (Windows): take the default.
    context = multiprocessing.get_context("fork" if sys.platform.startswith("linux") else None)
    chunk = max(1, min(64, len(items) // (workers * 8)))
    results = []
    with ProcessPoolExecutor(workers, mp_context=context) as executor:
        for result in executor.map(check_item, items, chunksize=chunk):
            results.append(result)
            if on_result:
                on_result(result)
    return results
