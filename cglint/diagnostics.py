"""The values a check produces: a rule's Finding, a fix's Edit, the Diagnostic the engine
makes of a finding, and the Result of one file. Positions are Spans (cglint.source)."""
import ast
from dataclasses import dataclass, field
from typing import Optional

from cglint.source import Span


@dataclass(frozen=True)
class Edit:
    """Replace the text of `span` (of the text the rule saw) with `text`."""

    span: Span
    text: str

    @property
    def line(self):
        return self.span.line

    @property
    def col(self):
        return self.span.col

    @property
    def end_line(self):
        return self.span.end_line

    @property
    def end_col(self):
        return self.span.end_col


@dataclass(frozen=True)
class Finding:
    """What a rule reports: a message, and where: an `ast` node, of which the engine makes
    the Span (ModuleFacts.span), or a Span of the original text (for what a rule found in
    the text, or a whole-run rule found in its summaries, which also name the `path`)."""

    message: str
    node: Optional[ast.AST] = None
    span: Optional[Span] = None
    fix: Optional[tuple] = None  # tuple of Edit, or None when no safe fix exists
    noqa_lines: tuple = ()  # the def and decorator lines of the function it is about
    path: Optional[str] = None  # whole-run findings only: the file it is in


@dataclass(frozen=True, order=True)
class Diagnostic:
    """A finding in a file, as reported. Made by the engine (and by the stages that read
    files and `noqa` comments: CG001, CG002, CG003), never by a rule."""

    path: str
    line: int  # 1-based
    col: int  # 1-based characters, like flake8 and ruff
    code: str
    message: str
    end_line: int = field(default=0, compare=False)
    end_col: int = field(default=0, compare=False)
    # Other lines where a `# noqa` also silences it: a function's `def` and decorators.
    noqa_lines: tuple = field(default=(), compare=False)
    fix: Optional[tuple] = field(default=None, compare=False)  # tuple of Edit: a safe fix

    @classmethod
    def at(cls, path, span, code, message, noqa_lines=(), fix=None):
        return cls(path, span.line, span.col, code, message, span.end_line, span.end_col,
                   noqa_lines, fix)

    def format_text(self):
        return "%s:%d:%d: %s %s" % (self.path, self.line, self.col, self.code, self.message)


@dataclass
class Result:
    """Everything one file's check produced."""

    path: str
    diagnostics: list = field(default_factory=list)
    error: str = ""  # an internal error: a bug in cglint, never the file's fault
    summaries: dict = field(default_factory=dict)  # rule code -> Rule.summarize() data
    # The file's `# noqa` comments (cglint.suppress.Directives), which its whole-run
    # findings must obey too; None: the file has none.
    directives: object = None
    # Other project files the findings were drawn from (project.Dependency), so a cached
    # result is only reused while they are unchanged.
    dependencies: tuple = ()

    @property
    def fixes(self):
        """[(Diagnostic, tuple of Edit)] of the diagnostics that have a safe fix."""
        return [(diagnostic, diagnostic.fix) for diagnostic in self.diagnostics
                if diagnostic.fix]
