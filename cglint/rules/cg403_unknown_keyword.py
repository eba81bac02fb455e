from cglint import failing_imports, guards, tfapi
from cglint.rules.base import Edit, Rule, Span
from cglint.wording import tf_name


class UnknownKeyword(Rule):
    """A keyword argument that the target TF signature does not accept.

    What: a call of a TensorFlow function or class with a keyword argument that only newer
    releases take, such as `tf.gradients(..., unconnected_gradients=...)` or
    `tf.GradientTape(watch_accessed_variables=False)`, or of a method of a TensorFlow object
    the code made (`tape.gradient(y, x, unconnected_gradients=...)` after `with
    tf.GradientTape() as tape`, `self.opt.minimize(...)` after `self.opt =
    tf.train.AdamOptimizer()`, a step of a `tf.data` pipeline such as `.batch(32,
    drop_remainder=True)`, also of one a helper of the module returns). Signatures come from TF 1.8's own argspecs, recorded by
    `tools/gen_tf_api.py`, with the keywords Keras layers and optimizers check their
    `**kwargs` against (`tf.keras.optimizers.Adam(learning_rate=...)`: 1.8 spells it `lr`).

    Why it breaks on TF 1.8: `TypeError: gradients() got an unexpected keyword argument
    'unconnected_gradients'` when the call runs (Keras: `TypeError: Unexpected keyword
    argument passed to optimizer: learning_rate`, `Keyword argument not understood`).

    Not reported under the guards CG402 respects, such as the fallback of `try:
    tf.nn.sigmoid_cross_entropy_with_logits(logits=x, labels=y)` / `except:` with the
    pre-1.0 `targets=`, which 1.8 never runs.

    Fix: drop the argument or use the 1.8 equivalent (for unconnected gradients, replace
    the None results yourself: `g if g is not None else tf.zeros_like(x)`). A keyword
    renamed after 1.8 gets its 1.8 spelling from `--fix` where the function takes it
    (`tf.nn.moments(..., keepdims=True)` -> `keep_dims=True`); the renames are TF's own,
    from its 1.x-to-2.0 upgrade script (`tools/gen_keyword_renames.py`).
    """

    code = "CG403"
    name = "unknown-keyword"

    def check(self, module):
        for use in module.api_uses + module.name_calls + module.method_uses:
            if use.call is None:
                continue
            for keyword in use.call.keywords:
                if keyword.arg and tfapi.accepts_keyword(use.qualname, keyword.arg,
                                                         module.target_tf) is False \
                        and not _guarded(module, use, keyword):
                    message = "`%s` takes no keyword argument `%s` in TF %s" % (
                        tf_name(use.qualname), keyword.arg, module.target_tf)
                    spelling = _old_spelling(use, keyword, module.target_tf)
                    if spelling:
                        message += "; it spells it `%s`" % spelling
                    else:
                        short = _abbreviation(use, keyword, module.target_tf)
                        if short:  # a guess from the signature: said, never fixed
                            message += "; did you mean `%s`?" % short
                    yield self.at(keyword, message, _rename(module, keyword, spelling))


def _guarded(module, use, keyword):
    guarded = guards.of(module)
    # A guard of the name only (`except AttributeError:`, `hasattr`) does not keep a
    # keyword the function lacks from raising TypeError: it must guard keywords too.
    return (guarded.covers(use.node, use.qualname, guards.KEYWORD)
            or guarded.covers(keyword, None, guards.KEYWORD)
            # reached through an import that fails: that import is CG402's one finding
            or failing_imports.through_failing_import(module, use, module.target_tf))


def _old_spelling(use, keyword, target):
    """The 1.8 spelling of a renamed keyword, when this function takes it and the call
    does not pass it already."""
    old = tfapi.earlier_keyword(use.qualname, keyword.arg)
    if old is None or any(other.arg == old for other in use.call.keywords):
        return None
    return old if tfapi.accepts_keyword(use.qualname, old, target) else None


def _abbreviation(use, keyword, target):
    """A parameter of the 1.8 signature named by the keyword's initials (Keras 2.1's `lr`
    for `learning_rate`), which the call does not pass already; else None."""
    parts = keyword.arg.split("_")
    if len(parts) < 2:
        return None
    initials = "".join(part[:1] for part in parts)
    signature = tfapi.signature(use.qualname, target)
    if signature is None or initials not in signature[0] or any(
            other.arg == initials for other in use.call.keywords):
        return None
    return initials


def _rename(module, keyword, spelling):
    """Replace the keyword's name (its first characters), keeping the value as written."""
    if not spelling or not keyword.lineno:
        return None
    line = module.lines.line(keyword.lineno)
    col = module.lines.char_col(keyword.lineno, keyword.col_offset)
    if not line.startswith(keyword.arg, col):
        return None
    span = Span(keyword.lineno, col + 1, keyword.lineno, col + 1 + len(keyword.arg))
    return (Edit(span, spelling),)


RULE = UnknownKeyword
