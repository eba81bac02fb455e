"""Gradients and outputs counted through `for` loops and comprehensions over named lists
(probe z3a): `for i in range(3): grads.append(dy * i)` adds three gradients, and
`[dy * w for w in weights]` one per item of `weights = [b, a, a]`. TF 1.8 raises
`ValueError: Num gradients 4 generated for op name: "IdentityN"` for both with two inputs
(fixtures/CG103/bad_gradients_appended_in_a_loop.py, bad_comprehension_over_a_named_list.py),
and `TypeError: grad() takes 1 positional argument but 3 were given` for three outputs
appended in a loop (fixtures/CG104/bad_outputs_appended_in_a_loop.py)."""
import pytest

from conftest import lint

TWO_INPUTS = """
import tensorflow as tf


@tf.custom_gradient
def f(a, b):
    BEFORE
    def grad(dy):
        BODY
    return a * b, grad
"""


def _lint(before, body):
    code = TWO_INPUTS.replace("BEFORE", before).replace("BODY", body.replace("\n", "\n        "))
    return [finding for finding in lint(code) if finding[0] == "CG103"]


@pytest.mark.parametrize("before, body", [
    ("pass", "gs = []\nfor i in range(3):\n    gs.append(dy * float(i))\nreturn gs"),
    ("pass", "gs = [dy]\nfor t in (a, b):\n    gs.append(dy * t)\nreturn gs"),
    ("pass", "gs = []\nfor t in [a, b, a]:\n    gs.extend([dy * t])\nreturn gs"),
    ("ws = [b, a, a]", "return [dy * w for w in ws]"),
    ("pass", "ws = (b, a, a)\nreturn [dy * w for w in ws]"),
    ("pass", "return [dy * w for w in [b, a, a]]"),
    ("ws = [b, a, a]", "gs = []\nfor w in ws:\n    gs.append(dy * w)\nreturn gs"),
])
def test_counted_too_many(before, body):
    assert len(_lint(before, body)) == 1


@pytest.mark.parametrize("before, body", [
    ("pass", "gs = []\nfor t in (b, a):\n    gs.append(dy * t)\nreturn gs"),
    ("pass", "gs = []\nfor i in range(2):\n    gs.append(dy * float(i))\nreturn gs"),
    ("ws = [b, a]", "return [dy * w for w in ws]"),
    # unknown: the loop may stop early, the list may change, the range is not literal
    ("pass", "gs = []\nfor i in range(3):\n    if i == 2:\n        break\n    gs.append(dy)\nreturn gs"),
    ("pass", "gs = []\nfor i in range(3):\n    gs.append(dy)\nelse:\n    gs.pop()\nreturn gs"),
    ("ws = [b, a, a]\n    ws.pop()", "return [dy * w for w in ws]"),
    ("ws = [b, a, a]", "ws.pop()\nreturn [dy * w for w in ws]"),
    ("n = 3", "gs = []\nfor i in range(n - 1):\n    gs.append(dy)\nreturn gs"),
    ("pass", "gs = []\nfor i in range(3):\n    for j in range(2):\n        gs.append(dy)\nreturn gs"),
])
def test_right_or_unknown_stays_clean(before, body):
    assert _lint(before, body) == []


def test_outputs_appended_in_a_loop():
    code = """
    import tensorflow as tf


    @tf.custom_gradient
    def multi(x):
        outs = []
        for s in (1.0, 2.0, 3.0):
            outs.append(x * s)
        def grad(dy):
            return dy
        return outs, grad
    """
    assert [f[0] for f in lint(code)] == ["CG104"]
    assert lint(code.replace("def grad(dy):", "def grad(d1, d2, d3):")) == []


CHOSEN = """
import tensorflow as tf

STRAIGHT = True


def one(dy):
    return dy


def two(dy):
    return dy, None


TABLE = {"one": one, "two": two}


def make(mode):
    @tf.custom_gradient
    def f(a, b):
        return a * b, GRAD
    return f
"""


@pytest.mark.parametrize("grad, reported", [
    ("(one if STRAIGHT else two)", ["one"]),
    ("(two if STRAIGHT else one)", ["one"]),
    ("(two if STRAIGHT else two)", []),
    ("(two if STRAIGHT else lambda dy: dy)", ["lambda"]),
    ("TABLE[mode]", ["one"]),
    ("TABLE['two']", ["one"]),  # every value of the table is a candidate
    ("(two if STRAIGHT else unknown)", []),  # a branch that is no known function
])
def test_gradient_functions_chosen_by_a_conditional_or_a_table(grad, reported):
    from cglint import check, engine

    code = CHOSEN.replace("GRAD", grad)
    result = check.check_alone("snippet.py", code, engine.Options(select=("CG103",)))
    names = [d.message.split("gradient function `")[1].split("`")[0]
             for d in result.diagnostics]
    assert names == reported


def test_a_changed_table_is_not_followed():
    code = CHOSEN.replace("GRAD", "TABLE[mode]") + "\nTABLE['three'] = one\n"
    assert [f for f in lint(code) if f[0] == "CG103"] == []


CLOSURE = """
import tensorflow as tf


@tf.custom_gradient
def f(x, w):
    y = x * w
    BEFORE
    def grad(dy):
        return RETURNED
    return tf.identity(y), grad
"""


@pytest.mark.parametrize("before, returned, count", [
    ("params = [x, w, x]", "tf.gradients(y, params, grad_ys=dy)", 3),
    ("params = [x, w]", "tf.gradients(y, params, grad_ys=dy)", None),
    ("pads = [None, None]", "[dy] + pads", 3),
    ("pads = (None,)", "(dy,) + pads", None),
    # changed after the def, bound twice, or a parameter of another function: unknown
    ("params = [x, w, x]\n    params.pop()", "tf.gradients(y, params, grad_ys=dy)", None),
    ("params = [x, w, x]\n    params = [x, w]", "tf.gradients(y, params, grad_ys=dy)", None),
])
def test_lists_the_custom_gradient_function_keeps(before, returned, count):
    code = CLOSURE.replace("BEFORE", before).replace("RETURNED", returned)
    found = [finding for finding in lint(code) if finding[0] == "CG103"]
    assert len(found) == (count is not None)


MAPPED = """
import tensorflow as tf


@tf.custom_gradient
def f(a, b):
    def grad(dy):
        return RETURNED
    return a + b, grad
"""


@pytest.mark.parametrize("returned, target, reported", [
    ("map(lambda g: g * 0.5, [dy, dy])", (3, 6), True),
    ("map(lambda g: g * 0.5, [dy, dy])", (2, 7), False),
    ("map(lambda g: g * 0.5, [dy, dy, dy])", (2, 7), True),
    ("list(map(lambda g: g * 0.5, [dy, dy]))", (3, 6), False),
    ("tuple(map(lambda g: g * 0.5, [dy, dy]))", (3, 6), False),
])
def test_a_python3_map_object_is_one_gradient(returned, target, reported):
    from cglint import check, engine

    code = MAPPED.replace("RETURNED", returned)
    result = check.check_alone("snippet.py", code, engine.Options(select=("CG103",),
                                                                  target_python=target))
    assert len(result.diagnostics) == reported
    if reported and target[0] == 3:
        assert "`map` object" in result.diagnostics[0].message


FILLED = """
import tensorflow as tf


@tf.custom_gradient
def heads(x):
    out = DISPLAY
    BODY
    def grad(dy):
        return dy
    return out, grad
"""


@pytest.mark.parametrize("display, body, reported", [
    ("{}", "out['a'] = x\n    out['b'] = x * 2.0", True),
    ("{'a': x}", "out['b'] = x * 2.0", True),
    ("{}", "out['a'] = x\n    out['a'] = x * 2.0", False),  # one key: one output
    ("{}", "out['a'] = (x, x)", True),  # its value is two tensors
    # unknown: a key that is no literal, another use, a key set in a loop
    ("{}", "out[name] = x\n    out['b'] = x", False),
    ("{}", "out['a'] = x\n    out['b'] = x\n    helper(out)", False),
    ("{}", "for k in ('a', 'b'):\n        out[k] = x", False),
    ("dict()", "out['a'] = x\n    out['b'] = x", False),
])
def test_dicts_filled_key_by_key(display, body, reported):
    code = FILLED.replace("DISPLAY", display).replace("BODY", body)
    assert len([f for f in lint(code) if f[0] == "CG104"]) == reported


@pytest.mark.parametrize("body", [
    "out.update(a=x, b=x)", "out.setdefault('a', x)\n    out.setdefault('b', x)",
    "out.update({'a': x})\n    out.update({'b': x})",
])
def test_a_dict_changed_by_its_methods_is_not_counted(body):
    code = FILLED.replace("DISPLAY", "{}").replace("BODY", body).replace(
        "def grad(dy)", "def grad(da, db)")
    assert [f for f in lint(code) if f[0] == "CG104"] == []
