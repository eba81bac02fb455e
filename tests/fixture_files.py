"""The fixture programs under fixtures/, with their parsed headers.

A fixture is one file, or one project: a folder holding a `main.py` (its entry script, with
the `run:` header) and the modules it imports (each with its own `lint:` header).
"""
import os

from cglint.oracle.headers import PROJECT_ENTRY, parse_header

ROOT = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "fixtures")


def fixture_paths():
    """Every fixture's entry: the file itself, or a project's main.py."""
    found = []
    for folder, dirs, names in os.walk(ROOT):
        if PROJECT_ENTRY in names and folder != ROOT:
            dirs[:] = []
            found.append(os.path.join(folder, PROJECT_ENTRY))
            continue
        dirs.sort()
        found += [os.path.join(folder, name) for name in sorted(names) if name.endswith(".py")]
    return found


def is_project(path):
    return os.path.basename(path) == PROJECT_ENTRY


def project_files(entry):
    """Every module of a project fixture, its entry first."""
    folder = os.path.dirname(entry)
    others = []
    for root, dirs, names in os.walk(folder):
        dirs[:] = sorted(d for d in dirs if d != "__pycache__")
        others += [os.path.join(root, name) for name in sorted(names)
                   if name.endswith(".py") and os.path.join(root, name) != entry]
    return [entry] + others


def header_of(path, entry=True):
    with open(path, encoding="utf-8") as handle:
        return parse_header(handle.read(), entry)


def fixture_name(path):
    """`bad_x.py`, or a project's folder name (`bad_x`)."""
    return os.path.basename(os.path.dirname(path) if is_project(path) else path)


def rule_of(path):
    """The rule code a fixture belongs to (its folder), or None (seed examples)."""
    folder = os.path.dirname(os.path.dirname(path) if is_project(path) else path)
    name = os.path.basename(folder)
    return name if name.startswith("CG") else None
