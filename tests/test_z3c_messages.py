"""Wording of CG201 (probe z3c g05, g14): the op types a call builds given other
arguments are the call's, not "its operators" (the block's Python operators)."""
import textwrap

from cglint import check, engine


def messages(code):
    results = check.check_texts({"snippet.py": textwrap.dedent(code)},
                                engine.Options(select=("CG201",)))
    return [d.message for result in results for d in result.diagnostics]


def test_op_types_of_other_arguments_are_the_calls():
    code = """
    import tensorflow as tf
    x = tf.constant([[1.0, 2.0]])
    with tf.get_default_graph().gradient_override_map({"Softmax": "Identity"}):
        y = tf.nn.log_softmax(x)
    """
    (message,) = messages(code)
    assert "`tf.nn.log_softmax` builds `LogSoftmax` (given other arguments, also " \
           "`ConcatV2`, `Pack`, `Reshape`, `Slice` and `Sub`) in TF 1.8" in message
    assert "operators" not in message


def test_operators_of_the_block_are_still_named():
    code = """
    import tensorflow as tf
    x = tf.constant([[1.0, 2.0]])
    with tf.get_default_graph().gradient_override_map({"Softmax": "Identity"}):
        y = tf.nn.log_softmax(x) * 2.0
    """
    (message,) = messages(code)
    assert message.endswith("(given other arguments, also `ConcatV2`, `Pack`, `Reshape`, "
                            "`Slice` and `Sub`); its operators `Mul` in TF 1.8")
