"""How messages name things, the same way in every rule: TensorFlow names as users write
them (`tf.math.log`), counts with their plural, lists of names."""

_TENSORFLOW = "tensorflow"
# Said after a graph-mode message on code of an eager module that TF traces into a graph
# (a `tfe.defun`, a dataset's `.map` function: facts.graph_traced).
TRACED = " (TF 1.8 traces this code into a graph, eager execution or not)"


def tf_name(qualname):
    """`tf.nn.relu` for `tensorflow.nn.relu`; any other name as it is."""
    if qualname == _TENSORFLOW or qualname.startswith(_TENSORFLOW + "."):
        return "tf" + qualname[len(_TENSORFLOW):]
    return qualname


def plural(count):
    """The "s" a count other than one takes."""
    return "" if count == 1 else "s"


def counted(count, noun):
    """`1 gradient`, `2 gradients`."""
    return "%d %s%s" % (count, noun, plural(count))


def listed(names):
    """`a`, `b` and `c`, each name in backticks."""
    quoted = ["`%s`" % name for name in names]
    if len(quoted) == 1:
        return quoted[0]
    return ", ".join(quoted[:-1]) + " and " + quoted[-1]
