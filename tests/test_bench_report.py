"""bench/run's and bench/lsp_latency.py's pure helpers: ratios, verdicts, tables, the LSP
test file and its edits. (The timings themselves are bench/'s job, not the tests'.)"""
import ast
import importlib.machinery
import importlib.util
import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "bench"))
import lsp_latency  # noqa: E402


def load_bench_run():
    loader = importlib.machinery.SourceFileLoader("bench_run", os.path.join(ROOT, "bench", "run"))
    spec = importlib.util.spec_from_loader("bench_run", loader)
    module = importlib.util.module_from_spec(spec)
    loader.exec_module(module)
    return module


bench = load_bench_run()


def test_paired_ratios_pair_the_runs_of_each_round():
    cglint = [{"cpu": 3.0}, {"cpu": 4.0}, {"cpu": 9.0}]
    floor = [{"cpu": 2.0}, {"cpu": 0.0}, {"cpu": 6.0}]
    assert bench.paired_ratios(cglint, floor) == [1.5, 1.5]  # a zero base is left out
    assert bench.paired_ratios(cglint[:1], floor) == [1.5]  # only rounds both have


def test_goal_verdict():
    assert bench.goal_verdict(1.5, 1.5) == "meets"
    assert bench.goal_verdict(1.51, 1.5) == "misses"
    assert bench.goal_verdict(None, 1.5) == "–"
    assert bench.goal_verdict(float("nan"), 1.5) == "–"


def test_jobs_command_replaces_the_job_count_only():
    cold = ["python", "-m", "cglint", "--jobs", "1", "--no-cache", "{paths}"]
    assert bench.jobs_command(cold, 4) == ["python", "-m", "cglint", "--jobs", "4",
                                           "--no-cache", "{paths}"]
    assert cold[4] == "1"


def jobs_row(jobs, wall, sha="aaaa", rc=0):
    return {"jobs": jobs, "runs": 2, "wall": wall, "wall_min": wall * 0.9, "cpu": 10.0,
            "cpu_min": 9.0, "rss_mib": 80.0, "rcs": [rc], "stdout_shas": [sha]}


def test_jobs_markdown_speed_up_and_identity():
    text = "\n".join(bench.jobs_markdown({"multiple": 8, "files": 800, "cores": 2, "rows": [
        jobs_row(1, 10.0), jobs_row(2, 5.0), jobs_row(4, 4.0)]}))
    assert "| 2 | 2 | 5.00 | 4.50 | 10.0 | 9.00 | 80 | 2.00× (2.00×) |" in text
    assert "| 4 | 2 | 4.00 | 3.60 | 10.0 | 9.00 | 80 | 2.50× (2.50×) |" in text
    assert "byte-identical across `--jobs 1, 2, 4` (6 runs" in text
    text = "\n".join(bench.jobs_markdown({"multiple": 8, "files": 800, "cores": 2, "rows": [
        jobs_row(1, 10.0), jobs_row(2, 5.0, sha="bbbb", rc=2)]}))
    assert "**DIFFERENT**" in text and "--jobs 2 → bbbb" in text
    assert "status 2 with `--jobs` 2" in text
    assert bench.jobs_markdown({}) == []
    assert "Not measured: no jobs" in "\n".join(bench.jobs_markdown({"error": "no jobs"}))


def test_summarize_in_milliseconds_with_the_debounce_subtracted():
    samples = [0.3 + n / 1000.0 for n in range(1, 11)]  # 301 ... 310 ms
    raw = lsp_latency.summarize(samples)
    assert raw["n"] == 10 and round(raw["median"], 6) == 305.5
    assert round(raw["p90"], 6) == 309 and round(raw["max"], 6) == 310
    after = lsp_latency.summarize(samples, 0.3)
    assert round(after["median"], 6) == 5.5 and round(after["max"], 6) == 10
    assert lsp_latency.summarize([]) == {"n": 0, "median": None, "p90": None, "max": None}


def test_the_test_file_is_2000_lines_of_python_and_always_the_same():
    text = lsp_latency.build_text()
    assert len(text.splitlines()) == lsp_latency.LINES
    ast.parse(text)
    assert "custom_gradient" in text
    assert lsp_latency.build_text() == text


def apply(text, change):
    lines = text.splitlines(True)

    def offset(position):
        return sum(len(line) for line in lines[:position["line"]]) + position["character"]

    where = change["range"]
    return text[:offset(where["start"])] + change["text"] + text[offset(where["end"]):]


def test_the_edits_type_into_a_comment_and_add_then_remove_a_finding():
    text = lsp_latency.build_text()
    typed = lsp_latency.typing_line(text)
    assert text.splitlines()[typed].lstrip().startswith("#")
    changes = list(lsp_latency.edits(text, 8))
    assert [kind for kind, _ in changes] == ["typing"] * 3 + ["findings"] + \
        ["typing"] * 3 + ["findings"]
    edited = text
    for number, (kind, change) in enumerate(changes):
        edited = apply(edited, change)
        if number == 3:  # the finding's line added at the end
            assert edited.endswith(lsp_latency.FINDING_LINE)
    lines = text.splitlines(True)
    lines[typed] = lines[typed].rstrip("\n") + "x" * 6 + "\n"
    assert edited == "".join(lines)  # and removed again


def test_format_table_shows_every_case_and_the_cpu_rows():
    stats = lsp_latency.summarize([0.35, 0.4])
    case = {"open": stats, "edit": {"raw": stats, "after_debounce": stats},
            "kinds": {"typing": {"raw": stats, "after_debounce": stats},
                      "findings": {"raw": stats, "after_debounce": stats}},
            "edit_cpu": lsp_latency.summarize([0.05]),
            "open_cpu": lsp_latency.summarize([])}
    table = lsp_latency.format_table({"cases": {"alone": case, "project": case}})
    assert table.count("| 2,000 lines, alone |") == 5  # no row for a summary without samples
    assert "| 2,000 lines, in a project | edit: CPU used (server + workers) | 1 | 50 |" in table
