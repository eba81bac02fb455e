"""What a rule reports: a code, a position, a one-line message."""
from dataclasses import dataclass, field


@dataclass(frozen=True, order=True)
class Diagnostic:
    path: str
    line: int  # 1-based
    col: int  # 1-based, like flake8 and ruff
    code: str
    message: str
    end_line: int = field(default=0, compare=False)
    end_col: int = field(default=0, compare=False)
    # Other lines where a `# noqa` also silences it: a function's `def` and decorators.
    noqa_lines: tuple = field(default=(), compare=False)

    def format_text(self):
        return "%s:%d:%d: %s %s" % (self.path, self.line, self.col, self.code, self.message)
