"""Turn source text into an `ast` tree, whatever Python it is written for.

The standard library parser comes first: it is the cheapest correct one. A file it rejects
may be Python 2 (print statements, `except E, e`, backticks, `0777`, `<>`, `ur''`); those
are parsed with fissix's Python 2 grammar, rewritten with 2to3 fixers that keep every line
where it was, and parsed again, so a Python 2 file yields the same tree (and the same
findings) as its Python 3 twin. Columns on rewritten lines are mapped back to the original.

fissix is pure Python and costs about 20 s and 700 MB per MB of dense code (the stdlib
parser, 0.1 s): it is tried only when the stdlib's error could be Python 2 syntax (the
text has a Python-2-only construct and the error is not one of the parser's limits), and
only within a budget of tokens, bytes and bracket depth; past it the file gets CG001 with
the reason, in well under a second.
"""
import __future__
import ast
import re
import warnings
from dataclasses import dataclass, field
from functools import cached_property
from typing import Optional

from cglint import interrupts
from cglint.source import LineIndex

# 2to3 fixers that only rewrite Python-2-only syntax, each within its own lines.
_PY2_FIXERS = tuple("fissix.fixes.fix_" + name for name in (
    "print", "except", "repr", "exec", "execfile", "numliterals", "ne", "raise", "unicode",
    "long",
))

_refactoring_tool = None

# The Python 2 parser's budget: a few seconds and about 100 MB at most on one core.
# fissix costs about 30 us a token, and each construct its fixers rewrite (a print
# statement, ...) about 1 ms more. TF 1.8's largest file (gen_nn_ops.py, 445 kB) has about
# 30,000 tokens.
PY2_MAX_TOKENS = 100000
PY2_MAX_CONSTRUCTS = 2000
PY2_MAX_BYTES = 2 * 1024 * 1024
PY2_MAX_DEPTH = 200  # the stdlib parser's own limit for nested brackets

# Something only Python 2 accepts, one pattern per fixer in _PY2_FIXERS (print and exec
# statements, backticks, `<>`, `0777`, `10L`, `ur''`, `except E, e`, `raise E, v`) and
# per form _mend_python2_leftovers mends (tuple parameters); tabs, which Python 2 mixes
# with spaces, come on top. A false match only costs a budgeted try.
# Each starts with a literal or a character class, which the re module scans for fast (a
# leading \b made it 100 times slower); the word boundary before is checked by hand.
_PY2_CONSTRUCTS = tuple((re.compile(pattern), bounded) for pattern, bounded in (
    (r"print\b", True), (r"exec\b", True), (r"`[^`\n]*`", False), (r"<>", False),
    (r"0[0-7]+[lL]?\b", True), (r"[0-9]+[lL]\b", True), (r"[uU][rR]['\"]", True),
    (r"0(?:[xX][0-9a-fA-F]+|[oO][0-7]+)[lL]\b", True),  # `0xFFFFFFFFL` (fissix reads no `0b1L`)
    (r"except\b[^\n:]*,", True), (r"raise\b[^\n]*,", True),
    # tuple parameters: `lambda (k, v):`, `def f(a, (b, c)):`
    (r"lambda[ \t]*\(", True), (r"def[ \t]+\w+[ \t]*\([^()\n:]*\(", True),
    # True and False bound as names: `True, False = 1, 0`, `from __builtin__ import False`
    (r"(?:True|False)[ \t]*(?:,[ \t]*(?:True|False)[ \t]*)?=(?!=)", True),
    (r"import[^\n]*\b(?:True|False)\b", True),
))
# Python 3's errors for what Python 2 reads as a str: `b"a" "b"` (its `b` changes nothing)
# and `b"größe"` (under a coding line, the text's bytes).
_BYTES_ERRORS = ("cannot mix bytes and nonbytes literals",
                 "bytes can only contain ASCII literal characters")
# The stdlib's errors that are its own limits, never Python 2 syntax.
_LIMIT_ERRORS = ("too many nested", "too many statically nested", "too many indentation")
# Tokens as the budget counts them: a string literal or comment is one.
_TOKEN = re.compile(
    r"""[uUbBrRfF]{0,2}(?:'''(?:[^\\]|\\.)*?'''|\"\"\"(?:[^\\]|\\.)*?\"\"\"|"""
    r"""'(?:[^'\\\n]|\\.)*'|"(?:[^"\\\n]|\\.)*")|\#[^\n]*|\w+|[^\w\s]""", re.DOTALL)
_OPENING, _CLOSING = frozenset("([{"), frozenset(")]}")


@dataclass
class Parsed:
    tree: Optional[ast.Module]
    python2_syntax: bool = False
    text: str = ""  # what was parsed: the source, or its Python 3 rewrite
    # A syntax error (line, col 1-based, message) for the target Python, if any.
    error: Optional[tuple] = None
    column_maps: dict = field(default_factory=dict)  # line -> list: new col -> original col

    @cached_property
    def lines(self):
        """LineIndex of the parsed text, where the tree's positions are."""
        return LineIndex(self.text)

    def original_col(self, line, col):
        """0-based character column in the original text for an `ast` column (a UTF-8
        byte offset) in the parsed text."""
        col = self.lines.char_col(line, col)
        mapping = self.column_maps.get(line)
        if mapping is None:
            return col
        return mapping[min(col, len(mapping) - 1)]


def _syntax_error_position(error):
    line = error.lineno or 1
    col = error.offset or 1
    return line, max(col, 1)


def _parse_stdlib(text):
    with warnings.catch_warnings():
        # Invalid escape sequences and the like are not our business.
        warnings.simplefilter("ignore")
        return ast.parse(text)


def parse(text, target_python=(2, 7)):
    """Parsed for `text`. Never raises for any input text."""
    parsed = _parse(text, target_python)
    if parsed.tree is not None and parsed.error is None and "__future__" in text:
        misplaced = _misplaced_future(parsed, target_python)
        if misplaced is not None:
            # The compiler's error, not the parser's: every Python refuses the file, but
            # the tree is sound, so the other rules still read it.
            parsed.error = misplaced + (
                "invalid syntax: from __future__ imports must occur at the beginning of the "
                "file (only the module docstring may come before them)",)
        else:
            parsed.error = _unknown_future_feature(parsed)
    if parsed.tree is not None and parsed.error is None:
        parsed.error = _compiler_error(parsed, target_python)
    return parsed


# The errors Python's compiler raises (its symbol table and code generator) on a tree
# `ast.parse` accepts, each with the oldest Python that raises it: the target's compiler
# refuses the file from that version on (older ones compile it, with a SyntaxWarning at
# most). Measured with compile() on 2.7, 3.6, 3.7, 3.8, 3.9, 3.11 and 3.13; 3.0-3.5 made
# the `global`/`nonlocal` ordering errors SyntaxWarnings ("What's New In Python 3.6").
# A message not listed is left alone: the host's compiler may refuse what the target
# takes (`'yield' inside list comprehension` below 3.8).
_COMPILER_ERRORS = tuple((re.compile(pattern), oldest) for pattern, oldest in (
    (r"'return' outside function", (2, 7)),
    (r"'yield' outside function", (2, 7)),
    (r"'break' outside loop", (2, 7)),
    (r"'continue' not properly in loop", (2, 7)),
    (r"duplicate argument ", (2, 7)),
    (r"default 'except:' must be last", (2, 7)),
    (r"too many statically nested blocks", (2, 7)),
    (r"name '[^']*' is parameter and global", (2, 7)),  # 2.7: "is local and global"
    (r"'yield from' inside async function", (2, 7)),  # (no Python takes either)
    (r"'return' with value in async generator", (2, 7)),
    (r"name '[^']*' is parameter and nonlocal", (3, 0)),  # below 3.0: CG302's `nonlocal`
    (r"name '[^']*' is nonlocal and global", (3, 0)),
    (r"nonlocal declaration not allowed at module level", (3, 0)),
    (r"no binding for nonlocal '[^']*' found", (3, 0)),
    (r"import \* only allowed at module level", (3, 0)),  # 2.7 warns
    (r"name '[^']*' is (?:used|assigned to) prior to (?:global|nonlocal) declaration", (3, 6)),
    (r"name '[^']*' is assigned to before (?:global|nonlocal) declaration", (3, 6)),
    (r"annotated name '[^']*' can't be (?:global|nonlocal)", (3, 6)),
    (r"assignment expression cannot ", (3, 8)),  # below 3.8: CG302's `:=`
))
# The errors of Python 3 where 2.7 only warns (and runs the file), and what is added to say so.
_WARNS_ON_PYTHON2 = re.compile(r"name '[^']*' is (?:used prior to|assigned to before) global|"
                               r"import \*")
_WARNED_ON_PYTHON2 = "; Python 2.7 only warns"
# `global x` or `nonlocal x`: a statement when only blanks, or a `;` or `:`, come before
# it on its line (a literal first: the re module scans for it fast).
_DECLARATION = re.compile(r"(?:global|nonlocal)[ \t]+[A-Za-z_]")
_ASYNC_DEF = re.compile(r"async[ \t]+def\b")
# What an asynchronous comprehension or an `await` needs in the text.
_ASYNC_USE = re.compile(r"await\b|async[ \t]+for\b")
_DEFS = (ast.FunctionDef, ast.AsyncFunctionDef)
_LOOPS = (ast.For, ast.AsyncFor, ast.While)
_SIMPLE_STATEMENTS = (ast.Assign, ast.AugAssign, ast.AnnAssign, ast.Import, ast.ImportFrom,
                      ast.Pass, ast.Raise, ast.Assert, ast.Delete, ast.Global, ast.Nonlocal)


def _compiler_error(parsed, target_python):
    """(line, col, message) of an error the target's compiler raises on a tree that
    parses, or None: an asynchronous comprehension or `await` outside an `async def`
    (found in the tree), or what the host's compiler raises (_COMPILER_ERRORS), which it
    is asked only when the text or a walk of the statements says it may: for a Python 3
    target (2.7 only warns of these) a `global` or `nonlocal` statement or an indented
    `import *`; an `async def`; `:=` for 3.8+; or outside functions a `return`,
    `yield`, `break` or `continue` out of place, a duplicate parameter, a bare `except:`
    before others, deep nesting."""
    text, tree = parsed.text, parsed.tree
    found = []
    if ("async" in text or "await" in text) and _uses_async(text):
        from cglint.newsyntax import NEVER, async_placements

        for node, oldest in async_placements(tree):
            if oldest is NEVER:
                found.append(_position(parsed, node) + (
                    "'await' outside async function" if isinstance(node, ast.Await) else
                    "asynchronous comprehension outside of an asynchronous function",))
    python3 = target_python >= (3, 0)
    if (python3 and (_declares(text) or _imports_all_in_a_function(text))) or (
            "async" in text and _ASYNC_DEF.search(text)) or (
            target_python >= (3, 8) and ":=" in text) or _statements_out_of_place(tree):
        error = _host_compiler_error(tree)
        if error is not None:
            message, line, offset = error
            for pattern, oldest in _COMPILER_ERRORS:
                if pattern.match(message) and target_python >= oldest:
                    if _WARNS_ON_PYTHON2.match(message):
                        message += _WARNED_ON_PYTHON2
                    col = parsed.original_col(line, max(offset - 1, 0)) + 1
                    found.append((line, col, message))
                    break
    return min(found) if found else None


def _uses_async(text):
    """Whether `text` may hold an `await` or an `async for` outside a comment (the
    word in a comment, `# await the reply`, is common in code that never uses it)."""
    for match in _ASYNC_USE.finditer(text):
        start = match.start()
        if "#" not in text[text.rfind("\n", 0, start) + 1:start]:
            return True
    return False


def _declares(text):
    """Whether `text` may hold a `global` or `nonlocal` statement."""
    if "global" not in text and "nonlocal" not in text:
        return False
    for match in _DECLARATION.finditer(text):
        start = match.start()
        before = text[text.rfind("\n", 0, start) + 1 : start].rstrip()
        if not before or before[-1] in ";:":
            return True
    return False


def _host_compiler_error(tree):
    """(message, line, 1-based offset) of the SyntaxError the running Python's compiler
    raises on `tree`, or None."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            compile(tree, "<cglint>", "exec", dont_inherit=True)
    except SyntaxError as error:
        error.__traceback__ = None
        return error.msg or "", error.lineno or 1, error.offset or 1
    except (ValueError, TypeError, RecursionError, MemoryError):
        pass
    return None


def _statements_out_of_place(tree):
    """Whether a walk of the statements outside functions (no expression visited, no
    function body entered) finds what only the compiler refuses: `return` or `yield`
    outside a function, `break` or `continue` outside a loop, a parameter named twice,
    a bare `except:` before other handlers, or blocks nested more than 20 deep. Function
    bodies are most of a file's statements, and these errors are rare: they are left."""
    stack = [(tree.body, False, 0)]
    while stack:
        body, loop, depth = stack.pop()
        for node in body:
            kind = type(node)
            if kind is ast.Expr:
                if isinstance(node.value, (ast.Yield, ast.YieldFrom)):
                    return True
            elif kind in _SIMPLE_STATEMENTS:
                continue
            elif kind is ast.Return:
                return True
            elif kind is ast.Break or kind is ast.Continue:
                if not loop:
                    return True
            elif kind in _DEFS:
                arguments = node.args
                names = [arg.arg for arg in arguments.posonlyargs + arguments.args +
                         arguments.kwonlyargs + [arguments.vararg, arguments.kwarg] if arg]
                if len(set(names)) < len(names):
                    return True
            elif kind is ast.ClassDef:
                stack.append((node.body, False, 0))
            else:
                if depth >= 20 and kind is not ast.If:  # (an `if` is no block)
                    return True
                inner = depth if kind is ast.If else depth + 1
                if kind in _LOOPS:
                    stack.append((node.body, True, inner))
                    stack.append((node.orelse, loop, inner))
                    continue
                for name in ("body", "orelse", "finalbody"):
                    part = getattr(node, name, None)
                    if part:
                        stack.append((part, loop, inner))
                handlers = getattr(node, "handlers", None)
                if handlers:
                    if any(handler.type is None for handler in handlers[:-1]):
                        return True
                    for handler in handlers:
                        stack.append((handler.body, loop, inner))
                for case in getattr(node, "cases", ()):
                    stack.append((case.body, loop, inner))
    return False


def _imports_all_in_a_function(text):
    """Whether `text` may hold an `import *` in a function: on an indented line."""
    at = text.find("import *")
    while at >= 0:
        line_start = text.rfind("\n", 0, at) + 1
        if text[line_start : line_start + 1] in (" ", "\t"):
            return True
        at = text.find("import *", at + 8)
    return False


def _unknown_future_feature(parsed):
    """(line, col, message) of a `from __future__ import` of a feature no Python has
    (`google_type_annotations`, a typo): the compiler's SyntaxError, which every Python
    raises and the parser leaves to it; or None. Features newer than the target are
    CG302's."""
    for statement in parsed.tree.body:
        if not _is_future_import(statement):
            continue
        for alias in statement.names:
            if alias.name not in __future__.all_feature_names:
                return _position(parsed, statement) + (
                    "not a chance" if alias.name == "braces" else
                    "future feature %s is not defined" % alias.name,)
    return None


def _misplaced_future(parsed, target_python):
    """(line, 1-based col) of the first `from __future__ import` that follows other code,
    in the module or nested in a statement, or None. One docstring may come before them:
    the first statement, a str, on Python 3; one string (str or bytes) anywhere among
    them on 2.7 (both measured)."""
    body = parsed.tree.body
    python2 = target_python < (3, 0)
    leading = 0  # the future imports right after a first-statement docstring (most files: all)
    for index, statement in enumerate(body):
        if not _is_future_import(statement) and not (index == 0 and isinstance(
                statement, ast.Expr) and isinstance(statement.value, ast.Constant)
                                                        and isinstance(statement.value.value, str)):
            break
        leading += _is_future_import(statement)
    mentions = parsed.text.count("__future__")
    if mentions <= leading:
        return None  # no other future import anywhere: the usual file, in a few steps
    docstring, at_the_start, top_level = None, True, 0
    for index, statement in enumerate(body):
        if _is_future_import(statement):
            if not at_the_start:
                return _position(parsed, statement)
            top_level += 1
            continue
        if docstring is None and (python2 or index == 0) and isinstance(
                statement, ast.Expr) and isinstance(statement.value, ast.Constant) and \
                isinstance(statement.value.value, (str, bytes) if python2 else str):
            docstring = statement
            continue
        at_the_start = False
    if mentions <= top_level:
        return None  # none nested: the tree need not be walked
    nested = [node for statement in body for node in ast.walk(statement)
              if _is_future_import(node) and node not in body]
    return _position(parsed, nested[0]) if nested else None


def _position(parsed, node):
    """(line, 1-based column) of `node` in the original text (a Python 2 file's tree is
    of its rewrite)."""
    return node.lineno, parsed.original_col(node.lineno, node.col_offset) + 1


def _is_future_import(node):
    return isinstance(node, ast.ImportFrom) and node.module == "__future__" and not node.level


# Blank space and NUL bytes, all that may follow a file's last line for the NULs to be
# harmless on Python 2 (csehong/VM-NET's train.py ends in six).
_TRAILING = "\0 \t\f\r\n"


def _parse(text, target_python):
    if "\0" in text and "\0" not in text.rstrip(_TRAILING):
        return _with_trailing_nuls(text, target_python)
    try:
        return Parsed(_parse_stdlib(text), text=text)
    except SyntaxError as error:
        first_error = error
        # Its traceback holds this frame and, through it, the callers' trees and facts: a
        # cycle the paused collector would keep for the whole run (every Python 2 file).
        first_error.__traceback__ = None
    except (RecursionError, MemoryError):
        return Parsed(None, error=(1, 1, "too deeply nested to parse"))
    except ValueError as error:  # NUL bytes before Python 3.12
        return Parsed(None, error=(*_nul_position(text), str(error)))
    if "\0" in text:
        return Parsed(None, error=(*_nul_position(text), "source code cannot contain null bytes"))
    renamed = _rename_async_identifiers(text)
    if renamed is not None:
        return renamed
    line, col = _syntax_error_position(first_error)
    if not _could_be_python2(text, first_error):
        return Parsed(None, error=(line, col, _describe(first_error)))
    over_budget = _over_python2_budget(text)
    if over_budget:
        return Parsed(None, error=(line, col, "%s (not parsed as Python 2: %s)" % (
            _describe(first_error), over_budget)))
    converted = _from_python2(text)
    if converted is None:
        later = _python2_error(text)
        if later is not None and later[0] > line:
            # A Python 2 file (its first error is Python 2 syntax) that goes wrong further
            # on: `print "starting"` then a pasted `print(i, end=" ")`.
            return Parsed(None, error=(later[0], later[1], "invalid syntax (in Python 2 too, "
                                       "which the file is written in up to here)"))
        return Parsed(None, error=(line, col, _describe(first_error)))
    converted.python2_syntax = True
    if target_python >= (3, 0):
        converted.error = (line, col, "Python 2 only syntax, invalid on Python %d.%d: %s" % (
            target_python[0], target_python[1], _describe(first_error)))
    return converted


def _could_be_python2(text, error):
    message = error.msg or ""
    if any(limit in message for limit in _LIMIT_ERRORS):
        return False
    return "\t" in text or any(bytes_error in message for bytes_error in _BYTES_ERRORS) or \
        _python2_constructs(text, 1) > 0


def _python2_constructs(text, limit):
    """How many Python 2 constructs `text` has, counting no further than `limit`."""
    count = 0
    for pattern, bounded in _PY2_CONSTRUCTS:
        for match in pattern.finditer(text):
            start = match.start()
            if bounded and start and (text[start - 1].isalnum() or text[start - 1] in "_."):
                continue
            count += 1
            if count >= limit:
                return count
    return count


def _over_python2_budget(text):
    """Why fissix must not parse `text` (its cost would be unbounded), or None."""
    if len(text) > PY2_MAX_BYTES:
        return "larger than %d bytes" % PY2_MAX_BYTES
    if _python2_constructs(text, PY2_MAX_CONSTRUCTS + 1) > PY2_MAX_CONSTRUCTS:
        return "more than %d Python 2 constructs to rewrite" % PY2_MAX_CONSTRUCTS
    tokens = depth = 0
    for match in _TOKEN.finditer(text):
        tokens += 1
        if tokens > PY2_MAX_TOKENS:
            return "more than %d tokens" % PY2_MAX_TOKENS
        token = match.group()
        if token in _OPENING:
            depth += 1
            if depth > PY2_MAX_DEPTH:
                return "brackets nested more than %d deep" % PY2_MAX_DEPTH
        elif token in _CLOSING:
            depth = max(0, depth - 1)
    return None


# `async` and `await` were plain names up to Python 3.6 (TF 1.8's own pywrap module has a
# parameter called `async`); hosts from 3.7 reject them. Where the host's parser has no
# 3.6 mode, they are renamed to words of the same length (every column stays), where they
# can only be names: after a `.`, or before what no keyword use of them is followed by (a
# closing bracket, `=`, `:`, a comment, the line's end, `else`, `if`, `and`, ...).
_ASYNC_AS_NAME = re.compile(r"(?<=\.)(async|await)\b|\b(async|await)(?=[ \t]*(?:[,)=:\].#\n]"
                            r"|$|(?:else|if|and|or|is|in|not)\b))", re.MULTILINE)
_SAME_LENGTH = {"async": "_sync", "await": "_wait"}


def _rename_async_identifiers(text):
    """Parsed for a text where `async` and `await` are names, as Python 2.7 to 3.6 allow
    (`def visit(node, async=False)` in TF 1.8's own astor), or None. Read so by the
    parser's own 3.6 mode where it has one (through Python 3.12); else the names that
    stand where a keyword cannot are renamed, at the same length."""
    if "async" not in text and "await" not in text:
        return None
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return Parsed(ast.parse(text, feature_version=(3, 6)), text=text)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        pass
    renamed = _ASYNC_AS_NAME.sub(lambda match: _SAME_LENGTH[match.group(0)], text)
    if renamed == text:
        return None
    try:
        return Parsed(_parse_stdlib(renamed), text=renamed)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None


def _describe(error):
    message = error.msg or "invalid syntax"
    if isinstance(error, IndentationError):
        return message
    return message if message.startswith("invalid") else "invalid syntax: " + message


def _nul_position(text):
    index = text.find("\0")
    if index < 0:
        return 1, 1
    line = text.count("\n", 0, index) + 1
    return line, index - (text.rfind("\n", 0, index) + 1) + 1


def _with_trailing_nuls(text, target_python):
    """Parsed for a text whose NUL bytes all come after its last line. Python 2.7 drops
    the rest of a line after a NUL (the next line is joined on), so these change nothing
    there, run or imported; Python 3.6 runs it as a script the same way, but its import
    raises `ValueError: source code string cannot contain null bytes` (all measured). The
    lines before them are parsed all the same."""
    body = text.rstrip(_TRAILING)
    parsed = _parse(body + text[len(body):].replace("\0", ""), target_python)
    if target_python >= (3, 0) and parsed.error is None:
        parsed.error = _nul_position(text) + (
            "null bytes after the last line: importing the module raises ValueError on "
            "Python 3 (a script run stops before them)",)
    return parsed


def _tool():
    global _refactoring_tool
    if _refactoring_tool is None:
        from fissix.refactor import RefactoringTool  # slow import, needed only for Python 2

        _refactoring_tool = RefactoringTool(list(_PY2_FIXERS))
    return _refactoring_tool


def _python2_error(text):
    """(line, 1-based column) where the Python 2 parser gives up on `text`, or None."""
    from fissix.pgen2.parse import ParseError

    source = text if text.endswith("\n") else text + "\n"
    try:
        _tool().refactor_string(source, "<cglint>")
    except ParseError as error:
        context = getattr(error, "context", None)
        if context and len(context) == 2 and isinstance(context[1], tuple):
            line, col = context[1]
            return line, col + 1
    except Exception as error:  # a tokenizer error: no position worth more than Python 3's
        interrupts.raise_stop_behind(error)  # (fissix is imported on first use)
        return None
    return None


def _from_python2(text):
    """Parsed from Python 2 source, or None when it is not valid Python 2 either."""
    source = text if text.endswith("\n") else text + "\n"
    try:
        tree = _tool().refactor_string(source, "<cglint>")
        _mend_python2_leftovers(tree)
        rewritten = str(tree)
        _unlink(tree)
    except Exception as error:  # fissix raises ParseError, TokenError, IndentationError, ...
        interrupts.raise_stop_behind(error)
        return None
    rewritten = _expand_indentation_tabs(rewritten)
    try:
        tree = _parse_stdlib(rewritten)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        # `async` and `await` as names, in a Python 2 file (`def save(path, async=False)`
        # beside `0644`): renamed at the same length, so the column maps still hold.
        renamed = _rename_async_identifiers(rewritten)
        if renamed is None:
            return None
        tree, rewritten = renamed.tree, renamed.text
    return Parsed(tree, text=rewritten, column_maps=_column_maps(source, rewritten))


def _unlink(tree):
    """Cut the fissix tree's links up to each node's parent: a run pauses the cyclic
    collector, and reference counting alone frees a tree without them."""
    for node in list(tree.pre_order()):
        node.parent = None


def _mend_python2_leftovers(tree):
    """Rewrite in the fissix tree, on their own lines, the Python 2 forms no fixer in
    _PY2_FIXERS turns into Python 3 that parses: tuple parameters (`lambda (k, v): v`,
    `def area((w, h))`) become one parameter named after their names; an octal long
    (`0777L`) an octal; `True` and `False` bound as names (`from __builtin__ import
    False`) names that Python 3 allows; bytes among the literals of one string, where
    others are not (`b"a" "b"`), plain strings (a blank for the `b`); text beyond ASCII
    in a bytes literal (`b"größe"`) escapes. Enough for the linter to read the file: what
    it reports never hangs on these."""
    from fissix.pgen2 import token
    from fissix.pygram import python_symbols as symbols
    from fissix.pytree import Leaf

    for node in list(tree.pre_order()):
        if node.type in (symbols.tfpdef, symbols.vfpdef) and node.children and \
                node.children[0].type == token.LPAR and "\n" not in str(node).strip():
            names = [leaf.value for leaf in node.leaves() if leaf.type == token.NAME]
            node.replace(Leaf(token.NAME, "_".join(names) + "_", prefix=node.prefix))
        elif node.type == token.NUMBER and _PY2_OCTAL.match(node.value):
            node.value = "0o" + node.value[1:]
        elif node.type == token.NAME and node.value in ("True", "False") and _binds(node):
            node.value += "_"
        elif node.type == symbols.atom and len(node.children) > 1 and all(
                child.type == token.STRING for child in node.children):
            _unbyte_mixed_literals(node.children)
        elif node.type == token.STRING and not node.value.isascii() and \
                "b" in _prefix(node.value).lower():
            node.value = _escaped_bytes(node.value)


def _unbyte_mixed_literals(leaves):
    """`b"a" "b"` as Python 3 reads Python 2's one str: `u"a" "b"`, same columns (a raw
    one, `br"a"`, becomes ` r"a"`)."""
    is_bytes = ["b" in _prefix(leaf.value).lower() for leaf in leaves]
    if any(is_bytes) and not all(is_bytes):
        for leaf, bytes_literal in zip(leaves, is_bytes):
            if bytes_literal:
                prefix = _prefix(leaf.value)
                raw = "r" in prefix.lower()
                leaf.value = (" r" if raw else "u") + leaf.value[len(prefix):]


def _escaped_bytes(literal):
    """A bytes literal with text beyond ASCII, which Python 2 takes (its bytes in the
    file's coding) and Python 3 refuses, as the ASCII escapes of its UTF-8 bytes (`b"ö"`
    -> `b"\\xc3\\xb6"`): the value Python 2 reads in a UTF-8 file, and still bytes with its
    own prefix (CG302 reads an `rb`). In a raw literal the escapes are text: the type and
    prefix hold, not the value."""
    return "".join(char if char.isascii() else "".join(
        "\\x%02x" % byte for byte in char.encode("utf-8", "surrogatepass"))
        for char in literal)


def _prefix(literal):
    """The letters before a string literal's first quote (`bR` of `bR"x"`)."""
    return literal[:min(index for index in (literal.find('"'), literal.find("'"))
                        if index >= 0)]


# An octal literal as Python 2 wrote it, once fix_long has dropped its `L`.
_PY2_OCTAL = re.compile(r"0[0-7]+$")


def _binds(leaf):
    """Is this NAME leaf bound by an import or an assignment (`True = 1`, `True, False =
    1, 0`)?"""
    from fissix.pygram import python_symbols as symbols

    parent = leaf.parent
    while parent is not None and parent.type in (symbols.import_as_names,
                                                 symbols.import_as_name):
        parent = parent.parent
    if parent is not None and parent.type == symbols.import_from:
        return True
    target = leaf
    if parent is not None and parent.type in (symbols.testlist_star_expr, symbols.exprlist):
        target, parent = parent, parent.parent  # `True, False = 1, 0`
    return parent is not None and parent.type == symbols.expr_stmt and \
        parent.children[0] is target and len(parent.children) > 2 and \
        parent.children[1].value == "="


def _expand_indentation_tabs(text):
    # Python 2 reads a tab in indentation as "to the next multiple of 8"; Python 3
    # rejects tab/space mixes, so spell the indentation out the way Python 2 saw it.
    if "\t" not in text:
        return text
    lines = text.split("\n")
    for index, line in enumerate(lines):
        body = line.lstrip(" \t")
        indent = line[:len(line) - len(body)]
        if "\t" in indent:
            lines[index] = indent.expandtabs(8) + body
    return "\n".join(lines)


def _column_maps(original, rewritten):
    old_lines = original.split("\n")
    new_lines = rewritten.split("\n")
    if len(old_lines) != len(new_lines):
        return {}
    maps = {}
    for number, (old, new) in enumerate(zip(old_lines, new_lines), start=1):
        if old != new:
            maps[number] = _column_map(old, new)
    return maps


def _column_map(old, new):
    """For each column of `new` (and one past its end), the matching column of `old`."""
    mapping = [None] * (len(new) + 1)
    import difflib  # only Python 2 files need it

    matcher = difflib.SequenceMatcher(None, new, old, autojunk=False)
    for new_start, old_start, size in matcher.get_matching_blocks():
        for offset in range(size + 1):
            if new_start + offset <= len(new):
                mapping[new_start + offset] = min(old_start + offset, len(old))
    last = 0
    for index, value in enumerate(mapping):
        if value is None:
            mapping[index] = last
        else:
            last = value
    return mapping
