from cglint.rules.base import Rule


class GradientTapeInGraphMode(Rule):
    """`tf.GradientTape` is used in graph mode alongside custom gradients.

    What: a module that defines a `@tf.custom_gradient` function or uses
    `gradient_override_map` takes gradients with `tf.GradientTape` without enabling eager
    execution.

    Why it breaks on TF 1.8: in graph mode 1.8's tape silently ignores both
    `@tf.custom_gradient` and `gradient_override_map` and returns the natural gradient of
    the forward ops. No error, no warning: the custom gradient simply never runs.

    Fix: in graph mode take gradients with `tf.gradients(y, xs)` (or an optimizer's
    `minimize`); use `tf.GradientTape` only after `tf.enable_eager_execution()`.
    """

    code = "CG109"
    name = "gradient-tape-in-graph-mode"

    def check(self, module):
        if module.eager or not (module.sites or module.override_maps):
            return
        what = ("custom gradient `%s`" % module.sites[0].name if module.sites
                else "gradient_override_map")
        for call in module.tape_calls:
            yield self.at(call, "`tf.GradientTape` in graph mode ignores %s in TF 1.8 (natural "
                          "gradient, silently); use tf.gradients" % what)


RULE = GradientTapeInGraphMode
