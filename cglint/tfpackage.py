"""Is a file part of TensorFlow itself? Told by the package layout on disk, not the text.

TensorFlow's own sources (an installed `site-packages/tensorflow`, or a source checkout)
define what TF 1.8 is: `ops.RegisterGradient("Pack")` in `python/ops/array_grad.py` is the
original registration, not a second one.
"""
import functools
import os

# Subpackages every TensorFlow tree has: a user package that happens to be called
# `tensorflow` has neither.
_TENSORFLOW_PARTS = ("python", "core")


def is_tensorflow_file(path):
    """True when `path` is a module inside the `tensorflow` package: each directory from
    the file up to a `tensorflow` directory is a package (has `__init__.py`), and that
    `tensorflow` directory is TensorFlow's (holds `python/` and `core/`)."""
    if not path:
        return False
    return _in_tensorflow(os.path.dirname(os.path.abspath(path)))


@functools.lru_cache(maxsize=4096)  # one answer per directory, asked once per file in it
def _in_tensorflow(directory):
    for _ in range(64):
        if os.path.basename(directory) == "tensorflow" and os.path.isfile(
                os.path.join(directory, "__init__.py")):
            return all(os.path.isdir(os.path.join(directory, part))
                       for part in _TENSORFLOW_PARTS)
        if not os.path.isfile(os.path.join(directory, "__init__.py")):
            return False
        parent = os.path.dirname(directory)
        if parent == directory:
            return False
        directory = parent
    return False
