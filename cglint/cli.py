"""The `cglint` command: parse options, lint the paths, report, choose the exit code."""
import argparse
import os
import re
import sys
from collections import Counter

from cglint import __version__, engine, files
from cglint.diagnostics import Diagnostic

EXIT_CLEAN, EXIT_FINDINGS, EXIT_ERROR = 0, 1, 2
TARGET_PYTHONS = ("2.7", "3.5", "3.6")
TARGET_TFS = ("1.8",)
_CODE = re.compile(r"^CG\d{0,3}$")


class UsageError(Exception):
    pass


def build_parser():
    parser = argparse.ArgumentParser(
        prog="cglint",
        description="Find TensorFlow 1.8 custom-gradient hazards before they run.",
        epilog="Subcommands: `cglint confirm [PATHS]` runs fixtures under real TensorFlow "
               "1.8 (see `cglint confirm --help`).")
    parser.add_argument("paths", nargs="*", metavar="PATH",
                        help="files or folders to check; `-` reads standard input")
    parser.add_argument("--select", default="", metavar="CODES",
                        help="comma-separated code prefixes to report (default: all)")
    parser.add_argument("--ignore", default="", metavar="CODES",
                        help="comma-separated code prefixes not to report")
    parser.add_argument("--target-python", default="2.7", choices=TARGET_PYTHONS,
                        help="Python version the code must run on (default 2.7)")
    parser.add_argument("--target-tf", default="1.8", choices=TARGET_TFS,
                        help="TensorFlow version the code must run on (default 1.8)")
    parser.add_argument("--stdin-filename", metavar="PATH",
                        help="name to report for code read from standard input")
    parser.add_argument("--list-rules", action="store_true", help="list every rule and exit")
    parser.add_argument("--explain", metavar="CODE", help="explain a rule and exit")
    parser.add_argument("--statistics", action="store_true",
                        help="count findings per code after the list")
    parser.add_argument("--quiet", "-q", action="store_true",
                        help="print findings only, no summary")
    parser.add_argument("--version", action="version", version="cglint " + __version__)
    return parser


def parse_codes(text, option):
    codes = tuple(part.strip().upper() for part in text.split(",") if part.strip())
    for code in codes:
        if not _CODE.match(code):
            raise UsageError("%s: %r is not a code prefix like CG1 or CG103" % (option, code))
    return codes


def options_from(args):
    major, minor = (int(part) for part in args.target_python.split("."))
    return engine.Options(
        select=parse_codes(args.select, "--select"),
        ignore=parse_codes(args.ignore, "--ignore"),
        target_python=(major, minor),
        target_tf=args.target_tf,
    )


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["confirm"]:
        from cglint.oracle.confirm import main as confirm_main

        return confirm_main(argv[1:])
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as exit_:  # argparse exits 2 on usage errors, 0 on --help/--version
        return exit_.code
    try:
        return run(args, parser)
    except UsageError as error:
        sys.stderr.write("cglint: error: %s\n" % error)
        return EXIT_ERROR
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:  # `cglint src | head`
        return EXIT_FINDINGS


def run(args, parser):
    out = sys.stdout
    if args.list_rules:
        for code, rule in engine.rules().items():
            out.write("%s  %-28s %s\n" % (code, rule.name, rule.summary()))
        return EXIT_CLEAN
    if args.explain:
        return explain(args.explain.upper(), out)
    if not args.paths:
        parser.print_usage(sys.stderr)
        raise UsageError("no paths given (try `cglint .`)")
    options = options_from(args)
    findings, errors = [], 0
    checked = 0
    for path, problem in files.discover(args.paths):
        checked += 1
        if problem:
            shown = engine.display_path(path)
            findings.append(Diagnostic(shown, 1, 1, "CG002", problem))
            continue
        shown = args.stdin_filename if path == "-" and args.stdin_filename else path
        result = engine.lint_path(path, options, stdin=sys.stdin.buffer if path == "-" else None,
                                  display_path=engine.display_path(shown))
        if result.error:
            errors += 1
            sys.stderr.write("cglint: internal error while checking %s: %s (please report "
                             "it)\n" % (result.path, result.error))
        findings.extend(result.diagnostics)
    findings = [d for d in findings if options.selected(d.code)]
    findings.sort()
    for diagnostic in findings:
        out.write(diagnostic.format_text() + "\n")
    if args.statistics:
        for code, count in sorted(Counter(d.code for d in findings).items()):
            out.write("%5d  %s  %s\n" % (count, code, engine.rules()[code].name))
    if not args.quiet:
        out.write(_summary(len(findings), checked))
    out.flush()
    if errors:
        return EXIT_ERROR
    return EXIT_FINDINGS if findings else EXIT_CLEAN


def _summary(count, checked):
    files_word = "file" if checked == 1 else "files"
    if not count:
        return "All clear: %d %s checked.\n" % (checked, files_word)
    return "Found %d finding%s in %d %s checked.\n" % (
        count, "" if count == 1 else "s", checked, files_word)


def explain(code, out):
    rule = engine.rules().get(code)
    if rule is None:
        raise UsageError("unknown rule %r (see `cglint --list-rules`)" % code)
    out.write("%s (%s)\n\n%s\n" % (rule.code, rule.name, rule.documentation()))
    return EXIT_CLEAN


if __name__ == "__main__":
    sys.exit(main())
