"""cglint.wording: how every rule's messages name TensorFlow names, counts and lists."""
from cglint.wording import counted, listed, plural, tf_name


def test_tf_name_shortens_tensorflow_names_only():
    assert tf_name("tensorflow.nn.relu") == "tf.nn.relu"
    assert tf_name("tensorflow") == "tf"
    assert tf_name("tensorflow_probability.distributions") == "tensorflow_probability.distributions"
    assert tf_name("numpy.log") == "numpy.log"


def test_counts_and_plurals():
    assert [plural(n) for n in (0, 1, 2)] == ["s", "", "s"]
    assert counted(1, "gradient") == "1 gradient"
    assert counted(3, "tensor input") == "3 tensor inputs"


def test_lists_join_the_last_name_with_and():
    assert listed(["Relu"]) == "`Relu`"
    assert listed(["Relu", "Sign", "Round"]) == "`Relu`, `Sign` and `Round`"
