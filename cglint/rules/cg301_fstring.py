"""CG301: f-strings in code that must run on Python 2.7 or 3.5."""
from cglint.fstrings import NotConvertible, convert
from cglint.rules.base import Edit, Finding, Rule


class FStringRule(Rule):
    """An f-string in code that must also run on Python 2.7 or 3.5.

    What: every f-string (`f"..."`, `rf"..."`, ...), found from the source text, so files
    that only Python 2 can parse are covered too. Reported when the target Python is
    below 3.6.

    Why it breaks on TF 1.8: f-strings arrived in Python 3.6. On 2.7 (and 3.5) the whole
    file fails to compile with `SyntaxError: invalid syntax`, so no line of it runs, not
    even `import tensorflow`; a module that imports it fails at that `import` line. An
    f-string inside a gradient function is no exception: it breaks the file, not the
    gradient.

    Fix: use `"...".format(...)`. `cglint --fix` rewrites each f-string (with the string
    literals implicitly concatenated to it) as the equivalent `.format()` call, keeping
    `!r`/`!s` conversions and format specs. It leaves alone, and says why, the f-strings
    with no exact equivalent that Python 2.7 runs: `{x=}`, `!a`, a backslash, comment,
    `lambda` or `:=` inside `{}`, escapes that make a brace or a named character, `\\u`
    and `\\U` escapes (2.7 byte strings keep them as text), and the `_` grouping option
    of a format spec (3.6+).
    """

    code = "CG301"
    name = "f-string"
    needs_tensorflow = False

    def check(self, module):
        if module.target_python >= (3, 6):
            return
        if not module.fstrings:
            return
        target = ".".join(map(str, module.target_python))
        for found in module.fstrings:
            message = "f-string needs Python 3.6+ (target is %s)" % target
            try:
                replacement = convert(found.source)
            except NotConvertible as reason:
                yield Finding("%s; not fixable automatically: %s" % (message, reason),
                              span=found.span)
                continue
            yield Finding(message, span=found.span, fix=(Edit(found.span, replacement),))


RULE = FStringRule
