"""cglint.fstrings: finding f-strings exactly, and rewriting them as str.format()."""
import ast
import glob
import io
import json
import os
import subprocess
import sys
import sysconfig
import tokenize

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from cglint.fstrings import NotConvertible, convert, find_fstrings, parse, to_format
from cglint.source import LineIndex

PYTHON27 = os.path.expanduser("~/.pyenv/versions/2.7.18/bin/python")


def spans(text):
    """(line, col, end line, end col, source) of each group, columns 0-based like ast's."""
    return [(f.span.line, f.span.col - 1, f.span.end_line, f.span.end_col - 1, f.source)
            for f in find_fstrings(text)]


def test_spans_are_one_based_lines_and_columns_in_characters():
    text = 'x = "é"\ny = "中" + f"{x}!"\n'
    (found,) = find_fstrings(text)
    assert found.span == (2, 11, 2, 18)
    assert text[found.start:].startswith('f"{x}!"')


def test_implicitly_concatenated_literals_form_one_group():
    text = 'msg = ("a {b} "\n       # why\n       f"{x}" \'c\')\nz = rf"{a}" \\\n  "b"\n"c"\n'
    assert spans(text) == [
        (1, 7, 3, 17, '"a {b} "\n       # why\n       f"{x}" \'c\''),
        (4, 4, 5, 5, 'rf"{a}" \\\n  "b"'),
    ]


def test_a_newline_outside_brackets_ends_the_group():
    assert spans('x = f"{a}"\n"doc"\n') == [(1, 4, 1, 10, 'f"{a}"')]


@pytest.mark.parametrize(
    "text",
    [
        "x = '{}'.format(y)\n",
        "x = 'f\"x\"'\n",
        '# f"{x}"\n',
        'x = """\nf"{x}"\n"""\n',
        'elif_ = elif"x"\n',
        'xf = xf"{a}"\n',
        'b = rb"{x}" + br"{x}" + u"{x}" + b"{x}"\n',
        "print 'a', `x`, 0777L <> 2\n",
        "x = 'it''s' \"f\" \"{x}\"\n",
    ],
)
def test_no_fstring(text):
    assert find_fstrings(text) == []


@pytest.mark.parametrize("prefix", ["f", "F", "rf", "fr", "Rf", "fR", "RF", "FR", "rF", "Fr"])
def test_every_prefix(prefix):
    assert spans("x = %s'{a}'\n" % prefix) == [(1, 4, 1, 9 + len(prefix), "%s'{a}'" % prefix)]


def test_files_only_python2_parses():
    text = "if 1:\n        x = 1\n\ty = f'{x!r:>{w}}'  # `tab`\n\tprint `x`, 0777L <> 2, ur'\\d'\nexec 'z' in d\n"
    assert spans(text) == [(3, 5, 3, 18, "f'{x!r:>{w}}'")]


def test_python312_nesting_on_every_host():
    text = 'a = f"{d["k"]} {f"{x:{"w"}}"}" + f"""{' + "'''\n'''" + '}"""\nb = 1\n'
    assert [s[:4] for s in spans(text)] == [(1, 4, 1, 30), (1, 33, 2, 7)]


def test_brace_and_quote_edge_cases():
    text = r'''a = f"{{x}} \{y} \N{DASH} {z!r:{w}.{p}} {d['}']} {s:'>3}" '\''
'''
    assert spans(text) == [(1, 4, 1, 62, text[4:62])]


def test_unterminated_strings_stop_at_the_line_end():
    assert spans('x = f"{a}\ny = f"b"\n') == [(1, 4, 1, 9, 'f"{a}'), (2, 4, 2, 8, 'f"b"')]


def _stdlib_files():
    files = sorted(glob.glob(os.path.join(sysconfig.get_paths()["stdlib"], "*.py")))
    return [path for path in files if "f'" in _read(path) or 'f"' in _read(path)]


def _read(path):
    with open(path, encoding="utf-8") as stream:
        return stream.read()


def _top_level_joinedstr(tree, text):
    lines = text.splitlines(True)

    def column(line, byte_col):
        return len(lines[line - 1].encode("utf-8")[:byte_col].decode("utf-8"))

    found = []

    def visit(node, inside):
        if isinstance(node, ast.JoinedStr) and not inside:
            found.append((node.lineno, column(node.lineno, node.col_offset), node.end_lineno, column(node.end_lineno, node.end_col_offset)))
        for child in ast.iter_child_nodes(node):
            visit(child, inside or isinstance(node, (ast.JoinedStr, ast.FormattedValue)))

    visit(tree, False)
    return sorted(set(found))


def test_agrees_with_the_ast_on_the_standard_library():
    """The host's own ast puts every implicitly concatenated group with an f-string in
    one JoinedStr node; its span must be ours."""
    checked = 0
    for path in _stdlib_files():
        text = _read(path)
        try:
            tree = ast.parse(text)
        except SyntaxError:
            continue
        assert sorted(s[:4] for s in spans(text)) == _top_level_joinedstr(tree, text), path
        checked += 1
    assert checked > 20


def _fstring_literals(text):
    """(start, end) positions of each f-string literal, from our groups."""
    result = []
    lines = LineIndex(text)
    for group in find_fstrings(text, lines):
        for literal in parse(group.source):
            if literal.fields is not None:
                result.append(lines.position(group.start + literal.start)
                              + lines.position(group.start + literal.end))
    return result


def _tokenize_fstrings(tokens):
    """The same from a tokenizer: STRING tokens with an f prefix, or (3.12+) the
    outermost FSTRING_START .. FSTRING_END."""
    result, depth, start = [], 0, None
    for token in tokens:
        kind, string, begin, end = token[0], token[1], token[2], token[3]
        name = tokenize.tok_name.get(kind, "")
        if name == "FSTRING_START":
            depth += 1
            if depth == 1:
                start = begin
        elif name == "FSTRING_END":
            depth -= 1
            if depth == 0:
                result.append(start + end)
        elif name == "STRING" and depth == 0 and "f" in string.split(string[-1])[0].lower():
            result.append(begin + end)
    return result


def test_agrees_with_tokenize_on_the_standard_library():
    for path in _stdlib_files()[:60]:
        text = _read(path)
        tokens = tokenize.generate_tokens(io.StringIO(text).readline)
        assert _fstring_literals(text) == _tokenize_fstrings(tokens), path


PYTHON2_SOURCE = """\
# -*- coding: utf-8 -*-
class Grad(object):
        def __init__(self, dy):
\t    self.dy = dy
\t    print "grad", `dy`, 0777L <> 1, ur"\\d"
\t    msg = (u"a {0}"
\t\t   f"{dy!r:>{10}}" 'b')
\t    exec "x = 1" in {}
\t    raise ValueError, f'bad {dy}'
"""


def test_agrees_with_fissix_on_python2_sources():
    from fissix.pgen2 import tokenize as fissix_tokenize

    tokens = fissix_tokenize.generate_tokens(io.StringIO(PYTHON2_SOURCE).readline)
    expected = [(a[0], a[1], b[0], b[1]) for a, b in ((t[2], t[3]) for t in tokens if t[0] == fissix_tokenize.STRING and "f" in t[1][:2].lower())]
    assert _fstring_literals(PYTHON2_SOURCE) == expected
    assert [s[:4] for s in spans(PYTHON2_SOURCE)] == [(6, 12, 7, 24), (9, 23, 9, 34)]


CONVERSIONS = [
    ('f"{x}"', '"{}".format(x)'),
    ("f'{x!r:>{w}}'", "'{!r:>{}}'.format(x, w)"),
    ('f"{x!s:^10}"', '"{!s:^10}".format(x)'),
    ('f"{x:{w}.{p}}"', '"{:{}.{}}".format(x, w, p)'),
    ('f"{{a}} {x}"', '"{{a}} {}".format(x)'),
    ('f"no fields {{x}}"', '"no fields {x}"'),
    ('"{b}" f"{x}"', '"{{b}}" "{}".format(x)'),
    ('f"{x}" "}"', '"{}" "}}".format(x)'),
    ("rf'\\d{x}'", "r'\\d{}'.format(x)"),
    ("FR'\\d{x}'", "R'\\d{}'.format(x)"),
    ("f\"{d['k']}\"", "\"{}\".format(d['k'])"),
    ('f"{d["k"]}"', '"{}".format(d["k"])'),
    ('f"{x, w}"', '"{}".format((x, w))'),
    ('f"{x,}"', '"{}".format((x,))'),
    ('f"{ x + 1 }"', '"{}".format(x + 1)'),
    ("f\"{f'{x}'}\"", "\"{}\".format('{}'.format(x))"),
    ('f"""a\n{x +\n w}\n"""', '"""a\n{}\n""".format(x +\n w)'),
    ('u"a"\n  # c\n  f"{x}"', 'u"a"\n  # c\n  "{}".format(x)'),
    ("f'{x:%H}'", "'{:%H}'.format(x)"),
    ('f"{x!=w}"', '"{}".format(x!=w)'),
    ('f"{x:=^9}"', '"{:=^9}".format(x)'),
    # a bare generator is the only argument a call may take unparenthesized
    ('f"{c for c in s}{y}"', '"{}{}".format((c for c in s), y)'),
    ('f"{c for c in s}"', '"{}".format((c for c in s))'),
    ('f"{(c for c in s)}{y}"', '"{}{}".format((c for c in s), y)'),
    ('f"{list(c for c in s)}{y}"', '"{}{}".format(list(c for c in s), y)'),
]


@pytest.mark.parametrize("source, expected", CONVERSIONS)
def test_to_format(source, expected):
    assert to_format(source) == expected


@pytest.mark.parametrize(
    "source, reason",
    [
        ('f"{x=}"', "self-documenting"),
        ('f"{x = !r}"', "self-documenting"),
        ('f"{s!a}"', "!a"),
        ('f"{(lambda: 1)()}"', "lambda"),
        ('f"{(y := 1)}"', ":="),
        ('f"{x # c\n}"', "comment"),
        ("f\"{'\\n'.join(s)}\"", "backslash"),
        ('f"\\N{EM DASH} {x}"', "escape"),
        ('f"\\x7b{x}"', "escape"),
        ('f"{x"', "unterminated"),
        ('"a" "b"', "not one"),
        ('f"{x}" + f"{y}"', "not one"),
    ],
)
def test_not_convertible(source, reason):
    with pytest.raises(NotConvertible, match=reason.replace("!", "\\!")):
        convert(source)
    assert to_format(source) is None


def test_converted_positions_compile_in_place():
    text = 'def f(x):\n    return (f"{x}"\n            "!")\n'
    (found,) = find_fstrings(text)
    fixed = text.replace(found.source, to_format(found.source))
    compile(fixed, "<fixed>", "exec")
    assert "format(x)" in fixed


# Property: the rewrite evaluates to the same string as the f-string, for random parts.

ENV_KEYS = ("x", "y", "s", "w", "p", "d")
EXPRESSIONS = ["x", "y", "s", "x + y", "-x", "(x, y)", "x, y", "[x, y][0]", " {{{q}k{q}: s}}[{q}k{q}]", "s.upper()", "x if y else s", "d[{q}k{q}]", "len(s)", "x!=y", "f{q}{{x!r:>{{w}}}}{q}"]
SPECS = ["", ">10", "<5", "^7", ".3", ",", "+", "x", "_>{w}", "{w}", "{w}.{p}", "!r", "!s", "!r:>{w}", "!s:^5", "=^6", "#x", "*<{w}"]
LITERAL_CHARS = ["a", " ", "{{", "}}", ":", "!", "=", "%", "\\\\", "\\t", "'", '"', "\n", "é"]


@st.composite
def fstring_sources(draw):
    quote = draw(st.sampled_from(["'", '"', "'''", '"""']))
    raw = draw(st.booleans())
    prefix = draw(st.sampled_from(["rf", "Rf", "fR", "FR"] if raw else ["f", "F"]))
    other = "'" if quote[0] == '"' else '"'
    pieces = []
    for _ in range(draw(st.integers(0, 5))):
        if draw(st.booleans()):
            char = draw(st.sampled_from(LITERAL_CHARS))
            if raw and char in ("\\\\", "\\t"):
                char = "\\d"
            if char == quote[0] or (char == "\n" and len(quote) == 1):
                char = "\\" + char if char != "\n" and not raw else "b"
            pieces.append(char)
        else:
            expr = draw(st.sampled_from(EXPRESSIONS)).format(q=other)
            spec = draw(st.sampled_from(SPECS))
            if spec and not spec.startswith("!"):
                spec = ":" + spec
            pieces.append("{%s%s}" % (expr, spec))
    body = "".join(pieces)
    if body.endswith("\\") or (len(quote) == 3 and body.endswith(quote[0])):
        body += "z"
    source = prefix + quote + body + quote
    neighbour = draw(st.sampled_from(["", '"{a}"', "'}}{'", "u'b'"]))
    if neighbour:
        source = " ".join([neighbour, source] if draw(st.booleans()) else [source, neighbour])
    return source


def _outcome(source, env):
    try:
        return "ok", eval(source, {}, dict(env))
    except Exception as error:
        return type(error).__name__, str(error)


@settings(max_examples=400, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])
@given(
    fstring_sources(),
    st.one_of(st.integers(-10**6, 10**6), st.floats(allow_nan=False, allow_infinity=False)),
    st.integers(-5, 5),
    st.text(alphabet="ab{}' ", max_size=4),
    st.integers(0, 12),
    st.integers(0, 5),
)
def test_rewrite_evaluates_to_the_same_string(source, x, y, s, w, p):
    env = {"x": x, "y": y, "s": s, "w": w, "p": p, "d": {"k": s}}
    compile(source, "<f>", "eval")  # the generator makes valid f-strings only
    rewritten = to_format(source)
    assert rewritten is not None, source
    assert _outcome(rewritten, env) == _outcome(source, env), (source, rewritten)


def _python2_corpus():
    """Rewrites of f-strings whose values format the same on Python 2 and 3."""
    return [
        'f"{x}"',
        'f"{s:{w}.{p}}" "{b}" f"}}}}"',
        'f"{{a}} {x!r:>{w}} {s!s:^9}"',
        'f"{x}-{y!r}-{s!s}"',
        "f'{x:>{w}}|{s:<4}|{y:+d}'",
        '"head {b} " f"{x} " \'{tail}\'',
        'f"""multi\n{x}\n{s!r}"""',
        "rf'\\d+{s}\\w'",
        'f"{d[\'k\']:*^{w}}"',
        "f'{x:{w}}' f\"{y:0{p}d}\"",
        "f\"{f'{x}'}\"",
        'f"{x, w}"',
    ]


@pytest.mark.skipif(not os.path.exists(PYTHON27), reason="needs the real Python 2.7")
def test_rewrites_compile_and_agree_under_python27():
    env = {"x": 42, "y": -7, "s": "ab", "w": 8, "p": 3, "d": {"k": "v"}, "b": 0}
    cases = []
    for source in _python2_corpus():
        rewritten = to_format(source)
        assert rewritten is not None, source
        cases.append({"rewritten": "(%s)" % rewritten, "expected": eval("(%s)" % source, {}, dict(env))})
    script = (
        "import json, sys\n"
        "cases = json.load(sys.stdin)\n"
        "env = %r\n"
        "out = []\n"
        "for case in cases:\n"
        "    code = compile(case['rewritten'], '<rewrite>', 'eval')\n"
        "    out.append(eval(code, {}, dict(env)))\n"
        "json.dump(out, sys.stdout)\n" % (env,)
    )
    result = subprocess.run([PYTHON27, "-c", script], input=json.dumps(cases), capture_output=True, text=True, check=True)
    assert json.loads(result.stdout) == [case["expected"] for case in cases]


@pytest.mark.parametrize("prefix", ["f", "F", "rf", "rF", "Rf", "RF", "fr", "fR", "Fr", "FR"])
@pytest.mark.parametrize("quote", ["'", '"', "'''", '"""'])
def test_every_fstring_prefix_is_seen_by_the_quick_check(prefix, quote):
    from cglint.fstrings import may_hold_fstrings

    assert may_hold_fstrings("x = (%s%s{a}%s)\n" % (prefix, quote, quote))
    assert may_hold_fstrings("%s%s{a}%s\n" % (prefix, quote, quote))  # at the very start
    assert may_hold_fstrings("é = (%s%s{a}%s)\n" % (prefix, quote, quote))  # not ASCII


@pytest.mark.parametrize("text", ['self"', "x = 'conf'\n", 'elif"', "xf'a'", "_f'a'",
                                  "brf'a'"])
def test_near_misses_of_fstring_prefixes_are_not(text):
    from cglint.fstrings import may_hold_fstrings

    assert not may_hold_fstrings(text)


@pytest.mark.parametrize("source, converted", [
    # Python 2.7 has no `_` grouping option (ValueError: Unknown format code '_'), and its
    # byte strings keep `\u2713` as six characters of text
    ('f"{n:_}"', None),
    ('f"{n:08_d}"', None),
    ('f"{n:_.2f}"', None),
    ('f"\\u2713 step {step}"', None),
    ('f"\\U0001F600 {x}"', None),
    # near-misses: a `_` fill, the `,` grouping, an escaped backslash before `u`, a raw or
    # unicode literal
    ('f"{n:_>8}"', '"{:_>8}".format(n)'),
    ('f"{n:,}"', '"{:,}".format(n)'),
    ('f"\\\\u2713 {x}"', '"\\\\u2713 {}".format(x)'),
    ('rf"\\u2713 {x}"', 'r"\\u2713 {}".format(x)'),
])
def test_what_python_2_formats_otherwise_is_not_converted(source, converted):
    assert to_format(source) == converted


@pytest.mark.parametrize("source, ascii_text", [
    ('f"{x} ok"', True),
    ('f"{x:é>3}"', True),  # inside a field: an argument's business, not the template's
    ('f"Résultat {x}"', False),
    ('f"caf\\xe9 {x}"', False),
    ('f"caf\\\\xe9 {x}"', True),  # an escaped backslash, then text
    ('f"\\351 {x}"', False),
    ('f"\\u2713 {x}"', False),
    ('rf"\\xe9 {x}"', True),  # raw: four ASCII characters
    ('"é" f"{x}"', False),
])
def test_text_is_ascii(source, ascii_text):
    from cglint.fstrings import text_is_ascii

    assert text_is_ascii(source) is ascii_text


def test_text_templates_get_a_u_prefix():
    assert convert('f"Résultat {x}"', text=True) == 'u"Résultat {}".format(x)'
    assert convert('"é" f"{x}" u"!"', text=True) == 'u"é" u"{}" u"!".format(x)'
    assert convert('f"\\u2713 {x}"', text=True) == 'u"\\u2713 {}".format(x)'
    with pytest.raises(NotConvertible, match="ur"):
        convert('rf"é{x}"', text=True)


@pytest.mark.skipif(not os.path.exists(PYTHON27), reason="needs the real Python 2.7")
def test_text_templates_give_python3s_text_under_python27():
    sources = ['f"Résultat pour {name}"', 'f"caf\\xe9 {name}"', 'f"\\u2713 {name}!"',
               'f"{name} \\351"']
    env = {"name": "Zürich"}
    cases = [{"rewritten": convert(source, text=True),
              "expected": eval(source, {}, dict(env))} for source in sources]
    script = (
        "# -*- coding: utf-8 -*-\n"
        "import json, sys\n"
        "out = []\n"
        "for case in json.load(sys.stdin):\n"
        "    source = u'# -*- coding: utf-8 -*-\\n' + case['rewritten']\n"
        "    code = compile(source.encode('utf-8'), '<r>', 'eval')\n"
        "    out.append(eval(code, {}, {'name': u'Z\\xfcrich'}))\n"
        "json.dump(out, sys.stdout)\n")
    result = subprocess.run([PYTHON27, "-c", script], input=json.dumps(cases),
                            capture_output=True, text=True, check=True)
    assert json.loads(result.stdout) == [case["expected"] for case in cases]


def test_the_cg301_fix_on_a_27_target_keeps_the_text_type_of_non_ascii_text():
    from cglint import engine

    def fixes(code):
        result = engine.lint_text("a.py", code, engine.Options(select=("CG301",)))
        return [(edits[0].text, edits[0].safe) for _, edits in result.fixes]

    code = '# -*- coding: utf-8 -*-\nname = u"Zürich"\nmsg = f"Résultat pour {name}"\n' \
           'ok = f"{name}!"\n'
    assert fixes(code) == [('u"Résultat pour {}".format(name)', False),
                           ('"{}!".format(name)', True)]
    future = "from __future__ import unicode_literals\n" + code
    assert fixes(future) == [('"Résultat pour {}".format(name)', True),
                             ('"{}!".format(name)', True)]


@pytest.mark.parametrize("source, expected", [
    ('f"Doc"', '"Doc".format()'),
    ('f"""{{x}} doc"""', '"""{{x}} doc""".format()'),
    ('"{a}" f"doc"', '"{{a}}" "doc".format()'),
    ('f"Doc {x}"', '"Doc {}".format(x)'),
])
def test_a_group_in_a_docstring_place_stays_a_format_call(source, expected):
    # A plain string there would become the docstring: `__doc__` would change.
    assert convert(source, docstring_place=True) == expected
    assert eval(expected, {"x": 1}) == eval(source, {"x": 1})


DOCSTRING_PLACES = '''\
f"Module {{doc}}"
import sys


def g():
    f"""Function doc"""
    return 1


def h(): f'one-liner doc'


class C(object):
    ("class " f'doc')
    x = f"not first"

    def m(self):
        (
            f"method doc"  # why
        )


def k():
    """Real doc."""
    f"second statement"


print(repr([__doc__, g.__doc__, h.__doc__, C.__doc__, C.m.__doc__, k.__doc__, C.x]))
'''


def test_the_cg301_fix_leaves_every_docstring_as_it_was():
    from cglint import autofix, engine

    options = engine.Options(select=("CG301",), target_python=(2, 7))
    fixed = autofix.fix_text("a.py", DOCSTRING_PLACES, options).text
    assert "f'" not in fixed and 'f"' not in fixed
    assert 'x = "not first"\n' in fixed and '    "second statement"\n' in fixed

    def run(python, code):
        return subprocess.run([python, "-c", code], capture_output=True, text=True,
                              check=True).stdout

    expected = "[None, None, None, None, None, 'Real doc.', 'not first']\n"
    assert run(sys.executable, DOCSTRING_PLACES) == run(sys.executable, fixed) == expected
    if os.path.exists(PYTHON27):
        assert run(PYTHON27, fixed) == expected
