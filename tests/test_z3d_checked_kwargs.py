"""CG403 / tf18_argspecs.json: functions and methods whose `**kwargs` TF 1.8 refuses after
reading a few keys out of them (`if kwargs: raise ...`), recorded by tools/gen_tf_api.py
as `**=keys`. Each verdict measured on TF 1.8 (py36; /tmp/probe_z3d/scan/khas.txt and the
report): `tf.keras.Input(ragged=True)` -> ValueError, `Tokenizer(document_count=0)`,
`tf.einsum(..., optimize=...)`, `tf.meshgrid(..., sparse=True)`, `Model.fit(...,
validation_freq=1)` -> TypeError, `tf.group(..., control_inputs=...)` -> ValueError; the
keys they read are taken."""
import pytest

from cglint import tfapi
from conftest import lint


@pytest.mark.parametrize("qualname,keyword,accepted", [
    ("tensorflow.keras.Input", "ragged", False),
    ("tensorflow.keras.Input", "batch_shape", True),
    ("tensorflow.keras.layers.Input", "type_spec", False),
    ("tensorflow.keras.layers.InputLayer", "ragged", False),
    ("tensorflow.keras.layers.InputLayer", "batch_input_shape", True),
    ("tensorflow.keras.preprocessing.text.Tokenizer", "document_count", False),
    ("tensorflow.keras.preprocessing.text.Tokenizer", "nb_words", True),
    ("tensorflow.einsum", "optimize", False),
    ("tensorflow.einsum", "name", True),
    ("tensorflow.meshgrid", "sparse", False),
    ("tensorflow.meshgrid", "indexing", True),
    ("tensorflow.group", "control_inputs", False),
    ("tensorflow.group", "name", True),
    ("tensorflow.keras.Model.fit", "validation_freq", False),
    ("tensorflow.keras.Model.fit", "nb_epoch", True),
    ("tensorflow.keras.Model.fit", "epochs", True),
    # **kwargs handed on, or read in ways not seen: unknown, as before
    ("tensorflow.keras.layers.Lambda", "anything_else", False),
    ("tensorflow.keras.Model.compile", "run_eagerly", None),
])
def test_recorded_keywords(qualname, keyword, accepted):
    assert tfapi.accepts_keyword(qualname, keyword, "1.8") is accepted


@pytest.mark.parametrize("code,col", [
    ("import tensorflow as tf\ninp = tf.keras.Input(shape=(2,), ragged=True)\n", 34),
    ("import tensorflow as tf\ny = tf.einsum('i,i->', tf.ones([2]), tf.ones([2]), "
     "optimize='greedy')\n", 52),
    ("import numpy as np\nimport tensorflow as tf\n"
     "m = tf.keras.Sequential([tf.keras.layers.Dense(1, input_shape=(2,))])\n"
     "m.compile('sgd', 'mse')\n"
     "m.fit(np.ones((2, 2)), np.ones((2, 1)), validation_freq=1)\n", 41),
])
def test_reported(code, col):
    line = code.count("\n")
    assert lint(code, select=["CG403"]) == [("CG403", line, col)]


def test_the_keys_read_stay_clean():
    code = ("import tensorflow as tf\n"
            "inp = tf.keras.Input(batch_shape=(None, 2), name='x')\n"
            "y = tf.einsum('i,i->', tf.ones([2]), tf.ones([2]), name='dot')\n"
            "a, b = tf.meshgrid(tf.ones([2]), tf.ones([2]), indexing='ij')\n"
            "g = tf.group(tf.no_op(), name='step')\n")
    assert lint(code, select=["CG403"]) == []
