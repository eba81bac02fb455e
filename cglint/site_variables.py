"""The variables a custom-gradient function creates, or reads from outside, as it runs
forward: in its own body, and in the functions of the module its body calls (a helper
that builds a layer, `project(x)` returning `x * w`). TF 1.8 gives every one of them a
None gradient, silently (facts §2). CG101 reports the created ones, CG102 the read ones;
CG107 asks whether there are any.

A helper is followed where the module shows which def a call runs
(ModuleFacts.called_function), a few calls deep; a use inside it is reported at the call
in the custom-gradient function, naming the helper.
"""
import ast
from dataclasses import dataclass
from typing import Optional

from cglint.facts import own_nodes
from cglint.variable_creators import creates_trained_variables, creates_variables

# Calls followed from the custom-gradient function's body into helpers, and helpers in all.
MAX_HELPER_DEPTH = 3
MAX_HELPERS = 20
# Attributes of a variable that describe it without reading its value.
_DESCRIPTIONS = frozenset(("shape", "get_shape", "dtype", "name", "device", "graph"))
_STOP_GRADIENT = frozenset(("tensorflow.stop_gradient", "tensorflow.compat.v1.stop_gradient"))


@dataclass(frozen=True)
class Use:
    """One variable created or read while the custom-gradient function runs forward."""

    node: ast.AST  # where the function shows it: the use itself, or the call of its helper
    name: str  # the creator's qualified name, or the variable as written (`w`, `self.w`)
    inner: ast.AST  # the use itself (node, when it is in the function's own body)
    helper: Optional[ast.AST] = None  # the def the use is in, when not the function's


def created(module, site):
    """Uses of the calls that create a variable (`tf.get_variable`, `tf.layers.dense`)."""
    found = []
    for function, _, via in _bodies(module, site):
        for node in own_nodes(function):
            if isinstance(node, ast.Call):
                qualname = module.resolve(node.func)
                if creates_variables(qualname):
                    found.append(_use(node, qualname, function, via))
    return found


def read(module, site):
    """Uses of variables made outside the function and not passed in: by closure, through
    `self.w` set to a new variable in a method of the class, or in a helper. Each
    variable once, at its first use; its description (`w.shape`) is no read, nor is a
    read under `tf.stop_gradient`, which asks for no gradient."""
    found, seen = [], set()
    for function, scope, via in _bodies(module, site):
        body = list(own_nodes(function))
        described = {id(n.value) for n in body
                     if isinstance(n, ast.Attribute) and n.attr in _DESCRIPTIONS}
        # `tf.stop_gradient(w)`: the code itself asks for no gradient there
        described.update(id(inner) for n in body if isinstance(n, ast.Call)
                         and module.resolve(n.func) in _STOP_GRADIENT
                         for argument in n.args for inner in ast.walk(argument))
        nodes = sorted((n for n in body
                        if isinstance(n, (ast.Name, ast.Attribute))
                        and isinstance(n.ctx, ast.Load) and id(n) not in described),
                       key=lambda n: (n.lineno, n.col_offset))
        for node in nodes:
            shown = _read_variable(module, node, scope, site)
            if shown is not None and shown not in seen:
                seen.add(shown)
                found.append(_use(node, shown, function, via))
    return sorted(found, key=lambda use: (use.node.lineno, use.node.col_offset))


def uses_variables(module, site):
    return bool(created(module, site) or read(module, site))


def _use(node, name, function, via):
    if via is None:
        return Use(node, name, node)
    return Use(via, name, node, function)


def _bodies(module, site):
    """(def, its scope, the call of the site's body that leads there or None): the site
    first, then the helpers its forward body calls, breadth first."""
    bodies = [(site.func, site.scope, None)]
    seen = {id(site.func)}
    frontier = [(site.func, site.scope, None)]
    for _ in range(MAX_HELPER_DEPTH):
        following = []
        for function, scope, via in frontier:
            for node in own_nodes(function):
                if not isinstance(node, ast.Call):
                    continue
                helper = module.called_function(node, scope)
                if helper is None or id(helper) in seen or len(seen) > MAX_HELPERS:
                    continue
                seen.add(id(helper))
                entry = (helper, module.names.scope_for_def[id(helper)], via or node)
                following.append(entry)
        bodies += following
        frontier = following
    return bodies


def _read_variable(module, node, scope, site):
    """How a read of `node` in `scope` shows the outside variable it reads, or None."""
    if isinstance(node, ast.Attribute):
        return instance_variable(module, node, scope)
    bindings = module.names.lookup(node.id, scope)
    if bindings and all(_is_outer_variable(module, binding, scope, site)
                        for binding in bindings):
        return node.id
    return None


def instance_variable(module, node, scope):
    """`self.w` where a method of self's class sets `self.w` to a new variable."""
    if not isinstance(node.value, ast.Name):
        return None
    owner = module.instance_class(node.value, scope)
    if owner is None or node.attr not in module.instance_variables(owner):
        return None
    return "%s.%s" % (node.value.id, node.attr)


def _is_outer_variable(module, binding, scope, site):
    """A name bound, outside the site and the reading function, to a new variable (or
    to `self.w` holding one). A variable made inside the site is CG101's."""
    if binding.kind != "assign" or _within(binding.scope, site.scope) or binding.scope is scope:
        return False
    value = binding.node
    if isinstance(value, ast.Attribute):  # `w = self.w` in the enclosing method
        return instance_variable(module, value, binding.scope) is not None
    return isinstance(value, ast.Call) and creates_trained_variables(
        value, module.names.resolve(value.func, binding.scope))


def _within(scope, outer):
    while scope is not None:
        if scope is outer:
            return True
        scope = scope.parent
    return False
