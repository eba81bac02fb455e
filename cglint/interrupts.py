"""A stop (Ctrl-C, SIGTERM) that arrives while Python runs code it cannot raise out of.

A signal handler's exception is raised in whatever Python code runs when the signal is
handled. In a weakref callback or a `__del__` (importlib frees a module lock that way
after every import), Python cannot raise it: it prints "Exception ignored in ..." with a
traceback and drops the exception, so the stop would be lost and a traceback shown. While
`keeping_stops` is on, such a stop is kept here instead, silently, and `raise_pending()`
raises it at the next place the run asks (between files).

A stop sent to the process is handed by the kernel to any one thread that does not block
it. Python runs its handler in the main thread only, and a stop that another thread took
does not wake a main thread blocked on a lock or a queue: it would wait out its timeout
(a confirm run, a minute or more). Two answers, by what the thread does:
- a thread that starts no process blocks the stops for its whole life (`start_thread`,
  or `stops_held` around its start: a new thread inherits the mask);
- a thread that starts processes must not (they would inherit the mask, and a Ctrl-C
  would no longer end them): the main thread waits for it in short slices instead
  (`wait`, `result`), so that a stop it took is raised within a fraction of a second.
"""
import contextlib
import signal
import sys


class Terminated(BaseException):
    """SIGTERM arrived: stop like Ctrl-C does, so the worker processes are shut down with
    the run (killed outright, the run left them waiting forever for work)."""


STOPS = (KeyboardInterrupt, Terminated)
STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM)
_pending = None


@contextlib.contextmanager
def stops_held():
    """SIGINT and SIGTERM blocked in this thread while on; threads (and processes) started
    meanwhile keep them blocked, so a stop goes to the main thread. Keep it short: a stop
    sent meanwhile waits until the end (the main thread gets it then)."""
    held = signal.pthread_sigmask(signal.SIG_BLOCK, STOP_SIGNALS)
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, held)


def wait(futures, poll=0.2):
    """Wait until every future is done, in slices of `poll` s: between two, Python raises
    a stop that another thread took (a wait without a timeout would sit on it)."""
    import concurrent.futures

    while not all(future.done() for future in futures):
        concurrent.futures.wait(futures, timeout=poll)


def result(future):
    """`future.result()`, waited for as `wait` does."""
    wait([future])
    return future.result()


def start_thread(target, *args, name=None):
    """Start a daemon thread that never takes a stop signal (see the module's doc); it
    must start no process."""
    import threading

    thread = threading.Thread(target=target, args=args, name=name, daemon=True)
    with stops_held():
        thread.start()
    return thread


@contextlib.contextmanager
def keeping_stops():
    """While on, a stop Python could not raise is kept for raise_pending()."""
    global _pending
    previous = sys.unraisablehook

    def hook(unraisable):
        global _pending
        if isinstance(unraisable.exc_value, STOPS):
            _pending = _pending or unraisable.exc_value
        else:
            previous(unraisable)

    sys.unraisablehook = hook
    try:
        yield
    finally:
        sys.unraisablehook = previous
        _pending = None


def raise_pending():
    """Raise the stop kept since the last call, if any."""
    global _pending
    stop, _pending = _pending, None
    if stop is not None:
        raise stop


def raise_stop_behind(error):
    """Raise the stop behind `error`, if any: for a handler that takes every Exception
    (a bug's, a tokenizer's) and must not swallow a Ctrl-C wrapped in one."""
    stop = stop_behind(error)
    if stop is not None:
        raise stop


def stop_behind(error):
    """The stop an exception stands for, if any: Python 3.11 wraps one raised while a class
    is created (in `__set_name__`, a dataclass field's) in a RuntimeError, and code that
    catches everything may raise another error while a stop is being handled."""
    seen = set()
    while error is not None and id(error) not in seen:
        if isinstance(error, STOPS):
            return error
        seen.add(id(error))
        error = error.__cause__ or error.__context__
    return None
