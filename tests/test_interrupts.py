"""A stop Python cannot raise where it arrives (in a weakref callback or a __del__) is kept,
silently, and honoured between files: no "Exception ignored" traceback, no lost stop."""
import os
import signal
import sys
import threading
import time
import weakref

import pytest

from cglint import check, interrupts, pool
from cglint.cli import main
from signal_masks import STOPS, threads, threads_taking_stops


class _Thing:
    pass


def _stop_in_a_callback(stop):
    """Raise `stop` where Python can only print it: in a weakref callback."""
    thing = _Thing()

    def callback(_):
        raise stop

    ref = weakref.ref(thing, callback)
    del thing  # the callback runs now, and its exception cannot propagate
    return ref


def test_a_stop_in_a_callback_is_kept_silently_and_raised_later(capsys):
    with interrupts.keeping_stops():
        _stop_in_a_callback(interrupts.Terminated())
        assert capsys.readouterr().err == ""
        with pytest.raises(interrupts.Terminated):
            interrupts.raise_pending()
        interrupts.raise_pending()  # raised once


def test_other_unraisable_exceptions_go_to_the_hook_before(monkeypatch):
    seen = []
    monkeypatch.setattr(sys, "unraisablehook", seen.append)
    with interrupts.keeping_stops():
        _stop_in_a_callback(ValueError("not a stop"))
        interrupts.raise_pending()  # nothing kept
    assert [str(unraisable.exc_value) for unraisable in seen] == ["not a stop"]
    assert sys.unraisablehook == seen.append  # put back


@pytest.mark.parametrize("stop,status", [(KeyboardInterrupt, 130), (interrupts.Terminated, 143)])
@pytest.mark.parametrize("at", [2, 5])  # a file in the middle, the last file
def test_a_run_stops_between_files_without_a_traceback(tmp_path, monkeypatch, capsys, stop,
                                                       status, at):
    for number in range(5):
        (tmp_path / ("m%d.py" % number)).write_text("x = f'{%d}'\n" % number)
    monkeypatch.chdir(tmp_path)
    real = check.check_bytes
    checked = []

    def check_bytes(*args):
        checked.append(args[0])
        if len(checked) == at:
            _stop_in_a_callback(stop())
        return real(*args)

    monkeypatch.setattr(check, "check_bytes", check_bytes)
    assert main([".", "--no-cache", "--jobs", "1"]) == status
    out, err = capsys.readouterr()
    assert "Traceback" not in err and "Exception ignored" not in err, err
    assert len(checked) == at  # stopped after the file it came in
    assert out.count("CG301") == at - 1  # the files before it were reported


def test_a_thread_cglint_starts_never_takes_a_stop():
    """The kernel hands a process's signal to any thread not blocking it; one that a helper
    thread took did not wake the main thread blocked on a queue (a confirm run waited out
    its fixture's timeout after a Ctrl-C)."""
    masks = []
    interrupts.start_thread(lambda: masks.append(signal.pthread_sigmask(signal.SIG_BLOCK, []))).join()
    assert set(STOPS) <= masks[0]
    assert not set(STOPS) & signal.pthread_sigmask(signal.SIG_BLOCK, [])  # this one's is put back


def _squared(number):
    return number * number


def test_the_pools_threads_never_take_a_stop():
    before = set(threads(os.getpid()))
    results, started, taking = [], [], []
    for result in pool.imap(_squared, iter(range(200)), 2):
        if not results:  # the pool stands and runs: its threads are all there
            started = sorted(set(threads(os.getpid())) - before)
            taking = threads_taking_stops(os.getpid(), started)
        results.append(result)
    assert results == [number * number for number in range(200)]
    assert started, "the pool started no thread"
    assert taking == []


def test_a_wait_for_a_thread_raises_a_stop_that_thread_took():
    """A thread that starts processes keeps the stops (its children must get them); the
    main thread waits for it in slices, so a stop the kernel handed that thread is raised
    at once, not when the thread is done."""
    from concurrent.futures import ThreadPoolExecutor

    release = threading.Event()
    with ThreadPoolExecutor(1) as executor:
        future = executor.submit(lambda: (release.wait(30), threading.get_ident())[1])
        helper = None
        while helper is None:  # the thread that runs it: the only one of the executor
            helper = next((t.ident for t in executor._threads), None)
        timer = threading.Timer(0.3, signal.pthread_kill, (helper, signal.SIGINT))
        started = time.monotonic()
        timer.start()
        try:
            with pytest.raises(KeyboardInterrupt):
                interrupts.result(future)
            assert time.monotonic() - started < 3  # not the 30 s the thread takes
        finally:
            release.set()
            timer.join()
    assert future.result() == helper


# Loading the command line (cglint.cli's imports) with a stop arriving in it: as an
# unraisable one (in an import's callback) or wrapped by Python 3.11 in the RuntimeError of
# a class being created. Either way the command ends with 130 and prints nothing.
_START_UP_STOP = r"""
import sys, weakref
sys.path.insert(0, ROOT)

class Thing:
    pass

class StopWhileLoading:
    def find_spec(self, name, path=None, target=None):
        if name == "cglint.cli":
            if MODE == "unraisable":
                thing = Thing()
                ref = weakref.ref(thing, lambda _: (_ for _ in ()).throw(KeyboardInterrupt))
                del thing
            else:
                try:
                    raise KeyboardInterrupt
                except KeyboardInterrupt as stop:
                    raise RuntimeError("Error calling __set_name__") from stop
        return None

sys.meta_path.insert(0, StopWhileLoading())
from cglint.__main__ import main
status = main()
print("cli loaded" if "cglint.cli" in sys.modules else "cli not loaded")
sys.exit(status)
"""


@pytest.mark.parametrize("mode", ["unraisable", "wrapped"])
def test_a_stop_while_the_command_line_loads_ends_quietly(mode):
    import subprocess

    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    code = "ROOT = %r\nMODE = %r\n%s" % (root, mode, _START_UP_STOP)
    done = subprocess.run([sys.executable, "-c", code, "--version"], capture_output=True,
                          text=True, timeout=60)
    assert done.returncode == 130, done
    assert done.stderr == "", done.stderr
    # an unraisable stop is kept until the import is over, and raised then
    assert done.stdout.strip() == ("cli loaded" if mode == "unraisable" else "cli not loaded")


class _StopsWhenNamed:
    """A class attribute whose __set_name__ raises a stop, as a Ctrl-C landing in a
    dataclass field's does; Python 3.11 wraps it in a RuntimeError."""

    def __init__(self, stop):
        self.stop = stop

    def __set_name__(self, owner, name):
        raise self.stop


@pytest.mark.parametrize("stop,status", [(KeyboardInterrupt, 130), (interrupts.Terminated, 143)])
def test_a_stop_while_fix_imports_its_fixers_ends_quietly(tmp_path, monkeypatch, capsys, stop,
                                                         status):
    """CI saw it: SIGINT during `--fix`'s lazy import of autofix (a dataclass) came out as
    RuntimeError("Error calling __set_name__ ...") with a traceback."""
    (tmp_path / "m.py").write_text("x = f'{1}'\n")
    monkeypatch.chdir(tmp_path)

    def fixed(item, unsafe=False):
        type("Fixed", (), {"rejected": _StopsWhenNamed(stop())})

    monkeypatch.setattr("cglint.cli._fixed", fixed)
    assert main([".", "--no-cache", "--jobs", "1", "--fix"]) == status
    assert "Traceback" not in capsys.readouterr().err


def test_an_error_that_is_no_stop_is_not_taken_for_one(tmp_path, monkeypatch):
    (tmp_path / "m.py").write_text("x = f'{1}'\n")
    monkeypatch.chdir(tmp_path)

    def fixed(item, unsafe=False):
        raise RuntimeError("a bug") from ValueError("below")

    monkeypatch.setattr("cglint.cli._fixed", fixed)
    with pytest.raises(RuntimeError, match="a bug"):
        main([".", "--no-cache", "--jobs", "1", "--fix"])


def test_a_stop_behind_an_error_raised_while_handling_it_is_found():
    try:
        try:
            raise KeyboardInterrupt
        except BaseException:
            raise OSError("cleanup failed")
    except OSError as error:
        assert isinstance(interrupts.stop_behind(error), KeyboardInterrupt)
    assert interrupts.stop_behind(ValueError("alone")) is None


@pytest.mark.parametrize("stop,status", [(KeyboardInterrupt, 130), (interrupts.Terminated, 143)])
def test_a_wrapped_stop_inside_a_rule_is_not_taken_for_a_cglint_bug(tmp_path, monkeypatch, capsys,
                                                                    stop, status):
    """The engine reports a rule's exception as an internal error and goes on; a stop
    wrapped in one (a Ctrl-C in a rule's first import of astroid or fissix) stops the run."""
    (tmp_path / "m.py").write_text("import tensorflow as tf\nx = f'{1}'\n")
    monkeypatch.chdir(tmp_path)
    from cglint import facts

    def wrapped(*args, **kwargs):
        type("Lazy", (), {"field": _StopsWhenNamed(stop())})

    monkeypatch.setattr(facts, "ModuleFacts", wrapped)
    monkeypatch.setattr("cglint.engine.ModuleFacts", wrapped)
    assert main([".", "--no-cache", "--jobs", "1"]) == status
    err = capsys.readouterr().err
    assert "Traceback" not in err and "internal error" not in err.lower(), err
