from cglint import tfapi
from cglint.rules.base import Rule
from cglint.wording import tf_name


class UnknownKeyword(Rule):
    """A keyword argument that the target TF signature does not accept.

    What: a call of a TensorFlow function or class with a keyword argument that only newer
    releases take, such as `tf.gradients(..., unconnected_gradients=...)` or
    `tf.GradientTape(watch_accessed_variables=False)`, or of a method of a TensorFlow object
    the code made (`tape.gradient(y, x, unconnected_gradients=...)` after `with
    tf.GradientTape() as tape`, `self.opt.minimize(...)` after `self.opt =
    tf.train.AdamOptimizer()`). Signatures come from TF 1.8's own argspecs, recorded by
    `tools/gen_tf_api.py`.

    Why it breaks on TF 1.8: `TypeError: gradients() got an unexpected keyword argument
    'unconnected_gradients'` when the call runs.

    Fix: drop the argument or use the 1.8 equivalent (for unconnected gradients, replace
    the None results yourself: `g if g is not None else tf.zeros_like(x)`).
    """

    code = "CG403"
    name = "unknown-keyword"

    def check(self, module):
        for use in module.api_uses + module.method_uses:
            if use.call is None:
                continue
            for keyword in use.call.keywords:
                if keyword.arg and tfapi.accepts_keyword(use.qualname, keyword.arg,
                                                         module.target_tf) is False:
                    yield self.at(keyword, "`%s` takes no keyword argument `%s` in TF %s" % (
                        tf_name(use.qualname), keyword.arg, module.target_tf))


RULE = UnknownKeyword
