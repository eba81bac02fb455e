"""A stop (Ctrl-C, SIGTERM) that arrives while Python runs code it cannot raise out of.

A signal handler's exception is raised in whatever Python code runs when the signal is
handled. In a weakref callback or a `__del__` (importlib frees a module lock that way
after every import), Python cannot raise it: it prints "Exception ignored in ..." with a
traceback and drops the exception, so the stop would be lost and a traceback shown. While
`keeping_stops` is on, such a stop is kept here instead, silently, and `raise_pending()`
raises it at the next place the run asks (between files).
"""
import contextlib
import sys


class Terminated(BaseException):
    """SIGTERM arrived: stop like Ctrl-C does, so the worker processes are shut down with
    the run (killed outright, the run left them waiting forever for work)."""


STOPS = (KeyboardInterrupt, Terminated)
_pending = None


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
