import ast
import textwrap

import pytest

from cglint.names import Names


def resolve_last(code):
    """Qualified name of the last expression statement in `code`."""
    tree = ast.parse(textwrap.dedent(code))
    names = Names(tree)
    expr = [n for n in ast.walk(tree) if isinstance(n, ast.Expr)][-1].value
    return names.resolve(expr, names.scope_of(expr))


@pytest.mark.parametrize("code, expected", [
    ("import tensorflow as tf\ntf.custom_gradient", "tensorflow.custom_gradient"),
    ("import tensorflow as T\nT.nn.relu", "tensorflow.nn.relu"),
    ("import tensorflow\ntensorflow.custom_gradient", "tensorflow.custom_gradient"),
    ("from tensorflow import custom_gradient as cg\ncg", "tensorflow.custom_gradient"),
    ("import tensorflow as tf\ntfe = tf.contrib.eager\ntfe.custom_gradient",
     "tensorflow.contrib.eager.custom_gradient"),
    ("import tensorflow.contrib.eager as tfe\ntfe.custom_gradient",
     "tensorflow.contrib.eager.custom_gradient"),
    ("from tensorflow.contrib import eager as tfe\ntfe.Variable",
     "tensorflow.contrib.eager.Variable"),
    ("import tensorflow.contrib.eager\ntensorflow.contrib.eager.custom_gradient",
     "tensorflow.contrib.eager.custom_gradient"),
    ("try:\n    import tensorflow as tf\nexcept ImportError:\n    tf = None\ntf.print",
     "tensorflow.print"),
    ("import tensorflow as tf\ndef f():\n    tf.nn.relu", "tensorflow.nn.relu"),
    ("import tensorflow as tf\nclass A:\n    def m(self):\n        tf.sign", "tensorflow.sign"),
])
def test_resolves_through_bindings(code, expected):
    assert resolve_last(code) == expected


@pytest.mark.parametrize("code", [
    "def custom_gradient(f):\n    return f\ncustom_gradient",
    "import tensorflow as tf\ndef f(tf):\n    tf.custom_gradient",
    "import tensorflow as tf\ntf = make()\ntf.custom_gradient",
    "from . import tensorflow\ntensorflow.custom_gradient",
    "tf.custom_gradient",
    "import tensorflow as tf\ndef f():\n    tf = other\n    tf.custom_gradient",
])
def test_unknown_or_shadowed_names_resolve_to_nothing(code):
    assert resolve_last(code) is None


def test_another_module_named_tf_is_not_tensorflow():
    assert resolve_last("import numpy as tf\ntf.custom_gradient") == "numpy.custom_gradient"


def test_function_bodies_see_names_bound_later_in_the_module():
    code = "def f():\n    tf.nn.relu\nimport tensorflow as tf\n"
    tree = ast.parse(code)
    names = Names(tree)
    attr = tree.body[0].body[0].value
    assert names.resolve(attr, names.scope_of(attr)) == "tensorflow.nn.relu"


def test_class_scope_is_not_visible_to_methods():
    code = "class A:\n    import tensorflow as tf\n    def m(self):\n        tf.sign\n"
    assert resolve_last(code) is None


def test_deep_nesting_does_not_recurse():
    depth = 1200
    code = "import tensorflow as tf\nx = " + "(" * 90 + "tf.sign" + ")" * 90 + "\n"
    code += "y = " + " + ".join(["tf.nn.relu"] * depth) + "\n"
    tree = ast.parse(code)
    Names(tree)  # must not raise RecursionError


EVERY_KIND_OF_NODE = '''
import a.b as c
from d import e as f, g
@dec(x=1)
class K(Base, metaclass=M):
    attr: int = 3
    def m(self, p, q=1, *args, r, s=2, **kw) -> R:
        global G
        del p[0], q.x
        for i, *j in zip(a, b):
            with open(i) as h, lock:
                try:
                    yield from (k async for k in j if k)
                except (E, F) as err:
                    raise X from err
                else:
                    assert not -i < 2 <= j, "m"
                finally:
                    x += y @ z
        return lambda u, v=1: {u: v for u in w}, [*a], {**b}, f"{x!r:>{w}}", a[1:2, ...]
async def co():
    await (n := f(*a, **k))
    nonlocal_ = [x for x in range(3)]
'''


def test_the_walk_indexes_every_node_except_leaves_and_signatures():
    # The binder's walk skips fields of leaf types (Load/Store contexts, operators) and the
    # argument lists of defs and lambdas; every other node is in the index that CG302 and
    # the facts read instead of walking the tree themselves.
    tree = ast.parse(EVERY_KIND_OF_NODE)
    indexed = {id(node) for nodes in Names(tree).index.values() for node in nodes}
    skipped = (ast.expr_context, ast.operator, ast.unaryop, ast.cmpop, ast.boolop,
               ast.arguments, ast.arg, ast.Module)
    class_keywords = {id(k) for node in ast.walk(tree) if isinstance(node, ast.ClassDef)
                      for k in node.keywords}
    missing = [type(node).__name__ for node in ast.walk(tree)
               if id(node) not in indexed and not isinstance(node, skipped)
               and id(node) not in class_keywords]
    assert missing == []
    assert not any(isinstance(node, skipped) for node in
                   (n for nodes in Names(tree).index.values() for n in nodes))


def test_a_nonlocal_rebinding_is_a_binding_of_the_enclosing_function():
    # `nonlocal k; k = ...` in a nested def (or a method of a nested class) rebinds the
    # enclosing function's `k`: its bindings list both values, and the inner scope's
    # binding is never what a lookup finds.
    tree = ast.parse(textwrap.dedent("""
    def outer(p):
        k = 3
        def inner():
            nonlocal k, p
            k = tf.constant(2.0)
            p = 1
        class C:
            def m(self):
                nonlocal k
                k = None
        unrelated = 1
        def other():
            unrelated = 2
        return k, p
    """))
    names = Names(tree)
    outer = names.scope_for_def[id(tree.body[0])]
    assert [b.kind for b in outer.bindings["k"]] == ["assign", "assign", "assign"]
    assert [b.kind for b in outer.bindings["p"]] == ["param", "assign"]
    assert [b.kind for b in outer.bindings["unrelated"]] == ["assign"]
    inner = names.scope_for_def[id(tree.body[0].body[1])]
    assert names.lookup("k", inner) is outer.bindings["k"]
