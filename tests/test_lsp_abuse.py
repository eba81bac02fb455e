"""`cglint lsp` under abuse: broken framing and messages, huge documents, bursts of edits,
clients that vanish, and a thousand edits without memory growth. The server is the real
process, spoken to over stdio as in tests/test_lsp.py."""
import json
import os
import signal
import subprocess
import sys
import time

import pytest

pytest.importorskip("pygls", reason="the language server needs pygls (pip install -e .)")

from test_lsp import BAD, GOOD, ROOT, TIMEOUT, Client, initialize, open_document  # noqa: E402


@pytest.fixture
def client(tmp_path):
    started = Client(tmp_path)
    initialize(started, tmp_path)
    yield started
    started.close()


def responsive(client, folder, tag):
    """The server still answers: a fresh document gets its diagnostics."""
    path = folder / ("probe_%s.py" % tag)
    open_document(client, path, BAD)
    assert [d["code"] for d in client.diagnostics(path.as_uri(), 1)] == ["CG103"], tag
    assert client.process.poll() is None, tag


def rss(pid):
    with open("/proc/%d/status" % pid) as handle:
        for line in handle:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) * 1024
    raise AssertionError("no VmRSS")


def change(client, uri, version, text):
    client.notify("textDocument/didChange", {
        "textDocument": {"uri": uri, "version": version}, "contentChanges": [{"text": text}]})


def shut_down(client):
    assert client.request("shutdown", None)["result"] is None
    client.notify("exit", None)
    assert client.process.wait(timeout=TIMEOUT) == 0


# ------------------------------------------------------------------ malformed input

def test_broken_framing_never_loses_more_than_one_message(client, tmp_path):
    """Bad Content-Length values, missing headers, garbage and bare LF: each loses at most
    the message it spoils (and a too-long length the one after it), never the session."""
    body = json.dumps({"jsonrpc": "2.0", "method": "initialized", "params": {}}).encode()
    cases = [
        ("not a number", b"Content-Length: abc\r\n\r\n{}"),
        ("no length", b"Content-Type: application/json\r\n\r\n{}"),
        ("negative", b"Content-Length: -5\r\n\r\n{}"),
        ("too short", b"Content-Length: 10\r\n\r\n" + body),
        ("too long", b"Content-Length: %d\r\n\r\n" % (len(body) + 40) + body),
        ("zero", b"Content-Length: 0\r\n\r\n"),
        ("garbage", bytes(range(256)) * 2000),
        ("no newline for 1 MB", b"x" * (1 << 20)),
        ("bare LF", b"Content-Length: %d\n\n" % len(body) + body),
    ]
    for tag, raw in cases:
        client.process.stdin.write(raw)
        client.process.stdin.flush()
        if tag == "too long":  # it swallows the start of the next message
            client.notify("initialized", {})
        responsive(client, tmp_path, tag.replace(" ", "_"))
    shut_down(client)


def test_malformed_messages(client, tmp_path):
    uri = (tmp_path / "m.py").as_uri()
    bad = [
        b"{not json",
        b"[]",
        b"null",
        b'"a string"',
        b"\xff\xfe not utf-8",
        json.dumps([{"jsonrpc": "2.0", "id": 900, "method": "shutdown"}]).encode(),  # batch
        json.dumps({"jsonrpc": "1.0", "id": 901, "method": "textDocument/codeAction",
                    "params": {}}).encode(),
        json.dumps({"jsonrpc": "2.0", "id": {"an": "object"}, "method": "x/y"}).encode(),
        json.dumps({"jsonrpc": "2.0", "method": "textDocument/didOpen", "params": "x"}).encode(),
        json.dumps({"jsonrpc": "2.0", "method": "textDocument/didOpen", "params": {
            "textDocument": {"uri": uri, "languageId": "python", "version": "one",
                             "text": 12345}}}).encode(),
        json.dumps({"jsonrpc": "2.0", "method": "textDocument/didChange", "params": {
            "textDocument": {"uri": "file:///never/opened.py", "version": 2},
            "contentChanges": [{"text": BAD}]}}).encode(),
        json.dumps({"jsonrpc": "2.0", "method": "no/suchNotification", "params": {}}).encode(),
        json.dumps({"jsonrpc": "2.0", "id": 902, "method": "textDocument/codeAction",
                    "params": {"textDocument": {"uri": "file:///never/opened.py"},
                               "range": None, "context": []}}).encode(),
        b"[" * 5000 + b"]" * 5000,  # deeper than json.loads recurses: a RecursionError
        b'{"a": ' * 5000 + b"1" + b"}" * 5000,
    ]
    for raw in bad:
        client.send_raw(raw)
    reply = client.request("no/suchMethod", {"x": [1, 2]})
    assert reply["error"]["code"] == -32601
    # Edits out of range, reversed and negative, on an open document.
    open_document(client, tmp_path / "m.py", GOOD)
    assert client.diagnostics(uri, 1) == []
    for version, (start, end) in enumerate((((50, 3), (99, 0)), ((0, 5), (0, 1)),
                                            ((-1, -5), (0, 1))), start=2):
        client.notify("textDocument/didChange", {
            "textDocument": {"uri": uri, "version": version},
            "contentChanges": [{"range": {"start": {"line": start[0], "character": start[1]},
                                          "end": {"line": end[0], "character": end[1]}},
                                "text": "y"}]})
    change(client, uri, 9, BAD)
    assert [d["code"] for d in client.diagnostics(uri, 9)] == ["CG103"]
    # Odd document addresses are checked as buffers, never read from disk.
    for odd in ("untitled:Untitled-1", "file:///dev/stdin", "file:///proc/self/mem/x.py",
                "file:///%00nul%ff.py", "vscode-notebook-cell:/a.ipynb#W0sZmlsZQ%3D%3D"):
        client.notify("textDocument/didOpen", {"textDocument": {
            "uri": odd, "languageId": "python", "version": 1, "text": BAD}})
        assert [d["code"] for d in client.diagnostics(odd, 1)] == ["CG103"], odd
    responsive(client, tmp_path, "end")
    assert not any(b"Traceback" in line and b"cglint/" in line for line in client.log)
    shut_down(client)


# ---------------------------------------------------------------------- big and fast

def test_huge_documents(client, tmp_path):
    """5 MB buffers: one with 16,000 findings (and as many f-string fixes), one over the
    line cap. The server answers each, and code actions on them, and stays responsive."""
    big = big_buffer()
    assert len(big) > 5 * 10 ** 6
    path = tmp_path / "big.py"
    started = time.monotonic()
    open_document(client, path, big)
    found = client.wait(lambda m: m.get("method") == "textDocument/publishDiagnostics"
                        and m["params"]["uri"] == path.as_uri(), timeout=120)
    seconds = time.monotonic() - started
    codes = [d["code"] for d in found["params"]["diagnostics"]]
    assert codes.count("CG103") == codes.count("CG301") == 16000
    reply = client.request("textDocument/codeAction", {
        "textDocument": {"uri": path.as_uri()},
        "range": {"start": {"line": 5, "character": 0}, "end": {"line": 5, "character": 20}},
        "context": {"diagnostics": [], "only": ["quickfix"]}})
    assert [action["title"].split(" (")[0] for action in reply["result"]] == [
        "cglint: fix CG301", "cglint: ignore CG301 for this line"]
    responsive(client, tmp_path, "after_big")
    lines = tmp_path / "lines.py"
    open_document(client, lines, "x = 1\n" * 900000)  # 5.4 MB
    [diagnostic] = client.diagnostics(lines.as_uri(), 1)
    assert diagnostic["code"] == "CG002" and "lines; skipped" in diagnostic["message"]
    responsive(client, tmp_path, "after_lines")
    print("5 MB document checked and published in %.1f s; server RSS %d MiB"
          % (seconds, rss(client.process.pid) >> 20))
    shut_down(client)


def test_a_burst_of_edits_publishes_the_last_version(client, tmp_path):
    path = tmp_path / "burst.py"
    uri = path.as_uri()
    open_document(client, path, GOOD)
    assert client.diagnostics(uri, 1) == []
    for version in range(2, 202):  # 200 full-text changes, BAD last
        change(client, uri, version, BAD if version == 201 else GOOD + "x%d = 1\n" % version)
    started = time.monotonic()
    reply = client.request("textDocument/codeAction", {
        "textDocument": {"uri": uri},
        "range": {"start": {"line": 0, "character": 0}, "end": {"line": 0, "character": 0}},
        "context": {"diagnostics": []}})
    assert "result" in reply and time.monotonic() - started < 10
    assert [d["code"] for d in client.diagnostics(uri, 201)] == ["CG103"]
    # 200 incremental edits, one character each: the server's text must follow them.
    text = "import tensorflow as tf\n# " 
    path = tmp_path / "typing.py"
    uri = path.as_uri()
    open_document(client, path, text)
    client.diagnostics(uri, 1)
    typed = "x" * 199 + "\n"
    for version, char in enumerate(typed, start=2):
        lines = text.split("\n")
        position = {"line": len(lines) - 1, "character": len(lines[-1])}
        client.notify("textDocument/didChange", {
            "textDocument": {"uri": uri, "version": version},
            "contentChanges": [{"range": {"start": position, "end": position}, "text": char}]})
        text += char
    last = 1 + len(typed)
    assert client.diagnostics(uri, last) == []
    change(client, uri, last + 1, text + "y = tf.print(1)\n")
    assert [d["code"] for d in client.diagnostics(uri, last + 1)] == ["CG401"]
    shut_down(client)


# ------------------------------------------------------------------ vanishing clients

def server_process(cwd):
    env = dict(os.environ, PYTHONPATH=ROOT + os.pathsep + os.environ.get("PYTHONPATH", ""))
    return subprocess.Popen([sys.executable, "-m", "cglint", "lsp"], cwd=str(cwd), env=env,
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.DEVNULL)


def gone(pid, seconds):
    """Wait until `pid` has exited (a zombie counts: its parent is gone too)."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        try:
            with open("/proc/%d/stat" % pid) as handle:
                if handle.read().rsplit(")", 1)[1].split()[0] == "Z":
                    return True
        except (IOError, OSError):
            return True
        time.sleep(0.05)
    return False


def test_closing_stdin_stops_the_server(tmp_path):
    client = Client(tmp_path)
    initialize(client, tmp_path)
    open_document(client, tmp_path / "a.py", BAD)
    client.diagnostics((tmp_path / "a.py").as_uri(), 1)
    client.process.stdin.close()  # no shutdown, no exit: the editor just went away
    started = time.monotonic()
    client.process.wait(timeout=10)
    assert time.monotonic() - started < 5
    client.process.stdout.close()
    client.process.stderr.close()


def test_a_client_that_stops_reading_does_not_hang_the_server(tmp_path):
    """The editor closes its end of both pipes while the server has diagnostics to send."""
    process = server_process(tmp_path)
    message = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "processId": None, "rootUri": tmp_path.as_uri(), "capabilities": {}}}).encode()
    process.stdin.write(b"Content-Length: %d\r\n\r\n" % len(message) + message)
    process.stdin.flush()
    process.stdout.close()  # nobody reads the reply
    for number in range(20):
        message = json.dumps({"jsonrpc": "2.0", "method": "textDocument/didOpen", "params": {
            "textDocument": {"uri": (tmp_path / ("%d.py" % number)).as_uri(),
                             "languageId": "python", "version": 1, "text": BAD}}}).encode()
        try:
            process.stdin.write(b"Content-Length: %d\r\n\r\n" % len(message) + message)
            process.stdin.flush()
        except BrokenPipeError:
            break
    try:
        process.stdin.close()
    except BrokenPipeError:
        pass
    assert process.wait(timeout=10) is not None


def test_a_killed_client_leaves_no_server(tmp_path):
    """The editor is SIGKILLed: its pipes close, and the orphaned server exits by itself."""
    script = (
        "import subprocess, sys, time\n"
        "server = subprocess.Popen([sys.executable, '-m', 'cglint', 'lsp'], "
        "stdin=subprocess.PIPE, stdout=subprocess.PIPE)\n"
        "print(server.pid, flush=True)\n"
        "time.sleep(3600)\n")
    env = dict(os.environ, PYTHONPATH=ROOT + os.pathsep + os.environ.get("PYTHONPATH", ""))
    editor = subprocess.Popen([sys.executable, "-c", script], cwd=str(tmp_path), env=env,
                              stdout=subprocess.PIPE)
    server_pid = int(editor.stdout.readline())
    time.sleep(1.0)  # let the server start reading
    editor.send_signal(signal.SIGKILL)
    editor.wait()
    editor.stdout.close()
    assert gone(server_pid, 10), "the server outlived its client"


# ------------------------------------------------------------ checks off the event loop

def big_buffer():
    """5 MB with 16,000 CG103 and 16,000 CG301 findings (each with a fix)."""
    one = ('\n@tf.custom_gradient\ndef f%d(x):\n    return x, lambda dy: (dy, dy)\n'
           'name = f"f{x}"\n# ' + "padding " * 30 + "\n")
    return "import tensorflow as tf\n" + "".join(one % n for n in range(16000))


NESTED = "x = " + "(" * 150000 + ")" * 150000 + "\n"


def until(client, matches, timeout=TIMEOUT):
    """The first message that matches, and every message received before it."""
    seen = []
    client.wait(lambda m: seen.append(m) or matches(m), timeout)
    return seen[-1], seen[:-1]


def published(uri, version=None):
    return lambda m: (m.get("method") == "textDocument/publishDiagnostics"
                      and m["params"]["uri"] == uri
                      and (version is None or m["params"].get("version") == version))


@pytest.mark.parametrize("kind", ["5 MB buffer", "300 KB of nested parentheses"])
def test_the_server_answers_while_a_slow_check_runs_and_an_edit_stops_it(
        client, tmp_path, kind):
    """Each of these checks takes 7 to 25 s. Meanwhile requests are answered at once,
    another buffer is checked, and an edit of the slow buffer stops its check: the new
    text's findings come without waiting for the old check, which never publishes."""
    slow = big_buffer() if kind.startswith("5") else NESTED
    responsive(client, tmp_path, "warm_up")
    time.sleep(2.0)  # the second worker's import, slow on a busy machine
    path = tmp_path / "slow.py"
    uri = path.as_uri()
    open_document(client, path, slow)
    time.sleep(1.0)  # the check is under way
    started = time.monotonic()
    reply = client.request("no/suchMethod", {})
    answered = time.monotonic() - started
    assert reply["error"]["code"] == -32601
    other = tmp_path / "other.py"
    open_document(client, other, BAD)
    found, before = until(client, published(other.as_uri(), 1))
    checked = time.monotonic() - started
    assert [d["code"] for d in found["params"]["diagnostics"]] == ["CG103"]
    started = time.monotonic()
    [action] = client.request("textDocument/codeAction", {
        "textDocument": {"uri": other.as_uri()},
        "range": {"start": {"line": 4, "character": 0}, "end": {"line": 4, "character": 0}},
        "context": {"diagnostics": []}})["result"]
    acted = time.monotonic() - started
    assert action["title"] == "cglint: ignore CG103 for this line"
    slow_done = any(published(uri)(m) for m in before)
    # Nested parentheses are slow only while the Python 2 fallback is unbounded.
    assert not slow_done or kind.startswith("300"), "the slow check was not slow"
    started = time.monotonic()
    change(client, uri, 2, BAD)
    found, before = until(client, published(uri))
    superseded = time.monotonic() - started
    assert found["params"]["version"] == 2, "the stale check published"
    assert [d["code"] for d in found["params"]["diagnostics"]] == ["CG103"]
    print("%s: a request answered in %.3f s, another buffer checked in %.2f s and its code "
          "actions in %.3f s; an edit's findings in %.2f s; server RSS %d MiB"
          % (kind, answered, checked, acted, superseded, rss(client.process.pid) >> 20))
    # The order of the messages above shows the other buffer did not wait for the slow
    # check; the times are loose for a busy machine.
    assert answered < 1.0 and acted < 2.0 and checked < 5.0 and superseded < 5.0
    assert rss(client.process.pid) < 200 << 20  # the check's memory is the worker's
    time.sleep(1.0)
    if not slow_done:
        assert not any(published(uri, 1)(m) for m in list(client.messages.queue))
    shut_down(client)


# --------------------------------------------------------------- message size limit

def test_a_message_over_the_size_limit_is_skipped(client, tmp_path):
    """A lying `Content-Length: 100000000000` (what follows is the next message) and an
    honest 65 MiB message: each is skipped with a warning, in bounded memory, and the
    session goes on."""
    client.process.stdin.write(b"Content-Length: 100000000000\r\n\r\n{\"jsonrpc\": \"2.0\", ")
    client.process.stdin.flush()
    for tag, size in (("lie", 100000000000), ("honest", None)):
        if size is None:
            body = b'{"jsonrpc": "2.0", "method": "x/y", "params": "%s"}' % (b"z" * (65 << 20))
            size = len(body)
            client.send_raw(body)
        path = tmp_path / (tag + ".py")
        open_document(client, path, BAD)
        found, before = until(client, published(path.as_uri(), 1))
        assert [d["code"] for d in found["params"]["diagnostics"]] == ["CG103"]
        [warning] = [m["params"] for m in before if m.get("method") == "window/logMessage"]
        assert warning["type"] == 2 and warning["message"] == (
            "cglint: a message of %d bytes, over the 64 MiB limit; skipped" % size)
    print("server RSS after skipping both: %d MiB" % (rss(client.process.pid) >> 20))
    assert rss(client.process.pid) < 200 << 20
    shut_down(client)


# ------------------------------------------------------------------ long sessions

def test_twenty_thousand_edits_keep_memory_flat(client, tmp_path):
    """pygls kept every notification, its text included: 46 -> 88 MiB over 20,000 edits
    of 1.6 KB. After a warm-up, 20,000 edits (checked every 2,000) and 300 opened and
    closed documents add less than 8 MiB."""
    path = tmp_path / "long.py"
    uri = path.as_uri()
    open_document(client, path, BAD)
    client.diagnostics(uri, 1)
    version = 1

    def edits(count):
        nonlocal version
        for _ in range(count):
            version += 1
            change(client, uri, version, BAD + "# edit %d %s\n" % (version, "z" * 1500))
            if version % 2000 == 0:
                assert [d["code"] for d in client.diagnostics(uri, version)] == ["CG103"]

    def documents(start, count):
        for number in range(start, start + count):
            other = tmp_path / ("doc%d.py" % number)
            open_document(client, other, BAD + "# %d\n" % number)
            client.diagnostics(other.as_uri(), 1)
            client.notify("textDocument/didClose", {"textDocument": {"uri": other.as_uri()}})

    edits(1999)
    documents(0, 50)
    before = rss(client.process.pid)
    edits(20000)
    documents(50, 300)
    after = rss(client.process.pid)
    print("server RSS: %.1f MiB after a warm-up, %.1f MiB after 20,000 edits and 300 "
          "documents" % (before / 2 ** 20, after / 2 ** 20))
    assert after - before < 8 << 20
    shut_down(client)


def children(pid):
    found = []
    for task in os.listdir("/proc/%d/task" % pid):
        with open("/proc/%d/task/%s/children" % (pid, task)) as handle:
            found += [int(child) for child in handle.read().split()]
    return found


def test_a_code_action_made_stale_by_an_edit_answers_content_modified(client, tmp_path):
    path = tmp_path / "slow.py"
    uri = path.as_uri()
    open_document(client, path, big_buffer())
    client.next_id += 1
    client.send_raw(json.dumps({"jsonrpc": "2.0", "id": client.next_id,
                                "method": "textDocument/codeAction", "params": {
                                    "textDocument": {"uri": uri},
                                    "range": {"start": {"line": 0, "character": 0},
                                              "end": {"line": 0, "character": 0}},
                                    "context": {"diagnostics": []}}}).encode())
    asked = client.next_id
    time.sleep(0.5)
    change(client, uri, 2, BAD)
    reply = client.wait(lambda m: m.get("id") == asked)
    assert reply["error"]["code"] == -32801  # ContentModified
    assert [d["code"] for d in client.diagnostics(uri, 2)] == ["CG103"]
    shut_down(client)


def test_a_worker_killed_from_outside_is_reported_and_replaced(client, tmp_path):
    """As the kernel's OOM killer would: the check is lost (and said so in the editor's
    log), the session goes on with a new worker."""
    path = tmp_path / "slow.py"
    uri = path.as_uri()
    open_document(client, path, big_buffer())
    time.sleep(1.5)
    for child in children(client.process.pid):
        os.kill(child, signal.SIGKILL)
    logged = client.wait(lambda m: m.get("method") == "window/logMessage")
    assert logged["params"]["type"] == 1
    assert logged["params"]["message"].startswith("cglint: cannot check %s: the worker" % uri)
    change(client, uri, 2, BAD)
    assert [d["code"] for d in client.diagnostics(uri, 2)] == ["CG103"]
    responsive(client, tmp_path, "after_kill")
    shut_down(client)


def test_workers_end_with_a_killed_server(client, tmp_path):
    path = tmp_path / "a.py"
    open_document(client, path, BAD)
    client.diagnostics(path.as_uri(), 1)
    workers = children(client.process.pid)
    assert workers
    client.process.kill()
    client.process.wait()
    for worker in workers:
        assert gone(worker, 10), "a worker outlived its server"
