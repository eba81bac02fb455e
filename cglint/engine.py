"""Lint one file end to end: read, parse, build facts, run the selected rules."""
import os

from cglint import files
from cglint.diagnostics import Diagnostic, Result
from cglint.facts import ModuleFacts
from cglint.options import Options  # noqa: F401 (engine.Options: what a check is for)
from cglint.parse import parse
from cglint.rules import all_rules as rules
from cglint.rules.base import Rule


def lint_path(path, options, stdin=None, display_path=None):
    shown = display_path or path
    loaded = files.load(path, stdin)
    if isinstance(loaded, files.Unreadable):
        result = Result(shown)
        _add(result, options, Diagnostic(shown, loaded.line, loaded.col, "CG002",
                                         loaded.message))
        return result
    return lint_text(shown, loaded.text, options)


def lint_text(path, text, options):
    result = Result(path)
    try:
        _lint(result, text, options)
    except RecursionError:
        result.diagnostics = []
        _add(result, options, Diagnostic(path, 1, 1, "CG001", "too deeply nested to analyse"))
    except Exception as error:  # a cglint bug: say so, and let the run go on
        result.error = "%s: %s" % (type(error).__name__, error)
    result.diagnostics.sort()
    return result


def _lint(result, text, options):
    parsed = parse(text, options.target_python)
    if parsed.error:
        line, col, message = parsed.error
        _add(result, options, Diagnostic(result.path, line, col, "CG001", message))
    if parsed.tree is None:
        return
    module = ModuleFacts(result.path, text, parsed, options.target_python, options.target_tf)
    # Only files that name tensorflow can hold a TensorFlow hazard: skip those rules
    # (and the name resolution they need) everywhere else.
    mentions_tensorflow = "tensorflow" in text
    seen = set()
    for code, rule in rules().items():
        if not options.selected(code) or (rule.needs_tensorflow and not mentions_tensorflow):
            continue
        summary = rule.summarize(module)
        if summary is not None:
            result.summaries[code] = summary
        for finding in rule.check(module):
            span = finding.span or module.span(finding.node)
            # Python 2 files are never fixed: their tree is of a rewritten text.
            diagnostic = Diagnostic.at(result.path, span, code, finding.message,
                                       finding.noqa_lines,
                                       None if parsed.python2_syntax else finding.fix)
            if diagnostic not in seen:
                seen.add(diagnostic)
                result.diagnostics.append(diagnostic)


def run_level_codes():
    """Codes of the rules that judge the whole run (they override check_run)."""
    return frozenset(code for code, rule in rules().items()
                     if type(rule).check_run is not Rule.check_run)


def finish_run(results, options):
    """Diagnostics of the rules that judge the whole run, from every file's summaries."""
    found = []
    for code, rule in rules().items():
        if not options.selected(code):
            continue
        summaries = {r.path: r.summaries[code] for r in results if code in r.summaries}
        if summaries:
            found.extend(Diagnostic.at(finding.path, finding.span, code, finding.message,
                                       finding.noqa_lines)
                         for finding in rule.check_run(summaries))
    return sorted(found)


def _add(result, options, diagnostic):
    if options.selected(diagnostic.code):
        result.diagnostics.append(diagnostic)


def display_path(path):
    return os.path.normpath(path) if path != "-" else path
