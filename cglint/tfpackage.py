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
    """True when `path` is inside TensorFlow's own `tensorflow` package folder: one that
    has an `__init__.py`, `python/` and `core/`. The folders between need no `__init__.py`:
    a source checkout has none in `python/ops` or `python/eager` (Bazel builds the wheel's)."""
    return _package_folder(path) is not None


def module_name(path):
    """The dotted name of TensorFlow's own module file `path` (`tensorflow.python.ops.
    array_grad`; a package's `__init__.py` is the package), or None for any other file."""
    folder = _package_folder(path)
    if folder is None:
        return None
    inside = os.path.relpath(os.path.splitext(os.path.abspath(path))[0], folder)
    parts = ["tensorflow"] + [part for part in inside.split(os.sep) if part != "."]
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _package_folder(path):
    if not path or path == "-":
        return None
    return _tensorflow_folder(os.path.dirname(os.path.abspath(path)))


@functools.lru_cache(maxsize=4096)  # one answer per directory, asked once per file in it
def _tensorflow_folder(directory):
    for _ in range(64):
        if os.path.basename(directory) == "tensorflow" and os.path.isfile(
                os.path.join(directory, "__init__.py")) and all(
                os.path.isdir(os.path.join(directory, part)) for part in _TENSORFLOW_PARTS):
            return directory
        parent = os.path.dirname(directory)
        if parent == directory:
            return None
        directory = parent
    return None
