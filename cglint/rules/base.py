"""The shape every rule has: a stable code, a name, docs, and a check over facts."""
import inspect
from dataclasses import dataclass
from typing import Optional


@dataclass(frozen=True)
class Edit:
    """Replace text between two 1-based (line, col) positions of the original source.

    `safe` False marks an edit that may change what the code does (as ruff's unsafe
    fixes): `--fix` applies a fix only when all its edits are safe, unless
    `--unsafe-fixes` is given."""

    line: int
    col: int
    end_line: int
    end_col: int
    text: str
    safe: bool = True


def is_safe(edits):
    """Whether a fix (a tuple of Edit) may be applied without `--unsafe-fixes`."""
    return all(edit.safe for edit in edits)


@dataclass(frozen=True)
class Finding:
    """What a rule reports before the engine attaches the path: ast positions (col 0-based)."""

    line: int
    col: int
    message: str
    end_line: int = 0
    end_col: int = 0
    fix: Optional[tuple] = None  # tuple of Edit, or None when no fix exists
    noqa_lines: tuple = ()  # the def and decorator lines of the function it is about


class Rule:
    """Subclasses set `code` and `name`; their docstring is the user documentation:
    first line the summary, then what, why it breaks on TF 1.8, how to fix."""

    code = ""
    name = ""
    # Rules about TensorFlow need the names resolved; Python-syntax rules do not.
    needs_tensorflow = True

    @classmethod
    def summary(cls):
        return inspect.getdoc(cls).splitlines()[0]

    @classmethod
    def documentation(cls):
        return inspect.getdoc(cls)

    def check(self, module):
        """Yield Finding for one module's facts (cglint.facts.ModuleFacts)."""
        raise NotImplementedError

    # Rules that need a whole-run view (a name registered in one file, used in another)
    # also summarize each module into small picklable data, and judge all summaries at
    # the end. Memory stays flat: no tree outlives its file.
    def summarize(self, module):
        """Picklable data about one module for check_run, or None."""
        return None

    def check_run(self, summaries):
        """Yield Diagnostic from {path: summary} of every module in the run."""
        return ()

    @staticmethod
    def at(node, message, fix=None, function=None):
        """A Finding at `node`; `function` (a def) lets `# noqa` on its def line apply."""
        return Finding(
            node.lineno,
            node.col_offset,
            message,
            getattr(node, "end_lineno", None) or node.lineno,
            getattr(node, "end_col_offset", None) or node.col_offset,
            fix,
            _definition_lines(function) if function is not None else (),
        )


def _definition_lines(function):
    lines = [decorator.lineno for decorator in getattr(function, "decorator_list", ())]
    return tuple(lines) + (function.lineno,)
