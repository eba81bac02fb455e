"""Apply fix edits to source text, and write the fixed file back safely.

Positions in an Edit are 1-based lines and 1-based character columns (a tab counts 1) of
the text the rule saw; lines end at `\\r\\n`, `\\r` or `\\n`, as Python's tokenizer has it.
"""
import contextlib
import errno
import io
import os
import re
import signal
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


class ChangedOnDisk(OSError):
    """The file is no longer the one that was read: written to, replaced or gone."""


def write_atomic(path, data, expected=None):
    """Replace the file at `path` with `data` (bytes): a reader sees the old file or the
    new one, never a part, also when the process is killed midway. Mode (setuid and
    setgid bits included), owner where allowed, and extended attributes are kept; a
    symlink keeps pointing at the replaced file. A file we may not write is not replaced
    (PermissionError): renaming over it would work.

    `expected` is (bytes, os.stat_result) of the file as it was read. Then the file is
    replaced only while it is still that inode, with that size, time and content:
    ChangedOnDisk otherwise, so a concurrent edit is never overwritten with a fix of the
    old text. A file with several hard links is written in place through its inode (as
    ruff and black do): replacing it would cut the other names off from the fix.
    """
    path = os.path.realpath(path)
    folder, name = os.path.split(path)
    # Everything below is relative to this descriptor: the folder cannot be swapped for
    # another (a link) between the checks and the rename.
    folder_descriptor = os.open(folder, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
    try:
        _write_in(folder_descriptor, folder, name, path, data, expected)
    finally:
        os.close(folder_descriptor)


def _write_in(folder_descriptor, folder, name, path, data, expected):
    try:
        before = os.stat(name, dir_fd=folder_descriptor, follow_symlinks=False)
    except FileNotFoundError:
        if expected is not None:
            raise ChangedOnDisk(errno.ENOENT, "it was removed since it was read", path)
        before = None
    if before is not None and not os.access(path, os.W_OK):
        raise PermissionError(errno.EACCES, "file is read-only", path)
    original = None
    if expected is not None:
        original = _open_unchanged(folder_descriptor, name, path, expected)
    try:
        if before is not None and before.st_nlink > 1:
            _write_in_place(folder_descriptor, name, path, data, expected)
            return
        _remove_stale_temporaries(folder_descriptor, name)
        descriptor, temporary = _new_file(folder_descriptor, folder, name)
        try:
            with os.fdopen(descriptor, "wb") as stream:
                stream.write(data)
                stream.flush()
                if before is not None:
                    _copy_metadata(original, descriptor, before, path)
                os.fsync(descriptor)
                with _signals_deferred():
                    # From naming the finished file to the rename: no catchable signal
                    # may stop us in between and leave the temporary file behind.
                    if expected is not None:
                        _expect_same(os.stat(name, dir_fd=folder_descriptor,
                                             follow_symlinks=False), expected[1], path)
                    if temporary is None:
                        temporary = _link_unnamed(descriptor, folder_descriptor, folder, name)
                    os.replace(os.path.basename(temporary), name,
                               src_dir_fd=folder_descriptor, dst_dir_fd=folder_descriptor)
        except BaseException:
            if temporary is not None:
                try:
                    os.unlink(os.path.basename(temporary), dir_fd=folder_descriptor)
                except FileNotFoundError:
                    pass
            raise
    finally:
        if original is not None:
            os.close(original)
    try:
        os.fsync(folder_descriptor)  # make the rename itself durable
    except OSError:
        pass


def _open_unchanged(folder_descriptor, name, path, expected):
    """A read descriptor of `name`, after checking it is still what was read."""
    data, info = expected
    try:
        descriptor = os.open(name, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) |
                             getattr(os, "O_NONBLOCK", 0), dir_fd=folder_descriptor)
    except OSError as error:
        raise ChangedOnDisk(error.errno, "it is not the file that was read", path)
    try:
        _expect_same(os.fstat(descriptor), info, path)
        now = b""
        while len(now) <= len(data):
            chunk = os.read(descriptor, len(data) + 1 - len(now))
            if not chunk:
                break
            now += chunk
        if now != data:
            raise ChangedOnDisk(errno.EBUSY, "it changed since it was read", path)
    except BaseException:
        os.close(descriptor)
        raise
    return descriptor


def _expect_same(now, then, path):
    if (now.st_dev, now.st_ino) != (then.st_dev, then.st_ino) or not stat.S_ISREG(now.st_mode):
        raise ChangedOnDisk(errno.EBUSY, "it is not the file that was read (replaced, or "
                            "reached through another link)", path)
    if (now.st_size, now.st_mtime_ns) != (then.st_size, then.st_mtime_ns):
        raise ChangedOnDisk(errno.EBUSY, "it changed since it was read", path)


def _write_in_place(folder_descriptor, name, path, data, expected):
    """Overwrite the file's own inode (it has other links). Not atomic: so the blocks the
    new text needs are reserved first (a full disk fails before a byte changes), and a
    write that fails midway puts the old text back, into blocks it already had."""
    flags = os.O_WRONLY if expected is not None else os.O_RDWR
    descriptor = os.open(name, flags | getattr(os, "O_NOFOLLOW", 0), dir_fd=folder_descriptor)
    try:
        if expected is not None:
            _expect_same(os.fstat(descriptor), expected[1], path)
            old = expected[0]
        else:
            old = _read_all(descriptor)
        if len(data) > len(old) and hasattr(os, "posix_fallocate"):
            try:
                os.posix_fallocate(descriptor, 0, len(data))
            except OSError as error:
                if error.errno not in (errno.EOPNOTSUPP, errno.EINVAL, errno.ENOSYS):
                    raise
        with _signals_deferred():
            try:
                _overwrite(descriptor, data)
            except OSError:
                _overwrite(descriptor, old)
                raise
        os.fsync(descriptor)
    finally:
        os.close(descriptor)


def _overwrite(descriptor, data):
    os.lseek(descriptor, 0, os.SEEK_SET)
    view = memoryview(data)
    while view:
        view = view[os.write(descriptor, view):]
    os.ftruncate(descriptor, len(data))


def _read_all(descriptor):
    chunks = []
    while True:
        chunk = os.read(descriptor, 1 << 20)
        if not chunk:
            return b"".join(chunks)
        chunks.append(chunk)


def _copy_metadata(original, descriptor, before, path):
    """Owner (where allowed), then mode: a chown clears the setuid and setgid bits, so
    the mode comes after it. Then the extended attributes (user.*, ACLs, labels) that
    this process may set; a file system without them is no error."""
    owned = True
    if hasattr(os, "fchown") and (before.st_uid, before.st_gid) != (os.getuid(), os.getgid()):
        try:
            os.fchown(descriptor, before.st_uid, before.st_gid)
        except PermissionError:
            owned = False
    mode = stat.S_IMODE(before.st_mode)
    if not owned:  # never hand our own user a setuid or setgid file it did not have
        mode &= ~(stat.S_ISUID | stat.S_ISGID)
    os.fchmod(descriptor, mode)
    source = original if original is not None else path
    try:
        names = os.listxattr(source)
    except (OSError, AttributeError):
        return
    for attribute in names:
        try:
            os.setxattr(descriptor, attribute, os.getxattr(source, attribute))
        except OSError:
            pass


@contextlib.contextmanager
def _signals_deferred():
    """Hold SIGINT, SIGTERM, SIGHUP and SIGQUIT until the block is done (SIGKILL cannot
    be held: a kill in these microseconds leaves a complete temporary file, which the
    next fix of that file removes)."""
    held = {signal.SIGINT, signal.SIGTERM, signal.SIGHUP, signal.SIGQUIT}
    try:
        previous = signal.pthread_sigmask(signal.SIG_BLOCK, held)
    except (AttributeError, OSError, ValueError):
        previous = None
    try:
        yield
    finally:
        if previous is not None:
            signal.pthread_sigmask(signal.SIG_SETMASK, previous)


def _remove_stale_temporaries(folder_descriptor, name):
    """A kill between naming the finished temporary file and the rename (microseconds)
    leaves one behind, complete; the next fix of the same file removes it."""
    prefix = "." + name + "."
    try:
        entries = os.listdir(folder_descriptor)
    except OSError:
        return
    for entry in entries:
        if entry.startswith(prefix) and entry.endswith(".cglint-tmp"):
            try:
                os.unlink(entry, dir_fd=folder_descriptor)
            except OSError:
                pass


def _link_unnamed(descriptor, folder_descriptor, folder, name):
    """Give the O_TMPFILE file a name in the folder and return its path."""
    temporary = ".%s.%s.cglint-tmp" % (name, os.urandom(4).hex())
    # A dst_dir_fd makes Python call linkat(AT_SYMLINK_FOLLOW); plain link() would
    # link the /proc symlink itself and fail with EXDEV.
    os.link("/proc/self/fd/%d" % descriptor, temporary, dst_dir_fd=folder_descriptor,
            follow_symlinks=True)
    return os.path.join(folder, temporary)


def _new_file(folder_descriptor, folder, name):
    """(descriptor, None) for an unnamed file in `folder` (Linux O_TMPFILE: SIGKILL while
    it is written leaves no temporary file behind, which a named one did), else
    (descriptor, path) of a named temporary file."""
    if hasattr(os, "O_TMPFILE") and os.path.isdir("/proc/self/fd"):
        try:
            return os.open(".", os.O_TMPFILE | os.O_WRONLY, 0o600, dir_fd=folder_descriptor), None
        except OSError:  # a file system without O_TMPFILE support
            pass
    return tempfile.mkstemp(prefix="." + name + ".", suffix=".cglint-tmp", dir=folder)
