"""The language server's workers: the warm-up check they start with, and how they serve
calls (the garbage collector between calls, never during one)."""
import gc
import io
import pickle
import types
import weakref

import pytest

pytest.importorskip("pygls", reason="the language server needs pygls (pip install -e .)")

from cglint import files  # noqa: E402
from cglint.integrations import lsp, lsp_worker  # noqa: E402


def test_the_warm_up_text_exercises_the_rules():
    outcome = lsp.publish_job("untitled:probe", 0, lsp.WARM_UP_PATH, lsp.WARM_UP_TEXT,
                              "utf-16", None)
    lsp._checked.pop("untitled:probe", None)
    assert outcome["error"] == "" and outcome["settings_error"] == ""
    codes = {d["code"] for d in outcome["diagnostics"]}
    # Custom-gradient facts, variables, call sites, override maps, the target syntax checks.
    assert {"CG101", "CG103", "CG107", "CG202", "CG301"} <= codes


def test_warm_up_reads_no_file_and_keeps_nothing(monkeypatch):
    read = []
    real_read = files.read_bytes
    monkeypatch.setattr(files, "read_bytes", lambda path: read.append(path) or real_read(path))
    kept = dict(lsp._checked)
    lsp.warm_up()
    assert read == []  # its folder does not exist: no project module is looked for there
    assert dict(lsp._checked) == kept


def test_a_warm_up_that_fails_is_not_fatal(monkeypatch):
    def broken(*args):
        raise RuntimeError("a bug in a rule")

    monkeypatch.setattr(lsp, "publish_job", broken)
    assert lsp.warm_up() is None


class Cycle:
    def __init__(self):
        self.me = self


def serve(*calls):
    """The replies of lsp_worker.serve to `calls` ((name, args) pairs), and what the calls
    saw: whether the collector was on, and weak references to cyclic garbage they made."""
    seen = []

    def probe(index):
        made = Cycle()
        seen.append((gc.isenabled(), weakref.ref(made)))
        return [ref() is None for _, ref in seen[:-1]]  # earlier calls' garbage: freed?

    def fails():
        raise ValueError("no such thing")

    module = types.SimpleNamespace(WORKER_CALLS={"probe", "fails"}, probe=probe, fails=fails)
    stream = io.BytesIO()
    for call in calls:
        pickle.dump(call, stream)
    stream.seek(0)
    results = io.BytesIO()
    assert lsp_worker.serve(stream, results, module) == 0
    results.seek(0)
    replies = []
    while results.tell() < len(results.getvalue()):
        replies.append(pickle.load(results))
    return replies, seen


def test_serve_collects_between_calls_never_during_one():
    was_enabled = gc.isenabled()
    replies, seen = serve(("probe", (0,)), ("probe", (1,)), ("probe", (2,)))
    assert [enabled for enabled, _ in seen] == [False, False, False]
    # Each call's cyclic garbage is gone by the next call: collected in between.
    assert replies == [(True, []), (True, [True]), (True, [True, True])]
    assert gc.isenabled() == was_enabled  # as it was, once serving ends


def test_serve_answers_errors_and_unknown_calls_and_serves_on():
    replies, _ = serve(("fails", ()), ("import_os", ()), ("probe", (0,)))
    assert replies[0][0] is False and "ValueError: no such thing" in replies[0][1]
    assert replies[1][0] is False and "not a worker call: 'import_os'" in replies[1][1]
    assert replies[2] == (True, [])


def test_a_spawned_worker_warms_up_then_checks():
    """A fresh interpreter (what replaces a killed worker) checks the first buffer it gets."""
    worker = lsp_worker.Worker()
    try:
        outcome = worker.call("publish_job", ("untitled:a", 1, "/nowhere/a.py",
                                               lsp.WARM_UP_TEXT, "utf-16", None))
    finally:
        worker.close()
    assert "CG103" in {d["code"] for d in outcome["diagnostics"]}
