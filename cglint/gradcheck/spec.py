"""What to feed a custom-gradient function: `# cglint: gradcheck ...` specs.

    # cglint: gradcheck x=(3, 4) y=(3, 4) weight=0.3
    # cglint: gradcheck x=np.random.uniform(0.5, 3.0, (5,))
    # cglint: gradcheck skip straight-through estimator

A tuple of ints is a seeded float64 standard-normal array of that shape (half of its
elements negative, so both sides of 0 are probed); a number is
passed as a Python number; any other value is a Python expression, evaluated in the TF
interpreter with `np` bound. The same text can be a value in `[tool.cglint.gradcheck]`,
keyed by `path::function`. Specs are parsed here, on the host, but never evaluated.
"""
import ast
import re
from dataclasses import dataclass, field

COMMENT = re.compile(r"^\s*#\s*cglint:\s*gradcheck\b(.*)$")
_PAIR_START = re.compile(r"(?:^|\s)([A-Za-z_][A-Za-z0-9_]*)\s*=(?!=)")
_OPENERS, _CLOSERS = "([{", ")]}"


class SpecError(ValueError):
    """A spec cglint cannot read; the message quotes the offending part."""


@dataclass(frozen=True)
class Param:
    kind: str  # "shape", "number" or "expr"
    value: object  # a tuple of ints, an int or float, or the expression's source

    def to_json(self):
        return {"kind": self.kind, "value": list(self.value) if self.kind == "shape" else self.value}


@dataclass
class Spec:
    params: dict = field(default_factory=dict)  # parameter name -> Param
    skip: bool = False
    reason: str = ""  # why it is skipped, when the spec says

    def merged(self, other):
        """This spec with `other`'s entries on top (other wins)."""
        params = dict(self.params)
        params.update(other.params)
        return Spec(params, self.skip or other.skip, other.reason or self.reason)


def _top_level_starts(text):
    """Offsets where `name=` begins outside brackets and strings."""
    starts, depth, quote = [], 0, None
    for index, char in enumerate(text):
        if quote:
            if char == quote and text[index - 1] != "\\":
                quote = None
            continue
        if char in "'\"":
            quote = char
        elif char in _OPENERS:
            depth += 1
        elif char in _CLOSERS:
            depth -= 1
        elif depth == 0 and (index == 0 or char.isspace()):
            match = _PAIR_START.match(text, index)
            if match:
                starts.append((match.start(1), match.group(1), match.end()))
    return starts


def classify(name, source):
    """The Param for one `name=value`; SpecError when the value is not an expression."""
    try:
        tree = ast.parse(source.strip(), mode="eval")
    except SyntaxError as error:
        raise SpecError("%s=%s: not a Python expression (%s)" % (name, source.strip(), error.msg))
    try:
        value = ast.literal_eval(tree)
    except ValueError:
        return Param("expr", source.strip())
    if isinstance(value, bool):
        return Param("expr", source.strip())
    if isinstance(value, (int, float)):
        return Param("number", value)
    if isinstance(value, tuple) and all(isinstance(v, int) and not isinstance(v, bool) for v in value):
        if any(v < 0 for v in value):
            raise SpecError("%s=%s: a shape cannot have negative sizes" % (name, source.strip()))
        return Param("shape", value)
    return Param("expr", source.strip())


def parse(text):
    """The Spec in the text after `gradcheck` (a comment's or a settings value)."""
    text = text.strip()
    if text == "skip" or text.startswith("skip "):
        return Spec(skip=True, reason=text[4:].strip())
    starts = _top_level_starts(text)
    if text and (not starts or text[:starts[0][0]].strip()):
        raise SpecError("expected `name=value` pairs or `skip`, got %r" % text)
    spec = Spec()
    for number, (_, name, value_start) in enumerate(starts):
        end = starts[number + 1][0] if number + 1 < len(starts) else len(text)
        if name in spec.params:
            raise SpecError("`%s` is given twice" % name)
        spec.params[name] = classify(name, text[value_start:end])
    return spec


def spec_comments(lines, first_line):
    """[(line number, text after `gradcheck`)] of the spec comments just above line
    `first_line` (1-based: the def or its first decorator), stopping at the first line
    that is not a comment."""
    found = []
    number = first_line - 1
    while number >= 1 and lines[number - 1].strip().startswith("#"):
        match = COMMENT.match(lines[number - 1])
        if match:
            found.append((number, match.group(1)))
        number -= 1
    return found


def all_spec_comments(lines):
    """The line numbers of every spec comment in the file."""
    return [number for number, line in enumerate(lines, 1) if COMMENT.match(line)]


def from_comments(lines, first_line):
    """The Spec in the comment lines just above line `first_line` (see spec_comments)."""
    found = spec_comments(lines, first_line)
    spec = Spec()
    for number, text in reversed(found):
        try:
            spec = spec.merged(parse(text))
        except SpecError as error:
            raise SpecError("line %d: %s" % (number, error))
    return spec
