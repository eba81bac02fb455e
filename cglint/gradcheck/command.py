"""`cglint gradcheck PATH...`: check users' custom gradients numerically under TF 1.8.

This command EXECUTES the checked modules (it imports them in the TF 1.8 interpreters,
inside the oracle's sandbox). Exit 0 when every checked function is ok or skipped, 1
otherwise, 2 on a usage error, when no TF 1.8 interpreter can be had, or on an internal
error in one file (the others are still checked).
"""
import argparse
import json
import os
import re
import sys
import time

from cglint import files
from cglint.config import ConfigError
from cglint.gradcheck import discover, settings, verdicts
from cglint.oracle import envs
from cglint.oracle.runner import MAX_TIMEOUT, timeout_seconds, whole_number

PYTHONS = {"2.7": ("py27",), "3.6": ("py36",), "both": ("py27", "py36")}
MODES = {"graph": ("graph",), "eager": ("eager",), "both": ("graph", "eager")}
# numpy seeds are below 2**32, and the driver seeds r with --seed + 1.
MAX_SEED = 2 ** 32 - 2
PART_WIDTH = 110  # of each `; `-separated part of a message in the text table; JSON has it whole
_CONFIRMS = re.compile(r" \(confirms [^)]*\)$")


class UsageError(Exception):
    pass


def parser():
    defaults = verdicts.CheckOptions()
    p = argparse.ArgumentParser(prog="cglint gradcheck", description=(
        "Check custom gradients (@tf.custom_gradient, tf.custom_gradient(f)) numerically "
        "under real TensorFlow 1.8: each function's gradient of sum(y * r), for a random "
        "upstream r, against central differences at float64, in graph and eager mode. "
        "WARNING: unlike the linter, this IMPORTS AND RUNS the checked modules (in the TF "
        "1.8 interpreters, in a sandboxed child process with limits and a timeout); run it "
        "only on code you would run yourself."),
        epilog=("Inputs come from a comment above the def or its decorators, "
                "`# cglint: gradcheck x=(3, 4) weight=0.3` (a tuple of ints is a seeded float64 "
                "normal array of that shape, a number a Python number, anything else a Python "
                "expression with `np` bound), `# cglint: gradcheck skip` for an intentional "
                "estimator, or [tool.cglint.gradcheck] \"path::function\" = \"...\" in "
                "pyproject.toml (a spec comment or entry that applies to no function is a "
                "warning). Without one, the required parameters get automatic arrays, named in "
                "the verdict: (5,) each, then (3, 4) each, then, for several, (3, 4) and (4, 5) "
                "(a matrix product), (3, 4) and (4,) (a bias), (5,) and scalars, until one "
                "fits; an ok with one shape for all is also tried with the bias shapes. An "
                "element differs when |custom - numerical| > atol + rtol * "
                "|numerical| + rounding, where rounding is 100 units of the precision in each "
                "output the probed element moved (over the step) and in the gradient's largest "
                "element: no fixed absolute floor, so a small gradient that is 2x or of the "
                "wrong sign differs too."))
    p.add_argument("paths", nargs="+", metavar="PATH",
                   help="files or folders; FILE::function checks one function")
    p.add_argument("--python", choices=sorted(PYTHONS), default="3.6",
                   help="TF 1.8 interpreter(s) to run on (default 3.6)")
    p.add_argument("--mode", choices=sorted(MODES), default="both",
                   help="graph, eager or both (default both; eager runs in its own process)")
    p.add_argument("--atol", type=_non_negative, default=defaults.atol,
                   help="absolute tolerance added to the rounding allowance (default %g)"
                        % defaults.atol)
    p.add_argument("--rtol", type=_non_negative, default=defaults.rtol,
                   help="relative tolerance (default %g); a function that only runs at "
                        "float32 is checked with at least 1e-2 for both" % defaults.rtol)
    p.add_argument("--seed", type=whole_number(0, MAX_SEED), default=defaults.seed,
                   help="seed of the inputs and of r, 0 to %d (default %d)"
                        % (MAX_SEED, defaults.seed))
    p.add_argument("--format", choices=("text", "json"), default="text")
    p.add_argument("--timeout", type=timeout_seconds, default=60.0,
                   help="seconds per function and mode (default 60, at most %d: a day)"
                        % MAX_TIMEOUT)
    p.add_argument("--jobs", type=whole_number(1), default=os.cpu_count() or 2, help="runs at once")
    p.add_argument("--config", metavar="FILE", help="read [tool.cglint.gradcheck] from this file")
    p.add_argument("--tf-python", action="append", default=[], metavar="PATH",
                   help="use this TF 1.8 interpreter (repeatable; env CGLINT_TF_PYTHON)")
    p.add_argument("--cache-dir", help="where built interpreters live (default ~/.cache/cglint)")
    return p


def _non_negative(text):
    value = float(text)
    if not value >= 0:
        raise argparse.ArgumentTypeError("must be a number >= 0: %s" % text)
    return value


def split_selector(argument):
    """(path, function or None) from `PATH` or `FILE::function`."""
    path, separator, function = argument.rpartition("::")
    if not separator:
        return argument, None
    if not function or not os.path.isfile(path):
        raise UsageError("%s: expected FILE::function with an existing file" % argument)
    return path, function


def plan(arguments, specs_by_file, warnings=None):
    """(targets, file problems [(path, message, internal)]) for the command-line paths;
    `internal` marks a failure of gradcheck itself, after which the other files go on.
    `warnings`, a list, gets what is ignored but probably meant: a spec comment that
    applies to no function, a settings entry for a function the file does not have."""
    targets, problems, seen = [], [], set()
    warnings = [] if warnings is None else warnings
    for argument in arguments:
        path, function = split_selector(argument)
        if not os.path.exists(path):
            raise UsageError("no such file or folder: %s" % path)
        for found, problem in files.discover([path]):
            if problem:
                problems.append((found, problem, False))
                continue
            mine = {name: spec for (file, name), spec in specs_by_file.items()
                    if file == os.path.normpath(os.path.abspath(found))}
            try:
                in_file = discover.targets_in(found, mine, warnings)
            except discover.FileError as error:
                problems.append((found, str(error), False))
                continue
            except Exception as error:  # a bug of ours: this file's, not the run's end
                problems.append((found, "internal error while finding its custom-gradient "
                                 "functions: %s: %s (please report it)" % (type(error).__name__, error),
                                 True))
                continue
            names = {name for t in in_file for name in (t.function,) + t.aliases}
            for name in sorted(set(mine) - names):
                warnings.append("%s: the gradcheck settings entry for `%s` applies to nothing: "
                                "the file has no custom-gradient function of that name" % (found, name))
            if function is not None:
                in_file = [t for t in in_file if function in (t.function,) + t.aliases]
                if not in_file:
                    raise UsageError("%s has no custom-gradient function `%s`" % (path, function))
            targets += [t for t in in_file if (os.path.realpath(t.path), t.line) not in seen]
            seen.update((os.path.realpath(t.path), t.line) for t in in_file)
    return targets, problems


def shorten(part):
    """A message part cut to PART_WIDTH, keeping its `(confirms CG103)`."""
    if len(part) <= PART_WIDTH:
        return part
    match = _CONFIRMS.search(part)
    suffix = match.group(0) if match else ""
    return part[:PART_WIDTH - len(suffix) - 3].rstrip() + "..." + suffix


def format_table(verdicts_):
    rows = [("STATUS", "PYTHON", "FUNCTION", "MAX ABS ERR", "MESSAGE")]
    for v in verdicts_:
        error = "-" if v.max_abs_error is None else "%.3g" % v.max_abs_error
        message = "; ".join(shorten(part) for part in v.message.split("; "))
        rows.append((v.status, v.interpreter, "%s:%d %s" % (v.path, v.line, v.function), error, message))
    widths = [max(len(row[i]) for row in rows) for i in range(4)]
    return "\n".join(("  ".join(cell.ljust(width) for cell, width in zip(row[:4], widths))
                      + "  " + row[4]).rstrip() for row in rows)


def summary(verdicts_):
    counts = {}
    for v in verdicts_:
        counts[v.status] = counts.get(v.status, 0) + 1
    parts = ["%d %s" % (counts[status], status) for status in verdicts.SEVERITY if status in counts]
    return "%d checks: %s" % (len(verdicts_), ", ".join(parts))


def main(argv=None):
    try:
        args = parser().parse_args(argv)
    except SystemExit as exc:  # argparse: --help is 0, a usage error 2
        return exc.code
    started = time.time()
    try:
        specs_by_file = settings.find(args.paths, args.config)
        warnings = []
        targets, problems = plan(args.paths, specs_by_file, warnings)
    except (UsageError, ConfigError, OSError) as error:
        sys.stderr.write("cglint gradcheck: %s\n" % error)
        return 2
    for warning in dict.fromkeys(warnings):  # once each, in the order found
        sys.stderr.write("cglint gradcheck: warning: %s\n" % warning)
    for path, problem, _ in problems:
        sys.stderr.write("cglint gradcheck: %s: %s\n" % (path, problem))
    failed = 2 if any(internal for _, _, internal in problems) else 1
    if not targets:
        sys.stderr.write("cglint gradcheck: no custom-gradient functions in %s\n" % " ".join(args.paths))
        return failed if problems else 0
    selected = PYTHONS[args.python]
    runnable = any(not (t.spec.skip or t.reason) for t in targets)
    interpreters = {}
    if runnable:
        interpreters, errors = envs.find_interpreters(
            selected, args.tf_python or envs.tf_pythons_from_env(), args.cache_dir)
        for what, error in sorted(errors.items()):
            sys.stderr.write("cglint gradcheck: %s: %s\n" % (what, error))
        if not interpreters:
            return 2
    options = verdicts.CheckOptions(args.atol, args.rtol, args.seed)
    found = verdicts.check(targets, interpreters, selected, MODES[args.mode], options,
                           args.jobs, args.timeout)
    if args.format == "json":
        json.dump([v.to_json() for v in found], sys.stdout, indent=2, allow_nan=False)
        sys.stdout.write("\n")
    else:
        print(format_table(found))
        print(summary(found))
        sys.stderr.write("cglint gradcheck: %d functions in %.1f s\n" % (len(targets), time.time() - started))
    if problems:
        return failed
    return 0 if all(v.status in ("ok", "skipped") for v in found) else 1
