"""Evaluate a test on `tf.__version__` as it runs on a given TensorFlow release.

`if LooseVersion(tf.__version__) >= LooseVersion("1.13")`, `tf.__version__.startswith("2")`,
`tuple(map(int, tf.__version__.split(".")[:2])) < (1, 13)`, `int(tf.__version__[0]) >= 2`:
each is computed with "1.8.0" (the target) in place of the version. Two strings compare
as strings, as they do at run time ("1.8.0" < "1.13" is False); LooseVersion,
StrictVersion and packaging's parse compare release numbers; `"v1" in dir(tf.compat)` is
the table's answer for the target. Anything else is unknown.
"""
import ast
import re

VERSION_NAMES = ("tensorflow.__version__", "tensorflow.VERSION", "tensorflow.version.VERSION")
_VERSION_CLASSES = ("LooseVersion", "StrictVersion", "parse", "parse_version", "Version")


def release(target):
    """(major, minor) of a target TensorFlow release given as text ("1.8")."""
    parts = re.findall(r"\d+", str(target))
    return (int(parts[0]), int(parts[1])) if len(parts) >= 2 else (1, 8)


def evaluate(test, version, resolve, single_value, call_value=None):
    """True / False: what `test` gives on release `version` ((1, 8)); None when unknown.

    `resolve(expr)` gives a Name/Attribute's qualified name; `single_value(name)` the one
    value a Name was assigned, or None; `call_value(call)` what a call of the project's
    own function returns (`get_tf_version_tuple()`), or UNKNOWN."""
    return _Evaluator(version, resolve, single_value, call_value).truth(test)


def evaluate_value(expr, version, resolve, single_value, call_value=None):
    """The value `expr` has on release `version`, or UNKNOWN."""
    try:
        return _Evaluator(version, resolve, single_value, call_value).value(expr, 0)
    except (_Unknown, TypeError, ValueError, IndexError, AttributeError, OverflowError,
                RecursionError):
        return UNKNOWN


UNKNOWN = object()


class _Unknown(Exception):
    """The test cannot be evaluated statically."""


class _Evaluator:
    def __init__(self, version, resolve, single_value, call_value=None):
        self.version_text = "%d.%d.0" % version
        self.target = "%d.%d" % version
        self.resolve = resolve
        self.single_value = single_value
        self.call_value = call_value
        self.loop_values = {}  # a comprehension's variable -> its value in the item at hand

    def truth(self, expr):
        try:
            return bool(self.value(expr, 0))
        except (_Unknown, TypeError, ValueError, IndexError, AttributeError, OverflowError,
                RecursionError):
            return None

    def value(self, expr, depth):
        if depth > 20:
            raise _Unknown()
        if isinstance(expr, ast.Constant) and isinstance(expr.value, (str, int, float)):
            return expr.value
        if isinstance(expr, ast.Name) and expr.id in self.loop_values:
            return self.loop_values[expr.id]
        if isinstance(expr, (ast.Attribute, ast.Name)):
            if self.resolve(expr) in VERSION_NAMES:
                return self.version_text
            if isinstance(expr, ast.Name):
                value = self.single_value(expr)
                if value is not None:
                    return self.value(value, depth + 1)
            raise _Unknown()
        if isinstance(expr, (ast.Tuple, ast.List)):
            return tuple(self.value(element, depth + 1) for element in expr.elts)
        if isinstance(expr, ast.Subscript):
            return self._subscript(expr, depth)
        if isinstance(expr, ast.UnaryOp) and isinstance(expr.op, ast.Not):
            return not self.value(expr.operand, depth + 1)
        if isinstance(expr, ast.BoolOp):
            # As Python runs it: the operands after the one that decides are never run.
            deciding = not isinstance(expr.op, ast.And)
            for value in expr.values:
                if bool(self.value(value, depth + 1)) is deciding:
                    return deciding
            return not deciding
        if isinstance(expr, ast.Compare):
            return self._compare(expr, depth)
        if isinstance(expr, ast.Call):
            return self._call(expr, depth)
        if isinstance(expr, (ast.ListComp, ast.GeneratorExp)):
            return self._comprehension(expr, depth)
        raise _Unknown()

    def _comprehension(self, expr, depth):
        """`[int(v) for v in tf.__version__.split(".")]`: one loop over known values into
        a name, no condition."""
        if len(expr.generators) != 1:
            raise _Unknown()
        loop = expr.generators[0]
        if loop.ifs or loop.is_async or not isinstance(loop.target, ast.Name):
            raise _Unknown()
        items = []
        outer = self.loop_values.get(loop.target.id, self)
        for item in self.value(loop.iter, depth + 1):
            self.loop_values[loop.target.id] = item
            items.append(self.value(expr.elt, depth + 1))
        if outer is self:
            self.loop_values.pop(loop.target.id, None)
        else:
            self.loop_values[loop.target.id] = outer
        return items if isinstance(expr, ast.ListComp) else tuple(items)

    def _subscript(self, expr, depth):
        value = self.value(expr.value, depth + 1)
        index = expr.slice
        if isinstance(index, ast.Slice):
            bounds = [None if part is None else self.value(part, depth + 1)
                      for part in (index.lower, index.upper, index.step)]
            return value[slice(*bounds)]
        return value[self.value(index, depth + 1)]

    def _compare(self, expr, depth):
        if len(expr.ops) == 1 and isinstance(expr.ops[0], (ast.In, ast.NotIn)):
            found = self._in_dir(expr.left, expr.comparators[0], depth)
            return found if isinstance(expr.ops[0], ast.In) else not found
        left = self.value(expr.left, depth + 1)
        operators = {ast.Lt: lambda a, b: a < b, ast.LtE: lambda a, b: a <= b,
                     ast.Gt: lambda a, b: a > b, ast.GtE: lambda a, b: a >= b,
                     ast.Eq: lambda a, b: a == b, ast.NotEq: lambda a, b: a != b}
        for operator, comparator in zip(expr.ops, expr.comparators):
            right = self.value(comparator, depth + 1)
            compare = operators.get(type(operator))
            if compare is None:
                raise _Unknown()
            if isinstance(left, str) != isinstance(right, str) and not (
                    isinstance(left, _Version) or isinstance(right, _Version)):
                raise _Unknown()
            # Two strings compare as strings, as they do when the code runs.
            if not compare(left, right):
                return False
            left = right
        return True

    def _in_dir(self, name, listing, depth):
        """`"v1" in dir(tf.compat)`: whether the target's TensorFlow module has the name
        (the table's answer); unknown for anything else."""
        if not (isinstance(listing, ast.Call) and isinstance(listing.func, ast.Name)
                and listing.func.id == "dir" and len(listing.args) == 1
                and not listing.keywords):
            raise _Unknown()
        name = self.value(name, depth + 1)
        owner = self.resolve(listing.args[0])
        if not isinstance(name, str) or not owner or not (
                owner == "tensorflow" or owner.startswith("tensorflow.")):
            raise _Unknown()
        from cglint import tfapi

        if owner != "tensorflow" and tfapi.status(owner, self.target) != tfapi.EXISTS:
            raise _Unknown()  # the module itself may be missing: `dir(...)` would raise
        found = tfapi.status(owner + "." + name, self.target)
        if found == tfapi.UNKNOWN:
            raise _Unknown()
        return found == tfapi.EXISTS

    def _call(self, expr, depth):
        function = expr.func
        if self.call_value is not None:  # the project's own helper, run as on the target
            value = self.call_value(expr)
            if value is not UNKNOWN:
                return value
        if expr.keywords:
            raise _Unknown()
        if isinstance(function, ast.Name) and function.id == "map" and len(expr.args) == 2 \
                and isinstance(expr.args[0], ast.Name) and expr.args[0].id in ("int", "float"):
            convert = int if expr.args[0].id == "int" else float
            return tuple(convert(_leading_number(item))
                         for item in self.value(expr.args[1], depth + 1))
        arguments = [self.value(argument, depth + 1) for argument in expr.args]
        string_methods = ("startswith", "split", "strip", "endswith", "join")
        if isinstance(function, ast.Attribute) and function.attr in string_methods:
            owner = self.value(function.value, depth + 1)
            if not isinstance(owner, str):
                raise _Unknown()
            return getattr(owner, function.attr)(*arguments)
        name = function.attr if isinstance(function, ast.Attribute) else getattr(
            function, "id", None)
        if name in _VERSION_CLASSES and len(arguments) == 1 and isinstance(arguments[0], str):
            return _Version(arguments[0])
        if name in ("int", "float", "str", "tuple", "list") and len(arguments) == 1:
            return {"int": int, "float": float, "str": str, "tuple": tuple,
                    "list": tuple}[name](arguments[0])
        raise _Unknown()


def _leading_number(text):
    match = re.match(r"\d+", str(text))
    if not match:
        raise _Unknown()
    return match.group(0)


class _Version:
    """A release number compared the way LooseVersion and packaging do for plain releases."""

    def __init__(self, text):
        self.parts = tuple(int(part) for part in re.findall(r"\d+", text.split("-")[0])[:3])
        if not self.parts:
            raise _Unknown()

    def _key(self, other):
        if isinstance(other, str):
            other = _Version(other)
        if not isinstance(other, _Version):
            raise _Unknown()
        width = max(len(self.parts), len(other.parts))
        pad = lambda parts: parts + (0,) * (width - len(parts))  # noqa: E731
        return pad(self.parts), pad(other.parts)

    def __lt__(self, other):
        a, b = self._key(other)
        return a < b

    def __le__(self, other):
        a, b = self._key(other)
        return a <= b

    def __gt__(self, other):
        a, b = self._key(other)
        return a > b

    def __ge__(self, other):
        a, b = self._key(other)
        return a >= b

    def __eq__(self, other):
        a, b = self._key(other)
        return a == b

    def __ne__(self, other):
        a, b = self._key(other)
        return a != b

    __hash__ = None
