"""Python constructs newer than the Python a module must run on.

Found in the module's ast, except what the ast does not keep (`f"{x=}"`, parentheses
around context managers, `_` in numbers), which comes from the source text. f-strings
themselves are CG301's (cglint.fstrings), so below Python 3.6 nothing inside them is
reported here.
"""
import ast
import io
import re
import tokenize
from dataclasses import dataclass
from dataclasses import field as dataclass_field

from cglint import fstrings, marks, statements
from cglint.names import COMPREHENSIONS, children, same_scope_nodes
from cglint.source import Span

# The first Python that accepts each construct.
MINIMUM_VERSION = {
    "keyword-only parameter": (3, 0),
    "parameter annotation": (3, 0),
    "return annotation": (3, 0),
    "`nonlocal`": (3, 0),
    "starred assignment target": (3, 0),
    "`raise ... from ...`": (3, 0),
    "`...` outside a subscript": (3, 0),
    "class keyword argument": (3, 0),
    "non-ASCII text without a coding declaration": (3, 0),
    "non-ASCII identifier": (3, 0),
    "`print()` keyword argument": (3, 0),
    "`print()` keyword `flush=`": (3, 3),
    "`print()` keyword `flush=` with `print` a statement": (3, 3),
    "`print()` with `*` unpacking": (3, 0),
    "`print` used as a value": (3, 0),
    "`print` used as a name": (3, 0),
    "`exec` used as a name": (3, 0),
    "argument-less `super()`": (3, 0),
    "`yield from`": (3, 3),
    "`return` with a value in a generator": (3, 3),
    "`rb` string prefix": (3, 3),
    "`async def`": (3, 5),
    "`await`": (3, 5),
    "`async for`": (3, 5),
    "`async with`": (3, 5),
    "matrix multiplication `@`": (3, 5),
    "iterable unpacking in a display": (3, 5),
    "dict unpacking in a display": (3, 5),
    "more than one `*` unpacking in a call": (3, 5),
    "positional argument after `*` unpacking": (3, 5),
    "more than one `**` unpacking in a call": (3, 5),
    "keyword argument after `**` unpacking": (3, 5),
    "trailing comma in a call with `*` or `**` unpacking": (3, 5),
    "`from __future__ import generator_stop`": (3, 5),
    "variable annotation": (3, 6),
    "trailing comma after `*args`, `**kwargs` or keyword-only parameters": (3, 6),
    "asynchronous generator": (3, 6),
    "asynchronous comprehension": (3, 6),
    "`await` in a comprehension": (3, 6),
    "underscore in a numeric literal": (3, 6),
    "asynchronous generator expression outside an `async def`": (3, 7),
    "`from __future__ import annotations`": (3, 7),
    "assignment expression `:=`": (3, 8),
    "`continue` in a `finally` block": (3, 8),
    "positional-only parameter marker `/`": (3, 8),
    "f-string `=` specifier": (3, 8),
    "unparenthesized unpacking in `return`/`yield`": (3, 8),
    "subscripted builtin in an evaluated annotation": (3, 9),
    "parenthesized context manager list": (3, 9),
    "decorator that is not a dotted name or call": (3, 9),
    "unparenthesized unpacking in a `for` iterable": (3, 9),
    "`X | Y` union in an evaluated annotation": (3, 10),
    "`match` statement": (3, 10),
    "`except*`": (3, 11),
    "`*` unpacking in a subscript": (3, 11),
    "asynchronous comprehension within another comprehension": (3, 11),
    "type parameter list": (3, 12),
    "`type` statement": (3, 12),
    "f-string expression reusing the enclosing quote": (3, 12),
    "backslash in an f-string expression": (3, 12),
    "comment in an f-string expression": (3, 12),
}

# What to add to the message where the failure is not a plain SyntaxError.
NOTES = {
    "argument-less `super()`": "legal syntax in 2.7, but the call raises "
    "`TypeError: super() takes at least 1 argument (0 given)`",
    "subscripted builtin in an evaluated annotation": "it raises "
    "`TypeError: 'type' object is not subscriptable` when evaluated (at `def` time)",
    "`X | Y` union in an evaluated annotation": "it raises "
    "`TypeError: unsupported operand type(s) for |` when evaluated (at `def` time)",
    "non-ASCII text without a coding declaration": "Python 2 reads source as ASCII "
    "without one: `SyntaxError: Non-ASCII character`; add `# -*- coding: utf-8 -*-` as "
    "the first or second line",
    "non-ASCII identifier": "Python 2 names are ASCII only (`SyntaxError: invalid syntax`, "
    "a coding declaration or not)",
    "`return` with a value in a generator": "2.7 refuses it when compiling "
    "(`SyntaxError: 'return' with argument inside generator`); yield the value, or keep it "
    "out of the generator",
    "`print()` keyword argument": "or add `from __future__ import print_function`",
    "`print()` keyword `flush=` with `print` a statement": "Python 2.7 cannot compile it "
    "(`SyntaxError`), and its print function has no `flush` either: call "
    "`sys.stdout.flush()` after the print",
    "`print()` keyword `flush=`": "Python 2.7's print function has no `flush` (a "
    "`TypeError` even with `from __future__ import print_function`); call "
    "`sys.stdout.flush()` after the print",
    "`print()` with `*` unpacking": "or add `from __future__ import print_function`",
    "`continue` in a `finally` block": "older Pythons refuse it when compiling "
    "(`SyntaxError: 'continue' not supported inside 'finally' clause`)",
    "unparenthesized unpacking in a `for` iterable": "3.5 to 3.8 take it only in "
    "parentheses: `for x in (*a, *b):`",
    "`print` used as a value": "or add `from __future__ import print_function`",
    "`print` used as a name": "2.7 reads `print` there as its statement (`SyntaxError: "
    "invalid syntax`); add `from __future__ import print_function`",
    "`exec` used as a name": "`exec` is a statement in 2.7 (`SyntaxError: invalid syntax`), "
    "with any `__future__` import; rename it",
}

FUTURE_FEATURES = {"annotations", "generator_stop"}
GENERIC_BUILTINS = {"list", "dict", "tuple", "set", "frozenset", "type"}
BUILTIN_TYPES = GENERIC_BUILTINS | {"int", "float", "complex", "str", "bytes", "bool", "object"}

# How a bracket token moves the nesting depth, for the parenthesized checks below.
_BRACKET_DEPTH = {"(": 1, "[": 1, "{": 1, ")": -1, "]": -1, "}": -1}
# `with (` or `async with (`, blanks and line continuations allowed between.
_OPENS_WITH_PARENTHESIS = re.compile(r"(?:async[ \t\f\\\r\n]+)?with[ \t\f\\\r\n]*\(")


@dataclass(frozen=True)
class NewSyntax:
    """One construct newer than the target, where it stands in the original text."""

    span: Span
    construct: str
    minimum: tuple
    message: str
    node: object = dataclass_field(default=None, compare=False, repr=False)  # the ast node


# Where a construct found on an expression may stand: the text its statement's lines must
# hold, or a cglint.marks finder of the offsets that may begin it. Constructs not listed
# are statements, or fields of statements (a `def`'s parameters, decorators and
# annotations): the statement index finds them without visiting any expression.
EXPRESSION_MARKERS = {
    "keyword-only parameter": (marks.lambdas_with_special_parameters,),  # a def's: its statement's
    "positional-only parameter marker `/`": (marks.lambdas_with_special_parameters,),
    "starred assignment target": (marks.unpacking_stars,),
    "`...` outside a subscript": ("...",),
    "`print()` keyword argument": ("print",),
    "`print()` keyword `flush=`": ("flush",),
    "`print()` keyword `flush=` with `print` a statement": ("flush",),
    "`print()` with `*` unpacking": ("print",),
    "`print` used as a value": ("print",),
    "argument-less `super()`": (marks.bare_super_calls,),
    "`yield from`": (marks.yield_froms,),
    "`await`": ("await",),
    "matrix multiplication `@`": ("@",),
    "iterable unpacking in a display": (marks.unpacking_stars,),
    "dict unpacking in a display": (marks.unpacking_stars,),
    "more than one `*` unpacking in a call": (marks.unpacking_stars,),
    "positional argument after `*` unpacking": (marks.unpacking_stars,),
    "more than one `**` unpacking in a call": (marks.unpacking_stars,),
    "keyword argument after `**` unpacking": (marks.unpacking_stars,),
    "trailing comma in a call with `*` or `**` unpacking": (marks.unpacking_stars,),
    # a lambda's; a def's is its statement's
    "trailing comma after `*args`, `**kwargs` or keyword-only parameters": (
        marks.lambdas_with_special_parameters,),
    "asynchronous comprehension": ("async",),
    "asynchronous generator expression outside an `async def`": ("async", "await"),
    "asynchronous comprehension within another comprehension": ("async", "await"),
    "`await` in a comprehension": ("await",),
    "underscore in a numeric literal": (marks.number_underscores,),
    "`rb` string prefix": (marks.raw_bytes_prefixes,),
    "assignment expression `:=`": (":=",),
    "unparenthesized unpacking in `return`/`yield`": (marks.unpacking_stars,),
    "unparenthesized unpacking in a `for` iterable": (marks.unpacking_stars,),
    "`*` unpacking in a subscript": (marks.unpacking_stars,),
}
# Found on a `print` call only while `print` is a statement (no print_function import).
_PRINT_STATEMENT_ONLY = frozenset((
    "`print()` keyword argument", "`print()` with `*` unpacking", "`print` used as a value",
    "`print()` keyword `flush=` with `print` a statement"))


def newer_syntax(module, index=None):
    """NewSyntax records for a ModuleFacts, in order. `index` maps node types to the
    tree's nodes; by default the statements plus the expressions of only the statements
    that hold some construct's marker (cglint.statements, cglint.marks): fewer nodes to
    look at than the full index, even where that is built. A Python 2 file's tree is of
    a rewritten text, where the markers are not looked for: it gets the full index."""
    target = module.target_python
    futures = _futures(module.tree)
    print_statement = _print_is_a_statement(target, futures, module.python2_syntax)
    if index is None:
        if module.python2_syntax:
            index = module.nodes
        else:
            markers, offsets = _markers(target, print_statement, module.parsed.text)
            index = statements.marked_index(module.tree, module.statements, module.parsed.text,
                                            markers, offsets)
    checker = _Checker(module.tree, module.parsed.lines, target, index, futures, print_statement)
    found = []
    # One finding per construct kind per line (three keyword-only parameters of one `def`
    # are one cause): the first place, naming every detail in source order.
    first = {}
    for node, construct, detail in checker.run():
        runtime = construct in _RUNTIME_CONSTRUCTS
        if MINIMUM_VERSION[construct] > target and not (
                runtime and _only_on_newer(module, node, construct)):
            first.setdefault((node.lineno, construct), []).append((node, detail))
    for (_, construct), places in first.items():
        places.sort(key=lambda place: (place[0].lineno, place[0].col_offset))
        details = list(dict.fromkeys(detail for _, detail in places if detail))
        node = places[0][0]
        found.append(NewSyntax(module.span(node), construct, MINIMUM_VERSION[construct],
                               _message(construct, "`, `".join(details) or None, target), node))
    if target >= (3, 6) and module.fstrings:
        found.extend(_in_fstrings(module, target))
    if target < (3, 0):
        found.extend(_undeclared_non_ascii(module, target))
        found.extend(_non_ascii_identifiers(module, target))
        if not module.python2_syntax:
            found.extend(_python2_keywords_as_names(module, target, print_statement))
    return sorted(found, key=lambda record: record.span[:2])


# Constructs the target compiles, which fail only when they run: a test of the Python
# version around them (`if six.PY3:`) keeps them from running where they fail.
_RUNTIME_CONSTRUCTS = frozenset((
    "argument-less `super()`", "`print()` keyword `flush=`",
    "subscripted builtin in an evaluated annotation", "`X | Y` union in an evaluated annotation"))


# The oldest Python 3 that TF 1.8 has wheels for: what `six.PY3` means for TF 1.8 code.
_OLDEST_PYTHON3 = (3, 5)


def _only_on_newer(module, node, construct):
    oldest = module.python_at_least(node)
    if oldest is not None and oldest[0] == 3:
        oldest = max(oldest, _OLDEST_PYTHON3)
    return oldest is not None and oldest >= MINIMUM_VERSION[construct]


def _markers(target, print_statement, text):
    """(marker texts, character offsets) of the expression constructs newer than
    `target` (see EXPRESSION_MARKERS)."""
    texts, finders = set(), set()
    for construct, needed in EXPRESSION_MARKERS.items():
        if MINIMUM_VERSION[construct] > target and (
                print_statement or construct not in _PRINT_STATEMENT_ONLY):
            for marker in needed:
                (texts if isinstance(marker, str) else finders).add(marker)
    offsets = []
    for finder in sorted(finders, key=lambda finder: finder.__name__):
        offsets.extend(finder(text))
    return texts, offsets


def raw_bytes_prefixes(segment):
    """(offset, prefix) of each `rb`-ordered prefix (any case) of the string literals that
    make one constant's source (`b"x" RB"y"`): found by the tokenizer, so never inside a
    literal's text."""
    found = []
    try:
        tokens = list(tokenize.generate_tokens(io.StringIO("(" + segment + ")").readline))
    except (tokenize.TokenError, SyntaxError, IndentationError):
        return found
    starts = [0]
    for line in segment.splitlines(True):
        starts.append(starts[-1] + len(line))
    for token in tokens:
        if token.type == tokenize.STRING and token.string[:2].lower() == "rb":
            row, col = token.start
            found.append((starts[row - 1] + col - (1 if row == 1 else 0), token.string[:2]))
    return found


def _message(construct, detail, target):
    minimum = MINIMUM_VERSION[construct]
    message = "%s%s needs Python %d.%d+ (target is %s)" % (
        construct,
        " `%s`" % detail if detail else "",
        minimum[0],
        minimum[1],
        ".".join(map(str, target)),
    )
    note = NOTES.get(construct)
    return "%s; %s" % (message, note) if note else message


def _in_fstrings(module, target):
    lines = module.lines
    for group in module.fstrings:
        for literal in fstrings.parse(group.source):
            for field in _all_fields(literal.fields or ()):
                for construct, present in (
                    ("f-string `=` specifier", fstrings.is_self_documenting(group.source[field.expr[0] : field.expr[1]])),
                    ("f-string expression reusing the enclosing quote", field.reused_quote),
                    ("backslash in an f-string expression", field.backslash),
                    ("comment in an f-string expression", field.comment),
                ):
                    if present and MINIMUM_VERSION[construct] > target:
                        span = lines.span_of(group.start + field.start, group.start + field.end)
                        message = _message(construct, group.source[field.start : field.end], target)
                        yield NewSyntax(span, construct, MINIMUM_VERSION[construct], message)


# PEP 263: a comment naming the source encoding, on the first or second line.
_CODING_LINE = re.compile(r"^[ \t\f]*#.*?coding[:=][ \t]*[-\w.]+")


def _undeclared_non_ascii(module, target):
    """Python 2 reads a file without a coding line (or a UTF-8 BOM) as ASCII, and refuses
    any other byte, in comments and strings too (the seed's own example)."""
    text = module.text
    if text.isascii() or module.bom:
        return
    first_two = text[:4096].splitlines()[:2]  # (a bounded prefix: any line ending)
    # PEP 263: the second line counts only after a first line of a comment or blanks,
    # which 2.7 reads as ASCII before it gets there.
    if len(first_two) == 2 and ((first_two[0].strip() and not first_two[0].lstrip(
            ).startswith("#")) or not first_two[0].isascii()):
        first_two = first_two[:1]
    if any(_CODING_LINE.match(line) for line in first_two):
        return
    at = next(index for index, char in enumerate(text) if ord(char) > 127)
    construct = "non-ASCII text without a coding declaration"
    span = module.lines.span_of(at, at + 1)
    yield NewSyntax(span, construct, MINIMUM_VERSION[construct],
                    _message(construct, None, target))


# The nodes that name something, and their fields that hold the name (or names); an
# import's aliases are read from the import itself.
_NAMING_FIELDS = {ast.Name: ("id",), ast.arg: ("arg",), ast.Attribute: ("attr",),
                  ast.keyword: ("arg",), ast.FunctionDef: ("name",),
                  ast.AsyncFunctionDef: ("name",), ast.ClassDef: ("name",),
                  ast.Import: (), ast.ImportFrom: ("module",),
                  ast.Global: ("names",), ast.Nonlocal: ("names",),
                  ast.ExceptHandler: ("name",)}


def _non_ascii_identifiers(module, target):
    """Names with a character beyond ASCII (`λ = 0.3`), which Python 3 takes and 2.7
    refuses: one finding per line, at its first such name, naming them all."""
    if module.text.isascii():
        return
    by_line = {}
    # (every node: the binder's index leaves out parameters and keywords; few files have
    # text beyond ASCII)
    for node in ast.walk(module.tree):
        fields = _NAMING_FIELDS.get(type(node))
        if fields is None:
            continue
        names = [getattr(node, field, None) for field in fields]
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            # (an alias is its import statement's: it has no position before 3.10)
            names += [name for alias in node.names for name in (alias.name, alias.asname)]
        line = getattr(node, "lineno", None)
        if isinstance(node, ast.Name) and node.id.isascii():
            # Python 3 folds a name to NFKC (`ﬁle` is `file`): the text shows what 2.7 reads
            written = module.lines.segment(node)
            names = [written] if written and not written.isascii() else []
        for value in names:
            for name in value if isinstance(value, list) else [value]:
                if name and line is not None and not name.isascii():
                    by_line.setdefault(line, []).append((node.col_offset, name, node))
    construct = "non-ASCII identifier"
    for line, places in by_line.items():
        places.sort(key=lambda place: place[0])
        names = "`, `".join(dict.fromkeys(name for _, name, _ in places))
        node = places[0][2]
        yield NewSyntax(_name_span(module, node, places[0][1]), construct,
                        MINIMUM_VERSION[construct], _message(construct, names, target), node)


# How `exec` or `print` may stand in the text as a name (`%s` the word): after a dot, as
# a def's, class's or parameter's name, a keyword argument, an assigned name, an import.
# Literal finds, asked before any walk of the tree: most files have none of them.
# What stands just before or after the word where it may be a name (`.print`, `def exec`,
# `print=`, `as exec`, `(exec`): the text test before the walk. Only whole words count:
# `.execute(` and `.executing_eagerly()`, common in TensorFlow's code, are none.
_BEFORE_A_NAME = (".", "def ", "class ", "= ", "=", "as ", "import ", ", ", "(")
_AFTER_A_NAME = ("=", " =")


def _may_name(text, word):
    """Whether `word` stands in `text` as a whole word in one of the forms of a name."""
    size = len(word)
    start = text.find(word)
    while start != -1:
        end = start + size
        after, before = text[end:end + 2], text[max(start - 6, 0):start]
        if not (after[:1].isalnum() or after[:1] == "_" or before[-1:].isalnum()
                or before[-1:] == "_") and (
                before.endswith(_BEFORE_A_NAME) or after.startswith(_AFTER_A_NAME)):
            return True
        start = text.find(word, end)
    return False


def _python2_keywords_as_names(module, target, print_statement):
    """`exec`, and `print` while it is a statement, used as a name (`log.print(...)`,
    `def print(self)`, `run(exec=True)`, `exec = ...`): Python 3 takes them, 2.7 reads
    its statement there and refuses the file. One finding per line (a `tf.print`
    alone on its line is CG401's: the rule leaves it, see cg302_newer_syntax). A call `exec(code)` is 2.7's
    `exec` statement of a parenthesized expression, and a `print` name read or bound
    (`print = log`) is "`print` used as a value"."""
    text = module.text
    words = [word for word, wanted in (("exec", True), ("print", print_statement))
             if wanted and _may_name(text, word)]
    if not words:
        return
    called, by_line = set(), {}

    def named(node, word):
        line = getattr(node, "lineno", None)
        if line is not None:
            by_line.setdefault((line, word), []).append((node, word))

    for node in ast.walk(module.tree):
        kind = type(node)
        if kind is ast.Call:
            called.add(id(node.func))
        elif kind is ast.Attribute:
            if node.attr in words:
                named(node, node.attr)
        elif kind is ast.Name:  # (`print` as a Name is "`print` used as a value")
            if node.id == "exec" and "exec" in words and id(node) not in called:
                named(node, node.id)
        elif kind in (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef):
            if node.name in words:
                named(node, node.name)
        elif kind is ast.arg or kind is ast.keyword:
            if node.arg in words:
                named(node, node.arg)
        elif kind is ast.Import or kind is ast.ImportFrom:
            for alias in node.names:
                bound = alias.asname or (alias.name if kind is ast.ImportFrom else None)
                if bound in words:
                    named(node, bound)
        elif kind is ast.ExceptHandler:
            if node.name in words:
                named(node, node.name)
    for (_, word), places in by_line.items():
        places.sort(key=lambda place: (place[0].lineno, place[0].col_offset))
        node = places[0][0]
        construct = "`%s` used as a name" % word
        yield NewSyntax(_word_span(module, node, word), construct, MINIMUM_VERSION[construct],
                        _message(construct, None, target), node)


def _word_span(module, node, word):
    """The span of `word` where `node` names it: an attribute's name after its dot, a
    def's or class's name, a keyword argument's or parameter's name; else the node's."""
    span = module.span(node)
    if isinstance(node, ast.Attribute):
        return Span(span.end_line, span.end_col - len(word), span.end_line, span.end_col)
    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        return _name_span(module, node, word)
    if isinstance(node, (ast.keyword, ast.arg)):
        return Span(span.line, span.col, span.line, span.col + len(word))
    return span


def _name_span(module, node, name):
    """The span of a def's or class's own name on its header line (not its whole body);
    of the node itself for anything else."""
    span = module.span(node)
    if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        return span
    at = module.lines.line(span.line).find(name, span.col - 1)
    if at < 0:
        return span
    return Span(span.line, at + 1, span.line, at + 1 + len(name))


def _all_fields(fields):
    for field in fields:
        yield field
        yield from _all_fields(field.nested)


def _futures(tree):
    return {
        alias.name
        for node in tree.body
        if isinstance(node, ast.ImportFrom) and node.module == "__future__"
        for alias in node.names
    }


def _print_is_a_statement(target, futures, python2_syntax):
    """Whether `print` is a statement where the module runs, so that a `print(...)` call
    with keywords is a construct to report. Not in a Python 2 file's tree: it is of the
    Python 3 rewrite, whose print calls were print statements."""
    return target < (3, 0) and "print_function" not in futures and not python2_syntax


def _inside(root):
    """The nodes under `root` that belong to the same scope: nested functions, lambdas and
    classes are yielded but not entered."""
    return same_scope_nodes(children(root))


class _Checker:
    """One method per node type, each yielding (node, construct, detail).

    Methods run over the index's nodes of their type, never over the whole tree: names
    and constants, most of any tree, are looked at only when the text says they may
    matter. What a few checks need to know about a node's surroundings (its scope, a
    comprehension, a subscript) is worked out only when a node of that kind is there.
    """

    def __init__(self, tree, lines, target, index, futures, print_statement):
        self.tree = tree
        self.lines = lines  # LineIndex of the text the tree was parsed from
        self.target = target
        self.index = index
        self.print_statement = print_statement
        # Below 3.7 the `annotations` future is itself an error, so it will not stay.
        self.evaluates_annotations = "annotations" not in futures or target < (3, 7)
        self._yields = target < (3, 3) and "yield" in lines.text  # once, not per def

    def nodes(self, *kinds):
        for kind in kinds:
            yield from self.index.get(kind, ())

    def run(self):
        for kind, nodes in list(self.index.items()):
            if kind is ast.Name or kind is ast.Constant:
                continue
            method = getattr(self, "_" + kind.__name__, None)
            if method is not None:
                for node in nodes:
                    yield from method(node)
        if self.print_statement:
            yield from self._print_values()
        yield from self._constants()

    def _FunctionDef(self, node):
        yield from self._Lambda(node)
        yield from self._decorators(node)
        yield from self._type_params(node)
        arguments = node.args
        for arg in arguments.posonlyargs + arguments.args + arguments.kwonlyargs + [arguments.vararg, arguments.kwarg]:
            if arg is not None and arg.annotation is not None:
                yield arg.annotation, "parameter annotation", arg.arg
                yield from self._evaluated_annotation(arg.annotation, (3, 0))
        if node.returns is not None:
            yield node.returns, "return annotation", None
            yield from self._evaluated_annotation(node.returns, (3, 0))
        yield from self._generator_return(node)

    def _generator_return(self, node):
        """`return value` in a generator (3.3): 2.7 refuses it at compile time. Only a
        def whose lines hold `yield` is walked."""
        if self.target >= (3, 3) or isinstance(node, ast.AsyncFunctionDef) or \
                not self._yields:
            return
        starts, text = self.lines.starts, self.lines.text
        end = starts[node.end_lineno] if node.end_lineno < len(starts) else len(text)
        if text.find("yield", starts[node.lineno - 1], end) < 0:
            return
        inner = list(_inside(node))
        if any(isinstance(each, (ast.Yield, ast.YieldFrom)) for each in inner):
            for each in inner:
                if isinstance(each, ast.Return) and each.value is not None:
                    yield each, "`return` with a value in a generator", None

    def _AsyncFunctionDef(self, node):
        yield node, "`async def`", node.name
        yield from self._FunctionDef(node)
        for inner in _inside(node):
            if isinstance(inner, ast.Yield):
                yield inner, "asynchronous generator", None

    def _Lambda(self, node):
        arguments = node.args
        if arguments.posonlyargs:
            yield arguments.posonlyargs[-1], "positional-only parameter marker `/`", None
        for arg in arguments.kwonlyargs:
            yield arg, "keyword-only parameter", arg.arg
        last = arguments.kwarg or (arguments.kwonlyargs or [arguments.vararg])[-1]
        if last is not None and self._comma_after(last):
            yield last, "trailing comma after `*args`, `**kwargs` or keyword-only parameters", None

    def _comma_after(self, node):
        """Whether the first code after `node` in the text is a comma (`f(*a,)`)."""
        lines = self.lines
        at = lines.ast_offset(node.end_lineno, node.end_col_offset)
        return lines.text.startswith(",", marks.next_code(lines.text, at))

    def _ClassDef(self, node):
        yield from self._decorators(node)
        yield from self._type_params(node)
        for keyword in node.keywords:
            yield keyword, "class keyword argument", keyword.arg and keyword.arg + "="

    def _decorators(self, node):
        for decorator in node.decorator_list:
            call = decorator.func if isinstance(decorator, ast.Call) else decorator
            if not _dotted(call):
                yield decorator, "decorator that is not a dotted name or call", None

    def _type_params(self, node):
        if getattr(node, "type_params", None):
            yield node, "type parameter list", None

    def _evaluated_annotation(self, annotation, since):
        if not self.evaluates_annotations or self.target < since:
            return
        for node in ast.walk(annotation):
            if isinstance(node, ast.Subscript) and isinstance(node.value, ast.Name) and node.value.id in GENERIC_BUILTINS:
                yield node, "subscripted builtin in an evaluated annotation", ast.unparse(node)
            elif isinstance(node, ast.BinOp) and isinstance(node.op, ast.BitOr) and any(map(_builtin_type, (node.left, node.right))):
                yield node, "`X | Y` union in an evaluated annotation", ast.unparse(node)

    def _AnnAssign(self, node):
        yield node, "variable annotation", None
        if self._evaluated_at_module_or_class(node):
            yield from self._evaluated_annotation(node.annotation, (3, 6))

    def _evaluated_at_module_or_class(self, node):
        if not hasattr(self, "_module_or_class_level"):
            roots = [self.tree] + list(self.nodes(ast.ClassDef))
            self._module_or_class_level = {id(inner) for root in roots for inner in _inside(root)}
        return id(node) in self._module_or_class_level

    def _Nonlocal(self, node):
        yield node, "`nonlocal`", None

    def _Raise(self, node):
        if node.cause is not None:
            yield node, "`raise ... from ...`", None

    def _YieldFrom(self, node):
        yield node, "`yield from`", None

    def _Await(self, node):
        if id(node) in self._async_placements():
            return  # outside an `async def`: no Python compiles it (CG001)
        yield node, "`await`", None
        if id(node) in self._in_comprehensions():
            yield node, "`await` in a comprehension", None

    def _async_placements(self):
        """{id(node): oldest Python or NEVER} of the asynchronous comprehensions and of
        the `await`s outside an `async def` (async_placements)."""
        if not hasattr(self, "_placements"):
            placements = async_placements(self.tree)
            self._placements = {id(node): oldest for node, oldest in placements}
            for node, oldest in placements:
                if oldest is NEVER and not isinstance(node, ast.Await):
                    # its own `await`s are CG001's with it
                    self._placements.update((id(inner), NEVER) for inner in _inside(node)
                                            if isinstance(inner, ast.Await))
        return self._placements

    def _in_comprehensions(self):
        if not hasattr(self, "_comprehended"):
            self._comprehended = {id(inner) for comprehension in self.nodes(*COMPREHENSIONS)
                                  for inner in _inside(comprehension)}
        return self._comprehended

    def _comprehensions(self, node):
        if not any(generator.is_async for generator in node.generators) and not any(
                isinstance(inner, ast.Await) for inner in ast.walk(node)):
            return  # no asynchronous comprehension: no walk of the whole tree for it
        placements = self._async_placements()
        if id(node) not in placements:
            return
        oldest = placements[id(node)]
        if oldest == (3, 7):
            yield node, "asynchronous generator expression outside an `async def`", None
        elif oldest == (3, 11):
            yield node, "asynchronous comprehension within another comprehension", None
        elif oldest is not NEVER and any(generator.is_async for generator in node.generators):
            yield node, "asynchronous comprehension", None
        # NEVER: no Python compiles it, which is CG001's

    _ListComp = _SetComp = _DictComp = _GeneratorExp = _comprehensions

    def _AsyncFor(self, node):
        yield node, "`async for`", None

    def _Try(self, node):
        """`continue` in a `finally` block (not in a loop of its own there): 3.8."""
        if not node.finalbody or self.target >= (3, 8) or not self.index.get(ast.Continue):
            return
        stack = list(node.finalbody)
        while stack:
            statement = stack.pop()
            if isinstance(statement, ast.Continue):
                yield statement, "`continue` in a `finally` block", None
            elif isinstance(statement, (ast.For, ast.AsyncFor, ast.While)):
                stack.extend(statement.orelse)  # its body's `continue` is the loop's own
            elif not isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef,
                                            ast.ClassDef)):
                for name in ("body", "orelse", "finalbody", "handlers", "cases"):
                    for part in getattr(statement, name, ()):
                        # an except handler or a match case: its own body
                        stack.extend(part.body if not isinstance(part, ast.stmt) else [part])

    def _AsyncWith(self, node):
        yield node, "`async with`", None
        yield from self._With(node)

    def _With(self, node):
        if (len(node.items) > 1 or node.items[0].optional_vars is not None) and self._parenthesized(node):
            yield node, "parenthesized context manager list", None

    def _parenthesized(self, node):
        """Whether one pair of parentheses holds all the items of a `with` statement."""
        lines = self.lines
        start = lines.ast_offset(node.lineno, node.col_offset)
        if not _OPENS_WITH_PARENTHESIS.match(lines.text, start):
            return False  # most `with` statements: no tokenizing
        header = lines.text[start : lines.ast_offset(node.body[0].lineno, node.body[0].col_offset)]
        tokens = (t for t in tokenize.generate_tokens(io.StringIO(header).readline) if t.type in (tokenize.OP, tokenize.NAME))
        depth = 0
        try:
            for token in tokens:  # `async`, `with`, then the first token of the items
                if token.string not in ("async", "with"):
                    break
            if token.string != "(":
                return False
            for token in tokens:
                depth += _BRACKET_DEPTH.get(token.string, 0)
                if depth < 0:  # the first parenthesis closed: the header must end here
                    return next(tokens).string == ":"
        except (tokenize.TokenError, SyntaxError, StopIteration):
            pass
        return False

    def _BinOp(self, node):
        if isinstance(node.op, ast.MatMult):
            yield node, "matrix multiplication `@`", None

    def _AugAssign(self, node):
        if isinstance(node.op, ast.MatMult):
            yield node, "matrix multiplication `@`", "@="

    def _Starred(self, node):
        if isinstance(node.ctx, ast.Store):
            yield node, "starred assignment target", None

    def _List(self, node):
        if isinstance(getattr(node, "ctx", ast.Load()), ast.Load) and any(isinstance(element, ast.Starred) for element in node.elts):
            yield node, "iterable unpacking in a display", None

    _Set = _List  # a set has no ctx: it is never a target

    def _Tuple(self, node):
        if not isinstance(node.ctx, ast.Load) or not any(isinstance(element, ast.Starred) for element in node.elts):
            return
        if any(parent.slice is node for parent in self.nodes(ast.Subscript)):
            yield node, "`*` unpacking in a subscript", None
        elif any(parent.value is node for parent in self.nodes(ast.Return, ast.Yield)) and not self._starts_with(node, "("):
            yield node, "unparenthesized unpacking in `return`/`yield`", None
        elif any(parent.iter is node for parent in self.nodes(ast.For, ast.AsyncFor)) and \
                not self._wholly_parenthesized(node):
            yield node, "unparenthesized unpacking in a `for` iterable", None
        else:
            yield node, "iterable unpacking in a display", None

    def _wholly_parenthesized(self, node):
        """Whether one pair of parentheses holds all of `node` (`(*a, *b)`, not `(a), *b`)."""
        segment = self._segment(node)
        if not (segment.startswith("(") and segment.endswith(")")):
            return False
        depth = 0
        try:
            for token in tokenize.generate_tokens(io.StringIO(segment).readline):
                if token.type != tokenize.OP:
                    continue
                depth += _BRACKET_DEPTH.get(token.string, 0)
                if depth == 0:  # the first parenthesis closed: it must be the last
                    return (token.start[0], token.end[1]) == (
                        segment.count("\n") + 1, len(segment.rsplit("\n", 1)[-1]))
        except (tokenize.TokenError, SyntaxError):
            pass
        return False

    def _Dict(self, node):
        if None in node.keys:
            yield node, "dict unpacking in a display", None

    def _Call(self, node):
        if node.args:
            stars = [i for i, arg in enumerate(node.args) if isinstance(arg, ast.Starred)]
            if len(stars) > 1:
                yield node.args[stars[1]], "more than one `*` unpacking in a call", None
            if stars and len(node.args) > stars[-1] + 1:
                yield node.args[stars[-1] + 1], "positional argument after `*` unpacking", None
        if node.keywords:
            double = [i for i, keyword in enumerate(node.keywords) if keyword.arg is None]
            if len(double) > 1:
                yield node.keywords[double[1]], "more than one `**` unpacking in a call", None
            if double and any(keyword.arg for keyword in node.keywords[double[0] + 1 :]):
                yield node.keywords[-1], "keyword argument after `**` unpacking", None
        arguments = node.args + node.keywords
        if any(isinstance(arg, ast.Starred) for arg in node.args) or any(
                keyword.arg is None for keyword in node.keywords):
            last = max(arguments, key=lambda arg: (arg.end_lineno, arg.end_col_offset))
            if self._comma_after(last):
                yield last, "trailing comma in a call with `*` or `**` unpacking", None
        name = node.func.id if type(node.func) is ast.Name else None
        if name == "print":
            for keyword in node.keywords:
                if keyword.arg == "flush":
                    # (with `print` a statement, 2.7 cannot even compile the call)
                    yield keyword, "`print()` keyword `flush=`" + (
                        " with `print` a statement" if self.print_statement else ""), None
                elif self.print_statement:
                    yield keyword, "`print()` keyword argument", keyword.arg or "**"
        if name == "print" and self.print_statement:
            for arg in node.args:
                if isinstance(arg, ast.Starred):
                    yield arg, "`print()` with `*` unpacking", None
        if name == "super" and not node.args and not node.keywords and self._in_method(node):
            yield node, "argument-less `super()`", None

    def _in_method(self, node):
        """Whether `node` is evaluated in a function defined directly in a class body."""
        if not hasattr(self, "_method_level"):
            self._method_level = {
                id(inner)
                for cls in self.nodes(ast.ClassDef)
                for method in _inside(cls)
                if isinstance(method, (ast.FunctionDef, ast.AsyncFunctionDef))
                for inner in _inside(method)
            }
        return id(node) in self._method_level

    def _print_values(self):
        called = {id(call.func) for call in self.nodes(ast.Call)}
        # `print >>sys.stderr, x`: Python 2's print statement to a file, which Python 3
        # reads as a shift of `print`
        chevrons = {id(shift.left) for shift in self.nodes(ast.BinOp)
                    if isinstance(shift.op, ast.RShift)}
        # A bare `print` statement, which prints an empty line
        chevrons.update(id(statement.value) for statement in self.nodes(ast.Expr))
        for node in self.nodes(ast.Name):
            if node.id == "print" and id(node) not in called and id(node) not in chevrons:
                yield node, "`print` used as a value", None

    def _NamedExpr(self, node):
        yield node, "assignment expression `:=`", None

    def _ImportFrom(self, node):
        if node.module == "__future__":
            for alias in node.names:
                if alias.name in FUTURE_FEATURES:
                    yield node, "`from __future__ import %s`" % alias.name, None

    def _constants(self):
        text = self.lines.text
        ellipses = "..." in text
        underscores = bool(marks.number_underscores(text))
        raw_bytes = bool(marks.raw_bytes_prefixes(text))
        if not (ellipses or underscores or raw_bytes):
            return
        constants = self.index.get(ast.Constant, ())
        if raw_bytes:  # 2.7 has `br""` but not `rb""`
            for node in constants:
                if isinstance(node.value, bytes):
                    found = raw_bytes_prefixes(self._segment(node))
                    if found:
                        yield node, "`rb` string prefix", found[0][1]
        if ellipses:
            found = [node for node in constants if node.value is Ellipsis]
            sliced = self._slices() if found else ()
            for node in found:
                if id(node) not in sliced:  # `x[...]`, `x[..., 0]` were legal
                    yield node, "`...` outside a subscript", None
        if underscores:
            for node in constants:
                value = node.value
                if isinstance(value, (int, float, complex)) and not isinstance(value, bool):
                    if "_" in self._segment(node):
                        yield node, "underscore in a numeric literal", self._segment(node)

    def _segment(self, node):
        lines = self.lines
        return lines.text[lines.ast_offset(node.lineno, node.col_offset) : lines.ast_offset(node.end_lineno, node.end_col_offset)]

    def _starts_with(self, node, text):
        return self.lines.text.startswith(text, self.lines.ast_offset(node.lineno, node.col_offset))

    def _slices(self):
        """ids of subscripts' slices, and of the elements of those that are tuples."""
        found = set()
        stack = [subscript.slice for subscript in self.nodes(ast.Subscript)]
        while stack:
            node = stack.pop()
            found.add(id(node))
            if isinstance(node, ast.Tuple):
                stack.extend(node.elts)
        return found

    def _Match(self, node):
        yield node, "`match` statement", None

    def _TryStar(self, node):
        yield node, "`except*`", None

    def _TypeAlias(self, node):
        yield node, "`type` statement", None


def _dotted(node):
    while isinstance(node, ast.Attribute):
        node = node.value
    return isinstance(node, ast.Name)


def _builtin_type(node):
    return (isinstance(node, ast.Name) and node.id in BUILTIN_TYPES) or (isinstance(node, ast.Constant) and node.value is None)


# Where an asynchronous comprehension (one with `async for`, or an `await` in its own
# scope) may stand depends on the Python (each case measured with compile() on 2.7, 3.6,
# 3.7, 3.8, 3.10, 3.11 and 3.13): directly in an `async def` or in an asynchronous
# comprehension there, 3.6+; a generator expression anywhere, 3.7+; a list, set or dict
# comprehension in another comprehension within an `async def`, 3.11+; elsewhere never.
NEVER = None


def async_placements(tree):
    """(node, oldest Python that accepts it, or NEVER) of every asynchronous
    comprehension of `tree`, and (node, NEVER) of every `await` outside an `async def`
    (a lambda in one included; an `await` in a comprehension makes the comprehension
    asynchronous instead). Walks the whole tree: for texts that hold `async` or
    `await`."""
    found = []
    # (node, innermost function: "async" / "sync" / None at module or class level,
    #  comprehensions between it and the node, outermost first)
    stack = [(tree, None, ())]
    awaiting = set()  # ids of the comprehensions that hold an `await` of their own
    comprehensions = []
    while stack:
        node, function, chain = stack.pop()
        if isinstance(node, ast.Await):
            if chain:
                awaiting.add(id(chain[-1]))
            elif function != "async":
                found.append((node, NEVER))
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
            inner = "async" if isinstance(node, ast.AsyncFunctionDef) else "sync"
            # defaults, decorators and annotations are evaluated where the def stands
            outside = list(getattr(node, "decorator_list", ()))
            arguments = node.args
            outside += arguments.defaults + [d for d in arguments.kw_defaults if d]
            outside += [arg.annotation for arg in arguments.posonlyargs + arguments.args +
                        arguments.kwonlyargs + [arguments.vararg, arguments.kwarg]
                        if arg is not None and arg.annotation is not None]
            if getattr(node, "returns", None) is not None:
                outside.append(node.returns)
            stack.extend((child, function, chain) for child in outside)
            body = node.body if isinstance(node.body, list) else [node.body]
            stack.extend((child, inner, ()) for child in body)
        elif isinstance(node, ast.ClassDef):
            stack.extend((child, function, chain) for child in
                         node.decorator_list + node.bases + node.keywords)
            stack.extend((child, None, ()) for child in node.body)
        elif isinstance(node, COMPREHENSIONS):
            comprehensions.append((node, function, chain))
            first = node.generators[0]
            stack.append((first.iter, function, chain))  # evaluated in the enclosing scope
            inner_chain = chain + (node,)
            for child in children(node):
                if child is not first:
                    stack.append((child, function, inner_chain))
            stack.extend((child, function, inner_chain) for child in [first.target] + first.ifs)
        else:
            stack.extend((child, function, chain) for child in children(node))
    accepted = {}  # id(asynchronous comprehension) -> oldest Python, or NEVER
    for node, function, chain in sorted(comprehensions, key=lambda each: len(each[2])):
        if not (id(node) in awaiting or any(each.is_async for each in node.generators)):
            continue
        generator = isinstance(node, ast.GeneratorExp)
        enclosing = chain[-1] if chain else None
        if enclosing is not None and id(enclosing) in accepted:
            # in an asynchronous comprehension: wherever that one is accepted
            oldest = accepted[id(enclosing)]
            accepted[id(node)] = oldest
            if oldest is NEVER:
                continue  # that one is reported
        elif enclosing is None and function == "async":
            oldest = (3, 6)
        elif generator:
            oldest = (3, 7)
        elif enclosing is not None and (function == "async" or any(
                isinstance(outer, ast.GeneratorExp) for outer in chain)):
            oldest = (3, 11)
        else:
            oldest = NEVER
        accepted[id(node)] = oldest
        found.append((node, oldest))
    return found
