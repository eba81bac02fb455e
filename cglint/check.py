"""One file through the whole per-file pipeline: decode, lint, then the `noqa` comments.

The command line, the process pool, the language server and the flake8 adapter all call
this, so a finding silenced in one place is silenced in every one.
"""
from cglint import engine, files, suppress
from cglint.diagnostics import Diagnostic


def check_bytes(path, data, options):
    """engine.Result for a file's bytes: CG002 when they do not decode."""
    loaded = files.decode(path, data)
    if isinstance(loaded, files.Unreadable):
        return unreadable(path, loaded.message, options, loaded.line, loaded.col)
    return check_text(path, loaded.text, options)


def check_text(path, text, options):
    """engine.Result for a decoded text, with its `noqa` comments applied."""
    # Here, not in files.decode, so that editor buffers and flake8 are bounded as well.
    too_long = files.too_many_lines(text)
    if too_long:
        return unreadable(path, too_long, options, files.MAX_LINES + 1)
    directives = suppress.scan(text)
    if directives.skip_file:
        return engine.Result(path)
    result = engine.lint_text(path, text, options)
    if directives is suppress.NONE and not options.report_unused_noqa:
        return result
    run_level_codes = tuple(engine.run_level_codes())

    def judged(code):
        # Whole-run findings come later (run_level below): their noqa codes are not unused.
        return options.selected(code) and not code.startswith(run_level_codes)

    result.diagnostics = sorted(suppress.apply(
        result.diagnostics, directives, path, judged,
        options.report_unused_noqa and options.selected(suppress.UNUSED_CODE)))
    return result


def check_alone(path, text, options):
    """check_text plus the whole-run findings of a run made of this one file (an editor
    buffer, a flake8 file)."""
    result = check_text(path, text, options)
    extra = run_level([result], lambda _: options, lambda _: text)
    result.diagnostics = sorted(result.diagnostics + extra)
    return result


def run_level(results, options_for, texts):
    """Whole-run findings (engine.finish_run) that each file's options and noqa keep.

    options_for(path) gives a file's options, texts(path) its decoded text or None.
    """
    kept = []
    found = engine.finish_run(results, engine.Options())
    for path in sorted({d.path for d in found}):
        options = options_for(path)
        mine = [d for d in found if d.path == path and options.selected(d.code)]
        text = texts(path)
        if mine and text is not None:
            mine = suppress.apply(mine, suppress.scan(text), path)
        kept += mine
    return kept


def unreadable(path, message, options, line=1, col=1):
    result = engine.Result(path)
    if options.selected("CG002"):
        result.diagnostics.append(Diagnostic(path, line, col, "CG002", message))
    return result
