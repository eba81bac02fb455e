"""The command as users run it: exit codes, output, discovery, hostile inputs."""
import io
import os
import subprocess
import sys

import pytest

from cglint.cli import main

from snippets import BAD, GOOD

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def cglint(args, cwd, stdin=b"", **environ):
    """`python -m cglint ARGS` in a child process: its CompletedProcess (bytes)."""
    return subprocess.run([sys.executable, "-m", "cglint"] + list(args), input=stdin,
                          stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=str(cwd),
                          env=dict(os.environ, PYTHONPATH=ROOT, **environ), timeout=300)


def run(args, capsys):
    code = main(args)
    out, err = capsys.readouterr()
    return code, out, err


def test_clean_file_exits_0(tmp_path, capsys):
    (tmp_path / "good.py").write_text(GOOD)
    code, out, _ = run([str(tmp_path)], capsys)
    assert code == 0
    assert "All clear: 1 file checked." in out


def test_findings_exit_1_sorted_by_path_and_position(tmp_path, capsys):
    (tmp_path / "b.py").write_text(BAD)
    (tmp_path / "a.py").write_text(BAD + BAD.replace("def f", "def g").split("\n", 2)[2])
    code, out, _ = run([str(tmp_path)], capsys)
    assert code == 1
    lines = [line for line in out.splitlines() if ": CG" in line]
    assert lines == sorted(lines, key=lambda l: (l.split(":")[0], int(l.split(":")[1])))
    assert lines[0].startswith(os.path.join(str(tmp_path), "a.py") + ":5:")
    assert "Found 3 findings in 2 files checked." in out


def test_usage_errors_exit_2(capsys):
    assert run([], capsys)[0] == 2
    assert run(["--select", "XYZ", "."], capsys)[0] == 2
    assert run(["--no-such-option"], capsys)[0] == 2
    assert run(["--explain", "CG999"], capsys)[0] == 2


def test_select_and_ignore_prefixes(tmp_path, capsys):
    path = tmp_path / "b.py"
    path.write_text(BAD)
    assert run([str(path), "--select", "CG2"], capsys)[0] == 0
    assert run([str(path), "--ignore", "CG103"], capsys)[0] == 0
    assert run([str(path), "--select", "CG1"], capsys)[0] == 1


def test_explain_and_list_rules(capsys):
    code, out, _ = run(["--explain", "cg103"], capsys)
    assert code == 0 and "Why it breaks on TF 1.8" in out and "Fix:" in out
    code, out, _ = run(["--list-rules"], capsys)
    codes = [line.split()[0] for line in out.splitlines()]
    assert codes == sorted(codes) and {"CG001", "CG002", "CG101", "CG110"} <= set(codes)


def test_every_rule_has_documentation_with_what_why_fix(capsys):
    from cglint.engine import rules
    for code, rule in rules().items():
        doc = rule.documentation()
        assert rule.name and doc.splitlines()[0].endswith("."), code
        assert "Fix:" in doc and ("Why" in doc), code


def test_stdin_with_filename(monkeypatch, capsys):
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(BAD.encode())))
    code, out, _ = run(["-", "--stdin-filename", "pkg/mod.py"], capsys)
    assert code == 1 and out.startswith("pkg/mod.py:5:")


def test_standard_input_named_twice_is_checked_once(tmp_path):
    # (probe p2) `cglint - -` said "2 files checked", the second one empty
    done = cglint(["--no-cache", "-", "-", "--stdin-filename", "m.py"], tmp_path, BAD.encode())
    assert done.returncode == 1 and done.stdout.count(b"CG103") == 1
    assert done.stdout.endswith(b"in 1 file checked.\n"), done.stdout
    done = cglint(["--no-cache", "--show-files", "-", "-"], tmp_path)
    assert done.stdout == b"-\n"


def test_statistics_and_quiet(tmp_path, capsys):
    (tmp_path / "b.py").write_text(BAD)
    code, out, _ = run([str(tmp_path), "--statistics", "--quiet"], capsys)
    assert code == 1
    assert "    1  CG103  gradient-count-mismatch" in out
    assert "Found" not in out


def test_hostile_tree_every_file_reported_and_the_rest_checked(tmp_path, capsys):
    (tmp_path / "bad.py").write_text(BAD)
    (tmp_path / "syntax.py").write_text("def f(:\n")
    (tmp_path / "latin.py").write_bytes(b"x = '\xff'\n")
    (tmp_path / "nul.py").write_bytes(b"x = 1\0\ny = 2\n")
    (tmp_path / "empty.py").write_bytes(b"")
    (tmp_path / "deep.py").write_text("x = " + "(" * 3000 + ")" * 3000 + "\n")
    (tmp_path / "dir.py").mkdir()
    (tmp_path / "dir.py" / "inner.py").write_text(GOOD)
    (tmp_path / "loop").symlink_to(tmp_path)
    (tmp_path / "dangling.py").symlink_to(tmp_path / "nowhere.py")
    os.mkfifo(str(tmp_path / "fifo.py"))
    (tmp_path / ".git").mkdir()
    (tmp_path / ".git" / "x.py").write_text(BAD)
    (tmp_path / "venv").mkdir()
    (tmp_path / "venv" / "pyvenv.cfg").write_text("")
    (tmp_path / "venv" / "x.py").write_text(BAD)
    unreadable = tmp_path / "secret.py"
    unreadable.write_text(BAD)
    unreadable.chmod(0)
    code, out, err = run([str(tmp_path), str(tmp_path / "missing.py")], capsys)
    assert code == 1 and "Traceback" not in out + err
    found = {(line.split(":")[0].replace(str(tmp_path) + os.sep, ""), line.split()[1])
             for line in out.splitlines() if ": CG" in line}
    expected = {("bad.py", "CG103"), ("syntax.py", "CG001"), ("latin.py", "CG002"),
                ("nul.py", "CG001"), ("deep.py", "CG001"), ("dangling.py", "CG002"),
                ("fifo.py", "CG002"), ("missing.py", "CG002")}
    if os.geteuid() != 0:  # root reads everything
        expected.add(("secret.py", "CG002"))
    assert expected <= found
    assert not any(name.startswith((".git", "venv", "empty", "dir.py")) for name, _ in found)


def test_python_m_cglint_runs_as_a_program(tmp_path):
    (tmp_path / "bad.py").write_text(BAD)
    done = subprocess.run([sys.executable, "-m", "cglint", str(tmp_path)],
                          capture_output=True, text=True)
    assert done.returncode == 1 and "CG103" in done.stdout


def test_target_python_3_reports_python2_syntax(tmp_path, capsys):
    (tmp_path / "old.py").write_text('print "x"\n')
    assert run([str(tmp_path)], capsys)[0] == 0
    code, out, _ = run([str(tmp_path), "--target-python", "3.6"], capsys)
    assert code == 1 and "CG001" in out and "Python 2 only syntax" in out


def test_readme_rule_table_lists_every_rule():
    from cglint.engine import rules
    readme = open(os.path.join(os.path.dirname(__file__), "..", "README.md")).read()
    missing = [code for code in rules() if "| %s |" % code not in readme]
    assert not missing, "README rule table lacks %s" % missing


def test_whole_run_findings_cross_files_cache_and_noqa(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "register.py").write_text(
        "import tensorflow as tf\n\n@tf.RegisterGradient('ClippedGrad')\n"
        "def _clipped(op, grad):\n    return tf.clip_by_value(grad, -5.0, 5.0)\n")
    use = ("import tensorflow as tf\nimport register\ng = tf.get_default_graph()\n"
           "with g.gradient_override_map({'Relu': 'ClipedGrad'}):\n"
           "    y = tf.nn.relu(tf.constant([1.0]))\n")
    (tmp_path / "use.py").write_text(use)
    for _ in range(2):  # cold, then from the cache
        code, out, _ = run(["register.py", "use.py"], capsys)
        assert code == 1 and "use.py:4:39: CG202" in out and "ClippedGrad" in out
    fixed = use.replace("'ClipedGrad'", "'ClippedGrad'")
    (tmp_path / "use.py").write_text(fixed)
    assert run(["register.py", "use.py"], capsys)[0] == 0
    (tmp_path / "use.py").write_text(use.replace("'ClipedGrad'}):", "'ClipedGrad'}):  # noqa: CG202"))
    code, out, _ = run(["register.py", "use.py", "--report-unused-noqa"], capsys)
    assert code == 0, out


def test_unsafe_fixes_apply_only_when_asked(tmp_path, capsys):
    path = tmp_path / "seed.py"
    source = "import tensorflow as tf\ntf.random.set_seed(1)\nx = tf.math.log(2.0)\n"
    path.write_text(source)
    assert run(["--no-cache", "--fix", str(path)], capsys)[0] == 1  # set_seed is left
    assert path.read_text() == source.replace("tf.math.log", "tf.log")
    assert run(["--no-cache", "--fix", "--unsafe-fixes", str(path)], capsys)[0] == 0
    assert path.read_text() == "import tensorflow as tf\ntf.set_random_seed(1)\nx = tf.log(2.0)\n"


def test_excluded_stdin_under_fix_comes_back_unchanged(tmp_path):
    (tmp_path / "pyproject.toml").write_text('[tool.cglint]\nexclude = ["vendor"]\n')
    source = (b"# -*- coding: latin-1 -*-\r\n" + BAD.replace("\n", "\r\n").encode()
              + b"# caf\xe9\r\n")
    done = cglint(["-", "--fix", "--stdin-filename", "vendor/x.py"], tmp_path, source)
    assert done.returncode == 0, done.stderr
    assert done.stdout == source
    assert done.stderr == b"All clear: 0 files checked.\n"
    # Without --fix: no finding and no warning (the editor asked about an excluded file).
    done = cglint(["-", "--stdin-filename", "vendor/x.py"], tmp_path, source)
    assert (done.returncode, done.stdout, done.stderr) == (
        0, b"All clear: 0 files checked.\n", b"")
    # Not excluded, the same buffer is checked (and its summary goes to stderr too).
    done = cglint(["-", "--fix", "--stdin-filename", "src/x.py"], tmp_path, source)
    assert done.returncode == 1 and b"CG103" in done.stderr and b"Found" not in done.stdout


@pytest.mark.parametrize("args, message", [
    (["check", "."], "no file or folder 'check'; subcommands are confirm, doctor, gradcheck, lsp"),
    (["--stdin-filename", "m.py"], "pass `-` as the path (`cglint - --stdin-filename m.py`)"),
    (["--stdin-filename", "m.py", "src"], "pass `-` as the path"),
    (["--format", "sarif", "--diff", "."], "cannot be combined with --format sarif"),
    (["--fix", "--diff", "."], "--fix and --diff cannot be combined"),
])
def test_usage_errors_say_what_to_do(tmp_path, args, message):
    done = cglint(args, tmp_path)
    assert done.returncode == 2 and done.stdout == b""
    assert message in done.stderr.decode(), done.stderr


def test_a_folder_named_like_a_subcommand_is_still_checked(tmp_path, capsys, monkeypatch):
    (tmp_path / "check").mkdir()
    (tmp_path / "check" / "m.py").write_text(BAD)
    monkeypatch.chdir(tmp_path)
    assert run(["check"], capsys)[0] == 1


def test_no_python_files_is_a_warning(tmp_path):
    (tmp_path / "empty").mkdir()
    (tmp_path / "notes.txt").write_text("x")
    done = cglint(["empty", "."], tmp_path)
    assert done.returncode == 0
    assert done.stderr == b"cglint: warning: no Python files found under empty, .\n"
    assert done.stdout == b"All clear: 0 files checked.\n"
    assert cglint(["-q", "empty"], tmp_path).stderr == b""


def test_exit_zero_and_output_file(tmp_path):
    (tmp_path / "m.py").write_text(BAD)
    done = cglint(["--exit-zero", "."], tmp_path)
    assert done.returncode == 0 and b"CG103" in done.stdout
    done = cglint([".", "--output-file", "report.sarif", "--format", "sarif"], tmp_path)
    assert done.returncode == 1 and done.stdout == b""
    import json

    results = json.loads((tmp_path / "report.sarif").read_text())["runs"][0]["results"]
    assert [result["ruleId"] for result in results] == ["CG103"]
    done = cglint([".", "-o", "report.txt"], tmp_path)
    assert (tmp_path / "report.txt").read_text().endswith("Found 1 finding in 1 file checked.\n")
    done = cglint([".", "-o", str(tmp_path / "no" / "such" / "dir")], tmp_path)
    assert done.returncode == 2 and b"cannot write" in done.stderr and b"Traceback" not in (
        done.stderr)


def test_show_files_and_show_settings(tmp_path):
    (tmp_path / "sub" / "gen").mkdir(parents=True)
    (tmp_path / "top.py").write_text(GOOD)
    (tmp_path / "sub" / "m.py").write_text(GOOD)
    (tmp_path / "sub" / "gen" / "g.py").write_text(GOOD)
    (tmp_path / "sub" / "setup.cfg").write_text(
        "[cglint]\nselect = CG1\nignore = CG103\nexclude = gen\ntarget-python = 3.6\n")
    done = cglint(["--show-files", "."], tmp_path)
    assert done.returncode == 0
    assert done.stdout.decode().splitlines() == ["sub/m.py", "top.py"]
    done = cglint(["--show-settings", "sub/m.py"], tmp_path)
    shown = done.stdout.decode()
    assert done.returncode == 0
    assert "Settings file: %s\n" % (tmp_path / "sub" / "setup.cfg") in shown
    assert "Rules (11): CG101 CG102 CG104 CG105" in shown and "CG103" not in shown
    assert "target-python: 3.6\n" in shown and "Excluded: no\n" in shown
    shown = cglint(["--show-settings", "sub/gen/g.py"], tmp_path).stdout.decode()
    assert "Excluded: yes\n" in shown
    shown = cglint(["--show-settings", "top.py"], tmp_path).stdout.decode()
    assert "Settings file: none (defaults)\n" in shown and "Rules (24)" in shown


def git(cwd, *args):
    subprocess.run(["git", "-c", "user.name=t", "-c", "user.email=t@t", "-C", str(cwd)]
                   + list(args), check=True, stdout=subprocess.DEVNULL)


def test_files_git_ignores_are_skipped_when_walking_a_folder(tmp_path):
    (tmp_path / "gen").mkdir()
    (tmp_path / "src").mkdir()
    for name in ("gen/a.py", "src/ops_pb2.py", "src/keep_pb2.py", "src/m.py", "t.py"):
        (tmp_path / name).write_text(BAD)
    (tmp_path / ".gitignore").write_text("gen/\n*_pb2.py\n!keep_pb2.py\n")
    # Outside a repository .gitignore means nothing (as in git and ruff).
    assert len(cglint(["--show-files", "."], tmp_path).stdout.splitlines()) == 5
    git(tmp_path, "init", "-q")
    (tmp_path / "t.py").write_text(BAD)
    (tmp_path / ".git" / "info" / "exclude").write_text("t.py\n")
    listed = cglint(["--show-files", "."], tmp_path).stdout.decode().splitlines()
    assert listed == ["src/keep_pb2.py", "src/m.py"]
    assert cglint(["--show-files", "."], tmp_path / "src").stdout.splitlines() == [
        b"keep_pb2.py", b"m.py"]
    done = cglint(["."], tmp_path)
    assert done.returncode == 1 and b"2 files checked" in done.stdout
    # Named explicitly, an ignored file is checked; a tracked file is never ignored.
    assert b"1 file checked" in cglint(["gen/a.py"], tmp_path).stdout
    git(tmp_path, "add", "-f", "t.py")
    assert b"t.py" in cglint(["--show-files", "."], tmp_path).stdout
    # Turned off on the command line or in the settings file.
    assert len(cglint(["--show-files", "--no-respect-gitignore", "."],
                      tmp_path).stdout.splitlines()) == 5
    (tmp_path / "pyproject.toml").write_text("[tool.cglint]\nrespect-gitignore = false\n")
    assert len(cglint(["--show-files", "."], tmp_path).stdout.splitlines()) == 5


def test_the_checked_repositorys_git_config_runs_no_command(tmp_path):
    """A `.git/config` in the checked tree is untrusted input: git runs the command
    `core.fsmonitor` names while it reads the index (the `git ls-files` that honours
    .gitignore), so linting a downloaded archive could run anything (probe)."""
    marker = tmp_path / "ran"
    git(tmp_path, "init", "-q")
    git(tmp_path, "config", "core.fsmonitor", "touch '%s'; false" % marker)
    (tmp_path / "a.py").write_text(GOOD)
    (tmp_path / ".gitignore").write_text("gen/\n")
    (tmp_path / "gen").mkdir()
    (tmp_path / "gen" / "b.py").write_text(BAD)
    assert cglint(["--show-files", "."], tmp_path).stdout.splitlines() == [b"a.py"]
    assert not marker.exists()


LEGACY = (
    "# -*- coding: latin-1 -*-\n"
    "import tensorflow as tf\n"
    "\n"
    "@tf.custom_gradient\n"
    "def f(x):\n"
    "    return x, lambda dy: (dy, dy)\n"
    "\n"
    "s = '''caf\xe9\n"
    "%s''' % tf.no_such(\n"
    "    1)\n"
    "tf.print('x')  # noqa: CG402 kept\n"
    "x = '%d' % 1 + tf.nope \\\n"
    "    + 'y'\n"
)


def test_add_noqa_silences_every_finding_once_keeping_encoding_and_line_endings(tmp_path):
    path = tmp_path / "legacy.py"
    path.write_bytes(LEGACY.replace("\n", "\r\n").encode("latin-1"))
    done = cglint(["--add-noqa", "."], tmp_path)
    assert done.returncode == 0, done.stderr
    assert done.stderr.decode().splitlines() == [
        "Added noqa directives for 3 findings in 1 file.",
        "cglint: 1 finding could not take a noqa comment (a line that ends inside a string "
        "or after a backslash)"]
    assert path.read_bytes().decode("latin-1").split("\r\n") == (
        "# -*- coding: latin-1 -*-\n"
        "import tensorflow as tf\n"
        "\n"
        "@tf.custom_gradient\n"
        "def f(x):\n"
        "    return x, lambda dy: (dy, dy)  # noqa: CG103\n"
        "\n"
        "s = '''caf\xe9\n"
        "%s''' % tf.no_such(  # noqa: CG402\n"
        "    1)\n"
        "tf.print('x')  # noqa: CG402, CG401 kept\n"
        "x = '%d' % 1 + tf.nope \\\n"
        "    + 'y'\n").split("\n")
    before = path.read_bytes()
    done = cglint(["--add-noqa", "."], tmp_path)
    assert done.returncode == 0 and path.read_bytes() == before  # idempotent
    assert b"for 0 findings in 0 files" in done.stderr
    done = cglint(["."], tmp_path)
    assert done.stdout.decode().splitlines()[0].startswith("legacy.py:12:16: CG402")
    assert b"Found 1 finding" in done.stdout  # the one after a backslash


def test_add_noqa_is_a_usage_error_with_fix_diff_or_stdin(tmp_path):
    for extra in (["--fix"], ["--diff"], ["-"]):
        done = cglint(["--add-noqa", "."] + extra, tmp_path)
        assert done.returncode == 2 and b"--add-noqa changes files in place" in done.stderr


def test_add_noqa_on_python_2_syntax(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "old.py").write_text('import tensorflow as tf\nprint "x", `tf.nope`\n')
    assert run(["--add-noqa", "--no-cache", "old.py"], capsys)[0] == 0
    assert (tmp_path / "old.py").read_text().splitlines()[1] == (
        'print "x", `tf.nope`  # noqa: CG402')
    assert run(["--no-cache", "old.py"], capsys)[0] == 0


def test_explain_by_name_with_the_docs_url(capsys):
    from cglint import ruledocs

    code, out, _ = run(["--explain", "gradient-count-mismatch"], capsys)
    assert code == 0 and out.startswith("CG103 (gradient-count-mismatch)\n")
    assert out.endswith("\n\n%s\n" % ruledocs.url("CG103"))
    assert run(["--explain", "no-such-rule"], capsys)[0] == 2


def test_rule_doc_pages_are_up_to_date():
    """docs/rules/ is generated (tools/gen_rule_docs.py): rerun it after changing a rule's
    docstring or its fixtures."""
    import importlib.util

    spec = importlib.util.spec_from_file_location(
        "gen_rule_docs", os.path.join(ROOT, "tools", "gen_rule_docs.py"))
    generator = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(generator)
    folder = os.path.join(ROOT, "docs", "rules")
    on_disk = {}
    for name in os.listdir(folder):
        with open(os.path.join(folder, name), encoding="utf-8") as handle:
            on_disk[name] = handle.read()
    wanted = generator.pages()
    assert sorted(on_disk) == sorted(wanted), "run tools/gen_rule_docs.py"
    stale = [name for name in wanted if on_disk[name] != wanted[name]]
    assert not stale, "stale (run tools/gen_rule_docs.py): %s" % stale
    assert "## Example that breaks" in wanted["CG103.md"]
    assert "## Example that works" in wanted["CG103.md"]


def test_the_readme_documents_every_option():
    from cglint.cli import build_parser

    with open(os.path.join(ROOT, "README.md"), encoding="utf-8") as handle:
        readme = handle.read()
    options = [option for action in build_parser()._actions for option in action.option_strings
               if option.startswith("--") and option not in ("--help", "--version")]
    missing = [option for option in options if option not in readme]
    assert not missing, missing


def test_the_subcommands_named_for_a_missing_path_are_those_main_dispatches():
    """Kept in step by hand (cli.SUBCOMMANDS): this fails when a subcommand is added to
    main() but not to the list."""
    import inspect
    import re

    from cglint import cli

    dispatched = re.findall(r'argv\[:1\] == \["([a-z-]+)"\]', inspect.getsource(cli.main))
    assert dispatched and sorted(dispatched) == sorted(cli.SUBCOMMANDS)


@pytest.mark.parametrize("extra", [[], ["--fix"], ["--add-noqa"], ["--format", "json"]])
def test_the_report_never_replaces_a_file_it_checks(tmp_path, extra):
    """`cglint a.py -o a.py` emptied a.py before reading it (probe): a usage error now,
    for the file under any name (a link, a folder holding it), before anything is
    opened; another existing file is the report's to replace."""
    (tmp_path / "a.py").write_text(BAD)
    (tmp_path / "link.py").symlink_to("a.py")
    for target, paths in (("a.py", ["a.py"]), ("./a.py", ["."]), ("link.py", ["a.py"])):
        done = cglint(extra + paths + ["-o", target], tmp_path)
        assert done.returncode == 2 and b"is one of the files to check" in done.stderr
        assert (tmp_path / "a.py").read_text() == BAD
    (tmp_path / "report.txt").write_text("old report")
    done = cglint(["a.py", "-o", "report.txt"], tmp_path)
    assert done.returncode == 1 and "CG" in (tmp_path / "report.txt").read_text()


@pytest.mark.parametrize("value", ["", ",,", " "])
def test_a_select_of_no_code_is_a_usage_error(tmp_path, value):
    """`--select ''` ran no rule and said "All clear" (probe): as `select = []` in a
    settings file, an error that names it."""
    (tmp_path / "a.py").write_text(BAD)
    done = cglint(["--select", value, "a.py"], tmp_path)
    assert done.returncode == 2 and b"selects no rule" in done.stderr


def test_an_empty_select_with_extend_select_selects_those(tmp_path):
    """ruff's way to say "only these" (review): `select = []` with `extend-select`."""
    (tmp_path / "a.py").write_text("x = f'{1}'\n")
    done = cglint(["--select", "", "--extend-select", "CG301", "a.py"], tmp_path)
    assert done.returncode == 1 and b"CG301" in done.stdout
    (tmp_path / "pyproject.toml").write_text(
        '[tool.cglint]\nselect = []\nextend-select = ["CG301"]\n')
    done = cglint(["a.py"], tmp_path)
    assert done.returncode == 1 and b"CG301" in done.stdout


def test_a_note_says_when_syntax_findings_assume_python_2(tmp_path, capsys):
    # A Python 3 project that declares nothing is judged as 2.7: the text report says so
    # once, with the way out, and only when a syntax finding rests on that assumption.
    (tmp_path / "py3.py").write_text('def f(x, *, y=1):\n    print(f"{x}", end="")\n')
    (tmp_path / "bad.py").write_text(BAD)
    code, out, _ = run([str(tmp_path), "--no-cache"], capsys)
    assert code == 1
    assert out.splitlines()[-1] == (
        "Note: 3 syntax findings assume Python 2.7, as no settings or project file says "
        "which Python the code runs on; for code that runs on Python 3 only, pass "
        "`--target-python 3.6` or declare it (`python_requires`, `requires-python` or the "
        "cglint setting `target-python`).")
    for args in (["--target-python", "2.7"], ["--quiet"], ["--format", "json"],
                 ["--select", "CG103"]):
        code, out, _ = run([str(tmp_path), "--no-cache"] + args, capsys)
        assert code == 1 and "Note:" not in out, args
    (tmp_path / "setup.py").write_text('from setuptools import setup\n'
                                       'setup(name="p", python_requires=">=2.7")\n')
    code, out, _ = run([str(tmp_path), "--no-cache"], capsys)
    assert code == 1 and "CG30" in out and "Note:" not in out  # declared: no assumption
    (tmp_path / "setup.py").write_text('from setuptools import setup\n'
                                       'setup(name="p", python_requires=">=3.6")\n')
    code, out, _ = run([str(tmp_path), "--no-cache"], capsys)
    assert "CG30" not in out and "Note:" not in out
