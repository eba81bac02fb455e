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

WRITERS = {"text": text.write, "json": json.write, "sarif": sarif.write,
           "github": github.write}
FORMATS = tuple(WRITERS)
