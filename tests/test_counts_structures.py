"""facts.count_values of Python and TensorFlow structures that nest.flatten splits, measured
against TF 1.8 on both interpreters: instances of namedtuple classes the module makes
(`collections.namedtuple`, `typing.NamedTuple`, a class deriving from one, `X._make`),
TensorFlow's LSTMStateTuple (facts.TF_NAMEDTUPLES), and OrderedDict/dict built from string
keys. A custom gradient's outputs are counted so (CG104): the forward `return Out(y, aux),
grad` has two outputs, and TF 1.8 calls `grad(dy)` with two upstream gradients (TypeError)."""
import json
import subprocess

import pytest

from cglint.oracle import envs

PRELUDE = '''
import collections
from collections import OrderedDict, namedtuple
import tensorflow as tf
Pair = collections.namedtuple("Pair", "a b")
Single = namedtuple("Single", ["value"])
Triple = namedtuple("Triple", "a, b, c")
class State(namedtuple("State", ("h", "c"))):
    __slots__ = ()
class Sub(Pair):
    def total(self):
        return self.a + self.b
'''
PRELUDE36 = PRELUDE + '''
from typing import NamedTuple
class Gaussian(NamedTuple):
    mean: tf.Tensor
    log_std: tf.Tensor
Typed = NamedTuple("Typed", [("a", tf.Tensor), ("b", tf.Tensor), ("c", tf.Tensor)])
'''
STRUCTURES = [
    "Pair(x, x)",
    "Pair(a=x, b=[x, x])",
    "Pair(x, b=(x, [x, x]))",
    "Pair._make([x, x])",
    "Pair._make((x, (x, x)))",
    "Single(x)",
    "Single([x, x])",
    "Triple(x, x, c=x)",
    "State(x, x)",
    "State._make([x, x])",
    "Sub(x, (x, x))",
    "tf.contrib.rnn.LSTMStateTuple(x, x)",
    "tf.nn.rnn_cell.LSTMStateTuple(x, (x, x))",
    "tf.nn.rnn_cell.LSTMStateTuple(c=x, h=x)",
    "tf.contrib.rnn.LSTMStateTuple._make([x, x])",
    "OrderedDict([('mu', x), ('lv', x)])",
    "collections.OrderedDict(mu=x, lv=(x, x))",
    "OrderedDict([('a', x), ('a', x)])",
    "OrderedDict((('a', x), ['b', x]), c=x)",
    "OrderedDict({'a': x}, b=x)",
    "OrderedDict()",
    "dict(a=x, b=x)",
    "dict([('a', x), ('b', [x, x])])",
    "[Pair(x, x), Single(x)]",
    "{'p': Pair(x, x)}",
]
STRUCTURES36 = [
    "Gaussian(x, x)",
    "Gaussian(mean=x, log_std=[x, x])",
    "Gaussian._make([x, x])",
    "Typed(x, x, x)",
]
PROGRAM = """
import json
from tensorflow.python.util import nest
%s
x = tf.constant([1.0, 2.0])
print(json.dumps(dict((call, len(nest.flatten(eval(call)))) for call in %r)))
"""


def _cglint_count(prelude, expr, target=(3, 6)):
    from cglint.facts import ModuleFacts
    from cglint.parse import parse

    text = prelude + "def f(x):\n    return %s\n" % expr
    module = ModuleFacts("m.py", text, parse(text), target, "1.8")
    function = module.tree.body[-1]
    value = function.body[0].value
    return module.count_values(value, module.names.scope_for_def[id(function)])


@pytest.mark.parametrize("name", envs.INTERPRETERS)
def test_cglint_counts_structures_as_tf18_flattens_them(interpreters, name):
    prelude, structures = PRELUDE, STRUCTURES
    if name == "py36":
        prelude, structures = PRELUDE36, STRUCTURES + STRUCTURES36
    ran = subprocess.run([interpreters[name], "-c", PROGRAM % (prelude, structures)],
                         capture_output=True, timeout=300)
    assert ran.returncode == 0, ran.stderr.decode()[-2000:]
    measured = json.loads(ran.stdout.decode().strip().splitlines()[-1])
    target = (3, 6) if name == "py36" else (2, 7)
    assert {call: _cglint_count(prelude, call, target) for call in structures} == measured


@pytest.mark.parametrize("expr", [
    "Pair(x)",  # a TypeError
    "Pair(x, x, x)",  # a TypeError
    "Pair(x, a=x)",  # a TypeError
    "Pair(*xs)",
    "Pair(**parts)",
    "Pair._make(xs)",
    "Pair._make([x, x, x])",  # a TypeError
    "Unknown(x, x)",
    "Renamed(x, x)",
    "Defaulted(x)",
    "Rebound(x, x)",
    "Made(x, x)",
    "OrderedDict(pairs)",
    "OrderedDict([(key, x), ('b', x)])",
    "OrderedDict([('a', x), ('b', x)], **more)",
    "OrderedDict(zip(keys, values))",
    "dict(pairs)",
])
def test_unknown_structures_are_not_counted(expr):
    prelude = PRELUDE + '''
Renamed = namedtuple("Renamed", "a a", rename=True)
Defaulted = namedtuple("Defaulted", "a b", defaults=(None,))
Rebound = namedtuple("Rebound", "a b")
Rebound = namedtuple("Rebound", "a b c")
class Made(namedtuple("Made", "a b")):
    def __new__(cls, a, b):
        return super(Made, cls).__new__(cls, a, (b, b))
'''
    assert _cglint_count(prelude, expr) is None


def test_a_one_field_namedtuple_is_one_output():
    assert _cglint_count(PRELUDE, "Single(x)") == 1
    assert _cglint_count(PRELUDE, "Single(value=x)") == 1


MAPPED = "map(lambda t: t * 0.5, (x, x, x))"


@pytest.mark.parametrize("name", envs.INTERPRETERS)
def test_a_bare_map_is_counted_for_python_2_only(interpreters, name):
    """Python 2's map gives a list, one tensor per item; Python 3's map object is one leaf
    of nest (and no gradient TF can use): one value, so that a gradient function returning
    it for two inputs is told (`Num gradients 2` on py36: fixtures/CG103/
    bad_python3_map_of_gradients_target36.py)."""
    ran = subprocess.run([interpreters[name], "-c", PROGRAM % (PRELUDE, [MAPPED])],
                         capture_output=True, timeout=300)
    assert ran.returncode == 0, ran.stderr.decode()[-2000:]
    measured = json.loads(ran.stdout.decode().strip().splitlines()[-1])[MAPPED]
    if name == "py27":
        assert _cglint_count(PRELUDE, MAPPED, (2, 7)) == measured == 3
    else:
        assert measured == 1 == _cglint_count(PRELUDE, MAPPED, (3, 6))
