"""Output formats: text, JSON, SARIF (checked against the official schema) and GitHub."""
import io
import json
import os

import pytest

from cglint import ruledocs
from cglint.cli import main
from cglint.diagnostics import Diagnostic, Edit
from cglint.source import Span
from cglint.report import github, sarif

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

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
        "pkg/b.py:5:36: CG003 [*] unused `noqa` code: CG101",
        "Found 3 findings in 3 files checked.",
        "[*] 1 fixable with `--fix`.",
    ]


def test_json(tree, capsys):
    document = json.loads(output(capsys, "--format", "json"))
    assert document["files_checked"] == 3
    records = document["findings"]
    assert [(r["path"], r["code"]) for r in records] == [
        ("pkg/a b.py", "CG103"), ("pkg/b.py", "CG103"), ("pkg/b.py", "CG003")]
    assert records[0] == {
        "path": "pkg/a b.py", "code": "CG103", "name": "gradient-count-mismatch",
        "url": ruledocs.url("CG103"),
        "message": "`f` takes 1 tensor input but its gradient function `lambda` returns "
                   "2 gradients",
        "line": 5, "col": 26, "end_line": 5, "end_col": 34, "fixable": False, "fix": None,
        "fix_applicability": None, "target_python_assumed": None}
    assert records[2]["fixable"] is True and records[2]["name"] == "unused-noqa"
    assert records[2]["url"].endswith("/docs/rules/CG003.md")
    assert records[2]["fix"] == [
        {"line": 5, "col": 34, "end_line": 5, "end_col": 49, "text": ""}]


def test_json_of_no_findings_is_an_empty_list(tree, capsys):
    assert main(["pkg/clean.py", "--format", "json"]) == 0
    assert json.loads(capsys.readouterr().out) == {"files_checked": 1, "findings": []}


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
    assert all(rule["helpUri"] == ruledocs.url(rule["id"]) for rule in rules)
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
                 (Edit(Span(2, 3, 2, 5), "z"),))]
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
        "::error file=pkg/a b.py,line=5,endLine=5,col=26,endColumn=34,title=CG103::`f` takes "
        "1 tensor input but its gradient function `lambda` returns 2 gradients")
    assert lines[2] == ("::error file=pkg/b.py,line=5,endLine=5,col=36,endColumn=49,"
                        "title=CG003::unused `noqa` code: CG101")


def test_github_escaping():
    stream = io.StringIO()
    github.write(stream, [(Diagnostic("a,b:c%.py", 1, 2, "CG001", "50% bad\nline two"), None)])
    assert stream.getvalue() == (
        "::error file=a%2Cb%3Ac%25.py,line=1,endLine=1,col=2,endColumn=2,title=CG001::"
        "50%25 bad%0Aline two\n")


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


def test_json_and_sarif_say_whether_a_fix_is_safe():
    import io
    import json as json_module
    from cglint.diagnostics import Diagnostic
    from cglint.report import json as json_report, sarif
    from cglint.rules.base import Edit, Span
    safe = Diagnostic("a.py", 2, 5, "CG402", "m", 2, 16)
    unsafe = Diagnostic("a.py", 3, 1, "CG402", "m", 3, 20)
    findings = [(safe, (Edit(Span(2, 5, 2, 16), "tf.log"),)),
                (unsafe, (Edit(Span(3, 1, 3, 20), "tf.set_random_seed", False),)),
                (Diagnostic("a.py", 4, 1, "CG401", "m", 4, 9), None)]
    out = io.StringIO()
    json_report.write(out, findings)
    records = json_module.loads(out.getvalue())["findings"]
    assert [r["fix_applicability"] for r in records] == ["safe", "unsafe", None]
    assert [r["fixable"] for r in records] == [True, False, False]
    out = io.StringIO()
    sarif.write(out, findings)
    results = json_module.loads(out.getvalue())["runs"][0]["results"]
    assert [r["fixes"][0]["description"]["text"] for r in results[:2]] == [
        "cglint --fix", "cglint --fix --unsafe-fixes"]


FRAMED = (
    "import tensorflow as tf\n"
    "\n"
    "@tf.custom_gradient\n"
    "def f(x):\n"
    "\treturn x, lambda dy: (dy, dy)  # \x1b[31m\n"
    "x = f'{1}'\n"
)


def on_a_terminal(args, cwd, **environ):
    """Run `python -m cglint ARGS` with its standard output on a pseudo-terminal."""
    import pty
    import subprocess
    import sys

    leader, follower = pty.openpty()
    env = {name: value for name, value in os.environ.items() if name != "NO_COLOR"}
    env.update(environ, PYTHONPATH=os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    child = subprocess.Popen([sys.executable, "-m", "cglint", "--no-cache"] + args,
                             cwd=str(cwd), stdout=follower, stderr=subprocess.DEVNULL, env=env)
    os.close(follower)
    chunks = []
    while True:
        try:
            chunk = os.read(leader, 65536)
        except OSError:  # EIO: the child closed the terminal
            break
        if not chunk:
            break
        chunks.append(chunk)
    os.close(leader)
    child.wait(timeout=120)
    return b"".join(chunks).decode("utf-8").replace("\r\n", "\n")


def test_code_frames_and_color_on_a_terminal_only(tmp_path, capsys, monkeypatch):
    (tmp_path / "m.py").write_text(FRAMED)
    shown = on_a_terminal(["m.py"], tmp_path)
    assert "\033[1;31mCG301\033[0m \033[36m[*]\033[0m f-string" in shown
    assert "\033[34m6 |\033[0m x = f'{1}'\n" in shown
    plain = on_a_terminal(["m.py"], tmp_path, NO_COLOR="1")
    assert "\033" not in plain.replace("\\x1b", "")
    assert plain.split("\n", 1)[1].startswith(
        "  |\n"
        "4 | def f(x):\n"
        "5 |     return x, lambda dy: (dy, dy)  # \\x1b[31m\n"
        "  |                          ^^^^^^^^ CG103\n"
        "  |\n"
        "\n")
    assert "6 | x = f'{1}'\n  |     ^^^^^^ CG301\n" in plain
    assert "\033" not in on_a_terminal(["m.py", "--color", "never"], tmp_path)
    assert " | " not in on_a_terminal(["m.py", "--no-show-source"], tmp_path)
    # Piped: neither, unless asked for.
    monkeypatch.chdir(tmp_path)
    main(["m.py", "--no-cache"])
    piped = capsys.readouterr().out
    assert "\033" not in piped and " | " not in piped
    main(["m.py", "--no-cache", "--show-source", "--color", "always"])
    asked = capsys.readouterr().out
    assert "\033[34m6 |\033[0m x = f'{1}'\n" in asked


def test_fixable_count_and_show_fixes(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "m.py").write_text(FRAMED.replace("\x1b[31m", "noqa: CG101"))
    main(["m.py", "--no-cache", "--show-fixes", "--report-unused-noqa", "--statistics",
          "--target-python", "2.7"])
    out = capsys.readouterr().out
    assert "    1  CG003  [*] unused-noqa\n    1  CG103  gradient-count-mismatch\n" in out
    assert out.endswith(
        "Would fix 2 findings:\n"
        "- m.py:\n"
        "    1 \u00d7 CG003 (unused-noqa)\n"
        "    1 \u00d7 CG301 (f-string)\n"
        "Found 3 findings in 1 file checked.\n"
        "[*] 2 fixable with `--fix`.\n")
    assert main(["m.py", "--no-cache", "--show-fixes", "--report-unused-noqa", "--fix"]) == 1
    out = capsys.readouterr().out
    assert "[*]" not in out
    assert out.endswith(
        "Fixed 2 findings:\n"
        "- m.py:\n"
        "    1 \u00d7 CG003 (unused-noqa)\n"
        "    1 \u00d7 CG301 (f-string)\n"
        "Fixed 2 findings.\n"
        "Found 1 finding in 1 file checked.\n")


def test_the_readmes_github_workflow_uploads_valid_sarif_and_passes(tmp_path):
    """The cglint step of the README's workflow, run as written: exit 0 despite findings,
    and the file the upload step names is SARIF valid against the 2.1.0 schema."""
    import subprocess
    import sys

    jsonschema = pytest.importorskip("jsonschema")
    yaml = pytest.importorskip("yaml")
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    with open(os.path.join(root, "README.md"), encoding="utf-8") as handle:
        readme = handle.read()
    workflow = yaml.safe_load(
        readme.split("### GitHub Actions", 1)[1].split("```yaml\n", 1)[1].split("```")[0])
    [steps] = [job["steps"] for job in workflow["jobs"].values()]
    [command] = [step["run"] for step in steps if step.get("run", "").startswith("cglint ")]
    [upload] = [step["with"] for step in steps if "upload-sarif" in step.get("uses", "")]
    (tmp_path / "bin").mkdir()
    (tmp_path / "bin" / "cglint").write_text(
        "#!/bin/sh\nPYTHONPATH=%s exec %s -m cglint \"$@\"\n" % (root, sys.executable))
    (tmp_path / "bin" / "cglint").chmod(0o755)
    checkout = tmp_path / "checkout"
    (checkout / "pkg").mkdir(parents=True)
    (checkout / "pkg" / "b.py").write_text(BAD)
    done = subprocess.run(command, shell=True, cwd=str(checkout), capture_output=True,
                          env=dict(os.environ, PATH="%s%s%s" % (
                              tmp_path / "bin", os.pathsep, os.environ["PATH"])))
    assert done.returncode == 0 and done.stdout == b"", done.stderr
    with open(SCHEMA) as handle:
        schema = json.load(handle)
    log = json.loads((checkout / upload["sarif_file"]).read_text())
    jsonschema.validators.validator_for(schema)(schema).validate(log)
    assert [r["ruleId"] for r in log["runs"][0]["results"]] == ["CG103"]


def test_text_escapes_control_characters_in_names_messages_and_frames():
    from cglint.report import Run, text

    stream = io.StringIO()
    finding = Diagnostic("evil\x1b[2J.py", 1, 5, "CG001", "bad \x1b]0;title\x07 here", 1, 10)
    text.write(stream, [(finding, None)], Run(1, True, False, lambda path: ["x = \x1b[31m\tq"]))
    assert "\x1b" not in stream.getvalue() and "\x07" not in stream.getvalue()
    assert stream.getvalue().startswith(
        "evil\\x1b[2J.py:1:5: CG001 bad \\x1b]0;title\\x07 here\n"
        "  |\n"
        "1 | x = \\x1b[31m   q\n"
        "  |     ^^^^^^^^ CG001\n")


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
    found = {entry["path"] for entry in json.loads(capsys.readouterr().out)["findings"]}
    assert found == set(names)


@pytest.mark.parametrize("fmt", ["text", "github", "json", "sarif"])
def test_a_file_name_that_is_not_utf8_is_reported_in_every_format(tmp_path, fmt):
    """`bad\\xff.py` crashed SARIF (its URI) and every report written with -o (probe)."""
    import subprocess
    import sys

    os.mkdir(os.path.join(str(tmp_path).encode(), b"src"))
    with open(os.path.join(str(tmp_path).encode(), b"src", b"bad\xff.py"), "wb") as handle:
        handle.write(b"x = f'{1}'\n")
    env = dict(os.environ, PYTHONPATH=ROOT)
    for output in ([], ["-o", "report.out"]):
        done = subprocess.run([sys.executable, "-m", "cglint", "--no-cache", "--format", fmt,
                               "src"] + output, cwd=str(tmp_path), capture_output=True,
                              env=env, timeout=120)
        assert done.returncode == 1 and b"Traceback" not in done.stderr, done.stderr
        text = (tmp_path / "report.out").read_bytes() if output else done.stdout
        assert b"CG301" in text
        if fmt == "sarif":
            assert b'"uri": "src/bad%FF.py"' in text


def test_unsafe_fixes_left_out_are_counted_as_hidden(tmp_path, capsys, monkeypatch):
    # CG403's positional cross-entropy fix is unsafe: --fix leaves it, and the summary
    # says how to take it (as ruff does), never counting it fixable
    monkeypatch.chdir(tmp_path)
    source = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                          "fixtures", "CG403", "bad_positional_cross_entropy.py")
    with open(source) as handle:
        (tmp_path / "m.py").write_text(handle.read())
    main(["m.py", "--no-cache", "--select", "CG403"])
    out = capsys.readouterr().out
    assert "[*]" not in out
    assert out.endswith("No fixes available (1 hidden fix can be enabled with "
                        "`--unsafe-fixes`).\n")
    main(["m.py", "--no-cache", "--select", "CG403", "--unsafe-fixes"])
    assert capsys.readouterr().out.endswith("[*] 1 fixable with `--fix`.\n")
    (tmp_path / "m.py").write_text((tmp_path / "m.py").read_text() + "\nz = tf.math.log(x)\n")
    main(["m.py", "--no-cache", "--select", "CG403,CG402"])
    assert capsys.readouterr().out.endswith(
        "[*] 1 fixable with `--fix` (1 hidden fix can be enabled with `--unsafe-fixes`).\n")


def test_json_and_sarif_say_when_the_target_python_was_assumed(tmp_path, capsys, monkeypatch):
    # (probe Z2) only the text report said that CG301/CG302 rest on an assumed 2.7
    monkeypatch.chdir(tmp_path)
    (tmp_path / "m.py").write_text("def f():\n    return f'{1}'\n")
    main(["m.py", "--no-cache", "--format", "json"])
    finding, = json.loads(capsys.readouterr().out)["findings"]
    assert finding["code"] == "CG301" and finding["target_python_assumed"] is True
    main(["m.py", "--no-cache", "--format", "json", "--target-python", "2.7"])
    assert json.loads(capsys.readouterr().out)["findings"][0]["target_python_assumed"] is False
    main(["m.py", "--no-cache", "--format", "sarif"])
    result, = json.loads(capsys.readouterr().out)["runs"][0]["results"]
    assert result["properties"] == {"targetPythonAssumed": True}
    (tmp_path / "m.py").write_text("import tensorflow as tf\ny = tf.math.log(1.0)\n")
    main(["m.py", "--no-cache", "--format", "json"])
    assert json.loads(capsys.readouterr().out)["findings"][0]["target_python_assumed"] is None
