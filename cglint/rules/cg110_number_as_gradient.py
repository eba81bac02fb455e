import ast

from cglint.rules.base import Rule


class NumberAsGradient(Rule):
    """The gradient function returns a Python number as a gradient.

    What: `return dy * 2, 0` or `return 1.0` from a gradient function (of a custom gradient,
    registered with `tf.RegisterGradient`, or a Defun's `python_grad_func`): a Python
    `int` or
    `float` where a tensor (or None) belongs, also through a helper of the module that
    returns one or a module-level constant bound once (`ZERO = 0.0`), in a conditional
    expression (`dw if TRAIN else 0.0`), a concatenated list (`[dx] + [0.0]`) or as
    `float(0)`; likewise a NumPy value (`np.zeros(2)`).

    Why it breaks on TF 1.8: `tf.gradients` treats each returned gradient as a tensor and
    fails with `AttributeError: 'int' object has no attribute 'name'` while building the
    backward graph, a message that points nowhere near your code.

    Fix: return `None` for "no gradient", or a tensor such as `tf.zeros_like(x)` or
    `dy * 0.0`.
    """

    code = "CG110"
    name = "number-as-gradient"

    def check(self, module):
        for site, grad in module.grad_functions:
            yield from self._numbers_returned(module, grad, "", site.func)
        seen = set()
        for defun in module.defun_sites:
            # python_grad_func returns the op's input gradients (grad_func, a Defun
            # itself, is not judged: what its body returns becomes its op's outputs)
            grad = defun.python_grad
            if grad is None or grad.node is None or id(grad.node) in seen:
                continue
            seen.add(id(grad.node))
            yield from self._numbers_returned(
                module, grad, " (python_grad_func of `%s`)" % defun.name, _anchor(grad))
        if "RegisterGradient" not in module.text:
            return
        for registration in module.overrides.registrations:
            grad = registration.function
            if grad is None or not registration.differentiable or id(grad.node) in seen:
                continue
            seen.add(id(grad.node))
            yield from self._numbers_returned(
                module, grad, " (registered as `%s`)" % (registration.name.value or "..."),
                _anchor(grad))

    def _numbers_returned(self, module, grad, which, function):
        for _, value in grad.returns:
            for number, what in _numbers(module, value):
                yield self.at(number, "gradient function `%s`%s returns %s as a gradient: "
                              "TF 1.8 needs a tensor or None" % (grad.name, which, what),
                              function=function)


def _anchor(grad):
    """The def a finding belongs to (a lambda is no def of its own)."""
    return grad.node if grad.name != "lambda" else None


def _numbers(module, value):
    """(node, what it is) for each element of a return that is no tensor: a number, or a
    NumPy array or scalar (`np.zeros(2)`), which tf.gradients cannot take either. In
    source order, without recursion (a chain of 1,000 conditional expressions is fine)."""
    stack = [value]
    while stack:
        element = stack.pop()
        if isinstance(element, (ast.Tuple, ast.List)):
            stack.extend(reversed(element.elts))
        elif isinstance(element, ast.BinOp) and isinstance(element.op, ast.Add) and all(
                isinstance(side, (ast.Tuple, ast.List)) for side in (element.left,
                                                                     element.right)):
            stack.extend((element.right, element.left))  # `[dy * s] + [0.0]`
        elif isinstance(element, ast.IfExp):  # `(dy * s if TRAIN else 0.0)`
            stack.extend((element.orelse, element.body))
        elif _is_number(element) or _number_call(module, element):
            yield element, "the number %s" % ast.unparse(element)
        elif isinstance(element, ast.Name) and _is_number(_constant_of(module, element)):
            yield element, "`%s` (the number %s)" % (
                element.id, ast.unparse(_constant_of(module, element)))
        elif isinstance(element, ast.Call) and (module.resolve(element.func) or "").startswith(
                "numpy."):
            yield element, "the NumPy value %s" % ast.unparse(element)
        elif isinstance(element, ast.Call) and _returns_a_number(module, element):
            yield element, "`%s` (a number)" % ast.unparse(element)


def _returns_a_number(module, call):
    """A call of a def of the module every return of which is a number (`_no_grad()`
    returning 0)."""
    values = module.returned_by_call(call)
    return values is not None and all(value is not None and _is_number(value)
                                      for value in values)


def _constant_of(module, name):
    """The value of a name the module binds once, at its top level, to a constant
    (`ZERO = 0.0`), read where no other binding hides it; else None."""
    names = module.names
    bindings = names.lookup(name.id, names.scope_of(name))
    if len(bindings) != 1 or bindings[0].kind != "assign" or \
            bindings[0].scope is not names.module:
        return None
    if names.declared_global(name.id):
        return None  # `global ZERO` in a def that may assign it anew
    return bindings[0].node


def _number_call(module, node):
    """`float(0)`, `int(1)`: the builtin called on a number."""
    return (isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
            and node.func.id in ("float", "int") and module.names.is_builtin(node.func)
            and len(node.args) == 1 and not node.keywords and _is_number(node.args[0]))


def _is_number(node):
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
        node = node.operand
    return (isinstance(node, ast.Constant) and isinstance(node.value, (int, float, complex))
            and not isinstance(node.value, bool))


RULE = NumberAsGradient
