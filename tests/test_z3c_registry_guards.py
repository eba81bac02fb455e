"""A test of TF's gradient registry guards a registration only when it may look up the
name registered (probe z3c b11): `if "GuidedBackprop" not in
ops._gradient_registry._registry:` over `RegisterGradient("GuidedBackProp")` never sees
that name, so the second call registers it again (KeyError on TF 1.8)."""
import textwrap

import pytest

from cglint import check, engine

CODE = """
import tensorflow as tf
from tensorflow.python.framework import ops

NAME = "GuidedBackProp"


def register_guided():
    if TEST:
        @ops.RegisterGradient("GuidedBackProp")
        def _guided(op, grad):
            return tf.nn.relu(grad)


register_guided()
register_guided()
"""


@pytest.mark.parametrize("test, reported", [
    ('"GuidedBackProp" not in ops._gradient_registry._registry', False),
    ("NAME not in ops._gradient_registry._registry", False),
    ('"GuidedBackprop" not in ops._gradient_registry._registry', True),
    ('"Guided" + "BackProp" not in ops._gradient_registry._registry', False),
    ('ops._gradient_registry._registry.get("GuidedBackProp") is None', False),
    ('ops._gradient_registry._registry.get("GuidedReLU") is None', True),
    ("not ops._gradient_registry._registry.get(name_of())", False),  # (unknown: left alone)
    ("len(ops._gradient_registry._registry) < 1000", False),
])
def test_a_registry_test_guards_the_name_it_looks_up(test, reported):
    code = textwrap.dedent(CODE).replace("TEST", test)
    results = check.check_texts({"snippet.py": code}, engine.Options(select=("CG203",)))
    found = [d for result in results for d in result.diagnostics]
    assert bool(found) is reported, [d.message for d in found]
