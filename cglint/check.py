"""The one pipeline every caller uses (the command line, the process pool, the language
server, the flake8 adapter, --fix, the tests): decode, lint, then the `noqa` comments,
file by file; then the whole-run findings, filtered by each file's own options and
`noqa` comments, which each Result keeps, so no file is read twice."""
from cglint import engine, files, project, suppress
from cglint.diagnostics import Diagnostic, Result


def check_bytes(path, data, options):
    """Result for a file's bytes: CG002 when they do not decode."""
    loaded = files.decode(path, data)
    if isinstance(loaded, files.Unreadable):
        return unreadable(path, loaded.message, options, loaded.line, loaded.col)
    return check_text(path, loaded.text, options, loaded.bom)


def check_text(path, text, options, bom=False):
    """Result for a decoded text, with its `noqa` comments applied (and kept in it).
    `bom`: the bytes began with a UTF-8 BOM (which declares their encoding)."""
    # Here, not in files.decode, so that editor buffers and flake8 are bounded as well.
    too_long = files.too_many_lines(text)
    if too_long:
        return unreadable(path, too_long, options, files.MAX_LINES + 1)
    directives = suppress.scan(text)
    if directives.skip_file:
        return Result(path)
    result = engine.lint_text(path, text, options, bom)
    result.directives = directives
    report_unused = options.report_unused_noqa and suppress.UNUSED_CODE in engine.enabled(
        options)
    if directives is suppress.NONE and not report_unused:
        return result
    codes = engine.enabled(options)
    run_level_codes = engine.run_level_codes()

    def judged(code):
        # Whole-run findings come later (finish below): their noqa codes are not unused.
        return code in codes and not code.startswith(run_level_codes)

    result.diagnostics = sorted(suppress.apply(result.diagnostics, directives, path, judged,
                                               report_unused))
    return result


def finish(results, options_for):
    """Add the whole-run findings to the results of a run, each kept only when its file's
    options (options_for(path)) enable its code and its file's `noqa` comments let it be."""
    by_path = {result.path: result for result in results}
    found = engine.finish_run(results)
    for path in sorted({diagnostic.path for diagnostic in found}):
        result = by_path[path]
        codes = engine.enabled(options_for(path))
        mine = [d for d in found if d.path == path and d.code in codes]
        if result.directives is not None:
            mine = suppress.apply(mine, result.directives, path)
        if mine:
            result.diagnostics = sorted(result.diagnostics + mine)
    return results


def check_alone(path, text, options, bom=False):
    """check_text plus the whole-run findings of a run made of this one file (an editor
    buffer, a flake8 file)."""
    project.new_run()
    return finish([check_text(path, text, options, bom)], lambda _: options)[0]


def check_texts(texts, options):
    """Results of a run over {path: text}, whole-run findings included (for tests and
    tools that hold the texts)."""
    project.new_run()
    return finish([check_text(path, text, options) for path, text in texts.items()],
                  lambda _: options)


def unreadable(path, message, options, line=1, col=1):
    result = Result(path)
    if "CG002" in engine.enabled(options):
        result.diagnostics.append(Diagnostic(path, line, col, "CG002", message))
    return result
