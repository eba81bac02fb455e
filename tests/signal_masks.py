"""Which threads of a process could take a stop signal, and which processes of a group are
still running (Linux: /proc)."""
import os
import signal
import subprocess

STOPS = (signal.SIGINT, signal.SIGTERM)


def blocked(pid, tid):
    """The signal numbers thread `tid` of `pid` blocks (it must still run: ask while it does)."""
    with open("/proc/%d/task/%d/status" % (pid, tid)) as handle:
        fields = dict(line.split(":", 1) for line in handle if ":" in line)
    mask = int(fields["SigBlk"], 16)
    return {number for number in range(1, 65) if mask >> (number - 1) & 1}


def threads(pid):
    """The thread ids of `pid` but its main thread."""
    return sorted(int(tid) for tid in os.listdir("/proc/%d/task" % pid) if int(tid) != pid)


def threads_taking_stops(pid, among=None):
    """The threads of `pid` (or of `among`), the main one aside, that do not block every
    stop signal: the kernel may hand them a stop, which then does not wake the main thread."""
    return [tid for tid in (threads(pid) if among is None else among)
            if not set(STOPS) <= blocked(pid, tid)]


def group_left(group):
    """The processes of process group `group` still running (zombies aside)."""
    left = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open("/proc/%s/stat" % entry) as handle:
                fields = handle.read().rsplit(")", 1)[1].split()
        except OSError:  # gone meanwhile
            continue
        if int(fields[2]) == group and fields[0] != "Z":
            left.append(int(entry))
    return left


def output_within(process, seconds):
    """(stdout, stderr) of `process` (started with start_new_session), or None when it is
    still running after `seconds`: then its whole process group is killed."""
    try:
        return process.communicate(timeout=seconds)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        process.communicate()
        return None
