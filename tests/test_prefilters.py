"""Text prefilters skip work on files that lack a word. They are exact only while every
name they stand for ends in that word: these tests keep the two in step."""
import ast

from cglint import facts, overrides
from cglint.facts import ModuleFacts
from cglint.parse import Parsed


def test_every_looked_for_name_ends_in_its_prefilter_word():
    assert all(name.endswith(".custom_gradient") for name in facts.CUSTOM_GRADIENT)
    assert all(name.endswith(".enable_eager_execution") for name in facts.EAGER_SWITCHES)
    assert all(name.endswith(".GradientTape") for name in facts.GRADIENT_TAPES)
    for name in overrides.REGISTER_GRADIENT | overrides.NOT_DIFFERENTIABLE:
        assert any(name.endswith("." + marker) for marker in overrides._MARKERS)


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
