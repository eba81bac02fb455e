"""Each fixture's own layer inside the sandboxed fork server (Linux; Python 2.7 and 3.6).

The server runs in one bubblewrap sandbox (read-only filesystem, no network, its own PID
namespace: see sandbox.py), where fixtures forked from it would still share a /tmp, a
process table and a loopback. So each fixture gets two processes:

  init     cloned by the server straight into new mount, PID, IPC and UTS namespaces,
           and put in a pids cgroup of its own before it goes on; pid 1 of its
           namespace. It mounts a private size-capped tmpfs on /tmp (and /dev/shm on
           it: one disk cap for both) and a /proc showing only this namespace, makes
           /dev and /run read-only, drops every capability for good, forks the fixture
           and reaps. When init exits the kernel kills whatever is left in the namespace,
           setsid() grandchildren included.
  fixture  pid 2: the fixture's code, under rlimits, with AF_UNIX sockets refused (a
           socket file on the read-only filesystem can still be connected to). Not pid 1,
           whose signals without a handler are ignored (a fixture's SIGXCPU included).

Cloning init directly (rather than fork, then unshare, then fork again) saves a fork of
the TF-sized server and its exit. The network namespace is the server's, shared by its
fixtures (a new one costs ~15 ms per fixture): the server makes one with no interface
up, not even loopback, and AF_UNIX sockets, abstract ones included, are refused.

Run by the harness, never by cglint: it imports nothing of cglint.
"""
from __future__ import absolute_import, division, print_function

import ctypes
import errno
import os
import platform
import struct

CLONE_NEWNS, CLONE_NEWUTS, CLONE_NEWIPC = 0x00020000, 0x04000000, 0x08000000
CLONE_NEWPID, CLONE_NEWNET = 0x20000000, 0x40000000
MS_RDONLY, MS_NOSUID, MS_NODEV, MS_NOEXEC, MS_REMOUNT = 1, 2, 4, 8, 32
MS_BIND, MS_REC, MS_PRIVATE = 4096, 16384, 1 << 18
ST_KEPT = 2 | 4 | 8 | 1024 | 2048 | 4096  # nosuid nodev noexec noatime nodiratime relatime
MNT_DETACH = 2
PR_SET_PDEATHSIG, PR_SET_DUMPABLE, PR_SET_SECCOMP, PR_CAPBSET_DROP, PR_SET_SECUREBITS = 1, 4, 22, 24, 28
PR_SET_NO_NEW_PRIVS, PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL = 38, 47, 4
# noroot, no-setuid-fixup, keep-caps and no-ambient-raise, each with its lock: uid 0
# never regains capabilities, not even through execve().
SECUREBITS = 0x01 | 0x02 | 0x04 | 0x08 | 0x20 | 0x40 | 0x80
CAPABILITY_VERSION_3 = 0x20080522
SECCOMP_MODE_FILTER = 2
AF_UNIX = 1
# (audit arch, socket syscall number) of the architectures the AF_UNIX filter knows
SECCOMP_ARCHES = {"x86_64": (0xC000003E, 41), "aarch64": (0xC00000B7, 198)}

_libc = ctypes.CDLL(None, use_errno=True)
# Holds the GIL through the call, as os.fork() does: the clone's child must find it taken.
_libc_gil = ctypes.PyDLL(None, use_errno=True)
CLONE_SYSCALL = {"x86_64": 56, "aarch64": 220}
SIGCHLD = 17


class JailError(Exception):
    pass


def _call(name, *args):
    if getattr(_libc, name)(*args) != 0:
        code = ctypes.get_errno()
        raise JailError("%s%r: %s" % (name, tuple(a for a in args if isinstance(a, (bytes, int))),
                                      os.strerror(code)))


def _b(path):
    return path if isinstance(path, bytes) or path is None else path.encode("utf-8")


def mount(source, target, fstype=None, flags=0, data=None):
    _call("mount", _b(source), _b(target), _b(fstype), ctypes.c_ulong(flags), _b(data))


def umount(path):
    _call("umount2", _b(path), MNT_DETACH)


def remount_readonly(path):
    kept = os.statvfs(path).f_flag & ST_KEPT  # the flags of a bind remount are not inherited
    mount(None, path, None, MS_REMOUNT | MS_BIND | MS_RDONLY | kept)


def bind_readonly(source, target):
    mount(source, target, None, MS_BIND | MS_REC)
    remount_readonly(target)


def join_cgroup(root, name, pids_limit):
    """Move this process into a new pids cgroup `root/name`; its children follow."""
    path = os.path.join(root, name)
    os.mkdir(path)
    with open(os.path.join(path, "pids.max"), "w") as handle:
        handle.write(str(pids_limit))
    with open(os.path.join(path, "cgroup.procs"), "w") as handle:
        handle.write(str(os.getpid()))


def clone_into_namespaces():
    """fork() into new namespaces: the child's pid in the parent, 0 in the child.

    The raw clone syscall, with no stack given, returns twice like fork(). Unlike glibc's
    fork() it leaves the child's cached thread id stale, which only tid-based calls
    (raise(), abort(), pthread_kill) would notice: init makes none, and what it forks
    gets a correct one from glibc's fork(). Call after_clone() first thing in the child."""
    number = CLONE_SYSCALL.get(platform.machine())
    if number is None:
        raise JailError("no clone syscall number known for %s" % platform.machine())
    flags = CLONE_NEWNS | CLONE_NEWPID | CLONE_NEWIPC | CLONE_NEWUTS | SIGCHLD
    pid = _libc_gil.syscall(ctypes.c_long(number), ctypes.c_ulong(flags), None, None, None, None)
    if pid < 0:
        code = ctypes.get_errno()
        raise JailError("clone into new namespaces: %s" % os.strerror(code))
    return pid


def after_clone():
    """What os.fork() does in its child: the interpreter's locks and threading state."""
    after = getattr(ctypes.pythonapi, "PyOS_AfterFork", None)
    if after is not None:
        after()


def empty_network():
    """In the server, before any fixture: a network namespace of its own with nothing in it.
    (bwrap's has loopback up, and merely taking it down leaves 127.0.0.1 routed to a dead
    device: a connect() there hangs instead of failing at once with ENETUNREACH.)"""
    _call("unshare", CLONE_NEWNET)


def set_dumpable(flag):
    """Init is not dumpable, so that its /proc/1/fd (the status pipe) is closed to the
    fixture; the fixture, forked from it, is made dumpable again."""
    _call("prctl", PR_SET_DUMPABLE, 1 if flag else 0, 0, 0, 0)


def set_death_signal(signum):
    _call("prctl", PR_SET_PDEATHSIG, signum, 0, 0, 0)


def private_filesystem(disk_limit, shown, cgroup_mount, writable=None):
    """In init: the fixture's own /tmp (and /dev/shm) and /proc; nothing else writable.

    `shown` are the folders (or files) under /tmp that the fixture needs (its own folder,
    a driver's user module): they are bound back, read-only, over the new /tmp.
    `writable`, (folder, where): a folder of the server's under /tmp bound in at `where`."""
    mount(None, "/", None, MS_REC | MS_PRIVATE)
    mount("tmpfs", "/run", "tmpfs", MS_NOSUID | MS_NODEV, "size=64k,mode=755")
    staged = []
    for number, path in enumerate(path for path in shown if path.startswith("/tmp/")):
        if not os.path.exists(path):
            continue
        stage = "/run/shown-%d" % number
        _make_mountpoint(stage, os.path.isdir(path))
        mount(path, stage, None, MS_BIND | MS_REC)
        staged.append((stage, path))
    if writable:
        stage = "/run/writable"
        os.mkdir(stage)
        mount(writable[0], stage, None, MS_BIND)
    mount("tmpfs", "/tmp", "tmpfs", MS_NOSUID | MS_NODEV, "size=%d,mode=1777" % disk_limit)
    os.mkdir("/tmp/.shm")
    os.chmod("/tmp/.shm", 0o1777)
    mount("/tmp/.shm", "/dev/shm", None, MS_BIND)
    for stage, path in staged:
        _make_mountpoint(path, os.path.isdir(stage))
        bind_readonly(stage, path)
        umount(stage)
    if writable:
        os.mkdir(writable[1])
        mount("/run/writable", writable[1], None, MS_BIND)
        umount("/run/writable")
    mount("proc", "/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC)
    for path in ("/proc/sys", "/proc/sysrq-trigger", "/proc/irq", "/proc/bus"):
        if os.path.exists(path):  # sysctls check the uid, not capabilities
            bind_readonly(path, path)
    if cgroup_mount and os.path.isdir(cgroup_mount):
        umount(cgroup_mount)
    for path in ("/run", "/dev"):
        remount_readonly(path)


def _make_mountpoint(path, folder):
    if os.path.exists(path):
        return
    parent = os.path.dirname(path)
    if not os.path.isdir(parent):
        os.makedirs(parent)
    if folder:
        os.mkdir(path)
    else:
        os.close(os.open(path, os.O_CREAT | os.O_WRONLY, 0o644))


class _CapHeader(ctypes.Structure):
    _fields_ = [("version", ctypes.c_uint32), ("pid", ctypes.c_int)]


class _CapData(ctypes.Structure):
    _fields_ = [("effective", ctypes.c_uint32), ("permitted", ctypes.c_uint32),
                ("inheritable", ctypes.c_uint32)]


def drop_capabilities():
    """In init, for it and all it forks: no capability now or after any execve()."""
    _call("prctl", PR_SET_SECUREBITS, SECUREBITS, 0, 0, 0)
    with open("/proc/sys/kernel/cap_last_cap") as handle:
        last = int(handle.read())
    for cap in range(last + 1):
        _call("prctl", PR_CAPBSET_DROP, cap, 0, 0, 0)
    _libc.prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0)  # EINVAL before Linux 4.3
    _call("capset", ctypes.byref(_CapHeader(CAPABILITY_VERSION_3, 0)), ctypes.byref((_CapData * 2)()))
    _call("prctl", PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0)


def _unix_socket_filter(arch, socket_nr):
    """A seccomp program: socket(AF_UNIX, ...) fails with EACCES; a foreign ABI is killed."""
    ld, jeq, jge, ret = 0x20, 0x15, 0x35, 0x06
    allow, deny, kill = 0x7FFF0000, 0x00050000 | errno.EACCES, 0x80000000
    program = [
        (ld, 0, 0, 4),                 # 0: arch
        (jeq, 1, 0, arch),             # 1: native -> 3
        (ret, 0, 0, kill),             # 2
        (ld, 0, 0, 0),                 # 3: syscall number
        (jge, 5, 0, 0x40000000),       # 4: x32 -> 10
        (jeq, 0, 3, socket_nr),        # 5: socket -> 6, else 9
        (ld, 0, 0, 16),                # 6: first argument (low 32 bits)
        (jeq, 0, 1, AF_UNIX),          # 7: AF_UNIX -> 8, else 9
        (ret, 0, 0, deny),             # 8
        (ret, 0, 0, allow),            # 9
        (ret, 0, 0, kill),             # 10
    ]
    return b"".join(struct.pack("=HBBI", *op) for op in program), len(program)


class _SockFprog(ctypes.Structure):
    _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.c_void_p)]


def refuse_unix_sockets():
    """False where the architecture is unknown (the filter is then not installed)."""
    known = SECCOMP_ARCHES.get(platform.machine())
    if known is None:
        return False
    code, count = _unix_socket_filter(*known)
    buffer = ctypes.create_string_buffer(code, len(code))
    program = _SockFprog(count, ctypes.cast(buffer, ctypes.c_void_p))
    _call("prctl", PR_SET_SECCOMP, SECCOMP_MODE_FILTER, ctypes.byref(program), 0, 0)
    return True
