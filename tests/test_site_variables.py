"""cglint.site_variables: what it works out once, however many reads ask."""
from cglint import site_variables
from conftest import lint

_SITE = """
@tf.custom_gradient
def fN(x):
    y = x * weights['h1'] + x * weights['h1']
    def grad(dy):
        return dy
    return y, grad
"""


def test_what_the_module_puts_in_a_container_is_worked_out_once(monkeypatch):
    # Each element read asks what the module put in `weights`, and the answer walks
    # every name of the module: asked anew per read, 800 sites took 8 s.
    walks = []
    walk = site_variables._added_elements_now

    def counted(module, name, binding):
        walks.append(name)
        return walk(module, name, binding)

    monkeypatch.setattr(site_variables, "_added_elements_now", counted)
    code = "import tensorflow as tf\nweights = {'h1': tf.get_variable('h1', [2])}\n" + "".join(
        _SITE.replace("fN", "f%d" % i) for i in range(30))
    assert len(lint(code, select=["CG102"])) == 30
    assert walks == ["weights"]
