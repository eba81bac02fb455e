"""`--add-noqa`: a `# noqa: CODE` for every current finding, to adopt cglint on legacy code.

Each finding's codes go on the first line that both silences it (its own line, or for a
function its `def` and decorator lines) and can end in a comment: not inside a multi-line
string, not after a backslash continuation. An existing `# noqa: CODES` directive gets
the new codes added to it. The findings it adds codes for are silenced by them, so a
second run adds nothing.
"""
import io
import tokenize
from collections import defaultdict

from cglint import suppress
from cglint.diagnostics import Edit
from cglint.fix import apply_edits
from cglint.source import Span

# Not silenced this way: a file that does not parse or read cannot take a directive
# reliably, and an unused noqa code wants removing (`--fix`), not another noqa.
NOT_ADDED = ("CG001", "CG002", suppress.UNUSED_CODE)


def add_noqa(text, diagnostics):
    """(new text, findings silenced, findings left because no line of theirs can take a
    comment)."""
    wanted = [d for d in diagnostics if d.code not in NOT_ADDED]
    if not wanted:
        return text, 0, 0
    open_lines = comment_lines(text)
    codes_by_line = defaultdict(list)
    added = left = 0
    for diagnostic in wanted:
        line = next((line for line in (diagnostic.line,) + tuple(diagnostic.noqa_lines)
                     if line in open_lines), None)
        if line is None:
            left += 1
            continue
        added += 1
        if diagnostic.code not in codes_by_line[line]:
            codes_by_line[line].append(diagnostic.code)
    lines = text.split("\n")
    existing = suppress.scan(text).inline
    edits = []
    for line, codes in codes_by_line.items():
        noqa = existing.get(line)
        if noqa is not None and noqa.codes:  # `# noqa: CG101` becomes `# noqa: CG101, CG103`
            new = [code for code in codes if code not in noqa.codes]
            edits.append(Edit(Span(line, noqa.end + 1, line, noqa.end + 1),
                              "".join(", " + code for code in new)))
            continue
        source = lines[line - 1]
        end = len(source.rstrip())
        edits.append(Edit(Span(line, end + 1, line, len(source) + 1),
                          "  # noqa: " + ", ".join(sorted(codes))))
    return apply_edits(text, edits), added, left


def comment_lines(text):
    """Line numbers whose end may take a comment: those the tokenizer ends with a NEWLINE,
    NL or COMMENT token (Python 2 sources through fissix's tokenizer)."""
    lines = _ends(tokenize.generate_tokens, (tokenize.NEWLINE, tokenize.NL, tokenize.COMMENT),
                  text)
    if lines is None:
        from fissix.pgen2 import token as fissix_token
        from fissix.pgen2 import tokenize as fissix_tokenize

        lines = _ends(fissix_tokenize.generate_tokens,
                      (fissix_token.NEWLINE, fissix_token.NL, fissix_token.COMMENT), text)
    return lines or set()


def _ends(generate, kinds, text):
    found = set()
    try:
        for token_type, _, start, _, _ in generate(io.StringIO(text).readline):
            if token_type in kinds:
                found.add(start[0])
    except Exception:  # each tokenizer has its own errors: the caller tries the next one
        return None
    return found
