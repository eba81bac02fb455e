"""`cglint confirm [PATHS]`: run fixtures under TF 1.8 and check their `# run:` headers.

Exit 0 when every run matches its header, 1 on any mismatch or error, 2 on a usage
error, when no TF 1.8 interpreter can be had or when no sandbox can be made (unless
--unsafe-no-sandbox); 130 on Ctrl-C and 143 on SIGTERM, after stopping every fixture.
"""
import argparse
import json
import os
import signal
import sys
import time
from dataclasses import dataclass

from cglint.interrupts import Terminated
from cglint.oracle import envs, sandbox
from cglint.oracle.headers import INTERPRETERS, PROJECT_ENTRY, HeaderError, Outcome, read_header
from cglint.oracle.runner import (MAX_TIMEOUT, Job, Result, run_fixtures, timeout_seconds,
                                  whole_number)

OUTPUT_LINES = 12  # of a mismatching program's output, shown under its line


class UsageError(Exception):
    pass


def _terminate(signum, frame):
    """SIGTERM, raised in the main thread so that the runner stops its servers on the way out."""
    raise Terminated()


@dataclass
class Record:
    """One fixture on one interpreter (or a fixture whose header cannot be read)."""

    path: str
    interpreter: str = ""
    mode: str = "graph"
    expected: Outcome = None
    result: Result = None
    error: str = ""  # a bad header, or no interpreter to run it

    @property
    def status(self):
        if self.error:
            return "error"
        result = self.result
        matched = result.outcome is not None and self.expected.matches(result.outcome, result.message)
        return "confirmed" if matched else "mismatch"

    def to_json(self):
        record = {"path": self.path, "interpreter": self.interpreter, "mode": self.mode,
                  "status": self.status, "expected": str(self.expected) if self.expected else None}
        if self.error:
            record["error"] = self.error
        if self.result:
            result = self.result
            record.update(observed=result.describe(), outcome=result.outcome, message=result.message,
                          failure=result.failure, seconds=result.seconds)
            if self.status != "confirmed":
                record["output"] = result.output
        return record


def collect(paths):
    """Fixture files under `paths` (files as given, folders searched for *.py), in order."""
    found = []
    for path in paths:
        if os.path.isfile(path):
            found.append(path)
        elif os.path.isdir(path):
            for root, dirs, files in os.walk(path):
                if PROJECT_ENTRY in files:  # a project fixture: run its entry script only
                    dirs[:] = []
                    found.append(os.path.join(root, PROJECT_ENTRY))
                    continue
                dirs[:] = sorted(d for d in dirs if not d.startswith((".", "__pycache__")))
                found += [os.path.join(root, name) for name in sorted(files)
                          if name.endswith(".py") and not name.startswith("README")]
        else:
            raise UsageError("no such file or folder: %s" % path)
    unique, seen = [], set()
    for path in found:
        if os.path.realpath(path) not in seen:
            seen.add(os.path.realpath(path))
            unique.append(path)
    return unique


def plan(files, selected=INTERPRETERS):
    """A record per fixture and selected interpreter of its header; one with an error for a bad header."""
    records = []
    for path in files:
        try:
            header = read_header(path)
        except (HeaderError, OSError) as exc:
            records.append(Record(path, error="bad header: %s" % exc))
            continue
        for name, outcome in sorted(header.runs.items()):
            if name in selected:
                records.append(Record(path, name, header.mode, outcome))
    return records


def check(records, interpreters, workers=2, timeout=60.0, sandboxed=True):
    """Run planned records on `interpreters` ({name: python}), filling in each result or error."""
    for record in records:
        if not record.error and record.interpreter not in interpreters:
            record.error = "no %s interpreter" % record.interpreter
    runnable = [record for record in records if not record.error]
    jobs = [Job(record.path, record.interpreter, record.mode) for record in runnable]
    for record, result in zip(runnable, run_fixtures(jobs, interpreters, workers, timeout, sandboxed)):
        record.result = result
    return records


def confirm_paths(paths, interpreters, selected=INTERPRETERS, workers=2, timeout=60.0):
    """Records for every fixture under `paths`, header errors included; for tests and tools."""
    return check(plan(collect(paths), selected), interpreters, workers, timeout)


def format_text(record):
    where = "%s [%s]" % (record.path, record.interpreter) if record.interpreter else record.path
    if record.status == "confirmed":
        return "confirmed  %s %s" % (where, record.expected)
    if record.status == "error":
        return "ERROR      %s: %s" % (where, record.error)
    lines = ["MISMATCH   %s expected %s, got %s" % (where, record.expected, record.result.describe())]
    output = record.result.output.rstrip().splitlines()[-OUTPUT_LINES:]
    lines += ["    | " + line for line in output]
    return "\n".join(lines)


def parser():
    p = argparse.ArgumentParser(prog="cglint confirm", description=(
        "Run fixtures under real TensorFlow 1.8 and check that each fails (or works) "
        "exactly as its `# run:` header says."))
    p.add_argument("paths", nargs="*", metavar="PATH", help="fixture files or folders (default: fixtures)")
    p.add_argument("--setup", action="store_true", help="only build or check the TF 1.8 interpreters")
    p.add_argument("--tf-python", action="append", default=[], metavar="PATH",
                   help="use this TF 1.8 interpreter (repeatable; env CGLINT_TF_PYTHON)")
    p.add_argument("--cache-dir", help="where built interpreters live (env CGLINT_CACHE_DIR, default ~/.cache/cglint)")
    p.add_argument("--jobs", type=whole_number(1), default=os.cpu_count() or 2, help="fixtures run at once")
    p.add_argument("--timeout", type=timeout_seconds, default=60.0,
                   help="seconds per fixture (default 60, at most %d: a day)" % MAX_TIMEOUT)
    p.add_argument("--format", choices=("text", "json"), default="text")
    p.add_argument("--interpreter", action="append", choices=INTERPRETERS,
                   help="run only on this interpreter (repeatable)")
    p.add_argument("--unsafe-no-sandbox", action="store_true",
                   help="run fixtures with resource limits only, where the sandbox cannot be "
                        "made: only for fixtures you trust")
    return p


def main(argv=None):
    try:
        args = parser().parse_args(argv)
    except SystemExit as exc:  # argparse: --help is 0, a usage error 2
        return exc.code
    previous = signal.signal(signal.SIGTERM, _terminate) if _main_thread() else None
    try:
        return run(args)
    except KeyboardInterrupt:
        sys.stderr.write("cglint confirm: interrupted\n")
        return 130
    except Terminated:
        sys.stderr.write("cglint confirm: terminated\n")
        return 143
    finally:
        if previous is not None:
            signal.signal(signal.SIGTERM, previous)


def _main_thread():
    import threading
    return threading.current_thread() is threading.main_thread()


def run(args):
    selected = tuple(args.interpreter or INTERPRETERS)
    tf_pythons = args.tf_python or envs.tf_pythons_from_env()
    if args.setup:
        return setup(selected, tf_pythons, args.cache_dir)
    started = time.time()
    try:
        records = plan(collect(args.paths or ["fixtures"]), selected)
    except UsageError as exc:
        sys.stderr.write("cglint confirm: %s\n" % exc)
        return 2
    if not records:
        sys.stderr.write("cglint confirm: no fixtures to run in %s\n" % " ".join(args.paths or ["fixtures"]))
        return 2
    needed = sorted({record.interpreter for record in records if not record.error})
    if needed and not args.unsafe_no_sandbox:
        why = sandbox.unavailable()
        if why:
            sys.stderr.write("cglint confirm: no sandbox for the fixtures: %s\n"
                             "cglint confirm: refusing to run them; --unsafe-no-sandbox runs "
                             "them with resource limits only\n" % why)
            return 2
    interpreters, errors = envs.find_interpreters(needed, tf_pythons, args.cache_dir)
    for what, error in sorted(errors.items()):
        sys.stderr.write("cglint confirm: %s: %s\n" % (what, error))
    if needed and not interpreters:
        return 2
    check(records, interpreters, args.jobs, args.timeout, sandboxed=not args.unsafe_no_sandbox)
    confirmed = sum(record.status == "confirmed" for record in records)
    seconds = time.time() - started
    if args.format == "json":
        summary = {"confirmed": confirmed, "total": len(records), "seconds": round(seconds, 2),
                   "mismatch": sum(record.status == "mismatch" for record in records),
                   "error": sum(record.status == "error" for record in records)}
        json.dump({"records": [record.to_json() for record in records], "summary": summary},
                  sys.stdout, indent=2)
        sys.stdout.write("\n")
    else:
        for record in records:
            print(format_text(record))
        print("confirmed %d/%d" % (confirmed, len(records)))
        sys.stderr.write("cglint confirm: %d runs in %.1f s\n" % (len(records), seconds))
    return 0 if confirmed == len(records) else 1


def setup(selected, tf_pythons, cache_dir):
    interpreters, errors = envs.find_interpreters(selected, tf_pythons, cache_dir)
    for name, python in sorted(interpreters.items()):
        print("%s  %s" % (name, python))
    for what, error in sorted(errors.items()):
        sys.stderr.write("cglint confirm: cannot set up %s: %s\n" % (what, error))
    why = sandbox.unavailable()
    if why:
        errors["sandbox"] = why
        sys.stderr.write("cglint confirm: cannot set up the sandbox: %s\n" % why)
    else:
        print("sandbox  %s" % sandbox.bwrap_path())
        if not sandbox.process_cap_available():
            sys.stderr.write("cglint confirm: no writable pids cgroup here: fixtures run without "
                             "a process-count cap\n")
    return 2 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
