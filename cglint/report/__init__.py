"""Output formats. Each writer takes the sorted findings as (Diagnostic, edits or None)."""
from cglint.report import github, json, sarif, text

WRITERS = {"text": text.write, "json": json.write, "sarif": sarif.write,
           "github": github.write}
FORMATS = tuple(WRITERS)
