from cglint.rules.base import Rule


class SyntaxErrorRule(Rule):
    """The file cannot be parsed for the target Python.

    What: the file is not valid Python 2.7 (or the `--target-python` version): a syntax
    error, a NUL byte, nesting too deep to parse; when the target is Python 3, Python 2
    only syntax (print statement, `except E, e`) or a bytes literal with text beyond ASCII
    (`b"größe"`, a str to 2.7 under a coding line; Python 3 raises `SyntaxError: bytes can
    only contain ASCII literal characters`); or a `from __future__ import` after other
    code (added below `import tensorflow as tf` to get the print function), which the
    compiler of 2.7 and 3.x refuses: `SyntaxError: from __future__ imports must occur at
    the beginning of the file` (only the module docstring may come before them; 2.7 takes
    one string anywhere among them), or of a feature no Python has (`SyntaxError: future
    feature google_type_annotations is not defined`). Also the errors the target's
    compiler raises on code that parses: a name used or assigned before its `global` or
    `nonlocal` declaration (3.6+; 2.7 only warns), `import *` in a function (3.x), a
    `nonlocal` with no binding, `return`/`yield` outside a function or `break` outside a
    loop, a parameter named twice, a bare `except:` before other handlers, an
    asynchronous list comprehension or `await` outside an `async def` (no Python
    compiles them), with the compiler's own message.

    Why it breaks on TF 1.8: Python refuses the whole file before any line runs, so not even
    `import tensorflow` happens; a module that imports it fails at that import.

    Fix: correct the syntax at the reported position (move `from __future__` imports to
    the top, below the module docstring only). cglint still checks the rest of the run;
    this file gets no other findings until it parses, but for a compiler's error (a
    misplaced or unknown `__future__` import, the errors above), and Python 2 syntax or bytes beyond ASCII that a Python 3 target
    refuses: then the file is read as it stands (as Python 2).
    """

    code = "CG001"
    name = "syntax-error"
    needs_tensorflow = False

    def check(self, module):
        return ()  # reported by the engine, which owns parsing


RULE = SyntaxErrorRule
