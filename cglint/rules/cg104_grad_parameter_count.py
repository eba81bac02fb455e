from cglint.rules.base import Rule
from cglint.wording import plural


class GradParameterCountMismatch(Rule):
    """The gradient function takes a different number of arguments than there are outputs.

    What: a `@tf.custom_gradient` function returns M outputs (for example `(y1, y2), grad`),
    but its gradient function does not take M positional arguments. Outputs are counted
    as TF flattens them: each tensor of a tuple, list (also one built by `append`, in a
    `for` loop over `range(3)` or a display too) or dict (also one filled key by key:
    `out["logits"] = ...`), of a namedtuple
    (`collections.namedtuple`, `typing.NamedTuple`, `X._make([...])`, TF's
    `LSTMStateTuple`) and of an `OrderedDict` built from string keys is one output, and
    `tuple(S)` or `list(S)` has the outputs of S (`tuple(tf.split(x, 3))` is three);
    `tf.py_func(f, inp, [tf.float32, tf.float32])` gives a list of two tensors (whole or
    unpacked), with a single dtype for Tout one tensor; `tf.while_loop` gives its loop
    variables, and TF functions of several results give them all (`tf.nn.moments`,
    `tf.nn.top_k`, `tf.nn.max_pool_with_argmax`, `tf.qr`, `tf.unique`, `tf.svd` unless
    `compute_uv=False`, ...).

    Why it breaks on TF 1.8: the gradient function is called with one upstream gradient per
    output, as separate positional arguments, never as a list. A mismatch raises
    `TypeError: grad() takes 1 positional argument but 2 were given` (or `missing 1 required
    positional argument`), and only when gradients are requested, never at the forward call.
    An output that is not differentiated still gets a zeros tensor, not None.

    A keyword-only parameter without a default (`def grad(dy, *, scale)`) fails the same
    way, always: `TypeError: grad() missing 1 required keyword-only argument: 'scale'`.

    Fix: give the gradient function one parameter per output (`def grad(dy1, dy2)`), or
    `def grad(*dys)`; give a keyword-only parameter a default.
    """

    code = "CG104"
    name = "grad-parameter-count"

    def check(self, module):
        for site in module.sites:
            for grad in site.grad_functions:
                for arg in _required_keyword_only(grad):
                    yield self.at(arg, "gradient function `%s` requires the keyword-only "
                                  "argument `%s`, which TF 1.8 never passes: calling it "
                                  "raises TypeError; give it a default" % (grad.name, arg.arg),
                                  function=site.func)
                positional = grad.params.nodes
                required = positional[:grad.params.required]
                low = sum(1 for arg in required if arg is not grad.variables_param)
                high = None if grad.params.vararg else sum(
                    1 for arg in positional if arg is not grad.variables_param)
                for ret in site.returns:
                    if ret.grad is not grad or ret.outputs is None:
                        continue
                    outputs = module.count_values(ret.outputs, site.scope)
                    if outputs is not None and (outputs < low or (
                            high is not None and outputs > high)):
                        yield self.at(grad.node, "`%s` returns %d output%s, so its gradient "
                                      "function `%s` receives %d upstream gradient%s, but it "
                                      "takes %s" % (site.name, outputs, plural(outputs),
                                                    grad.name, outputs, plural(outputs),
                                                    _takes(low, high)), function=site.func)
                        break  # one finding per gradient function
        for site in module.defun_sites:
            if site.outputs is None:
                continue
            # python_grad_func(op, *grads); grad_func is a Defun of (*inputs, *grads).
            for grad, given, what in (
                    (site.python_grad, 1 + site.outputs,
                     "the op and %d upstream gradient%s" % (site.outputs, plural(site.outputs))),
                    (site.grad_defun, None if site.inputs is None else site.inputs + site.outputs,
                     "the %s inputs and %d upstream gradient%s" % (
                         site.inputs, site.outputs, plural(site.outputs)))):
                if grad is None or given is None:
                    continue
                low = grad.params.required
                high = None if grad.params.vararg else len(grad.params.names)
                if given < low or (high is not None and given > high):
                    yield self.at(grad.node, "Defun `%s` returns %d output%s, so its gradient "
                                  "function `%s` receives %s, but it takes %s" % (
                                      site.name, site.outputs, plural(site.outputs), grad.name,
                                      what, _takes(low, high)), function=site.func)



def _required_keyword_only(grad):
    """The keyword-only parameters without a default of a gradient function (TF calls it
    with the upstream gradients only), but `variables`, which CG107 explains."""
    arguments = grad.node.args
    return [arg for arg, default in zip(arguments.kwonlyargs, arguments.kw_defaults)
            if default is None and arg.arg != "variables"]


def _takes(low, high):
    if high is None:
        return "at least %d" % low
    if low == high:
        return "%d" % low
    return "%d to %d" % (low, high)


RULE = GradParameterCountMismatch
