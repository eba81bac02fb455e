"""TensorFlow 1.8's op registry, as data: op types and their inputs, which names already
have a gradient, and which op types common `tf.*` functions build.

The data is cglint/data/tf18_ops.json, generated inside a real TF 1.8 interpreter by
tools/gen_tf_ops.py; nothing here is typed in by hand.
"""
import difflib
import json
import os
import re
from functools import lru_cache

DATA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data", "tf18_ops.json")
_TF = "tensorflow."


class OpRegistry:
    def __init__(self, data):
        # [fixed inputs, variadic inputs, fixed outputs, variadic outputs] per op type
        self._inputs = {name: tuple(counts[:2]) for name, counts in data["ops"].items()}
        self._outputs = {name: tuple(counts[2:4]) for name, counts in data["ops"].items()}
        self._lowered = {}
        for name in sorted(self._inputs):
            self._lowered.setdefault(name.lower(), name)
        # Registering one of these names again raises KeyError as soon as TF is imported.
        self.gradients = frozenset(data["gradients"])
        self.not_differentiable = frozenset(data["not_differentiable"])
        # Names TF itself registers, contrib included: a valid override-map value.
        self.registered = (self.gradients | self.not_differentiable
                           | frozenset(data["contrib_gradients"])
                           | frozenset(data["contrib_not_differentiable"]))
        self._functions = {name: tuple(types) for name, types in data["functions"].items()}
        self._other_arguments = {name: tuple(types)
                                 for name, types in data["functions_other_arguments"].items()}
        self._operators = {name: tuple(types) for name, types in data["operators"].items()}
        self.function_ops = frozenset(data["function_ops"])
        self._similar = {}  # name -> similar_op(name)
        # the function each name reads as, from its op type spelling
        self._by_spelling = {}
        for function in sorted(self._functions, reverse=True):  # (the first name wins)
            self._by_spelling[function.rsplit(".", 1)[-1].replace("_", "")] = function

    def is_op(self, op_type):
        return op_type in self._inputs

    def inputs(self, op_type):
        """(fixed, variadic) input args of an op type, or None for an unknown type."""
        return self._inputs.get(op_type)

    def fixed_inputs(self, op_type):
        """How many inputs every op of this type has; None when variadic or unknown."""
        counts = self._inputs.get(op_type)
        if counts is None or counts[1]:
            return None
        return counts[0]

    def fixed_outputs(self, op_type):
        """How many outputs every op of this type has (so how many upstream gradients its
        gradient function gets); None when variadic or unknown."""
        counts = self._outputs.get(op_type)
        if not counts or counts[1]:
            return None
        return counts[0]

    def built_by(self, qualname):
        """Op types one call of `tensorflow.X` builds, or None when not recorded."""
        if not qualname or not qualname.startswith(_TF):
            return None
        return self._functions.get(qualname[len(_TF):])

    def built_by_with_other_arguments(self, qualname):
        """Op types a call of `tensorflow.X` builds instead, given other arguments."""
        if not qualname or not qualname.startswith(_TF):
            return ()
        return self._other_arguments.get(qualname[len(_TF):], ())

    def built_by_operator(self, operator):
        """Op types a Python operator (ast class name: `Mult`, `Lt`) may build on tensors."""
        return self._operators.get(operator, ())

    def similar_op(self, name):
        """The op type `name` most likely means (case-insensitive), or None. Worked out
        once per name: a map held in a module constant is reported at each of its uses."""
        if name not in self._similar:
            if len(self._similar) >= _MAX_REMEMBERED:  # (a long-lived server stays flat)
                self._similar.clear()
            self._similar[name] = self._similar_op(name)
        return self._similar[name]

    def _similar_op(self, name):
        lowered = name.lower()
        if lowered in self._lowered:
            return self._lowered[lowered]
        # A Keras layer's name for a pooling op (`MaxPool2D`, `AveragePooling2D`): the op
        # type has no dimension in it (`MaxPool`, `AvgPool`).
        plain = re.sub(r"[123]d$", "", lowered).replace("average", "avg").replace(
            "pooling", "pool")
        if plain != lowered and plain in self._lowered:
            return self._lowered[plain]
        close = difflib.get_close_matches(lowered, list(self._lowered), n=1, cutoff=0.75)
        return self._lowered[close[0]] if close else None

    def function_named(self, op_type):
        """`nn.leaky_relu` for `LeakyRelu`: the function whose name reads as the op type."""
        return self._by_spelling.get(op_type.lower())


# How many names similar_op keeps its answer for.
_MAX_REMEMBERED = 4096


@lru_cache(maxsize=1)
def load():
    with open(DATA, encoding="utf-8") as handle:
        return OpRegistry(json.load(handle))
