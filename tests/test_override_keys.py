"""CG201's FIRST_ORDER_KEYS, measured: the gradient TF 1.8 takes of each op type builds
no op of that type (so a map of it opened around `tf.gradients` alone overrides nothing),
on both interpreters; and the two that do (`Mul`, `Cast`) are left out."""
import json
import subprocess

import pytest

from cglint.oracle import envs
from cglint.rules.cg201_override_key import FIRST_ORDER_KEYS

# One op of each type, and the tensor its gradient is taken to.
CALLS = {
    "Relu": "tf.nn.relu(x)", "Relu6": "tf.nn.relu6(x)", "Elu": "tf.nn.elu(x)",
    "Selu": "tf.nn.selu(x)", "Sigmoid": "tf.sigmoid(x)", "Tanh": "tf.tanh(x)",
    "Softplus": "tf.nn.softplus(x)", "Softsign": "tf.nn.softsign(x)", "Sign": "tf.sign(x)",
    "Round": "tf.round(x)", "Floor": "tf.floor(x)", "Ceil": "tf.ceil(x)",
    "MaxPool": "tf.nn.max_pool(tf.reshape(x, [1, 2, 2, 1]), [1, 2, 2, 1], [1, 1, 1, 1], "
               "'VALID')",
    "Identity": "tf.identity(x)", "Abs": "tf.abs(x)", "Maximum": "tf.maximum(x, 0.0)",
    "ClipByValue": "tf.clip_by_value(x, 0.0, 1.0)",
    "Mul": "x * x", "Cast": "tf.cast(x, tf.float64)",
}
PROGRAM = """
import json
import tensorflow as tf
found = {}
for key, call in sorted(%r.items()):
    graph = tf.Graph()
    with graph.as_default():
        x = tf.constant([0.5, -1.0, 2.0, 3.0])
        y = eval(call)
        before = set(op.name for op in graph.get_operations())
        tf.gradients(tf.reduce_sum(y), x)
        found[key] = key in set(op.type for op in graph.get_operations()
                                if op.name not in before)
print(json.dumps(found))
"""


def test_every_key_has_a_call_to_measure():
    assert FIRST_ORDER_KEYS <= set(CALLS)


@pytest.mark.parametrize("name", envs.INTERPRETERS)
def test_their_gradients_build_no_op_of_their_type(interpreters, name):
    ran = subprocess.run([interpreters[name], "-c", PROGRAM % CALLS], capture_output=True,
                         timeout=300)
    assert ran.returncode == 0, ran.stderr.decode()[-2000:]
    builds_own = json.loads(ran.stdout.decode().strip().splitlines()[-1])
    assert {key for key, own in builds_own.items() if not own} == FIRST_ORDER_KEYS
