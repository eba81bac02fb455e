"""facts.count_values of `*` items in list and tuple displays (`(dy, *[None] * 3)`) and
the items of repeated and concatenated lists (`([dy] + [None] * 2)[0]`), measured against
TF 1.8's nest.flatten: a gradient function returning `(dy, *[None] * 3)` for three inputs
gives four gradients, and TF 1.8 raises `ValueError: Num gradients 5 generated for op name:
"IdentityN"` (CG103)."""
import json
import subprocess

import pytest

from cglint.oracle import envs

PROGRAM = """
import json
import tensorflow as tf
from tensorflow.python.util import nest
x = tf.constant([1.0, 2.0])
print(json.dumps(dict((call, len(nest.flatten(eval(call)))) for call in %r)))
"""
# Python 3.5+ syntax: measured on py36 only.
SPREAD = [
    "(x, *[None] * 3)",
    "[x, *[x, x]]",
    "(*tf.split(x, 2), x)",
    "[*(x, [x, x])]",
    "(x, *[t * 2.0 for t in (x, x)])",
    "(*[x] * 2, *[None])",
    "(x, *tf.nn.moments(x, [0]))",
    "(x, *tuple(tf.split(x, 2)))",
    "(x, *[None] * 2)[2]",
    "[*[x, x], x][1:]",
    "(x, *([None] + [x, x]))",
]
# Items of repeated and concatenated lists, on both interpreters.
ITEMS = [
    "([x] + [None] * 2)[0]",
    "([x] * 2 + [(x, x)])[2]",
    "([x, x] * 2)[1:]",
    "((x,) * 3)[-1]",
    # a py_func's Tout repeated or concatenated: one tensor per dtype
    "tf.py_func(lambda a: (a, a, a), [x], [tf.float32] * 3)",
    "tf.py_func(lambda a: (a, a), [x], [x.dtype] + [tf.float32])",
]


def _cglint_count(expr, target=(3, 6)):
    from cglint.facts import ModuleFacts
    from cglint.parse import parse

    text = "import tensorflow as tf\ndef f(x):\n    return %s\n" % expr
    module = ModuleFacts("m.py", text, parse(text), target, "1.8")
    function = module.tree.body[-1]
    value = function.body[0].value
    return module.count_values(value, module.names.scope_for_def[id(function)])


@pytest.mark.parametrize("name", envs.INTERPRETERS)
def test_cglint_counts_spread_items_as_tf18_flattens_them(interpreters, name):
    calls = ITEMS + (SPREAD if name == "py36" else [])
    ran = subprocess.run([interpreters[name], "-c", PROGRAM % calls], capture_output=True,
                         timeout=300)
    assert ran.returncode == 0, ran.stderr.decode()[-2000:]
    measured = json.loads(ran.stdout.decode().strip().splitlines()[-1])
    assert {call: _cglint_count(call) for call in calls} == measured


@pytest.mark.parametrize("expr", [
    "(x, *xs)",
    "(x, *x)",  # iterating a tensor: a TypeError in graph mode
    "(x, *{'a': x})",  # its keys
    "(x, *'ab')",
    "(x, *[None] * n)",
    "(x, *[None] * 2)[3]",  # an IndexError
])
def test_unknown_spreads_are_not_counted(expr):
    assert _cglint_count(expr) is None
