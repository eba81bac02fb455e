"""The fixture programs under fixtures/, with their parsed headers."""
import os

from cglint.oracle.headers import parse_header

ROOT = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "fixtures")


def fixture_paths():
    found = []
    for folder, dirs, names in os.walk(ROOT):
        dirs.sort()
        found += [os.path.join(folder, name) for name in sorted(names) if name.endswith(".py")]
    return found


def header_of(path):
    with open(path, encoding="utf-8") as handle:
        return parse_header(handle.read())


def rule_of(path):
    """The rule code a fixture belongs to (its folder), or None (seed examples)."""
    folder = os.path.basename(os.path.dirname(path))
    return folder if folder.startswith("CG") else None
