"""CG301: f-strings in code that must run on Python 2.7 or 3.5."""
import ast

from cglint.fstrings import NotConvertible, convert, docstring_places, text_is_ascii
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
    `lambda` or `:=` inside `{}`, escapes that make a brace or a named character, and
    the `_` grouping option of a format spec (3.6+); for a 3.5 target, `\\u` and `\\U`
    escapes too. For a 2.7 target, an f-string whose
    text is not ASCII (`é`, `\\xe9`, `\\u2713`) gets a `u"..."` template, the text 3.x
    reads, where a byte string would hold other characters; that fix is unsafe, since
    joining that text with non-ASCII byte strings raises UnicodeDecodeError on 2.7 (with
    `from __future__ import unicode_literals` every literal is text already). An ASCII
    template stays a byte string, as a 2.7 `"...".format()` is: formatting a non-ASCII
    `unicode` value into it raises UnicodeEncodeError on 2.7.
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
        # Python 2.7 reads a plain literal as bytes, unless unicode_literals.
        bytes_literals = module.target_python < (3, 0) and not _unicode_literals(module)
        places = docstring_places(module) if module.fstrings else ()
        for found in module.fstrings:
            message = "f-string needs Python 3.6+ (target is %s)" % target
            try:
                text = bytes_literals and not text_is_ascii(found.source)
                replacement = convert(found.source, text, found.span[:2] in places)
            except NotConvertible as reason:
                yield Finding("%s; not fixable automatically: %s" % (message, reason),
                              span=found.span)
                continue
            yield Finding(message, span=found.span,
                          fix=(Edit(found.span, replacement, safe=not text),))


def _unicode_literals(module):
    return any(isinstance(statement, ast.ImportFrom) and statement.module == "__future__"
               and any(alias.name == "unicode_literals" for alias in statement.names)
               for statement in module.tree.body)


RULE = FStringRule
