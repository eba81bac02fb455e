"""Lint a set of paths as one run: discover the files (git-ignored ones skipped), skip the
excluded, read them in batches, take what the cache knows, check the rest (on a pool when
it pays), and add the whole-run findings. Each file gets the settings of the closest
settings file above it (config.Resolver). The command line reports what this returns."""
import os
import sys

from cglint import check, files, pool, project
from cglint.cache import Cache
from cglint.progress import Progress


def display_path(path):
    return os.path.normpath(path) if path != "-" else path


class Checked:
    """One checked path: how it is shown, its bytes (None when unreadable), its settings
    and options, its Result; `path` is the path it was read through (the one --fix
    writes), `info` the stat of what was read."""

    def __init__(self, shown, data, settings, result=None, stdin=False, path=None, info=None):
        self.shown = shown
        self.data = data
        self.settings = settings
        self.options = settings.options_for(shown)
        self.result = result
        self.stdin = stdin
        self.path = path
        self.info = info


# Files are read and checked in batches, and their bytes dropped once checked (unless
# --fix or --diff needs them), so memory stays flat on trees of any size.
BATCH = 512


def to_check(paths, resolver, stdin_filename=None):
    """(path, shown, problem, settings) for every file to check, in discovery order, all
    found before any is checked: discovery is cheap, and the progress line needs the total."""
    def ignored_under(folder):
        if not resolver.settings_in(folder).respect_gitignore:
            return None
        from cglint import gitignore  # only runs that walk a folder pay for subprocess

        return gitignore.ignored_under(folder)

    found = []
    for path, problem in files.discover(paths, ignored_under):
        shown = display_path(stdin_filename if path == "-" and stdin_filename else path)
        settings = resolver.settings_for(shown)
        if not settings.excluded(shown):
            found.append((path, shown, problem, settings))
    return found


def lint_paths(paths, resolver, jobs_for, cache=True, keep_bytes=False, stdin_filename=None,
               progress=True, on_checked=None):
    """Checked for every file under `paths` that its settings do not exclude, in
    discovery order, whole-run findings included. `resolver` gives each file its
    settings (config.Resolver); `jobs_for(count)` the processes for `count` files. `-`
    is standard input, reported as `stdin_filename` when given; `keep_bytes` keeps each
    file's bytes (for --fix, --diff, --add-noqa); `progress` shows a progress line on
    standard error. `on_checked(item)` is called as soon as each readable file is checked
    (--fix writes it then: the shorter the time between reading and writing, the rarer an
    edit made meanwhile)."""
    project.new_run()
    cache = Cache() if cache else None
    checked, pending = [], []
    found = to_check(paths, resolver, stdin_filename)
    progress = Progress(sys.stderr, len(found), progress)
    jobs = jobs_for(len(found))

    def flush():
        results = pool.check_all(((item.shown, item.data, item.options) for item, _ in pending),
                                 jobs, progress.step)
        for (item, key), result in zip(pending, results):
            item.result = result
            if key is not None:
                cache.put(key, result)
            if on_checked is not None:
                on_checked(item)
            if not (keep_bytes or item.stdin):
                item.data = None
        del pending[:]

    for path, shown, problem, settings in found:
        stdin = path == "-"
        if problem:
            item = Checked(shown, None, settings)
            item.result = check.unreadable(shown, problem, item.options)
            checked.append(item)
            progress.step()
            continue
        try:
            if stdin:
                data, info = files.read_bytes(path, sys.stdin.buffer), None
            else:
                data, info = files.read_file(path)
        except OSError as error:
            item = Checked(shown, None, settings)
            item.result = check.unreadable(shown, "cannot read: %s" % (error.strerror or error),
                                           item.options)
            checked.append(item)
            progress.step()
            continue
        item = Checked(shown, data, settings, stdin=stdin, path=path, info=info)
        checked.append(item)
        key = None
        if cache is not None and not stdin:
            key = cache.key(shown, data, item.options)
            item.result = cache.get(key, shown)
            if item.result is not None and item.result.fixes and keep_bytes:
                # Never apply or show a fix read from the cache: anyone who can write
                # the folder could plant one. Check the file again for its fixes.
                item.result = None
        if item.result is None:
            pending.append((item, key))
            if len(pending) >= BATCH:
                flush()
        else:
            progress.step()
            if on_checked is not None:
                on_checked(item)
            elif not keep_bytes:
                item.data = None
    flush()
    progress.close()
    check.finish([item.result for item in checked],
                 {item.shown: item.options for item in checked}.get)
    return checked
