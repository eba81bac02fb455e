"""Remember each file's findings by the hash of everything that decides them.

An entry's key hashes the file's bytes, the path it is reported under, the effective
options for that file, and a fingerprint of cglint itself (its version, its source and data
files, the host Python), so an upgrade or an edited rule never serves stale findings, and
no timestamp is trusted. Entries are written atomically (temporary file, then rename).

The folder comes with the checkout, so its content is untrusted input: anyone who can
commit to a repository can plant links, FIFOs, huge or deeply nested files or forged
entries in it. So every operation works relative to folder descriptors opened without
following links (a link is never followed, only removed), an entry is read only when it
is a small regular file, and it must match the schema exactly; anything else is a miss,
and the entry is removed. A forged entry can at worst show wrong findings: nothing a run
writes into a file or shows as an edit (--fix, --diff, --add-noqa) comes from an entry
that has a finding or a summary; such files are checked again (cglint.lint_run).
"""
import errno
import hashlib
import json
import os
import re
import stat
import sys
from dataclasses import replace

import cglint
from cglint import engine, interrupts, project, suppress
from cglint.diagnostics import Diagnostic, Edit, Result
from cglint.source import Span

FOLDER = ".cglint_cache"
_FORMAT = 6
# An entry larger than this is not read (nor written): 100,000 findings fit.
MAX_ENTRY_BYTES = 16 * 1024 * 1024
# Our own entries nest about a dozen levels deep; a planted 100k-deep one must not recurse.
MAX_JSON_DEPTH = 64
# The cache's own layout is three levels deep; removing a planted tree stops below this.
_MAX_REMOVE_DEPTH = 16
_POSITION_LIMIT = 2 ** 31
_CODE = re.compile(r"CG[0-9]{3}\Z")
_DIGEST = re.compile(r"[0-9a-f]{64}\Z")
_fingerprint = None

_DIRECTORY = os.O_RDONLY | getattr(os, "O_DIRECTORY", 0) | getattr(os, "O_NOFOLLOW", 0)
_NO_FOLLOW = getattr(os, "O_NOFOLLOW", 0)
_NON_BLOCKING = getattr(os, "O_NONBLOCK", 0)


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
    def __init__(self, folder=FOLDER, warn=None):
        self.top = folder
        self.version = fingerprint()[:16]
        self.hits = self.misses = 0
        self._digests = {}  # (dependency path, kind) -> its digest when first asked this run
        self._prepared = False
        self._disabled = False
        self._warn = warn or (lambda message: sys.stderr.write("cglint: %s\n" % message))

    @staticmethod
    def key(path, data, options):
        digest = hashlib.sha256()
        # A name that is not valid UTF-8 arrives surrogate-escaped: fsencode gives its
        # bytes back, where a plain encode() raised and ended the run.
        digest.update(os.fsencode(path) + b"\0")
        digest.update(("%r\0" % (options,)).encode())
        digest.update(data)
        return digest.hexdigest()

    # ------------------------------------------------------------------ reading

    def _digest_of(self, dependency):
        # Once per run: a module imported all over a project is a dependency of
        # thousands of entries (the run sees files as they are when it reads them).
        key = (dependency.path, dependency.kind)
        if key not in self._digests:
            self._digests[key] = project.digest_now(dependency)
        return self._digests[key]

    def get(self, key, path):
        """The cached engine.Result, or None."""
        result = None
        folder = self._open_folder(key, create=False)
        if folder is not None:
            try:
                result = self._read(folder, key[2:] + ".json", path)
            finally:
                os.close(folder)
        if result is None:
            self.misses += 1
        elif any(self._digest_of(d) != d.digest for d in result.dependencies):
            # Findings drawn from other project files hold only while those are unchanged.
            self.misses += 1
            result = None
        else:
            self.hits += 1
        return result

    def _read(self, folder, name, path):
        try:
            # Only a regular file is opened: opening a device node can have effects.
            if not stat.S_ISREG(os.stat(name, dir_fd=folder, follow_symlinks=False).st_mode):
                _remove_at(folder, name)
                return None
            descriptor = os.open(name, os.O_RDONLY | _NO_FOLLOW | _NON_BLOCKING, dir_fd=folder)
        except OSError as error:
            if error.errno != errno.ENOENT:  # a link (ELOOP), a folder, ...: not ours
                _remove_at(folder, name)
            return None
        try:
            info = os.fstat(descriptor)
            if not stat.S_ISREG(info.st_mode) or info.st_size > MAX_ENTRY_BYTES:
                data = None
            else:
                data = _read_at_most(descriptor, MAX_ENTRY_BYTES + 1)
        finally:
            os.close(descriptor)
        result = None
        if data is not None and len(data) <= MAX_ENTRY_BYTES:
            try:
                result = _decode(_loads(data), path)
            except (ValueError, TypeError, KeyError, IndexError, AttributeError,
                    RecursionError, MemoryError):
                result = None
        if result is None:
            _remove_at(folder, name)
        return result

    # ------------------------------------------------------------------ writing

    def put(self, key, result):
        """Store a result; an internal error is never stored, and a full disk or a
        read-only checkout only means no cache."""
        if result.error:
            return
        try:
            data = json.dumps(_encode(result), separators=(",", ":")).encode()
        except (TypeError, ValueError, RecursionError):
            return
        if len(data) > MAX_ENTRY_BYTES:
            return
        folder = self._open_folder(key, create=True)
        if folder is None:
            return
        try:
            _write_at(folder, key[2:] + ".json", data)
        except OSError:
            pass
        finally:
            os.close(folder)

    # ------------------------------------------------------------------ the folders

    def _open_top(self, create):
        """A descriptor of the cache folder itself, or None (absent, or not usable: a
        link or a file in its place is said once, and the run goes on uncached)."""
        if self._disabled:
            return None
        if create:
            try:
                os.mkdir(self.top)
            except FileExistsError:
                pass
            except OSError:
                self._disabled = True
                return None
        try:
            return os.open(self.top, _DIRECTORY)
        except FileNotFoundError:
            return None
        except OSError as error:
            self._disabled = True
            if error.errno in (errno.ELOOP, errno.ENOTDIR):
                self._warn("%s is a symbolic link or not a folder: running without the "
                           "cache" % self.top)
            return None

    def _open_folder(self, key, create):
        """A descriptor of the folder for `key`'s entry, or None."""
        top = self._open_top(create)
        if top is None:
            return None
        try:
            if create and not self._prepared:
                self._prepared = True
                self._prepare(top)
            version = _open_subfolder(top, self.version, create)
            if version is None:
                return None
            try:
                return _open_subfolder(version, key[:2], create)
            finally:
                os.close(version)
        finally:
            os.close(top)

    def _prepare(self, top):
        """On first write: keep the cache out of git, like ruff's, and drop the entries of
        other cglint versions, which can never hit again. Nothing is followed: a link in
        the folder is removed as a link, whatever it points to."""
        try:
            descriptor = os.open(".gitignore", os.O_WRONLY | os.O_CREAT | os.O_EXCL | _NO_FOLLOW,
                                 0o644, dir_fd=top)
        except OSError:  # there already (a dangling link included: O_EXCL never follows)
            pass
        else:
            with os.fdopen(descriptor, "w") as handle:
                handle.write("# Created by cglint automatically.\n*\n")
        try:
            names = os.listdir(top)
        except OSError:
            return
        for name in names:
            if name == self.version or name == ".gitignore":
                continue
            try:
                info = os.stat(name, dir_fd=top, follow_symlinks=False)
            except OSError:
                continue
            if stat.S_ISDIR(info.st_mode) or stat.S_ISLNK(info.st_mode):
                _remove_at(top, name)


def _open_subfolder(parent, name, create):
    """A descriptor of folder `name` in `parent`, made when `create`; a link or anything
    else in its place is removed first, never followed."""
    for _ in range(2):
        try:
            return os.open(name, _DIRECTORY, dir_fd=parent)
        except FileNotFoundError:
            if not create:
                return None
        except OSError as error:
            if error.errno not in (errno.ELOOP, errno.ENOTDIR):
                return None
            _remove_at(parent, name)
            if not create:
                return None
        try:
            os.mkdir(name, 0o755, dir_fd=parent)
        except FileExistsError:
            pass
        except OSError:
            return None
    return None


def _write_at(folder, name, data):
    """Write an entry atomically: a fresh temporary file (O_EXCL: never an existing
    file or link), then a rename, which replaces a link itself, never its target."""
    temporary = ".%s.%s.tmp" % (name, os.urandom(4).hex())
    descriptor = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL | _NO_FOLLOW, 0o644,
                         dir_fd=folder)
    try:
        with os.fdopen(descriptor, "wb") as handle:
            handle.write(data)
        os.replace(temporary, name, src_dir_fd=folder, dst_dir_fd=folder)
    except BaseException:
        _quietly(lambda: os.unlink(temporary, dir_fd=folder))
        raise


def _read_at_most(descriptor, limit):
    chunks, size = [], 0
    while size < limit:
        chunk = os.read(descriptor, min(1 << 20, limit - size))
        if not chunk:
            break
        chunks.append(chunk)
        size += len(chunk)
    return b"".join(chunks)


def _remove_at(parent, name, depth=0):
    """Remove `name` in the folder `parent` (a descriptor) and, for a folder, what is in
    it, without following any link and without leaving the file system: a link is
    unlinked itself, so nothing outside the cache is ever touched."""
    try:
        os.unlink(name, dir_fd=parent)
        return
    except FileNotFoundError:
        return
    except OSError as error:
        if error.errno not in (errno.EISDIR, errno.EPERM) or depth >= _MAX_REMOVE_DEPTH:
            return
    try:
        folder = os.open(name, _DIRECTORY, dir_fd=parent)
    except OSError:
        return
    try:
        if os.fstat(folder).st_dev != os.fstat(parent).st_dev:
            return  # a mount point: not ours to empty
        for entry in os.listdir(folder):
            _remove_at(folder, entry, depth + 1)
    finally:
        os.close(folder)
    _quietly(lambda: os.rmdir(name, dir_fd=parent))


def _quietly(action):
    try:
        action()
    except OSError:
        pass


# ---------------------------------------------------------------------- the format

# A string (an unterminated one runs to the end: a failed match retried at every later
# quote made the scan quadratic), or a bracket.
_JSON_NESTING = re.compile(rb'"(?:[^"\\]|\\.?)*"?|[\[\]{}]')


def _loads(data):
    """json.loads for an entry, refusing nesting deeper than MAX_JSON_DEPTH first."""
    depth = 0
    for match in _JSON_NESTING.finditer(data):
        token = match.group()
        if token in (b"[", b"{"):
            depth += 1
            if depth > MAX_JSON_DEPTH:
                raise ValueError("cache entry nested too deeply")
        elif token in (b"]", b"}"):
            depth -= 1
    return json.loads(data)


def _encode(result):
    diagnostics = list(result.diagnostics)
    index = {diagnostic: number for number, diagnostic in enumerate(diagnostics)}
    return {
        "diagnostics": [[d.line, d.col, d.code, d.message, d.end_line, d.end_col,
                         list(d.noqa_lines)] for d in diagnostics],
        "fixes": [[index[d], [[e.line, e.col, e.end_line, e.end_col, e.text, e.safe]
                              for e in edits]]
                  for d, edits in result.fixes if d in index],
        "summaries": _tag(result.summaries),
        "dependencies": [[d.path, d.digest, d.kind] for d in result.dependencies],
        "directives": _directives(result.directives),
    }


def _directives(directives):
    """A file's `noqa` comments, which its whole-run findings obey (cglint.check.finish)."""
    if directives is None or directives is suppress.NONE:
        return None
    return {"file": None if directives.file_codes is None else list(directives.file_codes),
            "inline": [[noqa.line, noqa.start, noqa.end, list(noqa.codes), noqa.cut,
                        noqa.cut_end, noqa.rest, noqa.own_line]
                       for noqa in directives.inline.values()]}


def _decode_directives(record):
    if record is None:
        return suppress.NONE
    if type(record) is not dict or set(record) != {"file", "inline"}:
        raise ValueError("damaged cache entry")
    inline = {}
    for fields in _list(record["inline"]):
        _expect_list(fields, 8)
        line, start, end, codes, cut, cut_end, rest, own_line = fields
        _expect(int, start, end, cut, cut_end)
        _expect_position(line, start + 1, end + 1, cut + 1, cut_end + 1)
        _expect(str, rest, *_list(codes))
        _expect(bool, own_line)
        inline[line] = suppress.Noqa(line, start, end, tuple(codes), cut, cut_end, rest,
                                     own_line)
    file_codes = record["file"]
    if file_codes is not None:
        _expect(str, *_list(file_codes))
        file_codes = tuple(file_codes)
    return suppress.Directives(inline, file_codes)


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
    if value is None or type(value) in (bool, int, float, str):
        return value
    if type(value) is not dict or len(value) != 1:
        raise ValueError("damaged cache entry")
    (kind, items), = value.items()
    if type(items) is not list:
        raise ValueError("damaged cache entry")
    if kind == "d":
        pairs = []
        for pair in items:
            _expect_list(pair, 2)
            pairs.append((_untag(pair[0]), _untag(pair[1])))
        return dict(pairs)  # TypeError for an unhashable key
    if kind not in ("l", "t", "s"):
        raise ValueError("damaged cache entry")
    return {"l": list, "t": tuple, "s": frozenset}[kind](_untag(item) for item in items)


def _decode(record, path):
    """The Result in a parsed entry; ValueError (or TypeError, ...) for anything that is
    not exactly what _encode writes."""
    if type(record) is not dict or set(record) != {"diagnostics", "fixes", "summaries",
                                                   "dependencies", "directives"}:
        raise ValueError("damaged cache entry")
    known = engine.rules()
    diagnostics = []
    for fields in _list(record["diagnostics"]):
        _expect_list(fields, 7)
        line, col, code, message, end_line, end_col, noqa = fields
        _expect_position(line, col)
        _expect(int, end_line, end_col)
        _expect_position(end_line + 1, end_col + 1)  # 0: no end
        _expect(str, code, message)
        if not _CODE.match(code) or code not in known:
            raise ValueError("damaged cache entry")
        for number in _list(noqa):
            _expect_position(number)
        diagnostics.append(Diagnostic(path, line, col, code, message, end_line, end_col,
                                      tuple(noqa)))
    for fix in _list(record["fixes"]):
        _expect_list(fix, 2)
        number, edits = fix
        _expect(int, number)
        if not 0 <= number < len(diagnostics):
            raise ValueError("damaged cache entry")
        decoded = []
        for edit in _list(edits):
            _expect_list(edit, 6)
            _expect_position(*edit[:4])
            _expect(str, edit[4])
            _expect(bool, edit[5])
            decoded.append(Edit(Span(*edit[:4]), edit[4], edit[5]))
        diagnostics[number] = replace(diagnostics[number], fix=tuple(decoded))
    summaries = _untag(record["summaries"])
    if type(summaries) is not dict:
        raise ValueError("damaged cache entry")
    _expect_summaries(summaries, path)
    dependencies = []
    for dependency in _list(record["dependencies"]):
        _expect_list(dependency, 3)
        _expect(str, dependency[0], dependency[2])
        # a digest, or None for a file that must stay absent
        if dependency[2] not in project.DEPENDENCY_KINDS or (
                dependency[1] is None and dependency[2] != project.FILE) or (
                dependency[1] is not None and not (type(dependency[1]) is str
                                                   and _DIGEST.match(dependency[1]))):
            raise ValueError("damaged cache entry")
        dependencies.append(project.Dependency(*dependency))
    return Result(path, diagnostics, summaries=summaries, dependencies=tuple(dependencies),
                  directives=_decode_directives(record["directives"]))


def _expect_summaries(summaries, path):
    """Each summary must be one its rule can judge: it is run through the rule's
    check_run, alone and beside a copy of itself, so that a planted one fails here
    (a miss) and not in the middle of the run."""
    run_level = engine.run_level_codes()
    rules = engine.rules()
    for code, summary in summaries.items():
        if code not in run_level:
            raise ValueError("damaged cache entry")
        rule = rules[code]
        try:
            list(rule.check_run({path: summary}))
            # (a name a path may have: a rule may ask os.path about it, which refuses NUL)
            list(rule.check_run({path: summary, path + ".copy": summary}))
        except Exception as error:  # whatever a wrong shape raises in a rule
            interrupts.raise_stop_behind(error)
            raise ValueError("damaged cache entry: %s" % error)


def _list(value):
    if type(value) is not list:
        raise ValueError("damaged cache entry")
    return value


def _expect_list(value, length):
    if type(value) is not list or len(value) != length:
        raise ValueError("damaged cache entry")


def _expect_position(*values):
    if not all(type(value) is int and 1 <= value < _POSITION_LIMIT for value in values):
        raise ValueError("damaged cache entry")


def _expect(kind, *values):
    if not all(type(value) is kind for value in values):
        raise ValueError("damaged cache entry")
