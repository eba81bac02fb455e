import ast

from cglint import failing_imports, guards, tfapi
from cglint.facts import TF_PRINTS
from cglint.rules.base import Rule


class TfPrint(Rule):
    """`tf.print` is used, which TF 1.8 does not have.

    What: a call of `tf.print(...)` (also through `tf.compat.v1`), the printing op of
    TF 1.12 and later, commonly copied into gradient functions for debugging.

    Why it breaks on TF 1.8: `AttributeError: module 'tensorflow' has no attribute
    'print'` when the line runs; inside a gradient function that is only at `tf.gradients`
    time, so a forward-only smoke test passes. On Python 2.7 without
    `from __future__ import print_function`, `tf.print(...)` does not even parse.

    Not reported under a guard (`if hasattr(tf, "print"):`, a `try` that catches
    AttributeError, a `tf.__version__` branch 1.8 does not take): the else branch is
    checked as usual. On Python 2.7 without the `print_function` import a guarded
    `tf.print` is still reported: the module does not parse, whatever runs.

    Fix: use `tf.Print(x, [x], message="...")`. It is an identity op: use its result in
    place of `x`, or the print never runs (`dx = tf.Print(dx, [dx], "dx: ")`).
    """

    code = "CG401"
    name = "tf-print"

    def check(self, module):
        python2_parse_error = module.target_python < (3, 0) and not _has_print_function(module)
        for use in module.api_uses:
            if use.qualname not in TF_PRINTS or not tfapi.missing(use.qualname, module.target_tf):
                continue
            if guards.of(module).covers(use.node, use.qualname):
                # It only runs where a test has found tf.print; but Python 2 reads
                # every line before it runs any.
                if python2_parse_error:
                    yield self.at(use.node, "`tf.print` is a SyntaxError on Python 2.7 without "
                                  "`from __future__ import print_function`, even where a "
                                  "guard keeps it from running")
                continue
            if failing_imports.through_failing_import(module, use, module.target_tf):
                continue  # `import tensorflow.compat.v1 as tf` is reported once, by CG402
            message = ("`tf.print` is not in TF %s: use `tf.Print(x, [x], message)` and use its "
                       "result (it is an identity op)" % module.target_tf)
            if python2_parse_error:
                message += "; on Python 2.7 it is also a SyntaxError without `from __future__ " \
                           "import print_function`"
            yield self.at(use.node, message)


def _has_print_function(module):
    return any(isinstance(node, ast.ImportFrom) and node.module == "__future__"
               and any(alias.name == "print_function" for alias in node.names)
               for node in module.tree.body)


RULE = TfPrint
