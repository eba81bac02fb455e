"""Settings files: where they are found, what each key does, and clear errors."""
import os
import subprocess
import sys

import pytest

from cglint import config
from cglint.cli import main
from cglint.config import ConfigError

from snippets import BAD

# The package under test, first on the path of a child `python -m cglint`.
ENV = dict(os.environ, PYTHONPATH=os.pathsep.join(
    [os.path.dirname(os.path.dirname(os.path.abspath(config.__file__)))]
    + [p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p]))


@pytest.fixture
def project(tmp_path, monkeypatch):
    """A project folder with one finding in src/pkg/mod.py, run from a neutral folder."""
    (tmp_path / "src" / "pkg").mkdir(parents=True)
    (tmp_path / "src" / "pkg" / "mod.py").write_text(BAD)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)
    return tmp_path


def run(args, capsys):
    code = main(list(args))
    out, err = capsys.readouterr()
    return code, out, err


def findings(out):
    return [line.split()[1] for line in out.splitlines() if ": CG" in line]


def test_pyproject_found_walking_up_from_the_checked_path(project, capsys):
    (project / "pyproject.toml").write_text('[tool.cglint]\nignore = ["CG103"]\n')
    assert run([str(project / "src" / "pkg")], capsys)[0] == 0
    assert run([str(project / "src" / "pkg" / "mod.py")], capsys)[0] == 0


def test_pyproject_without_our_table_is_passed_over(project, capsys):
    (project / "src" / "pyproject.toml").write_text('[tool.black]\nline-length = 100\n')
    (project / "src" / "setup.cfg").write_text("[flake8]\nmax-line-length = 100\n")
    (project / "tox.ini").write_text("[cglint]\nignore = CG103\n")
    found = config.find(str(project / "src" / "pkg"))
    assert found.path == str(project / "tox.ini") and found.ignore == ("CG103",)


def test_nearest_folder_wins_and_pyproject_before_setup_cfg(project):
    (project / "setup.cfg").write_text("[cglint]\nselect = CG1\n")
    (project / "src" / "setup.cfg").write_text("[cglint]\nselect = CG2\n")
    (project / "src" / "pyproject.toml").write_text('[tool.cglint]\nselect = ["CG3"]\n')
    assert config.find(str(project / "src" / "pkg" / "mod.py")).select == ("CG3",)
    os.remove(str(project / "src" / "pyproject.toml"))
    assert config.find(str(project / "src" / "pkg")).select == ("CG2",)


def test_unrelated_broken_pyproject_is_not_our_problem(project):
    (project / "pyproject.toml").write_text("this is [not toml\n")
    assert config.find(str(project)) == config.Config()


def test_every_key_in_toml(project):
    (project / "pyproject.toml").write_text(
        '[tool.cglint]\n'
        'select = ["CG1", "CG3"]\n'
        'ignore = "CG104, CG105"\n'
        'target-python = "3.6"\n'
        'target-tf = "1.8"\n'
        'exclude = ["build", "gen/*.py"]\n'
        'extend-exclude = ["*_pb2.py"]\n'
        'report-unused-noqa = true\n'
        '[tool.cglint.per-file-ignores]\n'
        '"tests/*" = ["CG101"]\n')
    found = config.find(str(project))
    assert found.select == ("CG1", "CG3") and found.ignore == ("CG104", "CG105")
    assert found.target_python == "3.6" and found.target_tf == "1.8"
    assert found.exclude == ("build", "gen/*.py") and found.extend_exclude == ("*_pb2.py",)
    assert found.per_file_ignores == (("tests/*", ("CG101",)),)
    assert found.report_unused_noqa is True
    settings = config.resolve(found, config.Config())
    assert settings.options.target_python == (3, 6)
    reported = [code for code in ("CG101", "CG102", "CG104", "CG201", "CG301")
                if settings.options_for(str(project / "tests" / "t.py")).selected(code)]
    assert reported == ["CG102", "CG301"]
    assert settings.options_for(str(project / "src" / "t.py")).selected("CG101")


def test_every_key_in_ini_with_flake8_spelling(project):
    (project / "setup.cfg").write_text(
        "[cglint]\n"
        "select = CG1,CG3\n"
        "extend_exclude =\n    gen/*.py,\n    *_pb2.py\n"
        "per-file-ignores =\n    tests/*: CG101,CG102\n    legacy/*.py:CG3\n"
        "report_unused_noqa = yes\n")
    found = config.find(str(project))
    assert found.select == ("CG1", "CG3")
    assert found.extend_exclude == ("gen/*.py", "*_pb2.py")
    assert found.per_file_ignores == (("tests/*", ("CG101", "CG102")), ("legacy/*.py", ("CG3",)))
    assert found.report_unused_noqa is True


@pytest.mark.parametrize("body, message", [
    ('selec = ["CG1"]', "unknown key 'selec'"),
    ('select = ["E501"]', "'E501' is not a code prefix"),
    ("select = 3", "expected codes"),
    ('target-python = "3.7"', "expected one of '2.7', '3.5', '3.6'"),
    ("target-python = 2.7", "(as a string)"),
    ('exclude = {a = 1}', "expected a list of globs"),
    ('per-file-ignores = ["x"]', "expected a table"),
    ('report-unused-noqa = "maybe"', "expected true or false"),
    ("select = [", "not valid TOML"),
    # ruff checks nothing then, silently: an "All clear" from an emptied select
    ("select = []", "[tool.cglint] select: selects no rule, so nothing would be checked"),
    ('[tool.cglint.per-file-ignores]\n"a.py" = []', "no codes for 'a.py'"),
])
def test_bad_settings_exit_2_with_a_clear_message(project, capsys, body, message):
    (project / "pyproject.toml").write_text("[tool.cglint]\n%s\n" % body)
    code, out, err = run([str(project)], capsys)
    assert code == 2 and out == ""
    assert err.startswith("cglint: error: %s" % (project / "pyproject.toml")), err
    assert message in err and "Traceback" not in err


def test_bad_ini_values(project, capsys):
    (project / "tox.ini").write_text("[cglint]\nper-file-ignores = tests/*\n")
    code, _, err = run([str(project)], capsys)
    assert code == 2 and "no codes for 'tests/*'" in err
    # A word after the colon is a code: the bad one is named (it was "no codes for 'a.py'").
    for value, bad in (("a.py:BAD", "BAD"), ("a.py: CG101, bad\n    b.py: CG1", "bad")):
        (project / "tox.ini").write_text("[cglint]\nper-file-ignores = %s\n" % value)
        code, _, err = run([str(project)], capsys)
        assert code == 2 and "%r (for 'a.py') is not a code prefix" % bad in err, err
    (project / "tox.ini").write_text("[cglint]\nper-file-ignores =\n    a.py:\n    b.py: CG1\n")
    code, _, err = run([str(project)], capsys)
    assert code == 2 and "no codes for 'a.py'" in err
    (project / "tox.ini").write_text("[cglint]\nselect =\n")
    code, _, err = run([str(project)], capsys)
    assert code == 2 and "[cglint] select: selects no rule" in err
    (project / "tox.ini").write_text("[cglint\n")
    code, _, err = run([str(project)], capsys)
    assert code == 2 and "not a valid INI file" in err


def test_command_line_overrides_the_file(project, capsys):
    (project / "pyproject.toml").write_text('[tool.cglint]\nselect = ["CG2"]\n')
    assert run([str(project)], capsys)[0] == 0
    assert findings(run([str(project), "--select", "CG1"], capsys)[1]) == ["CG103"]
    assert run([str(project), "--isolated", "--ignore", "CG1"], capsys)[0] == 0
    assert findings(run([str(project), "--isolated"], capsys)[1]) == ["CG103"]


def test_target_python_from_the_file(project, capsys):
    (project / "src" / "pkg" / "old.py").write_text('print "x"\n')
    assert run([str(project)], capsys)[1].count(": CG") == 1
    (project / "setup.cfg").write_text("[cglint]\ntarget-python = 3.6\n")
    code, out, _ = run([str(project)], capsys)
    assert "old.py:1:" in out and "CG001" in out
    assert run([str(project), "--target-python", "2.7"], capsys)[1].count(": CG") == 1


def test_explicit_config_file(project, capsys, tmp_path):
    other = tmp_path / "other.toml"
    other.write_text("")
    custom = tmp_path / "custom" / "pyproject.toml"
    custom.parent.mkdir()
    custom.write_text('[tool.cglint]\nignore = ["CG1"]\n')
    assert run([str(project), "--config", str(custom)], capsys)[0] == 0
    code, _, err = run([str(project), "--config", str(other)], capsys)
    assert code == 2 and "no [tool.cglint] or [cglint] section" in err


def test_exclude_globs_are_relative_to_the_config_folder(project, capsys):
    (project / "src" / "gen").mkdir()
    (project / "src" / "gen" / "ops.py").write_text(BAD)
    (project / "src" / "pkg" / "ops_pb2.py").write_text(BAD)
    (project / "pyproject.toml").write_text(
        '[tool.cglint]\nexclude = ["src/gen"]\nextend-exclude = ["*_pb2.py"]\n')
    code, out, _ = run([str(project)], capsys)
    assert [line.split(":")[0] for line in out.splitlines() if ": CG" in line] == [
        str(project / "src" / "pkg" / "mod.py")]
    assert "1 file checked" in out
    # Named explicitly (as pre-commit does) an excluded file is still skipped.
    code, out, _ = run([str(project / "src" / "gen" / "ops.py")], capsys)
    assert code == 0 and "0 files checked" in out
    # --exclude replaces the file's exclude; extend-exclude still applies.
    code, out, _ = run([str(project), "--exclude", "pkg"], capsys)
    assert "src/gen/ops.py" in out and "mod.py" not in out and "ops_pb2" not in out


def test_per_file_ignores(project, capsys):
    (project / "tests").mkdir()
    (project / "tests" / "test_mod.py").write_text(BAD)
    (project / "setup.cfg").write_text("[cglint]\nper-file-ignores =\n    tests/*: CG103\n")
    code, out, _ = run([str(project)], capsys)
    assert code == 1 and "test_mod.py" not in out and "mod.py" in out
    # On the command line it replaces the file's; its globs are relative to the current
    # folder, and a glob without a slash matches a name anywhere.
    code, out, _ = run([str(project), "--per-file-ignores", "mod.py:CG1"], capsys)
    assert "test_mod.py" in out and "/mod.py" not in out


@pytest.mark.parametrize("pattern, path, expected", [
    ("build", "build/x.py", True),
    ("build", "src/build/x.py", True),
    ("build", "src/builder/x.py", False),
    ("*_pb2.py", "a/b/ops_pb2.py", True),
    ("src/gen", "src/gen/x.py", True),
    ("src/gen/", "src/gen/x.py", True),
    ("./src/gen", "src/gen/x.py", True),
    ("src/gen", "lib/src/gen/x.py", False),
    ("tests/*.py", "tests/unit/t.py", True),
    ("tests/t.py", "tests/t.py", True),
])
def test_glob_matching(tmp_path, pattern, path, expected):
    assert config.matches(pattern, str(tmp_path / path), str(tmp_path)) is expected


def test_errors_name_the_file_and_key():
    with pytest.raises(ConfigError, match=r"pyproject.toml: \[tool.cglint\] ignore"):
        config.from_mapping({"ignore": ["XX"]}, "/p/pyproject.toml", "tool.cglint")


def test_ini_booleans_are_configparsers():
    # config keeps its own copy so that start-up need not import configparser.
    import configparser

    from cglint import config

    assert config._INI_BOOLEANS == configparser.ConfigParser.BOOLEAN_STATES


HAZARDS = 'import tensorflow as tf\ntf.print("x")\ntf.no_such_function()\nx = f"{1}"\n'


@pytest.fixture
def nested(tmp_path, monkeypatch):
    """A/ ignores CG401, B/ ignores CG402, B/sub/ ignores CG301; each has a file with all
    three findings."""
    for folder, code in (("A", "CG401"), ("B", "CG402"), ("B/sub", "CG301")):
        (tmp_path / folder).mkdir(parents=True)
        (tmp_path / folder / "pyproject.toml").write_text(
            '[tool.cglint]\nignore = ["%s"]\n' % code)
        (tmp_path / folder / "t.py").write_text(HAZARDS)
    monkeypatch.chdir(tmp_path)
    return tmp_path


NESTED_EXPECTED = [
    "A/t.py CG402", "A/t.py CG301",
    "B/sub/t.py CG401", "B/sub/t.py CG402",
    "B/t.py CG401", "B/t.py CG301",
]


def found_by_file(out):
    """`path CODE` for each finding, in output order (by path, then line)."""
    return [line.split(":")[0] + " " + line.split()[1] for line in out.splitlines()
            if ": CG" in line]


@pytest.mark.parametrize("order", [["A", "B"], ["B", "A"], ["B/sub", "A", "B"]])
def test_each_file_gets_the_settings_of_its_closest_config_whatever_the_order(nested, order):
    done = subprocess.run([sys.executable, "-m", "cglint", "--no-cache"] + order,
                          stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                          universal_newlines=True, env=ENV)
    assert done.returncode == 1, done.stderr
    assert sorted(found_by_file(done.stdout)) == sorted(NESTED_EXPECTED)
    # The language server and the flake8 plugin ask config.settings_for: the same answer.
    for name in ("A/t.py", "B/t.py", "B/sub/t.py"):
        options = config.settings_for(name).options
        reported = ["%s %s" % (name, code) for code in ("CG301", "CG401", "CG402")
                    if options.selected(code)]
        assert sorted(reported) == sorted(
            line for line in NESTED_EXPECTED if line.startswith(name + " "))


def test_nested_config_replaces_its_parents_and_the_command_line_still_applies(nested, capsys):
    code, out, _ = run(["B", "--extend-ignore", "CG401"], capsys)
    assert found_by_file(out) == ["B/sub/t.py CG402", "B/t.py CG301"]
    # --config names one settings file for every file.
    code, out, _ = run(["B", "--config", "A/pyproject.toml"], capsys)
    assert found_by_file(out) == ["B/sub/t.py CG402", "B/sub/t.py CG301",
                                  "B/t.py CG402", "B/t.py CG301"]


@pytest.mark.parametrize("args, named", [
    (["--select", "CG130"], "--select: 'CG130' matches no rule"),
    (["--ignore", "CG9"], "--ignore: 'CG9' matches no rule"),
    (["--extend-select", "CG1,CG1099"], "'CG1099' is not a code prefix"),
    (["--per-file-ignores", "t.py:CG5"], "'CG5' matches no rule"),
])
def test_codes_that_match_no_rule_are_an_error(project, capsys, args, named):
    code, out, err = run([str(project)] + args, capsys)
    assert code == 2 and out == "" and named in err, err


@pytest.mark.parametrize("body", ['select = ["CG130"]', 'extend-ignore = "CG13"',
                                  '[tool.cglint.per-file-ignores]\n"x/*" = ["CG8"]'])
def test_codes_that_match_no_rule_in_the_config_are_an_error(project, capsys, body):
    (project / "pyproject.toml").write_text("[tool.cglint]\n%s\n" % body)
    code, out, err = run([str(project)], capsys)
    assert code == 2 and out == "" and "matches no rule" in err, err
    assert str(project / "pyproject.toml") in err


def test_all_selects_every_rule(project, capsys):
    (project / "pyproject.toml").write_text('[tool.cglint]\nselect = ["CG2"]\n')
    assert run([str(project)], capsys)[0] == 0
    assert findings(run([str(project), "--select", "ALL"], capsys)[1]) == ["CG103"]
    assert findings(run([str(project), "--extend-select", "all"], capsys)[1]) == ["CG103"]
    assert run([str(project), "--select", "ALL", "--ignore", "CG103"], capsys)[0] == 0
    # The more specific prefix wins within one layer, as in ruff.
    code, out, _ = run([str(project), "--select", "CG103", "--ignore", "ALL"], capsys)
    assert findings(out) == ["CG103"]
    (project / "setup.cfg").write_text("[cglint]\nper-file-ignores = src/*: ALL\n")
    os.remove(str(project / "pyproject.toml"))
    code, out, _ = run([str(project)], capsys)
    assert code == 0 and "1 file checked" in out


def test_command_line_ignore_adds_to_the_configs(project, capsys):
    (project / "src" / "pkg" / "more.py").write_text(HAZARDS)
    (project / "pyproject.toml").write_text(
        '[tool.cglint]\nignore = ["CG103"]\nextend-select = ["CG4"]\n')
    assert findings(run([str(project)], capsys)[1]) == ["CG401", "CG402", "CG301"]
    assert findings(run([str(project), "--ignore", "CG40"], capsys)[1]) == ["CG301"]
    # --select starts again: the config's ignore no longer applies.
    assert findings(run([str(project), "--select", "CG1"], capsys)[1]) == ["CG103"]
