"""What the generators that read a live TensorFlow 1.8 share: running themselves in its
interpreter, and the walk over TF's own module files there.

Imported by gen_tf18_private_names.py and gen_tf18_public_names.py on both sides: on the
host, and inside the TF 1.8 interpreter (Python 3.6), so it keeps Python 3.6 syntax.
"""
from __future__ import print_function

import argparse
import json
import os
import subprocess
import sys

DEFAULT_PYTHON = os.path.expanduser("~/.cache/cglint/py36/bin/python")


def arguments(description):
    """The command line every such generator takes: `--tf18-python`, and its own
    `--probe` mode."""
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("--tf18-python", default=DEFAULT_PYTHON,
                        help="a Python with TensorFlow 1.8 (default: %(default)s)")
    parser.add_argument("--probe", action="store_true", help=argparse.SUPPRESS)
    return parser.parse_args()


def probed(doc, script, tool, probe):
    """The generator's command line done: in `--probe` mode (inside TF 1.8) run `probe()`
    and give None; else the JSON it prints there, from the `--tf18-python` given."""
    options = arguments(doc.split("\n\n")[0])
    if options.probe:
        probe()
        return None
    return run_probe(options.tf18_python, script, tool)


def run_probe(python, script, tool):
    """The JSON the generator `script` prints in `--probe` mode inside `python`, which
    must have TensorFlow 1.8.0 (else exit with why)."""
    version = subprocess.check_output(
        [python, "-c", "import tensorflow; print(tensorflow.__version__)"],
        stderr=subprocess.DEVNULL).decode().strip()
    if version != "1.8.0":
        sys.exit("%s: %s has TensorFlow %s, not 1.8.0" % (tool, python, version))
    output = subprocess.check_output([python, os.path.abspath(script), "--probe"],
                                     stderr=subprocess.DEVNULL)
    return json.loads(output.decode("utf-8"))


def own_modules(root, wanted):
    """(dotted path, module) of each module file of the TensorFlow installed at `root`
    that `wanted(relative folder, file name)` keeps (tests never), imported; those whose
    import fails (a contrib kernel the CPU build lacks, a missing package) are left out."""
    import importlib

    for folder, subfolders, names in os.walk(root):
        subfolders.sort()
        relative_folder = os.path.relpath(folder, root)
        for name in sorted(names):
            if not name.endswith(".py") or name.endswith("_test.py") or not wanted(
                    relative_folder, name):
                continue
            relative = os.path.relpath(os.path.join(folder, name[:-3]), root)
            dotted = "tensorflow." + relative.replace(os.sep, ".")
            if dotted.endswith(".__init__"):
                dotted = dotted[:-len(".__init__")]
            try:
                module = importlib.import_module(dotted)
            except BaseException:
                continue
            yield dotted, module


def write(path, document):
    """Write a generated data file: sorted keys, compact, one trailing newline."""
    with open(path, "w") as handle:
        json.dump(document, handle, sort_keys=True, separators=(",", ":"))
        handle.write("\n")
