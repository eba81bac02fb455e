#!/usr/bin/env python3
"""How long `cglint lsp` takes to show diagnostics: on open and after an edit.

    python3 bench/lsp_latency.py                       # the cglint importable from here
    python3 bench/lsp_latency.py --python VENV/bin/python --json out.json

It starts the language server over stdio (`PYTHON -m cglint lsp`, as an editor does),
initializes it, opens a 2,000-line TensorFlow 1.8 file with custom gradients, and times
  - open: textDocument/didOpen sent -> its publishDiagnostics received (a fresh server:
    the first check of its worker);
  - edit: textDocument/didChange sent -> the publishDiagnostics of that version, for
    typing-like edits (one character added to a comment line) and edits that change the
    findings (a line using tf.print, which TF 1.8 lacks, added, then removed).
An edit is checked after the server's debounce (read from cglint.integrations.lsp); the
goal (issue 20) is diagnostics within 100 ms after it, so every latency is also shown
with the debounce subtracted.

Two cases, each in a fresh server per round:
  - alone: the file in a folder of its own;
  - project: the same file in a project folder on disk, beside the project packages its
    imports name (their custom gradients and gradient registrations, from the bundled
    fixtures), a module that imports it, and a copy of a real source tree (`--tree`,
    default: the bundled fixtures) as the rest of the project: a file's project facts
    (cglint/project.py) are computed on its first check.

The file is built, deterministically, from the bundled fixtures (fixtures/**/*.py, sorted;
each kept whole when it parses, its `from __future__` imports moved to the top) until
2,000 lines. Standard library only.
"""
import argparse
import ast
import json
import os
import queue
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
FIXTURES = os.path.join(REPO, "fixtures")
LINES = 2000
MODULE = "network"  # the file's module name in the project (no fixture has it)
TIMEOUT = 120  # seconds to wait for any one answer: a check that never comes is an error
FUTURE = "from __future__ import absolute_import, division, print_function\n"
# Added and removed by the edits that change findings (CG401: no tf.print in TF 1.8).
FINDING_LINE = "tf.print(\"latency probe\")\n"


# ------------------------------------------------------------------------- the test file

def fixture_files(root=FIXTURES):
    for folder, dirs, names in os.walk(root):
        dirs.sort()
        for name in sorted(names):
            if name.endswith(".py"):
                yield os.path.join(folder, name)


def fixture_project_dirs(root=FIXTURES):
    """Fixtures that are projects (a main.py beside other modules): their folders, sorted,
    each ending with a separator."""
    found = []
    for folder, dirs, names in os.walk(root):
        dirs.sort()
        if "main.py" in names and (dirs or len([n for n in names if n.endswith(".py")]) > 1):
            found.append(os.path.join(folder, ""))
    return sorted(found)


def build_text(lines=LINES, root=FIXTURES):
    """A `lines`-line Python 3 text made of whole fixture files (top-level statements of
    the last one), deterministic for a given fixtures folder."""
    body, total = [], 1  # line 1: the __future__ import
    projects = tuple(fixture_project_dirs(root))
    for path in fixture_files(root):
        if path.startswith(projects) and os.path.basename(path) != "main.py":
            continue  # a project fixture's modules: the project folder has them
        with open(path, encoding="utf-8") as stream:
            text = stream.read()
        kept = "".join(line for line in text.splitlines(True)
                       if not line.startswith("from __future__ import"))
        if not kept.endswith("\n"):
            kept += "\n"
        try:
            ast.parse(FUTURE + kept)
        except SyntaxError:
            continue  # Python 2-only fixtures, syntax-error fixtures
        piece = ["# ---- %s\n" % os.path.relpath(path, root)] + kept.splitlines(True)
        if total + len(piece) > lines:
            piece = _statements_within(piece, lines - total)
        body += piece
        total += len(piece)
        if total >= lines:
            break
    body += ["\n"] * (lines - total)  # fixtures shorter than `lines` in all: pad
    text = FUTURE + "".join(body)
    ast.parse(text)
    return text


def _statements_within(piece, room):
    """The leading lines of `piece` ending at a top-level statement, at most `room`."""
    tree = ast.parse(FUTURE + "".join(piece[1:]))
    end = 1  # the "# ----" line
    for node in tree.body:
        last = node.end_lineno  # counted with FUTURE as line 1: piece[1:] starts at line 2
        if last <= room:
            end = last
    return piece[:end] + ["\n"] * (room - end)


def build_project(folder, text, tree=None):
    """A project on disk around `text` (saved as MODULE.py): the fixture projects' modules
    (of a path in several, the first), a train.py that imports it, and `tree` copied in."""
    os.makedirs(folder)
    merged = {}
    for project in fixture_project_dirs():
        for sub, _, names in os.walk(project):
            for name in sorted(names):
                path = os.path.join(sub, name)
                relative = os.path.relpath(path, project)
                if name.endswith(".py") and relative != "main.py":
                    with open(path, encoding="utf-8") as stream:
                        # The first fixture's: a second def of a function would make it
                        # ambiguous, and then no importer is judged by it.
                        merged.setdefault(relative, stream.read())
    for relative, content in sorted(merged.items()):
        target = os.path.join(folder, relative)
        os.makedirs(os.path.dirname(target), exist_ok=True)
        with open(target, "w", encoding="utf-8") as stream:
            stream.write(content)
    with open(os.path.join(folder, MODULE + ".py"), "w", encoding="utf-8") as stream:
        stream.write(text)
    with open(os.path.join(folder, "train.py"), "w", encoding="utf-8") as stream:
        stream.write("import tensorflow as tf\n\nimport %s\n\n%s.total\n" % (MODULE, MODULE))
    tree = tree or FIXTURES
    shutil.copytree(tree, os.path.join(folder, "vendored_" + os.path.basename(
        os.path.normpath(tree)).replace("-", "_").replace(".", "_")),
        ignore=shutil.ignore_patterns("*.pyc", "__pycache__", ".cglint_cache"))
    return os.path.join(folder, MODULE + ".py")


# ------------------------------------------------------------------------- the client

def read_messages(stream, put):
    """put() each JSON-RPC message of an LSP stream (Content-Length framing), then None
    when the stream ends. tests/test_lsp.py's client reads with it too."""
    while True:
        length = None
        while True:
            header = stream.readline()
            if not header:
                put(None)
                return
            if header in (b"\r\n", b"\n"):
                break
            name, _, value = header.decode("ascii").partition(":")
            if name.lower() == "content-length":
                length = int(value)
        put(json.loads(stream.read(length)))


def framed(body):
    """An LSP message of a JSON body (bytes)."""
    return b"Content-Length: %d\r\n\r\n" % len(body) + body


class Server:
    """`PYTHON -m cglint lsp` spoken to over stdio, with every message it sends timed on
    arrival."""

    def __init__(self, python, cwd, env=None):
        self.process = subprocess.Popen(
            [python, "-m", "cglint", "lsp"], cwd=cwd, env=env,
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        self.messages = queue.Queue()
        self.log = []
        self.next_id = 0
        threading.Thread(target=self._read, daemon=True).start()
        threading.Thread(target=lambda: self.log.extend(self.process.stderr),
                         daemon=True).start()

    def _read(self):
        read_messages(self.process.stdout,
                      lambda message: self.messages.put((time.perf_counter(), message)))

    def send(self, message):
        body = json.dumps(dict(message, jsonrpc="2.0")).encode()
        sent = time.perf_counter()
        self.process.stdin.write(framed(body))
        self.process.stdin.flush()
        return sent

    def notify(self, method, params):
        return self.send({"method": method, "params": params})

    def request(self, method, params):
        self.next_id += 1
        self.send({"id": self.next_id, "method": method, "params": params})
        return self.wait(lambda m: m.get("id") == self.next_id and "method" not in m)[1]

    def wait(self, matches):
        deadline = time.monotonic() + TIMEOUT
        while True:
            try:
                arrived, message = self.messages.get(
                    timeout=max(0.0, deadline - time.monotonic()))
            except queue.Empty:
                message = False
            if message is None or message is False:
                raise RuntimeError("no answer from the server (%s); its log:\n%s" % (
                    "it ended" if message is None else "timed out",
                    b"".join(self.log).decode(errors="replace")[-3000:]))
            if matches(message):
                return arrived, message

    def diagnostics(self, uri, version):
        """(arrival time, diagnostics) of the publishDiagnostics for `version`."""
        arrived, message = self.wait(
            lambda m: m.get("method") == "textDocument/publishDiagnostics"
            and m["params"]["uri"] == uri and m["params"].get("version") == version)
        return arrived, message["params"]["diagnostics"]

    def initialize(self, root):
        self.request("initialize", {"processId": os.getpid(), "rootUri": _uri(root),
                                    "capabilities": {}})
        self.notify("initialized", {})

    def close(self):
        try:
            self.request("shutdown", None)
            self.notify("exit", None)
            self.process.wait(timeout=10)
        except (RuntimeError, OSError, subprocess.TimeoutExpired):
            self.process.kill()
            self.process.wait()
        for stream in (self.process.stdin, self.process.stdout, self.process.stderr):
            try:
                stream.close()
            except OSError:
                pass


def process_tree(pid):
    """`pid` and its child processes (Linux /proc; [pid] elsewhere)."""
    found = [pid]
    try:
        entries = os.listdir("/proc")
    except OSError:
        return found
    for entry in entries:
        if entry.isdigit():
            try:
                with open("/proc/%s/stat" % entry) as stream:
                    fields = stream.read().rsplit(")", 1)[1].split()
            except (OSError, IndexError):
                continue
            if int(fields[1]) == pid:
                found.append(int(entry))
    return found


def cpu_and_wait(pids):
    """(seconds on a CPU, seconds runnable but waiting for one) of every thread of `pids`,
    from /proc/PID/task/TID/schedstat; None where that is not available."""
    on_cpu = waiting = 0
    for pid in pids:
        try:
            tasks = os.listdir("/proc/%d/task" % pid)
        except OSError:
            continue  # ended: its time is lost from both snapshots alike
        for task in tasks:
            try:
                with open("/proc/%d/task/%s/schedstat" % (pid, task)) as stream:
                    ran, waited = stream.read().split()[:2]
            except (OSError, ValueError):
                continue
            on_cpu += int(ran)
            waiting += int(waited)
    if not os.path.isdir("/proc/%d" % pids[0]):
        return None
    return on_cpu / 1e9, waiting / 1e9


def _uri(path):
    from pathlib import Path
    return Path(path).absolute().as_uri()


# ------------------------------------------------------------------------- the edits

def typing_line(text):
    """The comment line nearest the middle of `text` (0-based): typed into by the edits."""
    lines = text.splitlines()
    middle = len(lines) // 2
    comments = [n for n, line in enumerate(lines) if line.lstrip().startswith("#")]
    return min(comments, key=lambda n: (abs(n - middle), n))


def edits(text, count):
    """`count` incremental LSP content changes, in order: (kind, change); every fourth
    changes the findings (the tf.print line added at the end, then removed again)."""
    lines = text.splitlines(True)
    typed = typing_line(text)
    column = len(lines[typed].rstrip("\r\n"))
    end = len(lines)
    added = False
    for n in range(count):
        if n % 4 == 3:
            if added:
                change = {"range": _range(end, 0, end + 1, 0), "text": ""}
            else:
                change = {"range": _range(end, 0, end, 0), "text": FINDING_LINE}
            added = not added
            yield "findings", change
        else:
            yield "typing", {"range": _range(typed, column, typed, column), "text": "x"}
            column += 1


def _range(line, character, end_line, end_character):
    return {"start": {"line": line, "character": character},
            "end": {"line": end_line, "character": end_character}}


# ------------------------------------------------------------------------- the measurement

def measure(python, path, text, edit_count, env=None):
    """{"open": seconds, "edits": [(kind, seconds, findings)], "open_findings": n} of one
    fresh server with `path` open."""
    folder = os.path.dirname(path)
    server = Server(python, folder, env)
    try:
        server.initialize(folder)
        uri = _uri(path)
        pids = process_tree(server.process.pid)  # the server and its workers
        before = cpu_and_wait(pids)
        sent = server.notify("textDocument/didOpen", {"textDocument": {
            "uri": uri, "languageId": "python", "version": 1, "text": text}})
        arrived, found = server.diagnostics(uri, 1)
        after = cpu_and_wait(pids)
        result = {"open": arrived - sent, "open_findings": len(found), "edits": [],
                  "edit_cpu": [], "edit_wait": []}
        if before and after:
            result["open_cpu"], result["open_wait"] = (after[0] - before[0],
                                                       after[1] - before[1])
        for version, (kind, change) in enumerate(edits(text, edit_count), start=2):
            before = cpu_and_wait(pids)
            sent = server.notify("textDocument/didChange", {
                "textDocument": {"uri": uri, "version": version},
                "contentChanges": [change]})
            arrived, found = server.diagnostics(uri, version)
            after = cpu_and_wait(pids)
            result["edits"].append((kind, arrived - sent, len(found)))
            if before and after:
                result["edit_cpu"].append(after[0] - before[0])
                result["edit_wait"].append(after[1] - before[1])
        return result
    finally:
        server.close()


def debounce(python, env=None):
    """The server's debounce in seconds, read from the cglint under test."""
    out = subprocess.run([python, "-c", "from cglint.integrations import lsp; "
                          "print(lsp.DEBOUNCE)"], env=env, capture_output=True, text=True,
                         check=True).stdout
    return float(out)


def summarize(samples, subtract=0.0):
    """{"n", "median", "p90", "max"} in milliseconds, after subtracting `subtract` s."""
    values = sorted((value - subtract) * 1000 for value in samples)
    if not values:
        return {"n": 0, "median": None, "p90": None, "max": None}
    p90 = values[min(len(values) - 1, int(0.9 * len(values) + 0.5) - 1)] if len(values) > 1 \
        else values[0]
    return {"n": len(values), "median": statistics.median(values), "p90": p90,
            "max": values[-1]}


def run(python, rounds, edit_count, tree=None, workdir=None, env=None, say=print):
    text = build_text()
    wait = debounce(python, env)
    own = workdir is None
    workdir = workdir or tempfile.mkdtemp(prefix="cglint-lsp-latency-")
    try:
        alone = os.path.join(workdir, "alone", MODULE + ".py")
        os.makedirs(os.path.dirname(alone))
        with open(alone, "w", encoding="utf-8") as stream:
            stream.write(text)
        in_project = build_project(os.path.join(workdir, "project"), text, tree)
        project_files = sum(name.endswith(".py") for _, _, names in
                            os.walk(os.path.dirname(in_project)) for name in names)
        raw = {"alone": [], "project": []}
        for round_ in range(rounds):  # interleaved: load from elsewhere hits both alike
            for case, path in (("alone", alone), ("project", in_project)):
                raw[case].append(measure(python, path, text, edit_count, env))
                say("  round %d/%d, %s: open %.0f ms, edits median %.0f ms" % (
                    round_ + 1, rounds, case, raw[case][-1]["open"] * 1000,
                    statistics.median(e[1] for e in raw[case][-1]["edits"]) * 1000
                    if edit_count else 0))
    finally:
        if own:
            shutil.rmtree(workdir, ignore_errors=True)
    return report(raw, wait, text, project_files, rounds, edit_count)


def report(raw, wait, text, project_files, rounds, edit_count):
    cases = {}
    for case, runs in raw.items():
        opens = [r["open"] for r in runs]
        all_edits = [e for r in runs for e in r["edits"]]
        kinds = {}
        for kind in ("typing", "findings"):
            samples = [e[1] for e in all_edits if e[0] == kind]
            kinds[kind] = {"raw": summarize(samples), "after_debounce": summarize(samples, wait)}
        findings = sorted({e[2] for e in all_edits if e[0] == "findings"}
                          | {r["open_findings"] for r in runs})
        open_cpu = [r["open_cpu"] for r in runs if "open_cpu" in r]
        open_wait = [r["open_wait"] for r in runs if "open_wait" in r]
        cpu = [x for r in runs for x in r.get("edit_cpu", ())]
        wait_for_core = [x for r in runs for x in r.get("edit_wait", ())]
        cases[case] = {
            "open": summarize(opens),
            "open_cpu": summarize(open_cpu),
            "open_wait_for_core": summarize(open_wait),
            # CPU the server and its workers used per edit, and the time they were ready to
            # run but waited for a core: on an idle machine the latency after the debounce
            # is about the CPU; under load the wait is added.
            "edit_cpu": summarize(cpu),
            "edit_wait_for_core": summarize(wait_for_core),
            "edit": {"raw": summarize([e[1] for e in all_edits]),
                     "after_debounce": summarize([e[1] for e in all_edits], wait)},
            "kinds": kinds,
            "findings_seen": findings,
            "samples": {"open": opens, "open_cpu": open_cpu, "open_wait_for_core": open_wait,
                        "edits": all_edits, "edit_cpu": cpu,
                        "edit_wait_for_core": wait_for_core},
        }
    return {"lines": len(text.splitlines()), "bytes": len(text.encode()),
            "debounce": wait, "rounds": rounds, "edits_per_round": edit_count,
            "project_files": project_files, "goal_ms_after_debounce": 100, "cases": cases}


def format_table(result):
    """Markdown table of a report (what bench/run puts in results.md too)."""
    rows = ["| file | what | n | median (ms) | p90 (ms) | max (ms) | median − debounce (ms) "
            "| p90 − debounce (ms) | max − debounce (ms) |",
            "|---|---|--:|--:|--:|--:|--:|--:|--:|"]
    labels = {"alone": "2,000 lines, alone", "project": "2,000 lines, in a project"}

    def cell(value):
        return "–" if value is None else "%.0f" % value

    for case, data in result["cases"].items():
        label = labels.get(case, case)
        o = data["open"]
        rows.append("| %s | open (fresh server) | %d | %s | %s | %s | – | – | – |" % (
            label, o["n"], cell(o["median"]), cell(o["p90"]), cell(o["max"])))
        for name, stats in (("edit, all", data["edit"]),
                            ("edit, typing", data["kinds"]["typing"]),
                            ("edit, findings change", data["kinds"]["findings"])):
            r, a = stats["raw"], stats["after_debounce"]
            rows.append("| %s | %s | %d | %s | %s | %s | %s | %s | %s |" % (
                label, name, r["n"], cell(r["median"]), cell(r["p90"]), cell(r["max"]),
                cell(a["median"]), cell(a["p90"]), cell(a["max"])))
        for name, key in (("open: CPU used (server + workers)", "open_cpu"),
                          ("open: waiting for a core", "open_wait_for_core"),
                          ("edit: CPU used (server + workers)", "edit_cpu"),
                          ("edit: waiting for a core", "edit_wait_for_core")):
            c = data.get(key)
            if c and c["n"]:
                rows.append("| %s | %s | %d | %s | %s | %s | – | – | – |" % (
                    label, name, c["n"], cell(c["median"]), cell(c["p90"]), cell(c["max"])))
    return "\n".join(rows)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--python", default=sys.executable,
                        help="the interpreter whose cglint is measured (default: this one)")
    parser.add_argument("--rounds", type=int, default=3,
                        help="fresh servers per case (each: one open, then the edits)")
    parser.add_argument("--edits", type=int, default=20, help="edits per round")
    parser.add_argument("--cglint-root", metavar="DIR",
                        help="import cglint from DIR (a checkout; default: this checkout when "
                        "--python is this interpreter, else the interpreter's own)")
    parser.add_argument("--tree", help="a source tree copied into the project (default: "
                        "the bundled fixtures)")
    parser.add_argument("--workdir", help="build the files here (kept) instead of a "
                        "temporary folder")
    parser.add_argument("--json", help="write the full report (every sample) here")
    parser.add_argument("--write-file", metavar="PATH",
                        help="only write the 2,000-line file to PATH and exit")
    args = parser.parse_args(argv)
    if args.write_file:
        with open(args.write_file, "w", encoding="utf-8") as stream:
            stream.write(build_text())
        return 0
    env = dict(os.environ)
    root = args.cglint_root
    if root is None and os.path.abspath(args.python) == os.path.abspath(sys.executable):
        root = REPO  # this checkout's cglint, as the tests run it
    if root:
        env["PYTHONPATH"] = os.pathsep.join(filter(None, (os.path.abspath(root),
                                                          env.get("PYTHONPATH"))))
    result = run(args.python, args.rounds, args.edits, args.tree, args.workdir, env)
    print("%d-line file (%d bytes); debounce %.0f ms; project: %d Python files" % (
        result["lines"], result["bytes"], result["debounce"] * 1000, result["project_files"]))
    print(format_table(result))
    if args.json:
        with open(args.json, "w") as stream:
            json.dump(result, stream, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
