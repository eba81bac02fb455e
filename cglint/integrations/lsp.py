"""`cglint lsp`: a language server on stdio, for any editor with an LSP client.

It checks the editor's buffer, not the file on disk, so findings follow typing: at once on
open and save, and 0.3 s after the last change (a debounce: one check per pause, not per
keystroke). Code actions offer each finding's safe fix, and "fix all" for the file.
Settings come from the buffer's project (pyproject.toml, setup.cfg, tox.ini) and `# noqa`
comments apply, exactly as on the command line.
"""
import argparse
import asyncio
import logging
import os
import sys

from lsprotocol import types
from pygls.exceptions import JsonRpcException
from pygls.lsp.server import LanguageServer
from pygls.protocol import LanguageServerProtocol
from pygls.uris import to_fs_path

from cglint import __version__, autofix, check, config, engine

DEBOUNCE = 0.3  # seconds of quiet after a change before the buffer is checked
FIX_ALL = types.CodeActionKind.SourceFixAll + ".cglint"
log = logging.getLogger("cglint.lsp")


class Protocol(LanguageServerProtocol):
    """Answers a request whose params do not fit the LSP types with an error response, as
    JSON-RPC asks; pygls alone logs and drops it, which leaves the client waiting."""

    def structure_message(self, data):
        try:
            return super().structure_message(data)
        except JsonRpcException as error:
            if "id" in data and "method" in data:
                self._send_response(data["id"], None, error.to_response_error())
            raise


class Resyncing:
    """Standard input for pygls's reader, which finds a message's header only at the
    start of a line: after one bad Content-Length (too short, not a number) the rest of
    that body runs into the next header line, and every message after it is lost, for
    good. Cutting a line at "Content-Length:" resyncs on the next message. Header lines
    are read at most MAX_LINE bytes at a time, so garbage without newlines cannot
    grow memory."""

    MAX_LINE = 1 << 16
    HEADER = b"Content-Length:"

    def __init__(self, stream):
        self.stream = stream

    def readline(self, size=-1):
        line = self.stream.readline(self.MAX_LINE if size < 0 else min(size, self.MAX_LINE))
        start = line.find(self.HEADER)
        return line[start:] if start > 0 else line

    def read(self, size=-1):
        return self.stream.read(size)


class CglintServer(LanguageServer):
    def __init__(self):
        super().__init__("cglint", __version__, protocol_cls=Protocol,
                         text_document_sync_kind=types.TextDocumentSyncKind.Incremental)
        self.timers = {}  # uri -> asyncio.TimerHandle of the pending debounced check
        self.checked = {}  # uri -> (document version, path, Settings, text, engine.Result)


server = CglintServer()


def settings_for(path):
    """Settings for a file, from the settings file of its project (read anew each time, so
    an edited pyproject.toml applies at the next check)."""
    return config.settings_for(path)


def check_document(ls, uri, fresh=False):
    """(path, Settings, text, Result) of the buffer as it is now. Code actions reuse the
    check of the same document version; publishing checks anew, so that a save also picks
    up an edited settings file."""
    document = ls.workspace.get_text_document(uri)
    remembered = ls.checked.get(uri)
    if not fresh and remembered and document.version is not None \
            and remembered[0] == document.version:
        return remembered[1:]
    path = document.path or to_fs_path(uri) or uri
    # Line ends as the command line sees them, so positions match on every platform.
    text = document.source.replace("\r\n", "\n").replace("\r", "\n")
    settings = settings_for(path)
    options = settings.options_for(path)
    if settings.excluded(path):
        result = engine.Result(path)
    else:
        result = check.check_alone(path, text, options, settings.report_unused_noqa)
    ls.checked[uri] = (document.version, path, settings, text, result)
    return path, settings, text, result


def to_range(document, diagnostic, lines=None):
    # `lines` splits the whole buffer on each access: pass it in when converting many
    # diagnostics (12,000 findings in a 5 MB buffer took minutes, one split each).
    lines = document.lines if lines is None else lines
    end_line, end_col = diagnostic.end_line, diagnostic.end_col
    if not end_line:  # no end known (CG002): mark the rest of the line
        end_line = diagnostic.line
        end_col = len(lines[diagnostic.line - 1].rstrip("\r\n")) + 1 \
            if diagnostic.line <= len(lines) else diagnostic.col
    codec = document.position_codec
    return types.Range(
        start=codec.position_to_client_units(
            lines, types.Position(diagnostic.line - 1, diagnostic.col - 1)),
        end=codec.position_to_client_units(lines, types.Position(end_line - 1, end_col - 1)),
    )


def to_lsp(document, diagnostic, lines=None):
    return types.Diagnostic(
        range=to_range(document, diagnostic, lines),
        message=diagnostic.message,
        severity=types.DiagnosticSeverity.Error,
        code=diagnostic.code,
        source="cglint",
    )


def publish(ls, uri):
    """Check the buffer and send its diagnostics; a failure is logged, never fatal."""
    ls.timers.pop(uri, None)
    try:
        document = ls.workspace.get_text_document(uri)
        _, _, _, result = check_document(ls, uri, fresh=True)
        if result.error:
            ls.window_log_message(types.LogMessageParams(
                type=types.MessageType.Error,
                message="cglint: internal error on %s: %s" % (uri, result.error)))
        lines = document.lines
        diagnostics = [to_lsp(document, d, lines) for d in result.diagnostics]
        ls.text_document_publish_diagnostics(types.PublishDiagnosticsParams(
            uri=uri, version=document.version, diagnostics=diagnostics))
    except Exception:  # one bad buffer must not take the editor's linter down
        log.exception("cglint: cannot check %s", uri)


def schedule(ls, uri, delay):
    pending = ls.timers.pop(uri, None)
    if pending is not None:
        pending.cancel()
    if delay:
        ls.timers[uri] = asyncio.get_running_loop().call_later(delay, publish, ls, uri)
    else:
        publish(ls, uri)


@server.feature(types.TEXT_DOCUMENT_DID_OPEN)
def did_open(ls, params):
    schedule(ls, params.text_document.uri, 0)


@server.feature(types.TEXT_DOCUMENT_DID_CHANGE)
def did_change(ls, params):
    schedule(ls, params.text_document.uri, DEBOUNCE)


@server.feature(types.TEXT_DOCUMENT_DID_SAVE)
def did_save(ls, params):
    schedule(ls, params.text_document.uri, 0)


@server.feature(types.TEXT_DOCUMENT_DID_CLOSE)
def did_close(ls, params):
    uri = params.text_document.uri
    pending = ls.timers.pop(uri, None)
    if pending is not None:
        pending.cancel()
    ls.checked.pop(uri, None)
    ls.text_document_publish_diagnostics(types.PublishDiagnosticsParams(uri=uri, diagnostics=[]))


@server.feature(types.TEXT_DOCUMENT_CODE_ACTION, types.CodeActionOptions(
    code_action_kinds=[types.CodeActionKind.QuickFix, FIX_ALL]))
def code_action(ls, params):
    uri = params.text_document.uri
    document = ls.workspace.get_text_document(uri)
    path, settings, text, result = check_document(ls, uri)
    wanted = params.context.only
    actions = []
    if not wanted or types.CodeActionKind.QuickFix in wanted:
        lines = document.lines
        for diagnostic, edits in sorted(result.fixes):
            where = to_range(document, diagnostic, lines)
            if not _overlaps(where, params.range):
                continue
            actions.append(types.CodeAction(
                title="cglint: fix %s (%s)" % (diagnostic.code, diagnostic.message),
                kind=types.CodeActionKind.QuickFix,
                diagnostics=[to_lsp(document, diagnostic, lines)],
                is_preferred=True,
                edit=_workspace_edit(uri, [_text_edit(document, edit) for edit in edits]),
            ))
    if result.fixes and (not wanted or any(FIX_ALL.startswith(kind) for kind in wanted)):
        fixed = autofix.fix_text(path, text, settings.options_for(path),
                                 settings.report_unused_noqa, result)
        if fixed.text != text:
            whole = types.Range(types.Position(0, 0), _end(document))
            actions.append(types.CodeAction(
                title="cglint: fix all safe fixes in this file", kind=FIX_ALL,
                edit=_workspace_edit(uri, [types.TextEdit(whole, _newlines_like(
                    fixed.text, document.source))])))
    return actions


def _text_edit(document, edit):
    codec, lines = document.position_codec, document.lines
    start = types.Position(edit.line - 1, edit.col - 1)
    end = types.Position(edit.end_line - 1, edit.end_col - 1)
    return types.TextEdit(
        range=types.Range(start=codec.position_to_client_units(lines, start),
                          end=codec.position_to_client_units(lines, end)),
        new_text=_newlines_like(edit.text, document.source))


def _end(document):
    lines = document.lines
    if not lines or lines[-1].endswith(("\n", "\r")):
        return types.Position(len(lines), 0)
    return document.position_codec.position_to_client_units(
        lines, types.Position(len(lines) - 1, len(lines[-1])))


def _workspace_edit(uri, edits):
    return types.WorkspaceEdit(changes={uri: edits})


def _newlines_like(text, source):
    return text.replace("\n", "\r\n") if "\r\n" in source else text


def _overlaps(a, b):
    def key(position):
        return position.line, position.character

    return key(a.start) <= key(b.end) and key(b.start) <= key(a.end)


def main(argv=()):
    parser = argparse.ArgumentParser(
        prog="cglint lsp", description="Serve cglint's findings to an editor (LSP over stdio).")
    # LSP client libraries (vscode-languageclient among them) add --stdio on their own.
    parser.add_argument("--stdio", action="store_true", help="talk over stdio (the default)")
    try:
        parser.parse_args(argv)
    except SystemExit as exit_:
        return exit_.code
    logging.basicConfig(level=os.environ.get("CGLINT_LSP_LOG", "WARNING").upper())
    server.start_io(Resyncing(sys.stdin.buffer))
    return 0
