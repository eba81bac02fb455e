"""Find and read the project's cglint settings, and merge them with the command line.

`[tool.cglint]` in pyproject.toml, else `[cglint]` in setup.cfg or tox.ini (TF 1.8-era
projects rarely have a pyproject). Each file gets the settings of the closest folder above
it that has one, as ruff does with nested configs: a nested settings file replaces its
parent's (they are not merged), and the order of the paths on the command line does not
matter. Command-line values replace the file's, except `--ignore`/`--extend-*`, which
add to it (ruff's rule selection, see `selected_codes`). Globs in a file are relative to
its folder; globs given on the command line are relative to the current folder.
"""
import fnmatch
import os
import re
import sys
from dataclasses import dataclass, field, replace

from cglint.declared_python import DeclaredPython, closest
from cglint.options import Options
from cglint.rules import all_rules

# configparser.ConfigParser.BOOLEAN_STATES, without importing configparser at start-up.
_INI_BOOLEANS = {"1": True, "yes": True, "true": True, "on": True,
                 "0": False, "no": False, "false": False, "off": False}
TARGET_PYTHONS = ("2.7", "3.5", "3.6")
TARGET_TFS = ("1.8",)
KEYS = ("select", "extend-select", "ignore", "extend-ignore", "per-file-ignores",
        "target-python", "target-tf", "exclude", "extend-exclude", "report-unused-noqa",
        "respect-gitignore")
_CODE = re.compile(r"^CG\d{0,3}$")
ALL = "ALL"  # every rule, in select, ignore and per-file-ignores (as in ruff)
_SEPARATORS = re.compile(r"[,\s]+")


class ConfigError(Exception):
    """A setting cglint cannot use; the message names the file and the key."""


@dataclass(frozen=True)
class Config:
    """The raw settings of one source: a file, or the command line. None = not set."""

    path: str = ""  # the file it was read from; "" for the command line or no file
    root: str = ""  # absolute folder its globs are relative to
    select: tuple = None
    extend_select: tuple = ()
    ignore: tuple = None
    extend_ignore: tuple = ()
    per_file_ignores: tuple = None  # ((glob, codes), ...)
    target_python: str = None
    target_tf: str = None
    exclude: tuple = None
    extend_exclude: tuple = ()
    report_unused_noqa: bool = None
    respect_gitignore: bool = None


@dataclass(frozen=True)
class Settings:
    """The effective settings of a run: what to report, where, for which targets."""

    options: Options = field(default_factory=Options)
    per_file_ignores: tuple = ()  # ((root, glob, codes), ...)
    exclude: tuple = ()  # ((root, glob), ...)
    respect_gitignore: bool = True
    source: str = ""  # the settings file they came from; "" when none
    declared_by: str = ""  # the project file whose python_requires gave target-python
    # Nothing set or declared a target Python: 2.7, the oldest TF 1.8 runs on, is assumed.
    target_python_assumed: bool = False

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
    """A tuple of code prefixes from a comma/space separated string or a list of strings.

    `ALL` stands for every rule. A prefix that matches no rule is an error: a typo would
    otherwise silently turn every check off (in `select`) or nothing off (in `ignore`).
    """
    if isinstance(value, str):
        items = _SEPARATORS.split(value)
    elif isinstance(value, (list, tuple)) and all(isinstance(item, str) for item in value):
        items = value
    else:
        raise ConfigError("%s: expected codes like \"CG1, CG103\", got %r" % (where, value))
    codes = tuple(item.strip().upper() for item in items if item.strip())
    for code in codes:
        check_known(code, where)
    return codes


def check_known(code, where):
    if code == ALL:
        return
    if not _CODE.match(code):
        raise ConfigError("%s: %r is not a code prefix like CG1 or CG103" % (where, code))
    if not any(known.startswith(code) for known in all_rules()):
        raise ConfigError("%s: %r matches no rule (see `cglint --list-rules`)" % (where, code))


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
        pairs = tuple((glob, parse_codes(codes, "%s[%r]" % (where, glob)))
                      for glob, codes in value.items())
    elif not isinstance(value, str):
        raise ConfigError("%s: expected a table of glob = codes, got %r" % (where, value))
    else:
        pairs = _per_file_lines(value, where)
    for glob, codes in pairs:
        if not codes:
            raise ConfigError("%s: no codes for %r (write `%s: CG101`)" % (where, glob, glob))
    return pairs


def _per_file_lines(value, where):
    """((glob, codes), ...) from flake8's format: a glob, a colon, then codes until the next
    word that is not a code."""
    pairs, glob, codes = [], None, []
    tokens = re.findall(r"[^\s,:]+|:", value)
    for index, token in enumerate(tokens):
        if token == ":":
            if glob is None or codes:
                raise ConfigError("%s: expected `glob: CODES`, got %r" % (where, value))
            continue
        if glob is not None and (_CODE.match(token.upper()) or token.upper() == ALL):
            codes.append(token.upper())
            continue
        # After a glob, a word that no colon follows is a wrong code (`a.py: BAD`), not a
        # glob without codes.
        if glob is not None and tokens[index + 1:index + 2] != [":"]:
            raise ConfigError("%s: %r (for %r) is not a code prefix like CG1 or CG103"
                              % (where, token, glob))
        if glob is not None:
            pairs.append((glob, tuple(codes)))
        glob, codes = token, []
    if glob is not None:
        pairs.append((glob, tuple(codes)))
    for glob, codes in pairs:
        for code in codes:
            check_known(code, where)
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
        if key in ("select", "ignore", "extend-select", "extend-ignore"):
            settings[key.replace("-", "_")] = parse_codes(value, where)
            if key == "select":
                select_where = where
        elif key == "per-file-ignores":
            settings["per_file_ignores"] = parse_per_file_ignores(value, where)
        elif key == "target-python":
            settings["target_python"] = parse_choice(value, TARGET_PYTHONS, where)
        elif key == "target-tf":
            settings["target_tf"] = parse_choice(value, TARGET_TFS, where)
        elif key in ("report-unused-noqa", "respect-gitignore"):
            settings[key.replace("-", "_")] = parse_bool(value, where)
        else:
            settings[key.replace("-", "_")] = parse_globs(value, where)
    if settings.get("select") == () and not settings.get("extend_select"):
        # ruff reads it as no rule at all and passes every file; a select emptied by
        # mistake would then hide every finding behind an "All clear". (With
        # extend-select, it is ruff's way to say "only these".)
        raise ConfigError("%s: selects no rule, so nothing would be checked (remove the "
                          "key for every rule; `exclude` skips files)" % select_where)
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


def find(path):
    """The Config of the closest folder above `path` (a file, or a folder) that has one."""
    folder = os.path.abspath(path)
    if not os.path.isdir(folder):
        folder = os.path.dirname(folder)
    return Resolver().config_in(folder)


def settings_for(path):
    """The Settings of one file (or editor buffer), read anew: what the language server and
    the flake8 plugin use; the command line uses the same Resolver, kept for the run."""
    return Resolver().settings_for(path)


class Resolver:
    """Settings for each file of a run: those of the closest settings file above it,
    overridden by the command line. It remembers what it found in each folder, so a run
    reads each settings file once and looks in each folder once.

    `fixed`, when given, is the Config for every file (`--config FILE`, `--isolated`).
    """

    def __init__(self, command_line=None, fixed=None):
        self.command_line = command_line or Config()
        self.fixed = fixed
        self._in_folder = {}  # absolute folder -> Config of it or its closest parent
        self._settings = {}  # (Config, declared target) -> Settings
        self._declared = DeclaredPython()

    def settings_for(self, path):
        """Settings for a file; `-` (standard input without a name) is in the current
        folder."""
        return self.settings_in(os.path.dirname(os.path.abspath(path)))

    def settings_in(self, folder):
        """Settings for the files of a folder."""
        found = self.fixed
        if found is None:
            found = self.config_in(os.path.abspath(folder))
        declared, declared_by = None, ""
        if self.fixed is None and found.target_python is None and \
                self.command_line.target_python is None:
            # No target set: the project's declared oldest Python (cglint.declared_python).
            declared, declared_by = self._declared.of(os.path.abspath(folder))
        settings = self._settings.get((found, declared_by))
        if settings is None:
            chosen = found if declared is None else replace(found, target_python=declared)
            settings = replace(resolve(chosen, self.command_line), declared_by=declared_by)
            self._settings[found, declared_by] = settings
        return settings

    def config_in(self, folder):
        """The Config of `folder` or of its closest parent with one (Config() if none)."""
        return closest(folder, self._in_folder, _read_folder, Config())


def _read_folder(folder):
    """The Config of the first candidate file in `folder` with a cglint section, or None."""
    for name in CANDIDATES:
        candidate = os.path.join(folder, name)
        if os.path.isfile(candidate):
            found = read(candidate)
            if found is not None:
                return found
    return None


def resolve(file_config, command_line):
    """Settings from a file's Config overridden by the command line's Config."""
    def pick(name):
        value = getattr(command_line, name)
        return value if value is not None else getattr(file_config, name)

    target_python = pick("target_python") or "2.7"
    chosen = selected_codes((file_config, command_line))
    options = Options(
        # Expressed as what is left out, so the default (every rule) is Options() itself.
        ignore=tuple(code for code in all_rules() if code not in chosen),
        target_python=tuple(int(part) for part in target_python.split(".")),
        target_tf=pick("target_tf") or "1.8",
        report_unused_noqa=bool(pick("report_unused_noqa")),
    )
    per_file = _rooted(command_line if command_line.per_file_ignores is not None
                       else file_config, "per_file_ignores")
    exclude = _rooted(command_line if command_line.exclude is not None else file_config,
                      "exclude")
    exclude += _rooted(file_config, "extend_exclude") + _rooted(command_line, "extend_exclude")
    respect_gitignore = pick("respect_gitignore")
    return Settings(options,
                    tuple((root, glob, tuple(_prefix(code) for code in codes))
                          for root, (glob, codes) in per_file),
                    exclude, True if respect_gitignore is None else respect_gitignore,
                    file_config.path, target_python_assumed=pick("target_python") is None)


def selected_codes(layers):
    """The set of rule codes to report, from the settings file's and then the command
    line's Config, resolved as ruff does: a layer's `select` starts the set anew,
    `extend-select` adds to it, `ignore` and `extend-ignore` take from it. Within a layer
    the more specific prefix wins (`ignore = CG1` with `extend-select = CG103` keeps
    CG103); at equal specificity, ignore wins."""
    every = tuple(all_rules())
    chosen = set(every)
    for layer in layers:
        selectors = [(prefix, True) for prefix in (layer.select or ()) + layer.extend_select]
        selectors += [(prefix, False) for prefix in (layer.ignore or ()) + layer.extend_ignore]
        updates = {}
        for prefix, on in sorted(selectors, key=lambda pair: (_specificity(pair[0]), not pair[1])):
            for code in every:
                if code.startswith(_prefix(prefix)):
                    updates[code] = on
        if layer.select is not None:
            chosen = set()
        chosen.update(code for code, on in updates.items() if on)
        chosen.difference_update(code for code, on in updates.items() if not on)
    return chosen


def _prefix(code):
    return "CG" if code == ALL else code  # every code starts with CG


def _specificity(code):
    return 0 if code == ALL else len(code)


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
