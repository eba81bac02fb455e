"""cglint.newsyntax: constructs newer than the target Python, and nothing else."""
import ast
import sys
import textwrap

import pytest

from cglint import engine
from cglint.facts import ModuleFacts
from cglint.newsyntax import MINIMUM_VERSION, NOTES, newer_syntax
from cglint.parse import Parsed, parse


def module_of(code, target=(2, 7), python2_syntax=False):
    parsed = Parsed(ast.parse(code), python2_syntax, code)
    return ModuleFacts("m.py", code, parsed, target)


def constructs(code, target=(2, 7), python2_syntax=False):
    code = textwrap.dedent(code)
    return [r.construct for r in newer_syntax(module_of(code, target, python2_syntax))]


FLAGGED = [
    ("def f(a, *, scale=2.0): pass", (2, 7), ["keyword-only parameter"]),
    ("lambda *, k: k", (2, 7), ["keyword-only parameter"]),
    ("def f(a: int) -> int: pass", (2, 7), ["parameter annotation", "return annotation"]),
    ("x: int = 1", (3, 5), ["variable annotation"]),
    ("def f():\n  x = 1\n  def g():\n    nonlocal x", (2, 7), ["`nonlocal`"]),
    ("def g(): yield from range(3)", (2, 7), ["`yield from`"]),
    ("p = rb'x'\nq = (b'y'\n     RB'z')", (2, 7), ["`rb` string prefix"] * 2),
    ("async def f():\n  await g()\n  async for a in b: pass\n  async with c: pass", (3, 4), ["`async def`", "`await`", "`async for`", "`async with`"]),
    ("async def f():\n  yield 1", (3, 5), ["asynchronous generator"]),
    ("async def f():\n  return [a async for a in b]", (3, 5), ["asynchronous comprehension"]),
    ("async def f():\n  return [await a for a in b]", (3, 5), ["`await` in a comprehension"]),
    ("y = a @ b\ny @= c", (2, 7), ["matrix multiplication `@`", "matrix multiplication `@`"]),
    ("a, *b = c", (2, 7), ["starred assignment target"]),
    ("for a, *b in c: pass", (2, 7), ["starred assignment target"]),
    ("x = [*a, *b]\ny = {*a}\nz = (*a, 1)", (3, 4), ["iterable unpacking in a display"] * 3),
    ("x = {**a, 'k': 1}", (3, 4), ["dict unpacking in a display"]),
    ("f(*a, *b)", (3, 4), ["more than one `*` unpacking in a call"]),
    ("f(*a, b)", (2, 7), ["positional argument after `*` unpacking"]),
    ("f(**a, **b)", (3, 4), ["more than one `**` unpacking in a call"]),
    ("f(**a, b=1)", (2, 7), ["keyword argument after `**` unpacking"]),
    ("if (n := 10) > 5: pass", (3, 6), ["assignment expression `:=`"]),
    ("def f(a, /, b): pass", (3, 6), ["positional-only parameter marker `/`"]),
    ("from __future__ import annotations", (3, 6), ["`from __future__ import annotations`"]),
    ("from __future__ import generator_stop", (2, 7), ["`from __future__ import generator_stop`"]),
    ("print('a', end='')", (2, 7), ["`print()` keyword argument"]),
    ("print(*items)", (2, 7), ["`print()` with `*` unpacking"]),
    ("list(map(print, x))", (2, 7), ["`print` used as a value"]),
    ("def f(x, **kwargs,):\n    pass", (3, 5),
     ["trailing comma after `*args`, `**kwargs` or keyword-only parameters"]),
    ("g = lambda *a,: 0", (2, 7),
     ["trailing comma after `*args`, `**kwargs` or keyword-only parameters"]),
    ("y = f(\n    *x,\n)", (2, 7), ["trailing comma in a call with `*` or `**` unpacking"]),
    ("y = f(*a, b=1,  # more\n      )", (2, 7),
     ["trailing comma in a call with `*` or `**` unpacking"]),
    ("class A(object):\n  def m(self):\n    return super().m()", (2, 7), ["argument-less `super()`"]),
    ("class A(B, metaclass=M): pass", (2, 7), ["class keyword argument"]),
    ("raise ValueError('x') from None", (2, 7), ["`raise ... from ...`"]),
    ("def f(): ...", (2, 7), ["`...` outside a subscript"]),
    ("n = 1_000_000", (3, 5), ["underscore in a numeric literal"]),
    ("n = 0x_ff", (3, 5), ["underscore in a numeric literal"]),
    ("n = 0b_1", (2, 7), ["underscore in a numeric literal"]),
    ("n = 0xFF_FF", (3, 5), ["underscore in a numeric literal"]),
    ("n = 0o7_7", (3, 5), ["underscore in a numeric literal"]),
    ("n = 1.e1_0", (3, 5), ["underscore in a numeric literal"]),
    ("n = .5_0j", (3, 5), ["underscore in a numeric literal"]),
    # One finding per construct kind per line.
    ("def f(a: list[int]) -> dict[str, int]: pass", (3, 6), ["subscripted builtin in an evaluated annotation"]),
    ("def f(a: list[int]) -> dict[str, int]:\n    pass", (3, 6), ["subscripted builtin in an evaluated annotation"]),
    ("def f(a: list[int],\n      b=1) -> dict[str, int]: pass", (3, 6), ["subscripted builtin in an evaluated annotation"] * 2),
    ("print('a', flush=True)", (2, 7), ["`print()` keyword `flush=` with `print` a statement"]),
    ("from __future__ import print_function\nprint('a', end='', flush=True)", (2, 7), ["`print()` keyword `flush=`"]),
    ("print('a', flush=True)", (3, 2), ["`print()` keyword `flush=`"]),
    ("x: list[int] = []", (3, 6), ["subscripted builtin in an evaluated annotation"]),
    ("def f(a: int | None): pass", (3, 6), ["`X | Y` union in an evaluated annotation"]),
    ("return_ = lambda: 0\ndef g(a, b):\n  return *a, *b", (3, 6), ["unparenthesized unpacking in `return`/`yield`"]),
    ("with (open(a) as b, open(c) as d): pass", (3, 6), ["parenthesized context manager list"]),
    ("with (open(a), open(c)): pass", (3, 6), ["parenthesized context manager list"]),
    ("async def f():\n  async with (a as b, c as d): pass", (3, 6), ["parenthesized context manager list"]),
    ("@buttons[0].clicked.connect\ndef f(): pass", (3, 6), ["decorator that is not a dotted name or call"]),
    ('s = f"{x=}"', (3, 6), ["f-string `=` specifier"]),
    ('s = f"{x = !r:>{w}}"', (3, 7), ["f-string `=` specifier"]),
    # 2.7 to 3.7: `SyntaxError: 'continue' not supported inside 'finally' clause`
    ("for i in x:\n  try: pass\n  finally:\n    continue", (3, 7), ["`continue` in a `finally` block"]),
    ("while x:\n  try: pass\n  finally:\n    try: pass\n    except E: continue", (2, 7), ["`continue` in a `finally` block"]),
    ("for i in x:\n  try: pass\n  finally:\n    for j in y: pass\n    else: continue", (3, 6), ["`continue` in a `finally` block"]),
    # 3.5 to 3.8 take starred items in a `for` iterable in parentheses only
    ("for x in *a, *b: pass", (3, 8), ["unparenthesized unpacking in a `for` iterable"]),
    ("for x in 1, *a: pass", (2, 7), ["unparenthesized unpacking in a `for` iterable"]),
    ("for x in (a), *b: pass", (3, 6), ["unparenthesized unpacking in a `for` iterable"]),
    ("async def f():\n  async for x in *a, *b: pass", (3, 6), ["unparenthesized unpacking in a `for` iterable"]),
    # asynchronous generator expressions outside an `async def`: 3.7
    ("def f(a):\n  return (x async for x in a)", (3, 6), ["asynchronous generator expression outside an `async def`"]),
    ("def f(a):\n  return (await x for x in a)", (3, 6), ["asynchronous generator expression outside an `async def`"]),
    ("async def f(a, b):\n  return [(x async for x in a) for y in b]", (3, 6), ["asynchronous generator expression outside an `async def`"]),
    # an asynchronous list comprehension in another comprehension: 3.11
    ("async def f(a, b):\n  return [[x async for x in a] for y in b]", (3, 10), ["asynchronous comprehension within another comprehension"]),
    ("async def f(a, b):\n  return [[await x for x in a] for y in b]", (3, 6), ["asynchronous comprehension within another comprehension"]),
]
if sys.version_info >= (3, 10):
    FLAGGED.append(("match x:\n  case 1: pass", (3, 6), ["`match` statement"]))
if sys.version_info >= (3, 11):
    FLAGGED.append(("try: pass\nexcept* ValueError: pass", (3, 6), ["`except*`"]))
    FLAGGED.append(("x[*a]", (3, 6), ["`*` unpacking in a subscript"]))
if sys.version_info >= (3, 12):
    FLAGGED.append(("type X = int\ndef f[T](a): pass", (3, 6), ["`type` statement", "type parameter list"]))
    FLAGGED.append(("s = f\"{d[\"k\"]} {'\\n'.join(x)}\"", (3, 6), ["f-string expression reusing the enclosing quote", "backslash in an f-string expression"]))


@pytest.mark.parametrize("code, target, expected", FLAGGED)
def test_flagged(code, target, expected):
    assert constructs(code, target) == expected
    newest = max(MINIMUM_VERSION[construct] for construct in expected)
    assert constructs(code, newest) == []  # the construct's own version accepts it


VALID = [
    ("print('a', 'b')", (2, 7)),
    ("print('a')\nprint()", (2, 7)),
    ("print('a', flush=True)", (3, 3)),
    ("from __future__ import print_function\nprint('a', end='', file=f)\nf = print", (2, 7)),
    ("'{}'.format(x)\ns = 'f\"{x=}\"'", (2, 7)),
    ("class A(object):\n  def m(self):\n    return super(A, self).m()", (2, 7)),
    ("def outside():\n  return super()", (2, 7)),  # not a method: fails on every Python alike
    ("x[...]\ny = x[..., 0]\nz = x[1:2, ...]", (2, 7)),
    ("def f(a, b=1, *args, **kwargs): pass\nf(*a, **k)\nf(a, b=1, *c, **d)", (2, 7)),
    ("a, b = c\n[a, b] = c\nfor a, (b, c) in d: pass", (2, 7)),
    ("with open(a) as b, open(c) as d: pass\nwith (open(a)) as b, (open(c)) as d: pass\nwith (a), (b): pass\nwith (lock): pass", (3, 6)),
    ("async def f():\n  async with a as b, c as d: pass\n  with (yield) as e, f(): pass", (3, 6)),
    ("x = {'a': 1, 'b': 2}\ny = {1, 2}\nz = {k: v for k, v in x}", (2, 7)),
    ("n = 0x1F + 0o17 + 0b11 + 1e10 + 1j + 10", (2, 7)),
    ("def f(a: 'list[int]') -> 'int | None': pass", (3, 6)),
    ("from __future__ import annotations\ndef f(a: list[int]): pass", (3, 7)),
    ("def f():\n  x: list[int] = []", (3, 6)),  # a local annotation is never evaluated
    ("def f(a: List[int], b: Optional[int] = None): pass\nx: Dict[str, int] = {}", (3, 6)),
    ('s = f"{x!r:>{w}} {d[\'k\']} {x==y} {x!=y} {x:=^5}"', (3, 6)),
    ("@tf.custom_gradient\ndef f(x): pass\n@a.b(c)\ndef g(): pass", (3, 6)),
    ("def g(a, b):\n  return (*a, *b)", (3, 6)),
    ("async def f():\n  await g()", (3, 5)),
    ("for i in x:\n  try: pass\n  finally:\n    for j in y: continue\n    while z: continue\n    def g():\n      for k in w: continue", (2, 7)),
    ("for x in (*a, *b): pass\nfor y in a, b: pass", (3, 5)),
    ("async def f(a, b):\n  return [[x async for x in a] async for y in b], (x async for x in a)", (3, 6)),
    # No Python compiles these: CG001's (cglint.parse), not a newer construct
    ("def f(a):\n  return [x async for x in a], [await y for y in a]", (2, 7)),
    ("def f(a):\n  return await a", (2, 7)),
    ("def f(a, b=1,):\n    return g(a, b,)\ny = h(*a)\nz = h(**k)", (2, 7)),
    ("def f(*args, **kwargs,):\n    return g(*args,)", (3, 6)),
    # Python 2's print statement to a file, which Python 3 reads as `print >> f`
    ("import sys\ndef f():\n    print >>sys.stderr, 'x %d' % 3\n    print >> sys.stderr", (2, 7)),
    # ... and its bare print statement, an empty line (carpedm20/NTM-tensorflow)
    ("def f(x):\n    print\n    if x: print\n    print; x = 2", (2, 7)),
]


@pytest.mark.parametrize("code, target", VALID)
def test_valid_for_the_target(code, target):
    assert constructs(code, target) == []


def test_python2_syntax_trees_may_call_print_with_keywords():
    assert constructs("print('a', end='')", (2, 7), python2_syntax=True) == []


def test_fstring_internals_below_36_are_left_to_cg301():
    assert constructs('s = f"{x=}"', (2, 7)) == []


def test_message_position_and_note():
    code = "class Model(object):\n    def call(self, x, *, scale=2.0):\n        return super().call(x)\n"
    records = newer_syntax(module_of(code))
    assert [(r.span.line, r.span.col, r.minimum, r.message) for r in records] == [
        (2, 26, (3, 0), "keyword-only parameter `scale` needs Python 3.0+ (target is 2.7)"),
        (3, 16, (3, 0), "argument-less `super()` needs Python 3.0+ (target is 2.7); " + NOTES["argument-less `super()`"]),
    ]
    assert "TypeError: super() takes at least 1 argument (0 given)" in records[1].message


def test_one_finding_per_construct_kind_per_line_names_every_detail():
    code = "def f(a, *, b=1, c=2, d=3): pass\n"
    (record,) = newer_syntax(module_of(code))
    assert record.span[:2] == (1, 13)
    assert record.message.startswith("keyword-only parameter `b`, `c`, `d` needs Python 3.0+")


def test_print_flush_message_says_33_and_that_the_future_import_does_not_help():
    code = "from __future__ import print_function\nprint('a', flush=True)\n"
    (record,) = newer_syntax(module_of(code))
    assert "needs Python 3.3+" in record.message and "even with `from __future__" in record.message
    assert "or add `from __future__" not in record.message


def test_print_flush_with_print_a_statement_says_it_does_not_compile():
    """`print("RESULT", x, flush=True)` without the future import: 2.7 refuses to compile
    the file (measured), which dropping `flush=` alone would not mend either."""
    code = "print('a', flush=True)\n"
    (record,) = newer_syntax(module_of(code))
    assert record.message.startswith("`print()` keyword `flush=` with `print` a statement "
                                     "needs Python 3.3+ (target is 2.7); Python 2.7 cannot "
                                     "compile it (`SyntaxError`)")
    assert "sys.stdout.flush()" in record.message


def test_columns_count_characters_not_bytes():
    code = "# coding: utf-8\ns = 'é'; y = a @ b\n"
    (record,) = newer_syntax(module_of(code))
    assert record.span == (2, 14, 2, 19)


def test_python2_files_report_columns_of_the_line_as_written():
    code = '# coding: utf-8\nprint "é", 1; nonlocal_ = lambda *, k: k\ns = f"{x=}"\n'
    parsed = parse(code, (3, 6))
    assert parsed.python2_syntax
    records = newer_syntax(ModuleFacts("m.py", code, parsed, (3, 6)))
    assert [(r.span, r.construct) for r in records] == [
        ((3, 7, 3, 11), "f-string `=` specifier")]
    records = newer_syntax(ModuleFacts("m.py", code, parsed, (2, 7)))
    assert [(r.span[:2], r.construct) for r in records] == [((2, 37), "keyword-only parameter")]


def test_every_construct_has_a_version_and_every_note_a_construct():
    assert set(NOTES) <= set(MINIMUM_VERSION)
    assert all(version >= (3, 0) for version in MINIMUM_VERSION.values())


@pytest.mark.parametrize("code", [code for code, _, _ in FLAGGED] + [code for code, _ in VALID])
def test_the_binders_node_index_finds_what_a_full_walk_finds(code):
    # CG302 reads the node index of the walk that binds names (cglint.names) instead of
    # walking the tree again; that walk treats scopes specially, so check it misses nothing.
    from cglint.names import Names

    tree = ast.parse(code)
    walked = {}
    for node in ast.walk(tree):
        walked.setdefault(type(node), []).append(node)
    for target in ((2, 7), (3, 5), (3, 6)):
        module = ModuleFacts("m.py", code, Parsed(tree, text=code), target)
        assert newer_syntax(module, Names(tree).index) == newer_syntax(module, walked)


# Constructs where the marked index could go wrong: markers on a decorator line (above
# the `def`), in headers that span lines, in `except` and `match` headers, after a lone
# carriage return, and statements that hold a marker only in their body.
MARKED_NEAR_MISSES = [
    "@decorate(*a, *b)\ndef f():\n    pass\n",
    "@decorate(\n    *a,\n    *b)\nclass C:\n    pass\n",
    "with open(\n        name) as handle, other(*a, b):\n    pass\n",
    "try:\n    pass\nexcept (lambda *, k: E)():\n    pass\n",
    "match x:\n    case [1, *rest] if f(*a, *b):\n        pass\n",
    "x = 1\ry = [*a, *b]\rz = print\r",
    "x = 1\r\ny = [*a, *b]\r\n",
    "def f(a=lambda *, k: k,\n      b=(yield from g)):\n    return 1, *a\n",
    "if x:\n    pass\nelif y:\n    z = {**a, **b}\nelse:\n    w = a @ b\n",
    "class C(Base):\n    def m(self):\n        return super()\n",
    "for a, *b in c:\n    print(a, flush=True)\n",
    "x = [y for a, *b in c]\nq = 1_000\nr = ...\n",
    "while (n := next(it)):\n    print(n, sep='')\n",
    "def f(a, /, b, *, c):\n    pass\n",
    "f = lambda a, /: a\n",
    "p = print\n",
    "def f(a,\n      b=lambda *, k: k): return [*a, *b]\n",
    "try:\n    pass\nexcept E:\n    pass\nexcept (\n        lambda *, k: E)():\n    pass\n",
    "class C(\n        *bases, metaclass=M):\n    x = [*a]\n",
    "for x in [*a, *b]:\n    pass\nelse:\n    y = {**a, **b}\n",
    # Where cglint.marks tells an unpacking star from an operator, a bare super() from a
    # call with arguments, a lambda's `*` from a slice in its default, a number from a name.
    "x = a * b\ny = f(a,\n      *b, *c)\n",
    "x = f(a,  # comment\n      *b, *c)\n",
    "x = f(a, \\\n      *b, *c)\n",
    "def g():\n    return *a, b\n",
    "def g():\n    yield *a, b\n",
    "for x in *a, b:\n    pass\n",
    "for *a, b in c:\n    pass\n",
    "x = a ** b\ny = {**a, 'k': 1, **b}\nz = f(**a, **b)\n",
    "x = a[*b]\ny = a[1, *b]\n",
    "x += *a, b\n",
    "x = [y *z for y, *z in w]\n",
    "class C(B):\n    def m(self):\n        return super(\n            # why\n        ).m()\n",
    "class C(B):\n    def m(self):\n        return (super\n                ()).m()\n",
    "class C(B):\n    def m(self):\n        return super(C, self).m(), super ( ).n()\n",
    "def g():\n    x = (yield\n         from h())\n    y = yield  # from\n",
    "f = lambda x=d[1:2], *, k: k\ng = lambda x={1: 2}, *, k: k\n",
    "f = lambda x=lambda: 0, *, k: k\ng = lambda x=':', *, k: k\n",
    "f = (lambda x,\n     *, k: k)\ng = lambda a, /, b: a\nh = lambda a: a\n",
    "f = lambda x=lambda: 0, /: x\ng = lambda x=d[1:2], /: x\nh = lambda x='a:', /: x\n",
    "x = [a,\r     *b]\r",
    "n = 0xdead_beef + 1_0j + 1_0.5 + layer_2 + v0x_a\n",
    "n = conv2_1 + 0x_ff + 1_0 + 1.e1_0 + .5_0j + x.y2_3\n",
    "s = 'x of%f' % 1.0\nt = f'{a}'\n",
]


def _source_files():
    import glob
    import os

    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    found = []
    for pattern in ("cglint/**/*.py", "tests/*.py", "fixtures/**/*.py", "bench/*.py",
                    "tools/*.py"):
        found += sorted(glob.glob(os.path.join(root, pattern), recursive=True))
    return found


@pytest.mark.parametrize("path", _source_files())
def test_the_marked_index_finds_what_a_full_walk_finds_in_real_files(path):
    # Without the binder's index, CG302 visits only the expressions of the statements
    # that hold a construct's marker text (cglint.statements): it must find the same.
    with open(path, encoding="utf-8") as handle:
        code = handle.read()
    _assert_marked_equals_walked(code)


@pytest.mark.parametrize("code", [code for code, _, _ in FLAGGED] + [code for code, _ in VALID]
                         + MARKED_NEAR_MISSES)
def test_the_marked_index_finds_what_a_full_walk_finds(code):
    _assert_marked_equals_walked(textwrap.dedent(code))


def _assert_marked_equals_walked(code):
    parsed = parse(code)
    if parsed.tree is None or parsed.python2_syntax:
        return
    walked = {}
    for node in ast.walk(parsed.tree):
        walked.setdefault(type(node), []).append(node)
    for target in ((2, 7), (3, 4), (3, 5), (3, 6), (3, 8), (3, 9)):
        cheap = ModuleFacts("m.py", code, parsed, target)
        full = ModuleFacts("m.py", code, parsed, target)
        marked = newer_syntax(cheap)
        assert not cheap.has_full_index  # it did not fall back to the binder's index
        assert marked == newer_syntax(full, walked), target
        assert [r.message for r in marked] == [r.message for r in newer_syntax(full, walked)]
        # A file whose TF rules built the binder's index (statements and expressions
        # together) takes only its statements, and marks them the same way.
        bound = ModuleFacts("m.py", code, parsed, target)
        bound.names
        assert bound.statements is bound.names.index
        assert newer_syntax(bound) == marked, target


@pytest.mark.parametrize("data, reported", [
    ("# 训练\nx = 1\n".encode("utf-8"), True),
    ('x = "°"\n'.encode("utf-8"), True),
    # near-misses: a coding line first or second (vim's spelling too), a BOM, ASCII only
    ("# -*- coding: utf-8 -*-\n# 训练\n".encode("utf-8"), False),
    ("#!/usr/bin/env python\n# vim: set fileencoding=utf-8 :\n# 训练\n".encode("utf-8"), False),
    ("\ufeff# 训练\n".encode("utf-8"), False),
    (b"x = 1\n", False),
])
def test_non_ascii_text_needs_a_coding_line_on_python_2(data, reported):
    from cglint import check

    options = engine.Options(select=("CG302",), target_python=(2, 7))
    found = check.check_bytes("a.py", data, options).diagnostics
    assert bool(found) == reported
    if reported:
        assert "coding" in found[0].message and found[0].fix
    py3 = engine.Options(select=("CG302",), target_python=(3, 6))
    assert check.check_bytes("a.py", data, py3).diagnostics == []


def test_non_ascii_names_need_python_3():
    # made under TF 1.8: fixtures/CG302/bad_non_ascii_identifier.py (py27 SyntaxError)
    from cglint import check

    code = textwrap.dedent("""\
        # -*- coding: utf-8 -*-
        # λ in a comment, and in a string:
        s = u"λ"
        def ƒ(x, β=1, **κ):
            return x
        class Ü(object):
            pass
        import numpy as 数
        t.λ2 = g(γ=1)
        ascii_name = 1
        """)
    options = engine.Options(select=("CG302",), target_python=(2, 7))
    found = check.check_bytes("a.py", code.encode("utf-8"), options).diagnostics
    assert [(d.line, d.col) for d in found] == [(4, 5), (6, 7), (8, 1), (9, 1)]
    assert "`ƒ`, `β`, `κ`" in found[0].message and "`λ2`, `γ`" in found[3].message
    py3 = engine.Options(select=("CG302",), target_python=(3, 6))
    assert check.check_bytes("a.py", code.encode("utf-8"), py3).diagnostics == []


@pytest.mark.parametrize("guard, reported", [
    ("if six.PY3:", False),
    ("if not six.PY2:", False),
    ("if sys.version_info >= (3, 3):", False),
    ("if sys.version_info[0] >= 3:", False),
    ("if sys.version_info.major == 3:", False),
    # near-misses: the branch that runs on 2.7, a bound older than the construct, no test
    ("if six.PY2:", True),
    ("if sys.version_info >= (3, 0):", False),  # TF 1.8's oldest Python 3 is 3.5
    ("if sys.version_info < (3, 3):", True),
    ("if True:", True),
])
def test_runtime_constructs_under_a_python_version_test(guard, reported):
    from cglint import check

    code = ("from __future__ import print_function\nimport sys\nimport six\n\n"
            "class C(object):\n    def f(self):\n        GUARD\n"
            "            print('x', flush=True)\n            return super().f()\n"
            "        return super(C, self).f()\n").replace("GUARD", guard)
    options = engine.Options(select=("CG302",), target_python=(2, 7))
    found = [d.line for d in check.check_alone("a.py", code, options).diagnostics]
    assert found == ([8, 9] if reported else [])


def test_what_follows_a_python_2_branch_that_returns_runs_on_python_3_only():
    from cglint import check

    code = ("import six\n\nclass C(object):\n    def f(self):\n        if six.PY2:\n"
            "            return super(C, self).f()\n        return super().f()\n")
    options = engine.Options(select=("CG302",), target_python=(2, 7))
    assert check.check_alone("a.py", code, options).diagnostics == []
    assert check.check_alone("a.py", code.replace("            return super(C, self).f()\n",
                                                  "            pass\n"), options).diagnostics


@pytest.mark.parametrize("code, reported", [
    ("def g(n):\n    for i in range(n):\n        yield i\n    return n\n", True),
    ("def g():\n    yield 1\n    return None\n", True),  # any value: 2.7 refuses it
    # near-misses: a bare return, no yield, a yield in a nested def only
    ("def g():\n    yield 1\n    return\n", False),
    ("def h():\n    return 3\n", False),
    ("def k():\n    def inner():\n        yield 1\n    return inner\n", False),
    ("def k():\n    gen = (x for x in range(3))\n    return gen\n", False),
])
def test_return_with_a_value_in_a_generator(code, reported):
    found = [r.construct for r in newer_syntax(module_of(code))]
    assert found == (["`return` with a value in a generator"] if reported else [])


def test_flush_without_print_function_is_a_syntax_error_whatever_the_test_around_it():
    from cglint import check

    code = "import six\nif six.PY3:\n    print('loss', 1.0, flush=True)\n"
    options = engine.Options(select=("CG302",), target_python=(2, 7))
    assert [d.line for d in check.check_alone("a.py", code, options).diagnostics] == [3]
    future = "from __future__ import print_function\n" + code
    assert check.check_alone("a.py", future, options).diagnostics == []


@pytest.mark.parametrize("data, reported, fixable", [
    # 2.7 honours a second-line coding line only after a comment or blank first line,
    # which it reads as ASCII
    ("x = 1\n# -*- coding: utf-8 -*-\n# café\n".encode("utf-8"), True, True),
    ("# hi\n# -*- coding: utf-8 -*-\n# café\n".encode("utf-8"), False, False),
    ("#!/usr/bin/env python  # é\n# -*- coding: utf-8 -*-\n".encode("utf-8"), True, False),
    ("#!/usr/bin/env python\n# é".encode("utf-8"), True, True),
])
def test_where_python_2_looks_for_a_coding_line(data, reported, fixable):
    from cglint import check

    options = engine.Options(select=("CG302",), target_python=(2, 7))
    found = check.check_bytes("a.py", data, options).diagnostics
    assert bool(found) == reported
    assert bool(found and found[0].fix) == fixable


def test_a_name_python_3_folds_to_ascii_is_still_reported():
    # `ﬁle` (a ligature) is `file` in Python 3's tree; 2.7 refuses the text (measured:
    # SyntaxError: invalid syntax)
    from cglint import check

    code = "# -*- coding: utf-8 -*-\n\ufb01le = 2\nfile2 = 'caf\u00e9'\n"
    options = engine.Options(select=("CG302",), target_python=(2, 7))
    found = check.check_bytes("a.py", code.encode("utf-8"), options).diagnostics
    assert [(d.line, d.col) for d in found] == [(2, 1)]
    assert "`\ufb01le`" in found[0].message
