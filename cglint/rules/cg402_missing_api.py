import ast

from cglint import tfapi
from cglint.facts import TF_PRINTS
from cglint.rules.base import Edit, Rule
from cglint.wording import tf_name


# TensorFlow's own packages, imported by path (`from tensorflow.python.ops import
# math_ops`): private, not part of any release's public API, so not this rule's business.
PRIVATE_PACKAGES = ("tensorflow.python.", "tensorflow.core.", "tensorflow.compiler.",
                    "tensorflow.tools.", "tensorflow.include.", "tensorflow._api.",
                    "tensorflow.examples.")


def is_private(qualname):
    """TensorFlow's own modules, also inside contrib (`tf.contrib.learn.python.learn`)."""
    return qualname.startswith(PRIVATE_PACKAGES) or ".python." in qualname


class MissingApi(Rule):
    """A TensorFlow name that the target TF release does not have.

    What: any `tf.*` name (through any alias: `tf`, `tensorflow`, `tfe`, ...) absent from
    the target release, such as `tf.math.log`, `tf.compat.v1.Session`, `tf.random.normal`,
    `tf.nn.gelu` or `tf.function`; the message says when it first appeared and the 1.8
    spelling where one exists. Also imports the target cannot import even where the
    attribute exists: in 1.8 `import tensorflow.keras` and `from tensorflow.keras.layers
    import Dense` raise ImportError while `tf.keras.layers.Dense` works.

    Why it breaks on TF 1.8: `AttributeError: module 'tensorflow' has no attribute ...`
    when the line runs, which inside a gradient function is only at `tf.gradients` time;
    an ImportError at import for the module forms.

    Fix: use the 1.8 spelling named in the message (`tf.log`, `tf.Session`,
    `tf.random_normal`); `--fix` rewrites `tf.compat.v1.X` to `tf.X` where that is the
    same object. Reach Keras and contrib modules through attributes (`tf.keras.layers`).
    """

    code = "CG402"
    name = "missing-api"

    def check(self, module):
        target = module.target_tf
        for use in module.api_uses:
            if use.qualname in TF_PRINTS or is_private(use.qualname):
                continue  # CG401 says more about tf.print
            missing = tfapi.missing(use.qualname, target)
            if missing is not None:
                yield self.at(use.node, _message(missing, target), _fix(module, use, missing))
        for use in module.imports:
            if tfapi.import_fails(use.module, target, use.name):
                what = ("from %s import %s" % (use.module, use.name) if use.name
                        else "import %s" % use.module)
                yield self.at(use.node, "`%s` raises ImportError in TF %s: reach it as an "
                              "attribute instead (`tf.%s`)" % (what, target, _attribute_path(
                                  use)))


def _message(missing, target):
    name, full = tf_name(missing.name), tf_name(missing.qualname)
    if missing.first is None:
        history = "in no TensorFlow release"
    elif _version(missing.first) > _version(target):
        history = "new in %s" % missing.first
    else:
        history = "only in %s to %s" % (missing.first, missing.last)
    if full == name:
        message = "`%s` is not in TF %s (%s)" % (name, target, history)
    else:
        message = "`%s` is not in TF %s (`%s` is %s)" % (full, target, name, history)
    if missing.replacement:
        message += "; use `%s`" % tf_name(missing.replacement)
    return message


def _version(text):
    return tuple(int(part) for part in text.split(".") if part.isdigit())


def _attribute_path(use):
    dotted = use.module + ("." + use.name if use.name else "")
    return dotted.split(".", 1)[1] if "." in dotted else dotted


def _fix(module, use, missing):
    """Rewrite `tf.compat.v1.X` to `tf.X`, keeping the user's alias; None if not safe."""
    replacement = missing.replacement
    if not replacement or not use.qualname.startswith("tensorflow.compat.v1."):
        return None
    if replacement != "tensorflow." + use.qualname[len("tensorflow.compat.v1."):]:
        return None
    root = use.node
    while isinstance(root, ast.Attribute):
        root = root.value
    if not isinstance(root, ast.Name):
        return None
    root_qualname = module.resolve(root)
    text = ast.get_source_segment(module.text, use.node)
    if not root_qualname or text != ast.unparse(use.node):
        return None  # spans lines or holds comments: leave it to a human
    if not replacement.startswith(root_qualname + "."):
        return None
    new = root.id + replacement[len(root_qualname):]
    return (Edit(module.span(use.node), new),)


RULE = MissingApi
