"""Output formats. Each writer takes the sorted findings as (Diagnostic, edits or None),
edits being the fix `--fix` would apply, and optionally the Run they came from."""
from dataclasses import dataclass

from cglint.report import github, json, sarif, text


@dataclass
class Run:
    """What a writer may show beyond the findings themselves."""

    files_checked: int = 0
    show_source: bool = False  # code frames under each finding (text)
    color: bool = False  # ANSI colors (text)
    lines_of: object = None  # a function: path -> the file's lines as checked, or None
    # paths (as shown) whose target Python nothing set or declared: 2.7 was assumed
    assumed_target: frozenset = frozenset()

    def target_assumed(self, diagnostic):
        """For a finding about the target Python (CG301, CG302): whether that target was
        assumed, not set or declared; None for any other finding."""
        if diagnostic.code not in PYTHON_TARGET_CODES:
            return None
        return diagnostic.path in self.assumed_target


# The findings that depend on the target Python.
PYTHON_TARGET_CODES = frozenset(("CG301", "CG302"))

WRITERS = {"text": text.write, "json": json.write, "sarif": sarif.write,
           "github": github.write}
FORMATS = tuple(WRITERS)
