"""Module-level bindings of a TensorFlow alias in a branch the target never runs.

Code written for TF 1 and TF 2 alike picks its API at the top of the module:

    import tensorflow as tf
    if hasattr(tf, "compat") and hasattr(tf.compat, "v1"):   # or tf.__version__ >= "2"
        tf = tf.compat.v1
    tf = tf.compat.v1 if hasattr(tf.compat, "v1") else tf     # the same, in one line
    if hasattr(tensorflow.compat, "v1"): tf = tensorflow.compat.v1
    else: tf = tensorflow

On TF 1.8 the test is False and `tf` stays the module. Bound both ways, `tf` resolved to
nothing, which hid every finding of the module. The test is decided here with only the
imports bound before it (the names' other bindings are what is being decided): a
`hasattr` of a name the target's table has or lacks, or a test of `tf.__version__`
(cglint.version_tests). Anything else stays undecided, and the name unknown, as before.
"""
import ast

from cglint import tfapi
from cglint.version_tests import evaluate, release

_STATEMENT_LISTS = ("body", "orelse", "finalbody")
_SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)


def may_rebind(names):
    """Whether some module-level name is assigned a conditional expression, or is
    assigned and bound again: the only modules the decisions below can change."""
    for bindings in names.module.bindings.values():
        for binding in bindings:
            if binding.kind == "assign" and (len(bindings) > 1 or isinstance(
                    binding.node, ast.IfExp)):
                return True
    return False


def decide(tree, names, target_tf):
    """Record in `names` what the target makes of the top-level tests that rebind an
    imported name: the values of assignments it never runs (names.never_bound), the
    branch of a conditional expression it takes (names.chosen), and the statements it
    never runs (names.untaken, which guards treat as dead code)."""
    never, untaken = set(), []
    version = release(target_tf)
    for statement in tree.body:
        if isinstance(statement, ast.If):
            _decide_if(statement, names, target_tf, version, never, untaken)
        elif isinstance(statement, ast.Assign) and isinstance(statement.value, ast.IfExp) \
                and len(statement.targets) == 1 and isinstance(statement.targets[0], ast.Name):
            value = statement.value
            taken = _truth(value.test, statement.lineno, names, target_tf, version, never)
            if taken is not None:
                chosen = value.body if taken else value.orelse
                names.chosen[id(value)] = chosen
                if isinstance(chosen, (ast.Name, ast.Attribute)):
                    names.resolvable.add(statement.targets[0].id)
    if never:
        names.never_bound = frozenset(names.never_bound) | never
    names.untaken.extend(untaken)


def _decide_if(statement, names, target_tf, version, never, untaken):
    """An `if` (and its `elif`s, one after another) at the top level that assigns a name."""
    while any(True for _ in _assignments([statement])):
        taken = _truth(statement.test, statement.lineno, names, target_tf, version, never)
        if taken is None:
            return
        skipped, kept = (statement.orelse, statement.body) if taken else (
            statement.body, statement.orelse)
        untaken.append(skipped)
        never.update(id(assignment.value) for assignment in _assignments(skipped))
        if not (len(kept) == 1 and isinstance(kept[0], ast.If)):  # no `elif` follows
            return
        statement = kept[0]


def _assignments(statements):
    """Simple `name = value` statements among `statements`, in the module's scope."""
    stack = list(statements)
    while stack:
        node = stack.pop()
        if isinstance(node, _SCOPES):
            continue
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(
                node.targets[0], ast.Name):
            yield node
        for field in _STATEMENT_LISTS:
            stack.extend(getattr(node, field, ()))
        for handler in getattr(node, "handlers", ()):
            stack.extend(handler.body)


def _truth(test, line, names, target_tf, version, never):
    """True / False: what `test`, at top-level line `line`, gives on the target; None
    when unknown. `never`: ids of the values assigned in branches already decided dead."""
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        value = _truth(test.operand, line, names, target_tf, version, never)
        return None if value is None else not value
    if isinstance(test, ast.BoolOp):
        values = [_truth(each, line, names, target_tf, version, never)
                  for each in test.values]
        decisive = isinstance(test.op, ast.Or)  # the value that ends the test
        for value in values:
            if value is None:
                return None  # (an unknown operand first could raise or decide)
            if value is decisive:
                return decisive
        return not decisive
    resolve = _imported_before(line, names, never)
    if isinstance(test, ast.Call) and isinstance(test.func, ast.Name) and \
            test.func.id == "hasattr" and len(test.args) == 2 and not test.keywords:
        owner, attribute = test.args
        qualname = resolve(owner)
        if not (qualname and qualname.startswith("tensorflow.") or qualname == "tensorflow") \
                or not (isinstance(attribute, ast.Constant) and isinstance(attribute.value, str)):
            return None
        if qualname != "tensorflow" and tfapi.status(qualname, target_tf) != tfapi.EXISTS:
            return None  # the owner itself may be missing: the test would raise
        found = tfapi.status(qualname + "." + attribute.value, target_tf)
        return {tfapi.EXISTS: True, tfapi.MISSING: False}.get(found)
    value = evaluate(test, version, resolve, lambda name: None)
    return value if isinstance(value, bool) else None


def _imported_before(line, names, never):
    """resolve(expr) through the module-level imports made before `line` alone: None
    when a name has another binding there (its value is not known), but for those of
    branches decided dead (`never`)."""
    def resolve(expr):
        attributes = []
        while isinstance(expr, ast.Attribute):
            attributes.append(expr.attr)
            expr = expr.value
        if not isinstance(expr, ast.Name):
            return None
        earlier = [binding for binding in names.module.bindings.get(expr.id, ())
                   if id(binding.node) not in never and (
                       binding.node is None or getattr(binding.node, "lineno", line) < line)]
        if not earlier or any(binding.kind != "import" for binding in earlier):
            return None
        bound = {binding.qualname for binding in earlier
                 if id(binding.node) not in names.never_bound}
        if len(bound) != 1:
            return None
        return ".".join([bound.pop()] + attributes[::-1])
    return resolve
