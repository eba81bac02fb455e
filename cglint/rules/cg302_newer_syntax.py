"""CG302: Python constructs newer than the target Python."""
import ast

from cglint import py2fixes
from cglint.facts import TF_PRINTS
from cglint.rules.base import Finding, Rule


class NewerSyntaxRule(Rule):
    """Python syntax newer than the Python the code must run on.

    What: each construct the target Python (2.7 unless `--target-python` says otherwise)
    does not have, named with the first version that has it: keyword-only parameters and
    annotations (3.0), `nonlocal`, `raise ... from`, starred assignment targets, `yield
    from` (3.3), async/await and `@` (3.5), `*`/`**` unpacking in displays and calls (3.5),
    variable annotations (3.6), `:=` and `/` parameters and `f"{x=}"` (3.8), `continue`
    in a `finally` block (3.8), `for x in *a, *b:` without parentheses (3.9), `match`
    (3.10), `except*` (3.11), and more. Under 2.7 it also reports `print(..., end=...)`
    without `from __future__ import print_function`, `print(..., flush=...)` (3.3, with
    or without that import), an argument-less `super()`, and non-ASCII text (a Chinese
    comment, a `°` in a string) in a file without a coding line or UTF-8 BOM, which 2.7
    reads as ASCII, and non-ASCII names (`λ = 0.3`), which 2.7 refuses with or without
    one; and its statements used as names, `exec` always and `print` without that import
    (`def print(self)`, `log.print(...)`, `run(exec=True)`; `tf.print` is CG401's). One
    finding per construct kind per line. f-strings themselves are
    CG301. Constructs that compile and fail only when run (`super()`, `flush=`, evaluated
    annotations) are left alone under a test that runs them only on newer Pythons (`if
    six.PY3:`, `if sys.version_info >= (3, 3):`, after `if six.PY2: return ...`).

    Why it breaks on TF 1.8: TF 1.8 runs on Python 2.7 and 3.5/3.6. Nearly all of these
    are a `SyntaxError` when the file is compiled, before `import tensorflow` runs. Two are
    legal syntax that fails later: `super()` without arguments raises `TypeError: super()
    takes at least 1 argument (0 given)` on 2.7 when the method runs, and `list[int]` in an
    annotation raises `TypeError: 'type' object is not subscriptable` on 3.6 when the
    `def` runs.

    Fix: write the older form: `def f(x, scale=2.0)` instead of a keyword-only `scale`,
    `super(Class, self)`, a mutable holder instead of `nonlocal`, ASCII names, `tf.matmul(a, b)` instead
    of `a @ b`, `typing.List[int]`, a plain assignment instead of `:=`; or raise the
    target when the code never runs on the older Python. For a 2.7 target `--fix` writes
    `super(Class, self)`, `six.raise_from(X, Y)` for `raise X from Y`,
    `@six.add_metaclass(M)` for `metaclass=M` (adding `import six`), adds `from
    __future__ import print_function` for `print(..., end=...)` and `print` as a name,
    and `# -*- coding: utf-8 -*-` as the first line (the second after a `#!` line) for
    non-ASCII text.
    """

    code = "CG302"
    name = "newer-syntax"
    needs_tensorflow = False

    def check(self, module):
        for record in module.new_syntax:
            if record.construct == "`print` used as a name" and _tf_print(module, record):
                continue  # CG401 says it, with this SyntaxError too
            fix = py2fixes.fix_for(module, record) if module.target_python < (3, 0) else None
            yield Finding(record.message, span=record.span, fix=fix)


def _tf_print(module, record):
    """Whether a "`print` used as a name" record is `tf.print` (through any alias), which
    CG401 reports with the 2.7 SyntaxError. Asked only of those records: resolving names
    builds the binder's index, which CG302 alone never needs."""
    return isinstance(record.node, ast.Attribute) and module.resolve(record.node) in TF_PRINTS


RULE = NewerSyntaxRule
