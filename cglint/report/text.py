"""`path:line:col: CODE message`, the line format of flake8 and ruff that editors parse.

A file name may hold any byte but `/` and NUL: a newline or an escape sequence in one
must not reach the terminal raw (it could forge findings, or drive the terminal), so
control characters are shown as Python escapes (`\\n`, `\\x1b`), as are the Unicode ones
that reorder or break lines. JSON and SARIF keep the exact name.
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


def write(out, findings):
    for diagnostic, _ in findings:
        out.write(printable(diagnostic.format_text()) + "\n")
