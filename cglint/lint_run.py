"""Lint a set of paths as one run: discover the files (git-ignored ones skipped), skip the
excluded, then read, look up in the cache and check each file (on a pool when it pays),
handing each one on as soon as it and every file before it are done; then the whole-run
findings. Each file gets the settings of the closest settings file above it
(config.Resolver).

Memory stays flat on trees of any size: nothing of a file is kept once it is handed on,
except what the whole-run rules need of the few files that have something for them (their
summaries, `noqa` comments and options)."""
import collections
import os
import sys

from cglint import check, files, interrupts, pool, project
from cglint.cache import Cache
from cglint.diagnostics import Result
from cglint.progress import Progress


def display_path(path):
    return os.path.normpath(path) if path != "-" else path


class Checked:
    """One checked path: how it is shown, its bytes (None when unreadable, or not kept),
    its settings and options, its Result; `path` is the path it was read through (the
    one --fix writes), `info` the stat of what was read."""

    def __init__(self, shown, data, settings, result=None, stdin=False, path=None, info=None):
        self.shown = shown
        self.data = data
        self.settings = settings
        self.options = settings.options_for(shown)
        self.result = result
        self.stdin = stdin
        self.path = path
        self.info = info


def to_check(paths, resolver, stdin_filename=None):
    """(path, shown, problem, settings) for every file to check, in discovery order, all
    found before any is checked: discovery is cheap, and the progress line needs the total."""
    def ignored_under(folder):
        if not resolver.settings_in(folder).respect_gitignore:
            return None
        from cglint import gitignore  # only runs that walk a folder pay for subprocess

        return gitignore.ignored_under(folder)

    found = []
    stdin = False
    for path, problem in files.discover(paths, ignored_under):
        if path == "-":
            if stdin:
                continue  # standard input is read once, as a file named twice is checked once
            stdin = True
        shown = display_path(stdin_filename if path == "-" and stdin_filename else path)
        settings = resolver.settings_for(shown)
        if not settings.excluded(shown):
            found.append((path, shown, problem, settings))
    return found


class LintRun:
    """The files of a run, checked one by one as it is iterated (each a Checked, in
    discovery order), then `whole_run`: the findings of the rules that judge the whole
    run, known only at its end, each already filtered by its file's options and `noqa`
    comments, in the same order (the files' discovery order, then position)."""

    def __init__(self, found, jobs, cache, keep_bytes, progress, on_checked):
        self.found = found
        self.jobs = jobs
        self.cache = cache
        self.keep_bytes = keep_bytes
        self.progress = progress
        self.on_checked = on_checked
        self.count = 0  # files handed on so far
        self.whole_run = []

    def __iter__(self):
        interned = {}  # Options by value: equal options are one object, pickled once a chunk
        options_of = {}  # shown path -> Options, of the files in `summarized`
        pending = collections.deque()  # the Checked of the tasks in flight, oldest first
        # Slim Results of the files that have something for the whole-run rules.
        summarized = []
        seen = {}  # the strings and tuples of the summaries so far, each kept once
        workers = pool.workers_for(self.jobs, len(self.found))
        state = (self.cache.top if self.cache else None, self.keep_bytes)
        # Here too: files are checked here when the run is small, or a worker died.
        _set_up(*state, cache=self.cache)

        def tasks():
            found = self.found
            for index in range(len(found)):
                path, shown, problem, settings = found[index]
                found[index] = None  # taken: a file's entry is not kept for the whole run
                item = Checked(shown, None, settings, stdin=path == "-", path=path)
                item.options = interned.setdefault(item.options, item.options)
                if item.stdin and not problem:
                    item.data = files.read_bytes(path, sys.stdin.buffer)
                pending.append(item)
                yield path, shown, item.options, problem, item.data

        try:
            for result, data, info, hit in pool.imap(check_path, tasks(), workers,
                                                      _set_up, state):
                item = pending.popleft()
                item.result, item.data, item.info = result, data, info
                if hit is not None:  # a worker's Cache: count it in the run's
                    self.cache.hits += hit
                    self.cache.misses += not hit
                if data is not None and self.on_checked is not None:
                    self.on_checked(item)
                self.progress.step()
                if item.result.summaries:
                    summarized.append(Result(item.shown,
                                             summaries=shared(item.result.summaries, seen),
                                             directives=item.result.directives))
                    options_of[item.shown] = item.options
                self.count += 1
                interrupts.raise_pending()  # a stop that came in a callback (cglint.interrupts)
                yield item
        finally:
            self.progress.close()
        check.finish(summarized, options_of.get)
        self.whole_run = [diagnostic for result in summarized
                          for diagnostic in result.diagnostics]


def shared(value, seen):
    """`value` (plain data: a summary) with its equal strings, and tuples of strings, made
    one object, that of `seen` (updated): files import the same modules, and their paths
    share folders, so the summaries a run keeps for its end take a fraction of the memory.
    (Numbers are left alone: 1, 1.0 and True are equal, yet not the same data.)"""
    kind = type(value)
    if kind is str:
        return seen.setdefault(value, value)
    if kind is tuple:
        # Only tuples of strings are kept in `seen` (below), and a string equals only a
        # string: a tuple found there is this one's equal in every part.
        known = _known(value, seen)
        if known is not None:
            return known
        value = tuple([shared(part, seen) for part in value])
        if all(type(part) is str or _known(part, seen) is part for part in value):
            seen[value] = value
        return value
    if kind is list:
        return [shared(part, seen) for part in value]
    if kind in (set, frozenset):
        return kind(shared(part, seen) for part in value)
    if kind is dict:
        return {shared(key, seen): shared(part, seen) for key, part in value.items()}
    return value


def _known(value, seen):
    """The tuple of `seen` equal to `value`, or None."""
    try:
        return seen.get(value)
    except TypeError:  # a tuple holding a list or a dict
        return None


def lint_paths(paths, resolver, jobs_for, cache=True, keep_bytes=False, stdin_filename=None,
               progress=True, on_checked=None):
    """A LintRun over every file under `paths` that its settings do not exclude.
    `resolver` gives each file its settings (config.Resolver); `jobs_for(count)` the
    processes for `count` files. `-` is standard input, reported as `stdin_filename`
    when given; `keep_bytes` keeps each file's bytes in its Checked (for --fix, --diff,
    --add-noqa; standard input's are always kept), and is NOQA_EDITS for --add-noqa,
    which writes a comment for every finding; `progress` shows a progress line on
    standard error. `on_checked(item)` is called as soon as each readable file is checked
    (--fix writes it then: the shorter the time between reading and writing, the rarer an
    edit made meanwhile)."""
    project.new_run()
    found = to_check(paths, resolver, stdin_filename)
    return LintRun(found, jobs_for(len(found)), Cache() if cache else None, keep_bytes,
                   Progress(sys.stderr, len(found), progress), on_checked)


# What each process checking files needs (set by _set_up): in a worker, its own Cache
# (over the same folder: entries are written atomically, so processes may share it),
# whose hits check_path reports for the run's Cache to count.
_cache = None
_keep_bytes = False
# `keep_bytes` of a run that writes a `noqa` comment for each finding (--add-noqa).
NOQA_EDITS = "noqa"
_report_hits = False


def _set_up(cache_folder, keep_bytes, cache=None):
    global _cache, _keep_bytes, _report_hits
    _report_hits = cache is None
    _cache = cache if cache is not None else (
        Cache(cache_folder) if cache_folder is not None else None)
    _keep_bytes = keep_bytes


def check_path(task):
    """(Result, bytes or None, stat or None, hit) for one (path, shown, options, problem,
    data) task: read the file (unless its `data` is given: standard input), take its
    Result from the cache or check it; `hit` (True, False, or None) is a worker's cache
    hit, for the run's Cache to count. Done in the worker, so
    that reading, hashing and the cache are parallel too. The bytes come back only when
    kept (--fix, --diff, --add-noqa, standard input)."""
    path, shown, options, problem, data = task
    stdin = data is not None
    if problem:
        return check.unreadable(shown, problem, options), None, None, None
    info = None
    if not stdin:
        try:
            data, info = files.read_file(path)
        except OSError as error:
            return (check.unreadable(shown, "cannot read: %s" % (error.strerror or error),
                                     options), None, None, None)
    key = result = hit = None
    if _cache is not None and not stdin:
        key = _cache.key(shown, data, options)
        result = _cache.get(key, shown)
        hit = result is not None
        if result is not None and _keep_bytes and (result.fixes or (
                _keep_bytes == NOQA_EDITS and (result.diagnostics or result.summaries))):
            # The run edits files or shows edits: anyone who can write the folder could
            # plant an entry, so what may become an edit is never taken from one. For
            # --fix and --diff, the fixes: an entry with any is checked again. For
            # --add-noqa, every finding and summary (whole-run findings get comments
            # too): only an entry with nothing to say is taken.
            result = None
    if result is None:
        result = pool.check_item((shown, data, options))
        if key is not None:
            _cache.put(key, result)
    # Only what the report and the whole-run rules read crosses back to the parent.
    result.dependencies = ()
    if not result.summaries:
        result.directives = None
    return (result, data if (_keep_bytes or stdin) else None, info,
            hit if _report_hits else None)
