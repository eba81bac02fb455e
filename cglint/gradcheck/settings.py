"""Gradcheck specs from the settings file: `[tool.cglint.gradcheck]` in pyproject.toml
(or `[cglint.gradcheck]` in setup.cfg / tox.ini, in the file whose `[cglint]` section the
linter uses), keyed by `path::function`, paths relative to the settings file's folder:

    [tool.cglint.gradcheck]
    "ops/activations.py::clipped_relu" = "x=(3, 4)"
    "ops/estimators.py::round_ste" = "skip straight-through estimator"
"""
import os
import sys

from cglint import config
from cglint.gradcheck import spec as specs


def read(path):
    """{(absolute file path, function): Spec} from the settings file at `path`."""
    with open(path, "rb") as handle:
        data = handle.read()
    if path.endswith(".toml"):
        if sys.version_info >= (3, 11):
            import tomllib
        else:
            import tomli as tomllib
        try:
            table = tomllib.loads(data.decode("utf-8")).get("tool", {}).get("cglint", {})
        except (tomllib.TOMLDecodeError, UnicodeDecodeError) as error:
            raise config.ConfigError("%s: not valid TOML: %s" % (path, error))
        entries, section = table.get("gradcheck", {}), "tool.cglint.gradcheck"
        if not isinstance(entries, dict):
            raise config.ConfigError("%s: [%s] must be a table" % (path, section))
    else:
        import configparser

        parser = configparser.ConfigParser(interpolation=None, delimiters=("=",))
        parser.optionxform = str  # function names are case-sensitive
        try:
            parser.read_string(data.decode("utf-8"), source=path)
        except (configparser.Error, UnicodeDecodeError) as error:
            raise config.ConfigError("%s: not a valid INI file: %s" % (path, error))
        section = "cglint.gradcheck"
        entries = dict(parser.items(section)) if parser.has_section(section) else {}
        entries = {key: value for key, value in entries.items() if key not in parser.defaults()}
    root = os.path.dirname(os.path.abspath(path))
    found = {}
    for key, value in entries.items():
        where = "%s: [%s] %r" % (path, section, key)
        file_part, separator, function = key.rpartition("::")
        if not separator or not file_part or not function:
            raise config.ConfigError("%s: expected a key like \"src/ops.py::clipped_relu\"" % where)
        if not isinstance(value, str):
            raise config.ConfigError("%s: expected a spec string like \"x=(3, 4)\" or \"skip\"" % where)
        try:
            spec = specs.parse(value)
        except specs.SpecError as error:
            raise config.ConfigError("%s: %s" % (where, error))
        found[(os.path.normpath(os.path.join(root, file_part)), function)] = spec
    return found


def find(paths, explicit=None):
    """The specs of the settings files that apply to `paths`: the closest above each path,
    as for the linter's own settings (or those of `explicit`)."""
    if explicit:
        return read(explicit)
    specs_found, read_files = {}, set()
    for path in paths:
        found = config.find(path.split("::", 1)[0] or ".")
        if found.path and found.path not in read_files:
            read_files.add(found.path)
            specs_found.update(read(found.path))
    return specs_found
