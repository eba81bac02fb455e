"""facts.FIXED_OUTPUT_COUNTS, measured: each TF function there returns that many tensors
under TF 1.8 (as `nest.flatten` counts them, which is how custom_gradient counts a
function's outputs), on both interpreters."""
import json
import subprocess

import pytest

from cglint.facts import FIXED_OUTPUT_COUNTS
from cglint.oracle import envs

# One call of each, as TF 1.8 takes it.
CALLS = {
    "nn.moments": "tf.nn.moments(x, [0])",
    "nn.weighted_moments": "tf.nn.weighted_moments(x, [0], tf.ones([4]))",
    "nn.top_k": "tf.nn.top_k(x, 2)",
    "unique": "tf.unique(tf.constant([1, 1, 2]))",
    "unique_with_counts": "tf.unique_with_counts(tf.constant([1, 1, 2]))",
    "nn.sufficient_statistics": "tf.nn.sufficient_statistics(x, [0])",
    "nn.fused_batch_norm": "tf.nn.fused_batch_norm(tf.ones([1, 2, 2, 3]), tf.ones([3]), "
                           "tf.zeros([3]))",
}
PROGRAM = """
import json
import tensorflow as tf
from tensorflow.python.util import nest
x = tf.constant([1.0, 2.0, 3.0, 4.0])
print(json.dumps(dict((path, len(nest.flatten(eval(call)))) for path, call in %r.items())))
"""


def test_every_entry_has_a_call_to_measure():
    assert set(CALLS) == set(FIXED_OUTPUT_COUNTS)


@pytest.fixture(scope="module")
def interpreters():
    found, errors = envs.find_interpreters(tf_pythons=envs.tf_pythons_from_env())
    if errors:
        pytest.fail("TF 1.8 interpreters unavailable (run `cglint confirm --setup`): %s" % errors)
    return found


@pytest.mark.parametrize("name", envs.INTERPRETERS)
def test_the_counts_are_tf18s(interpreters, name):
    output = subprocess.run([interpreters[name], "-c", PROGRAM % CALLS], capture_output=True,
                            timeout=300, check=True).stdout
    assert json.loads(output.decode().strip().splitlines()[-1]) == FIXED_OUTPUT_COUNTS
