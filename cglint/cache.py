"""Remember each file's findings by the hash of everything that decides them.

An entry's key hashes the file's bytes, the path it is reported under, the effective
options for that file, and a fingerprint of cglint itself (its version, its source and data
files, the host Python), so an upgrade or an edited rule never serves stale findings, and
no timestamp is trusted. Entries are written atomically (temporary file, then rename); an
entry that cannot be read or parsed is a miss and is written anew.
"""
import hashlib
import json
import os
import sys

import cglint
from cglint import engine, project
from cglint.diagnostics import Diagnostic
from cglint.rules.base import Edit

FOLDER = ".cglint_cache"
_FORMAT = 3
_fingerprint = None


def fingerprint():
    """A hash of what, besides a file and the options, decides its findings."""
    global _fingerprint
    if _fingerprint is None:
        digest = hashlib.sha256()
        digest.update(("%s|%s|%d" % (cglint.__version__, sys.version, _FORMAT)).encode())
        package = os.path.dirname(os.path.abspath(cglint.__file__))
        for folder, subfolders, names in os.walk(package):
            subfolders[:] = sorted(d for d in subfolders if d != "__pycache__")
            for name in sorted(names):
                if name.endswith((".py", ".json")):
                    path = os.path.join(folder, name)
                    digest.update(os.path.relpath(path, package).encode() + b"\0")
                    with open(path, "rb") as handle:
                        digest.update(hashlib.sha256(handle.read()).digest())
        _fingerprint = digest.hexdigest()
    return _fingerprint


class Cache:
    def __init__(self, folder=FOLDER):
        self.folder = os.path.join(folder, fingerprint()[:16])
        self.hits = self.misses = 0
        self._prepared = False

    @staticmethod
    def key(path, data, options, report_unused_noqa):
        digest = hashlib.sha256()
        digest.update(("%s\0%r\0%r\0" % (path, options, report_unused_noqa)).encode())
        digest.update(data)
        return digest.hexdigest()

    def _entry(self, key):
        return os.path.join(self.folder, key[:2], key[2:] + ".json")

    def get(self, key, path):
        """The cached engine.Result, or None."""
        try:
            with open(self._entry(key), "rb") as handle:
                result = _decode(json.loads(handle.read()), path)
        except (OSError, ValueError, TypeError, KeyError, IndexError, AttributeError):
            self.misses += 1
            return None
        # Findings drawn from other project files hold only while those files are unchanged.
        if any(project.digest_of(d.path) != d.digest for d in result.dependencies):
            self.misses += 1
            return None
        self.hits += 1
        return result

    def put(self, key, result):
        """Store a result; an internal error is never stored, and a full disk or a
        read-only checkout only means no cache."""
        if result.error:
            return
        entry = self._entry(key)
        try:
            self._prepare()
            os.makedirs(os.path.dirname(entry), exist_ok=True)
            import tempfile  # only a cache write needs it: not at start-up

            descriptor, temporary = tempfile.mkstemp(dir=os.path.dirname(entry), suffix=".tmp")
            try:
                with os.fdopen(descriptor, "w") as handle:
                    json.dump(_encode(result), handle, separators=(",", ":"))
                os.replace(temporary, entry)
            except BaseException:
                os.unlink(temporary)
                raise
        except OSError:
            pass

    def _prepare(self):
        """On first write: keep the cache out of git, like ruff's, and drop the entries of
        other cglint versions, which can never hit again."""
        if self._prepared:
            return
        self._prepared = True
        top = os.path.dirname(self.folder)
        os.makedirs(self.folder, exist_ok=True)
        ignore = os.path.join(top, ".gitignore")
        if not os.path.exists(ignore):
            with open(ignore, "w") as handle:
                handle.write("# Created by cglint automatically.\n*\n")
        for name in os.listdir(top):
            stale = os.path.join(top, name)
            if name != os.path.basename(self.folder) and os.path.isdir(stale):
                _remove_tree(stale)


def _remove_tree(path):
    for folder, subfolders, names in os.walk(path, topdown=False):
        for name in names:
            _quietly(os.unlink, os.path.join(folder, name))
        for name in subfolders:
            _quietly(os.rmdir, os.path.join(folder, name))
    _quietly(os.rmdir, path)


def _quietly(action, path):
    try:
        action(path)
    except OSError:
        pass


def _encode(result):
    diagnostics = list(result.diagnostics)
    index = {diagnostic: number for number, diagnostic in enumerate(diagnostics)}
    return {
        "diagnostics": [[d.line, d.col, d.code, d.message, d.end_line, d.end_col,
                         list(d.noqa_lines)] for d in diagnostics],
        "fixes": [[index[d], [[e.line, e.col, e.end_line, e.end_col, e.text] for e in edits]]
                  for d, edits in result.fixes if d in index],
        "summaries": _tag(result.summaries),
        "dependencies": [[d.path, d.digest] for d in result.dependencies],
    }


def _tag(value):
    """Rule summaries as JSON that keeps tuples, sets and non-string dict keys apart."""
    if isinstance(value, (list, tuple, set, frozenset)):
        kind = {list: "l", tuple: "t", set: "s", frozenset: "s"}[type(value)]
        items = sorted(value, key=repr) if kind == "s" else value
        return {kind: [_tag(item) for item in items]}
    if isinstance(value, dict):
        return {"d": [[_tag(key), _tag(item)] for key, item in value.items()]}
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    raise TypeError("a rule summary holds %r" % type(value))


def _untag(value):
    if not isinstance(value, dict):
        return value
    (kind, items), = value.items()
    if kind == "d":
        return {_untag(key): _untag(item) for key, item in items}
    return {"l": list, "t": tuple, "s": frozenset}[kind](_untag(item) for item in items)


def _decode(record, path):
    """The Result in a parsed entry; ValueError for anything a damaged file could hold."""
    diagnostics = []
    for line, col, code, message, end_line, end_col, noqa in record["diagnostics"]:
        _expect(int, line, col, end_line, end_col, *noqa)
        _expect(str, code, message)
        diagnostics.append(Diagnostic(path, line, col, code, message, end_line, end_col,
                                      tuple(noqa)))
    fixes = []
    for number, edits in record["fixes"]:
        _expect(int, number)
        for line, col, end_line, end_col, text in edits:
            _expect(int, line, col, end_line, end_col)
            _expect(str, text)
        fixes.append((diagnostics[number], tuple(Edit(*edit) for edit in edits)))
    summaries = _untag(record["summaries"])
    if not isinstance(summaries, dict):
        raise ValueError("damaged cache entry")
    dependencies = []
    for dependency_path, digest in record["dependencies"]:
        _expect(str, dependency_path, digest)
        dependencies.append(project.Dependency(dependency_path, digest))
    return engine.Result(path, diagnostics, fixes, summaries=summaries,
                         dependencies=tuple(dependencies))


def _expect(kind, *values):
    if not all(type(value) is kind for value in values):
        raise ValueError("damaged cache entry")
