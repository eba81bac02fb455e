"""One file through the whole per-file pipeline: decode, lint, then the `noqa` comments.

The command line, the process pool, the language server and the flake8 adapter all call
this, so a finding silenced in one place is silenced in every one.
"""
from cglint import engine, files, suppress
from cglint.diagnostics import Diagnostic


def check_bytes(path, data, options, report_unused_noqa=False):
    """engine.Result for a file's bytes: CG002 when they do not decode."""
    loaded = files.decode(path, data)
    if isinstance(loaded, files.Unreadable):
        return unreadable(path, loaded.message, options, loaded.line, loaded.col)
    return check_text(path, loaded.text, options, report_unused_noqa)


def check_text(path, text, options, report_unused_noqa=False):
    """engine.Result for a decoded text, with its `noqa` comments applied."""
    directives = suppress.scan(text)
    if directives.skip_file:
        return engine.Result(path)
    result = engine.lint_text(path, text, options)
    if directives is suppress.NONE and not report_unused_noqa:
        return result
    kept, noqa_fixes = suppress.apply(
        result.diagnostics, directives, path, options.selected,
        report_unused_noqa and options.selected(suppress.UNUSED_CODE))
    kept_set = set(kept)
    result.diagnostics = sorted(kept)
    result.fixes = [fix for fix in result.fixes if fix[0] in kept_set] + noqa_fixes
    return result


def unreadable(path, message, options, line=1, col=1):
    result = engine.Result(path)
    if options.selected("CG002"):
        result.diagnostics.append(Diagnostic(path, line, col, "CG002", message))
    return result
