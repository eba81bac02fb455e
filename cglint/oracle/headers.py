"""Read a fixture's header: what the linter should find and what TF 1.8 should do.

The format is described in fixtures/README.md.
"""
import re
from dataclasses import dataclass, field

INTERPRETERS = ("py27", "py36")

_KEY = re.compile(r"#\s*(lint|run|mode|target-python)(?:\[([^\]]*)\])?\s*:\s*(.*?)\s*$")
_FINDING = re.compile(r"^(CG\d{3})\s+(\d+):(\d+)$")
_OUTCOME = re.compile(r"^(ok|[A-Za-z_][A-Za-z0-9_]*)(?::\s*(.*))?$")


class HeaderError(ValueError):
    """A fixture header that does not follow fixtures/README.md."""


@dataclass(frozen=True)
class Outcome:
    """`ok`, or an exception class name and a fragment of its message."""

    exception: str  # "ok" when the program must run to the end
    fragment: str = ""

    @property
    def ok(self):
        return self.exception == "ok"

    def matches(self, exception, message):
        if self.ok:
            return exception == "ok"
        return exception == self.exception and self.fragment in (message or "")

    def __str__(self):
        if self.ok or not self.fragment:
            return self.exception
        return "%s: %s" % (self.exception, self.fragment)


@dataclass
class Header:
    findings: list = field(default_factory=list)  # [(code, line, col)], sorted
    clean: bool = False
    runs: dict = field(default_factory=dict)  # interpreter -> Outcome
    mode: str = "graph"
    target_python: str = "2.7"


def parse_outcome(text):
    match = _OUTCOME.match(text.strip())
    if not match:
        raise HeaderError("bad outcome %r (want `ok` or `ExceptionType: fragment`)" % text)
    return Outcome(match.group(1), (match.group(2) or "").strip())


def header_lines(text):
    """The leading comment block (a blank line or code ends it)."""
    for line in text.splitlines():
        stripped = line.strip()
        if not stripped.startswith("#"):
            return
        yield stripped


def parse_header(text, entry=True):
    """The Header of a fixture's text. A project fixture's other modules (`entry=False`)
    state only what the linter finds in them: they have no `run:` of their own."""
    header = Header()
    general = None
    specific = {}
    for line in header_lines(text):
        match = _KEY.match(line)
        if not match:
            continue
        key, where, value = match.groups()
        if key == "lint":
            if value == "clean":
                header.clean = True
                continue
            found = _FINDING.match(value)
            if not found:
                raise HeaderError("bad lint header %r (want `CG103 12:5` or `clean`)" % line)
            header.findings.append((found.group(1), int(found.group(2)), int(found.group(3))))
        elif key == "run":
            outcome = parse_outcome(value)
            if where is None:
                general = outcome
                continue
            for name in (part.strip() for part in where.split(",")):
                if name not in INTERPRETERS:
                    raise HeaderError("unknown interpreter %r in %r" % (name, line))
                specific[name] = outcome
        elif key == "mode":
            if value not in ("graph", "eager"):
                raise HeaderError("bad mode %r (want graph or eager)" % value)
            header.mode = value
        else:
            header.target_python = value
    if header.clean and header.findings:
        raise HeaderError("`lint: clean` together with expected findings")
    if not header.clean and not header.findings:
        raise HeaderError("no `# lint:` header")
    for name in INTERPRETERS:
        outcome = specific.get(name, general)
        if outcome is not None:
            header.runs[name] = outcome
    if entry and not header.runs:
        raise HeaderError("no `# run:` header")
    if not entry and header.runs:
        raise HeaderError("`# run:` belongs in the project's main.py only")
    header.findings.sort()
    return header


def read_header(path, entry=True):
    """The header of the fixture file at `path` (its comments are ASCII whatever the coding)."""
    with open(path, "rb") as handle:
        return parse_header(handle.read().decode("utf-8-sig", "replace"), entry)


# A folder holding this file is one project fixture: the file is its entry script, run by
# the oracle; the folder's other modules are what it imports.
PROJECT_ENTRY = "main.py"
