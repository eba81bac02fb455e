"""Apply fix edits to source text, and write the fixed file back safely.

Positions in an Edit are 1-based lines and 1-based character columns (a tab counts 1) of
the text the rule saw; lines end at `\\r\\n`, `\\r` or `\\n`, as Python's tokenizer has it.
"""
import errno
import io
import os
import re
import stat
import tempfile
import tokenize

from cglint.source import LineIndex


class OverlappingEdits(ValueError):
    """Two edits touch the same text, so applying both has no single meaning."""


def apply_edits(text, edits):
    """`text` with every edit applied; raises OverlappingEdits, or ValueError for a
    position outside the text. Two edits at the same start overlap (their order would be
    a guess); one may start where another ends."""
    lines = LineIndex(text)
    spans = sorted(
        ((lines.checked_offset(e.line, e.col), lines.checked_offset(e.end_line, e.end_col), e)
         for e in edits),
        key=lambda span: span[:2],
    )
    pieces, pos, previous_start = [], 0, None
    for start, end, edit in spans:
        if end < start:
            raise ValueError("edit ends before it starts: %r" % (edit,))
        if start < pos or start == previous_start:
            raise OverlappingEdits("edit %r overlaps another edit" % (edit,))
        pieces.append(text[pos:start])
        pieces.append(edit.text)
        pos, previous_start = end, start
    pieces.append(text[pos:])
    return "".join(pieces)


def encode_like(text, original):
    """Encode `text` as the file whose bytes were `original` was: its encoding (PEP 263
    cookie or BOM) and, when `text` was read with newlines translated, its line ending."""
    encoding, _ = tokenize.detect_encoding(io.BytesIO(original).readline)
    if encoding == "utf-8-sig" and text.startswith("\ufeff"):
        encoding = "utf-8"
    match = re.search(rb"\r\n|\r|\n", original)
    newline = match.group().decode("ascii") if match else "\n"
    if newline != "\n" and "\r" not in text:
        text = text.replace("\n", newline)
    return text.encode(encoding)


def write_atomic(path, data):
    """Replace the file at `path` with `data` (bytes): a reader sees the old file or the
    new one, never a part, also when the process is killed midway. Mode and, where
    allowed, owner are kept; a symlink keeps pointing at the replaced file. A file we may
    not write is not replaced (PermissionError): renaming over it would work."""
    path = os.path.realpath(path)
    folder, name = os.path.split(path)
    try:
        before = os.stat(path)
    except FileNotFoundError:
        before = None
    if before is not None and not os.access(path, os.W_OK):
        raise PermissionError(errno.EACCES, "file is read-only", path)
    _remove_stale_temporaries(folder, name)
    descriptor, temporary = _new_file(folder, name)
    try:
        with os.fdopen(descriptor, "wb") as stream:
            stream.write(data)
            stream.flush()
            if before is not None:
                os.fchmod(descriptor, stat.S_IMODE(before.st_mode))
                if hasattr(os, "fchown") and (before.st_uid, before.st_gid) != (os.getuid(), os.getgid()):
                    try:
                        os.fchown(descriptor, before.st_uid, before.st_gid)
                    except PermissionError:
                        pass
            os.fsync(descriptor)
            if temporary is None:  # unnamed until complete: a kill before this leaves nothing
                temporary = _link_unnamed(descriptor, folder, name)
        os.replace(temporary, path)
    except BaseException:
        if temporary is not None:
            try:
                os.unlink(temporary)
            except FileNotFoundError:
                pass
        raise
    _fsync_folder(folder)


def _remove_stale_temporaries(folder, name):
    """A kill between naming the finished temporary file and the rename (microseconds)
    leaves one behind, complete; the next fix of the same file removes it."""
    prefix = "." + name + "."
    try:
        entries = os.listdir(folder)
    except OSError:
        return
    for entry in entries:
        if entry.startswith(prefix) and entry.endswith(".cglint-tmp"):
            try:
                os.unlink(os.path.join(folder, entry))
            except OSError:
                pass


def _link_unnamed(descriptor, folder, name):
    """Give the O_TMPFILE file a name in `folder` and return it."""
    temporary = ".%s.%s.cglint-tmp" % (name, os.urandom(4).hex())
    folder_descriptor = os.open(folder, os.O_RDONLY)
    try:
        # A dst_dir_fd makes Python call linkat(AT_SYMLINK_FOLLOW); plain link() would
        # link the /proc symlink itself and fail with EXDEV.
        os.link("/proc/self/fd/%d" % descriptor, temporary, dst_dir_fd=folder_descriptor,
                follow_symlinks=True)
    finally:
        os.close(folder_descriptor)
    return os.path.join(folder, temporary)


def _new_file(folder, name):
    """(descriptor, None) for an unnamed file in `folder` (Linux O_TMPFILE: SIGKILL while
    it is written leaves no temporary file behind, which a named one did), else
    (descriptor, path) of a named temporary file."""
    if hasattr(os, "O_TMPFILE") and os.path.isdir("/proc/self/fd"):
        try:
            return os.open(folder, os.O_TMPFILE | os.O_WRONLY, 0o600), None
        except OSError:  # a file system without O_TMPFILE support
            pass
    return tempfile.mkstemp(prefix="." + name + ".", suffix=".cglint-tmp", dir=folder)


def _fsync_folder(folder):
    """Make the rename itself durable (POSIX); a no-op where folders cannot be opened."""
    try:
        descriptor = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(descriptor)
    except OSError:
        pass
    finally:
        os.close(descriptor)
