"""Gradient names registered in loops over literal tables of other shapes than a list of
rows (probe z3c): a dict's keys or items, `zip` of lists, `enumerate`, `sorted(...)`, and
names built from the loop variable (`"Guided" + op_type`, `"{}_ste".format(op)`,
`"Scale_%d" % i`). The table's names are registered; a map asking for another is CG202.
A table the module may change (an item assigned, handed to a function) registers any
name."""
import textwrap

import pytest

from cglint import check, engine


def lint(code):
    results = check.check_texts({"snippet.py": textwrap.dedent(code)},
                                engine.Options(select=("CG2",)))
    return sorted((d.code, d.line) for result in results for d in result.diagnostics)


TEMPLATE = """
import tensorflow as tf

def _make(s):
    return lambda op, grad: grad * s

SETUP
for LOOP:
    tf.RegisterGradient(NAME)(_make(1.0))

x = tf.constant([1.0, 2.0])
with tf.get_default_graph().gradient_override_map({"Identity": "WANTED"}):
    y = tf.identity(x)
"""

# (setup, loop, registered name, a name the loop registers, one it does not)
CASES = [
    ('GRADS = {"HalfG": 0.5, "DoubleG": 2.0}', "name, s in GRADS.items()", "name",
     "DoubleG", "TripleG"),
    ('GRADS = {"HalfG": 0.5, "DoubleG": 2.0}', "name in GRADS", "name", "HalfG", "Half"),
    ('GRADS = {"HalfG": 0.5, "DoubleG": 2.0}', "name in sorted(GRADS.keys())", "name",
     "HalfG", "halfG"),
    ("", 'op_type, s in zip(["Relu", "Elu"], [0.5, 2.0])', '"Guided" + op_type',
     "GuidedElu", "Guidedelu"),
    ("", 'op_type in ["Round", "Sign", "Floor"]', 'op_type + "STE"', "FloorSTE",
     "CeilSTE"),
    ("", 'op in ("round", "sign")', '"{}_ste".format(op)', "sign_ste", "sign_STE"),
    ("", "i, s in enumerate([0.5, 2.0])", '"Scale_%d" % i', "Scale_1", "Scale_2"),
    ('PREFIX = "Ste"', 'op in ["Round", "Sign"]', '"%s%s" % (PREFIX, op)', "SteSign",
     "SteCeil"),
    ("", 'op in ["Round", "Sign"]', 'f"Ste{op}"', "SteRound", "SteCeil"),
]


@pytest.mark.parametrize("setup, loop, name, registered, missing", CASES)
def test_names_a_loop_over_a_literal_table_registers(setup, loop, name, registered,
                                                     missing):
    code = TEMPLATE.replace("SETUP", setup).replace("LOOP", loop).replace("NAME", name)
    assert lint(code.replace("WANTED", registered)) == []
    assert lint(code.replace("WANTED", missing)) == [("CG202", 12)]


def test_names_of_nested_loops_combine():
    code = """
    import tensorflow as tf
    for op_type in ("Relu", "Elu"):
        for mode in ["guided", "deconv"]:
            tf.RegisterGradient("{}_{}".format(op_type, mode))(lambda op, grad: grad)
    with tf.get_default_graph().gradient_override_map({"Relu": "WANTED"}):
        y = tf.nn.relu(tf.constant(1.0))
    """
    assert lint(code.replace("WANTED", "Elu_deconv")) == []
    assert lint(code.replace("WANTED", "Relu_backprop")) == [("CG202", 6)]


@pytest.mark.parametrize("change", [
    'GRADS["TripleG"] = 3.0',
    'GRADS.update(TripleG=3.0)',
    "add_more(GRADS)",
    "other = GRADS",
])
def test_a_table_the_module_may_change_registers_any_name(change):
    code = """
    import tensorflow as tf
    GRADS = {"HalfG": 0.5}

    def add_more(table):
        table["TripleG"] = 3.0

    CHANGE
    for name in GRADS:
        tf.RegisterGradient(name)(lambda op, grad: grad)
    with tf.get_default_graph().gradient_override_map({"Identity": "TripleG"}):
        y = tf.identity(tf.constant(1.0))
    """
    assert lint(code.replace("CHANGE", change)) == []


def test_a_table_only_read_keeps_its_names():
    code = """
    import tensorflow as tf
    GRADS = {"HalfG": 0.5}
    print(len(GRADS), "HalfG" in GRADS, GRADS.get("HalfG"), GRADS["HalfG"])
    for name in GRADS:
        tf.RegisterGradient(name)(lambda op, grad: grad * GRADS[name])
    with tf.get_default_graph().gradient_override_map({"Identity": "TripleG"}):
        y = tf.identity(tf.constant(1.0))
    """
    assert lint(code) == [("CG202", 7)]


def test_a_loop_over_names_from_a_call_registers_any_name():
    code = """
    import tensorflow as tf

    def op_types():
        return ["Relu", "Elu"]

    for t in op_types():
        tf.RegisterGradient("Guided" + t)(lambda op, grad: grad)
    for name, fn in zip(["A", "B"], op_types()):
        tf.RegisterGradient(name)(fn)
    with tf.get_default_graph().gradient_override_map({"Relu": "GuidedSwish"}):
        y = tf.nn.relu(tf.constant(1.0))
    """
    # `"Guided" + t` may be any name starting with Guided
    assert lint(code) == []
