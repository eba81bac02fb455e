"""CG112: a Defun made on every call whose gradient function reads that call's values."""
import ast

from cglint.facts import DEFUN
from cglint.names import within
from cglint.rules.base import Rule

# Bindings whose value is the same on every call of the enclosing function.
_SAME_EVERY_CALL = ("import", "class", "def")


class DefunGradientReadsCallValues(Rule):
    """A Defun made on every call of a function whose gradient reads that call's values.

    What: a `@function.Defun(..., python_grad_func=g)` defined inside a function `f`,
    where `g` reads a parameter or local of `f` (`clip_value_min`, `scale`, `self`): the
    pattern of the 2017 `snt.clip_gradient` and of the scale-gradient helpers copied from
    it. Left alone: a Defun whose body reads values of `f` too, one whose `func_name` is
    computed (a counter, the dtype) and gradients that read only module-level values or
    `op.inputs`.

    Why it breaks on TF 1.8: a Defun is named by its `func_name`, or else by a hash of its
    signature and body; the Python gradient function is not part of either. Every call of
    `f` makes a Defun of the same name, the graph keeps one function under that name (the
    last added), and `tf.gradients` looks the gradient function up by the op's type, that
    name. So when `f` runs twice in a graph, every call gets the gradient of the last
    call's `g`, silently: `clip_gradient(x, -1., 1.)` is clipped to 3 after a
    `clip_gradient(y, -3., 3.)`.

    Fix: pass the values as inputs of the Defun and read them in `g` from `op.inputs`
    (`@function.Defun(tf.float32, tf.float32, python_grad_func=lambda op, dy: [dy *
    op.inputs[1], None])` called as `scale_gradient(x, scale)`), or give every call its
    own `func_name`; a function run once per graph is safe.
    """

    code = "CG112"
    name = "defun-gradient-reads-call-values"

    def check(self, module):
        for site in module.defun_sites:
            grad = site.python_grad
            outer = module.names.scope_of(site.func)
            if grad is None or outer.kind != "function" or _named_per_call(module, site.func):
                continue
            if _call_value_read(module, site.func.body, site.func, outer) is not None:
                continue  # its body differs between calls, and so does its hashed name
            read = _call_value_read(module, grad.node.body, grad.node, outer)
            if read is None:
                continue
            function = outer.node.name if hasattr(outer.node, "name") else "lambda"
            yield self.at(read, "python_grad_func `%s` of Defun `%s` reads `%s`, which each "
                          "call of `%s` sets: every call makes a Defun of the same name, and TF "
                          "1.8 gives them all the last one's gradient" % (
                              grad.name, site.name, read.id, function), function=site.func)


def _named_per_call(module, func):
    """Whether the Defun's `func_name=` is computed (it may differ between calls)."""
    scope = module.names.scope_of(func)
    for decorator in func.decorator_list:
        if isinstance(decorator, ast.Call) and module.names.resolve(
                decorator.func, scope) in DEFUN:
            for keyword in decorator.keywords:
                if keyword.arg == "func_name" and not (
                        isinstance(keyword.value, ast.Constant)
                        and isinstance(keyword.value.value, str)):
                    return True
    return False


def _call_value_read(module, body, own, outer):
    """The first Name in `body` (of the def or lambda `own`) that reads a value a call of
    an enclosing function binds: a parameter or local of a function scope enclosing
    `outer` (or `outer` itself), not a def, class, import or literal; None if there is
    none."""
    names = module.names
    own_scope = names.scope_for_def.get(id(own))
    found = []
    for statement in body if isinstance(body, list) else [body]:
        for node in ast.walk(statement):
            if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load) and any(
                    _set_by_a_call(binding, own_scope, outer)
                    for binding in names.lookup(node.id, names.scope_of(node))):
                found.append(node)
    return min(found, key=lambda node: (node.lineno, node.col_offset), default=None)


def _set_by_a_call(binding, own_scope, outer):
    scope = binding.scope
    if scope is None or scope.kind != "function" or within(scope, own_scope) or not within(
            outer, scope):
        return False  # a module's or its own
    return binding.kind not in _SAME_EVERY_CALL and not (
        binding.kind == "assign" and isinstance(binding.node, ast.Constant))


RULE = DefunGradientReadsCallValues
