"""CG203: a helper that registers a fixed name, called in two branches of one `if` (or
of a conditional expression, or in two `except` handlers), runs once (probe z3c k05,
k06): TF 1.8 raises nothing. Two calls that may both run are still reported."""
import contextlib
import io
import os
import textwrap

import pytest

from cglint import check, engine
from cglint.cli import main as cglint_main

HELPER = """
import tensorflow as tf


def binarize(x):
    tf.RegisterGradient("BinarizeOnce")(lambda op, grad: grad)
    with tf.get_default_graph().gradient_override_map({"Sign": "BinarizeOnce"}):
        return tf.sign(x)
"""

CASES = [
    ("if flag:\n    y = binarize(x)\nelse:\n    y = binarize(-x)\n", False),
    ("if flag:\n    y = binarize(x)\nelif other:\n    y = binarize(-x)\n"
     "else:\n    y = binarize(x * 2)\n", False),
    ("y = binarize(x) if flag else binarize(-x)\n", False),
    ("try:\n    y = x\nexcept ValueError:\n    y = binarize(x)\n"
     "except KeyError:\n    y = binarize(-x)\n", False),
    ("if flag:\n    y = binarize(x)\nif other:\n    y = binarize(-x)\n", True),
    ("if flag:\n    y = binarize(x) + binarize(-x)\nelse:\n    y = x\n", True),
    ("if flag:\n    y = binarize(x)\nelse:\n    for _ in range(2):\n        y = binarize(x)\n",
     True),
]

CALLER = "flag = other = True\nx = tf.constant([0.5])\n"


@pytest.mark.parametrize("calls, reported", CASES)
def test_calls_in_one_module(calls, reported):
    code = textwrap.dedent(HELPER) + "\n\n" + CALLER + calls
    results = check.check_texts({"snippet.py": code}, engine.Options(select=("CG203",)))
    found = [d for result in results for d in result.diagnostics]
    assert bool(found) is reported, [d.message for d in found]


@pytest.mark.parametrize("calls, reported", CASES)
def test_calls_of_an_imported_helper(tmp_path, calls, reported):
    (tmp_path / "layers.py").write_text(textwrap.dedent(HELPER))
    (tmp_path / "main.py").write_text(
        "import tensorflow as tf\nfrom layers import binarize\n" + CALLER + calls)
    here = os.getcwd()
    os.chdir(str(tmp_path))
    try:
        for paths in (["."], ["main.py"]):
            out = io.StringIO()
            with contextlib.redirect_stdout(out):
                cglint_main(["--no-cache", "--isolated", "--select", "CG203", "-q"] + paths)
            assert (" CG203 " in out.getvalue()) is reported, (paths, out.getvalue())
    finally:
        os.chdir(here)
