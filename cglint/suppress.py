"""`# noqa` comments: which findings they silence, and which of their codes silence nothing.

Directives are read from comment tokens, so `"# noqa"` inside a string is text, not a
directive. The standard tokenizer comes first; Python 2 sources it rejects (tab/space
mixes on 3.12+, backticks) go to fissix's Python 2 tokenizer; whatever both reject keeps
the comments read before the error.
"""
import io
import re
import tokenize
from dataclasses import dataclass

from cglint.diagnostics import Diagnostic, Edit
from cglint.source import Span

UNUSED_CODE = "CG003"
_CODES = r"[A-Z]+[0-9]+(?:[,\s]+[A-Z]+[0-9]+)*"
# flake8's grammar: `# noqa`, `# noqa: CG101`, `# noqa:CG101,CG102`, anywhere in a comment.
_INLINE = re.compile(r"#\s*noqa(?![\w-])(?::\s*(?P<codes>%s))?" % _CODES, re.IGNORECASE)
# ruff's `# ruff: noqa` for a whole file, as `# cglint: noqa` alone on its line.
_FILE = re.compile(r"#\s*cglint\s*:\s*noqa(?::\s*(?P<codes>%s))?\s*$" % _CODES,
                   re.IGNORECASE)
_QUICK = re.compile(r"noqa", re.IGNORECASE)
_CG_CODE = re.compile(r"^CG\d+$")


@dataclass(frozen=True)
class Noqa:
    """One inline directive. Columns are 0-based, end exclusive."""

    line: int
    start: int  # where the directive (`# noqa...`) starts
    end: int
    codes: tuple  # () for a bare `# noqa`, which silences everything on the line
    # How to remove the directive and leave valid code: from `cut` to `cut_end`, put `rest`.
    cut: int
    cut_end: int
    rest: str
    # The comment is all the line holds, and a line break ends it: removing the directive
    # removes the line (as ruff does), not leaves a blank one behind.
    own_line: bool = False


@dataclass(frozen=True)
class Directives:
    inline: dict  # line -> Noqa
    file_codes: tuple = None  # None: no file directive; (): skip the file; else codes

    @property
    def skip_file(self):
        return self.file_codes == ()


NONE = Directives({})


def _may_hold_noqa(text):
    # One search of the lowered text: three times faster than four plain substring tests
    # of the spellings of `qa`, ten times faster than a case-blind regex search.
    return "noqa" in text.lower()


def scan(text):
    """The Directives of a source text."""
    if not _may_hold_noqa(text):  # most files: no tokenizing at all
        return NONE
    inline, file_codes = {}, None
    # Comments after the last line that holds `noqa` cannot be directives: the tokenizer
    # stops there (most directives sit on the imports, at the top).
    last = text.count("\n", 0, max((match.start() for match in _QUICK.finditer(text)),
                                    default=len(text))) + 1
    for line, col, comment, source_line in _comments(text, last):
        whole = _FILE.match(comment)
        if whole and not source_line[:col].strip():
            codes = _split(whole.group("codes"))
            if file_codes != ():  # once bare, the whole file is skipped whatever follows
                file_codes = codes if file_codes is None or not codes else file_codes + codes
            continue
        match = _INLINE.search(comment)
        if match:
            cut, cut_end, rest = _cut(comment, col, match, source_line)
            own_line = (cut == 0 and not rest and source_line.endswith("\n")
                        and not source_line[cut_end:].strip())
            inline[line] = Noqa(line, col + match.start(), col + match.end(),
                                _split(match.group("codes")), cut, cut_end, rest, own_line)
    return Directives(inline, file_codes)


def _cut(comment, col, match, source_line):
    """(cut, cut_end, rest): what removing the directive replaces, and with what."""
    end = col + match.end()
    if match.start():  # `# type: ignore  # noqa`: drop it and the blanks before it
        return col + len(comment[:match.start()].rstrip()), end, ""
    after = comment[match.end():].strip()
    if after.startswith("#"):  # `# noqa: CG101  # why`: the second comment stays as it is
        if not source_line[:col].strip():
            # alone on its line: the second comment takes its place, indented as it was
            return col, col + comment.index("#", match.end()), ""
        # after code: the blanks before the directive go (`x = 1  # why`, not four blanks)
        return len(source_line[:col + match.start()].rstrip()), end, ""
    if after:  # `# noqa: CG101 why`: keep `# why`
        return col + match.start(), end, "#"
    return len(source_line[:col].rstrip()), end, ""  # the whole comment, and the blanks before


def _split(codes):
    return tuple(code.upper() for code in re.split(r"[,\s]+", codes or "") if code)


def _comments(text, last_line):
    """(line, col, comment, source line) of each comment token up to `last_line`."""
    found, reached = _tokenize(tokenize.generate_tokens, tokenize.COMMENT, text, last_line)
    if reached is None:
        return found
    from fissix.pgen2 import token as fissix_token  # only Python 2 sources pay its import
    from fissix.pgen2 import tokenize as fissix_tokenize

    fallback, fallback_reached = _tokenize(fissix_tokenize.generate_tokens,
                                           fissix_token.COMMENT, text, last_line)
    if fallback_reached is None or fallback_reached > reached:
        return fallback
    return found


def _tokenize(generate, comment_type, text, last_line):
    """(comments, None) for a text that tokenizes up to `last_line`, else (comments before
    the error, line)."""
    found, line = [], 0
    try:
        for token_type, string, start, _, source_line in generate(io.StringIO(text).readline):
            line = start[0]
            if line > last_line:
                break
            if token_type == comment_type:
                found.append((start[0], start[1], string, source_line))
    except Exception:  # each tokenizer has its own errors; keep what was read before
        return found, line
    return found, None


def apply(diagnostics, directives, path, enabled=None, report_unused=False):
    """The diagnostics the directives keep; with `report_unused`, and a CG003 finding (with
    its fix) for each directive code that silenced nothing, where `enabled(code)` says the
    code's rule ran (a code of a rule that did not run might well be needed)."""
    used = set()
    kept = []
    for diagnostic in diagnostics:
        if directives.file_codes and diagnostic.code.startswith(directives.file_codes):
            continue
        silenced = False
        for line in (diagnostic.line,) + tuple(diagnostic.noqa_lines):
            noqa = directives.inline.get(line)
            if noqa is None:
                continue
            if not noqa.codes:
                silenced = True
                continue
            for code in noqa.codes:
                if diagnostic.code.startswith(code):
                    used.add((line, code))
                    silenced = True
        if not silenced:
            kept.append(diagnostic)
    if report_unused:
        for noqa in sorted(directives.inline.values(), key=lambda n: n.line):
            unused = [code for code in noqa.codes
                      if _CG_CODE.match(code) and code != UNUSED_CODE
                      and (noqa.line, code) not in used and (enabled is None or enabled(code))]
            if unused:
                kept.append(_unused_finding(path, noqa, unused))
    return kept


def _unused_finding(path, noqa, unused):
    message = "unused `noqa` code%s: %s" % ("" if len(unused) == 1 else "s", ", ".join(unused))
    return Diagnostic.at(path, Span(noqa.line, noqa.start + 1, noqa.line, noqa.end + 1),
                         UNUSED_CODE, message, fix=(_removal(noqa, unused),))


def _removal(noqa, unused):
    """An Edit dropping the unused codes, or the whole directive when none stays."""
    kept = [code for code in noqa.codes if code not in unused]
    if kept:
        return Edit(Span(noqa.line, noqa.start + 1, noqa.line, noqa.end + 1),
                    "# noqa: " + ", ".join(kept))
    if noqa.own_line:
        return Edit(Span(noqa.line, 1, noqa.line + 1, 1), "")
    return Edit(Span(noqa.line, noqa.cut + 1, noqa.line, noqa.cut_end + 1), noqa.rest)
