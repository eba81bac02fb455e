"""Text prefilters skip work on files that lack a word. They are exact only while every
name they stand for ends in that word: these tests keep the two in step."""
import ast

from cglint import facts, overrides
from cglint.facts import ModuleFacts
from cglint.parse import Parsed


def test_every_looked_for_name_ends_in_its_prefilter_word():
    assert all(name.endswith(".custom_gradient") for name in facts.CUSTOM_GRADIENT)
    # (TF's eager test harness: any import of it names both `eager` and `test`)
    assert all(name.endswith(".enable_eager_execution") or name.startswith(
        "tensorflow.python.eager.test.") for name in facts.EAGER_SWITCHES)
    assert facts.may_switch_eager("from tensorflow.python.eager import (context,\n test)")
    assert not facts.may_switch_eager("import tensorflow as tf\ntf.nn.relu(1.0)\n")
    assert all(name.endswith(".GradientTape") for name in facts.GRADIENT_TAPES)
    for name in overrides.REGISTER_GRADIENT | overrides.NOT_DIFFERENTIABLE:
        assert any(name.endswith("." + marker) for marker in overrides._MARKERS)


def test_internal_spellings_of_looked_for_names_carry_the_word_too():
    # cglint.tfpublic reads `backprop.GradientTape` as tf.GradientTape: an internal path
    # that becomes a looked-for name must end in a word its prefilter looks for.
    from cglint import tfpublic

    words = {"custom_gradient", "enable_eager_execution", "GradientTape"} | set(
        overrides._MARKERS)
    looked_for = (facts.CUSTOM_GRADIENT | facts.EAGER_SWITCHES | facts.GRADIENT_TAPES
                  | overrides.REGISTER_GRADIENT | overrides.NOT_DIFFERENTIABLE)
    for module, attributes in tfpublic._modules().items():
        for attribute, public in attributes.items():
            if "tensorflow." + public in looked_for:
                assert attribute in words, (module, attribute, public)


def module(code):
    return ModuleFacts("m.py", code, Parsed(ast.parse(code), text=code))


def test_aliases_still_carry_the_word_and_are_found():
    aliased = module("from tensorflow import enable_eager_execution as go\ngo()\n"
                     "from tensorflow import GradientTape as T\nT()\n"
                     "from tensorflow import custom_gradient as cg\n"
                     "@cg\ndef f(x):\n    return x, lambda dy: dy\n")
    assert aliased.eager
    assert len(aliased.tape_calls) == 1
    assert [site.name for site in aliased.sites] == ["f"]


def test_without_the_words_nothing_is_resolved():
    plain = module("import tensorflow as tf\nx = tf.nn.relu(1.0)\n")
    assert not plain.eager and plain.tape_calls == [] and plain.sites == []
    assert "calls" not in vars(plain)  # the prefilters answered without resolving calls


# Imports that bind a name only to TensorFlow's private modules, and near misses that
# bind public TensorFlow (so the binder must run).
PRIVATE_ONLY = [
    "from tensorflow.python.ops import array_ops\nx = array_ops.nothing_here(1)\n",
    "import tensorflow.python.ops.math_ops as mo\ny = mo.reduce_sum(1, keepdims=True)\n",
    "from tensorflow.core.framework import graph_pb2\ng = graph_pb2.GraphDef()\n",
    "from tensorflow.python import debug as tf_debug\nh = tf_debug.LocalCLIDebugHook()\n",
    "from tensorflow.contrib.learn.python.learn import estimators\nestimators.Estimator\n",
    "import numpy as np  # tensorflow/core/framework is mentioned, not imported\nnp.x\n",
    "s = 'import tensorflow as tf'\nt = tensorflow_hub.Module\n",
    "from tensorflow import python\npython.ops.x\n",  # `tensorflow.python`: private
]
PUBLIC = [
    "import tensorflow as tf\n",
    "import tensorflow\n",
    "import tensorflow.python.ops\n",  # binds `tensorflow` itself
    "from tensorflow import nn as tfnn\n",
    "from tensorflow.contrib import layers\n",
    "import os, tensorflow.contrib.eager as tfe\n",
    "def f():\n    from tensorflow import nn\n",
]


def test_private_only_imports_resolve_to_private_names_only(tmp_path):
    from cglint import tfapi
    from cglint.facts import is_private

    # In TensorFlow's own tree (outside it, what code reads off TF's modules is judged:
    # test_internal_imports_outside_tensorflow_are_judged).
    package = tmp_path / "tensorflow"
    for folder in (package / "python" / "ops", package / "core"):
        folder.mkdir(parents=True)
    (package / "__init__.py").write_text("")
    inside = str(package / "python" / "ops" / "m.py")
    for code in PRIVATE_ONLY:
        private = ModuleFacts(inside, code, Parsed(ast.parse(code), text=code))
        assert not private.public_tensorflow, code
        assert private.api_uses == [] and not private.has_full_index
        # What the binder would have resolved there is private, every chain of it, or
        # the public name of a TF 1.8 object (cglint.tfpublic: `mo.reduce_sum` is
        # tf.reduce_sum), which 1.8 has by construction: no CG401/CG402 finding is lost.
        names = private.names
        for node in ast.walk(private.tree):
            if isinstance(node, ast.Attribute):
                qualname = names.resolve(node, names.scope_of(node))
                assert qualname is None or not qualname.startswith("tensorflow.") or \
                    is_private(qualname) or tfapi.exists(qualname), (code, qualname)
    for code in PUBLIC:
        assert module(code).public_tensorflow, code


def test_internal_imports_outside_tensorflow_are_judged():
    # `array_ops.multiply` in a user's file: 1.8's array_ops has no multiply (measured).
    code = "from tensorflow.python.ops import array_ops\ny = array_ops.multiply(1, 2)\n"
    outside = module(code)
    assert outside.public_tensorflow
    assert [use.qualname for use in outside.api_uses] == [
        "tensorflow.python.ops.array_ops.multiply"]
    assert not module("from tensorflow_hub import x\n").public_tensorflow


def test_no_table_knows_a_private_name():
    # api_uses and method_uses answer [] for private-only files: exact only while no
    # name CG401, CG402 or CG403 can report is private.
    from cglint import tfapi
    from cglint.facts import PRIVATE_PACKAGES, TF_PRINTS, is_private

    specs = tfapi._table().load_specs()["tree"]
    tops = {"tensorflow.%s." % top for top in specs}
    assert not tops & set(PRIVATE_PACKAGES)
    assert not any(is_private(top + "x") for top in tops)
    assert not any(is_private(name) for name in TF_PRINTS)
    for private in ("tensorflow.python.ops.math_ops.reduce_sum",
                    "tensorflow.core.framework.graph_pb2.GraphDef"):
        assert tfapi.accepts_keyword(private, "bogus") is None
