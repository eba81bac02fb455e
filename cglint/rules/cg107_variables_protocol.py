from cglint.facts import variable_gradients
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

    Fix: pass each variable as a positional input of the decorated function and return its
    gradient in that input's slot.
    """

    code = "CG107"
    name = "variables-protocol"

    def check(self, module):
        for site, grad in module.grad_functions:
            param = grad.variables_param
            if param is not None:
                yield self.at(param, "gradient function `%s` takes `variables`, which TF 1.8 "
                              "never passes: variables used in `%s` get no gradient; pass "
                              "them as positional inputs instead" % (grad.name, site.name),
                              function=site.func)
            read = grad.variables_read
            if read is not None:
                yield self.at(read, "gradient function `%s` reads `variables` from `**%s`, "
                              "which TF 1.8 never fills: variables used in `%s` get no "
                              "gradient; pass them as positional inputs instead"
                              % (grad.name, grad.params.kwarg, site.name), function=site.func)
            for _, value in grad.returns:
                listed = variable_gradients(module, site, grad, value)
                if listed is not None:
                    yield self.at(listed, "gradient function `%s` returns variable gradients "
                                  "(the newer `variables` protocol): TF 1.8 counts them as "
                                  "extra input gradients" % grad.name, function=site.func)


RULE = VariablesProtocol
