"""CG302: `exec`, and `print` while it is a statement, used as a name on a 2.7 target.
Python 2.7 reads its statement there and refuses the file (`SyntaxError: invalid syntax`,
compiled on 2.7: /tmp/probe_z3d/syn/s47, s48, s93-s96); Python 3 takes them."""
import pytest

from conftest import lint

PRINT = "`print` used as a name"
EXEC = "`exec` used as a name"


def messages(code, target_python=(2, 7)):
    from cglint import check, engine
    import textwrap

    result = check.check_alone("snippet.py", textwrap.dedent(code), engine.Options(
        select=("CG302",), target_python=target_python))
    assert not result.error, result.error
    return [(d.line, d.col, d.message) for d in result.diagnostics]


@pytest.mark.parametrize("code,line,col,construct", [
    ("class Log(object):\n    def print(self):\n        pass\n", 2, 9, PRINT),
    ("log = object()\nlog.print('x')\n", 2, 5, PRINT),
    ("import argparse\nargs = argparse.Namespace()\nargs.print = True\n", 3, 6, PRINT),
    ("def show(x, print=None):\n    return x\n", 1, 13, PRINT),
    ("def run(**kw):\n    return kw\nrun(print=1)\n", 3, 5, PRINT),
    ("class R(object):\n    pass\nr = R()\nr.exec = 1\n", 4, 3, EXEC),
    ("def run(**kw):\n    return kw\nrun(exec=1)\n", 3, 5, EXEC),
    ("def exec(x):\n    return x\n", 1, 5, EXEC),
    ("run = exec\n", 1, 7, EXEC),
    ("from os import path as exec\n", 1, 1, EXEC),
])
def test_reported_with_the_word_and_the_cause(code, line, col, construct):
    (found,) = messages(code)
    assert found[:2] == (line, col)
    assert found[2].startswith(construct + " needs Python 3.0+ (target is 2.7)")
    assert "SyntaxError" in found[2]


@pytest.mark.parametrize("code", [
    # calls of the statements themselves, as Python 2 takes them
    "exec('x = 1')\nprint('x')\n",
    "namespace = {}\nexec('x = 1', namespace)\n",
    # names that only hold the words
    "import pprint\npprint.pprint(1)\nprint_fn = None\nexecutor = None\n",
    "import subprocess\nsubprocess.Popen.execute = None\n",
    # the print function imported: `print` is a name on 2.7 too
    "from __future__ import print_function\nclass Log(object):\n"
    "    def print(self):\n        pass\nLog().print()\n",
])
def test_clean(code):
    assert messages(code) == []


@pytest.mark.parametrize("code", [
    "class Log(object):\n    def print(self):\n        pass\n",
    "r = object()\nr.exec = 1\n",
])
def test_python3_targets_take_them(code):
    assert messages(code, target_python=(3, 6)) == []


def test_exec_stays_a_statement_with_the_print_function():
    code = "from __future__ import print_function\ndef run(exec=False):\n    return exec\n"
    found = messages(code)
    assert [(line, col) for line, col, _ in found] == [(2, 9), (3, 12)]


def test_tf_print_is_left_to_cg401():
    code = "import tensorflow as tf\ntf.print(tf.constant(1.0))\n"
    assert lint(code, select=["CG302", "CG401"]) == [("CG401", 2, 1)]


def test_one_finding_per_line_and_the_fix_adds_the_print_function():
    from cglint import check, engine

    code = "class Log(object):\n    def print(self, x):\n        return x\n" \
           "Log().print(Log().print(1))\n"
    result = check.check_alone("snippet.py", code, engine.Options(select=("CG302",)))
    assert [(d.line, d.col) for d in result.diagnostics] == [(2, 9), (4, 7)]
    fixed = [d for d in result.diagnostics if d.fix]
    assert len(fixed) == 2
    assert all("from __future__ import print_function" in edit.text
               for d in fixed for edit in d.fix)


def test_a_bound_print_name_stays_one_finding_of_the_older_kind():
    found = messages("print = None\n")
    assert [message.split(" needs")[0] for _, _, message in found] == ["`print` used as a value"]


def test_the_text_test_before_the_walk_takes_whole_words_only():
    """`.execute(` and `.executing_eagerly()` (hundreds of TensorFlow's own files) are no
    `exec` used as a name: the walk over the tree is not made for them."""
    from cglint.newsyntax import _may_name

    assert not _may_name("session.execute(op)\nif tf.executing_eagerly(): pass\n", "exec")
    assert not _may_name("import exec_utils\nrun(exec_mode=1)\nx = myexec\n", "exec")
    for named in ("r.exec = 1", "def exec(self):", "run(exec=1)", "exec = 2",
                  "y = exec", "import x as exec", "f(a, exec)", "class print:"):
        word = "print" if "print" in named else "exec"
        assert _may_name(named + "\n", word), named
