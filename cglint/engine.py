"""Run the rules: over one file's text (parse, facts, every enabled rule), and over the
summaries of a whole run. The stages around it (reading, `noqa`) are cglint.check's."""
import functools

from cglint import interrupts, project
from cglint.diagnostics import Diagnostic, Result
from cglint.facts import ModuleFacts
from cglint.options import Options  # noqa: F401 (engine.Options: what a check is for)
from cglint.parse import parse
from cglint.rules import all_rules as rules
from cglint.rules.base import Rule


@functools.lru_cache(maxsize=None)
def enabled(options):
    """The codes `options` selects: the one place select and ignore are applied. Rules
    outside it never run, and CG001-CG003 are never reported."""
    return frozenset(code for code in rules() if options.selected(code))


def lint_text(path, text, options, bom=False):
    """Result of the enabled rules on one decoded text (no `noqa` applied yet); `bom`: its
    bytes began with a UTF-8 BOM."""
    result = Result(path)
    codes = enabled(options)
    try:
        _lint(result, text, options, codes, bom)
    except RecursionError:
        result.diagnostics = []
        if "CG001" in codes:
            result.diagnostics.append(
                Diagnostic(path, 1, 1, "CG001", "too deeply nested to analyse"))
    except Exception as error:  # a cglint bug: say so, and let the run go on
        interrupts.raise_stop_behind(error)
        result.error = "%s: %s" % (type(error).__name__, error)
    result.diagnostics.sort()
    return result


def _lint(result, text, options, codes, bom=False):
    project.current().absent_lookups()  # only this file's lookups count
    project.current().checking(result.path, text)
    parsed = parse(text, options.target_python)
    if parsed.error and "CG001" in codes:
        line, col, message = parsed.error
        result.diagnostics.append(Diagnostic(result.path, line, col, "CG001", message))
    if parsed.tree is None:
        return
    module = ModuleFacts(result.path, text, parsed, options.target_python, options.target_tf)
    module.bom = bom or text.startswith("\ufeff")
    # Only files that name tensorflow can hold a TensorFlow hazard of their own: skip
    # those rules (and the name resolution they need) everywhere else, but for the calls
    # of other project modules' custom-gradient functions, which need an import.
    mentions_tensorflow = "tensorflow" in text
    imports = not mentions_tensorflow and "import" in text
    seen = set()
    for code, rule in rules().items():
        if code not in codes or (rule.needs_tensorflow and not mentions_tensorflow and not (
                imports and rule.judges_project_calls)):
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
    # Besides the project files its findings were drawn from, those its imports looked
    # for and did not find: one that appears later changes them.
    dependencies = set(module.dependencies) | set(project.current().absent_lookups())
    result.dependencies = tuple(sorted(dependencies, key=lambda d: d.path))


@functools.lru_cache(maxsize=None)
def run_level_codes():
    """Codes of the rules that judge the whole run (they override check_run)."""
    return tuple(code for code, rule in rules().items()
                 if type(rule).check_run is not Rule.check_run)


def finish_run(results):
    """Diagnostics of the rules that judge the whole run, from every file's summaries
    (each file's own options decide later which of them it reports)."""
    found = []
    for code in run_level_codes():
        summaries = {r.path: r.summaries[code] for r in results if code in r.summaries}
        if summaries:
            found.extend(Diagnostic.at(finding.path, finding.span, code, finding.message,
                                       finding.noqa_lines)
                         for finding in rules()[code].check_run(summaries))
    return sorted(found)
