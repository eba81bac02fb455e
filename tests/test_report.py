"""Output formats: text, JSON, SARIF (checked against the official schema) and GitHub."""
import io
import json
import os

import pytest

from cglint.cli import main
from cglint.diagnostics import Diagnostic
from cglint.report import github, sarif
from cglint.rules.base import Edit

SCHEMA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data",
                      "sarif-schema-2.1.0.json")
BAD = (
    "import tensorflow as tf\n"
    "\n"
    "@tf.custom_gradient\n"
    "def f(x):\n"
    "    return x, lambda dy: (dy, dy)  # noqa: CG101\n"
)


@pytest.fixture
def tree(tmp_path, monkeypatch):
    """Two files with findings (one fixable: the unused noqa code) and a clean one."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "b.py").write_text(BAD)
    (tmp_path / "pkg" / "a b.py").write_text(BAD.replace("  # noqa: CG101", ""))
    (tmp_path / "pkg" / "clean.py").write_text("x = 1\n")
    return tmp_path


def output(capsys, *args):
    code = main(["pkg", "--report-unused-noqa", "--no-cache"] + list(args))
    out, err = capsys.readouterr()
    assert code == 1, err
    return out


def test_text_is_the_default(tree, capsys):
    assert output(capsys).splitlines() == [
        "pkg/a b.py:5:26: CG103 `f` takes 1 tensor input but its gradient function `lambda` "
        "returns 2 gradients",
        "pkg/b.py:5:26: CG103 `f` takes 1 tensor input but its gradient function `lambda` "
        "returns 2 gradients",
        "pkg/b.py:5:36: CG003 unused `noqa` code: CG101",
        "Found 3 findings in 3 files checked.",
    ]


def test_json(tree, capsys):
    records = json.loads(output(capsys, "--format", "json"))
    assert [(r["path"], r["code"]) for r in records] == [
        ("pkg/a b.py", "CG103"), ("pkg/b.py", "CG103"), ("pkg/b.py", "CG003")]
    assert records[0] == {
        "path": "pkg/a b.py", "code": "CG103",
        "message": "`f` takes 1 tensor input but its gradient function `lambda` returns "
                   "2 gradients",
        "line": 5, "col": 26, "end_line": 5, "end_col": 34, "fix": None}
    assert records[2]["fix"] == [
        {"line": 5, "col": 34, "end_line": 5, "end_col": 49, "text": ""}]


def test_json_of_no_findings_is_an_empty_list(tree, capsys):
    assert main(["pkg/clean.py", "--format", "json"]) == 0
    assert json.loads(capsys.readouterr().out) == []


def test_sarif_is_valid_against_the_schema(tree, capsys):
    jsonschema = pytest.importorskip("jsonschema")
    with open(SCHEMA) as handle:
        schema = json.load(handle)
    log = json.loads(output(capsys, "--format", "sarif"))
    validator = jsonschema.validators.validator_for(schema)
    validator.check_schema(schema)
    errors = sorted(validator(schema).iter_errors(log), key=str)
    assert not errors, errors[0]
    run = log["runs"][0]
    rules = run["tool"]["driver"]["rules"]
    results = run["results"]
    assert [r["ruleId"] for r in results] == ["CG103", "CG103", "CG003"]
    assert all(rules[r["ruleIndex"]]["id"] == r["ruleId"] for r in results if "ruleIndex" in r)
    location = results[0]["locations"][0]["physicalLocation"]
    assert location == {"artifactLocation": {"uri": "pkg/a%20b.py", "uriBaseId": "%SRCROOT%"},
                        "region": {"startLine": 5, "startColumn": 26, "endLine": 5,
                                   "endColumn": 34}}
    [fix] = results[2]["fixes"]
    assert fix["artifactChanges"][0]["replacements"] == [{
        "deletedRegion": {"startLine": 5, "startColumn": 34, "endLine": 5, "endColumn": 49},
        "insertedContent": {"text": ""}}]


def test_sarif_absolute_paths_and_findings_without_an_end(tmp_path):
    jsonschema = pytest.importorskip("jsonschema")
    with open(SCHEMA) as handle:
        schema = json.load(handle)
    path = str(tmp_path / "x y.py")
    findings = [(Diagnostic(path, 1, 1, "CG002", "cannot read: denied"), None),
                (Diagnostic("rel.py", 2, 3, "CG999", "a code no rule has", 2, 5),
                 (Edit(2, 3, 2, 5, "z"),))]
    stream = io.StringIO()
    sarif.write(stream, findings)
    log = json.loads(stream.getvalue())
    jsonschema.validators.validator_for(schema)(schema).validate(log)
    first = log["runs"][0]["results"][0]["locations"][0]["physicalLocation"]
    assert first["artifactLocation"]["uri"].startswith("file:///")
    assert first["region"] == {"startLine": 1, "startColumn": 1, "endLine": 1, "endColumn": 1}


def test_github_annotations(tree, capsys):
    lines = output(capsys, "--format", "github").splitlines()
    assert lines[0] == (
        "::error file=pkg/a b.py,line=5,col=26,title=CG103::`f` takes 1 tensor input but its "
        "gradient function `lambda` returns 2 gradients")
    assert lines[2] == "::error file=pkg/b.py,line=5,col=36,title=CG003::unused `noqa` code: CG101"


def test_github_escaping():
    stream = io.StringIO()
    github.write(stream, [(Diagnostic("a,b:c%.py", 1, 2, "CG001", "50% bad\nline two"), None)])
    assert stream.getvalue() == (
        "::error file=a%2Cb%3Ac%25.py,line=1,col=2,title=CG001::50%25 bad%0Aline two\n")


@pytest.mark.parametrize("format_", ["text", "json", "sarif", "github"])
def test_output_is_stable_whatever_the_order_files_were_made_in(tmp_path, monkeypatch, capsys,
                                                                format_):
    outputs = []
    for names in (("a", "b", "c"), ("c", "a", "b")):
        folder = tmp_path / "".join(names)
        folder.mkdir()
        monkeypatch.chdir(folder)
        os.mkdir("pkg")
        for name in names:
            with open(os.path.join("pkg", name + ".py"), "w") as handle:
                handle.write(BAD * 2)
        main(["pkg", "--format", format_, "--report-unused-noqa", "--no-cache"])
        outputs.append(capsys.readouterr().out)
    assert outputs[0] == outputs[1]


def test_control_characters_in_file_names_never_reach_the_terminal(tmp_path, monkeypatch, capsys):
    """A newline in a name could forge a finding line, an escape sequence drive the
    terminal: text and github show them escaped, JSON and SARIF keep the exact name."""
    monkeypatch.chdir(tmp_path)
    from snippets import BAD

    names = ["evil\nfake.py:1:1: CG999 forged.py", "esc\x1b[2Jclear.py", "bidi\u202ecod.py"]
    for name in names:
        (tmp_path / name).write_text(BAD)
    for format_ in ("text", "github"):
        assert main(["--no-cache", "--format", format_, "."]) == 1
        out, err = capsys.readouterr()
        assert "\x1b" not in out + err and "\u202e" not in out
        lines = out.splitlines()
        assert not any(line.startswith("fake.py") for line in lines)
        assert sum("CG103" in line for line in lines) == 3
        assert "esc\\x1b[2Jclear.py" in out and "bidi\\u202ecod.py" in out
        assert ("evil\\nfake.py" in out) if format_ == "text" else ("evil%0Afake.py" in out)
    assert main(["--no-cache", "--format", "json", "."]) == 1
    found = {entry["path"] for entry in json.loads(capsys.readouterr().out)}
    assert found == set(names)
