"""`cglint lsp`: a language server on stdio, for any editor with an LSP client.

It checks the editor's buffer, not the file on disk, so findings follow typing: at once on
open and save, and 0.3 s after the last change (a debounce: one check per pause, not per
keystroke). Checks run in worker processes (lsp_worker), so the server answers the editor
while a big buffer is being checked, and an edit stops the check it made stale. Code
actions offer each finding's safe fix, "fix all" for the file, and a `# noqa` comment for
a finding on its line. Settings come from the closest settings file above each buffer
(pyproject.toml, setup.cfg, tox.ini) and `# noqa` comments apply, exactly as on the
command line; a settings file that breaks is reported to the user and the last good
settings stay in force until it is fixed.
"""
import argparse
import asyncio
import collections
import gc
import io
import logging
import os
import sys
import threading
import tokenize
from urllib.parse import unquote

from lsprotocol import types
from pygls.exceptions import JsonRpcContentModified, JsonRpcException
from pygls.io_ import StdoutWriter
from pygls.lsp.server import LanguageServer
from pygls.protocol import JsonRPCNotification, LanguageServerProtocol, default_converter
from pygls.uris import to_fs_path
from pygls.workspace import PositionCodec, TextDocument

from cglint import __version__, autofix, check, config, engine, files, ruledocs, suppress
from cglint.diagnostics import Edit
from cglint.integrations import lsp_transport, lsp_worker
from cglint.diagnostics import is_safe
from cglint.source import Span

DEBOUNCE = 0.3  # seconds of quiet after a change before the buffer is checked
FIX_ALL = types.CodeActionKind.SourceFixAll + ".cglint"
# Codes a `# noqa` cannot silence: unreadable files and unused-noqa findings.
NOT_IGNORABLE = ("CG002", suppress.UNUSED_CODE)
WATCHERS_ID = "cglint-settings-files"
log = logging.getLogger("cglint.lsp")


class Protocol(LanguageServerProtocol):
    """pygls's LSP protocol, mended where it answers badly or keeps what it should not."""

    def structure_message(self, data):
        """Answers a request whose params do not fit the LSP types with an error response,
        as JSON-RPC asks; pygls alone logs and drops it, which leaves the client waiting."""
        try:
            return super().structure_message(data)
        except JsonRpcException as error:
            if "id" in data and "method" in data:
                self._send_response(data["id"], None, error.to_response_error())
            raise

    def _execute_handler(self, msg_id, handler, callback, args=None, kwargs=None):
        """pygls files the future of every generator handler (the built-in didOpen,
        didChange, ... are generators) under a fresh id and forgets only those of requests:
        each notification stayed in memory, its text included (+41 MiB over 20,000 edits
        of 1.6 KB). Forget each one when it is done."""
        def forget_then_callback(future):
            if self._request_futures.get(msg_id) is future:
                del self._request_futures[msg_id]
            callback(future)

        super()._execute_handler(msg_id, handler, forget_then_callback, args, kwargs)

    def notify_json(self, method, params):
        """Send a notification whose params are plain JSON data already (from a worker):
        pygls's typed path would convert them back and forth for nothing."""
        self._send_data(JsonRPCNotification(method=method, params=params,
                                            jsonrpc=self.VERSION))


class CglintServer(LanguageServer):
    def __init__(self):
        super().__init__("cglint", __version__, protocol_cls=Protocol,
                         text_document_sync_kind=types.TextDocumentSyncKind.Incremental)
        self.timers = {}  # uri -> asyncio.TimerHandle of the pending debounced check
        self.tasks = set()  # running publish tasks (held, or asyncio may drop them)
        self.edits = 0  # edits seen: a document's stamp is the count at its last edit
        self.stamps = {}  # uri -> stamp of the document's current text
        self.good_settings = {}  # uri -> the last Settings read without error
        self.settings_errors = {}  # uri -> the settings error shown for it, while it lasts
        self.jobs = lsp_worker.Jobs()
        self.exit_code = 0

    def start_io(self, stdin=None, stdout=None):
        """pygls's stdio loop, with cglint's bounded reader (lsp_transport) in place of
        pygls's, which trusts every Content-Length."""
        # Before the workers are forked, so that each starts ready: the first check of a
        # fresh process imported every rule and built its tables (90 ms or more of a
        # 2,000-line file's first check). Then what exists now is frozen out of the
        # collector: it is shared with the workers, and no collection walks (and so
        # copies) its pages again.
        warm_up()
        gc.collect()
        gc.freeze()
        self.jobs.warm(fork=True)  # before any thread: copies of this process
        self._stop_event = threading.Event()
        self.protocol.set_writer(StdoutWriter(stdout or sys.stdout.buffer))
        reader = lsp_transport.MessageReader(stdin or sys.stdin.buffer)
        try:
            asyncio.run(lsp_transport.serve(reader, self.protocol, self._stop_event,
                                            self.warn))
        except BrokenPipeError:
            log.error("cglint: the connection to the editor is lost; stopping")
        except SystemExit as exit_:  # the `exit` notification
            self.exit_code = exit_.code or 0
        except KeyboardInterrupt:
            pass
        finally:
            self.shutdown()

    def shutdown(self):
        self.jobs.close()
        super().shutdown()

    def warn(self, text):
        log.warning("%s", text)
        self.window_log_message(types.LogMessageParams(type=types.MessageType.Warning,
                                                       message=text))


server = CglintServer()


# --------------------------------------------------------------- the event loop's side

def open_document(ls, uri):
    """The open document at `uri`, or None (pygls's get_text_document would make one up
    that reads the file from disk)."""
    try:
        return ls.workspace.text_documents.get(unquote(uri))
    except RuntimeError:  # not initialized
        return None


def snapshot(ls, uri):
    """What a worker needs to check a document: (uri, stamp, path, source, encoding,
    last good settings); None when it is not open."""
    document = open_document(ls, uri)
    if document is None:
        return None
    encoding = ls.workspace.position_encoding or types.PositionEncodingKind.Utf16
    return (uri, ls.stamps.get(uri, 0), document.path or to_fs_path(uri) or uri,
            document.source, getattr(encoding, "value", encoding), ls.good_settings.get(uri))


def schedule(ls, uri, delay):
    pending = ls.timers.pop(uri, None)
    if pending is not None:
        pending.cancel()
    ls.timers[uri] = asyncio.get_running_loop().call_later(delay, start_publish, ls, uri)


def start_publish(ls, uri):
    ls.timers.pop(uri, None)
    task = asyncio.ensure_future(publish(ls, uri))
    ls.tasks.add(task)
    task.add_done_callback(ls.tasks.discard)


async def publish(ls, uri):
    """Check the buffer in a worker and send its diagnostics; a failure is logged, never
    fatal, and a check overtaken by an edit sends nothing."""
    job = snapshot(ls, uri)
    if job is None:
        return
    version = open_document(ls, uri).version
    try:
        outcome = await ls.jobs.run(uri, job[1], "publish_job", *job)
    except lsp_worker.Superseded:
        return
    except lsp_worker.JobFailed as error:
        log.error("cglint: cannot check %s: %s", uri, error)
        ls.window_log_message(types.LogMessageParams(
            type=types.MessageType.Error, message="cglint: cannot check %s: %s" % (uri, error)))
        return
    if open_document(ls, uri) is None or ls.stamps.get(uri) != job[1]:
        return
    note_settings(ls, uri, outcome)
    if outcome["error"]:
        ls.window_log_message(types.LogMessageParams(
            type=types.MessageType.Error,
            message="cglint: internal error on %s: %s" % (uri, outcome["error"])))
    ls.protocol.notify_json(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS, {
        "uri": uri, "version": version, "diagnostics": outcome["diagnostics"]})


def note_settings(ls, uri, outcome):
    """Keep the buffer's good settings; show a settings error once while it lasts."""
    error = outcome["settings_error"]
    if not error:
        ls.good_settings[uri] = outcome["settings"]
        if ls.settings_errors.pop(uri, None) and not ls.settings_errors:
            ls.window_log_message(types.LogMessageParams(
                type=types.MessageType.Info, message="cglint: settings read again"))
        return
    shown = error in ls.settings_errors.values()
    ls.settings_errors[uri] = error
    if not shown:
        text = "cglint: %s (the last good settings stay in force)" % error
        log.warning("%s", text)
        ls.window_show_message(types.ShowMessageParams(type=types.MessageType.Error,
                                                       message=text))
        ls.window_log_message(types.LogMessageParams(type=types.MessageType.Error,
                                                     message=text))


def is_settings_file(uri):
    return os.path.basename(to_fs_path(uri) or uri) in config.CANDIDATES


def recheck_all(ls):
    for uri in list(ls.stamps):
        schedule(ls, uri, 0)


def edited(ls, uri):
    """A new text for `uri`: its stamp moves on, and checks of the old text stop."""
    ls.edits += 1
    ls.stamps[uri] = ls.edits
    ls.jobs.supersede(uri, ls.edits)


@server.feature(types.INITIALIZED)
def initialized(ls, params):
    capabilities = ls.client_capabilities.workspace
    watching = capabilities and capabilities.did_change_watched_files
    if watching and watching.dynamic_registration:
        ls.client_register_capability(types.RegistrationParams(registrations=[
            types.Registration(
                id=WATCHERS_ID, method=types.WORKSPACE_DID_CHANGE_WATCHED_FILES,
                register_options=types.DidChangeWatchedFilesRegistrationOptions(watchers=[
                    types.FileSystemWatcher(glob_pattern="**/" + name)
                    for name in config.CANDIDATES]))]))


@server.feature(types.WORKSPACE_DID_CHANGE_WATCHED_FILES)
def watched_files_changed(ls, params):
    if any(is_settings_file(change.uri) for change in params.changes):
        recheck_all(ls)


@server.feature(types.TEXT_DOCUMENT_DID_OPEN)
def did_open(ls, params):
    uri = params.text_document.uri
    if is_settings_file(uri):  # not Python; watched for its saves instead
        return
    edited(ls, uri)
    schedule(ls, uri, 0)


@server.feature(types.TEXT_DOCUMENT_DID_CHANGE)
def did_change(ls, params):
    uri = params.text_document.uri
    if uri in ls.stamps:
        edited(ls, uri)
        schedule(ls, uri, DEBOUNCE)


@server.feature(types.TEXT_DOCUMENT_DID_SAVE)
def did_save(ls, params):
    uri = params.text_document.uri
    if is_settings_file(uri):
        recheck_all(ls)
    elif uri in ls.stamps:
        schedule(ls, uri, 0)


@server.feature(types.TEXT_DOCUMENT_DID_CLOSE)
def did_close(ls, params):
    uri = params.text_document.uri
    pending = ls.timers.pop(uri, None)
    if pending is not None:
        pending.cancel()
    ls.jobs.forget(uri)
    for remembered in (ls.stamps, ls.good_settings, ls.settings_errors):
        remembered.pop(uri, None)
    ls.text_document_publish_diagnostics(types.PublishDiagnosticsParams(uri=uri, diagnostics=[]))


@server.feature(types.TEXT_DOCUMENT_CODE_ACTION, types.CodeActionOptions(
    code_action_kinds=[types.CodeActionKind.QuickFix, FIX_ALL]))
async def code_action(ls, params):
    uri = params.text_document.uri
    job = snapshot(ls, uri)
    if job is None:
        return []
    if uri in ls.timers:  # a check is due: run it now, and the actions reuse it
        ls.timers.pop(uri).cancel()
        start_publish(ls, uri)
    where = params.range
    wanted = (where.start.line, where.start.character, where.end.line, where.end.character)
    only = [str(kind) for kind in params.context.only] if params.context.only else None
    try:
        return await ls.jobs.run(uri, job[1], "actions_job", *job, wanted, only)
    except lsp_worker.Superseded:  # LSP's answer for a request made stale by an edit
        raise JsonRpcContentModified("the document changed")
    except lsp_worker.JobFailed as error:
        log.error("cglint: no code actions for %s: %s", uri, error)
        return []


# ------------------------------------------------------------------- the worker's side

WORKER_CALLS = frozenset({"publish_job", "actions_job"})
_CACHED = 4  # documents whose last check a worker keeps, for the code actions that follow
_checked = collections.OrderedDict()  # uri -> Checked
_converter = None


class Checked:
    """One check of one buffer, in a worker."""

    def __init__(self, stamp, path, settings, settings_error, text, document, result):
        self.stamp, self.path, self.settings = stamp, path, settings
        self.settings_error, self.text, self.document, self.result = \
            settings_error, text, document, result
        self._commentable = self._directives = None

    # Both tokenize the whole text (a second or more for 5 MB): once, and only when asked.
    @property
    def commentable(self):
        """Lines that can take a trailing `# noqa` comment."""
        if self._commentable is None:
            self._commentable = commentable_lines(self.text)
        return self._commentable

    @property
    def directives(self):
        """The buffer's `# noqa` comments: those its check read, when it read them."""
        if self._directives is None:
            self._directives = self.result.directives or suppress.scan(self.text)
        return self._directives


def settings_for(path):
    """Settings for a file, from the closest settings file above it (read anew each time,
    so an edited pyproject.toml applies at the next check)."""
    return config.settings_for(path)


def check_buffer(uri, stamp, path, source, encoding, fallback, fresh):
    """The Checked of a buffer. Code actions reuse the check of the same text; publishing
    checks anew, so that a save also picks up an edited settings file."""
    remembered = _checked.get(uri)
    if not fresh and remembered is not None and remembered.stamp == stamp:
        _checked.move_to_end(uri)
        return remembered
    try:
        settings, error = settings_for(path), ""
    except config.ConfigError as problem:
        settings = fallback or config.resolve(config.Config(), config.Config())
        error = str(problem)
    # Line ends as the command line sees them, so positions match on every platform.
    text = source.replace("\r\n", "\n").replace("\r", "\n")
    if settings.excluded(path):
        result = engine.Result(path)
    else:
        # An editor keeps a file's BOM out of the buffer: the file on disk says.
        result = check.check_alone(path, text, settings.options_for(path),
                                   files.starts_with_bom(path))
    document = TextDocument(uri, source, position_codec=PositionCodec(encoding))
    checked = _checked[uri] = Checked(stamp, path, settings, error, text, document, result)
    _checked.move_to_end(uri)
    while len(_checked) > _CACHED:
        _checked.popitem(last=False)
    return checked


# Checked once by a process before it serves, so that its first real check does not pay
# for the rules' imports and tables. It uses every kind of fact the rules ask for (custom
# gradients, variables, a gradient override map, a project module's import, an f-string),
# in a folder that does not exist: the project facts it asks for find nothing to read.
WARM_UP_PATH = os.path.join(os.sep, "nonexistent-cglint-warm-up", "warm_up.py")
WARM_UP_TEXT = '''import tensorflow as tf

from layers import scale


@tf.custom_gradient
def clip(x, scale=1.0):
    w = tf.get_variable("w", [1])

    def grad(dy, variables=None):
        tf.Print(dy, [dy])
        return dy * w * scale

    return tf.identity(x), grad


with tf.get_default_graph().gradient_override_map({"Identity": "Clipped"}):
    y = clip(tf.constant([1.0]), 2.0)
print(f"{y}")
'''


def warm_up():
    """Check WARM_UP_TEXT as an editor buffer, and forget it. Never fails: a process
    that could not warm up checks as well, only its first check is slower."""
    uri = "untitled:cglint-warm-up"
    try:
        publish_job(uri, 0, WARM_UP_PATH, WARM_UP_TEXT, "utf-16", None)
    except Exception:  # the first real check will say what is wrong
        log.debug("cglint: warm-up check failed", exc_info=True)
    finally:
        _checked.pop(uri, None)


def unstructured(value):
    global _converter
    if _converter is None:
        _converter = default_converter()
    return _converter.unstructure(value)


def publish_job(uri, stamp, path, source, encoding, fallback):
    """{diagnostics (LSP JSON), settings, settings_error, error} of a fresh check."""
    checked = check_buffer(uri, stamp, path, source, encoding, fallback, fresh=True)
    document = checked.document
    lines = document.lines
    return {
        "diagnostics": unstructured([to_lsp(document, d, lines)
                                     for d in checked.result.diagnostics]),
        "settings": checked.settings,
        "settings_error": checked.settings_error,
        "error": checked.result.error,
    }


def actions_job(uri, stamp, path, source, encoding, fallback, wanted, only):
    """The code actions (LSP JSON) for the range `wanted` (start line, start character,
    end line, end character), of the kinds in `only` (None: all)."""
    checked = check_buffer(uri, stamp, path, source, encoding, fallback, fresh=False)
    document, result, text = checked.document, checked.result, checked.text
    where = types.Range(types.Position(*wanted[:2]), types.Position(*wanted[2:]))
    actions = []
    if not only or types.CodeActionKind.QuickFix in only:
        lines = document.lines
        for diagnostic, edits in sorted(result.fixes):
            if not _overlaps(to_range(document, diagnostic, lines), where):
                continue
            safe = is_safe(edits)  # an unsafe fix is offered, never preferred
            actions.append(types.CodeAction(
                title="cglint: fix %s (%s)%s" % (diagnostic.code, diagnostic.message,
                                                 "" if safe else " [unsafe]"),
                kind=types.CodeActionKind.QuickFix,
                diagnostics=[to_lsp(document, diagnostic, lines)],
                is_preferred=safe,
                edit=_workspace_edit(uri, [_text_edit(document, edit) for edit in edits]),
            ))
        actions += ignore_actions(uri, checked, where)
    if result.fixes and (not only or any(FIX_ALL.startswith(kind) for kind in only)):
        settings, path = checked.settings, checked.path
        fixed = autofix.fix_text(path, text, settings.options_for(path), result,
                                 bom=files.starts_with_bom(path))
        if fixed.text != text:
            whole = types.Range(types.Position(0, 0), _end(document))
            actions.append(types.CodeAction(
                title="cglint: fix all safe fixes in this file", kind=FIX_ALL,
                edit=_workspace_edit(uri, [types.TextEdit(whole, _newlines_like(
                    fixed.text, document.source))])))
    return unstructured(actions)


def ignore_actions(uri, checked, where):
    """"Ignore CGxxx for this line" for each finding on the lines of `where`: a
    `# noqa: CGxxx` on the finding's line (or its function's def or decorator lines),
    merged into a `# noqa` comment already there."""
    document = checked.document
    lines = document.lines
    actions, seen = [], set()
    for diagnostic in checked.result.diagnostics:
        if diagnostic.code in NOT_IGNORABLE or (diagnostic.line, diagnostic.code) in seen:
            continue
        found = to_range(document, diagnostic, lines)
        if not where.start.line <= found.end.line or not found.start.line <= where.end.line:
            continue  # a cursor anywhere on the finding's lines is enough
        seen.add((diagnostic.line, diagnostic.code))
        for line in (diagnostic.line,) + tuple(diagnostic.noqa_lines):
            edit = noqa_edit(lines, line, diagnostic.code, checked.directives.inline.get(line),
                             checked.commentable)
            if edit is None:
                continue
            actions.append(types.CodeAction(
                title="cglint: ignore %s for this line" % diagnostic.code,
                kind=types.CodeActionKind.QuickFix,
                diagnostics=[to_lsp(document, diagnostic, lines)],
                edit=_workspace_edit(uri, [_text_edit(document, edit)])))
            break
    return actions


def noqa_edit(lines, line, code, noqa, commentable):
    """The autofix-style Edit adding `code` to line `line`'s `# noqa`, or None when that
    line cannot take one (inside a string, a continued line) or already silences it."""
    if noqa is not None:
        if not noqa.codes or any(code.startswith(known) for known in noqa.codes):
            return None
        return autofix_edit(line, noqa.start, noqa.end,
                            "# noqa: " + ", ".join(noqa.codes + (code,)))
    if line not in commentable or line > len(lines):
        return None
    content = lines[line - 1].rstrip("\r\n")
    kept = len(content.rstrip())
    return autofix_edit(line, kept, len(content), "  # noqa: " + code)


def autofix_edit(line, start, end, text):
    """An Edit (1-based line and columns, as fixes have) replacing columns [start, end)."""
    return Edit(Span(line, start + 1, line, end + 1), text)


def commentable_lines(text):
    """Line numbers whose end is outside any string and not continued by a backslash:
    where an added comment is a comment. Lines after a tokenizer error are left out."""
    ends_in_token, continued, commented, reached = set(), set(), set(), None
    try:
        for kind, string, start, end, _ in tokenize.generate_tokens(io.StringIO(text).readline):
            reached = end[0]
            if end[0] > start[0] and kind not in (tokenize.NEWLINE, tokenize.NL):
                ends_in_token.update(range(start[0], end[0]))
            if kind == tokenize.COMMENT:
                commented.add(start[0])
    except (tokenize.TokenError, SyntaxError):
        pass
    lines = text.split("\n")
    last = len(lines) if reached is None else min(reached, len(lines))
    for number in range(1, last + 1):
        if lines[number - 1].rstrip().endswith("\\") and number not in commented:
            continued.add(number)
    return set(range(1, last + 1)) - ends_in_token - continued


def client_range(document, span, lines=None):
    """The LSP Range of a Span: cglint counts characters from 1, the client (by default)
    UTF-16 code units from 0. The one place positions are converted for the editor."""
    # `lines` splits the whole buffer on each access: pass it in when converting many
    # spans (12,000 findings in a 5 MB buffer took minutes, one split each).
    lines = document.lines if lines is None else lines
    codec = document.position_codec
    return types.Range(
        start=codec.position_to_client_units(lines, types.Position(span.line - 1, span.col - 1)),
        end=codec.position_to_client_units(
            lines, types.Position(span.end_line - 1, span.end_col - 1)),
    )


def to_range(document, diagnostic, lines=None):
    lines = document.lines if lines is None else lines
    end_line, end_col = diagnostic.end_line, diagnostic.end_col
    if not end_line:  # no end known (CG002): mark the rest of the line
        end_line = diagnostic.line
        end_col = len(lines[diagnostic.line - 1].rstrip("\r\n")) + 1 \
            if diagnostic.line <= len(lines) else diagnostic.col
    return client_range(document, Span(diagnostic.line, diagnostic.col, end_line, end_col),
                        lines)


def to_lsp(document, diagnostic, lines=None):
    # codeDescription links the rule's page (docs/rules/CODE.md), as JSON and SARIF do.
    return types.Diagnostic(
        range=to_range(document, diagnostic, lines),
        message=diagnostic.message,
        severity=types.DiagnosticSeverity.Error,
        code=diagnostic.code,
        code_description=types.CodeDescription(href=ruledocs.url(diagnostic.code))
        if diagnostic.code in engine.rules() else None,
        source="cglint",
    )


def _text_edit(document, edit):
    return types.TextEdit(range=client_range(document, edit.span),
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
    server.start_io()
    return server.exit_code
