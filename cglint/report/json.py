"""A JSON object: how many files were checked, and the findings, each with its rule's
name and documentation URL, start and end positions, whether `--fix` can fix it and the edits it would make."""
import json

from cglint import engine, ruledocs
from cglint.diagnostics import is_safe


def end_of(diagnostic):
    """(end_line, end_col); findings without an end (CG002) end where they start."""
    if diagnostic.end_line:
        return diagnostic.end_line, diagnostic.end_col
    return diagnostic.line, diagnostic.col


def edit_dict(edit):
    return {"line": edit.line, "col": edit.col, "end_line": edit.end_line,
            "end_col": edit.end_col, "text": edit.text}


def write(out, findings, run=None):
    rules = engine.rules()
    records = []
    for diagnostic, edits in findings:
        end_line, end_col = end_of(diagnostic)
        rule = rules.get(diagnostic.code)
        records.append({
            "path": diagnostic.path,
            "code": diagnostic.code,
            "name": rule.name if rule else "",
            "url": ruledocs.url(diagnostic.code) if rule else None,
            "message": diagnostic.message,
            "line": diagnostic.line,
            "col": diagnostic.col,
            "end_line": end_line,
            "end_col": end_col,
            "fixable": bool(edits) and is_safe(edits),  # by --fix without --unsafe-fixes
            "fix": [edit_dict(edit) for edit in edits] if edits else None,
            # As ruff says it: "safe" fixes `--fix` applies, "unsafe" ones need
            # `--unsafe-fixes`.
            "fix_applicability": ("safe" if is_safe(edits) else "unsafe") if edits else None,
            # CG301/CG302: whether their target Python (2.7) was assumed, nothing declaring
            # one (the text report's note); null for other findings
            "target_python_assumed": run.target_assumed(diagnostic) if run else None,
        })
    document = {"files_checked": run.files_checked if run else None, "findings": records}
    # ASCII escapes keep the output valid UTF-8 JSON even for undecodable file names.
    json.dump(document, out, indent=2)
    out.write("\n")
