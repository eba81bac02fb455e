"""CG403: keywords bound to a TensorFlow function by `functools.partial`, which 1.8's
function lacks. Measured on TF 1.8 (py27, py36): the partial is made without complaint and
every call of it raises `TypeError: ... got an unexpected keyword argument`
(fixtures/CG403/bad_partial_keyword.py, /tmp/probe_z3d/b/b42)."""
import pytest

from conftest import lint


@pytest.mark.parametrize("code,col", [
    ("import functools\nimport tensorflow as tf\n"
     "drop = functools.partial(tf.nn.dropout, rate=0.1)\n", 41),
    ("from functools import partial\nimport tensorflow as tf\n"
     "conv = partial(tf.layers.conv2d, padding='same', groups=2)\n", 50),
    ("from functools import partial\nimport tensorflow as tf1\n"
     "m = partial(tf1.nn.moments, keepdims=True)\n", 29),
    ("import functools as ft\nfrom tensorflow.python.ops.nn_ops import dropout\n"
     "drop = ft.partial(dropout, rate=0.1)\n", 28),
])
def test_unknown_keyword_of_the_bound_function(code, col):
    assert lint(code, select=["CG403"]) == [("CG403", 3, col)]


def test_renamed_keyword_gets_the_18_spelling_as_a_fix():
    from cglint import check, engine

    code = "import functools\nimport tensorflow as tf\n" \
           "m = functools.partial(tf.nn.moments, axes=[0], keepdims=True)\n"
    result = check.check_alone("snippet.py", code, engine.Options(select=("CG403",)))
    (diagnostic,) = result.diagnostics
    assert "it spells it `keep_dims`" in diagnostic.message
    assert [edit.text for edit in diagnostic.fix] == ["keep_dims"]


@pytest.mark.parametrize("code", [
    # 1.8's keywords
    "import functools\nimport tensorflow as tf\n"
    "drop = functools.partial(tf.nn.dropout, keep_prob=0.9)\n",
    # required arguments are left to the partial's call
    "import functools\nimport tensorflow as tf\n"
    "pool = functools.partial(tf.nn.max_pool, padding='SAME')\n",
    # the program's own function, and a name no import binds
    "import functools\ndef scaled(x, rate=1.0):\n    return x * rate\n"
    "half = functools.partial(scaled, rate=0.5)\n",
    # another `partial`
    "import tensorflow as tf\ndef partial(f, **kw):\n    return f\n"
    "drop = partial(tf.nn.dropout, rate=0.1)\n",
    # a guard that catches the TypeError
    "import functools\nimport tensorflow as tf\ntry:\n"
    "    drop = functools.partial(tf.nn.dropout, rate=0.1)\n    drop(tf.ones([2]))\n"
    "except TypeError:\n    drop = functools.partial(tf.nn.dropout, keep_prob=0.9)\n",
])
def test_clean(code):
    assert lint(code, select=["CG403"]) == []


def test_files_without_tensorflow_index_nothing_for_it():
    # (speed: a file that only says `partial` gets no index of its expressions)
    from cglint.facts import ModuleFacts
    from cglint.parse import parse
    from cglint.rules.cg403_unknown_keyword import UnknownKeyword

    code = "import functools\nf = functools.partial(print, sep='')\n"
    module = ModuleFacts("m.py", code, parse(code), (2, 7))
    assert list(UnknownKeyword().check(module)) == []
    assert not module.has_full_index
