"""Where in a source text a construct may stand, found without tokenizing.

Each finder returns the character offsets of the places that could begin its construct:
every real one, and a few false ones inside strings or comments (which only cost a look
at a statement). A finder looks at the code just before or after a token, never at what
is farther away, so it is as cheap as a search for the token itself. cglint.statements
visits the expressions of only the statements holding such an offset.
"""
import functools
import keyword
import re

# Words a `*` unpacking may follow (`return *a, b`, `for *a, b in c`, `case [*rest]`):
# every keyword, soft keyword and Python 2 statement word, to be safe.
_WORDS_BEFORE_UNPACKING = tuple(sorted(set(keyword.kwlist) | {
    "match", "case", "type", "print", "exec", "async", "await"}))
# The characters an unpacking `*` or `**` may follow: an opening bracket, a separator,
# `=` (of an assignment or a keyword), `:` (an annotation of `*args`). After anything
# else (a name, a number, a closing bracket, a string) a star is an operator.
_BEFORE_UNPACKING = frozenset("([{,=:;")
_BLANKS = " \t\f"
_STARS = re.compile(r"\*\*?")
_SUPER = re.compile(r"super\b")
_YIELD = re.compile(r"yield\b")
_LAMBDA = re.compile(r"lambda\b")
# Characters that may hide a `*` or `/` parameter after the first `:` of a lambda (a
# default holding a slice, a dict, a string or a lambda), or a parameter list going on
# on the next line.
_LAMBDA_PARAMETERS_UNCLEAR = frozenset("*/([{'\"#\\\n\r")
# An `_` between decimal digits (`1_000`, `1e1_0`): written to start at the `_` (a
# lookbehind for the digit before), which the regex engine finds several times faster
# than a leading character class; and a literal with a base prefix holding an `_`.
_DIGIT_UNDERSCORE = re.compile(r"_(?<=[0-9]_)[0-9]")
_PREFIXED_UNDERSCORE = re.compile(r"0[xXoObB][0-9a-fA-F_]*_")
# The `b"` of `rb"` (any case): a pattern that starts with a literal is scanned for fast;
# the characters before are checked by hand (a lookbehind or a class first is ten times
# slower). Upper-case `B` is searched apart, as a second literal.
_RAW_BYTES = (re.compile(r"b['\"]"), re.compile(r"B['\"]"))


def unpacking_stars(text):
    """Offsets of every `*` and `**` that may unpack (or mark a parameter), not multiply
    or raise to a power: those first on their line or after `(`, `[`, `{`, `,`, `=`,
    `:`, `;` or a keyword."""
    found = []
    for match in _STARS.finditer(text):
        at = match.start()
        line_start = text.rfind("\n", 0, at) + 1
        before = text[line_start:at].rstrip(_BLANKS)
        # A lone carriage return ends a line as well.
        if (not before or before[-1] in _BEFORE_UNPACKING or before[-1] == "\r"
                or before.endswith(_WORDS_BEFORE_UNPACKING)):
            found.append(at)
    return found


def bare_super_calls(text):
    """Offsets of `super` followed by `()` with nothing but blanks, line breaks and
    comments inside."""
    found = []
    for match in _SUPER.finditer(text):
        opening = next_code(text, match.end())
        if text.startswith("(", opening) and text.startswith(")", next_code(text, opening + 1)):
            found.append(match.start())
    return found


def yield_froms(text):
    """Offsets of `yield` followed by `from`."""
    return [match.start() for match in _YIELD.finditer(text)
            if text.startswith("from", next_code(text, match.end()))]


def lambdas_with_special_parameters(text):
    """Offsets of each `lambda` whose parameters may hold a `*` (keyword-only ones follow)
    or a `/`: those whose text up to the first `:` has one, or has what could hide one."""
    found = []
    for match in _LAMBDA.finditer(text):
        colon = text.find(":", match.end())
        parameters = text[match.end():colon]
        if colon < 0 or "lambda" in parameters or not _LAMBDA_PARAMETERS_UNCLEAR.isdisjoint(
                parameters):
            found.append(match.start())
    return found


@functools.lru_cache(maxsize=1)  # asked for the markers, then by the check of constants
def number_underscores(text):
    """Offsets of each `_` inside a numeric literal (`1_000`, `0xFF_FF`, `1.e1_0`), not
    in a name (`conv2_1`)."""
    found = [match.end() - 1 for match in _PREFIXED_UNDERSCORE.finditer(text)]
    for match in _DIGIT_UNDERSCORE.finditer(text):
        at = match.start()
        start = at
        while start > 0 and (text[start - 1].isalnum() or text[start - 1] == "_"):
            start -= 1
        # The word holding it is a number when it starts with a digit, or after a
        # number's `.` (`1.e1_0`).
        if text[start].isdigit() or (
                start >= 2 and text[start - 1] == "." and text[start - 2].isdigit()):
            found.append(at)
    return tuple(sorted(found))


@functools.lru_cache(maxsize=1)  # asked for the markers, then by the check of constants
def raw_bytes_prefixes(text):
    """Offsets of each `rb` string prefix (any case): `rb` right before a quote, after
    neither a name's character nor a quote (`open(path, "rb")` holds none)."""
    found = []
    for pattern in _RAW_BYTES:
        for match in pattern.finditer(text):  # at the `b`: the `r` before is checked here
            at = match.start() - 1
            if at >= 0 and text[at] in "rR" and not (
                    at and (text[at - 1].isalnum() or text[at - 1] in "_'\"")):
                found.append(at)
    return tuple(sorted(found))


def next_code(text, at):
    """Offset of the first character at or after `at` that is not a blank, a line break,
    a line continuation or a comment (len(text) at the end)."""
    end = len(text)
    while at < end:
        char = text[at]
        if char in " \t\f\r\n\\":
            at += 1
        elif char == "#":
            newline = text.find("\n", at)
            at = end if newline < 0 else newline
        else:
            break
    return at
