import ast

from cglint.facts import own_nodes
from cglint.rules.base import Rule
from cglint.variable_creators import creates_trained_variables


# Attributes of a variable that describe it without reading its value.
_DESCRIPTIONS = frozenset(("shape", "get_shape", "dtype", "name", "device", "graph"))


class VariableReadByClosure(Rule):
    """A custom-gradient function reads a variable from an enclosing scope.

    What: the body of a `@tf.custom_gradient` function uses a variable (or a layer object,
    which owns variables) that was created outside it and not passed in as an argument.

    Why it breaks on TF 1.8: only positional inputs get gradients. A variable read by closure
    gets `None` from `tf.gradients`, silently; an optimizer leaves it unchanged (no warning),
    or raises `ValueError: No gradients provided for any variable` when it is the only one.

    Fix: pass the variable as a positional argument and return its gradient in that slot.
    """

    code = "CG102"
    name = "variable-read-by-closure"

    def check(self, module):
        if not module.sites:
            return
        names = module.names
        for site in module.sites:
            reported = set()
            body = list(own_nodes(site.func))
            # `w.shape`, `w.dtype`: reading what a variable is, not its value, needs no gradient
            described = {id(n.value) for n in body
                         if isinstance(n, ast.Attribute) and n.attr in _DESCRIPTIONS}
            nodes = sorted((n for n in body
                            if isinstance(n, (ast.Name, ast.Attribute))
                            and isinstance(n.ctx, ast.Load) and id(n) not in described),
                           key=lambda n: (n.lineno, n.col_offset))
            for node in nodes:
                if isinstance(node, ast.Attribute):
                    shown = self._instance_variable(module, node, site.scope)
                else:
                    bindings = names.lookup(node.id, site.scope)
                    outer = bindings and all(self._is_outer_variable(module, b, site)
                                             for b in bindings)
                    shown = node.id if outer else None
                if shown is None or shown in reported:
                    continue
                reported.add(shown)
                yield self.at(node, "custom-gradient function `%s` reads variable `%s` "
                              "from an enclosing scope: TF 1.8 gives it no gradient "
                              "(None) and it never trains; pass it in as an argument"
                              % (site.name, shown), function=site.func)

    @staticmethod
    def _instance_variable(module, node, scope):
        """`self.w` where a method of self's class sets `self.w` to a new variable."""
        if not isinstance(node.value, ast.Name):
            return None
        owner = module.instance_class(node.value, scope)
        if owner is None or node.attr not in module.instance_variables(owner):
            return None
        return "%s.%s" % (node.value.id, node.attr)

    @classmethod
    def _is_outer_variable(cls, module, binding, site):
        if binding.scope is site.scope or binding.kind != "assign":
            return False
        value = binding.node
        if isinstance(value, ast.Attribute):  # `w = self.w` in the enclosing method
            return cls._instance_variable(module, value, binding.scope) is not None
        return isinstance(value, ast.Call) and creates_trained_variables(
            value, module.names.resolve(value.func, binding.scope))


RULE = VariableReadByClosure
