"""The cheap index: statements by type, without visiting a single expression.

Statements are about a tenth of a tree's nodes, and they are all most files need (their
imports, definitions, `with` and `try` blocks). Visiting every expression of every file
costs about half a parse again; `marked_index` visits the expressions of only those
statements whose lines hold a given piece of text (`*`, `lambda`, ...), which a fact that
looks for a construct needing that text can use instead of the full index. The full
index (every node, with scopes) is cglint.names's, built only for files that need it.
"""
import ast
import itertools
import re
from collections import defaultdict

from cglint.names import children

_BODIES = frozenset(("body", "orelse", "finalbody"))  # lists of statements
_CONTAINERS = frozenset(("handlers", "cases"))  # ExceptHandler, match_case: header + body
_LONE_CARRIAGE_RETURN = re.compile(r"\r(?!\n)")


def statement_index(tree):
    """{statement type: [statements]} of every statement in `tree`, nested ones included
    (in bodies of defs, classes, loops, `if`, `with`, `try` handlers and `match` cases).
    Not in source order."""
    index = defaultdict(list)
    layouts = _LAYOUTS
    stack = list(tree.body)
    pop, extend = stack.pop, stack.extend
    while stack:
        node = pop()
        kind = type(node)
        index[kind].append(node)
        bodies, containers, _ = layouts.get(kind) or _layout(kind)
        for name in bodies:
            extend(getattr(node, name))
        for name in containers:
            for part in getattr(node, name):
                extend(part.body)
    return index


def marked_index(tree, statements, text, markers, offsets=()):
    """{node type: [nodes]}: every statement of `statements` (the statement_index of
    `tree`), and every node under the statements whose lines hold one of the `markers`
    (literal strings) in `text` (what the tree was parsed from), or one of the character
    `offsets`. Exact for a construct that is a statement, or an expression whose own
    statement must hold one of the markers. Not in source order. A decorator's own `@` is
    not a marker: it is its statement's, not an operator. With nothing marked, the
    statements' own lists come back: the caller reads them, never changes them."""
    # A full index (cglint.names's) holds expressions too: only its statements are taken.
    own = {kind: nodes for kind, nodes in statements.items() if issubclass(kind, ast.stmt)}
    marks = _Marks(text, markers, offsets) if markers or offsets else None
    if marks is None or not marks.any:
        return own  # nothing to add: read, never written to
    index = defaultdict(list, {kind: list(nodes) for kind, nodes in own.items()})
    hold = marks.hold
    layouts = _LAYOUTS
    # From the top down, into only the statements whose lines (decorators included) hold
    # a mark: a header, and every statement nested in a body, lies within those lines. Most
    # statements of a file with a few marks are never looked at.
    stack = list(tree.body)
    pop, extend = stack.pop, stack.extend
    while stack:
        node = pop()
        first, last = node.lineno, node.end_lineno
        decorators = getattr(node, "decorator_list", None)
        if decorators:
            first = min(first, min(decorator.lineno for decorator in decorators))
        if not hold(first, last):  # any mark, a decorator's own `@` included
            continue
        bodies, containers, headers = layouts.get(type(node)) or _layout(type(node))
        if not bodies and not containers:  # a simple statement is all header
            _index_all(_header_nodes(node, headers), index)
            continue
        # A compound statement's header ends where its body starts (the first body line
        # is taken too: a header may end on it); a `match` has cases only.
        if hold(node.lineno, node.body[0].lineno if "body" in bodies else last, decorators):
            _index_all(_header_nodes(node, headers), index)
        for name in bodies:
            extend(getattr(node, name))
        for name in containers:
            for part in getattr(node, name):
                # An `except` or `case` line: its own header, below the statement's.
                header_first = part.lineno if name == "handlers" else part.pattern.lineno
                if hold(header_first, part.body[0].lineno):
                    index[type(part)].append(part)
                    _index_all([child for child in children(part) if child not in part.body],
                               index)
                extend(part.body)
    return index


class _Marks:
    """Which lines hold a marker, as prefix sums: a range of lines is asked in O(1).
    A `@` that is the first thing on its line is counted apart: it may be a decorator's
    own, which does not mark its statement."""

    def __init__(self, text, markers, offsets):
        if "\r" in text and text.count("\r") != text.count("\r\n"):
            # A lone carriage return ends a line for the parser: count lines as it does
            # (replaced one for one, so offsets stay).
            text = _LONE_CARRIAGE_RETURN.sub("\n", text)
        found = list(offsets)
        for marker in markers:
            at = text.find(marker)
            while at >= 0:
                found.append(at)
                at = text.find(marker, at + len(marker))
        self.any = bool(found)
        if not found:
            return
        found.sort()
        total = text.count("\n") + 2
        strong, leading_at = bytearray(total), bytearray(total)
        line, counted = 1, 0
        for at in found:
            line += text.count("\n", counted, at)
            counted = at
            if text[at] == "@" and not text[text.rfind("\n", 0, at) + 1:at].strip():
                leading_at[line] = 1
            else:
                strong[line] = 1
        self.strong = list(itertools.accumulate(strong))
        self.leading_at = list(itertools.accumulate(leading_at))
        self.leading_at_lines = leading_at

    def hold(self, first, last, decorators=None):
        """Whether lines first..last hold a mark (decorators: of a statement at `first`,
        above it, whose own `@` lines do not count)."""
        if decorators:
            top = min(decorator.lineno for decorator in decorators)
            own = len({d.lineno for d in decorators if self.leading_at_lines[d.lineno]})
            first = min(first, top)
        else:
            own = 0
        strong, leading_at = self.strong, self.leading_at
        return (strong[last] - strong[first - 1] > 0
                or leading_at[last] - leading_at[first - 1] > own)


def _header_nodes(node, headers):
    found = []
    for name in headers:
        value = getattr(node, name, None)
        if isinstance(value, list):
            found.extend(item for item in value if item is not None and not isinstance(item, str))
        elif value is not None and not isinstance(value, (str, int)):
            found.append(value)
    return found


def _index_all(stack, index):
    while stack:
        item = stack.pop()
        index[type(item)].append(item)
        stack.extend(children(item))


_LAYOUTS = {}


def _layout(kind):
    """(statement-list fields, handler/case fields, other node fields) of a statement type."""
    bodies, containers, headers = [], [], []
    for name, _ in _node_fields(kind):
        if name in _BODIES:
            bodies.append(name)
        elif name in _CONTAINERS:
            containers.append(name)
        else:
            headers.append(name)
    layout = _LAYOUTS[kind] = (tuple(bodies), tuple(containers), tuple(headers))
    return layout


def _node_fields(kind):
    from cglint.names import _child_fields  # the binder's reading of the grammar

    return _child_fields(kind)
