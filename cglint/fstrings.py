"""Find f-strings in Python source and rewrite them as `str.format()` calls.

The finder is a small tokenizer for the only part of Python's lexical grammar that decides
where string literals start and end: comments, string prefixes, quotes, escapes, and the
replacement fields of f-strings, nested the way PEP 701 (Python 3.12) allows. It gives the
same answer on every host Python and never fails, so it also covers files that only a
Python 2 grammar accepts (tab/space mixes, backticks, `0777`, `ur""`), which the 3.12+
`tokenize` rejects, and 3.12-only f-strings (`f"{d["k"]}"`), which the 3.9-3.11 `tokenize`
splits in the wrong place. tests/test_fstrings.py checks it against `tokenize` on both.

An f-string and the string literals implicitly concatenated with it form one group (one
`FString`): `("a" f"{x}")` cannot be rewritten piece by piece, because `.format()` applies
to the concatenated whole.
"""
import ast
import re
from dataclasses import dataclass

from cglint.source import LineIndex, Span

_PREFIXES = {"", "r", "u", "b", "br", "rb", "ur", "f", "fr", "rf"}

# One token of interest: a comment, the start of an f-string, or a whole other string
# literal (possibly unterminated: a single-quoted one then stops at the line's end).
_TOKEN = re.compile(
    r"#[^\r\n]*"
    r"|(?<!\w)(?P<fprefix>[fF][rR]?|[rR][fF])(?P<fquote>'''|\"\"\"|'|\")"
    r"|(?:(?<!\w)(?:[bBrRuU]|[bB][rR]|[rR][bB]|[uU][rR]))?(?P<string>"
    r"'''[^'\\]*(?:(?:\\[\s\S]|'(?!''))[^'\\]*)*(?:'''|\\?\Z)"
    r'|"""[^"\\]*(?:(?:\\[\s\S]|"(?!""))[^"\\]*)*(?:"""|\\?\Z)'
    r"|'[^'\\\r\n]*(?:\\(?:\r\n|[\s\S])[^'\\\r\n]*)*'?"
    r'|"[^"\\\r\n]*(?:\\(?:\r\n|[\s\S])[^"\\\r\n]*)*"?)'
)
# Every f-string starts with one of these (`f"`, `rf"` end in `f"`; `fr"` is its own),
# and no identifier character comes before its prefix; files with none, most of them,
# need no scan. Searched as plain strings (several times faster than any regex), in the
# lowered text when lowering keeps every offset (ASCII), in every spelling otherwise.
_FSTRING_STARTS = ("f'", 'f"', "fr'", 'fr"')
OPENINGS = tuple(f + q for f in "fF" for q in "'\"") + tuple(
    f + r + q for f in "fF" for r in "rR" for q in "'\"")
_IN_FIELD = re.compile(r"""(?:(?<!\w)([A-Za-z]{1,2}))?('''|\"\"\"|'|")|[][(){}!:#\\]""")
_IN_SPEC = re.compile(r"[{}\\]")
_IN_PLAIN = {q: re.compile(r"[\\%s\r\n]" % q) for q in "'\""}
_IN_FSTRING = {q: re.compile(r"[\\{}%s\r\n]" % q) for q in "'\""}
_CONVERSION_END = re.compile(r"[:}]")
# What may stand between two implicitly concatenated literals; a bare newline only
# inside brackets.
_GAP = re.compile(r"(?:[ \t\f]|\\(?:\r\n|\r|\n)|#[^\r\n]*(?![^\r\n])|(?P<newline>\r\n|\r|\n))*")
_NEWLINE = re.compile(r"\r\n|\r|\n")
# Escapes that produce a brace, which a format string would read as a field.
_BRACE_ESCAPE = re.compile(r"\\(?:N\{|x7[bdBD]|17[35]|u007[bdBD]|U0000007[bdBD])")
# A `\u`/`\U` escape (after an even number of backslashes): Python 2.7 byte strings keep
# it as text.
_UNICODE_ESCAPE = re.compile(r"(?:^|[^\\])(?:\\\\)*\\[uU]")
# An escape of a character past ASCII: a byte, not that character, in a 2.7 byte string.
_NON_ASCII_ESCAPE = re.compile(
    r"(?:^|[^\\])(?:\\\\)*\\(?:x[89a-fA-F][0-9a-fA-F]|[23][0-7][0-7]|[uU])")
# A format spec with the `_` grouping option (3.6+): after fill/align, sign, `#`, `0`,
# width (a `_` fill, `{x:_>8}`, is older).
_UNDERSCORE_GROUPING = re.compile(r"(?:.?[<>=^])?[-+ ]?#?0?\d*_(?:\.\d+)?[a-zA-Z%]?")


@dataclass(frozen=True)
class FString:
    """One f-string, or a group of implicitly concatenated literals holding one or more.

    `span` is where it stands in the text; `start` is the character offset of its first
    character, so a LineIndex of the text places any offset into `source`, which is the
    exact text from the first literal's prefix to the last literal's closing quote, with
    whatever stands between the literals.
    """

    span: Span
    start: int
    source: str


@dataclass(frozen=True)
class Field:
    """A replacement field `{expr!conversion:spec}`; offsets into the scanned text."""

    start: int
    end: int
    expr: tuple  # (start, end)
    conversion: tuple = None  # (start, end) of the text after `!`
    spec: tuple = None  # (start, end) of the text after `:`
    nested: tuple = ()  # fields inside the spec
    backslash: bool = False  # all three are Python 3.12+ (PEP 701)
    comment: bool = False
    reused_quote: bool = False
    escaped_brace_in_spec: bool = False


@dataclass(frozen=True)
class Literal:
    """One string literal; `fields` is None unless it is an f-string."""

    start: int
    end: int
    prefix: str
    quote: str
    closed: bool
    fields: tuple = None

    @property
    def body(self):
        return self.start + len(self.prefix) + len(self.quote), self.end - (len(self.quote) if self.closed else 0)


class NotConvertible(ValueError):
    """An f-string with no exact `str.format()` equivalent that Python 2.7 accepts."""


def find_fstrings(text, lines=None):
    """Every f-string group in `text`, in order (see FString); `lines` is the text's
    LineIndex when the caller has one."""
    found = []
    if not may_hold_fstrings(text):
        return found
    for group in _groups(text):
        lines = lines or LineIndex(text)
        start, end = group[0].start, group[-1].end
        found.append(FString(lines.span_of(start, end), start, text[start:end]))
    return found


def may_hold_fstrings(text):
    if text.isascii():
        lowered, starts = text.lower(), _FSTRING_STARTS
    else:
        lowered, starts = text, OPENINGS
    for start in starts:
        at = lowered.find(start)
        while at >= 0:
            quote = at + len(start) - 1
            if _word_before_quote(lowered, quote).lower() in ("f", "rf", "fr"):
                return True
            at = lowered.find(start, at + 1)
    return False


def _word_before_quote(text, quote):
    """The identifier characters just before offset `quote` (three at most: a string
    prefix is two letters at most)."""
    start = quote
    while start > 0 and quote - start < 3 and (text[start - 1].isalnum() or text[start - 1] == "_"):
        start -= 1
    return text[start:quote]


def parse(source):
    """The literals of one FString's `source`, with offsets into `source`."""
    groups = list(_groups(source, depth=1))  # as if in brackets: newlines may join literals
    if len(groups) != 1 or groups[0][0].start != 0 or groups[0][-1].end != len(source):
        raise NotConvertible("not one string literal group")
    return groups[0]


def is_self_documenting(expr):
    """True for the expression text of `{x=}` (Python 3.8+)."""
    expr = expr.rstrip()
    return expr.endswith("=") and not expr.endswith(("==", "!=", "<=", ">="))


def to_format(source):
    """`source` (an f-string or FString.source) as a `"...".format(...)` expression, or None."""
    try:
        return convert(source)
    except NotConvertible:
        return None


def text_is_ascii(source):
    """Whether the text of an f-string group outside its `{}` fields, escapes included,
    is ASCII: the one case where a Python 2.7 byte string holds the same characters."""
    for literal in parse(source):
        start, end = literal.body
        pieces, pos = [], start
        for field in literal.fields or ():
            pieces.append(source[pos : field.start])
            pos = field.end
        pieces.append(source[pos:end])
        for piece in pieces:
            if not piece.isascii() or (
                    "r" not in literal.prefix.lower() and _NON_ASCII_ESCAPE.search(piece)):
                return False
    return True


def convert(source, text=False, docstring_place=False):
    """Like to_format, but raises NotConvertible saying why. `text`: give each literal a
    `u` prefix, so that Python 2.7 reads the template as text (as 3.x reads the f-string),
    not bytes; `\\u` escapes then mean what they mean in the f-string. `docstring_place`:
    the group is a statement where a plain string would be a docstring (see
    docstring_places), so it stays a `.format()` call even without fields."""
    literals = parse(source)
    calls_format = docstring_place or any(literal.fields for literal in literals)
    out, args, pos = [], [], 0
    for literal in literals:
        if not literal.closed:
            raise NotConvertible("unterminated string")
        if "b" in literal.prefix.lower():
            raise NotConvertible("bytes literal next to an f-string")
        start, end = literal.body
        body = source[start:end]
        if "r" not in literal.prefix.lower() and _BRACE_ESCAPE.search(body):
            raise NotConvertible("an escape that makes a brace (or `\\N{...}`, which Python 2.7 byte strings keep as text)")
        if not set("ru") & set(literal.prefix.lower()) and _UNICODE_ESCAPE.search(body) and (
                not text):
            raise NotConvertible("a `\\u` escape, which Python 2.7 byte strings keep as text")
        prefix = literal.prefix.replace("f", "").replace("F", "")
        if text and "u" not in prefix.lower():
            if "r" in prefix.lower():
                raise NotConvertible("raw text past ASCII: Python 2.7 reads it as bytes "
                                     "unless `ur`, which Python 3 refuses")
            prefix = "u" + prefix
        if literal.fields is None:
            body = re.sub(r"[{}]", r"\g<0>\g<0>", body) if calls_format else body
        elif calls_format:
            body = _format_string(source, literal, args)
        else:
            body = body.replace("{{", "{").replace("}}", "}")
        out.append(source[pos : literal.start])
        out.append(prefix + literal.quote + body + literal.quote)
        pos = literal.end
    if calls_format:
        out.append(".format(%s)" % ", ".join(args))
    return "".join(out)


def docstring_places(module):
    """(line, column), as in a Span, of each f-string group that is the first statement of
    the module (cglint.facts.ModuleFacts), a class or a function. Python never takes an
    f-string there for a docstring; a plain string there it would, and `__doc__` would
    change."""
    # The statement index, not the full one: no binding of names for this.
    bodies = [module.tree.body] + [
        node.body for kind in (ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)
        for node in module.statements.get(kind, ())]
    places = set()
    for body in bodies:
        if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.JoinedStr):
            line, col = body[0].value.lineno, body[0].value.col_offset
            places.add((line, module.lines.char_col(line, col) + 1))
    return places


def _format_string(source, literal, args):
    pieces, pos = [], literal.body[0]
    for field in literal.fields:
        pieces.append(source[pos : field.start])
        pieces.append(_replacement(source, field, args))
        pos = field.end
    pieces.append(source[pos : literal.body[1]])
    return "".join(pieces)


def _replacement(source, field, args):
    """The field as a str.format field; appends its arguments to `args`, in order."""
    expr = source[field.expr[0] : field.expr[1]]
    if field.backslash:
        raise NotConvertible("backslash inside `{}`")
    if field.comment:
        raise NotConvertible("comment inside `{}`")
    if field.escaped_brace_in_spec:
        raise NotConvertible("`{{` or `}}` inside a format spec")
    if is_self_documenting(expr):
        raise NotConvertible("`{%s}` self-documenting expression (Python 3.8+)" % expr.strip())
    conversion = ""
    if field.conversion:
        conversion = source[field.conversion[0] : field.conversion[1]].strip()
        if conversion == "a":
            raise NotConvertible("`!a` has no Python 2.7 equivalent")
        if conversion not in ("r", "s"):
            raise NotConvertible("unknown conversion `!%s`" % conversion)
        conversion = "!" + conversion
    args.append(_argument(expr))
    spec = ""
    if field.spec:
        pieces, pos = [], field.spec[0]
        for nested in field.nested:
            pieces.append(source[pos : nested.start])
            pieces.append(_replacement(source, nested, args))
            pos = nested.end
        pieces.append(source[pos : field.spec[1]])
        spec = ":" + "".join(pieces)
        if _UNDERSCORE_GROUPING.fullmatch(spec[1:]):
            raise NotConvertible("the `_` grouping option (Python 3.6+)")
    return "{" + conversion + spec + "}"


def _argument(expr):
    """The expression as one positional argument of `.format()`."""
    expr = _convert_nested(expr.strip())
    try:
        alone = ast.parse("(%s)" % expr, mode="eval").body
    except SyntaxError:
        raise NotConvertible("expression `%s` does not parse" % expr)
    for node in ast.walk(alone):
        if isinstance(node, ast.Lambda):
            raise NotConvertible("lambda inside `{}`")
        if isinstance(node, ast.NamedExpr):
            raise NotConvertible("`:=` inside `{}`")
    if isinstance(alone, ast.GeneratorExp) and not _parses_alone(expr):
        # `f"{x for x in a}{y}"`: a bare generator must be the only argument of a call.
        return "(%s)" % expr
    try:
        call = ast.parse("_(%s)" % expr, mode="eval").body
    except SyntaxError:
        return "(%s)" % expr
    # ast.unparse, not ast.dump: dump's recursive closure is a reference cycle per call,
    # and the linter runs with the cyclic collector paused (cglint.pool).
    if len(call.args) == 1 and not call.keywords and ast.unparse(call.args[0]) == ast.unparse(alone):
        return expr
    return "(%s)" % expr  # `a, b` is one tuple in an f-string but two arguments in a call


def _parses_alone(expr):
    try:
        ast.parse(expr, mode="eval")
    except SyntaxError:
        return False
    return True


def _convert_nested(expr):
    pieces, pos = [], 0
    for group in _groups(expr, depth=1):
        pieces.append(expr[pos : group[0].start])
        pieces.append(convert(expr[group[0].start : group[-1].end]))
        pos = group[-1].end
    pieces.append(expr[pos:])
    return "".join(pieces)


def _groups(text, depth=0):
    """Lists of implicitly concatenated literals that hold an f-string, in order.

    Plain literals and comments are matched whole by one regex; only f-strings, and the
    literals next to them, are looked at from Python.
    """
    brackets = _Brackets(text, depth)
    recent, group, pos = [], None, 0  # recent: plain literals since the last group
    while True:
        match = _TOKEN.search(text, pos)
        if match is None:
            break
        if match.group("fquote"):
            prefix, quote = match.group("fprefix"), match.group("fquote")
            literal = _literal(text, match.start(), prefix, quote)
            brackets.skip(literal.start, literal.end)
            if not (group and _joins(text, group[-1].end, literal.start, brackets.at(group[-1].end))):
                if group:
                    yield group
                group = _joined_before(text, recent, literal, brackets.at(literal.start))
            group.append(literal)
            recent, pos = [], literal.end
            continue
        start, pos = match.span()
        brackets.skip(start, pos)
        if match.group("string") is None:  # a comment
            continue
        if group and _joins(text, group[-1].end, start, brackets.at(group[-1].end)):
            group.append(_literal(text, start, text[start : match.start("string")], _quote(text, match.start("string"))))
            continue
        if group:
            yield group
            group = None
        recent.append(match)
    if group:
        yield group


def _joins(text, end, start, depth):
    """Whether literals ending at `end` and starting at `start` are concatenated."""
    gap = _GAP.fullmatch(text, end, start)
    return bool(gap) and (depth > 0 or not gap.group("newline"))


def _joined_before(text, recent, literal, depth):
    """The plain literals just before `literal` that are concatenated with it."""
    joined, start = [], literal.start
    for match in reversed(recent):
        if not _joins(text, match.end(), start, depth):  # no bracket stands between them
            break
        body = match.start("string")
        joined.append(_literal(text, match.start(), text[match.start() : body], _quote(text, body)))
        start = match.start()
    return joined[::-1]


def _quote(text, at):
    return text[at : at + 3] if text.startswith(("'''", '"""'), at) else text[at]


class _Brackets:
    """Bracket depth at increasing offsets, counted lazily in the code outside the
    literals and comments handed to `skip`."""

    def __init__(self, text, depth):
        self.text, self.depth, self.pos = text, depth, 0
        self.skips, self.next = [], 0

    def skip(self, start, end):
        self.skips.append((start, end))

    def at(self, offset):
        while self.next < len(self.skips) and self.skips[self.next][0] < offset:
            start, end = self.skips[self.next]
            self._count(start)
            self.pos = max(self.pos, end)
            self.next += 1
        self._count(offset)
        return self.depth

    def _count(self, end):
        if end > self.pos:
            code = self.text[self.pos : end]
            self.depth += code.count("(") + code.count("[") + code.count("{")
            self.depth -= code.count(")") + code.count("]") + code.count("}")
            self.pos = end


def _literal(text, start, prefix, quote):
    """The literal at `start` whose prefix and opening quote are known."""
    body = start + len(prefix) + len(quote)
    if "f" in prefix.lower():
        end, closed, fields = _fstring(text, body, quote, "r" in prefix.lower())
        return Literal(start, end, prefix, quote, closed, tuple(fields))
    end, closed = _plain(text, body, quote)
    return Literal(start, end, prefix, quote, closed)


def _plain(text, pos, quote):
    """(end, closed) of a string literal without fields whose body starts at `pos`."""
    stop = _IN_PLAIN[quote[0]]
    while True:
        match = stop.search(text, pos)
        if match is None:
            return len(text), False
        at = match.start()
        char = text[at]
        if char == "\\":
            pos = _after_escape(text, at, raw=True)
        elif char in "\r\n" and len(quote) == 1:
            return at, False
        elif text.startswith(quote, at):
            return at + len(quote), True
        else:
            pos = at + 1


def _fstring(text, pos, quote, raw):
    """(end, closed, fields) of an f-string whose body starts at `pos`."""
    stop = _IN_FSTRING[quote[0]]
    fields = []
    while True:
        match = stop.search(text, pos)
        if match is None:
            return len(text), False, fields
        at = match.start()
        char = text[at]
        if char == "\\":
            pos = _after_escape(text, at, raw)
        elif char == "{" and not text.startswith("{{", at):
            field = _field(text, at + 1, quote, raw)
            fields.append(field)
            pos = field.end
        elif char in "{}":
            pos = at + (2 if text.startswith(char * 2, at) else 1)
        elif char in "\r\n" and len(quote) == 1:
            return at, False, fields
        elif text.startswith(quote, at):
            return at + len(quote), True, fields
        else:
            pos = at + 1


def _after_escape(text, at, raw):
    """Where scanning resumes after the backslash at `at`."""
    following = text[at + 1 : at + 2]
    if following in ("{", "}"):  # `\{x}` is a backslash, then a field
        return at + 1
    if following == "N" and not raw and text.startswith("{", at + 2):
        close = text.find("}", at + 3)
        return len(text) if close < 0 else close + 1
    if text.startswith("\r\n", at + 1):
        return at + 3
    return at + 2


def _field(text, pos, quote, raw):
    """The replacement field whose expression starts at `pos` (just after `{`)."""
    start, expr_start, depth = pos - 1, pos, 0
    flags = {}
    while True:
        match = _IN_FIELD.search(text, pos)
        if match is None:
            return Field(start, len(text), (expr_start, len(text)), **flags)
        at = match.start()
        nested_quote = match.group(2)
        if nested_quote:
            if nested_quote == quote or (len(quote) == 1 and nested_quote[0] == quote):
                flags["reused_quote"] = True
            letters = match.group(1) or ""
            prefix = letters if letters.lower() in _PREFIXES else ""
            pos = _literal(text, match.start(2) - len(prefix), prefix, nested_quote).end
            if "\\" in text[at:pos]:
                flags["backslash"] = True
            continue
        char = text[at]
        pos = at + 1
        if char in "([{":
            depth += 1
        elif char in ")]" or (char == "}" and depth > 0):
            depth -= 1
        elif char == "}":
            return Field(start, pos, (expr_start, at), **flags)
        elif char == "!" and depth == 0 and not text.startswith("=", pos):
            close = _CONVERSION_END.search(text, pos)
            close = close.start() if close else len(text)
            if text.startswith(":", close):
                return _spec(text, close + 1, quote, raw, start, (expr_start, at), (pos, close), flags)
            return Field(start, close + 1, (expr_start, at), (pos, close), **flags)
        elif char == ":" and depth == 0:
            return _spec(text, pos, quote, raw, start, (expr_start, at), None, flags)
        elif char == "#":
            flags["comment"] = True
            newline = _NEWLINE.search(text, pos)
            pos = newline.start() if newline else len(text)
        elif char == "\\":
            flags["backslash"] = True
            pos = at + 2


def _spec(text, pos, quote, raw, start, expr, conversion, flags):
    """The field whose format spec starts at `pos` (just after `:`)."""
    spec_start, nested = pos, []
    while True:
        match = _IN_SPEC.search(text, pos)
        if match is None:
            return Field(start, len(text), expr, conversion, (spec_start, len(text)), tuple(nested), **flags)
        at = match.start()
        char = text[at]
        if char == "\\":
            pos = _after_escape(text, at, raw)
        elif char == "}":
            return Field(start, at + 1, expr, conversion, (spec_start, at), tuple(nested), **flags)
        elif text.startswith("{{", at):
            flags["escaped_brace_in_spec"] = True
            pos = at + 2
        else:
            field = _field(text, at + 1, quote, raw)
            nested.append(field)
            pos = field.end
