"""CG103 for gradients returned as a dict out of TF 1.8's order (probe z3a U1):
`nest.flatten` takes a dict's values in sorted key order, so `{"x": dx, "w": dw}` for
inputs (x, w) gives dx to w, silently (fixtures/CG103/bad_dict_gradients_*.py; the
good_dict_gradients_* fixtures run correctly under TF 1.8)."""
import pytest

from conftest import lint

CODE = """
import tensorflow as tf


@tf.custom_gradient
def f(x, w):
    def grad(dy):
        BODY
    return x * w, grad
"""


def _cg103(body, target_python=(2, 7)):
    code = CODE.replace("BODY", body.replace("\n", "\n        "))
    return [finding for finding in lint(code, target_python=target_python)
            if finding[0] == "CG103"]


@pytest.mark.parametrize("body", [
    'return {"x": dy * w, "w": dy * x}',
    'return {"w": dy * x, "x": dy * w}',  # sorted (w, x) is not the inputs' (x, w)
    'grads = {"x": dy * w, "w": dy * x}\nreturn grads',
    'return dict(x=dy * w, w=dy * x)',
    'g = dict(x=dy * w, w=dy * x)\nreturn g',
    'return {"value": dy * w, "offset": dy * x}',  # other keys, not written sorted
])
def test_dict_out_of_order_reported(body):
    assert len(_cg103(body)) == 1
    assert len(_cg103(body, target_python=(3, 6))) == 1


@pytest.mark.parametrize("body", [
    'return {"a": dy * w, "b": dy * x}',  # other keys, written sorted
    'return dy * w, dy * x',
    'return [dy * w, dy * x]',
    'grads = {"x": dy * w}\ngrads["w"] = dy * x\nreturn grads',  # changed in place: unknown
    'return {X_KEY: dy * w, "w": dy * x}',  # a key that is no literal
])
def test_dict_near_misses_clean(body):
    assert _cg103(body) == []


def test_keys_naming_inputs_sorted_as_inputs_clean():
    code = """
    import tensorflow as tf


    @tf.custom_gradient
    def f(a, b):
        def grad(dy):
            return {"b": dy * a, "a": dy * b}
        return a * b, grad
    """
    assert [f for f in lint(code) if f[0] == "CG103"] == []


def test_message_names_the_input():
    code = CODE.replace("BODY", 'return {"x": dy * w, "w": dy * x}')
    from cglint import check, engine
    import textwrap
    result = check.check_alone("snippet.py", textwrap.dedent(code), engine.Options())
    (finding,) = [d for d in result.diagnostics if d.code == "CG103"]
    assert 'sorted key order ("w", "x")' in finding.message
    assert 'under "w" goes to input `x`' in finding.message
