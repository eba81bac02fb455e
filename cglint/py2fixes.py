"""Exact Python 2 rewrites of Python 3 constructs, as fix edits for CG302.

Only where the rewrite means the same on Python 3 and runs on 2.7:

* argument-less `super()` in a method -> `super(Class, self)` (the method's first
  parameter); unsafe when a class decorator may rebind the class's name (or an outer
  class's), or in a comprehension (where Python 3's `super()` fails); none where the
  name may not stay bound to the class (a loop, `global`, a private name);
* `raise X from Y` -> `six.raise_from(X, Y)`, adding `import six`;
* `class C(Base, metaclass=M)` -> `@six.add_metaclass(M)` over `class C(Base)`, adding
  `import six` (six ships with TF 1.8); unsafe but over `object` alone, and where the
  class's methods use `super()` without arguments: the class is made twice; unsafe
  too unless the metaclass is known to have no `__prepare__` of its own, which
  `six.add_metaclass` never calls;
* `print(..., end=...)`, `print(*args)`, `print` as a value or a name -> add
  `from __future__ import print_function`.

The six rewrites are unsafe where they add `import six` to a setup.py: it runs before
the dependencies it installs, TF and six among them.

Anything less certain (a comment inside the statement, a rebound first parameter, other
class keywords) gets no fix.
"""
import ast
import os
import re
from dataclasses import replace

from cglint.names import COMPREHENSIONS, same_scope_nodes
from cglint.newsyntax import raw_bytes_prefixes
from cglint.rules.base import Edit, Span

# Lines as Python's tokenizer (and cglint.fix) counts them.
_LINE = re.compile(r"[^\r\n]*(?:\r\n|\r|\n)|[^\r\n]+$")
# What may follow a statement that ends its logical line: a comment, the line's end.
_LINE_END = re.compile(r"[ \t\f]*(#[^\r\n]*)?(\r\n|\r|\n)?$")
_PRINT_CONSTRUCTS = ("`print()` keyword argument", "`print()` with `*` unpacking",
                     "`print` used as a value", "`print` used as a name")


def fix_for(module, record):
    """A tuple of Edit for one CG302 record (cglint.newsyntax.NewSyntax), or None."""
    edits = _fix_for(module, record)
    return _merged(edits) if edits else edits


def _merged(edits):
    """The edits, those that start at one place made one (`import six` inserted where the
    class it serves starts, above its decorator): the fixer takes no two edits at one
    start, whose order would be a guess. Insertions come first, in their order."""
    by_start = {}
    for edit in edits:
        by_start.setdefault((edit.line, edit.col), []).append(edit)
    merged = []
    for (line, col), group in by_start.items():
        if len(group) == 1:
            merged.append(group[0])
            continue
        replacing = [edit for edit in group if (edit.end_line, edit.end_col) != (line, col)]
        if len(replacing) > 1:
            return None  # two replacements of one place: no fix
        inserted = [edit for edit in group if edit not in replacing]
        end = replacing[0] if replacing else inserted[0]
        merged.append(Edit(Span(line, col, end.end_line, end.end_col),
                           "".join(edit.text for edit in inserted + replacing),
                           all(edit.safe for edit in group)))
    return tuple(merged)


def _fix_for(module, record):
    node = record.node
    if record.construct in _PRINT_CONSTRUCTS:
        return _future_import(module, "print_function")
    if record.construct == "non-ASCII text without a coding declaration":
        return _coding_line(module)
    if node is None:
        return None
    if record.construct == "argument-less `super()`":
        return _super(module, node)
    if record.construct == "`raise ... from ...`":
        return _raise_from(module, node)
    if record.construct == "class keyword argument":
        return _metaclass(module, node)
    if record.construct == "`rb` string prefix":
        return _bytes_prefix(module, node)
    return None


def _coding_line(module):
    """`# -*- coding: utf-8 -*-` as the first line, or the second after a `#!` line: the
    text was read as UTF-8, the encoding Python 3 assumes and 2.7 must be told."""
    text = module.text
    if not text.startswith("#!"):
        return (Edit(Span(1, 1, 1, 1), "# -*- coding: utf-8 -*-\n"),)
    first = text.split("\n", 1)[0].rstrip("\r")
    if not first.isascii():
        return None  # 2.7 reads the `#!` line as ASCII before any coding line after it
    if "\n" not in text:  # a lone `#!` line: the coding line goes after it
        end = len(first) + 1
        return (Edit(Span(1, end, 1, end), "\n# -*- coding: utf-8 -*-"),)
    return (Edit(Span(2, 1, 2, 1), "# -*- coding: utf-8 -*-\n"),)


def _bytes_prefix(module, node):
    """`rb"..."` -> `br"..."`: the same bytes, in the order 2.7 reads."""
    text = _source(module, node)
    if text is None:
        return None
    edits = []
    for offset, prefix in raw_bytes_prefixes(text):
        line = node.lineno + text.count("\n", 0, offset)
        start_of_line = text.rfind("\n", 0, offset) + 1
        col = offset - start_of_line + (
            module.lines.char_col(node.lineno, node.col_offset) if line == node.lineno else 0)
        edits.append(Edit(Span(line, col + 1, line, col + 3), prefix[1] + prefix[0]))
    return tuple(edits) or None


def _span(module, node, text, safe=True):
    """An Edit replacing `node`'s source with `text`."""
    col = module.lines.char_col(node.lineno, node.col_offset)
    end_col = module.lines.char_col(node.end_lineno, node.end_col_offset)
    return Edit(Span(node.lineno, col + 1, node.end_lineno, end_col + 1), text, safe)


def _source(module, node):
    return module.lines.segment(node)


def _plain(module, node):
    """Source of `node` when it holds no comment (a rewrite would drop it)."""
    text = _source(module, node)
    return text if text is not None and "#" not in text else None


# -- super() -----------------------------------------------------------------------------
def _super(module, call):
    for cls in module.nodes[ast.ClassDef]:
        for method in cls.body:
            if not isinstance(method, (ast.FunctionDef, ast.AsyncFunctionDef)):
                continue
            if any(inner is call for inner in same_scope_nodes(method.body)):
                return _super_in(module, cls, method, call)
    return None


def _super_in(module, cls, method, call):
    arguments = list(getattr(method.args, "posonlyargs", [])) + list(method.args.args)
    if not arguments or any(_decorator_name(d) == "staticmethod" for d in method.decorator_list):
        return None
    first = arguments[0].arg
    scope = module.names.scope_for_def.get(id(method))
    if scope is None or len(scope.bindings.get(first, ())) != 1:
        return None  # the first parameter is rebound: super() would still see the original
    classes = _class_path(module, cls)
    if classes is None or _plain(module, call) is None:
        return None  # (a comment inside `super(  # ...\n)` would be dropped)
    if [binding.node for binding in module.names.lookup(classes[0].name, scope)] != [
            classes[0]]:
        return None  # `def f(self, Model)`: the method's own name hides the class
    owner = ".".join(c.name for c in classes)
    # A class decorator may rebind the class's name (or the outer class's) to another
    # object; in a Python 3 comprehension `super()` sees the comprehension's argument,
    # not `self` (a TypeError the rewrite would turn into a working call).
    safe = not any(c.decorator_list for c in classes) and not _in_comprehension(
        module, call, method)
    return (_span(module, call, "super(%s, %s)" % (owner, first), safe=safe),)


def _class_path(module, cls):
    """The classes a method of `cls` names its class through, outermost first: `Child`,
    or `Outer.Child` for a class nested in a class (a class body's names are not visible
    from its methods). None when a name on the way may not stay bound to its class: bound
    more than once (`Child = None` later), bound again by a `global` statement, by each
    turn of a loop around the class statement (a method of the first class would name
    the last), or a private name, which Python mangles inside the class
    (`__Impl` -> `_Outer__Impl`)."""
    path = [cls]
    node, scope = cls, module.names.scope_of(cls)
    while True:
        if scope is None or len(scope.bindings.get(node.name, ())) != 1:
            return None
        if node.name.startswith("__") and not node.name.endswith("__"):
            return None
        if scope.kind == "module" and module.names.declared_global(node.name):
            return None
        if module.in_loop(node, scope.node):
            return None
        if scope.kind != "class":
            return path
        node, scope = scope.node, scope.parent
        path.insert(0, node)


def _in_comprehension(module, node, method):
    """Whether `node` is evaluated in the scope of a comprehension inside `method` (all
    of one but its first iterable, which the enclosing scope evaluates)."""
    below = [node]
    for ancestor in module.ancestors(node):
        if ancestor is method:
            return False
        if isinstance(ancestor, COMPREHENSIONS):
            first = ancestor.generators[0]
            if not (len(below) > 1 and below[-1] is first and below[-2] is first.iter):
                return True
        below.append(ancestor)
    return False


def _decorator_name(decorator):
    target = decorator.func if isinstance(decorator, ast.Call) else decorator
    return getattr(target, "id", None) or getattr(target, "attr", None)


# -- raise X from Y ----------------------------------------------------------------------
def _raise_from(module, node):
    exception, cause = _plain(module, node.exc), _plain(module, node.cause)
    statement = _plain(module, node)
    if exception is None or cause is None or statement is None:
        return None
    six, prefix = _six(module, node.exc)
    if prefix is None:
        return None
    rewrite = "%s.raise_from(%s, %s)" % (prefix, exception, cause)
    return (_span(module, node, rewrite),) + six


# -- class C(metaclass=M) ----------------------------------------------------------------
def _metaclass(module, keyword):
    cls = next((c for c in module.nodes[ast.ClassDef] if keyword in c.keywords), None)
    if cls is None or len(cls.keywords) != 1 or keyword.arg != "metaclass":
        return None
    metaclass = _plain(module, keyword.value)
    header = _header(module, cls)
    if metaclass is None or header is None:
        return None
    open_col, close_col = header
    bases = [_plain(module, base) for base in cls.bases]
    if None in bases:
        return None
    six, prefix = _six(module, cls)
    if prefix is None:
        return None
    # six.add_metaclass makes the class twice: first with the bases' own metaclass, which
    # runs their `__init_subclass__` or registry too, and the zero-argument `super()` of
    # its methods keeps pointing at that first class. Safe only over `object` alone.
    # It never calls the metaclass's `__prepare__` either: safe only for a metaclass
    # known to keep type's (an empty namespace), not one that fills the class body's.
    safe = all(base == "object" for base in bases) and not _uses_class_cell(cls) and (
        _keeps_type_prepare(module, keyword.value))
    line = cls.lineno
    indent = _lines(module)[line - 1][:module.lines.char_col(line, cls.col_offset)]
    decorator = Edit(Span(line, 1, line, 1), "%s@%s.add_metaclass(%s)\n" % (
        indent, prefix, metaclass), safe)
    parameters = Edit(Span(line, open_col, line, close_col + 1), "(%s)" % (
        ", ".join(bases) or "object"), safe)
    # The decorator goes right above `class`: applied first, under any other decorator.
    return six + (decorator, parameters)


# Metaclasses that keep `type.__prepare__`, by qualified name.
_KEEP_TYPE_PREPARE = {"abc.ABCMeta"}


def _keeps_type_prepare(module, metaclass, depth=0):
    """Whether the metaclass expression is known not to define `__prepare__`: the
    builtin `type`, ABCMeta, or a class of this module bound once, with no `__prepare__`
    of its own (nor a metaclass), whose bases are such metaclasses."""
    scope = module.names.scope_of(metaclass)
    if isinstance(metaclass, ast.Name):
        bindings = module.names.lookup(metaclass.id, scope)
        if not bindings:
            return metaclass.id == "type"
        node = bindings[0].node if len(bindings) == 1 else None
        if isinstance(node, ast.ClassDef) and depth < 20:
            own = module.names.scope_for_def.get(id(node))
            return (own is not None and "__prepare__" not in own.bindings
                    and not node.keywords and bool(node.bases)
                    and all(_keeps_type_prepare(module, base, depth + 1)
                            for base in node.bases))
    return module.names.resolve(metaclass, scope) in _KEEP_TYPE_PREPARE


def _uses_class_cell(cls):
    """Whether the class body's functions use `__class__`: an argument-less `super()`, or
    the name itself."""
    return any((isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
                and node.func.id == "super" and not node.args and not node.keywords)
               or (isinstance(node, ast.Name) and node.id == "__class__")
               for node in ast.walk(cls))


def _header(module, cls):
    """(column of `(`, column of `)`), 1-based, when the class's parenthesized bases and
    keywords are on its `class` line; else None."""
    parts = list(cls.bases) + [keyword.value for keyword in cls.keywords]
    if any(part.lineno != cls.lineno or part.end_lineno != cls.lineno for part in parts):
        return None
    line = _lines(module)[cls.lineno - 1]
    start = module.lines.char_col(cls.lineno, cls.col_offset)
    open_col = line.find("(", line.find(cls.name, start) + len(cls.name))
    last = max(module.lines.char_col(cls.lineno, part.end_col_offset) for part in parts)
    close_col = line.find(")", last)
    if open_col < 0 or close_col < 0 or "#" in line[open_col:close_col]:
        return None
    return open_col + 1, close_col + 1


# -- imports at the top ------------------------------------------------------------------
def _six(module, at):
    """(edits that make `six` importable here, the name to call it by); (.., None) when
    the name `six` is bound to something else, at module level or where `at` (a node
    the rewrite replaces) reads it (`def pick(six):`)."""
    local = module.names.lookup("six", module.names.scope_of(at))
    if any(b.kind != "import" or b.qualname != "six" or b.scope.kind != "module"
           for b in local):
        return (), None  # (a function's own `import six` may not have run)
    # A top-level `import six` serves a function at any line, module-level code below it.
    at_top = module.names.scope_of(at).kind == "module"
    if any(_imports_six(statement) and not (at_top and statement.lineno > at.lineno)
           for statement in module.tree.body):
        return (), "six"
    # Only a conditional `import six` (under `if`, `try`, `with`): it may not have run,
    # so one more at the top, which six (shipped with TF 1.8) satisfies once TF is
    # installed; a setup.py runs before, to install it.
    edit = _insert_line(module, "import six")
    if edit and _runs_at_install(module):
        edit = replace(edit, safe=False)
    return ((edit,), "six") if edit else ((), None)


def _runs_at_install(module):
    """Whether the file is a setup.py: it runs before the project's dependencies (TF,
    and six with it) are installed, so a new `import six` could fail the installation."""
    return os.path.basename(module.path) == "setup.py"


def _imports_six(statement):
    return isinstance(statement, ast.Import) and any(
        alias.name == "six" and alias.asname in (None, "six") for alias in statement.names)


def _future_import(module, feature):
    body = module.tree.body
    for node in body:
        if _is_future(node) and any(alias.name == feature for alias in node.names):
            return None
    # (None where it cannot come first: after `"""Doc."""; import sys` on one line.)
    edit = _insert_line(module, "from __future__ import %s" % feature)
    return (edit,) if edit else None


def _is_docstring(node, body):
    return node is body[0] and isinstance(node, ast.Expr) and isinstance(
        node.value, ast.Constant) and isinstance(node.value.value, str)


def _is_future(node):
    return isinstance(node, ast.ImportFrom) and node.module == "__future__"


def _lines(module):
    return _LINE.findall(module.text)


def _insert_line(module, statement):
    """An Edit adding `statement` on a line of its own after the module docstring and the
    `from __future__` imports (before the first other statement, above its decorators:
    after the shebang and coding comments); None when no line there starts a statement (after
    `"Doc."; X = '''a` the next line is inside a string)."""
    body = module.tree.body
    anchor = None
    for node in body:
        if _is_docstring(node, body) or _is_future(node):
            anchor = node
        else:
            break
    lines = _lines(module)
    if not lines:
        return Edit(Span(1, 1, 1, 1), statement + "\n")
    if anchor is None:
        line = _first_line(body[0]) if body else len(lines) + 1
    else:
        # The anchor must end its logical line: after it only a comment, no `;` (the
        # next statement, maybe a string that spans the line after) and no backslash.
        rest = lines[anchor.end_lineno - 1][
            module.lines.char_col(anchor.end_lineno, anchor.end_col_offset):]
        if not _LINE_END.match(rest):
            return None
        line = anchor.end_lineno + 1
    if line > len(lines):  # nothing after the anchor: append after the last line's text
        content = len(lines[-1].rstrip("\r\n")) + 1
        return Edit(Span(len(lines), content, len(lines), content), "\n" + statement)
    return Edit(Span(line, 1, line, 1), statement + "\n")


def _first_line(statement):
    """The line a statement starts on: its first decorator's, when it has any (the
    tree's `lineno` of a decorated def or class is that of `def` or `class`)."""
    return min([statement.lineno] + [d.lineno for d in getattr(statement, "decorator_list", ())])
