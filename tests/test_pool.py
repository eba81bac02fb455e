"""--jobs: the same bytes out whatever the number of processes."""
import pytest

from cglint import engine, pool
from cglint.cli import main

BAD = (
    "import tensorflow as tf\n"
    "\n"
    "@tf.custom_gradient\n"
    "def f{n}(x):\n"
    "    return x, lambda dy: (dy, dy)\n"
)


@pytest.fixture
def tree(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    for number in range(120):
        folder = tmp_path / "src" / ("pkg%d" % (number % 7))
        folder.mkdir(parents=True, exist_ok=True)
        text = BAD.format(n=number) if number % 3 else "x = %d\n" % number
        (folder / ("m%03d.py" % number)).write_text(text)
    (tmp_path / "src" / "broken.py").write_text("def g(:\n")
    return tmp_path


@pytest.mark.parametrize("format_", ["text", "json", "sarif"])
def test_output_is_byte_identical_for_any_number_of_jobs(tree, capsys, format_):
    outputs = set()
    for jobs in ("1", "2", "3"):
        assert main(["src", "--no-cache", "--jobs", jobs, "--format", format_]) == 1
        outputs.add(capsys.readouterr().out)
    assert len(outputs) == 1


def check_all(items, jobs):
    """Results of (path, data, options) items, checked as a run checks them."""
    return list(pool.imap(pool.check_item, iter(items), pool.workers_for(jobs, len(items))))


def test_pool_keeps_the_input_order():
    items = [("m%d.py" % n, BAD.format(n=n).encode() * (n % 3), engine.Options())
             for n in range(80)]
    in_process = check_all(items, 1)
    in_pool = check_all(items, 2)
    assert pool.workers_for(2, len(items)) == 2
    assert [r.path for r in in_pool] == ["m%d.py" % n for n in range(80)]
    assert [r.diagnostics for r in in_pool] == [r.diagnostics for r in in_process]


def test_jobs_must_be_a_number_of_processes(capsys):
    assert main([".", "--jobs", "-1"]) == 2
    assert main([".", "--jobs", "many"]) == 2
    assert "expected" in capsys.readouterr().err


def test_small_runs_stay_in_one_process_unless_jobs_are_asked_for(tmp_path, monkeypatch):
    from cglint import cli

    for number in range(40):
        (tmp_path / ("m%d.py" % number)).write_text("x = %d\n" % number)
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(cli, "available_cpus", lambda: 2)
    asked = []
    real = pool.workers_for
    monkeypatch.setattr(pool, "workers_for",
                        lambda jobs, count: asked.append(jobs) or real(jobs, count))
    for args in ([], ["--jobs", "0"], ["--jobs", "3"]):
        assert main([".", "--no-cache", "-q"] + args) == 0
    assert asked == [1, 2, 3]
    monkeypatch.setattr(cli, "POOL_MIN_FILES", 40)
    assert main([".", "--no-cache", "-q"]) == 0
    assert asked[-1] == 2


def test_checking_leaves_no_reference_cycles_behind():
    # A run pauses the cyclic garbage collector (it cost a third of a cold run):
    # that is only safe while a checked file's trees, scopes and facts hold no cycles,
    # so reference counting alone frees them.
    import gc
    import glob

    paths = sorted(glob.glob("fixtures/**/*.py", recursive=True))
    assert len(paths) > 50
    items = [(path, open(path, "rb").read(), engine.Options(report_unused_noqa=True))
             for path in paths]
    check_all(items[:1], 1)  # load the rules and API tables first
    # and the Python 2 parser, whose one-time set-up leaves cycles (fissix's patterns)
    check_all([("py2.py", b'print "x"\n', engine.Options())], 1)
    gc.collect()
    was_enabled = gc.isenabled()
    gc.disable()
    gc.set_debug(gc.DEBUG_SAVEALL)
    try:
        results = [pool.check.check_bytes(*item) for item in items]
        found = gc.collect()
        kinds = sorted({type(obj).__name__ for obj in gc.garbage})[:10]
    finally:
        gc.set_debug(0)
        del gc.garbage[:]
        if was_enabled:
            gc.enable()
    assert any(result.diagnostics for result in results)
    assert found == 0, kinds


def test_the_collector_is_as_it_was_after_a_run():
    import gc

    assert gc.isenabled()
    check_all([("a.py", b"x = 1\n", engine.Options())] * 40, 1)
    assert gc.isenabled()
    assert gc.get_freeze_count() == 0


# A worker dies having sent the start of a message on the results pipe (as one killed while
# it hands back a chunk's results does); a Ctrl-C comes while the run waits for that chunk.
_HALFWAY = r"""
import multiprocessing, os, signal, struct, sys, threading, time
sys.path.insert(0, ROOT)
from cglint import pool

def die_halfway(number):
    if number == 9 and multiprocessing.parent_process() is not None:
        frame = sys._getframe()
        while "result_queue" not in frame.f_locals:  # concurrent.futures' worker loop
            frame = frame.f_back
        writer = frame.f_locals["result_queue"]._writer
        os.write(writer.fileno(), struct.pack("!i", 1000) + b"the first of 1000 bytes")
        time.sleep(0.5)
        os._exit(1)
    return number

threading.Timer(1, signal.pthread_kill, (threading.get_ident(), signal.SIGINT)).start()
started = time.monotonic()
try:
    list(pool.imap(die_halfway, range(40), 2))
except KeyboardInterrupt:
    print("stopped after %.1f s" % (time.monotonic() - started))
"""


def test_a_stop_ends_the_pool_when_a_worker_died_halfway_through_its_results():
    """The pool's thread waits for the rest of the message on a pipe this process holds
    open too: shutting the pool down waited for that thread forever, and so did the
    interpreter's exit."""
    import os
    import subprocess
    import sys

    from signal_masks import output_within

    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    process = subprocess.Popen([sys.executable, "-c", "ROOT = %r\n%s" % (root, _HALFWAY)],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                               start_new_session=True)
    output = output_within(process, 30)
    if output is None:
        pytest.fail("still running 29 s after the Ctrl-C")
    out, err = output
    assert process.returncode == 0, err
    assert out.startswith("stopped after "), (out, err)
    assert float(out.split()[2]) < 5, out
