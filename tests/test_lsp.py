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
from snippets import BAD, GOOD
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
        stream = self.process.stdout
        while True:
            length = None
            while True:
                header = stream.readline()
                if not header:
                    return
                if header in (b"\r\n", b"\n"):
                    break
                name, _, value = header.decode("ascii").partition(":")
                if name.lower() == "content-length":
                    length = int(value)
            self.messages.put(json.loads(stream.read(length)))

    def send_raw(self, body):
        self.process.stdin.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
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
                raise AssertionError("no matching message from the server in %ss; its log:\n%s"
                                     % (timeout, b"".join(self.log).decode(errors="replace")))
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
