"""Parsing never gives up: Python 2 syntax, broken files, odd bytes."""
import ast

import pytest

from cglint import files
from cglint import parse as parse_module
from cglint.parse import parse


@pytest.mark.parametrize("code", [
    'print "hello"\n',
    "try:\n    pass\nexcept ValueError, e:\n    pass\n",
    "x = `1`\n",
    'exec "x = 1"\n',
    "x = 0777\n",
    "s = ur'abc'\n",
    "if 1 <> 2:\n    pass\n",
    "raise ValueError, 'bad'\n",
    "x = 10L\n",
    "def f():\n\tif x:\n\t\treturn 1\n        return 2\n",
    # Forms no fissix fixer cglint runs rewrites (openai/iaf, old sorting idioms):
    "print 'x'\nMASK = 0777L\n",
    "from __builtin__ import False\nprint 'a'\n",
    "True = 1\nprint True\n",
    "try:\n    True, False\nexcept NameError:\n    True, False = 1, 0\n",  # Python 2.2's shim
    "def area((w, h)):\n    print w * h\n",
    "x = sorted(d.items(), key=lambda (k, v): v)\nprint x\n",
    "def f(a, (b, (c, d))=(1, (2, 3)), *rest):\n    print b\n",
    # ... with no other Python 2 construct in the file (tensorflow/lingvo's download_lm1b)
    "f = sorted({1: 2}.items(), key=lambda (k, v): (-v, k))\n",
    "def f(a, (b, c)):\n    return a + b + c\n",
    # Hex, binary and `0o` longs alone (a 32-bit mask), and `async` as a name beside
    # Python 2 syntax (TF 1.8's own `async=` parameters, `os.chmod(path, 0644)`)
    "MASK = 0xFFFFFFFFL\n",
    "FLAGS = 0XFFl | 0o777L\n",
    "def save(path, async=False):\n    os.chmod(path, 0644)\n",
    "def f(x, async=1):\n    print x, async\n",
    "await = 1\nif await <> 2:\n    pass\n",
])
def test_python2_only_syntax_is_parsed(code):
    parsed = parse(code)
    assert parsed.tree is not None
    assert parsed.python2_syntax
    assert parsed.error is None


def test_python2_syntax_is_an_error_when_targeting_python3():
    parsed = parse('print "hello"\n', target_python=(3, 6))
    assert parsed.tree is not None
    line, col, message = parsed.error
    assert line == 1 and "Python 2 only syntax" in message and "3.6" in message


@pytest.mark.parametrize("code, line", [
    ("def f(:\n    pass\n", 1),
    ("x = 1\ny = (\n", 2),
    ("x = 1\n  y = 2\n", 2),
    ("a = 1\0 b\n", 1),
])
def test_syntax_errors_have_positions(code, line):
    parsed = parse(code)
    assert parsed.tree is None
    assert parsed.error[0] == line


def test_too_deep_nesting_is_an_error_not_a_crash():
    parsed = parse("x = " + "[" * 5000 + "]" * 5000 + "\n")
    assert parsed.tree is None and parsed.error


def test_empty_file_parses():
    assert parse("").tree is not None


@pytest.mark.parametrize("data, encoding", [
    (b"# -*- coding: latin-1 -*-\nx = '\xe9'\n", "iso-8859-1"),
    (b"\xef\xbb\xbfx = 1\n", "utf-8-sig"),
    (b"x = 1\r\ny = 2\r\n", "utf-8"),
])
def test_decoding_honours_coding_lines_boms_and_crlf(data, encoding):
    source = files.decode("a.py", data)
    assert isinstance(source, files.Source)
    assert source.encoding == encoding
    assert "\r" not in source.text and "\ufeff" not in source.text


def test_crlf_is_remembered():
    assert files.decode("a.py", b"x = 1\r\n").newline == "\r\n"


def test_undecodable_bytes_point_at_the_first_bad_byte():
    problem = files.decode("a.py", b"x = 1\ny = '\xff'\n")
    assert isinstance(problem, files.Unreadable)
    assert (problem.line, problem.col) == (2, 6)
    assert "0xff" in problem.message


def test_unknown_coding_line():
    problem = files.decode("a.py", b"# coding: klingon\nx = 1\n")
    assert isinstance(problem, files.Unreadable)


def test_huge_file_is_refused_without_reading_it_all(tmp_path, monkeypatch):
    monkeypatch.setattr(files, "MAX_BYTES", 100)
    path = tmp_path / "big.py"
    path.write_bytes(b"x = 1\n" * 100)
    problem = files.load(str(path))
    assert isinstance(problem, files.Unreadable) and "larger than" in problem.message


def test_async_and_await_as_names_parse_like_python_36_did():
    code = "def set_async(ctx, async):\n    ctx.async = async\n    f(async=True, await=1)\n"
    parsed = parse(code)
    assert parsed.tree is not None and parsed.error is None and not parsed.python2_syntax
    assert parsed.original_col(2, 4) == 4  # columns unchanged


def test_async_as_a_name_in_a_python2_file_keeps_its_columns():
    parsed = parse("def save(path, async=False):\n    os.chmod(path, 0644); x = async\n")
    assert parsed.python2_syntax and parsed.error is None
    assign = parsed.tree.body[0].body[-1]
    assert parsed.original_col(2, assign.value.col_offset) == 30


def test_real_async_functions_still_parse():
    assert parse("async def f():\n    await g()\n").tree is not None


# ------------------------------------------------- the Python 2 parser's budget

def parse_measured(text):
    """(tree?, python2?, error, seconds, peak RSS in MiB) of parse(text) in a fresh
    process, so that fissix's memory is measured, not the test runner's."""
    import json
    import os
    import subprocess
    import sys

    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    script = (
        "import json, re, sys, time\n"
        "from cglint.parse import parse\n"
        "text = sys.stdin.read()\n"
        "started = time.monotonic()\n"
        "parsed = parse(text)\n"
        # VmHWM, not ru_maxrss: Linux carries ru_maxrss over from the forked test runner.
        "peak = int(re.search(r'VmHWM:\\s+(\\d+)', open('/proc/self/status').read()).group(1))\n"
        "print(json.dumps([parsed.tree is not None, parsed.python2_syntax, parsed.error,\n"
        "                  time.monotonic() - started, peak / 1024]))\n")
    done = subprocess.run([sys.executable, "-c", script], input=text.encode(),
                          capture_output=True, timeout=300, env=dict(os.environ, PYTHONPATH=root))
    assert done.returncode == 0, done.stderr.decode()
    return json.loads(done.stdout)


@pytest.mark.parametrize("name, text, reason", [
    # The stdlib rejects it at once as too deep; it has no Python 2 construct either.
    ("1.2 MB of nested parentheses", "x = " + "(" * 600000 + "1" + ")" * 600000 + "\n",
     "too many nested parentheses"),
    ("2 MB of dense code and one print statement", "print 'hello'\n" + (
        "y = [a + b * c - d / e for a in range(10) if a and b or c]\n" * 34000),
     "not parsed as Python 2: more than 100000 tokens"),
    ("150,000 tokens and a print statement", "print 1\n" + "x = a + b\n" * 30000,
     "not parsed as Python 2: more than 100000 tokens"),
    ("a 3 MB Python 2 file", "print 1\n" + "#" * 3000000 + "\n",
     "not parsed as Python 2: larger than"),
    ("2,001 print statements", "print 1\n" * 2001,
     "not parsed as Python 2: more than 2000 Python 2 constructs"),
])
def test_the_python2_fallback_is_bounded(name, text, reason):
    """These cost fissix 40-90 s and up to 2.3 GB; now a CG001 saying why, at once (the
    time is mostly the stdlib's own parse; the limit is loose for loaded machines)."""
    tree, python2, error, seconds, rss_mib = parse_measured(text)
    print("%s: %.2f s, peak RSS %d MiB" % (name, seconds, rss_mib))
    assert tree is False and not python2 and reason in error[2], error
    assert seconds < 8 and rss_mib < 300, (seconds, rss_mib)


def test_brackets_too_deep_for_the_python2_parser(monkeypatch):
    from cglint import parse as parse_module

    monkeypatch.setattr(parse_module, "PY2_MAX_DEPTH", 20)
    parsed = parse("print 1\nx = " + "[" * 30 + "]" * 30 + "\n")
    assert parsed.tree is None and "brackets nested more than 20 deep" in parsed.error[2]
    parsed = parse("print 1\nx = " + "[" * 19 + "]" * 19 + "  # ((((((((((((((((((((\n")
    assert parsed.python2_syntax and parsed.error is None


def test_a_python2_file_of_ordinary_size_is_parsed_as_before():
    """Near the budget (1,800 constructs to rewrite): parsed as Python 2, in a few
    seconds."""
    text = "".join("def f%d(x):\n    print x, `x`\n    return x <> 0777\n" % n
                   for n in range(450))
    tree, python2, error, seconds, rss_mib = parse_measured(text)
    print("a 450-function Python 2 file: %.2f s, peak RSS %d MiB" % (seconds, rss_mib))
    assert tree and python2 and error is None


def test_a_syntax_error_without_python2_constructs_is_not_tried_as_python2(monkeypatch):
    from cglint import parse as parse_module

    def fail(text):
        raise AssertionError("fissix was tried")

    monkeypatch.setattr(parse_module, "_from_python2", fail)
    assert parse("def f(:\n    pass\n").error[0] == 1
    assert parse("x = (" * 300 + ")" * 300 + "\n").tree is None


def test_async_as_a_name_in_any_expression_parses_for_a_pre_37_target():
    # TF 1.8's own astor (external/astor_archive/astor/code_gen.py).
    code = ("def visit_For(self, node, async=False):\n"
            "    prefix = 'async ' if async else ''\n"
            "    return async and prefix or await is None\n")
    parsed = parse(code)
    assert parsed.tree is not None and parsed.error is None and not parsed.python2_syntax
    # Where the parser has no 3.6 mode (3.13 on), the names are renamed in place.
    renamed = parse_module._ASYNC_AS_NAME.sub(
        lambda match: parse_module._SAME_LENGTH[match.group(0)], code)
    assert "async" not in renamed.replace("'async '", "") and len(renamed) == len(code)
    assert ast.parse(renamed)


def test_a_mended_python2_line_keeps_its_columns():
    parsed = parse("x = sorted(d.items(), key=lambda (k, v): v)\nprint x\n")
    call = parsed.tree.body[0].value
    lambda_ = call.keywords[0].value
    # `v` after the colon: column 41 of the original line (0-based), whatever the rewrite.
    assert parsed.original_col(1, lambda_.body.col_offset) == 41


def test_a_python_2_file_that_goes_wrong_further_on_is_reported_there():
    # `print "starting"` is Python 2; the pasted `print(i, end=" ")` is what 2.7 refuses
    text = 'import os\nprint "starting"\nfor i in range(3):\n    print(i, end=" ")\n'
    parsed = parse(text)
    assert parsed.tree is None and parsed.error[:2] == (4, 17)
    assert "Python 2 too" in parsed.error[2]
    # near-miss: Python 3 code with a plain syntax error keeps Python 3's position
    broken = parse("x = (1,\ny = 2\n")
    assert broken.tree is None and "Python 2" not in broken.error[2]


@pytest.mark.parametrize("code, position", [
    ("import tensorflow as tf\nfrom __future__ import print_function\n", (2, 1)),
    ('"""doc."""\n"""not the docstring."""\nfrom __future__ import division\n', (3, 1)),
    ("from __future__ import division\nx = 1\nfrom __future__ import print_function\n", (3, 1)),
    ("import os\ndef f():\n    from __future__ import division\n", (3, 5)),
    ("if True:\n    from __future__ import division\n", (2, 5)),
    ("import os\nif True: from __future__ import division\n", (2, 10)),
    ('"a"\n"b"\nfrom __future__ import division\n', (3, 1)),  # one docstring only
    ('print "a"; from __future__ import division\n', (1, 12)),  # Python 2: its own column
])
def test_a_future_import_after_other_code_is_the_compilers_syntax_error(code, position):
    # ast.parse takes these; every Python's compiler refuses the file (measured on 2.7
    # and 3.6): `from __future__ imports must occur at the beginning of the file`.
    parsed = parse(code)
    assert parsed.tree is not None
    assert parsed.error[:2] == position and "beginning of the file" in parsed.error[2]


@pytest.mark.parametrize("code", [
    '"""doc."""\nfrom __future__ import (absolute_import,\n    division)\n'
    "from __future__ import print_function\nimport os\n",
    '"""Usage:\n\nfrom __future__ import braces\n"""\nfrom __future__ import division\n',
    "# a comment\n\nfrom __future__ import division\n",
    "from __future__ import division\nfrom . import __future__\n",  # not the future
])
def test_future_imports_at_the_beginning_are_fine(code):
    parsed = parse(code)
    assert parsed.tree is not None and parsed.error is None


@pytest.mark.parametrize("code, error", [
    ("from __future__ import google_type_annotations\n",
     (1, 1, "future feature google_type_annotations is not defined")),
    ('"""doc."""\nfrom __future__ import (division,\n    print_functions)\n',
     (2, 1, "future feature print_functions is not defined")),
    ("from __future__ import braces\n", (1, 1, "not a chance")),
    ("from __future__ import division\nx = 1\nfrom __future__ import absolute_imports\n",
     (3, 1, "invalid syntax: from __future__ imports must occur at the beginning of the file "
      "(only the module docstring may come before them)")),  # misplaced comes first
])
def test_a_future_feature_no_python_has_is_the_compilers_syntax_error(code, error):
    # Measured under 2.7 and 3.6: `SyntaxError: future feature google_type_annotations is
    # not defined` (a real file of tensorflow/model-optimization); ast.parse takes it.
    for target in ((2, 7), (3, 6)):
        parsed = parse(code, target_python=target)
        assert parsed.tree is not None and parsed.error == error


def test_future_features_of_newer_pythons_are_not_syntax_errors_here():
    # `annotations` on 3.6 is CG302's finding (newer syntax), not an unknown feature.
    code = "from __future__ import annotations, generator_stop, barry_as_FLUFL\n"
    assert parse(code, target_python=(3, 6)).error is None


@pytest.mark.parametrize("code", [
    'from __future__ import division\n"doc"\nfrom __future__ import print_function\n',
    'b"""doc"""\nfrom __future__ import division\n',
])
def test_python_27_takes_one_string_anywhere_among_the_future_imports(code):
    # Measured: 2.7 compiles both; 3.6 refuses both.
    assert parse(code, target_python=(2, 7)).error is None
    assert "beginning of the file" in parse(code, target_python=(3, 6)).error[2]


@pytest.mark.parametrize("code,value", [
    ('KEY = b"ste" "_grad"\n', "ste_grad"),
    ('KEY = b"ste" "bar"\n', "stebar"),  # a str beginning with b is no bytes literal
    ('KEY = "op_" \\\n    B"Relu"\n', "op_Relu"),
    ('KEY = "a" br"\\d" "c"\n', "a\\dc"),
])
def test_bytes_and_str_literals_in_one_string_are_python_2(code, value):
    """Python 2.7 reads `b"a" "b"` as one str (measured: 'ste_grad', u'op_Relu'); Python 3
    refuses to mix them. The file is Python 2, with the same columns."""
    parsed = parse(code)
    assert parsed.error is None and parsed.python2_syntax
    assert parsed.tree.body[0].value.value == value
    assert parsed.original_col(1, parsed.tree.body[0].value.col_offset) == 6
    assert parse(code, (3, 6)).error[2].endswith("cannot mix bytes and nonbytes literals")


def test_bytes_literals_alone_stay_bytes_in_a_python_2_file():
    parsed = parse('print "x"\nKEY = b"a" b"b"\n')
    assert parsed.python2_syntax and parsed.tree.body[1].value.value == b"ab"


def test_findings_of_a_file_with_mixed_literals_are_still_reported():
    from conftest import lint

    found = lint('''
        import tensorflow as tf
        GRAD_KEY = b"ste" "_grad"

        @tf.custom_gradient
        def ste(x):
            def grad(dy):
                return dy, dy
            return tf.round(x), grad
        ''')
    assert [(code, line) for code, line, _ in found] == [("CG103", 8)]


@pytest.mark.parametrize("literal,value", [
    ('b"größe"', "größe".encode("utf-8")),
    ('B"µ"', "µ".encode("utf-8")),
    ("b'\\x00ö\\n'", b"\x00" + "ö".encode("utf-8") + b"\n"),
    ('br"\\d°"', b"\\d\\xc2\\xb0"),  # raw: still bytes, the escapes read as text
    ('Rb"é"', b"\\xc3\\xa9"),  # `rb`: 3.3+, CG302's on 2.7
    ('b"""ä\nß"""', "ä\nß".encode("utf-8")),
])
def test_non_ascii_bytes_literals_are_python_2_strs(literal, value):
    """Under a coding line Python 2.7 reads `b"größe"` as the str of its UTF-8 bytes
    (measured: len 7); Python 3 refuses any bytes literal beyond ASCII. Read as Python 2,
    still bytes, with the source's columns after it."""
    code = "# -*- coding: utf-8 -*-\nKEY = %s; y = 1\n" % literal
    parsed = parse(code)
    assert parsed.error is None and parsed.python2_syntax
    key, y = parsed.tree.body
    assert key.value.value == value
    last = code.splitlines()[-1]
    assert parsed.original_col(y.lineno, y.col_offset) == last.index("y = 1")
    line, col, message = parse(code, (3, 6)).error
    assert (line, col) == (2, 7)
    assert message.endswith("bytes can only contain ASCII literal characters")


def test_non_ascii_bytes_beside_ascii_bytes_and_strs():
    parsed = parse('# coding: utf-8\nA = b"ä" b"b"\nB = b"ä" "c"\nC = u"x" b"ö"\n')
    assert parsed.error is None
    assert [statement.value.value for statement in parsed.tree.body] == [
        b"\xc3\xa4b", "äc", "xö"]


def test_findings_after_a_non_ascii_bytes_literal_keep_their_positions():
    from conftest import lint

    code = """\
        # -*- coding: utf-8 -*-
        import tensorflow as tf
        LABEL = b"größe"

        @tf.custom_gradient
        def ident(x):
            def grad(dy):
                tag = b"für"; return dy * 2.0, dy
            return tf.identity(x), grad
        """
    assert lint(code) == [("CG103", 8, 23)]
    assert sorted(lint(code, target_python=(3, 6))) == [("CG001", 3, 9), ("CG103", 8, 23)]


def test_non_ascii_bytes_without_a_coding_line_are_the_non_ascii_construct_on_2_7():
    """Python 2.7 refuses any non-ASCII source without a coding line (measured:
    `SyntaxError: Non-ASCII character '\\xc3'`): CG302's finding, not a syntax error."""
    from conftest import lint

    found = lint('import tensorflow as tf\nLABEL = b"größe"\nx = tf.math.log(1.0)\n')
    assert found == [("CG302", 2, 13), ("CG402", 3, 5)]


def test_a_non_ascii_rb_literal_is_the_rb_prefix_on_2_7():
    # Measured: 2.7 refuses `rb"..."` (SyntaxError), whatever its text; 3.6 refuses this one
    # for its text beyond ASCII.
    from conftest import lint

    code = '# -*- coding: utf-8 -*-\nimport re\nPATTERN = rb"°\\d+"\n'
    assert lint(code) == [("CG302", 3, 11)]
    assert lint(code, target_python=(3, 6)) == [("CG001", 3, 11)]


@pytest.mark.parametrize("tail", ["\0\0\0", "\0\0\n\0\n", "\n\0 \t\0"])
def test_nul_bytes_after_the_last_line_are_harmless_on_python_2(tail):
    """Python 2.7 runs and imports such a file; Python 3.6 runs it as a script, but its
    import raises ValueError (measured: csehong/VM-NET's train.py)."""
    text = 'x = 1\nprint("ok", x)\n' + tail
    parsed = parse(text)
    assert parsed.error is None and len(parsed.tree.body) == 2
    line, col, message = parse(text, (3, 6)).error
    assert (line, col) == (3, 1) if tail[0] == "\0" else (line, col) == (4, 1)
    assert message.startswith("null bytes after the last line: importing the module raises "
                              "ValueError on Python 3")
    assert len(parse(text, (3, 6)).tree.body) == 2  # the rest is still read


@pytest.mark.parametrize("text", ["x = 1\0 junk\nprint(x)\n", "x = 1\n#\0 c\nprint(x)\n",
                                  "x = 1\n\0\ny = 2\n"])
def test_nul_bytes_before_the_last_line_are_an_error_everywhere(text):
    for target in ((2, 7), (3, 6)):
        parsed = parse(text, target)
        assert parsed.tree is None and parsed.error[2] == "source code cannot contain null bytes"


# Errors of Python's compiler (symbol table, code generator) on trees that ast.parse
# accepts. Each measured with compile() on 2.7.18, 3.6.15, 3.7-3.9 and 3.11: (code, the
# error on a 2.7 target, the error on a 3.6 target); None where that Python compiles it.
COMPILER_ERRORS = [
    # A name used before its `global` declaration: 3.6+ refuse it, 2.7 only warns.
    ("x = 1\ndef f():\n    print(x)\n    global x\n", None,
     (4, 5, "name 'x' is used prior to global declaration; Python 2.7 only warns")),
    ("x = 1\ndef f():\n    x = 2\n    global x\n", None,
     (4, 5, "name 'x' is assigned to before global declaration; Python 2.7 only warns")),
    ("x = 1\nprint(x)\nglobal x\n", None,
     (3, 1, "name 'x' is used prior to global declaration; Python 2.7 only warns")),
    ("def g():\n    x = 1\n    def f():\n        print(x)\n        nonlocal x\n", None,
     (5, 9, "name 'x' is used prior to nonlocal declaration")),
    ("def g():\n    def f():\n        nonlocal x\n", None,
     (3, 9, "no binding for nonlocal 'x' found")),
    ("def f():\n    from os import *\n", None,
     (2, 20, "import * only allowed at module level; Python 2.7 only warns")),
    # Refused by every Python.
    ("def f():\n    print(1)\nreturn 2\n", (3, 1, "'return' outside function"),
     (3, 1, "'return' outside function")),
    ("class A(object):\n    yield 1\n", (2, 5, "'yield' outside function"),
     (2, 5, "'yield' outside function")),
    ("if x:\n    break\n", (2, 5, "'break' outside loop"), (2, 5, "'break' outside loop")),
    ("def f(a, b, a):\n    pass\n", (1, 13, "duplicate argument 'a' in function definition"),
     (1, 13, "duplicate argument 'a' in function definition")),
    ("try:\n    pass\nexcept:\n    pass\nexcept ValueError:\n    pass\n",
     (3, 1, "default 'except:' must be last"), (3, 1, "default 'except:' must be last")),
    ("async def f(a):\n    yield 1\n    return 2\n",
     (3, 5, "'return' with value in async generator"),  # (and CG302's `async def`)
     (3, 5, "'return' with value in async generator")),
    ("def f(a):\n    return [x async for x in a]\n",
     (2, 12, "asynchronous comprehension outside of an asynchronous function"),
     (2, 12, "asynchronous comprehension outside of an asynchronous function")),
    ("def f(a):\n    return [await x for x in a]\n",
     (2, 12, "asynchronous comprehension outside of an asynchronous function"),
     (2, 12, "asynchronous comprehension outside of an asynchronous function")),
    ("def f(a):\n    return await a\n", (2, 12, "'await' outside async function"),
     (2, 12, "'await' outside async function")),
    ("async def f(a):\n    return lambda: [x async for x in a]\n",
     (2, 20, "asynchronous comprehension outside of an asynchronous function"),
     (2, 20, "asynchronous comprehension outside of an asynchronous function")),
]


@pytest.mark.parametrize("code, on_27, on_36", COMPILER_ERRORS)
def test_errors_of_the_compiler_are_syntax_errors_where_the_target_raises_them(
        code, on_27, on_36):
    for target, error in (((2, 7), on_27), ((3, 6), on_36)):
        parsed = parse(code, target_python=target)
        assert parsed.tree is not None  # the tree is sound: the other rules read it
        assert parsed.error == error, target


@pytest.mark.parametrize("code", [
    "x = 1\ndef f():\n    global x\n    print(x)\n",
    "# global x is read below\nx = 1\nprint(x)\n",
    "def f():\n    for i in x:\n        try:\n            pass\n        finally:\n            break\n",
    "class A(object):\n    def f(self):\n        return 1\n",
    "while x:\n    if y:\n        continue\n    else:\n        break\n",
    "from os import *\nif x:\n    from sys import *\n",
    "async def f(a):\n    return [x async for x in a], (await y for y in a)\n",
    "def f(a):\n    return (x async for x in a)\n",  # 3.7+; CG302's below
    "def f(a):\n    return [(yield x) for x in a]\n",  # 3.8+ refuse it; 3.6 warns at most
    "def f(async_=1):\n    await_ = 2\n",
])
def test_what_the_target_compiles_is_no_syntax_error(code):
    for target in ((2, 7), (3, 6)):
        assert parse(code, target_python=target).error is None


def test_a_compiler_error_in_a_python2_file_is_at_the_column_as_written():
    code = "print 'a'\nif x:\n    print 'b'; break\n"
    parsed = parse(code, target_python=(2, 7))
    assert parsed.python2_syntax
    assert parsed.error == (3, 16, "'break' outside loop")
