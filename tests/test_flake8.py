"""The flake8 plugin, run by the real flake8 as any editor or CI job would run it."""
import ast
import os
import subprocess
import sys
from importlib import metadata

import pytest

pytest.importorskip("flake8", reason="flake8 is a test dependency (pip install -e '.[test]')")

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BAD = (
    "import tensorflow as tf\n"
    "\n"
    "\n"
    "@tf.custom_gradient\n"
    "def f(x):\n"
    "    return x, lambda dy: (dy, dy)\n"
)


def declared_entry_point():
    """The `flake8.extension` entry point as setup.py declares it."""
    tree = ast.parse(open(os.path.join(ROOT, "setup.py")).read())
    for node in ast.walk(tree):
        if isinstance(node, ast.Dict):
            for key, value in zip(node.keys, node.values):
                if isinstance(key, ast.Constant) and key.value == "flake8.extension":
                    [entry] = ast.literal_eval(value)
                    return entry
    raise AssertionError("setup.py declares no flake8.extension entry point")


def installed_entry_points():
    points = metadata.entry_points()
    if hasattr(points, "select"):
        points = points.select(group="flake8.extension")
    else:  # Python 3.9
        points = points.get("flake8.extension", [])
    return ["%s = %s" % (point.name, point.value) for point in points if point.name == "CG"]


@pytest.fixture
def flake8_env(tmp_path):
    """An environment where flake8 finds the plugin: the installed one (`pip install -e .`),
    else a bare distribution record holding setup.py's entry point, as pip would write it."""
    declared = declared_entry_point()
    installed = installed_entry_points()
    paths = [ROOT]
    if installed:
        assert installed == [declared.replace(" ", "").replace("=", " = ")]
    else:
        record = tmp_path / "shim" / "cglint-0.0.dist-info"
        record.mkdir(parents=True)
        (record / "METADATA").write_text("Metadata-Version: 2.1\nName: cglint\nVersion: 0.0\n")
        (record / "entry_points.txt").write_text("[flake8.extension]\n%s\n" % declared)
        paths.insert(0, str(record.parent))
    return dict(os.environ, PYTHONPATH=os.pathsep.join(paths))


def run_flake8(env, cwd, *args):
    return subprocess.run([sys.executable, "-m", "flake8", "--select", "CG"] + list(args),
                          cwd=str(cwd), env=env, capture_output=True, text=True, timeout=120)


def test_flake8_reports_cg_findings(flake8_env, tmp_path):
    (tmp_path / "model.py").write_text(BAD)
    done = run_flake8(flake8_env, tmp_path, "model.py")
    assert done.returncode == 1, done.stderr
    assert done.stdout.splitlines() == [
        "model.py:6:26: CG103 `f` takes 1 tensor input but its gradient function `lambda` "
        "returns 2 gradients"]


def test_flake8_honours_noqa_on_the_def_line_and_cglint_settings(flake8_env, tmp_path):
    (tmp_path / "silenced.py").write_text(BAD.replace("def f(x):", "def f(x):  # noqa: CG103"))
    (tmp_path / "legacy").mkdir()
    (tmp_path / "legacy" / "old.py").write_text(BAD)
    (tmp_path / "setup.cfg").write_text("[cglint]\nper-file-ignores = legacy/*: CG103\n")
    done = run_flake8(flake8_env, tmp_path, ".")
    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stdout == ""


def test_flake8_takes_each_files_settings_from_its_closest_config(flake8_env, tmp_path):
    hazards = 'import tensorflow as tf\ntf.print("x")\ntf.no_such_function()\n'
    for folder, code in (("A", "CG401"), ("B", "CG402")):
        (tmp_path / folder).mkdir()
        (tmp_path / folder / "pyproject.toml").write_text(
            '[tool.cglint]\nignore = ["%s"]\n' % code)
        (tmp_path / folder / "t.py").write_text(hazards)
    for order in (["A", "B"], ["B", "A"]):
        done = run_flake8(flake8_env, tmp_path, *order)
        assert sorted(line.split(": ")[0].split(":")[0] + " " + line.split()[1]
                      for line in done.stdout.splitlines()) == ["A/t.py CG402", "B/t.py CG401"]


@pytest.mark.parametrize("name, text, error", [
    ("setup.cfg", "[cglint]\nselect = CG999\n", "[cglint] select: 'CG999' matches no rule"),
    ("pyproject.toml", "[tool.cglint\nselect = 1\n", "not valid TOML"),
    # a parser's message of several lines comes out as one (review)
    ("setup.cfg", "[cglint\nselect = CG1\n", "not a valid INI file: File contains no section "
     "headers."),
])
def test_unusable_cglint_settings_are_one_finding_and_flake8_runs_on(
        flake8_env, tmp_path, name, text, error):
    """An exception from a plugin ends flake8's whole run; bad cglint settings instead give
    each file one CG000 finding naming them, and the other plugins still report."""
    (tmp_path / name).write_text(text)
    (tmp_path / "model.py").write_text("import os\n" + BAD)
    (tmp_path / "other.py").write_text("import os\n")
    done = run_flake8(flake8_env, tmp_path, "--select", "CG,F", "model.py", "other.py")
    assert "Traceback" not in done.stderr, done.stderr
    assert done.returncode == 1
    lines = done.stdout.splitlines()
    assert [line.split(": ")[0] + " " + line.split()[1] for line in lines] == [
        "model.py:1:1 CG000", "model.py:1:1 F401", "other.py:1:1 CG000", "other.py:1:1 F401"]
    assert "no CG checks run: %s: %s" % (tmp_path / name, error) in lines[0]
    done = run_flake8(flake8_env, tmp_path, "--select", "F", "model.py")
    assert done.stdout.splitlines() == ["model.py:1:1: F401 'os' imported but unused"]
