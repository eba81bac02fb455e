"""`path:line:col: CODE message`, the line format of flake8 and ruff that editors parse.

A file name may hold any byte but `/` and NUL: a newline or an escape sequence in one
must not reach the terminal raw (it could forge findings, or drive the terminal), so
control characters are shown as Python escapes (`\\n`, `\\x1b`), as are the Unicode ones
that reorder or break lines. JSON and SARIF keep the exact name.

As in ruff, `[*]` before the message marks a finding `--fix` can fix, and with
--show-source each finding is followed by its line (and the one before), the span
underlined; source lines are escaped the same way.
"""
import re

_UNPRINTABLE = re.compile("[\x00-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069]")
_NAMED = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}


def _escape(match):
    character = match.group()
    return _NAMED.get(character) or ("\\x%02x" % ord(character) if ord(character) < 0x100
                                     else "\\u%04x" % ord(character))


def printable(text):
    """`text` with every control character escaped, for a terminal or a log."""
    return _UNPRINTABLE.sub(_escape, text)


FIX_MARK = "[*]"


class Paint:
    """ANSI styles, or nothing when color is off."""

    def __init__(self, enabled):
        self.enabled = enabled

    def __call__(self, text, style):
        if not self.enabled or not text:
            return text
        return "\033[%sm%s\033[0m" % (style, text)


BOLD, RED, CYAN, BLUE = "1", "1;31", "36", "34"


def write(out, findings, run=None):
    paint = Paint(run.color if run else False)
    show_source = run is not None and run.show_source and run.lines_of is not None
    for diagnostic, edits in findings:
        out.write(finding_line(diagnostic, edits, paint) + "\n")
        if show_source:
            out.writelines(code_frame(diagnostic, run.lines_of(diagnostic.path), paint))


def finding_line(diagnostic, edits, paint):
    """The finding's line; a control character in a file name or in source text quoted
    by the message is escaped like the code frame's."""
    mark = paint(FIX_MARK, CYAN) + " " if edits else ""
    return "%s:%d:%d: %s %s%s" % (paint(printable(diagnostic.path), BOLD), diagnostic.line,
                                  diagnostic.col, paint(diagnostic.code, RED), mark,
                                  printable(diagnostic.message))


def visible(text):
    """A source line as a code frame shows it: tabs expanded, the rest printable()."""
    return printable(text.expandtabs(4))


def code_frame(diagnostic, lines, paint):
    """The lines of a frame: the line before the finding, its line with the span
    underlined (to the end of the line when the span goes on), then a blank line."""
    if not lines or not 1 <= diagnostic.line <= len(lines):
        return []
    number = diagnostic.line
    width = len(str(number))

    def row(label, text):
        return ("%s %s" % (paint(label.rjust(width) + " |", BLUE), text)).rstrip() + "\n"

    frame = [row("", "")]
    if number > 1:
        frame.append(row(str(number - 1), visible(lines[number - 2])))
    text = lines[number - 1]
    frame.append(row(str(number), visible(text)))
    start = diagnostic.col - 1
    same_line = diagnostic.end_line == number and diagnostic.end_col > diagnostic.col
    end = diagnostic.end_col - 1 if same_line else len(text)
    # Escapes and tabs widen the text: measure what is actually printed.
    before = len(visible(text[:start]))
    carets = "^" * max(1, len(visible(text[:end])) - before)
    frame.append(row("", " " * before + paint(carets, RED) + " " + paint(diagnostic.code, RED)))
    frame.append(row("", "") + "\n")
    return frame
