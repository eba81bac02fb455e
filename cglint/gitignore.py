"""Which paths under a folder git ignores, asked of git itself.

git applies .gitignore files at every level, `.git/info/exclude` and the user's global
excludes file, with negations and its own glob dialect; asking it is exact where a
re-implementation drifts. One `git ls-files` per checked folder lists the ignored paths
(`--directory` collapses an ignored folder to one entry, so git does not walk it either).
Outside a repository, or without git, nothing is ignored: ruff does the same by default.
Files git tracks are never ignored, whatever a .gitignore says.
"""
import os
import subprocess


# A checked folder's own git config is as untrusted as its code: `core.fsmonitor` names a
# command git runs while it reads the index (a downloaded archive with a `.git` folder
# could run anything). The command line's `-c` overrides every config file; empty turns
# the monitor off in every git version (before 2.36 it is a hook path, since a bool too).
_NO_COMMANDS = ["-c", "core.fsmonitor="]


def ignored_under(folder):
    """A predicate telling whether a path found under `folder` is ignored, or None when
    `folder` is not in a git repository (or git is not installed)."""
    try:
        listed = subprocess.run(
            ["git", "-C", folder] + _NO_COMMANDS + [
                "ls-files", "-z", "--others", "--ignored", "--exclude-standard",
                "--directory"],
            stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    except OSError:  # no git on this machine
        return None
    if listed.returncode:  # not a repository, or one git refuses to read
        return None
    # Paths relative to `folder`, folders with a trailing slash.
    ignored = frozenset(os.fsdecode(entry).rstrip("/")
                        for entry in listed.stdout.split(b"\0") if entry)
    if not ignored:
        return None
    prefix = os.path.join(folder, "")

    def is_ignored(path):
        # The walk builds each path as folder + name: cut the prefix rather than pay for
        # os.path.relpath on every entry of the tree.
        relative = path[len(prefix):] if path.startswith(prefix) else os.path.relpath(
            path, folder)
        return relative.replace(os.sep, "/") in ignored

    return is_ignored
