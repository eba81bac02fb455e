from cglint.rules.base import Rule


class SyntaxErrorRule(Rule):
    """The file cannot be parsed for the target Python.

    What: the file is not valid Python 2.7 (or the `--target-python` version): a syntax
    error, a NUL byte, nesting too deep to parse, or Python 2 only syntax (print statement,
    `except E, e`) when the target is Python 3.

    Why it breaks on TF 1.8: Python refuses the whole file before any line runs, so not even
    `import tensorflow` happens; a module that imports it fails at that import.

    Fix: correct the syntax at the reported position. cglint still checks the rest of the
    run; this file gets no other findings until it parses.
    """

    code = "CG001"
    name = "syntax-error"
    needs_tensorflow = False

    def check(self, module):
        return ()  # reported by the engine, which owns parsing


RULE = SyntaxErrorRule
