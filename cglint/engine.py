"""Lint one file end to end: read, parse, build facts, run the selected rules."""
import os
from dataclasses import dataclass, field

from cglint import files
from cglint.diagnostics import Diagnostic
from cglint.facts import ModuleFacts
from cglint.parse import parse
from cglint.rules import all_rules
from cglint.rules.base import Rule

_RULES = None


def rules():
    global _RULES
    if _RULES is None:
        _RULES = all_rules()
    return _RULES


@dataclass(frozen=True)
class Options:
    select: tuple = ()
    ignore: tuple = ()
    target_python: tuple = (2, 7)
    target_tf: str = "1.8"

    def selected(self, code):
        if self.select and not code.startswith(tuple(self.select)):
            return False
        return not code.startswith(tuple(self.ignore)) if self.ignore else True


@dataclass
class Result:
    path: str
    diagnostics: list = field(default_factory=list)
    fixes: list = field(default_factory=list)  # [(Diagnostic, tuple of Edit)]
    error: str = ""  # an internal error: a bug in cglint, never the file's fault
    summaries: dict = field(default_factory=dict)  # rule code -> Rule.summarize() data
    # Other project files the findings were drawn from (project.Dependency), so a cached
    # result is only reused while they are unchanged.
    dependencies: tuple = ()


class InternalError(Exception):
    pass


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
    module = ModuleFacts(result.path, text, parsed.tree, options.target_python,
                         parsed.python2_syntax, options.target_tf)
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
            col = parsed.original_col(finding.line, finding.col) + 1
            end_col = parsed.original_col(finding.end_line, finding.end_col) + 1
            diagnostic = Diagnostic(result.path, finding.line, col, code, finding.message,
                                    finding.end_line, end_col, finding.noqa_lines)
            if diagnostic not in seen:
                seen.add(diagnostic)
                result.diagnostics.append(diagnostic)
                if finding.fix and not parsed.python2_syntax:
                    result.fixes.append((diagnostic, finding.fix))
    result.dependencies = tuple(sorted(module.dependencies, key=lambda d: d.path))


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
            found.extend(rule.check_run(summaries))
    return sorted(found)


def _add(result, options, diagnostic):
    if options.selected(diagnostic.code):
        result.diagnostics.append(diagnostic)


def display_path(path):
    return os.path.normpath(path) if path != "-" else path
