"""Find and read the project's cglint settings, and merge them with the command line.

`[tool.cglint]` in pyproject.toml, else `[cglint]` in setup.cfg or tox.ini (TF 1.8-era
projects rarely have a pyproject), in the first folder that has one, walking up from the
checked paths: the same search ruff and flake8 users know. Command-line values replace
the file's. Globs in the file are relative to its folder; globs given on the command line
are relative to the current folder.
"""
import fnmatch
import os
import re
import sys
from dataclasses import dataclass, field, replace

from cglint import engine

# configparser.ConfigParser.BOOLEAN_STATES, without importing configparser at start-up.
_INI_BOOLEANS = {"1": True, "yes": True, "true": True, "on": True,
                 "0": False, "no": False, "false": False, "off": False}
TARGET_PYTHONS = ("2.7", "3.5", "3.6")
TARGET_TFS = ("1.8",)
KEYS = ("select", "ignore", "per-file-ignores", "target-python", "target-tf", "exclude",
        "extend-exclude", "report-unused-noqa")
_CODE = re.compile(r"^CG\d{0,3}$")
_SEPARATORS = re.compile(r"[,\s]+")


class ConfigError(Exception):
    """A setting cglint cannot use; the message names the file and the key."""


@dataclass(frozen=True)
class Config:
    """The raw settings of one source: a file, or the command line. None = not set."""

    path: str = ""  # the file it was read from; "" for the command line or no file
    root: str = ""  # absolute folder its globs are relative to
    select: tuple = None
    ignore: tuple = None
    per_file_ignores: tuple = None  # ((glob, codes), ...)
    target_python: str = None
    target_tf: str = None
    exclude: tuple = None
    extend_exclude: tuple = ()
    report_unused_noqa: bool = None


@dataclass(frozen=True)
class Settings:
    """The effective settings of a run: what to report, where, for which targets."""

    options: engine.Options = field(default_factory=engine.Options)
    per_file_ignores: tuple = ()  # ((root, glob, codes), ...)
    exclude: tuple = ()  # ((root, glob), ...)
    report_unused_noqa: bool = False

    def options_for(self, path):
        """Options for one file: per-file ignores join the ignore list, so the rules they
        name are not even run on it."""
        extra = tuple(code for root, pattern, codes in self.per_file_ignores
                      if matches(pattern, path, root) for code in codes)
        if not extra:
            return self.options
        return replace(self.options, ignore=tuple(self.options.ignore) + extra)

    def excluded(self, path):
        return any(matches(pattern, path, root) for root, pattern in self.exclude)


def parse_codes(value, where):
    """A tuple of code prefixes from a comma/space separated string or a list of strings."""
    if isinstance(value, str):
        items = _SEPARATORS.split(value)
    elif isinstance(value, (list, tuple)) and all(isinstance(item, str) for item in value):
        items = value
    else:
        raise ConfigError("%s: expected codes like \"CG1, CG103\", got %r" % (where, value))
    codes = tuple(item.strip().upper() for item in items if item.strip())
    for code in codes:
        if not _CODE.match(code):
            raise ConfigError("%s: %r is not a code prefix like CG1 or CG103" % (where, code))
    return codes


def parse_globs(value, where):
    if isinstance(value, str):
        items = value.replace("\n", ",").split(",")
    elif isinstance(value, (list, tuple)) and all(isinstance(item, str) for item in value):
        items = value
    else:
        raise ConfigError("%s: expected a list of globs, got %r" % (where, value))
    return tuple(item.strip() for item in items if item.strip())


def parse_per_file_ignores(value, where):
    """((glob, codes), ...) from a TOML table or flake8's `glob: CODES` lines."""
    if isinstance(value, dict):
        return tuple((glob, parse_codes(codes, "%s[%r]" % (where, glob)))
                     for glob, codes in value.items())
    if not isinstance(value, str):
        raise ConfigError("%s: expected a table of glob = codes, got %r" % (where, value))
    pairs, glob, codes = [], None, []
    # flake8's format: a glob, a colon, then codes until the next word that is not a code.
    for token in re.findall(r"[^\s,:]+|:", value):
        if token == ":":
            if glob is None or codes:
                raise ConfigError("%s: expected `glob: CODES`, got %r" % (where, value))
            continue
        if glob is not None and _CODE.match(token.upper()):
            codes.append(token.upper())
            continue
        if glob is not None:
            pairs.append((glob, tuple(codes)))
        glob, codes = token, []
    if glob is not None:
        pairs.append((glob, tuple(codes)))
    for glob, codes in pairs:
        if not codes:
            raise ConfigError("%s: no codes for %r (write `%s: CG101`)" % (where, glob, glob))
    return tuple(pairs)


def parse_choice(value, choices, where):
    if not isinstance(value, str) or value not in choices:
        raise ConfigError("%s: expected one of %s (as a string), got %r"
                          % (where, ", ".join(repr(c) for c in choices), value))
    return value


def parse_bool(value, where):
    """A TOML boolean, or an INI word as configparser reads them (true/false, yes/no, 1/0)."""
    if isinstance(value, bool):
        return value
    words = _INI_BOOLEANS
    if isinstance(value, str) and value.strip().lower() in words:
        return words[value.strip().lower()]
    raise ConfigError("%s: expected true or false, got %r" % (where, value))


def from_mapping(values, path, section):
    """Config from the key/value pairs of one file's section; raises ConfigError."""
    root = os.path.dirname(os.path.abspath(path))
    settings = {}
    for raw_key, value in values.items():
        key = raw_key.replace("_", "-")
        where = "%s: [%s] %s" % (path, section, raw_key)
        if key == "gradcheck" and isinstance(value, dict):
            continue  # [tool.cglint.gradcheck]: cglint/gradcheck/settings.py reads it
        if key not in KEYS:
            raise ConfigError("%s: unknown key %r (known keys: %s)"
                              % (path, raw_key, ", ".join(KEYS)))
        if key in ("select", "ignore"):
            settings[key] = parse_codes(value, where)
        elif key == "per-file-ignores":
            settings["per_file_ignores"] = parse_per_file_ignores(value, where)
        elif key == "target-python":
            settings["target_python"] = parse_choice(value, TARGET_PYTHONS, where)
        elif key == "target-tf":
            settings["target_tf"] = parse_choice(value, TARGET_TFS, where)
        elif key == "report-unused-noqa":
            settings["report_unused_noqa"] = parse_bool(value, where)
        else:
            settings[key.replace("-", "_")] = parse_globs(value, where)
    return Config(path=path, root=root, **settings)


def read(path):
    """The Config in the file at `path`, or None when it has no cglint section."""
    try:
        with open(path, "rb") as handle:
            data = handle.read()
    except OSError as error:
        raise ConfigError("%s: cannot read: %s" % (path, error.strerror or error))
    if b"cglint" not in data:  # skip parsing (and any error in) files that are not ours
        return None
    # Parsers are imported here, not at the top: most runs read no settings file, and
    # start-up time counts on every editor save and pre-commit run.
    if path.endswith(".toml"):
        if sys.version_info >= (3, 11):
            import tomllib
        else:  # the same parser, published on PyPI before it joined the standard library
            import tomli as tomllib
        try:
            document = tomllib.loads(data.decode("utf-8"))
        except (tomllib.TOMLDecodeError, UnicodeDecodeError) as error:
            raise ConfigError("%s: not valid TOML: %s" % (path, error))
        section = document.get("tool", {}).get("cglint")
        if section is None:
            return None
        if not isinstance(section, dict):
            raise ConfigError("%s: [tool.cglint] must be a table" % path)
        return from_mapping(section, path, "tool.cglint")
    import configparser

    parser = configparser.ConfigParser(interpolation=None)
    try:
        parser.read_string(data.decode("utf-8"), source=path)
    except (configparser.Error, UnicodeDecodeError) as error:
        raise ConfigError("%s: not a valid INI file: %s" % (path, error))
    if not parser.has_section("cglint"):
        return None
    # items() would mix in a [DEFAULT] section's keys, which are not cglint's.
    own = {key: value for key, value in parser.items("cglint")
           if key not in parser.defaults()}
    return from_mapping(own, path, "cglint")


CANDIDATES = ("pyproject.toml", "setup.cfg", "tox.ini")


def find(paths):
    """The Config of the first folder with one, walking up from each path in turn."""
    looked = set()
    for path in paths or ["."]:
        folder = os.path.abspath("." if path == "-" else path)
        if not os.path.isdir(folder):
            folder = os.path.dirname(folder)
        while folder not in looked:
            looked.add(folder)
            for name in CANDIDATES:
                candidate = os.path.join(folder, name)
                if os.path.isfile(candidate):
                    found = read(candidate)
                    if found is not None:
                        return found
            parent = os.path.dirname(folder)
            if parent == folder:
                break
            folder = parent
    return Config()


def resolve(file_config, command_line):
    """Settings from a file's Config overridden by the command line's Config."""
    def pick(name):
        value = getattr(command_line, name)
        return value if value is not None else getattr(file_config, name)

    target_python = pick("target_python") or "2.7"
    options = engine.Options(
        select=pick("select") or (),
        ignore=pick("ignore") or (),
        target_python=tuple(int(part) for part in target_python.split(".")),
        target_tf=pick("target_tf") or "1.8",
    )
    per_file = _rooted(command_line if command_line.per_file_ignores is not None
                       else file_config, "per_file_ignores")
    exclude = _rooted(command_line if command_line.exclude is not None else file_config,
                      "exclude")
    exclude += _rooted(file_config, "extend_exclude") + _rooted(command_line, "extend_exclude")
    return Settings(options, tuple((root, glob, codes) for root, (glob, codes) in per_file),
                    exclude, bool(pick("report_unused_noqa")))


def _rooted(config, name):
    root = config.root or os.getcwd()
    return tuple((root, item) for item in getattr(config, name) or ())


def matches(pattern, path, root):
    """Whether `path` (or a folder holding it) matches the glob, relative to `root`.

    A glob without a slash matches any single path component (`build`, `*_pb2.py`), like
    ruff and flake8; one with a slash matches the relative path or one of its folders
    (`src/legacy`, `tests/*.py`).
    """
    relative = os.path.relpath(os.path.abspath(path), root).replace(os.sep, "/")
    pattern = pattern.replace(os.sep, "/").rstrip("/")
    if pattern.startswith("./"):
        pattern = pattern[2:]
    parts = relative.split("/")
    if "/" not in pattern:
        return any(fnmatch.fnmatchcase(part, pattern) for part in parts)
    return any(fnmatch.fnmatchcase("/".join(parts[:end]), pattern)
               for end in range(1, len(parts) + 1))
