"""The public name of a TF 1.8 function or class written through TensorFlow's own modules.

`vs.get_variable` after `from tensorflow.python.ops import variable_scope as vs` is
`tf.get_variable`; `core.dense` from `tensorflow.python.layers` is `tf.layers.dense`. The
rules know public names: cglint.names reads such a path as the public name of the same
object, from ``cglint/data/tf18_public_names.json`` (tools/gen_tf18_public_names.py;
core public names only).
"""
import functools
import json
import os

_PATH = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data",
                     "tf18_public_names.json")
_INTERNAL = "tensorflow.python."
_MODULES = None


def _modules():
    global _MODULES
    if _MODULES is None:
        with open(_PATH, encoding="utf-8") as handle:
            _MODULES = json.load(handle)["modules"]
    return _MODULES


@functools.lru_cache(maxsize=8192)  # TF's own sources ask the same paths in every file
def public_name(qualname):
    """`qualname` with its internal module path of a TF 1.8 function or class replaced by
    that object's public name (`tensorflow.python.ops.variables.Variable.assign` ->
    `tensorflow.Variable.assign`); `qualname` itself otherwise."""
    if not qualname.startswith(_INTERNAL):
        return qualname
    modules = _modules()
    parts = qualname.split(".")
    for end in range(len(parts) - 1, 2, -1):
        public = modules.get(".".join(parts[:end]), {}).get(parts[end])
        if public is not None:
            return ".".join(["tensorflow." + public] + parts[end + 1:])
    return qualname
