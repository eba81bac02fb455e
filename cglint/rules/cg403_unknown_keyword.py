import ast
import functools
import re

from cglint import failing_imports, guards, tfapi
from cglint.facts import CUSTOM_GRADIENT, ApiUse
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
    drop_remainder=True)`, also of one a helper of the module returns); also the keywords
    `functools.partial` binds to such a function (`partial(tf.nn.dropout, rate=0.1)`:
    every call of the partial raises). Signatures come from TF 1.8's own argspecs, recorded by
    `tools/gen_tf_api.py`, with the keywords Keras layers and optimizers check their
    `**kwargs` against (`tf.keras.optimizers.Adam(learning_rate=...)`: 1.8 spells it `lr`),
    and those that functions and methods read out of `**kwargs` before refusing the rest
    (`tf.einsum(..., optimize=...)`, `tf.keras.Input(ragged=True)`, `model.fit(...,
    validation_freq=1)`).

    Why it breaks on TF 1.8: `TypeError: gradients() got an unexpected keyword argument
    'unconnected_gradients'` when the call runs (Keras: `TypeError: Unexpected keyword
    argument passed to optimizer: learning_rate`, `Keyword argument not understood`).

    Also positional arguments to a function whose 1.8 signature takes them by name only
    (the cross-entropy functions of `tf.nn`, whose first parameter `_sentinel` catches
    them): TF 2 takes `softmax_cross_entropy_with_logits(labels, logits, axis)` by
    position, TF 1.8 raises `ValueError: Only call ... with named arguments`.
    `--unsafe-fixes` names them after the 1.8 parameters (`labels=`, `logits=`, `dim=`,
    `name=`), in TF 2's order or TF 0.x's (`(logits, targets)`, the other way round) as
    the two arguments' own words say (`labels`, `targets`, `tf.ones_like(...)`, `logits`);
    with no such word, or words that disagree, there is no fix. Unsafe all the same: a
    name may mislead.

    Also calls that leave out a parameter the 1.8 signature requires (no default), when no
    `*args` or `**kwargs` of the call could pass it: `@tf.custom_gradient()` written with
    parentheses like `@tf.function()` (`TypeError: custom_gradient() missing 1 required
    positional argument: 'f'` at decoration; `--fix` drops the parentheses),
    `@tf.RegisterGradient()` without its op type, `raise tf.errors.UnimplementedError("...")`
    (1.8's errors take `(node_def, op, message)`). Not for the layers of `tf.contrib.slim`,
    `tf.contrib.layers` and the other packages whose functions take arguments from an
    `arg_scope`, nor in a module that opens or enables an argument scope (tensorpack's
    `enable_argscope_for_module(tf.layers)` and `argscope`), nor for a call whose unknown
    keyword is already the TypeError.

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
        for use in _partial_uses(module):
            # `functools.partial(tf.nn.dropout, rate=0.1)`: its keywords go to the function
            # when the partial is called (the arguments it leaves out are for that call)
            yield from self._keywords(module, use)
        for use in module.api_uses + module.name_calls + module.method_uses:
            if use.call is None:
                continue
            yield from self._keywords(module, use)
            unpassed = _unpassed(use, module.target_tf)
            if unpassed and not _scopes_arguments(module) and not _guarded(
                    module, use, use.node):
                yield self._missing(module, use, unpassed)
            if use.call.args:
                # (the signature first: guards are worked out only where there is a finding)
                names_only = _names_only(use.qualname, module.target_tf)
                if names_only and not _guarded(module, use, use.call.args[0]):
                    # (its first parameter, `_sentinel`, catches a positional argument)
                    yield self.at(use.call.args[0], "`%s` takes its arguments by name only in "
                                  "TF %s: a positional one raises `ValueError` (\"Only call "
                                  "... with named arguments\"); pass `%s=` (TF 2 takes them "
                                  "in that order, TF 0.x took `logits` first: check which)" % (
                                      tf_name(use.qualname), module.target_tf,
                                      "=`, `".join(names_only[:len(use.call.args)])),
                                  _named(module, use.call, names_only))


    def _keywords(self, module, use):
        """The findings of the keywords of `use.call` that 1.8's function lacks."""
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

    def _missing(self, module, use, unpassed):
        """The finding of a call that leaves out parameters 1.8 requires; at a decorator
        (`@tf.custom_gradient()`), where the TypeError comes at decoration."""
        required = "%s %s" % ("argument" if len(unpassed) == 1 else "arguments",
                              "`%s`" % "`, `".join(unpassed))
        function = module.parent_of(use.call)
        if not any(decorator is use.call
                   for decorator in getattr(function, "decorator_list", ())):
            return self.at(use.call, "`%s` requires %s, which this call leaves out: "
                           "`TypeError` when it runs in TF %s" % (
                               tf_name(use.qualname), required, module.target_tf))
        message = "`%s` requires %s, which this decorator leaves out: `TypeError` at " \
            "decoration in TF %s" % (tf_name(use.qualname), required, module.target_tf)
        fix = None
        if use.qualname in CUSTOM_GRADIENT and not use.call.args and not use.call.keywords:
            fix = _without_parentheses(module, use.call)
            message += "; without the parentheses, `@%s` passes it the function" % (
                module.lines.segment(use.call.func))
        return self.at(use.call, message, fix, function=function)


_PARTIALS = frozenset(("functools.partial", "functools.partialmethod"))


def _partial_uses(module):
    """[ApiUse] of TensorFlow functions bound with keywords by `functools.partial(f,
    ...)`, its call standing for theirs (`partial(tf.nn.dropout, rate=0.1)`,
    `partial(tf.layers.conv2d, padding="same")`). Only in a module whose text names
    `partial`."""
    if "partial" not in module.text or not module.public_tensorflow:
        return []
    uses = []
    for call in module.nodes[ast.Call]:
        if call.args and call.keywords and isinstance(call.func, (ast.Name, ast.Attribute)) \
                and module.resolve(call.func) in _PARTIALS \
                and isinstance(call.args[0], (ast.Name, ast.Attribute)):
            qualname = module.resolve(call.args[0])
            if qualname and qualname.startswith("tensorflow."):
                uses.append(ApiUse(call.args[0], qualname, call))
    return uses


# What passes arguments a call leaves out: slim's `arg_scope`, and tensorpack's `argscope`,
# which `enable_argscope_for_module(tf.layers)` extends to any module's functions; called
# (a word in a comment does not count).
_ARGUMENT_SCOPES = ("arg_scope", "argscope")
_ARGUMENT_SCOPE_CALL = re.compile(r"(?:arg_?scope|argscope_for_module)[ \t]*\(")


def _scopes_arguments(module):
    """Whether the module opens or enables an argument scope, which may pass what a call
    leaves out (tensorpack's `argscope([tf.layers.conv2d], kernel_size=3)`)."""
    return any(word in module.text for word in _ARGUMENT_SCOPES) and \
        _ARGUMENT_SCOPE_CALL.search(module.text) is not None


def _unpassed(use, target):
    """The parameters 1.8 requires that the call leaves out, or None: unknown (a `*args`
    or `**kwargs` of the call may pass them), or the call's TypeError is a keyword the
    function lacks (Python names that first), its own finding (`tf.SparseTensor(...,
    shape=s)`, 1.8's `dense_shape`)."""
    call = use.call
    if any(isinstance(arg, ast.Starred) for arg in call.args) or any(
            keyword.arg is None or tfapi.accepts_keyword(use.qualname, keyword.arg, target)
            is False for keyword in call.keywords):
        return None
    return tfapi.unpassed_required(use.qualname, len(call.args),
                                   {keyword.arg for keyword in call.keywords}, target)


def _without_parentheses(module, call):
    """Drop the empty `()` after a decorator's name, when it stands on one line."""
    func = call.func
    if call.end_lineno != func.end_lineno:
        return None
    line = module.lines.line(call.end_lineno)
    start = module.lines.char_col(func.end_lineno, func.end_col_offset)
    end = module.lines.char_col(call.end_lineno, call.end_col_offset)
    if line[start:end].replace(" ", "") != "()":
        return None
    return (Edit(Span(call.end_lineno, start + 1, call.end_lineno, end + 1), ""),)


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


@functools.lru_cache(maxsize=4096)  # a module calls the same functions again and again
def _names_only(qualname, target):
    """The parameters after `_sentinel` of a function that takes its arguments by name
    only in `target` (its first parameter catches a positional one), or None."""
    signature = tfapi.signature(qualname, target)
    if signature is None or signature[0][:1] != ("_sentinel",):
        return None
    return signature[0][1:]


def _named(module, call, names):
    """Name each positional argument of `call` after the 1.8 parameters that follow
    `_sentinel` (`labels`, `logits`, then `dim`, TF 2's `axis`, and `name`, in the order
    TF 2 takes them positionally): an edit before each, where only `(` or `,` and blanks
    stand between it and what comes before on its line; else no fix."""
    given = call.args
    passed = {keyword.arg for keyword in call.keywords}
    if len(given) > len(names) or any(isinstance(arg, ast.Starred) for arg in given) or \
            passed & set(names[:len(given)]):
        return None
    if len(given) >= 2 and tuple(names[:2]) == ("labels", "logits"):
        # TF 2 passes (labels, logits), TF 0.x (logits, targets): the arguments' own
        # words decide (`(d_fake, tf.ones_like(d_fake))` is TF 0.x's); else no fix.
        order = _order_by_words(_head(given[0]), _head(given[1]))
        if order is None:
            return None
        names = list(order) + list(names[2:])
    edits, before = [], call.func
    for arg, name in zip(given, names):
        if arg.lineno != before.end_lineno:
            return None
        line = module.lines.line(arg.lineno)
        start = module.lines.char_col(arg.lineno, arg.col_offset)
        end = module.lines.char_col(before.end_lineno, before.end_col_offset)
        if line[end:start].strip() != ("(" if before is call.func else ","):
            return None
        # Unsafe: TF 2's order (labels, logits) is the reverse of TF 0.x's (logits,
        # targets), and code of either era calls these positionally.
        edits.append(Edit(Span(arg.lineno, start + 1, arg.lineno, start + 1), name + "=",
                          False))
        before = arg
    return tuple(edits)


# Words in an argument's text that say which of the two it is.
_LOGITS_WORDS = ("logit",)
_LABELS_WORDS = ("label", "target", "ones_like", "zeros_like", "one_hot", "onehot")


# Functions that make labels of what they are given (`tf.ones_like(d_fake)`).
_LABEL_MAKERS = ("ones_like", "zeros_like", "one_hot")


def _head(expr, depth=0):
    """The word that names what an argument is: a name, an attribute's last name, what a
    subscript indexes, and for a call the function when it makes labels (`ones_like`),
    else its first argument (`tf.reshape(scores, [-1, num_labels])` is `scores`); "" for
    anything else."""
    if depth > 8:
        return ""
    if isinstance(expr, ast.Name):
        return expr.id
    if isinstance(expr, ast.Attribute):
        return expr.attr
    if isinstance(expr, ast.Subscript):
        return _head(expr.value, depth + 1)
    if isinstance(expr, ast.Call):
        function = _head(expr.func, depth + 1)
        if function in _LABEL_MAKERS or not expr.args:
            return function
        return _head(expr.args[0], depth + 1)
    return ""


def _order_by_words(first, second):
    """("labels", "logits") or ("logits", "labels") for two positional arguments of a
    cross-entropy, by the words that name them (_head); None when they say nothing, or
    contradict each other."""
    def says(text, words):
        return any(word in text.lower() for word in words)

    tf2 = says(first, _LABELS_WORDS) or says(second, _LOGITS_WORDS)
    tf0 = says(first, _LOGITS_WORDS) or says(second, _LABELS_WORDS)
    if tf2 == tf0:
        return None
    return ("labels", "logits") if tf2 else ("logits", "labels")


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
