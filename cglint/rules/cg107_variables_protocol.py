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
    for truth: `assert not variables`), deletes (`del variables  # Unused.`) or reads as
    `variables or []`, in a function that creates and reads no variable, is harmless on
    1.8 and not reported; so is returning `dx, [... for v in (variables or [])]`, a list
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
            elif read is not None:
                yield self.at(read.node, "gradient function `%s` reads `variables` from "
                              "`**%s`, which TF 1.8 never fills: variables used in `%s` get "
                              "no gradient; pass them as positional inputs instead"
                              % (grad.name, grad.params.kwarg, site.name), function=site.func)
            for _, value in grad.returns:
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


def _matters(module, site, grad, param):
    """A `variables` parameter with a default, which the gradient function only tests
    (against None, or for truth) or deletes, in a function that uses no variable, is
    harmless on 1.8 (facts i1): it is always None there."""
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
    if any(isinstance(node, ast.Name) and node.id == param.arg and id(node) not in harmless
           and not isinstance(node.ctx, ast.Del)  # `del variables  # Unused.`
           for node in own_nodes(grad.node)):
        return True
    return site_variables.uses_variables(module, site)


def _truth_tested(test):
    """ids of the names whose truth alone `test` takes: the test itself, through `not`, and
    the operands of `and`/`or` (whose value is then only tested too)."""
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        return _truth_tested(test.operand)
    if isinstance(test, ast.BoolOp):
        return {found for value in test.values for found in _truth_tested(value)}
    if isinstance(test, ast.Name):
        return {id(test)}
    return set()


RULE = VariablesProtocol
