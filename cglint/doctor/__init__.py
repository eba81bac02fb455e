"""`cglint doctor`: can this machine run TensorFlow 1.8 (and its GPU build), and if not,
what exactly to change.

gather.py collects what the checks look at (probe.py asks the interpreter in
subprocesses, machine.py asks nvidia-smi and the library search path), checks.py turns it
into rows, facts.py answers from the measured facts in cglint/data/doctor_facts.json,
report.py prints the rows, and main() below is the subcommand.
"""
import argparse
import sys

from cglint.oracle.runner import MAX_TIMEOUT, timeout_seconds

EXIT_OK, EXIT_FAILED, EXIT_USAGE = 0, 1, 2
DEFAULT_TIMEOUT = 120.0


def _interpreter(text):
    if not text:  # it was "cannot run : Permission denied"
        raise argparse.ArgumentTypeError("expected an interpreter's path or name, got ''")
    return text


def build_parser():
    parser = argparse.ArgumentParser(
        prog="cglint doctor",
        description="Check whether this machine can run TensorFlow 1.8 and its GPU build: "
                    "one line per check with what was found, what TF 1.8 needs and the fix. "
                    "Exit 1 when a check fails.")
    parser.add_argument("--python", type=_interpreter, default="python", metavar="PATH",
                        help="the interpreter to inspect (default: `python` on PATH)")
    parser.add_argument("--format", choices=("text", "json"), default="text",
                        help="text (default) or json: an array of {check, status, found, "
                             "needed, fix}")
    parser.add_argument("--timeout", type=timeout_seconds, default=DEFAULT_TIMEOUT,
                        metavar="SECONDS",
                        help="how long `import tensorflow` may take in each interpreter "
                             "(default %g, at most %d: a day)" % (DEFAULT_TIMEOUT, MAX_TIMEOUT))
    return parser


def main(argv=None):
    from cglint.doctor import checks, gather, report

    try:
        args = build_parser().parse_args(sys.argv[1:] if argv is None else argv)
    except SystemExit as exit_:  # argparse: 2 on usage errors, 0 on --help
        return exit_.code
    try:
        rows = checks.run_checks(gather.gather(args.python, args.timeout))
    except KeyboardInterrupt:
        return 130
    code = EXIT_FAILED if any(row.status == "fail" for row in rows) else EXIT_OK
    try:
        report.write(sys.stdout, rows, args.format)
    except BrokenPipeError:  # `cglint doctor | head`
        pass
    return code
