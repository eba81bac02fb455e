"""SARIF 2.1.0, the format GitHub code scanning and other dashboards read.

One run; every rule listed with its documentation; relative paths stay relative, under
the `%SRCROOT%` base id that code-scanning uploaders resolve to the checkout. Nothing in it
depends on the time or the machine, so equal findings give equal bytes.
"""
import json
import os

from cglint import __version__, ruledocs
from cglint.report.json import end_of
from cglint.diagnostics import is_safe
from cglint.rules import all_rules

SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"
ROOT = "%SRCROOT%"


def artifact(path):
    """A SARIF artifactLocation for a reported path."""
    import pathlib  # here: two slow imports that only SARIF output needs
    from urllib.parse import quote

    if os.path.isabs(path):
        return {"uri": pathlib.Path(path).as_uri()}
    # (the file system's bytes, percent-encoded: a name that is not UTF-8 has surrogates)
    return {"uri": quote(os.fsencode(path.replace(os.sep, "/"))), "uriBaseId": ROOT}


def region(line, col, end_line, end_col):
    return {"startLine": line, "startColumn": col, "endLine": end_line, "endColumn": end_col}


def rule_descriptor(rule):
    return {
        "id": rule.code,
        "name": rule.name,
        "shortDescription": {"text": rule.summary()},
        "fullDescription": {"text": rule.documentation()},
        "help": {"text": rule.documentation()},
        "helpUri": ruledocs.url(rule.code),
        "defaultConfiguration": {"level": "error"},
    }


def result(diagnostic, edits, rule_index, assumed=False):
    location = {"physicalLocation": {
        "artifactLocation": artifact(diagnostic.path),
        "region": region(diagnostic.line, diagnostic.col, *end_of(diagnostic)),
    }}
    entry = {"ruleId": diagnostic.code, "level": "error",
             "message": {"text": diagnostic.message}, "locations": [location]}
    if diagnostic.code in rule_index:
        entry["ruleIndex"] = rule_index[diagnostic.code]
    if assumed:
        entry["properties"] = {"targetPythonAssumed": True}
    if edits:
        entry["fixes"] = [{
            "description": {"text": "cglint --fix" if is_safe(edits) else
                            "cglint --fix --unsafe-fixes"},
            "artifactChanges": [{
                "artifactLocation": artifact(diagnostic.path),
                "replacements": [{
                    "deletedRegion": region(edit.line, edit.col, edit.end_line, edit.end_col),
                    "insertedContent": {"text": edit.text},
                } for edit in edits],
            }],
        }]
    return entry


def log(findings, run=None):
    rules = list(all_rules().values())
    rule_index = {rule.code: index for index, rule in enumerate(rules)}
    return {
        "$schema": SCHEMA,
        "version": "2.1.0",
        "runs": [{
            "tool": {"driver": {
                "name": "cglint",
                "version": __version__,
                "rules": [rule_descriptor(rule) for rule in rules],
            }},
            "columnKind": "unicodeCodePoints",
            "results": [result(d, edits, rule_index, bool(run and run.target_assumed(d)))
                        for d, edits in findings],
        }],
    }


def write(out, findings, run=None):
    json.dump(log(findings, run), out, indent=2, ensure_ascii=False)
    out.write("\n")
