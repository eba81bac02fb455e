import ast

from cglint.facts import own_nodes
from cglint.rules.base import Rule
from cglint.variable_creators import creates_variables


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
        names = module.names
        for site in module.sites:
            reported = set()
            nodes = sorted((n for n in own_nodes(site.func) if isinstance(n, ast.Name)),
                           key=lambda n: (n.lineno, n.col_offset))
            for node in nodes:
                if not isinstance(node.ctx, ast.Load) or node.id in reported:
                    continue
                bindings = names.lookup(node.id, site.scope)
                if bindings and all(self._is_outer_variable(b, site, names) for b in bindings):
                    reported.add(node.id)
                    yield self.at(node, "custom-gradient function `%s` reads variable `%s` "
                                  "from an enclosing scope: TF 1.8 gives it no gradient "
                                  "(None) and it never trains; pass it in as an argument"
                                  % (site.name, node.id), function=site.func)

    @staticmethod
    def _is_outer_variable(binding, site, names):
        if binding.scope is site.scope or binding.kind != "assign":
            return False
        value = binding.node
        return isinstance(value, ast.Call) and creates_variables(
            names.resolve(value.func, binding.scope))


RULE = VariableReadByClosure
