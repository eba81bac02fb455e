"""A JSON list of findings with start and end positions and the edits of a fix."""
import json

from cglint.rules.base import is_safe


def end_of(diagnostic):
    """(end_line, end_col); findings without an end (CG002) end where they start."""
    if diagnostic.end_line:
        return diagnostic.end_line, diagnostic.end_col
    return diagnostic.line, diagnostic.col


def edit_dict(edit):
    return {"line": edit.line, "col": edit.col, "end_line": edit.end_line,
            "end_col": edit.end_col, "text": edit.text}


def write(out, findings):
    records = []
    for diagnostic, edits in findings:
        end_line, end_col = end_of(diagnostic)
        records.append({
            "path": diagnostic.path,
            "code": diagnostic.code,
            "message": diagnostic.message,
            "line": diagnostic.line,
            "col": diagnostic.col,
            "end_line": end_line,
            "end_col": end_col,
            "fix": [edit_dict(edit) for edit in edits] if edits else None,
            # As ruff says it: "safe" fixes `--fix` applies, "unsafe" ones need
            # `--unsafe-fixes`.
            "fix_applicability": ("safe" if is_safe(edits) else "unsafe") if edits else None,
        })
    # ASCII escapes keep the output valid UTF-8 JSON even for undecodable file names.
    json.dump(records, out, indent=2)
    out.write("\n")
