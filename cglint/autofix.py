"""Apply a file's fixes (the safe ones unless asked) and check it again, until nothing more is fixable.

A fix can make another one possible (or stale), so, like ruff, fix in passes: each pass
applies the fixes whose edits do not overlap, then re-checks the new text. A file that does
not parse is never touched, and a pass whose result would not parse is thrown away.
"""
from dataclasses import dataclass

from cglint import check
from cglint.fix import apply_edits
from cglint.parse import parse
from cglint.rules.base import is_safe

MAX_PASSES = 10


@dataclass
class Fixed:
    text: str  # the text after every applied fix (the input text when none applied)
    result: object  # engine.Result of `text`
    applied: int  # how many findings the fixes removed


def fix_text(path, text, options, report_unused_noqa=False, result=None, unsafe=False):
    """Fixed for a decoded text; `result` is its engine.Result when already known.
    `unsafe` applies the fixes marked unsafe too (`--unsafe-fixes`)."""
    result = result or check.check_text(path, text, options, report_unused_noqa)
    if not _applicable(result.fixes, unsafe) or not _parses(text, options):
        return Fixed(text, result, 0)
    before = len(result.diagnostics)
    for _ in range(MAX_PASSES):
        edits = _compatible_edits(text, _applicable(result.fixes, unsafe))
        if not edits:
            break
        candidate = apply_edits(text, edits)
        if candidate == text or not _parses(candidate, options):
            break
        text = candidate
        result = check.check_text(path, text, options, report_unused_noqa)
        if not _applicable(result.fixes, unsafe):
            break
    return Fixed(text, result, max(0, before - len(result.diagnostics)))


def _applicable(fixes, unsafe):
    return fixes if unsafe else [fix for fix in fixes if is_safe(fix[1])]


def _compatible_edits(text, fixes):
    """The edits of as many fixes as apply together, taken in the order of the findings;
    a fix whose edits fail alone or overlap an earlier fix waits for the next pass."""
    chosen = []
    for _, edits in sorted(fixes, key=lambda fix: fix[0]):
        try:
            apply_edits(text, chosen + list(edits))
        except ValueError:  # OverlappingEdits, or a position outside the text
            continue
        chosen.extend(edits)
    return chosen


def _parses(text, options):
    parsed = parse(text, options.target_python)
    return parsed.tree is not None and parsed.error is None
