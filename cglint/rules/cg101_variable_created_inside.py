import ast

from cglint import site_variables
from cglint.rules.base import Rule
from cglint.variable_creators import (always_makes_a_new_variable, creates_trained_variables,
                                      creates_variables)
from cglint.wording import tf_name


class VariableCreatedInside(Rule):
    """A variable is created inside a custom-gradient function.

    What: `tf.Variable`, `tf.get_variable`, `tf.layers.dense`, `tf.keras.layers.Dense(...)`,
    `tf.contrib.layers.fully_connected`, standalone Keras's layers and `K.variable` (on
    the TF backend their variables are TF's) and the like called in the body of a function
    decorated with `@tf.custom_gradient`, or in a function that its body calls (a helper
    that builds a layer, in the module or imported from another module of the project, or
    a staticmethod called on its class, `Ops.weight(shape)`), reported at that call; also
    a creator reached by value: a name bound to `functools.partial(tf.layers.dense, ...)`
    or to a lambda calling one, a layer function given to `slim.stack` or `slim.repeat`;
    and an instance of a class of the module made there, whose `__init__` makes a
    variable, or, for a Keras or tf.layers layer or model class, whose `build` does
    (`self.add_weight(...)`), as its first call runs it. A variable no optimizer trains (`trainable=False`, a local
    variable) is left alone where running the function again cannot fail: a new
    `tf.Variable`, or `tf.get_variable` under `variable_scope(..., reuse=tf.AUTO_REUSE)`.

    Why it breaks on TF 1.8: 1.8's custom_gradient has no `variables` support. Variables
    created inside get a `None` gradient from `tf.gradients`, silently, so they never train;
    the gradient you return only reaches the positional inputs. With `tf.get_variable` or
    `tf.layers` the second call raises `ValueError: Variable w already exists, disallowed`.
    In eager mode `tf.Variable` raises RuntimeError.

    Fix: create the variable outside and pass it in as a positional argument; return its
    gradient from the gradient function in its slot:

        w = tf.get_variable("w", [3])

        @tf.custom_gradient
        def scale(x, w):
            def grad(dy):
                return dy * w, tf.reduce_sum(dy * x, axis=0)
            return x * w, grad
    """

    code = "CG101"
    name = "variable-created-inside"

    def check(self, module):
        for site in module.sites:
            for use in site_variables.created(module, site):
                where = ""
                if use.helper is not None:
                    where = " in %s, which this call runs," % use.where()
                shown = tf_name(use.name)
                if use.name.startswith("tensorflow.python.") and isinstance(use.node, ast.Call):
                    shown = ast.unparse(use.node.func)  # as written: `vs.variable`
                what = "`%s`%s %s a variable" % (shown, where, _verb(use.name))
                if use.shown is not None:  # `dense`, a functools.partial of `tf.layers.dense`,
                    what = "%s%s %s a variable" % (use.shown, where, _verb(use.name))
                untrained = isinstance(use.inner, ast.Call) and (
                    not creates_trained_variables(use.inner, use.name)
                    if creates_variables(use.name) else  # a layer's `self.add_weight(...)`
                    any(k.arg == "trainable" and isinstance(k.value, ast.Constant)
                        and k.value.value is False for k in use.inner.keywords))
                # trainable=False: no gradient is wanted
                if module.eager and (untrained or use.name == "tensorflow.Variable"):
                    why = "under eager execution TF 1.8's `tf.Variable` raises RuntimeError; " \
                          "use `tf.contrib.eager.Variable`, or create it outside"
                elif untrained:
                    why = "each run after the first raises `ValueError: Variable ... " \
                          "already exists`; create it outside (or under " \
                          "`variable_scope(..., reuse=tf.AUTO_REUSE)`)"
                else:
                    why = "TF 1.8 gives it no gradient (None); create it outside and pass " \
                          "it in as an argument"
                yield self.at(use.node, "%s inside custom-gradient function `%s`: %s"
                              % (what, site.name, why), function=site.func)


def _verb(qualname):
    return "creates" if always_makes_a_new_variable(qualname) else "creates or reuses"


RULE = VariableCreatedInside
