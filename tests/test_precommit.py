"""The pre-commit hook, installed and run by the real pre-commit on a scratch repository."""
import os
import shutil
import subprocess
import sys

import pytest

pytest.importorskip("pre_commit", reason="pre-commit is a test dependency: pip install -e '.[test]'")

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
# What pre-commit needs to install the hook: the package and its build files.
HOOK_FILES = ("setup.py", "README.md", ".pre-commit-hooks.yaml", "cglint")
from snippets import BAD


def git(cwd, *args):
    subprocess.run(["git", "-c", "user.name=cglint tests", "-c", "user.email=tests@invalid",
                    "-c", "commit.gpgsign=false", "-c", "init.defaultBranch=main"] + list(args),
                   cwd=str(cwd), check=True, capture_output=True)


@pytest.fixture
def hook_repo(tmp_path):
    """The working tree's hook as a committed repository: try-repo installs a commit, and
    what is being tested here may not be committed yet."""
    if shutil.which("git") is None:
        pytest.skip("pre-commit needs git")
    repo = tmp_path / "hook"
    repo.mkdir()
    for name in HOOK_FILES:
        source = os.path.join(ROOT, name)
        if os.path.isdir(source):
            shutil.copytree(source, str(repo / name),
                            ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
        else:
            shutil.copy(source, str(repo / name))
    git(repo, "init", "-q")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "--no-verify", "-m", "hook under test")
    return repo


def test_try_repo_runs_the_hook_and_reports_a_finding(hook_repo, tmp_path):
    project = tmp_path / "project"
    project.mkdir()
    git(project, "init", "-q")
    (project / "x.py").write_text(BAD)
    (project / "notes.txt").write_text(BAD)  # not Python: `types: [python]` skips it
    git(project, "add", "-A")
    env = dict(os.environ, PRE_COMMIT_HOME=str(tmp_path / "pre-commit-home"))
    env.pop("PYTHONPATH", None)  # the hook must run from its own installed environment
    done = subprocess.run(
        [sys.executable, "-m", "pre_commit", "try-repo", str(hook_repo), "cglint",
         "--files", "x.py", "notes.txt", "--verbose"],
        cwd=str(project), env=env, capture_output=True, text=True, timeout=600)
    output = done.stdout + done.stderr
    assert done.returncode == 1, output
    assert "x.py:5:26: CG103" in output, output
    assert "Found 1 finding in 1 file checked." in output, output  # notes.txt not passed


def readme_block(heading, language):
    """The first ```language block after `heading` in the README."""
    with open(os.path.join(ROOT, "README.md"), encoding="utf-8") as handle:
        text = handle.read()
    return text.split(heading + "\n", 1)[1].split("```%s\n" % language, 1)[1].split("```")[0]


def test_the_readmes_snippet_with_a_commit_sha_as_rev(hook_repo, tmp_path):
    import re

    snippet = readme_block("### pre-commit", "yaml")
    assert re.search(r"^\s+rev: [0-9a-f]{40}\b", snippet, re.M), snippet  # the sha form
    sha = subprocess.run(["git", "rev-parse", "HEAD"], cwd=str(hook_repo), check=True,
                         capture_output=True, text=True).stdout.strip()
    config = re.sub(r"(repo: )\S+", lambda m: m.group(1) + str(hook_repo), snippet)
    config = re.sub(r"(rev: )[0-9a-f]{40}", lambda m: m.group(1) + sha, config)
    project = tmp_path / "project"
    project.mkdir()
    git(project, "init", "-q")
    (project / ".pre-commit-config.yaml").write_text(config)
    (project / "py2.py").write_text(BAD + 'print "a Python 2 statement"\n')
    git(project, "add", "-A")
    env = dict(os.environ, PRE_COMMIT_HOME=str(tmp_path / "pre-commit-home"))
    env.pop("PYTHONPATH", None)
    done = subprocess.run([sys.executable, "-m", "pre_commit", "run", "--all-files"],
                          cwd=str(project), env=env, capture_output=True, text=True,
                          timeout=600)
    output = done.stdout + done.stderr
    assert done.returncode == 1, output
    assert "py2.py:5:26: CG103" in output, output  # a Python 2 file, checked in full
