import ast

from cglint import site_variables
from cglint.facts import empty_without_variables, own_nodes, variable_gradients
from cglint.rules.base import Rule


class VariablesProtocol(Rule):
    """The gradient function uses the newer `variables=` protocol, which TF 1.8 lacks.

    What: a gradient function declared `def grad(dy, variables=None)` (copied from TF 1.12+
    or TF 2 docs), or `def grad(dy, **kwargs)` reading `kwargs.get("variables")`, or one
    that returns `dx, [dw]`, gradients for the variables it used.

    Why it breaks on TF 1.8: 1.8 never passes `variables` (it is always None), so the
    variables used inside get no gradient, silently. Returning `dx, [dw]` adds an extra
    gradient: graph mode raises `ValueError: Num gradients 3 generated for op name:
    "IdentityN"`; eager mode is undefined behaviour. A required `variables` parameter raises
    `TypeError: grad() missing 1 required positional argument: 'variables'`.

    A `variables=None` parameter that the gradient function only tests (against None, or
    for truth: `assert not variables`), deletes (`del variables  # Unused.`), reads as
    `variables or []`, or reads only where a test of it says it was given (`variables if
    variables is not None else []`, or after `if variables is None: return dx`), in a
    function that creates and reads no variable, is harmless on 1.8 and not reported (so
    is a `kwargs.get("variables")` it only tests); so is returning `dx, [... for v in (variables or [])]`, a list
    that is always empty there, or `dx, []` (`dx, [[]]`): TF 1.8 flattens what the
    gradient function returns, and a list that flattens to nothing adds no gradient.

    Fix: pass each variable as a positional input of the decorated function and return its
    gradient in that input's slot.
    """

    code = "CG107"
    name = "variables-protocol"

    def check(self, module):
        for site, grad in module.grad_functions:
            param = grad.variables_param
            if param is not None and _required(grad, param):
                yield self.at(param, "gradient function `%s` requires `variables`, which TF "
                              "1.8 never passes: calling it raises TypeError; pass the "
                              "variables as positional inputs of `%s` instead" % (
                                  grad.name, site.name), function=site.func)
            elif param is not None and _matters(module, site, grad, param):
                yield self.at(param, "gradient function `%s` takes `variables`, which TF 1.8 "
                              "never passes: variables used in `%s` get no gradient; pass "
                              "them as positional inputs instead" % (grad.name, site.name),
                              function=site.func)
            read = grad.variables_read
            if read is not None and read.required:  # `kwargs["variables"]`
                yield self.at(read.node, "gradient function `%s` reads `variables` from "
                              "`**%s`, which TF 1.8 never fills: it raises KeyError when "
                              "gradients are taken; pass the variables as positional inputs "
                              "of `%s` instead" % (grad.name, grad.params.kwarg, site.name),
                              function=site.func)
            elif read is not None and _read_matters(module, site, grad, read):
                yield self.at(read.node, "gradient function `%s` reads `variables` from "
                              "`**%s`, which TF 1.8 never fills: variables used in `%s` get "
                              "no gradient; pass them as positional inputs instead"
                              % (grad.name, grad.params.kwarg, site.name), function=site.func)
            for _, value in grad.returns:
                if param is not None and _default_is_none(grad, param) and \
                        _runs_only_if_given(module, grad, value, param.arg):
                    continue  # (`if variables is None: return dx` came first)
                listed = variable_gradients(module, site, grad, value)
                if listed is not None and _iterates(listed, param) and \
                        _default_is_none(grad, param):
                    # (a defaulted `variables` is None on 1.8: the loop fails first)
                    yield self.at(listed, "gradient function `%s` iterates `variables`, "
                                  "which TF 1.8 never passes: it is None, and `tf.gradients` "
                                  "raises `TypeError: 'NoneType' object is not iterable`"
                                  % grad.name, function=site.func)
                elif listed is not None:
                    yield self.at(listed, "gradient function `%s` returns variable gradients "
                                  "(the newer `variables` protocol): TF 1.8 counts them as "
                                  "extra input gradients" % grad.name, function=site.func)


def _iterates(listed, param):
    """Whether `listed` loops over the parameter `param` itself (`[... for v in
    variables]`)."""
    if param is None:
        return False
    return any(isinstance(node, ast.comprehension) and isinstance(node.iter, ast.Name)
               and node.iter.id == param.arg for node in ast.walk(listed))


def _default_is_none(grad, param):
    """Whether the parameter `param` has a default, and it is None."""
    default = _default_of(grad, param)
    return isinstance(default, ast.Constant) and default.value is None


def _required(grad, param):
    return _default_of(grad, param) is None


def _default_of(grad, param):
    """The default expression of the parameter `param`, or None when it has none."""
    arguments = grad.node.args
    if param in grad.params.kwonly:
        return arguments.kw_defaults[grad.params.kwonly.index(param)]
    index = grad.params.nodes.index(param)
    required = grad.params.required
    return None if index < required else arguments.defaults[index - required]


def _read_matters(module, site, grad, read):
    """A `kwargs.get("variables")` the gradient function only tests (against None, or for
    truth: `if kwargs.get("variables"): raise ...`), in a function that uses no variable,
    is harmless on 1.8 like a tested `variables=None` parameter: it is always None there."""
    if id(read.node) not in _only_tested(module, grad):
        return True
    return site_variables.uses_variables(module, site)


def _matters(module, site, grad, param):
    """A `variables` parameter with a default, which the gradient function only tests
    (against None, or for truth) or deletes, in a function that uses no variable, is
    harmless on 1.8 (facts i1): it is always None there."""
    harmless = _only_tested(module, grad)
    given_only = _default_is_none(grad, param)
    if any(isinstance(node, ast.Name) and node.id == param.arg and id(node) not in harmless
           and not isinstance(node.ctx, ast.Del)  # `del variables  # Unused.`
           and not (given_only and _runs_only_if_given(module, grad, node, param.arg))
           for node in own_nodes(grad.node)):
        return True
    return site_variables.uses_variables(module, site)


def _only_tested(module, grad):
    """ids of the names and calls of the gradient function's own body whose value is only
    tested (against None, for truth, for its type) or made empty (`variables or []`)."""
    harmless = set()
    for node in own_nodes(grad.node):
        if isinstance(node, ast.Compare) and any(
                isinstance(side, ast.Constant) and side.value is None
                for side in [node.left] + node.comparators):
            harmless.update(id(side) for side in [node.left] + node.comparators)
        elif isinstance(node, (ast.If, ast.While, ast.IfExp, ast.Assert)):
            harmless.update(_truth_tested(node.test))  # `if variables:`, `assert not ...`
        elif isinstance(node, ast.comprehension):
            for test in node.ifs:
                harmless.update(_truth_tested(test))
        elif empty_without_variables(grad, node):
            harmless.add(id(node.values[0]))  # `variables or []`: empty on 1.8
        elif isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
            harmless.update(_truth_tested(node.operand))  # `ok = not variables`
        elif (isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
              and node.func.id == "bool" and len(node.args) == 1 and not node.keywords
              and module.names.is_builtin(node.func)):
            harmless.update(_truth_tested(node.args[0]))
        elif (isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
              and node.func.id == "isinstance" and len(node.args) == 2
              and module.names.is_builtin(node.func)):
            harmless.add(id(node.args[0]))  # `isinstance(variables, list)`: its type only
    return harmless


def _runs_only_if_given(module, grad, node, name):
    """Whether `node` runs only when the parameter `name` (default None) is not None,
    which on 1.8 it never is: in the branch a test of it takes then (`variables if
    variables is not None else []`, `if variables:`, `variables and ...`), or after `if
    variables is None: return ...` in a block around it."""
    child = node
    for parent in module.ancestors(node):
        for field in ("body", "orelse", "finalbody"):
            block = getattr(parent, field, None)
            if isinstance(block, list) and child in block:
                if any(_returns_if_none(statement, name)
                       for statement in block[:block.index(child)]):
                    return True
        if parent is grad.node:
            return False
        if isinstance(parent, (ast.If, ast.IfExp, ast.While)) and child is not parent.test:
            in_body = child is parent.body or (isinstance(parent.body, list)
                                               and child in parent.body)
            if _false_if_none(parent.test, name) if in_body else (
                    not isinstance(parent, ast.While) and _true_if_none(parent.test, name)):
                return True
        elif isinstance(parent, ast.BoolOp):
            before = parent.values[:parent.values.index(child)]
            stops = _false_if_none if isinstance(parent.op, ast.And) else _true_if_none
            if any(stops(value, name) for value in before):
                return True
        child = parent
    return False


def _returns_if_none(statement, name):
    """`if variables is None: return ...` (or raise): what follows never runs on 1.8."""
    return isinstance(statement, ast.If) and _true_if_none(statement.test, name) and \
        isinstance(statement.body[-1], (ast.Return, ast.Raise))


def _is_the(node, name):
    return isinstance(node, ast.Name) and node.id == name


def _compared_to_none(test, name, operators):
    if not (isinstance(test, ast.Compare) and len(test.ops) == 1
            and isinstance(test.ops[0], operators)):
        return False
    sides = (test.left, test.comparators[0])
    return any(_is_the(side, name) for side in sides) and any(
        isinstance(side, ast.Constant) and side.value is None for side in sides)


def _false_if_none(test, name):
    """Whether `test` is false when `name` is None (`name`, `name is not None`,
    `isinstance(name, list)`, ...)."""
    if _is_the(test, name) or _compared_to_none(test, name, (ast.IsNot, ast.NotEq)):
        return True
    if isinstance(test, ast.Call) and isinstance(test.func, ast.Name) and \
            test.func.id == "isinstance" and len(test.args) == 2 and not test.keywords and \
            _is_the(test.args[0], name) and "None" not in ast.unparse(test.args[1]):
        return True  # (a class other than NoneType's)
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        return _true_if_none(test.operand, name)
    if isinstance(test, ast.BoolOp):
        tests = [_false_if_none(value, name) for value in test.values]
        return any(tests) if isinstance(test.op, ast.And) else all(tests)
    return False


def _true_if_none(test, name):
    """Whether `test` is true when `name` is None (`name is None`, `not name`, ...)."""
    if _compared_to_none(test, name, (ast.Is, ast.Eq)):
        return True
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        return _false_if_none(test.operand, name)
    if isinstance(test, ast.BoolOp):
        tests = [_true_if_none(value, name) for value in test.values]
        return any(tests) if isinstance(test.op, ast.Or) else all(tests)
    return False


def _truth_tested(test):
    """ids of the names whose truth alone `test` takes: the test itself, through `not`, and
    the operands of `and`/`or` (whose value is then only tested too)."""
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        return _truth_tested(test.operand)
    if isinstance(test, ast.BoolOp):
        return {found for value in test.values for found in _truth_tested(value)}
    if isinstance(test, (ast.Name, ast.Call)):  # `variables`, `kwargs.get("variables")`
        return {id(test)}
    return set()


RULE = VariablesProtocol
