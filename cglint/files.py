"""Find the Python files under the given paths, and read one file into a Source."""
import errno
import io
import os
import stat
import tokenize
from dataclasses import dataclass

# Folders no user wants linted: VCS data, virtualenvs, build output and caches.
SKIPPED_DIRS = frozenset((
    ".git", ".hg", ".svn", ".tox", ".nox", ".venv", "venv", ".eggs", "__pycache__",
    ".mypy_cache", ".pytest_cache", ".ruff_cache", ".cglint_cache", "build", "dist",
    "node_modules", "site-packages",
))
# Larger files are almost always generated; reading them would cost more than it finds.
MAX_BYTES = 20 * 1024 * 1024
# The stdlib parser needs about 2.4 GB and a minute for a million short lines (6 MB, far
# under MAX_BYTES): cap lines too, so one file cannot take a worker's memory. TF 1.8's
# largest file has 13,618 lines.
MAX_LINES = 200000


@dataclass
class Source:
    path: str
    text: str
    encoding: str
    newline: str  # "\r\n" when the file uses CRLF, else "\n"
    bom: bool


@dataclass
class Unreadable:
    """A path that cannot be turned into a Source, with a position for CG002."""

    path: str
    message: str
    line: int = 1
    col: int = 1


def is_virtualenv(path):
    return os.path.exists(os.path.join(path, "pyvenv.cfg"))


def discover(paths, ignored_under=None):
    """Yield (path, problem) pairs: every *.py under `paths`, once, in sorted order.

    problem is None for a file to lint, else a message for a path that cannot be walked.
    Explicitly named files are linted whatever their suffix, like flake8 and ruff do.
    `ignored_under(folder)`, when given, is a predicate (or None) saying which paths found
    while walking that folder to pass over (gitignore.ignored_under); named paths never are.
    """
    seen = set()
    for top in paths:
        if top == "-":
            yield top, None
            continue
        try:
            info = os.stat(top)
        except OSError as error:
            yield top, "cannot read: %s" % (error.strerror or error)
            continue
        if stat.S_ISDIR(info.st_mode):
            skip = ignored_under(top) if ignored_under else None
            for found in _walk(top, seen, skip):
                yield found
        elif stat.S_ISREG(info.st_mode):
            key = (info.st_dev, info.st_ino)
            if key not in seen:
                seen.add(key)
                yield top, None
        else:
            yield top, "not a regular file or folder"


def _walk(top, seen, skip=None):
    """Depth-first, in the order of the paths' text (a folder's files and subfolders
    interleaved, a subfolder sorting as its name plus `/`), so that files come in the
    order a sorted report lists them: the run reports each file as soon as it is done."""
    visited = set()
    stack = [iter([(_Folder(top), None)])]  # per open folder: what is left of it, in order
    while stack:
        step = next(stack[-1], None)
        if step is None:
            stack.pop()
            continue
        path, problem = step
        if problem is not None or not isinstance(path, _Folder):
            if problem is not None or _first_time(path, seen):
                yield str(path) if problem is None else path, problem
            continue
        stack.append(iter(_folder_entries(path, visited, skip)))


class _Folder(str):
    """A subfolder to walk, among the files of a folder's entries."""


class _File(str):
    """A file found, with the identity that makes it found only once."""

    key = None


def _first_time(path, seen):
    if path.key in seen:
        return False
    seen.add(path.key)
    return True


def _folder_entries(folder, visited, skip):
    """[(path, problem)] of one folder, sorted as _walk says; a path without a problem is
    a _Folder to walk or a _File to yield."""
    try:
        info = os.stat(folder)
    except OSError as error:
        return [(str(folder), "cannot read: %s" % (error.strerror or error))]
    key = (info.st_dev, info.st_ino)
    if key in visited:  # symlink loop or a folder linked twice
        return []
    visited.add(key)
    try:
        entries = list(os.scandir(folder))
    except OSError as error:
        return [(str(folder), "cannot read: %s" % (error.strerror or error))]
    found = []  # (sort key, (path, problem))
    for entry in entries:
        if skip is not None and skip(entry.path):
            continue
        try:
            is_dir = entry.is_dir()
            is_file = entry.is_file()
        except OSError as error:
            # A symlink loop (ELOOP) or an entry gone stale: a *.py one is reported,
            # not silently dropped from the run.
            if entry.name.endswith(".py"):
                found.append((entry.name, (entry.path, "cannot read: %s" % (
                    error.strerror or error))))
            continue
        if is_dir:
            # A linked folder is not walked (as os.walk, flake8 and ruff do): it may lead
            # out of the project, where --fix would write. Named on the command line, it is.
            if entry.name not in SKIPPED_DIRS and not entry.is_symlink() and \
                    not is_virtualenv(entry.path):
                found.append((entry.name + "/", (_Folder(entry.path), None)))
        elif entry.name.endswith(".py") and not is_file:
            # A FIFO, socket or dangling link: opening it could block or fail.
            broken = entry.is_symlink() and not os.path.exists(entry.path)
            found.append((entry.name, (entry.path, "broken symbolic link" if broken
                                       else "not a regular file")))
        elif entry.name.endswith(".py"):
            try:
                file_info = entry.stat()
            except OSError as error:
                found.append((entry.name, (entry.path, "cannot read: %s" % (
                    error.strerror or error))))
                continue
            path = _File(entry.path)
            path.key = (file_info.st_dev, file_info.st_ino)
            found.append((entry.name, (path, None)))
    found.sort(key=lambda pair: pair[0])
    return [step for _, step in found]


def read_bytes(path, stdin=None):
    if path == "-":
        return (stdin or io.BytesIO()).read()
    return read_file(path)[0]


def read_file(path):
    """(bytes, os.stat_result of the descriptor they were read from): --fix replaces the
    file only while it is still that inode with that size and time."""
    # O_NONBLOCK, then check the type on the open descriptor: a file replaced by a FIFO
    # after discover() must not block the run (a plain open() waits for a writer).
    descriptor = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    with open(descriptor, "rb") as handle:
        info = os.fstat(descriptor)
        if not stat.S_ISREG(info.st_mode):
            raise OSError(errno.EINVAL, "not a regular file")
        # Sized by the file, not the limit: a read of MAX_BYTES allocates that much first
        # (13 us a file). A file grown since fstat() is read on, up to the limit.
        wanted = min(info.st_size, MAX_BYTES) + 1
        data = handle.read(wanted)
        if len(data) == wanted and wanted <= MAX_BYTES:
            data += handle.read(MAX_BYTES + 1 - wanted)
    return data, info


UTF8_BOM = b"\xef\xbb\xbf"


def starts_with_bom(path):
    """Whether the file at `path` begins with a UTF-8 BOM (for callers handed its text
    with the BOM taken off: flake8, an editor). False when it cannot be read, and for
    anything but a regular file (`/dev/stdin` would wait on the editor's own channel)."""
    try:
        if not stat.S_ISREG(os.stat(path).st_mode):
            return False
        with open(path, "rb") as handle:
            return handle.read(3) == UTF8_BOM
    except (OSError, ValueError, TypeError):
        return False


def decode(path, data):
    """Source or Unreadable, honouring BOMs and PEP 263 coding lines like Python does."""
    if len(data) > MAX_BYTES:
        return Unreadable(path, "file is larger than %d MB; skipped" % (MAX_BYTES // 2**20))
    bom = data.startswith(b"\xef\xbb\xbf")
    # detect_encoding reads the first two lines at most; when they are plain ASCII
    # without a coding line it answers UTF-8, as here without its Python-level work.
    head = data[:data.find(b"\n", data.find(b"\n") + 1) + 1 or len(data)]
    if not bom and head.isascii() and b"coding" not in head:
        encoding = "utf-8"
    else:
        try:
            encoding, _ = tokenize.detect_encoding(io.BytesIO(data).readline)
        except SyntaxError as error:
            return Unreadable(path, "cannot decode: %s" % error)
    try:
        text = data.decode(encoding)
    except UnicodeDecodeError as error:
        line = data.count(b"\n", 0, error.start) + 1
        col = error.start - (data.rfind(b"\n", 0, error.start) + 1) + 1
        return Unreadable(
            path, "cannot decode byte 0x%02x as %s" % (data[error.start], encoding), line, col)
    except LookupError:
        return Unreadable(path, "unknown encoding %r" % encoding)
    except ValueError as error:
        # Found by fuzzing: some codecs raise a bare UnicodeError (`# coding: undefined`,
        # idna on some inputs) or another ValueError, with no position to report.
        return Unreadable(path, "cannot decode as %s: %s" % (encoding, error))
    if bom:
        text = text.lstrip("\ufeff")
    newline = "\n"
    if "\r" in text:
        newline = "\r\n" if "\r\n" in text else "\n"
        text = text.replace("\r\n", "\n").replace("\r", "\n")
    return Source(path, text, encoding, newline, bom)


def too_many_lines(text):
    """The CG002 message for a text over MAX_LINES lines, else None."""
    if text.count("\n") > MAX_LINES:
        return "file has more than %d lines; skipped" % MAX_LINES
    return None


def load(path, stdin=None):
    try:
        data = read_bytes(path, stdin)
    except OSError as error:
        return Unreadable(path, "cannot read: %s" % (error.strerror or error))
    return decode(path, data)
