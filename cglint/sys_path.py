"""The folders a module adds to `sys.path`, worked out from its text without running it.

Research code of the TF 1.x era reaches its helper modules by changing `sys.path`:
`sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "lib"))`, then
`import grads`, whose `tf.RegisterGradient` the script's `gradient_override_map` uses. The
imports that follow such a change are looked up in the folders it adds, as Python does.

Paths are built from `__file__`, string literals, `os.getcwd()` and module-level names
bound to those, with `os.path` functions, `pathlib.Path` and `+`. A relative path is
relative to the working directory, which cglint cannot know: it is taken as the module's
own folder (`python train.py`) and as its project's top (`python scripts/train.py`). A
change whose path cglint cannot work out, or whose folder is not on this disk (another
machine's `/home/me/lib`), makes what the module imports unknown.
"""
import ast
import os
from dataclasses import dataclass

from cglint.names import dotted

# Words without which a module changes no search path.
WORDS = ("sys.path", "addsitedir")
# `os.path` functions (however imported: `os.path.join`, `osp.join`, `join`) that keep a
# path absolute; the value they give for absolute arguments.
_PATH_FUNCTIONS = {
    "join": os.path.join,
    "dirname": os.path.dirname,
    "abspath": os.path.normpath,
    "realpath": os.path.normpath,
    "normpath": os.path.normpath,
}
_SAME_PATH_CALLS = frozenset(("str", "Path", "PurePath", "PosixPath", "fspath", "resolve",
                              "absolute", "expanduser"))
_WORKING_DIRECTORY_CALLS = frozenset(("getcwd", "getcwdu"))
_MAX_DEPTH = 12  # names bound to names, nested calls
_MAX_VALUES = 16  # folders one expression may be


@dataclass(frozen=True)
class PathChanges:
    folders: tuple = ()  # absolute folders added, in the order they are added
    unknown: bool = False  # a change whose folder cglint cannot work out or find


NO_CHANGES = PathChanges()


class _Unknown(Exception):
    pass


def path_changes(tree, text, path, working_directories):
    """PathChanges of a module's `sys.path` changes: `sys.path.insert(i, p)`,
    `.append(p)`, `.extend([...])`, `sys.path += [...]`, `sys.path = [...] + sys.path`,
    `sys.path[0:0] = [...]`, `site.addsitedir(p)`. `path`: the module's file;
    `working_directories`: the folders a relative path is taken against."""
    if not any(word in text for word in WORDS):
        return NO_CHANGES
    evaluator = _Evaluator(tree, path, working_directories)
    folders, unknown = [], False
    for added in _added_expressions(tree):
        try:
            found = [folder for folder in evaluator.folders(added) if os.path.isdir(folder)]
        except (_Unknown, TypeError, ValueError):
            found = []
        unknown = unknown or not found
        folders.extend(found)
    return PathChanges(tuple(dict.fromkeys(folders)), unknown)


def _added_expressions(tree):
    """The expressions of the paths a module adds to sys.path, in source order."""
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
            name, owner = node.func.attr, dotted(node.func.value)
            if owner == "sys.path" and name == "insert" and len(node.args) == 2:
                yield node.args[1]
            elif owner == "sys.path" and name == "append" and len(node.args) == 1:
                yield node.args[0]
            elif owner == "sys.path" and name == "extend" and len(node.args) == 1:
                yield from _items(node.args[0])
            elif name == "addsitedir" and node.args:
                yield node.args[0]
        elif isinstance(node, ast.AugAssign) and dotted(node.target) == "sys.path":
            yield from _items(node.value)
        elif isinstance(node, ast.Assign) and any(_changes_path(t) for t in node.targets):
            yield from _items(node.value)


def _changes_path(target):
    return dotted(target) == "sys.path" or (
        isinstance(target, ast.Subscript) and dotted(target.value) == "sys.path")


def _items(expr):
    """The paths of a list expression added to sys.path; sys.path itself left out."""
    if isinstance(expr, (ast.List, ast.Tuple)):
        return list(expr.elts)
    if isinstance(expr, ast.BinOp) and isinstance(expr.op, ast.Add):
        return [item for side in (expr.left, expr.right) if dotted(side) != "sys.path"
                for item in _items(side)]
    return [expr]  # a name or call: worked out, or unknown




class _Evaluator:
    def __init__(self, tree, path, working_directories):
        self.file = os.path.abspath(path)
        self.working_directories = tuple(working_directories)
        # Module-level names bound once, to what a path may be built from.
        bound = {}
        for statement in tree.body:
            if isinstance(statement, ast.Assign) and len(statement.targets) == 1 and \
                    isinstance(statement.targets[0], ast.Name):
                name = statement.targets[0].id
                bound[name] = None if name in bound else statement.value
        self.bound = bound

    def folders(self, expr):
        """The absolute folders `expr` may be (one per working directory when it is
        relative to it)."""
        return [os.path.normpath(value) for value in self._values(expr, 0)]

    def _values(self, expr, depth):
        values = self._all_values(expr, depth)
        if len(values) > _MAX_VALUES:
            raise _Unknown()  # relative parts joined to relative parts, many times over
        return values

    def _all_values(self, expr, depth):
        if depth > _MAX_DEPTH:
            raise _Unknown()
        depth += 1
        if isinstance(expr, ast.Constant) and isinstance(expr.value, str):
            if expr.value.startswith("~"):
                raise _Unknown()
            if os.path.isabs(expr.value):
                return [expr.value]
            return [os.path.join(folder, expr.value) for folder in self.working_directories]
        if isinstance(expr, ast.Name):
            if expr.id == "__file__":
                return [self.file]
            value = self.bound.get(expr.id)
            if value is None:
                raise _Unknown()
            return self._values(value, depth)
        if isinstance(expr, ast.Attribute):
            if expr.attr == "parent":  # pathlib
                return [os.path.dirname(value) for value in self._values(expr.value, depth)]
            if dotted(expr) in ("os.curdir", "os.path.curdir"):
                return list(self.working_directories)
            raise _Unknown()
        if isinstance(expr, ast.Subscript) and isinstance(expr.value, ast.Attribute) and \
                expr.value.attr == "parents" and isinstance(expr.slice, ast.Constant) and \
                isinstance(expr.slice.value, int):
            values = self._values(expr.value.value, depth)
            for _ in range(expr.slice.value + 1):
                values = [os.path.dirname(value) for value in values]
            return values
        if isinstance(expr, ast.BinOp) and isinstance(expr.op, (ast.Add, ast.Div)):
            lefts, rights = self._values(expr.left, depth), self._parts(expr.right, depth)
            if isinstance(expr.op, ast.Div):
                return [os.path.join(left, right) for left in lefts for right in rights]
            return [left + right for left in lefts for right in rights]
        if isinstance(expr, ast.Call):
            return self._called(expr, depth)
        raise _Unknown()

    def _parts(self, expr, depth):
        """A path's later part: a literal as written (not taken against a folder)."""
        if isinstance(expr, ast.Constant) and isinstance(expr.value, str):
            return [expr.value]
        if dotted(expr) in ("os.sep", "os.path.sep"):
            return [os.sep]
        return self._values(expr, depth)

    def _called(self, call, depth):
        func = call.func
        name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", None)
        if call.keywords or any(isinstance(arg, ast.Starred) for arg in call.args):
            raise _Unknown()
        if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Constant) and \
                name == "join" and len(call.args) == 1 and \
                isinstance(call.args[0], (ast.List, ast.Tuple)):
            # "/".join([...]): a string's join
            values = [""]
            for index, item in enumerate(call.args[0].elts):
                parts = self._values(item, depth) if index == 0 else self._parts(item, depth)
                values = [value + (func.value.value if index else "") + part
                          for value in values for part in parts]
            return values
        if name in _WORKING_DIRECTORY_CALLS and not call.args:
            return list(self.working_directories)
        if name in _PATH_FUNCTIONS and call.args:
            arguments = [self._values(call.args[0], depth)] + [
                self._parts(arg, depth) for arg in call.args[1:]]
            function = _PATH_FUNCTIONS[name]
            values = [()]
            for choices in arguments:
                values = [value + (choice,) for value in values for choice in choices]
            return [function(*value) for value in values]
        if name in _SAME_PATH_CALLS:
            if isinstance(func, ast.Attribute) and name in ("resolve", "absolute", "expanduser"):
                return self._values(func.value, depth)
            if len(call.args) == 1:
                return self._values(call.args[0], depth)
        raise _Unknown()
