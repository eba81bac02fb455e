import ast

from cglint.facts import own_nodes
from cglint.rules.base import Rule


class ForwardReturnShape(Rule):
    """A custom-gradient function does not return `(outputs, grad_fn)`.

    What: the decorated function returns only its output, the pair swapped
    (`return grad, y`), three values, `None`, or calls the gradient function
    (`return y, grad(y)`) instead of returning it; or a tensor or a constant where the
    function belongs: two outputs with no function (`return [y1, y2]`), or the name of
    the gradient function bound to a tensor after its def (`grad = tf.gradients(y,
    x)[0]`, then `return y, grad`).

    Why it breaks on TF 1.8: returning `y` alone raises `TypeError: Tensor objects are not
    iterable when eager execution is not enabled`; in eager mode a `y` whose first dimension
    is 2 is silently unpacked into `(y[0], y[1])`. A swapped pair raises a TypeError about
    `IdentityN`; `grad(y)`, a tensor or `None` in the second slot fails only later, at
    `tf.gradients`, with `'Tensor' object is not callable` or `'NoneType' object is not
    callable`.

    Fix: `return y, grad` where `grad` is the function itself (a list `[y, grad]` works too).
    A factory's call that returns the gradient function (`return y, make_grad(0.5)`) is
    right: a def of the module that may return a def, a lambda (also one chosen by a
    conditional expression), a `functools.partial`, or another factory's result. The
    defs and lambdas it returns are checked like any other gradient function.
    """

    code = "CG106"
    name = "forward-return-shape"

    def check(self, module):
        for site in module.sites:
            if not site.returns:
                if not _ends_in_raise(site.func):
                    yield self.at(site.func, "custom-gradient function `%s` never returns "
                                  "`(outputs, grad_fn)`" % site.name, function=site.func)
                continue
            for ret in site.returns:
                problem = self._problem(module, site, ret.value, ret.node)
                if problem:
                    yield self.at(ret.node, "custom-gradient function `%s` %s; it must return "
                                  "`(outputs, grad_fn)`" % (site.name, problem), function=site.func)

    def _problem(self, module, site, value, statement=None):
        scope = site.scope
        if value is None or (isinstance(value, ast.Constant) and value.value is None):
            return "returns None"
        if isinstance(value, ast.Name):
            value = module.single_value(value, scope) or value
        if isinstance(value, (ast.Tuple, ast.List)):
            if any(isinstance(e, ast.Starred) for e in value.elts):
                return None
            if len(value.elts) != 2:
                return "returns %d values" % len(value.elts)
            first, second = value.elts
            if isinstance(second, ast.Call) and self._is_function(
                    module, second.func, scope) and not _may_give_function(
                        module, second, scope):
                return "calls its gradient function instead of returning it"
            if isinstance(second, ast.Constant) and second.value is None:
                return "returns None as its gradient function"
            if isinstance(second, ast.Constant) and isinstance(second.value, (int, float, str)):
                return "returns the constant %r as its gradient function" % (second.value,)
            if not self._is_function(module, second, scope) and not _may_give_function(
                    module, second, scope) and _a_tensor(module, second, scope):
                return "returns a tensor, not a function, as its gradient function"
            rebound = _rebound_to_tensor(module, second, scope, statement)
            if rebound is not None:
                return ("returns `%s`, which line %d rebinds to a tensor, as its gradient "
                        "function" % (second.id, rebound.lineno))
            if self._is_function(module, first, scope) and not self._is_function(
                    module, second, scope):
                return "returns the gradient function first"
            return None
        if module.count_values(value, scope) == 1 and not self._is_function(module, value, scope):
            return "returns only its output"
        return None

    @staticmethod
    def _is_function(module, expr, scope):
        if isinstance(expr, ast.Lambda):
            return True
        binding = module.names.definitions(expr, scope)
        return binding is not None and binding.kind == "def"


# How deep factories calling factories are followed.
_MAX_FACTORY_DEPTH = 4


def _may_give_function(module, expr, scope, depth=0):
    """Whether `expr` may evaluate to a function: a lambda, a def's name, a
    `functools.partial`, a conditional expression with such a branch, or a call of a def
    of the module that may return one (a factory: `make_grad(0.5)`). A gradient function's
    own values (tensor arithmetic, its parameters) are not."""
    if expr is None:
        return False
    if depth > _MAX_FACTORY_DEPTH:
        return True  # too deep to tell: as if it may
    if isinstance(expr, ast.Lambda):
        return True
    if isinstance(expr, ast.IfExp):
        return any(_may_give_function(module, branch, scope, depth + 1)
                   for branch in (expr.body, expr.orelse))
    if isinstance(expr, ast.Name):
        bindings = module.names.lookup(expr.id, scope)
        if any(binding.kind == "def" for binding in bindings):
            return True
        values = module.assigned_values(expr, scope) or ()
        return any(_may_give_function(module, value, scope, depth + 1) for value in values)
    if isinstance(expr, ast.Call):
        if module.names.resolve(expr.func, scope) == "functools.partial":
            return True
        function = module.called_function(expr, scope)
        if function is None:
            return False
        own_scope = module.names.scope_for_def[id(function)]
        return any(_may_give_function(module, node.value, own_scope, depth + 1)
                   for node in own_nodes(function) if isinstance(node, ast.Return))
    return False


def _rebound_to_tensor(module, name, scope, statement):
    """The assignment of the function's body that last binds `name` before `statement` (a
    `return` of that body too), when it binds it to one tensor after a def of that name
    (`def grad(dy): ...` then `grad = tf.gradients(y, x)[0]`): what the return hands
    back. None when anything else may come between."""
    func = scope.node
    if not isinstance(name, ast.Name) or statement is None or not isinstance(
            func, (ast.FunctionDef, ast.AsyncFunctionDef)) or not any(
                s is statement for s in func.body):
        return None
    bindings = scope.bindings.get(name.id, [])
    if not any(binding.kind == "def" for binding in bindings):
        return None
    assignment = None
    for each in func.body:
        if each is statement:
            break
        if isinstance(each, (ast.FunctionDef, ast.AsyncFunctionDef)) and each.name == name.id:
            assignment = None
        elif isinstance(each, ast.Assign) and len(each.targets) == 1 and isinstance(
                each.targets[0], ast.Name) and each.targets[0].id == name.id:
            assignment = each
        elif any(isinstance(node, ast.Name) and node.id == name.id and not isinstance(
                node.ctx, ast.Load) for node in ast.walk(each)):
            return None  # bound some other way (a loop, a branch, a with)
    if assignment is None or not _a_tensor(module, assignment.value, scope):
        return None
    return assignment


def _a_tensor(module, expr, scope):
    """Whether `expr` is visibly one tensor, and no call that is handed a function
    (`tf.make_template("g", grad)`, `tf.contrib.eager.defun(grad)` give one back)."""
    if any(isinstance(node, ast.Lambda) or (isinstance(node, ast.Name) and any(
            binding.kind == "def" for binding in module.names.lookup(node.id, scope)))
           for node in ast.walk(expr)):
        return False
    return module.is_one_tensor(expr, scope)


def _ends_in_raise(func):
    return bool(func.body) and isinstance(func.body[-1], ast.Raise)


RULE = ForwardReturnShape
