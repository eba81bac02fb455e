"""`cglint lsp` as an editor sees it: a real server process spoken to in LSP over stdio."""
import json
import os
import queue
import subprocess
import sys
import threading
import time

import pytest

pytest.importorskip("pygls", reason="the language server needs pygls (pip install -e .)")

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "bench"))
from lsp_latency import framed, read_messages  # noqa: E402 (the bench's client reads the same)
from snippets import BAD, GOOD  # noqa: E402
TIMEOUT = 15


class Client:
    """The part of an LSP client a test needs: framed JSON-RPC, requests and notifications."""

    def __init__(self, cwd):
        env = dict(os.environ, PYTHONPATH=ROOT + os.pathsep + os.environ.get("PYTHONPATH", ""))
        self.process = subprocess.Popen(
            [sys.executable, "-m", "cglint", "lsp"], cwd=str(cwd), env=env,
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        self.messages = queue.Queue()
        self.next_id = 0
        self.log = []  # the server's standard error, shown when a test fails
        threading.Thread(target=self._read, daemon=True).start()
        threading.Thread(target=lambda: self.log.extend(self.process.stderr), daemon=True).start()

    def _read(self):
        read_messages(self.process.stdout, self.messages.put)

    def send_raw(self, body):
        self.process.stdin.write(framed(body))
        self.process.stdin.flush()

    def notify(self, method, params):
        self.send_raw(json.dumps({"jsonrpc": "2.0", "method": method,
                                  "params": params}).encode())

    def request(self, method, params):
        self.next_id += 1
        self.send_raw(json.dumps({"jsonrpc": "2.0", "id": self.next_id, "method": method,
                                  "params": params}).encode())
        return self.wait(lambda m: m.get("id") == self.next_id and "method" not in m)

    def wait(self, matches, timeout=TIMEOUT):
        deadline = time.monotonic() + timeout
        while True:
            try:
                message = self.messages.get(timeout=max(0, deadline - time.monotonic()))
            except queue.Empty:
                message = False
            if message is None or message is False:
                raise AssertionError("no matching message from the server (%s); its log:\n%s"
                                     % ("it ended" if message is None else "%ss" % timeout,
                                        b"".join(self.log).decode(errors="replace")))
            if matches(message):
                return message

    def diagnostics(self, uri, version):
        message = self.wait(lambda m: m.get("method") == "textDocument/publishDiagnostics"
                            and m["params"]["uri"] == uri
                            and m["params"].get("version") == version)
        return message["params"]["diagnostics"]

    def close(self):
        if self.process.poll() is None:
            self.process.kill()
        self.process.wait()
        for stream in (self.process.stdin, self.process.stdout, self.process.stderr):
            stream.close()


@pytest.fixture
def client(tmp_path):
    started = Client(tmp_path)
    yield started
    started.close()


def initialize(client, root):
    reply = client.request("initialize", {
        "processId": os.getpid(), "rootUri": root.as_uri(), "capabilities": {}})
    capabilities = reply["result"]["capabilities"]
    assert capabilities["codeActionProvider"]
    client.notify("initialized", {})


def open_document(client, path, text, version=1):
    client.notify("textDocument/didOpen", {"textDocument": {
        "uri": path.as_uri(), "languageId": "python", "version": version, "text": text}})


def test_session_open_change_code_action_shutdown(client, tmp_path):
    initialize(client, tmp_path)
    path = tmp_path / "model.py"  # never written: the server checks the unsaved buffer
    uri = path.as_uri()
    open_document(client, path, GOOD)
    assert client.diagnostics(uri, 1) == []

    started = time.monotonic()
    for version, text in ((2, BAD.replace("(dy, dy)", "(dy")), (3, BAD)):
        client.notify("textDocument/didChange", {
            "textDocument": {"uri": uri, "version": version},
            "contentChanges": [{"text": text}]})
    found = client.diagnostics(uri, 3)  # version 2 was superseded within the debounce
    assert time.monotonic() - started >= 0.25
    assert [(d["code"], d["range"]["start"]) for d in found] == [
        ("CG103", {"line": 4, "character": 25})]
    assert found[0]["source"] == "cglint" and "returns 2 gradients" in found[0]["message"]
    assert found[0]["codeDescription"]["href"].endswith("/docs/rules/CG103.md")

    reply = client.request("textDocument/codeAction", {
        "textDocument": {"uri": uri},
        "range": {"start": {"line": 0, "character": 0}, "end": {"line": 5, "character": 0}},
        "context": {"diagnostics": []}})
    # CG103 has no safe fix: the one action offered is a `# noqa` for it.
    [action] = reply["result"]
    assert action["title"] == "cglint: ignore CG103 for this line"
    assert action["edit"]["changes"][uri] == [{
        "range": {"start": {"line": 4, "character": 33}, "end": {"line": 4, "character": 33}},
        "newText": "  # noqa: CG103"}]

    assert client.request("shutdown", None)["result"] is None
    client.notify("exit", None)
    assert client.process.wait(timeout=TIMEOUT) == 0


def test_code_actions_apply_safe_fixes(client, tmp_path):
    (tmp_path / "setup.cfg").write_text("[cglint]\nreport-unused-noqa = true\n")
    initialize(client, tmp_path)
    path = tmp_path / "m.py"
    uri = path.as_uri()
    text = BAD.replace("(dy, dy)", "(dy, dy)  # noqa: CG103, CG101")
    open_document(client, path, text)
    found = client.diagnostics(uri, 1)  # CG103 silenced; the unused CG101 reported
    assert [(d["code"], d["message"]) for d in found] == [("CG003", "unused `noqa` code: CG101")]
    reply = client.request("textDocument/codeAction", {
        "textDocument": {"uri": uri}, "range": found[0]["range"],
        "context": {"diagnostics": found}})
    actions = {action["kind"]: action for action in reply["result"]}
    quick = actions["quickfix"]
    assert quick["diagnostics"][0]["code"] == "CG003"
    [edit] = quick["edit"]["changes"][uri]
    assert edit == {"range": {"start": {"line": 4, "character": 35},
                              "end": {"line": 4, "character": 55}},
                    "newText": "# noqa: CG103"}
    [whole] = actions["source.fixAll.cglint"]["edit"]["changes"][uri]
    assert whole["newText"] == BAD.replace("(dy, dy)", "(dy, dy)  # noqa: CG103")
    reply = client.request("textDocument/codeAction", {
        "textDocument": {"uri": uri},
        "range": {"start": {"line": 0, "character": 0}, "end": {"line": 0, "character": 0}},
        "context": {"diagnostics": [], "only": ["quickfix"]}})
    assert reply["result"] == []  # nothing fixable on line 1


def test_config_and_noqa_are_honoured(client, tmp_path):
    (tmp_path / "pyproject.toml").write_text(
        "[tool.cglint]\nper-file-ignores = {'legacy/*' = ['CG103']}\nexclude = ['gen_*.py']\n")
    initialize(client, tmp_path)
    for name, expected in (("legacy/old.py", []), ("gen_ops.py", []), ("new.py", ["CG103"])):
        path = tmp_path / name
        open_document(client, path, BAD)
        assert [d["code"] for d in client.diagnostics(path.as_uri(), 1)] == expected, name
    path = tmp_path / "quiet.py"
    open_document(client, path, "# cglint: noqa\n" + BAD)
    assert client.diagnostics(path.as_uri(), 1) == []


def test_survives_malformed_requests(client, tmp_path):
    initialize(client, tmp_path)
    client.send_raw(b"{not json")
    client.send_raw(json.dumps({"jsonrpc": "2.0", "id": 99, "method": "textDocument/codeAction",
                                "params": {"textDocument": 5}}).encode())
    reply = client.wait(lambda m: m.get("id") == 99)
    assert "error" in reply
    client.notify("textDocument/didChange", {"textDocument": {"uri": "file:///nowhere.py"}})
    client.notify("textDocument/didOpen", {"textDocument": {"uri": "file:///x.py"}})
    reply = client.request("no/suchMethod", {})
    assert reply["error"]["code"] == -32601
    path = tmp_path / "after.py"
    open_document(client, path, BAD)
    assert [d["code"] for d in client.diagnostics(path.as_uri(), 1)] == ["CG103"]
    assert client.request("shutdown", None)["result"] is None
    client.notify("exit", None)
    assert client.process.wait(timeout=TIMEOUT) == 0


def code_actions(client, uri, line, only=None, character=0):
    context = {"diagnostics": []}
    if only:
        context["only"] = only
    reply = client.request("textDocument/codeAction", {
        "textDocument": {"uri": uri},
        "range": {"start": {"line": line, "character": character},
                  "end": {"line": line, "character": character}},
        "context": context})
    return reply["result"]


def apply_edits(text, edits):
    """The text after a client applies LSP TextEdits (ASCII text: UTF-16 units are chars)."""
    lines = text.split("\n")

    def offset(position):
        return sum(len(line) + 1 for line in lines[:position["line"]]) + position["character"]

    for edit in sorted(edits, key=lambda e: offset(e["range"]["start"]), reverse=True):
        start, end = offset(edit["range"]["start"]), offset(edit["range"]["end"])
        text = text[:start] + edit["newText"] + text[end:]
    return text


def test_ignore_for_this_line_adds_or_merges_a_noqa_comment(client, tmp_path):
    initialize(client, tmp_path)
    path = tmp_path / "m.py"
    uri = path.as_uri()
    cases = [  # (text, line of the action, the line after applying it)
        (BAD, 4, "    return x, lambda dy: (dy, dy)  # noqa: CG103"),
        (BAD.replace("(dy, dy)", "(dy, dy)  # noqa: CG401"), 4,
         "    return x, lambda dy: (dy, dy)  # noqa: CG401, CG103"),
        (BAD.replace("(dy, dy)", "(dy, dy)  # why not"), 4,
         "    return x, lambda dy: (dy, dy)  # why not  # noqa: CG103"),
        # The finding's line ends inside a string: the comment goes on the decorator line,
        # where a `# noqa` also silences a finding about the function.
        (BAD.replace("(dy, dy)", '(dy, dy, """\ntext""")'), 4,
         "@tf.custom_gradient  # noqa: CG103"),
    ]
    for version, (text, line, expected) in enumerate(cases, start=1):
        if version == 1:
            open_document(client, path, text)
        else:
            client.notify("textDocument/didChange", {
                "textDocument": {"uri": uri, "version": version},
                "contentChanges": [{"text": text}]})
        assert [d["code"] for d in client.diagnostics(uri, version)] == ["CG103"]
        [action] = code_actions(client, uri, line)
        assert action["title"] == "cglint: ignore CG103 for this line"
        assert action["kind"] == "quickfix" and action["diagnostics"][0]["code"] == "CG103"
        fixed = apply_edits(text, action["edit"]["changes"][uri])
        assert expected in fixed.split("\n"), fixed
        # The comment works: the finding is gone once the edit is applied.
        silenced = tmp_path / ("silenced%d.py" % version)
        open_document(client, silenced, fixed)
        assert client.diagnostics(silenced.as_uri(), 1) == [], fixed
    # Lines without a finding, and findings a noqa cannot silence, get no such action.
    assert code_actions(client, uri, 0) == []
    unused = tmp_path / "unused.py"
    (tmp_path / "setup.cfg").write_text("[cglint]\nreport-unused-noqa = true\n")
    open_document(client, unused, "x = 1  # noqa: CG101\n")
    [finding] = client.diagnostics(unused.as_uri(), 1)
    assert finding["code"] == "CG003"
    assert [a["title"] for a in code_actions(client, unused.as_uri(), 0, ["quickfix"],
                                             character=10)] == [
        "cglint: fix CG003 (unused `noqa` code: CG101)"]


def initialize_watching(client, root):
    """Initialize as a client that lets servers register file watchers, and accept the
    registration; the registration request is returned."""
    client.request("initialize", {
        "processId": os.getpid(), "rootUri": root.as_uri(),
        "capabilities": {"workspace": {"didChangeWatchedFiles": {
            "dynamicRegistration": True}}}})
    client.notify("initialized", {})
    request = client.wait(lambda m: m.get("method") == "client/registerCapability")
    client.send_raw(json.dumps({"jsonrpc": "2.0", "id": request["id"],
                                "result": None}).encode())
    return request


SHOWN_OR_PUBLISHED = ("window/showMessage", "textDocument/publishDiagnostics")


def settings_changed(client, path):
    client.notify("workspace/didChangeWatchedFiles", {
        "changes": [{"uri": path.as_uri(), "type": 2}]})


def test_a_broken_settings_file_is_shown_and_the_last_good_settings_kept(client, tmp_path):
    settings = tmp_path / "pyproject.toml"
    settings.write_text("[tool.cglint]\nignore = ['CG103']\n")
    request = initialize_watching(client, tmp_path)
    [registration] = request["params"]["registrations"]
    assert registration["method"] == "workspace/didChangeWatchedFiles"
    assert {w["globPattern"] for w in registration["registerOptions"]["watchers"]} == {
        "**/pyproject.toml", "**/setup.cfg", "**/tox.ini"}
    path = tmp_path / "model.py"
    uri = path.as_uri()
    open_document(client, path, BAD)
    assert client.diagnostics(uri, 1) == []

    settings.write_text("[tool.cglint\nignore = ['CG103']\n")  # broken TOML
    settings_changed(client, settings)
    shown = client.wait(lambda m: m.get("method") == "window/showMessage")
    assert shown["params"]["type"] == 1  # an error
    assert "pyproject.toml: not valid TOML" in shown["params"]["message"]
    assert "last good settings" in shown["params"]["message"]
    assert client.diagnostics(uri, 1) == []  # re-checked, still without CG103
    client.notify("textDocument/didChange", {
        "textDocument": {"uri": uri, "version": 2}, "contentChanges": [{"text": BAD + "\n"}]})
    found = client.wait(lambda m: m.get("method") in SHOWN_OR_PUBLISHED)
    assert found["method"] == "textDocument/publishDiagnostics"  # the error is shown once
    assert found["params"]["version"] == 2 and found["params"]["diagnostics"] == []

    settings.write_text("[tool.cglint]\nignore = ['CG401']\n")  # fixed
    settings_changed(client, settings)
    found = client.wait(lambda m: m.get("method") in SHOWN_OR_PUBLISHED)
    assert found["method"] == "textDocument/publishDiagnostics"
    assert [d["code"] for d in found["params"]["diagnostics"]] == ["CG103"]
    # A change to another file (not a settings file) re-checks nothing.
    settings_changed(client, tmp_path / "notes.txt")
    time.sleep(1)
    reply = client.request("no/suchMethod", {})
    assert reply["error"]["code"] == -32601
    assert client.messages.empty()


def test_settings_come_from_the_closest_settings_file(client, tmp_path):
    (tmp_path / "a" / "sub").mkdir(parents=True)
    (tmp_path / "b").mkdir()
    (tmp_path / "a" / "pyproject.toml").write_text("[tool.cglint]\nignore = ['CG103']\n")
    (tmp_path / "a" / "sub" / "setup.cfg").write_text("[cglint]\nignore = CG401\n")
    (tmp_path / "b" / "tox.ini").write_text("[cglint]\nselect = CG1\n")
    initialize(client, tmp_path)
    for name, expected in (("a/x.py", []), ("a/sub/x.py", ["CG103"]), ("b/x.py", ["CG103"]),
                           ("a/y.py", []), ("x.py", ["CG103"])):
        path = tmp_path / name
        open_document(client, path, BAD)
        assert [d["code"] for d in client.diagnostics(path.as_uri(), 1)] == expected, name


def test_without_watchers_saving_the_settings_file_in_the_editor_rechecks(client, tmp_path):
    """A client that cannot register watchers is not asked to; a settings file edited and
    saved in the editor itself re-checks the open buffers (and is not linted as Python)."""
    settings = tmp_path / "setup.cfg"
    settings.write_text("[cglint]\nignore = CG103\n")
    initialize(client, tmp_path)
    path = tmp_path / "model.py"
    open_document(client, path, BAD)
    assert client.diagnostics(path.as_uri(), 1) == []
    open_document(client, settings, settings.read_text())
    settings.write_text("[cglint]\nignore = CG401\n")
    client.notify("textDocument/didSave", {"textDocument": {"uri": settings.as_uri()}})
    found = client.wait(lambda m: "method" in m)  # no watcher request, no setup.cfg check
    assert found["method"] == "textDocument/publishDiagnostics", found
    assert found["params"]["uri"] == path.as_uri()
    assert [d["code"] for d in found["params"]["diagnostics"]] == ["CG103"]
