"""Apply a file's fixes (the safe ones unless asked) and check it again, until nothing more is fixable.

A fix can make another one possible (or stale), so, like ruff, fix in passes: each pass
applies the fixes whose edits do not overlap, then re-checks the new text. A file that does
not parse, or parses only as Python 2, is never touched, and a fix whose result would not
parse is left out (and said), not the others with it.
"""
import io
import re
import sys
import tokenize
from dataclasses import dataclass, field, replace

from cglint import check, files
from cglint.fix import apply_edits, encode_like
from cglint.parse import parse
from cglint.rules.base import is_safe

MAX_PASSES = 10


@dataclass
class Fixed:
    text: str  # the text after every applied fix (the input text when none applied)
    result: object  # engine.Result of `text`
    applied: int  # how many findings the fixes removed
    # Diagnostics (of `text`) whose fix was not applied because its result would not
    # parse; their fix is taken off `result`, so nothing counts or offers them as fixable.
    rejected: list = field(default_factory=list)


def fix_text(path, text, options, result=None, unsafe=False, bom=False):
    """Fixed for a decoded text; `result` is its engine.Result when already known.
    `unsafe` applies the fixes marked unsafe too (`--unsafe-fixes`); `bom`: the bytes
    began with a UTF-8 BOM. A fix whose result would not parse (a cglint bug) is left out
    and said on standard error, as ruff does; the others are applied."""
    result = result or check.check_text(path, text, options, bom)
    if not _applicable(result.fixes, unsafe) or not _parses(text, options, python3=True):
        # A Python 2 file is never fixed, CG003's comment edits included: its findings
        # come from a rewritten text.
        return Fixed(text, result, 0)
    before = len(result.diagnostics)
    rejected = set()  # _fix_key of each fix whose result would not parse
    for _ in range(MAX_PASSES):
        fixes = [fix for fix in _applicable(result.fixes, unsafe)
                 if _fix_key(fix) not in rejected]
        candidate = _parsing_candidate(text, fixes, options, rejected)
        if candidate == text:
            break
        text = candidate
        result = check.check_text(path, text, options, bom)
        if not _applicable(result.fixes, unsafe):
            break
    refused = [d for d in result.diagnostics if d.fix and _fix_key((d, d.fix)) in rejected]
    if refused:
        result = replace(result, diagnostics=[
            replace(d, fix=None) if d in refused else d for d in result.diagnostics])
        for diagnostic in refused:
            sys.stderr.write("cglint: %s:%d:%d: not applying the %s fix: the file would not "
                             "parse after it (a cglint bug, please report it)\n" % (
                                 diagnostic.path, diagnostic.line, diagnostic.col,
                                 diagnostic.code))
    return Fixed(text, result, max(0, before - len(result.diagnostics)), refused)


def _applicable(fixes, unsafe):
    return fixes if unsafe else [fix for fix in fixes if is_safe(fix[1])]


def _fix_key(fix):
    """What identifies a fix from one pass to the next (its positions may move)."""
    diagnostic, edits = fix
    return diagnostic.code, diagnostic.message, tuple(edit.text for edit in edits)


def _parsing_candidate(text, fixes, options, rejected):
    """`text` with the edits of as many fixes as apply together and leave it parsing. A
    fix whose result alone would not parse goes into `rejected` (keys); one that breaks
    only next to another waits for the next pass."""
    edits = _compatible_edits(text, fixes)
    if not edits:
        return text
    candidate = apply_edits(text, edits)
    if _parses(candidate, options):
        return candidate
    chosen = []
    for fix in sorted(fixes, key=lambda fix: fix[0]):
        try:
            candidate = apply_edits(text, chosen + list(fix[1]))
        except ValueError:  # overlaps a chosen fix: the next pass
            continue
        if _parses(candidate, options):
            chosen.extend(fix[1])
        elif not chosen or not _parses(apply_edits(text, fix[1]), options):
            rejected.add(_fix_key(fix))
    return apply_edits(text, chosen) if chosen else text


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


def _parses(text, options, python3=False):
    """Whether `text` parses for the target (`python3`: and not only through the Python 2
    rewrite)."""
    parsed = parse(text, options.target_python)
    return parsed.tree is not None and parsed.error is None and not (
        python3 and parsed.python2_syntax)


_LINE_ENDING = re.compile(r"(\r\n|\r|\n)")


def encode_like_original(fixed_text, data):
    """The bytes to write for `fixed_text` (newlines read as "\\n") in place of the file
    whose bytes were `data`: its encoding and BOM, and every line the fixes left alone with
    the line ending it had, so a file mixing "\\n" and "\\r\\n" (inside a triple-quoted
    string too) changes only where a fix changed it. A changed line keeps the ending of
    the line it replaces; a new line takes the one before it."""
    source = files.decode("", data)
    if isinstance(source, files.Unreadable):
        raise ValueError("the original bytes do not decode")
    raw = data.decode(source.encoding)
    if source.bom:
        raw = raw.lstrip("\ufeff")
    pieces = _LINE_ENDING.split(raw)
    old_lines, endings = pieces[0::2], pieces[1::2] + [""]
    new_lines = fixed_text.split("\n")
    if old_lines != source.text.split("\n"):  # cannot happen: decode() made text from raw
        return encode_like(fixed_text, data)
    usual = endings[0] or "\n"
    out = []

    def emit(line, ending, last):
        out.append(line)
        out.append("" if last else (ending or usual))

    if len(old_lines) == len(new_lines):  # the usual fix: lines edited, none added
        for number, line in enumerate(new_lines):
            emit(line, endings[number], number == len(new_lines) - 1)
    else:
        import difflib  # only fixes that add or remove lines need it

        matcher = difflib.SequenceMatcher(None, old_lines, new_lines)
        for tag, i1, i2, j1, j2 in matcher.get_opcodes():
            for j in range(j1, j2):
                if tag == "equal":
                    ending = endings[i1 + j - j1]
                elif i2 > i1:
                    ending = endings[min(i1 + j - j1, i2 - 1)]
                else:
                    ending = endings[i1 - 1] if i1 else endings[0]
                emit(new_lines[j], ending, j == len(new_lines) - 1)
    text = "".join(out)
    encoding, _ = tokenize.detect_encoding(io.BytesIO(data).readline)
    if encoding == "utf-8-sig" and text.startswith("\ufeff"):
        encoding = "utf-8"
    return text.encode(encoding)
