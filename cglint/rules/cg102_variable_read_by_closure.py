import ast

from cglint import site_variables
from cglint.names import dotted
from cglint.rules.base import Rule


class VariableReadByClosure(Rule):
    """A custom-gradient function reads a variable from an enclosing scope.

    What: the body of a `@tf.custom_gradient` function uses a variable (or an object that
    owns variables: a layer, a Keras model, a `tf.make_template` template, an RNN cell that
    `tf.nn.dynamic_rnn` runs there) that was created
    outside it and not passed in as an argument, by name, as `self.w` (or `params.w` of an
    object of a class of the module, made outside the function), as a variable another
    project module makes at its top level (`from params import W`, or `params.W` after
    `import params`: read from disk, never imported), as an element of a dict or list of
    variables (`weights['h1']`, the TensorFlow-Examples way, or `layers[-1]` of a list
    that a comprehension makes or a loop fills with `layers.append(tf.get_variable(...))`,
    and that is given to no function, name or attribute that may put in something else),
    or as an element of the graph's list of trainable variables
    (`tf.trainable_variables()[0]`, or of
    `tf.get_collection(tf.GraphKeys.TRAINABLE_VARIABLES)` or
    `tf.contrib.framework.get_trainable_variables(scope)`, also picked by a comprehension:
    `[v for v in tf.trainable_variables() if "w" in v.name][0]`), directly or in a function
    that its body calls (`project(x)` returning `x * w`, in the module or imported from
    another module of the project), reported at that call. The variable may be made by a
    helper of the module that returns one (the tutorials' `W = weight_variable([784,
    10])`, also in the project module it is imported from), bound by unpacking (`w, b = tf.get_variable(...), tf.get_variable(...)`), a
    whole list or tuple of variables read in the body (`for w in weights:`, `w1, w2 =
    weights`), or a Keras or tf.layers layer class of the module with weights of its
    own, made outside and called there; `self.w` set by a method of the class or a helper
    of the module that returns a new variable (`self.w = self._make("w", [3])`). A read under `tf.stop_gradient(w)` asks for no
    gradient and is not reported, nor is one of its shape only (`tf.shape(w)`,
    `tf.size(w)`, `tf.zeros_like(w)`), nor a variable that
    every call in the module also passes in (`weighted(x, w)` whose body reads `w`, not its
    parameter): its gradient comes through that argument's slot. A variable bound as a
    parameter's default (`def scale(x, w=w)`) is read the same way by each call of the
    module that leaves the argument out.

    Why it breaks on TF 1.8: only positional inputs get gradients. A variable read by closure
    gets `None` from `tf.gradients`, silently; an optimizer leaves it unchanged (no warning),
    or raises `ValueError: No gradients provided for any variable` when it is the only one.

    Fix: pass the variable as a positional argument and return its gradient in that slot.
    """

    code = "CG102"
    name = "variable-read-by-closure"

    def check(self, module):
        for site in module.sites:
            for use in site_variables.read(module, site):
                if _passed_at_every_call(module, site, use):
                    continue
                through = ""
                if use.helper is not None:
                    through = " in %s, which this call runs" % use.where()
                if _called(module, use.inner):
                    # A layer made outside, called here: its variables are made on its
                    # first call (here, unless it was called before), or read.
                    message = ("custom-gradient function `%s` runs `%s`, made outside "
                               "it%s: TF 1.8 gives the variables it makes or reads no gradient "
                               "(None); make them outside and pass them in as arguments"
                               % (site.name, use.name, through))
                else:
                    message = ("custom-gradient function `%s` reads variable `%s` from %s%s: "
                               "TF 1.8 gives it no gradient (None) and it never trains; pass "
                               "it in as an argument"
                               % (site.name, use.name, _read_from(use), through))
                yield self.at(use.node, message, function=site.func)
            for param, default, call in site_variables.defaults(module, site):
                yield self.at(default, "custom-gradient function `%s` reads variable `%s` "
                              "as the default of its parameter `%s`, which the call on "
                              "line %d leaves out: TF 1.8 gives it no gradient (None); pass "
                              "it positionally" % (site.name, default.id, param.arg,
                                                   call.lineno), function=site.func)


def _read_from(use):
    """Where the variable comes from: the graph's collection for `tf.trainable_variables()[0]`
    (the one element read of a call that site_variables reports), else the code around."""
    read = use.inner
    if isinstance(read, ast.Subscript) and isinstance(read.value, (ast.Call, ast.ListComp)):
        return "the graph's trainable variables"
    return "an enclosing scope"


def _passed_at_every_call(module, site, use):
    """Whether the variable the body reads (`w`, `params.w`) is also an argument of every
    call of the function in this module (`weighted(x, w)` whose body reads `w`, not its
    parameter): its gradient then comes through that input's slot, whatever the body
    reads. (Calls from other modules are not seen: a file is judged by what it shows.)"""
    read = use.inner
    if use.helper is not None or not site.calls or not isinstance(
            read, (ast.Name, ast.Attribute)):
        return False
    root = read
    while isinstance(root, ast.Attribute):
        root = root.value
    if not isinstance(root, ast.Name):
        return False
    names = module.names
    bound = names.lookup(root.id, names.scope_of(root))
    chain = dotted(read)

    def same(argument):
        base = argument
        while isinstance(base, ast.Attribute):
            base = base.value
        return isinstance(base, ast.Name) and dotted(argument) == chain and \
            names.lookup(base.id, names.scope_of(base)) == bound
    return bool(bound) and all(any(same(argument) for argument in call.args)
                               for call in site.calls)




# TensorFlow functions that run an RNN cell they are given (its weights made at the
# first run).
_CELL_RUNNERS = frozenset("tensorflow.%s" % name for name in (
    "nn.dynamic_rnn", "nn.static_rnn", "nn.bidirectional_dynamic_rnn",
    "nn.static_bidirectional_rnn", "nn.raw_rnn", "contrib.rnn.static_rnn",
    "contrib.rnn.static_bidirectional_rnn", "contrib.rnn.stack_bidirectional_dynamic_rnn",
    "keras.layers.RNN"))


_CELL_PARAMETERS = frozenset(("cell", "cell_fw", "cell_bw", "cells_fw", "cells_bw"))


def _called(module, node):
    """Whether the read is of an object the code calls (`layer(x)`) or has TF run (an
    RNN cell given to `tf.nn.dynamic_rnn`), not a variable."""
    parent = module.parent_of(node)
    if isinstance(parent, ast.keyword):  # `dynamic_rnn(cell=cell, ...)`
        call = module.parent_of(parent)
        return isinstance(call, ast.Call) and parent.arg in _CELL_PARAMETERS and \
            module.resolve(call.func) in _CELL_RUNNERS
    if not isinstance(parent, ast.Call):
        return False
    if parent.func is node:
        return True
    if node not in parent.args[:2]:
        return False
    # a runner's cells come first (`bidirectional_dynamic_rnn(cell_fw, cell_bw, ...)`)
    runner = module.resolve(parent.func)
    return runner in _CELL_RUNNERS and (
        parent.args.index(node) == 0 or "bidirectional" in runner)


RULE = VariableReadByClosure
