"""A run streams: each file's findings are reported as soon as it and every file before it
are checked, the whole-run findings last; nothing of a file is kept once it is reported
(but what the whole-run rules need); and the bytes out are the same whatever --jobs is,
cold or from the cache, and whatever the report is made of (--fix, --diff, --add-noqa,
--statistics, --show-fixes, JSON, SARIF)."""
import gc
import os
import shutil
import sys

import pytest

from cglint import check, files, lint_run, pool
from cglint.cli import main
from cglint.diagnostics import Result

import test_cache
from snippets import BAD

# Whole-run findings (CG202: a gradient name registered nowhere), one silenced by its
# `noqa`, next to a per-file finding with a safe fix (CG402: tf.math.log -> tf.log).
UNREGISTERED = test_cache.UNREGISTERED + "x = tf.math.log(2.0)\n"
FILLERS = 40


def make_tree(top):
    """A tree whose files sort differently by folder-first walking and by path text."""
    for number in range(FILLERS):
        folder = top / ("pkg%d" % (number % 3))
        folder.mkdir(parents=True, exist_ok=True)
        text = BAD if number % 4 else "x = %d\n" % number
        (folder / ("m%02d.py" % number)).write_text(text)
    (top / "pkg1" / "sub").mkdir()
    (top / "pkg1" / "sub" / "over.py").write_text(UNREGISTERED)
    (top / "pkg1-late.py").write_text(UNREGISTERED)
    (top / "a.py").write_text(UNREGISTERED)
    (top / "skipped" ).mkdir()
    (top / "skipped" / "over.py").write_text(UNREGISTERED)
    return top


@pytest.fixture
def tree(tmp_path, monkeypatch):
    top = make_tree(tmp_path / "tree")
    monkeypatch.chdir(top)
    return top


@pytest.fixture
def small_pools(monkeypatch):
    """A pool for any run given --jobs 2, fed two files at a time."""
    monkeypatch.setattr(pool, "MIN_FILES_PER_WORKER", 1)
    monkeypatch.setattr(pool, "CHUNK", 2)


IGNORED = ["--per-file-ignores", "skipped/*:CG202"]


def run(capsys, *args):
    code = main(list(args))
    out, err = capsys.readouterr()
    return code, out, err


def finding_lines(out):
    return [line for line in out.splitlines() if ": CG" in line]


def test_files_come_in_the_order_of_their_paths(tree):
    found = [path for path, _ in files.discover(["."])]
    assert found == sorted(found) and len(found) == FILLERS + 4
    # a folder sorts as its name and `/`: pkg1-late.py comes before pkg1/...
    assert found.index("./pkg1-late.py") < found.index("./pkg1/m01.py")


def test_findings_are_written_as_soon_as_their_file_is_checked(tree, monkeypatch):
    events = []
    real = pool.check_item
    monkeypatch.setattr(pool, "check_item",
                        lambda item: events.append(("checked", item[0])) or real(item))

    class Out:
        def write(self, text):
            events.append(("written", text))

        def flush(self):
            pass

        def isatty(self):
            return False

    monkeypatch.setattr(sys, "stdout", Out())
    assert main([".", "--no-cache", "--jobs", "1"] + IGNORED) == 1
    checked = [index for index, (kind, _) in enumerate(events) if kind == "checked"]
    written = [index for index, (kind, text) in enumerate(events)
               if kind == "written" and ": CG" in text]
    assert len(checked) == FILLERS + 4
    assert written[0] < checked[-1]  # the first findings are out before the last check
    # and each file's findings come right after it is checked, before the next one is
    first = events[written[0]][1].split(":")[0]
    before = [path for kind, path in events[:written[0]] if kind == "checked"]
    assert os.path.normpath(before[-1]) == first


def test_whole_run_findings_come_last_in_path_order_obeying_noqa_and_options(
        tree, capsys, small_pools):
    code, out, _ = run(capsys, ".", "--no-cache", "--jobs", "2", *IGNORED)
    assert code == 1
    lines = finding_lines(out)
    whole_run = [line for line in lines if " CG202 " in line]
    # one per file: the `noqa` silences the other, the per-file ignore all of skipped/
    assert [line.split(":")[0] for line in whole_run] == ["a.py", "pkg1-late.py",
                                                          "pkg1/sub/over.py"]
    assert all(":6:" in line for line in whole_run)
    assert lines[-3:] == whole_run  # after every per-file finding
    per_file = lines[:-3]
    assert per_file == sorted(per_file, key=lambda line: line.split(":")[0])
    assert any("skipped/over.py" in line for line in per_file)  # only CG202 is ignored


def outputs(capsys, *args):
    """The bytes out for jobs 1 and 2, cold and warm."""
    found = []
    shutil.rmtree(".cglint_cache", ignore_errors=True)
    for jobs in ("1", "2"):
        found.append(run(capsys, ".", "--no-cache", "--jobs", jobs, *args))
    for jobs in ("2", "1", "2"):  # cold (written by workers), then warm twice
        found.append(run(capsys, ".", "--jobs", jobs, *args))
    return found


@pytest.mark.parametrize("args", [
    [], ["--statistics", "--show-fixes"], ["--format", "json"], ["--format", "sarif"],
    ["--format", "github"], ["--show-source", "--quiet"]])
def test_the_report_is_byte_identical_for_any_jobs_and_cache_state(
        tree, capsys, small_pools, args):
    found = outputs(capsys, *(args + IGNORED))
    assert len(set(found)) == 1, [result[1][-300:] for result in found]
    code, out, _ = found[0]
    assert code == 1 and out.count("CG202") >= 3


def test_cached_runs_count_hits_from_the_workers(tree, capsys, small_pools, recorded_caches):
    made = recorded_caches
    run(capsys, ".", "--jobs", "2")
    run(capsys, ".", "--jobs", "2")
    assert made[0].misses == made[1].hits == FILLERS + 4


@pytest.mark.parametrize("jobs", ["1", "2"])
def test_a_run_keeps_nothing_per_file_but_what_the_whole_run_rules_need(
        tree, capsys, small_pools, monkeypatch, jobs):
    live = []
    real = check.finish

    def finish(results, options_for):
        gc.unfreeze()  # the pool's pause freezes survivors: count them too
        gc.collect()
        objects = gc.get_objects()
        live.append((sum(isinstance(obj, Result) for obj in objects),
                     sum(isinstance(obj, lint_run.Checked) for obj in objects), len(results)))
        return real(results, options_for)

    monkeypatch.setattr(check, "finish", finish)
    assert run(capsys, ".", "--no-cache", "--jobs", jobs)[0] == 1
    for number in range(300):  # many more files with findings, none for the whole run
        (tree / "pkg2" / ("more%03d.py" % number)).write_text("def f%d(:\n" % number)
    code, out, _ = run(capsys, ".", "--no-cache", "--jobs", jobs)
    assert code == 1 and out.count(": CG001 ") == 300
    (results, checked, summarized), (more_results, more_checked, more_summarized) = live
    assert more_summarized == summarized
    # what is alive at the end: the whole-run rules' slim Results, and the last file's
    assert results <= summarized + 2 and more_results <= more_summarized + 2
    assert checked <= 1 and more_checked <= 1


def test_a_dead_worker_leaves_the_rest_to_this_process(monkeypatch):
    monkeypatch.setattr(pool, "CHUNK", 2)
    results = list(pool.imap(_die_in_a_worker, range(40), 2, _remember_parent, (os.getpid(),)))
    assert results == [number * 2 for number in range(40)]


_parent = None


def _remember_parent(parent):
    global _parent
    _parent = parent


def _die_in_a_worker(number):
    if number == 9 and _parent is not None and os.getpid() != _parent:
        os._exit(1)
    return number * 2


def test_when_a_worker_dies_the_run_goes_on_here_fixes_and_cache_included(
        tree, capsys, small_pools, monkeypatch):
    parent = os.getpid()
    real = pool.check_item

    def dies_in_a_worker(item):
        if item[0] == os.path.join("pkg1", "m13.py") and os.getpid() != parent:
            os._exit(1)
        return real(item)

    monkeypatch.setattr(pool, "check_item", dies_in_a_worker)
    copy = copy_of(tree, "alone")
    monkeypatch.chdir(copy)
    alone = run(capsys, ".", "--jobs", "1", "--fix")
    monkeypatch.chdir(tree)
    assert run(capsys, ".", "--jobs", "2", "--fix") == alone
    assert snapshot(tree) == snapshot(copy)
    assert "x = tf.log(2.0)" in snapshot(tree)["a.py"]


def copy_of(tree, name):
    copy = tree.parent / name
    shutil.copytree(tree, copy)
    return copy


def snapshot(top):
    return {str(path.relative_to(top)): path.read_text() for path in sorted(top.rglob("*.py"))}


@pytest.mark.parametrize("args", [["--fix"], ["--fix", "--show-fixes"], ["--diff"],
                                  ["--add-noqa"], ["--fix", "--unsafe-fixes"]])
def test_changing_consumers_do_the_same_for_any_jobs(tree, capsys, small_pools, monkeypatch,
                                                     args):
    done = []
    for jobs in ("1", "2"):
        copy = copy_of(tree, "copy%s" % jobs)
        monkeypatch.chdir(copy)
        done.append((run(capsys, ".", "--no-cache", "--jobs", jobs, *args), snapshot(copy)))
    assert done[0] == done[1]
    (code, out, err), after = done[0]
    if "--diff" in args:
        assert after == snapshot(tree) and "+x = tf.log(2.0)" in out
    elif "--add-noqa" in args:
        assert code == 0 and "Added noqa directives" in err
        # the whole-run findings were given their noqa too: nothing is left
        assert run(capsys, ".", "--no-cache")[0] == 0
    else:
        assert "x = tf.log(2.0)" in after["a.py"]
        assert out.count("CG202") >= 4  # whole-run findings are reported after the fixes
