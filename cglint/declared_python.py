"""The oldest Python a project says it runs on, as a target for the syntax checks.

Where no `target-python` is set, cglint takes the project's own declaration, as ruff
takes `requires-python`: `[project] requires-python` in pyproject.toml, `python_requires`
in setup.cfg's `[options]` or in setup.py's `setup(...)` call (read as text, never run),
`Requires-Python` in an sdist's PKG-INFO or an unpacked wheel's METADATA. Projects of the
TF 1.x era seldom set one and say it with trove classifiers instead (`Programming
Language :: Python :: 3.5`): without a version specifier in any of those files, their
classifiers decide (any Python 2 one means 2.7, else the oldest Python 3 one), then
setup.py's own refusal of older Pythons (`if sys.version_info < (3, 5): sys.exit(...)`),
and for an unpacked wheel without any, its tags (`py3-none-any` installs on Python 3).
The project is the closest folder above a file
that holds one of those files. Its lowest bound picks the closest target TF 1.8 has
wheels for: below 3 is 2.7, 3.0 to 3.5 is 3.5, 3.6 and later is 3.6. No declaration, or
one without a lower bound: no inference.
"""
import ast
import configparser
import os
import re
import sys

PROJECT_FILES = ("pyproject.toml", "setup.cfg", "setup.py", "PKG-INFO")
# A lower bound of a version specifier: `>=3.5`, `~=3.6`, `>2.7`, `==3.6.*`.
_LOWER_BOUND = re.compile(r"(>=|~=|==|>)\s*(\d+)(?:\.(\d+))?")
# A whole minor release left out: `!=3.5.*`.
_EXCLUDED = re.compile(r"!=\s*(\d+)\.(\d+)\.\*")
# `python_requires=">=3.5"` in setup.py (parentheses allowed), the value a plain string
# literal.
_SETUP_PY = re.compile(
    r"""python_requires\s*=\s*\(?\s*(?:[rbuRBU]{0,2})(['"])([^'"\n]*)\1""")
_REQUIRES_PYTHON = re.compile(r"^Requires-Python:[ \t]*(.*)$", re.MULTILINE)
# `Programming Language :: Python :: 3.5`, `:: 3`, `:: 2 :: Only`, in any of the files.
# A warning that refuses a Python: "only compatible with Python 3", "requires Python 3.5".
_REFUSAL = re.compile(r"(?i)python.*\b(only|requir|support|compatib|need|not\b|fail)|"
                      r"\b(only|requir|support|compatib|need|not\b|fail).*python")
_CLASSIFIER = re.compile(r"Programming Language :: Python :: (\d+)(?:\.(\d+))?(?![\d.])")


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
    none (the search goes on upwards). A version specifier in any of its files comes
    before classifiers."""
    present = [(name, os.path.join(folder, name)) for name in PROJECT_FILES
               if os.path.isfile(os.path.join(folder, name))]
    if not present:
        present = _unpacked_wheel_metadata(folder)
    if not present:
        return None
    texts = []
    for name, path in present:
        try:
            with open(path, "rb") as handle:
                texts.append((name, path, handle.read(1 << 20).decode("utf-8", "replace")))
        except OSError:
            continue
    for read in (_specifier, _from_classifiers, _from_version_check, _last):
        for name, path, text in texts:
            target = read(name, text)
            if target is not None:
                return target, path
    return None, ""


def _specifier(name, text):
    read = _READERS.get(name)
    return read(text) if read else None


def _last(name, text):
    read = _LAST_READERS.get(name)
    return read(text) if read else None


def _unpacked_wheel_metadata(folder):
    """[("PKG-INFO", its METADATA)] when `folder` holds the packages of one unpacked wheel
    (a single `*.dist-info` folder beside them; site-packages has many, and says nothing
    of which one a file belongs to)."""
    try:
        infos = [name for name in os.listdir(folder) if name.endswith(".dist-info")]
    except OSError:
        return []
    if len(infos) != 1:
        return []
    found = [(name, os.path.join(folder, infos[0], file_name))
             for name, file_name in (("PKG-INFO", "METADATA"), ("WHEEL", "WHEEL"))]
    return [(name, path) for name, path in found if os.path.isfile(path)]


def _from_version_check(name, text):
    """setup.py's own refusal of older Pythons, the way 2017-era research code says
    "Python 3 only" (baselines: `if sys.version_info.major != 3: print(...)`; `if
    sys.version_info < (3, 5): sys.exit(...)`): a top-level `if` on sys.version_info whose
    body exits, raises or warns in words naming Python. A test that only picks
    dependencies (`if sys.version_info < (3, 4): requires.append("enum34")`) says nothing."""
    if name != "setup.py" or "version_info" not in text:
        return None
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None
    for node in tree.body:
        if isinstance(node, ast.If) and _refuses(node.body):
            oldest = _oldest_passing(node.test)
            if oldest is not None:
                return target_for(">=%d.%d" % oldest)
    return None


def _refuses(body):
    """The body exits or raises, or does nothing but warn in words refusing a Python (a
    body that also does something else, such as adding a dependency, picks, not refuses)."""
    warned = False
    for statement in body:
        if isinstance(statement, ast.Raise):
            return True
        call = statement.value if isinstance(statement, ast.Expr) else None
        if not isinstance(call, ast.Call):
            return False
        called = ast.unparse(call.func)
        if called in ("sys.exit", "exit", "quit"):
            return True
        if called in ("print", "warnings.warn", "logging.warning") and any(
                isinstance(text, ast.Constant) and isinstance(text.value, str)
                and _REFUSAL.search(text.value)
                for argument in call.args for text in ast.walk(argument)):
            warned = True
            continue
        return False
    return warned


def _oldest_passing(test):
    """(major, minor) of the oldest Python a refusing test lets through: `version_info <
    (3, 5)`, `version_info[:2] < (3, 5)`, `version_info.major != 3`, `version_info[0] < 3`."""
    if not (isinstance(test, ast.Compare) and len(test.ops) == 1):
        return None
    subject, operator, bound = ast.unparse(test.left), test.ops[0], test.comparators[0]
    if subject in ("sys.version_info", "sys.version_info[:2]") and isinstance(
            operator, ast.Lt) and isinstance(bound, ast.Tuple) and len(bound.elts) >= 2 and all(
            isinstance(part, ast.Constant) and type(part.value) is int
            for part in bound.elts[:2]):
        return bound.elts[0].value, bound.elts[1].value
    if subject in ("sys.version_info.major", "sys.version_info[0]") and isinstance(
            operator, (ast.NotEq, ast.Lt)) and isinstance(bound, ast.Constant) and \
            bound.value == 3:
        return 3, 0
    return None


def _from_wheel_tags(text):
    """3.5 when every `Tag:` of a wheel is for Python 3 only (`py3-none-any`)."""
    tags = re.findall(r"^Tag:[ \t]*(\S+)", text, re.MULTILINE)
    pythons = {python for tag in tags for python in tag.split("-")[0].split(".")}
    if pythons and all(python[2:3] == "3" for python in pythons):
        return target_for(">=3.0")
    return None


def _from_classifiers(_, text):
    """The target the trove classifiers give: 2.7 when one names Python 2, else the
    oldest Python 3 one (3.5 for a bare `Python :: 3`); None without any."""
    versions = [(int(major), int(minor) if minor else None)
                for major, minor in _CLASSIFIER.findall(text)]
    if not versions:
        return None
    if any(major < 3 for major, _ in versions):
        return "2.7"
    minors = [minor for major, minor in versions if major == 3 and minor is not None]
    return target_for(">=3.%d" % min(minors or [0]))


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


def _from_pkg_info(text):
    match = _REQUIRES_PYTHON.search(text)
    return target_for(match.group(1)) if match else None


_READERS = {"pyproject.toml": _from_pyproject, "setup.cfg": _from_setup_cfg,
            "setup.py": _from_setup_py, "PKG-INFO": _from_pkg_info}
# Read only after every file's version specifier and classifiers (see _declared_in).
_LAST_READERS = {"WHEEL": _from_wheel_tags}
