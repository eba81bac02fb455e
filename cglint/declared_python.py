"""The oldest Python a project says it runs on, as a target for the syntax checks.

Where no `target-python` is set, cglint takes the project's own declaration, as ruff
takes `requires-python`: `[project] requires-python` in pyproject.toml, `python_requires`
in setup.cfg's `[options]` or in setup.py's `setup(...)` call (read as text, never run).
The project is the closest folder above a file that holds one of those files. Its lowest
bound picks the closest target TF 1.8 has wheels for: below 3 is 2.7, 3.0 to 3.5 is 3.5,
3.6 and later is 3.6. No declaration, or one without a lower bound: no inference.
"""
import configparser
import os
import re
import sys

PROJECT_FILES = ("pyproject.toml", "setup.cfg", "setup.py")
# A lower bound of a version specifier: `>=3.5`, `~=3.6`, `>2.7`, `==3.6.*`.
_LOWER_BOUND = re.compile(r"(>=|~=|==|>)\s*(\d+)(?:\.(\d+))?")
# A whole minor release left out: `!=3.5.*`.
_EXCLUDED = re.compile(r"!=\s*(\d+)\.(\d+)\.\*")
# `python_requires=">=3.5"` in setup.py (parentheses allowed), the value a plain string
# literal.
_SETUP_PY = re.compile(
    r"""python_requires\s*=\s*\(?\s*(?:[rbuRBU]{0,2})(['"])([^'"\n]*)\1""")


def target_for(specifier):
    """The target Python ("2.7", "3.5", "3.6") for a version specifier, or None: its
    oldest minor release (`>3.5` allows 3.5.1; `>=3.5.3, !=3.5.*` starts at 3.6)."""
    bounds = [(int(major), int(minor or 0))
              for _, major, minor in _LOWER_BOUND.findall(specifier or "")]
    if not bounds:
        return None
    excluded = {(int(major), int(minor)) for major, minor in _EXCLUDED.findall(specifier)}
    oldest = max(bounds)  # every clause holds: the highest lower bound
    while oldest in excluded:
        oldest = (oldest[0], oldest[1] + 1)
    if oldest < (3, 0):
        return "2.7"
    return "3.5" if oldest < (3, 6) else "3.6"


class DeclaredPython:
    """The declared target of each folder's project, looked up once per folder."""

    def __init__(self):
        self._in_folder = {}  # absolute folder -> (target or None, the file it came from)

    def of(self, folder):
        """(target, file that declares it) for the project holding `folder`, or
        (None, "")."""
        return closest(folder, self._in_folder, _declared_in, (None, ""))


def closest(folder, memo, read, none):
    """read(folder) of `folder` or of its closest parent where it is not None (`none` past
    the top), remembered in `memo` for every folder walked: each folder is read once."""
    walked = []
    while True:
        found = memo.get(folder)
        if found is not None:
            break
        walked.append(folder)
        found = read(folder)
        parent = os.path.dirname(folder)
        if found is None and parent == folder:
            found = none
        if found is not None:
            break
        folder = parent
    for each in walked:
        memo[each] = found
    return found


def _declared_in(folder):
    """(target or None, file) when `folder` holds a project file; None when it holds
    none (the search goes on upwards)."""
    present = [name for name in PROJECT_FILES if os.path.isfile(os.path.join(folder, name))]
    if not present:
        return None
    for name in present:
        path = os.path.join(folder, name)
        try:
            with open(path, "rb") as handle:
                text = handle.read(1 << 20).decode("utf-8", "replace")
        except OSError:
            continue
        target = _READERS[name](text)
        if target is not None:
            return target, path
    return None, ""


def _from_pyproject(text):
    if "requires-python" not in text:
        return None
    if sys.version_info >= (3, 11):
        import tomllib
    else:
        import tomli as tomllib
    try:
        document = tomllib.loads(text)
    except (tomllib.TOMLDecodeError, RecursionError, ValueError):
        return None
    project = document.get("project")
    value = project.get("requires-python") if isinstance(project, dict) else None
    return target_for(value) if isinstance(value, str) else None


def _from_setup_cfg(text):
    if "python_requires" not in text:
        return None
    parser = configparser.ConfigParser(interpolation=None)
    try:
        parser.read_string(text)
    except (configparser.Error, RecursionError, ValueError):
        return None
    if not parser.has_option("options", "python_requires"):
        return None
    return target_for(parser.get("options", "python_requires"))


def _from_setup_py(text):
    match = _SETUP_PY.search(text)
    return target_for(match.group(2)) if match else None


_READERS = {"pyproject.toml": _from_pyproject, "setup.cfg": _from_setup_cfg,
            "setup.py": _from_setup_py}
