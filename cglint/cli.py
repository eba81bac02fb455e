"""The `cglint` command: parse options, lint the paths, report, choose the exit code."""
import argparse
import os
import re
import signal
import stat
import sys
from collections import Counter

from cglint import __version__, config, engine, files, interrupts, wording
from cglint.config import TARGET_PYTHONS, TARGET_TFS, ConfigError
from cglint.diagnostics import is_safe
from cglint.lint_run import NOQA_EDITS, display_path, lint_paths, to_check
from cglint.report import FORMATS, PYTHON_TARGET_CODES, WRITERS, Run
from cglint.report.text import printable

EXIT_CLEAN, EXIT_FINDINGS, EXIT_ERROR = 0, 1, 2


class UsageError(Exception):
    pass


# Words that `cglint WORD` dispatches on (main), named when a path that does not exist
# looks like a mistyped or unknown subcommand.
SUBCOMMANDS = ("confirm", "doctor", "gradcheck", "lsp")


def _jobs(text):
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError("expected a number of processes, got %r" % text)
    if value < 0:
        raise argparse.ArgumentTypeError("expected 0 (all CPUs) or more, got %d" % value)
    return value


# Measured on the benchmark corpus's files on 2 loaded CPUs, cold, with the pool kept for
# the whole run and the workers reading the files: 25 files 0.37-0.60 s alone (too few
# for two workers of 16), 50 files 0.54-0.81 s alone and 0.53-0.70 s on two processes,
# 100 files 0.77-1.10 s and 0.58-0.75 s, 200 files 1.17-1.70 s and 0.94-1.14 s. A pool
# pays from about 50 files; below 64 one process is as fast, and lighter.
POOL_MIN_FILES = 64


def jobs_for(requested, count):
    """Processes for checking `count` files when --jobs is `requested` (None: not given)."""
    if requested is None:
        return available_cpus() if count >= POOL_MIN_FILES else 1
    return requested or available_cpus()


def available_cpus():
    try:
        return len(os.sched_getaffinity(0))  # what this process may use, not the machine
    except AttributeError:
        return os.cpu_count() or 1


def build_parser():
    parser = argparse.ArgumentParser(
        prog="cglint",
        description="Find TensorFlow 1.8 custom-gradient hazards before they run.",
        epilog="Subcommands: `cglint confirm [PATHS]` runs fixtures under real TensorFlow "
               "1.8 (see `cglint confirm --help`); `cglint gradcheck PATHS` checks custom "
               "gradients numerically under TensorFlow 1.8 and, unlike the linter, imports "
               "and runs the checked code (see `cglint gradcheck --help`); `cglint doctor` "
               "checks whether this machine can run TensorFlow 1.8 and its GPU build; "
               "`cglint lsp` serves diagnostics to an editor over stdio. Settings are read "
               "from [tool.cglint] in pyproject.toml, else [cglint] in setup.cfg or tox.ini; "
               "options given here win.")
    parser.add_argument("paths", nargs="*", metavar="PATH",
                        help="files or folders to check; `-` reads standard input")
    what = parser.add_argument_group("what to report")
    what.add_argument("--select", metavar="CODES",
                      help="comma-separated code prefixes to report, replacing the "
                           "config's selection (default: ALL)")
    what.add_argument("--extend-select", metavar="CODES",
                      help="code prefixes to report as well")
    what.add_argument("--ignore", metavar="CODES",
                      help="comma-separated code prefixes not to report, added to the "
                           "config's `ignore`")
    what.add_argument("--extend-ignore", metavar="CODES",
                      help="the same as --ignore (flake8's spelling)")
    what.add_argument("--per-file-ignores", metavar="GLOB:CODES",
                      help="codes not to report in matching files, e.g. "
                           "'tests/*:CG101 legacy/*.py:CG3'")
    what.add_argument("--target-python", choices=TARGET_PYTHONS,
                      help="Python version the code must run on (default: the oldest "
                           "the project declares in requires-python/python_requires, else "
                           "2.7)")
    what.add_argument("--target-tf", choices=TARGET_TFS,
                      help="TensorFlow version the code must run on (default 1.8)")
    what.add_argument("--exclude", metavar="GLOBS",
                      help="comma-separated globs of files or folders not to check "
                           "(replaces the config's `exclude`)")
    what.add_argument("--extend-exclude", metavar="GLOBS",
                      help="comma-separated globs to exclude as well")
    what.add_argument("--report-unused-noqa", action="store_true", default=None,
                      help="report `# noqa` codes that silence nothing (CG003)")
    what.add_argument("--no-respect-gitignore", dest="respect_gitignore",
                      action="store_false", default=None,
                      help="also check files that git ignores (.gitignore, "
                           ".git/info/exclude, the global excludes file); by default "
                           "they are skipped when a folder is walked")
    where = parser.add_argument_group("settings files")
    where.add_argument("--config", metavar="FILE",
                       help="read settings from this pyproject.toml, setup.cfg or tox.ini "
                            "instead of searching for one")
    where.add_argument("--isolated", action="store_true",
                       help="ignore every settings file")
    out = parser.add_argument_group("output")
    out.add_argument("--format", choices=FORMATS, default="text",
                     help="text (default), json, sarif (2.1.0) or github (Actions "
                          "annotations)")
    out.add_argument("--statistics", action="store_true",
                     help="count findings per code after the list (text format)")
    out.add_argument("--show-source", action=argparse.BooleanOptionalAction, default=None,
                     help="show each finding's line with its span underlined (text "
                          "format; default: on when the output is a terminal)")
    out.add_argument("--color", choices=("auto", "always", "never"), default="auto",
                     help="color the text report: auto (default) when the output is a "
                          "terminal and NO_COLOR is not set")
    out.add_argument("--show-fixes", action="store_true",
                     help="list the findings --fix fixed (or, without --fix, would fix), "
                          "per file and code (text format)")
    out.add_argument("--quiet", "-q", action="store_true",
                     help="print findings only: no summary, no progress line")
    out.add_argument("--stdin-filename", metavar="PATH",
                     help="name to report for code read from standard input")
    out.add_argument("--output-file", "-o", metavar="FILE",
                     help="write the report to FILE instead of standard output")
    out.add_argument("--exit-zero", action="store_true",
                     help="exit 0 even when there are findings (2 still means an error)")
    fix = parser.add_argument_group("fixes")
    fix.add_argument("--fix", action="store_true",
                     help="apply the safe fixes in place, then report what is left")
    fix.add_argument("--diff", action="store_true",
                     help="print the safe fixes as a unified diff; change no file")
    fix.add_argument("--unsafe-fixes", action="store_true",
                     help="with --fix or --diff, also apply fixes that may change the code's "
                          "behaviour (marked unsafe)")
    fix.add_argument("--add-noqa", action="store_true",
                     help="add `# noqa: CODE` comments that silence every current finding, "
                          "to adopt cglint on existing code; then exit")
    speed = parser.add_argument_group("speed")
    speed.add_argument("--jobs", "-j", type=_jobs, default=None, metavar="N",
                       help="processes to check files on; 0 = every available CPU "
                            "(default: one process below %d files, else every CPU)"
                            % POOL_MIN_FILES)
    speed.add_argument("--no-cache", action="store_true",
                       help="neither read nor write the .cglint_cache folder")
    info = parser.add_argument_group("information")
    info.add_argument("--list-rules", action="store_true", help="list every rule and exit")
    info.add_argument("--explain", metavar="CODE", help="explain a rule (by code or name) "
                                                        "and exit")
    info.add_argument("--show-settings", action="store_true",
                      help="print the settings the first PATH gets, and from which file, "
                           "and exit")
    info.add_argument("--show-files", action="store_true",
                      help="print the files that would be checked, and exit")
    info.add_argument("--version", action="version", version="cglint " + __version__)
    return parser


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    for stream in (sys.stdout, sys.stderr):
        # A file name that is not valid UTF-8 arrives surrogate-escaped. Where the stream
        # passes such bytes through (the C locale), they stay as they are; a strict stream
        # prints an escape instead of dying.
        if getattr(stream, "errors", None) == "strict" and hasattr(stream, "reconfigure"):
            stream.reconfigure(errors="backslashreplace")
    if argv[:1] == ["confirm"]:
        from cglint.oracle.confirm import main as confirm_main

        return confirm_main(argv[1:])
    if argv[:1] == ["gradcheck"]:
        from cglint.gradcheck.command import main as gradcheck_main

        return gradcheck_main(argv[1:])
    if argv[:1] == ["doctor"]:
        from cglint.doctor import main as doctor_main

        return doctor_main(argv[1:])
    if argv[:1] == ["lsp"]:
        from cglint.integrations.lsp import main as lsp_main

        return lsp_main(argv[1:])
    try:
        parser = build_parser()
        args = parser.parse_args(argv)
    except SystemExit as exit_:  # argparse exits 2 on usage errors, 0 on --help/--version
        return exit_.code
    except KeyboardInterrupt:  # Ctrl-C before the run started: no traceback either
        return 130
    previous = _NOT_INSTALLED
    try:
        # (inside the try: a Ctrl-C or SIGTERM as the handler goes in ends quietly too)
        previous = _stop_cleanly_on_sigterm()
        with interrupts.keeping_stops():
            status = run(args, parser)
            interrupts.raise_pending()  # one that came after the last file
            return status
    except (UsageError, ConfigError) as error:
        sys.stderr.write("cglint: error: %s\n" % error)
        return EXIT_ERROR
    except BrokenPipeError:  # `cglint src | head`
        return EXIT_FINDINGS
    except _STOPPED as error:
        return _stop_status(error)
    finally:
        if previous is not _NOT_INSTALLED:
            signal.signal(signal.SIGTERM, previous)


def console_main():
    """The `cglint` command: main(), then the default signal actions, so that a Ctrl-C or
    SIGTERM arriving while the interpreter shuts down (joining the pool's threads) ends it
    quietly; a handler raising there prints "Exception ignored" and a traceback."""
    try:
        # (signal.signal() runs a pending handler first: a Ctrl-C as main()'s `finally`
        # restores the SIGTERM handler, or as these go in, surfaces here). Kept stops
        # cover what main() does before its run (parsing the options, a subcommand's
        # imports) as well.
        with interrupts.keeping_stops():
            status = main()
            interrupts.raise_pending()
    except _STOPPED as error:
        status = _stop_status(error)
    for stop in (signal.SIGINT, signal.SIGTERM):
        for _ in range(2):  # a pending stop raised before the change: set it again
            try:
                signal.signal(stop, signal.SIG_DFL)
                break
            except interrupts.STOPS as error:
                status = _stop_status(error)
    return status


# A stop, or another exception with one behind it (a Ctrl-C landing in a lazy import of a
# dataclass module is wrapped in a RuntimeError on Python 3.11): see _stop_status.
_STOPPED = interrupts.STOPS + (Exception,)


def _stop_status(error):
    """The exit status of a stop, also of one that reached the top wrapped in another
    exception; any other error is raised again, as the bug it is."""
    stop = interrupts.stop_behind(error)
    if stop is None:
        raise error
    return 130 if isinstance(stop, KeyboardInterrupt) else 128 + signal.SIGTERM


_NOT_INSTALLED = object()


def _stop_cleanly_on_sigterm():
    """Install the SIGTERM handler; return the previous one (or _NOT_INSTALLED)."""
    main_process = os.getpid()

    def terminated(signum, frame):
        if os.getpid() != main_process:  # a forked worker: its parent handles the stop
            os._exit(128 + signum)
        raise interrupts.Terminated()

    try:
        return signal.signal(signal.SIGTERM, terminated)
    except ValueError:  # not the main thread (an embedding program): leave it alone
        return _NOT_INSTALLED


def command_line_config(args):
    """The options given on the command line, as a Config that overrides the file's."""
    def codes(name, default=None):
        value = getattr(args, name)
        if value is None:
            return default
        return config.parse_codes(value, "--" + name.replace("_", "-"))

    def globs(name):
        value = getattr(args, name)
        return None if value is None else config.parse_globs(value, "--" + name.replace("_", "-"))

    per_file = args.per_file_ignores
    if codes("select") == () and not codes("extend_select", ()):
        # (a run of no rule would end in a silent "All clear")
        raise UsageError("--select %r selects no rule; name codes or prefixes, or leave "
                         "it out for the default" % args.select)
    return config.Config(
        root=os.getcwd(),
        select=codes("select"),
        extend_select=codes("extend_select", ()),
        ignore=codes("ignore"),
        extend_ignore=codes("extend_ignore", ()),
        per_file_ignores=None if per_file is None else config.parse_per_file_ignores(
            per_file, "--per-file-ignores"),
        target_python=args.target_python,
        target_tf=args.target_tf,
        exclude=globs("exclude"),
        extend_exclude=globs("extend_exclude") or (),
        report_unused_noqa=args.report_unused_noqa,
        respect_gitignore=args.respect_gitignore,
    )


def load_settings(args):
    """A config.Resolver that gives each file its settings."""
    fixed = None
    if args.isolated:
        fixed = config.Config()
    elif args.config:
        fixed = config.read(args.config)
        if fixed is None:
            raise UsageError("%s has no [tool.cglint] or [cglint] section" % args.config)
    return config.Resolver(command_line_config(args), fixed)


def run(args, parser):
    out = sys.stdout
    if args.list_rules:
        for code, rule in engine.rules().items():
            out.write("%s  %-28s %s\n" % (code, rule.name, rule.summary()))
        return EXIT_CLEAN
    if args.explain:
        return explain(args.explain, out)
    check_usage(args, parser)
    resolver = load_settings(args)
    if args.show_settings:
        return show_settings(args.paths[0], resolver, out)
    if args.show_files:
        for shown in sorted(shown for _, shown, _, _ in to_check(args.paths, resolver, args.stdin_filename)):
            out.write(shown + "\n")
        return EXIT_CLEAN
    if args.output_file is None:
        return lint(args, resolver, out)
    if _a_checked_file(args.output_file, args, resolver):
        raise UsageError("--output-file %s is one of the files to check: the report would "
                         "replace it" % args.output_file)
    try:
        # (a file name that is not UTF-8 is written escaped, as on standard output)
        report = open(args.output_file, "w", encoding="utf-8", errors="backslashreplace")
    except OSError as error:
        raise UsageError("cannot write %s: %s" % (args.output_file, error.strerror or error))
    with report:
        return lint(args, resolver, report)


def _a_checked_file(path, args, resolver):
    """Whether `path` is (a link to) one of the files the run checks: opening it for the
    report would empty it before it is read (`cglint a.py -o a.py`)."""
    try:
        target = os.stat(path)
    except OSError:
        return False  # a new file
    if not stat.S_ISREG(target.st_mode):
        return False
    for checked, _, problem, _ in to_check(args.paths, resolver, args.stdin_filename):
        try:
            if checked != "-" and not problem and os.path.samestat(os.stat(checked), target):
                return True
        except OSError:
            continue
    return False


def lint(args, resolver, out):
    """Check the paths, fix or report, and return the exit code; the report goes to `out`
    (standard output unless --output-file)."""
    to_file = out is not sys.stdout
    stdin_skipped = "-" in args.paths and stdin_excluded(args, resolver)
    if args.fix and stdin_skipped:
        # An editor pipes its buffer through `--fix` and replaces the buffer with what
        # comes out: an excluded buffer must come back unchanged, and nothing else.
        sys.stdout.flush()
        sys.stdout.buffer.write(files.read_bytes("-", sys.stdin.buffer))
        sys.stdout.flush()
        out = out if to_file else sys.stderr
    elif args.fix and "-" in args.paths and not to_file:
        out = sys.stderr  # standard output carries the fixed source
    fixer = Fixer(sys.stdout, args.unsafe_fixes) if args.fix else None
    run = lint_paths(args.paths, resolver, lambda count: jobs_for(args.jobs, count),
                     cache=not args.no_cache,
                     keep_bytes=NOQA_EDITS if args.add_noqa else bool(args.fix or args.diff),
                     stdin_filename=args.stdin_filename, progress=not args.quiet,
                     on_checked=fixer.fix if fixer else None)
    status = Status(args, run, stdin_skipped)
    if args.add_noqa:
        return add_noqa(run, status)
    if args.diff:
        changed = show_diffs(run, status, args.quiet, out, args.unsafe_fixes)
        if status.errors:
            return EXIT_ERROR
        return EXIT_FINDINGS if changed and not args.exit_zero else EXIT_CLEAN
    return report(args, run, status, out, fixer)


class Status:
    """What every consumer of a run says besides its own output: internal errors (as
    each file comes), and that no file was found (at the end)."""

    def __init__(self, args, run, stdin_skipped):
        self.args = args
        self.run = run
        self.stdin_skipped = stdin_skipped
        self.errors = 0

    def checked(self, item):
        if item.result.error:
            self.errors += 1
            self.run.progress.clear()
            sys.stderr.write("cglint: internal error while checking %s: %s (please report "
                             "it)\n" % (printable(item.result.path), item.result.error))

    def finished(self):
        if not self.run.count and not self.args.quiet and not self.stdin_skipped:
            sys.stderr.write("cglint: warning: no Python files found under %s\n"
                             % ", ".join(self.args.paths))


def report(args, run, status, out, fixer):
    """Report the findings: text and github as each file is done (the whole-run findings
    last), JSON and SARIF, whole documents, at the end. Return the exit code."""
    text = args.format == "text"
    writer = WRITERS[args.format]
    held = None if args.format in ("text", "github") else []
    frames = report_run(args, out)
    per_code = Counter()  # code -> findings (--statistics)
    fixable_codes = set()
    would_fix = Counter()  # (path, code) -> findings with a fix --fix would apply
    hidden = 0  # findings whose only fix is unsafe, without --unsafe-fixes
    total = 0
    # Syntax findings in files whose target Python nothing set or declared (2.7 assumed)
    assumed = {shown for _, shown, _, settings in run.found
               if settings.target_python_assumed}
    frames.assumed_target = frozenset(assumed)
    on_assumed_target = 0

    def emit(diagnostics):
        nonlocal total, on_assumed_target, hidden
        findings = [(diagnostic, diagnostic.fix) for diagnostic in sorted(diagnostics)]
        if text:
            # What `--fix` would apply: safe fixes, and unsafe ones only with
            # --unsafe-fixes. The text report marks those; JSON and SARIF carry every fix
            # with its applicability.
            hidden += sum(1 for _, edits in findings
                          if edits and not args.unsafe_fixes and not is_safe(edits))
            findings = [(diagnostic, edits if edits and (args.unsafe_fixes or is_safe(edits))
                         else None) for diagnostic, edits in findings]
        total += len(findings)
        for diagnostic, edits in findings:
            per_code[diagnostic.code] += 1
            if diagnostic.code in PYTHON_TARGET_CODES and diagnostic.path in assumed:
                on_assumed_target += 1
            if edits:
                fixable_codes.add(diagnostic.code)
                would_fix[diagnostic.path, diagnostic.code] += 1
        if held is not None:
            held.extend(findings)
        elif findings:
            run.progress.clear()
            writer(out, findings, frames)

    for item in run:
        status.checked(item)
        frames.now(item)
        emit(item.result.diagnostics)
    frames.now(None)
    emit(run.whole_run)
    status.finished()
    if held is not None:
        frames.files_checked = run.count
        writer(out, held, frames)
    if text:
        if args.statistics:
            write_statistics(out, per_code, fixable_codes)
        if args.show_fixes:
            write_fixes(out, fixer.removed if args.fix else would_fix, args.fix)
        if not args.quiet:
            count = sum(fixer.removed.values()) if args.fix else 0
            if count:
                out.write("Fixed %d finding%s.\n" % (count, "" if count == 1 else "s"))
            out.write(_summary(total, run.count))
            fixable = sum(would_fix.values())
            out.write(_fixable_line(fixable, hidden))
            if on_assumed_target:
                out.write(_assumed_target_note(on_assumed_target))
    out.flush()
    if status.errors or (fixer is not None and fixer.unwritten):
        return EXIT_ERROR  # (--exit-zero silences findings, not errors)
    return EXIT_FINDINGS if total and not args.exit_zero else EXIT_CLEAN


def _fixable_line(fixable, hidden):
    """The count of what `--fix` would fix, and of the unsafe fixes it leaves unless
    asked (as ruff words them); empty without either."""
    hint = "%d hidden fix%s can be enabled with `--unsafe-fixes`" % (
        hidden, "" if hidden == 1 else "es") if hidden else ""
    if fixable:
        return "[*] %d fixable with `--fix`%s.\n" % (fixable, " (%s)" % hint if hint else "")
    return "No fixes available (%s).\n" % hint if hint else ""


class Frames(Run):
    """The Run the writers get: files checked, and for text, code frames and color. The
    lines a frame shows are those of the file being reported (`now`), as checked (as
    fixed, with --fix), else read again from disk (the whole-run findings, at the end)."""

    def __init__(self, show_source, color):
        super().__init__(0, show_source, color, self.lines)
        self.item = None
        self.stdin = None  # standard input's Checked: its text cannot be read again
        self.last = (None, None)  # (path, lines) last shown: a file's findings share them

    def now(self, item):
        self.item = item
        if item is not None and item.stdin:
            self.stdin = item

    def lines(self, path):
        if self.last[0] == path:
            return self.last[1]
        item = self.item if self.item is not None and self.item.shown == path else None
        if item is None and self.stdin is not None and self.stdin.shown == path:
            item = self.stdin
        if item is not None and item.data is not None:
            loaded = files.decode(path, item.data)
        elif item is not None and item.stdin:
            loaded = None
        else:
            loaded = files.load(path)
        lines = loaded.text.split("\n") if isinstance(loaded, files.Source) else None
        self.last = (path, lines)
        return lines


def report_run(args, out):
    """The Frames of a report to `out`."""
    terminal = _is_terminal(out)
    if args.color == "auto":
        color = terminal and not os.environ.get("NO_COLOR")
    else:
        color = args.color == "always"
    show_source = terminal if args.show_source is None else args.show_source
    return Frames(show_source, color)


def _is_terminal(stream):
    try:
        return stream.isatty()
    except (AttributeError, ValueError):
        return False


def show_settings(path, resolver, out):
    """Print the settings a file gets (or a folder's files get), and where they are from."""
    settings = resolver.settings_for(path) if not os.path.isdir(path) else \
        resolver.settings_in(path)
    options = settings.options
    rules = [code for code in engine.rules() if options.selected(code)]
    out.write("Settings for: %s\n" % path)
    out.write("Settings file: %s\n" % (settings.source or "none (defaults)"))
    out.write("Excluded: %s\n" % ("yes" if settings.excluded(path) else "no"))
    out.write("Rules (%d): %s\n" % (len(rules), " ".join(rules)))
    out.write("target-python: %s%s\n" % (
        ".".join(str(part) for part in options.target_python),
        " (the oldest Python %s declares)" % settings.declared_by if settings.declared_by
        else ""))
    out.write("target-tf: %s\n" % options.target_tf)
    out.write("per-file-ignores:%s\n" % "".join(
        "\n  %s: %s" % (os.path.join(root, glob), ", ".join(codes))
        for root, glob, codes in settings.per_file_ignores))
    out.write("exclude:%s\n" % "".join(
        "\n  %s" % os.path.join(root, glob) for root, glob in settings.exclude))
    out.write("report-unused-noqa: %s\n" % str(options.report_unused_noqa).lower())
    out.write("respect-gitignore: %s\n" % str(settings.respect_gitignore).lower())
    return EXIT_CLEAN


def check_usage(args, parser):
    """Raise UsageError for options that cannot work together, with a hint."""
    if args.stdin_filename and "-" not in args.paths:
        raise UsageError("--stdin-filename names the code read from standard input: pass "
                         "`-` as the path (`cglint - --stdin-filename %s`)"
                         % args.stdin_filename)
    if not args.paths:
        parser.print_usage(sys.stderr)
        raise UsageError("no paths given (try `cglint .`)")
    first = args.paths[0]
    if re.match(r"^[a-z][a-z-]*$", first) and not os.path.exists(first):
        raise UsageError("no file or folder %r; subcommands are %s, and come first "
                         "(`cglint --help` lists the options)"
                         % (first, ", ".join(SUBCOMMANDS)))
    if args.fix and args.diff:
        raise UsageError("--fix and --diff cannot be combined (--diff changes no file)")
    if args.add_noqa and (args.fix or args.diff or "-" in args.paths):
        raise UsageError("--add-noqa changes files in place: it goes with neither --fix, "
                         "--diff nor `-`")
    if args.diff and args.format != "text":
        # A diff is no list of findings: SARIF, JSON or annotations cannot carry it.
        raise UsageError("--diff prints a unified diff; it cannot be combined with "
                         "--format %s" % args.format)


def stdin_excluded(args, resolver):
    shown = display_path(args.stdin_filename or "-")
    return resolver.settings_for(shown).excluded(shown)


def _text(item):
    source = files.decode(item.shown, item.data) if item.data is not None else None
    return None if source is None or isinstance(source, files.Unreadable) else source.text


def _fixed(item, unsafe=False):
    """autofix.Fixed for a checked file, or None when it has no fix to apply. A fix
    refused because the file would not parse after it leaves the file's result also when
    no other fix applied: the report must not count it fixable."""
    text = _text(item) if item.result.fixes else None
    if text is None:
        return None
    from cglint import autofix  # only --fix and --diff pay for importing the fixers

    fixed = autofix.fix_text(item.shown, text, item.options, item.result, unsafe,
                             item.data.startswith(files.UTF8_BOM))
    if fixed.text != text:
        return fixed
    item.result = fixed.result
    return None


class Fixer:
    """Writes each file's fixes in place as soon as it is checked (standard input's to
    standard output, whole), and counts the findings they removed by (path, code)."""

    def __init__(self, out, unsafe=False):
        self.out = out
        self.unsafe = unsafe  # --unsafe-fixes
        self.removed = Counter()
        self.unwritten = 0  # files whose fixes could not be written: an error (exit 2)

    def _encoded(self, item, fixed):
        """The fixed text in the original's encoding, BOM and line endings; None (said,
        and counted as unwritten) when a fix added a character the encoding lacks."""
        from cglint import autofix

        try:
            return autofix.encode_like_original(fixed.text, item.data)
        except ValueError as error:
            sys.stderr.write("cglint: cannot fix %s: %s\n" % (printable(item.shown), error))
            self.unwritten += 1
            return None

    def fix(self, item):
        fixed = _fixed(item, self.unsafe)
        data = self._encoded(item, fixed) if fixed else None
        if data is None:
            fixed = None
        if item.stdin:
            # As on disk: the buffer's encoding, BOM and line endings; unfixed, its bytes.
            data = data if fixed else item.data
            self.out.flush()
            sys.stdout.buffer.write(data)
            sys.stdout.buffer.flush()
            item.data = data  # what code frames show
        elif fixed:
            from cglint.fix import ChangedOnDisk, write_atomic

            try:
                write_atomic(item.path, data, expected=(item.data, item.info))
            except ChangedOnDisk as error:
                sys.stderr.write("cglint: not fixing %s: %s; check it again\n" % (
                    printable(item.shown), error.strerror))
                return  # (someone's edit came first: its findings stand, no error)
            except OSError as error:  # read-only or vanished: say so, fix the others
                sys.stderr.write("cglint: cannot fix %s: %s\n" % (
                    printable(item.shown), error.strerror or error))
                self.unwritten += 1
                return
            item.data = data
        if fixed:
            gone = (Counter(d.code for d in item.result.diagnostics)
                    - Counter(d.code for d in fixed.result.diagnostics))
            for code, count in gone.items():
                self.removed[item.shown, code] += count
            item.result = fixed.result


def add_noqa(run, status):
    """--add-noqa: write each file with its findings' directives added, atomically, in
    its own encoding and line endings; say how many were added. Nothing is written when
    a file met an internal error, so the files with findings are kept to the end."""
    from cglint.add_noqa import add_noqa as with_noqa
    from cglint.autofix import encode_like_original
    from cglint.fix import ChangedOnDisk, write_atomic

    kept = []
    for item in run:
        status.checked(item)
        if item.result.diagnostics or item.result.summaries:
            kept.append(item)
    status.finished()
    if status.errors:
        return EXIT_ERROR
    whole_run = {}
    for diagnostic in run.whole_run:
        whole_run.setdefault(diagnostic.path, []).append(diagnostic)
    added = changed = left = 0
    for item in kept:
        diagnostics = sorted(item.result.diagnostics + whole_run.get(item.shown, []))
        text = _text(item) if diagnostics else None
        if text is None:
            continue
        new_text, count, not_added = with_noqa(text, diagnostics)
        left += not_added
        if new_text == text:
            continue
        try:
            write_atomic(item.path, encode_like_original(new_text, item.data),
                         expected=(item.data, item.info))
        except ChangedOnDisk as error:
            sys.stderr.write("cglint: not changing %s: %s; run again\n" % (
                printable(item.shown), error.strerror))
            continue
        except OSError as error:
            sys.stderr.write("cglint: cannot write %s: %s\n" % (
                printable(item.shown), error.strerror or error))
            continue
        added += count
        changed += 1
    sys.stderr.write("Added noqa directives for %d finding%s in %d file%s.\n" % (
        added, "" if added == 1 else "s", changed, "" if changed == 1 else "s"))
    if left:
        sys.stderr.write("cglint: %d finding%s could not take a noqa comment (a line that "
                         "ends inside a string or after a backslash)\n"
                         % (left, "" if left == 1 else "s"))
    return EXIT_CLEAN


def show_diffs(run, status, quiet, out, unsafe=False):
    """Print each fixable file's fixes as a unified diff as soon as it is checked (the
    whole-run findings have no fixes); return how many files would change."""
    changed = 0
    for item in run:
        status.checked(item)
        fixed = _fixed(item, unsafe)
        if fixed is None:
            continue
        changed += 1
        import difflib  # only --diff needs it

        run.progress.clear()
        before, after, encoding = _lines_as_written(item, fixed.text)
        lines = difflib.unified_diff(
            before, after,
            "a/" + printable(item.shown.lstrip("/")), "b/" + printable(item.shown.lstrip("/")))
        _write_diff(out, lines, encoding)
    status.finished()
    if not quiet:
        sys.stderr.write("%d file%s would be changed.\n" % (changed, "" if changed == 1 else "s"))
    out.flush()
    return changed


def _lines_as_written(item, fixed_text):
    """The file's lines before and after its fixes, each with its own line ending as on
    disk (`\r\n` kept), so that `patch` and `git apply` take the diff of a CRLF file; and
    the encoding that gives their bytes back (a BOM stays on the first line)."""
    from cglint import autofix

    source = files.decode(item.shown, item.data)
    encoding = "utf-8" if source.encoding == "utf-8-sig" else source.encoding
    after = autofix.encode_like_original(fixed_text, item.data).decode(encoding)
    before = item.data.decode(encoding)
    return _split_keeping_newlines(before), _split_keeping_newlines(after), encoding


def _write_diff(out, lines, encoding):
    """The diff's lines, those of the file in its own bytes (latin-1 stays latin-1, a BOM
    stays), the headers in UTF-8: `patch` then matches the file byte for byte. A stream
    without bytes underneath (a test's) takes the text."""
    lines = list(_marking_missing_newlines(lines))
    buffer = getattr(out, "buffer", None)
    if buffer is None:
        out.writelines(lines)
        return
    out.flush()
    for index, line in enumerate(lines):
        header = index < 2 or line.startswith(("@@", "\\ "))
        buffer.write(line.encode("utf-8" if header else encoding, "surrogateescape"))
    buffer.flush()


def _marking_missing_newlines(lines):
    """The diff's lines, one without a newline (the file's last) ended and followed by
    `\\ No newline at end of file`, as diff(1) writes it and patch(1) reads it."""
    for line in lines:
        if line.endswith("\n"):
            yield line
        else:
            yield line + "\n"
            yield "\\ No newline at end of file\n"


def _split_keeping_newlines(text):
    """Lines with their endings, as diff(1) has them: each ends at `\n` (a `\r\n` line
    keeps its `\r`); nothing else ends a line (str.splitlines also splits on `\r` and
    form feeds)."""
    return _LINES_AS_DIFF_READS.findall(text)


# diff(1) and patch(1) end a line at `\n` only: a lone `\r` stays inside the line, so
# the patch of a CR-only file (one line to them) gives back what --fix writes.
_LINES_AS_DIFF_READS = re.compile(r"[^\n]*\n|[^\n]+$")


def write_statistics(out, per_code, fixable):
    """Findings per code (per_code: code -> count), `[*]` marking the codes in `fixable`,
    those with a finding --fix can fix (as ruff)."""
    rules = engine.rules()
    for code, count in sorted(per_code.items()):
        name = rules[code].name if code in rules else ""
        out.write("%5d  %s  %s%s\n" % (count, code, "[*] " if code in fixable else "", name))


def write_fixes(out, fixed, done):
    """ruff's --show-fixes list: per file, how many findings of each code were fixed."""
    if not fixed:
        return
    rules = engine.rules()
    total = sum(fixed.values())
    out.write("%s %d finding%s:\n" % ("Fixed" if done else "Would fix", total,
                                      "" if total == 1 else "s"))
    for path in sorted({path for path, _ in fixed}):
        out.write("- %s:\n" % path)
        for (where, code), count in sorted(fixed.items()):
            if where == path:
                name = rules[code].name if code in rules else ""
                out.write("    %d \u00d7 %s (%s)\n" % (count, code, name))


# The findings that depend on the target Python.


def _assumed_target_note(count):
    """Why `count` syntax findings judged Python 2.7: nothing said which Python the code
    runs on (a Python 3 project would otherwise read as hundreds of false findings)."""
    return ("Note: %s assume%s Python 2.7, as no settings or project file says which "
            "Python the code runs on; for code that runs on Python 3 only, pass "
            "`--target-python 3.6` or declare it (`python_requires`, `requires-python` or "
            "the cglint setting `target-python`).\n"
            % (wording.counted(count, "syntax finding"), "s" if count == 1 else ""))


def _summary(count, checked):
    files_word = "file" if checked == 1 else "files"
    if not count:
        return "All clear: %d %s checked.\n" % (checked, files_word)
    return "Found %d finding%s in %d %s checked.\n" % (
        count, "" if count == 1 else "s", checked, files_word)


def explain(wanted, out):
    """Print a rule's documentation and URL; `wanted` is its code or its name."""
    from cglint import ruledocs

    rules = engine.rules()
    rule = rules.get(wanted.upper()) or next(
        (rule for rule in rules.values() if rule.name == wanted.lower()), None)
    if rule is None:
        raise UsageError("unknown rule %r (see `cglint --list-rules`)" % wanted)
    out.write("%s (%s)\n\n%s\n\n%s\n" % (rule.code, rule.name, rule.documentation(),
                                           ruledocs.url(rule.code)))
    return EXIT_CLEAN


if __name__ == "__main__":
    sys.exit(main())
