#!/usr/bin/env python3
"""Fuzz cglint with mutated fixtures; stop at the first crash and keep the input.

    python3 bench/fuzz.py --count 100000            # all CPUs, fixtures/ as seeds
    python3 bench/fuzz.py --count 20000 --jobs 2 --seed 7 --out /tmp/cglint-fuzz
    python3 bench/fuzz.py --replay /tmp/cglint-fuzz/crash-0-123.py
    python3 bench/fuzz.py --known '(?s)cg111_unreduced.*IndexError'  # a reported bug: count it, go on
    python3 bench/fuzz.py --atheris -max_total_time=600   # coverage-guided (pip install atheris)

Every input is a seed file from fixtures/ (and the seed's own mutations stacked 1-8 deep):
byte flips, truncation, inserted NULs and random bytes, deleted/duplicated/swapped spans,
random indentation, mixed tabs, CR/CRLF line ends, BOMs, PEP 263 coding lines naming real,
odd and unknown codecs (and the text re-encoded to match, or not), tokens from a
dictionary of Python and TensorFlow words, splices of two seeds. Each input must pass
`check_input`:

- `check.check_bytes` never raises and never reports an internal error (`Result.error`),
  for targets 2.7 and 3.6, with and without --report-unused-noqa;
- every finding has a known code, a position inside the file (line >= 1, col >= 1);
- an input that does not decode gets CG002 and only CG002; an input that does not parse
  gets CG001;
- the whole-run rules (`check.finish`) never raise;
- the autofix never raises, never turns a file that parses into one that does not, and
  its output re-encodes in the file's own encoding;
- a slow input (over --slow seconds in one check) counts as a crash too: a hang is a bug.

Every --cli-every-th batch is also written to a folder and run through the command line
(`cglint.cli.main`, in the worker process), which must exit 0 or 1, never 2.

Input number N is made from (--seed, N) alone, so `--start N --count 1` remakes it.
The standard library only (plus cglint and what it needs); run from anywhere with Python
3.9+ where cglint's dependencies are installed (`.venv/bin/python bench/fuzz.py`): a
missing one is an environment error (exit 2), not a crash of the linter.
"""
import argparse
import ast
import copy
import io
import multiprocessing
import os
import random
import re
import shutil
import signal
import sys
import tempfile
import time
import traceback
import warnings

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
if REPO not in sys.path:
    sys.path.insert(0, REPO)

# ---------------------------------------------------------------------------- mutations

# Codecs a coding line may name: ASCII-compatible ones Python itself accepts, ones that
# are not ASCII-compatible, codecs that are not text encodings, and names that do not exist.
ENCODINGS = (
    "utf-8", "utf-8-sig", "latin-1", "iso-8859-15", "cp1252", "cp437", "koi8-r", "mac-roman",
    "shift_jis", "euc-jp", "gb2312", "gbk", "big5", "cp932", "utf-16", "utf-16-le",
    "utf-32", "utf-7", "ascii", "idna", "punycode", "unicode_escape", "raw_unicode_escape",
    "undefined", "rot13", "hex", "base64", "zlib", "uu", "mbcs", "no-such-codec", "",
    "utf8\x00", "latin-1 -*-", "UTF-8", "Latin-1",
)
CODING_FORMS = (
    b"# -*- coding: %s -*-", b"# coding=%s", b"# vim: set fileencoding=%s :",
    b"#!/usr/bin/env python\n# coding: %s", b"#coding:%s", b"# coding: %s\r",
)
# Words that steer mutations toward the linter's own paths: syntax, TF names, noqa.
TOKENS = (
    b"(", b")", b"[", b"]", b"{", b"}", b":", b",", b"\\\n", b"'", b'"', b'"""', b"'''", b"#",
    b"lambda", b"def ", b"class ", b"return ", b"yield ", b"async ", b"await ", b"print ",
    b"exec ", b"global ", b"nonlocal ", b"with ", b"as ", b"if ", b"else:", b"elif ",
    b"for ", b"in ", b"while ", b"try:", b"except ", b"finally:", b"raise ", b"import ",
    b"from ", b"*", b"**", b"=", b":=", b"->", b"@", b"`", b"<>", b"0777", b"ur''", b"f'{x}'",
    b'f"{a!r:>{w}}"', b"f'{x=}'", b"rb''", b"u'\\xe9'", b"1j", b"0x", b"1e", b"...", b"None",
    b"tf.", b"tf.custom_gradient", b"@tf.custom_gradient\n", b"tf.RegisterGradient('G')",
    b"tf.Variable(1.0)", b"tf.get_variable('v', [])", b"tf.compat.v1.", b"tf.print",
    b"tf.GradientTape()", b"gradient_override_map({'Relu': 'G'})", b"grad_fn", b"variables=",
    b"tf.gradients", b"import tensorflow as tf\n", b"dy", b"self", b"super()",
    b"# noqa", b"# noqa: CG103", b"# noqa:CG1,CG3", b"# cglint: noqa", b"# cglint: noqa: CG3",
    b"# type: ignore", b"\t", b"    ", b"\x0c", b"\r", b"\r\n", b"\x00", b"\xef\xbb\xbf",
    b"\xff", b"\xc3\xa9", b"\xe2\x80\xa8", b"\xf0\x9f\x98\x80", b"\xed\xa0\x80",
)


def _lines(data):
    return data.splitlines(True) or [b""]


def _pos(rng, data):
    return rng.randint(0, len(data)) if data else 0


def m_flip(rng, data, seeds):
    if not data:
        return data
    index = rng.randrange(len(data))
    return data[:index] + bytes([data[index] ^ (1 << rng.randrange(8))]) + data[index + 1:]


def m_byte(rng, data, seeds):
    if not data:
        return data
    index = rng.randrange(len(data))
    return data[:index] + bytes([rng.randrange(256)]) + data[index + 1:]


def m_truncate(rng, data, seeds):
    return data[:_pos(rng, data)]


def m_nul(rng, data, seeds):
    index = _pos(rng, data)
    return data[:index] + b"\x00" + data[index:]


def m_random_bytes(rng, data, seeds):
    index = _pos(rng, data)
    return data[:index] + bytes(rng.randrange(256) for _ in range(rng.randint(1, 8))) + data[index:]


def m_delete(rng, data, seeds):
    start = _pos(rng, data)
    return data[:start] + data[start + rng.randint(1, 64):]


def m_duplicate(rng, data, seeds):
    start = _pos(rng, data)
    end = min(len(data), start + rng.randint(1, 200))
    return data[:end] + data[start:end] + data[end:]


def m_swap_lines(rng, data, seeds):
    lines = _lines(data)
    i, j = rng.randrange(len(lines)), rng.randrange(len(lines))
    lines[i], lines[j] = lines[j], lines[i]
    return b"".join(lines)


def m_delete_line(rng, data, seeds):
    lines = _lines(data)
    del lines[rng.randrange(len(lines))]
    return b"".join(lines)


def m_indent(rng, data, seeds):
    """Random indentation on random lines: more, less, tabs, spaces, a mix."""
    lines = _lines(data)
    for _ in range(rng.randint(1, 4)):
        i = rng.randrange(len(lines))
        body = lines[i].lstrip(b" \t")
        choice = rng.randrange(4)
        if choice == 0:
            indent = b" " * rng.randint(0, 17)
        elif choice == 1:
            indent = b"\t" * rng.randint(0, 3)
        elif choice == 2:
            indent = bytes(rng.choice(b" \t") for _ in range(rng.randint(1, 9)))
        else:
            indent = lines[i][:len(lines[i]) - len(body)].replace(b"        ", b"\t")
        lines[i] = indent + body
    return b"".join(lines)


def m_tabs(rng, data, seeds):
    """Every 8 (or 4) leading spaces become a tab, on all lines or a random half."""
    width = rng.choice((4, 8))
    every = rng.random() < 0.5
    out = []
    for line in _lines(data):
        if every or rng.random() < 0.5:
            body = line.lstrip(b" ")
            spaces = len(line) - len(body)
            line = b"\t" * (spaces // width) + b" " * (spaces % width) + body
        out.append(line)
    return b"".join(out)


def m_newlines(rng, data, seeds):
    kind = rng.choice((b"\r\n", b"\r", b"\n", b"mixed"))
    lines = [line.rstrip(b"\r\n") for line in _lines(data)]
    if kind == b"mixed":
        return b"".join(line + rng.choice((b"\r\n", b"\r", b"\n")) for line in lines)
    return kind.join(lines) + (kind if rng.random() < 0.8 else b"")


def m_bom(rng, data, seeds):
    return (b"\xef\xbb\xbf" + data) if not data.startswith(b"\xef\xbb\xbf") else data[3:]


def m_coding(rng, data, seeds):
    """A coding line naming some codec; half the time the text is re-encoded to match."""
    encoding = rng.choice(ENCODINGS)
    line = rng.choice(CODING_FORMS) % encoding.encode("latin-1")
    body = data
    if rng.random() < 0.5:
        try:
            body = data.decode("utf-8").encode(encoding.strip() or "utf-8")
        except (LookupError, UnicodeError, TypeError, ValueError):
            pass
    where = rng.randrange(3)  # first line, second line, or third (where it is ignored)
    lines = _lines(body)
    lines.insert(min(where, len(lines)), line + b"\n")
    return b"".join(lines)


def m_reencode(rng, data, seeds):
    """Add a non-ASCII comment and re-encode everything in another codec, cookie or not."""
    encoding = rng.choice(("latin-1", "cp1252", "shift_jis", "utf-16", "koi8-r", "utf-7"))
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        return data
    text = "# caf\xe9 \u0436 \u65e5\n" + text
    if rng.random() < 0.7:
        text = "# -*- coding: %s -*-\n" % encoding + text
    return text.encode(encoding, "replace")


def m_token(rng, data, seeds):
    index = _pos(rng, data)
    return data[:index] + rng.choice(TOKENS) + data[index:]


def m_token_line(rng, data, seeds):
    lines = _lines(data)
    i = rng.randrange(len(lines) + 1)
    body = b"".join(rng.choice(TOKENS) for _ in range(rng.randint(1, 6)))
    lines.insert(i, b" " * rng.choice((0, 0, 4, 8)) + body + b"\n")
    return b"".join(lines)


def m_splice(rng, data, seeds):
    other = rng.choice(seeds)
    return data[:_pos(rng, data)] + other[_pos(rng, other):]


def m_nest(rng, data, seeds):
    """Deep nesting of brackets, unary operators or blocks: recursion limits."""
    depth = rng.choice((50, 200, 1000, 3000))
    kind = rng.randrange(4)
    if kind == 0:
        piece = b"x = " + b"(" * depth + b"1" + b")" * depth + b"\n"
    elif kind == 1:
        piece = b"x = " + b"-" * depth + b"1\n"
    elif kind == 2:
        piece = b"x = " + b"a." * depth + b"b\n"
    else:
        depth = min(depth, 120)
        piece = b"".join(b" " * i + b"if x:\n" for i in range(depth)) + b" " * depth + b"pass\n"
    index = len(b"".join(_lines(data)[:rng.randint(0, len(_lines(data)))]))
    return data[:index] + piece + data[index:]


def _nodes(tree, kind):
    return [node for node in ast.walk(tree) if isinstance(node, kind)]


def m_ast(rng, data, seeds):
    """Grammar-aware: parse, move a subtree (statement, expression, argument list) from
    this or another seed into a random place, and unparse. Keeps most inputs valid Python,
    so they reach the rules instead of stopping at CG001."""
    try:
        tree = ast.parse(data)
        donor = ast.parse(rng.choice(seeds)) if rng.random() < 0.5 else tree
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return data
    choice = rng.randrange(5)
    if choice == 0:  # a statement list: delete, duplicate or import a statement
        bodies = [node.body for node in ast.walk(tree) if isinstance(getattr(node, "body", None), list) and node.body]
        if not bodies:
            return data
        body = rng.choice(bodies)
        action = rng.randrange(3)
        index = rng.randrange(len(body))
        if action == 0 and len(body) > 1:
            del body[index]
        elif action == 1:
            body.insert(index, copy.deepcopy(body[index]))
        else:
            statements = _nodes(donor, ast.stmt)
            body.insert(index, copy.deepcopy(rng.choice(statements)))
    elif choice == 1:  # an expression replaced by another one
        targets = [(node, name) for node in ast.walk(tree) for name, value in ast.iter_fields(node)
                   if isinstance(value, ast.expr) and not isinstance(value, (ast.Name, ast.Starred))
                   or isinstance(value, ast.Name) and isinstance(value.ctx, ast.Load)]
        donors = [node for node in _nodes(donor, ast.expr) if not isinstance(node, ast.Starred)
                  and not (isinstance(node, ast.Name) and not isinstance(node.ctx, ast.Load))]
        if not targets or not donors:
            return data
        node, name = rng.choice(targets)
        setattr(node, name, copy.deepcopy(rng.choice(donors)))
    elif choice == 2:  # a call's arguments: drop, duplicate, or make one a keyword
        calls = _nodes(tree, ast.Call)
        if not calls:
            return data
        call = rng.choice(calls)
        if call.args and rng.random() < 0.4:
            del call.args[rng.randrange(len(call.args))]
        elif call.args and rng.random() < 0.5:
            value = call.args.pop(rng.randrange(len(call.args)))
            call.keywords.append(ast.keyword(arg=rng.choice(("x", "scale", "name", "grad_ys")), value=value))
        else:
            call.args.append(ast.Constant(rng.choice((None, 1, 2.0, "s", True))))
    elif choice == 3:  # a returned tuple grows or shrinks
        returns = [node for node in _nodes(tree, ast.Return) if isinstance(node.value, ast.Tuple)]
        lambdas = [node for node in _nodes(tree, ast.Lambda) if isinstance(node.body, ast.Tuple)]
        tuples = [node.value for node in returns] + [node.body for node in lambdas]
        if not tuples:
            return data
        elts = rng.choice(tuples).elts
        if elts and rng.random() < 0.5:
            del elts[rng.randrange(len(elts))]
        else:
            elts.append(copy.deepcopy(rng.choice(elts)) if elts else ast.Name("dy", ast.Load()))
    else:  # a function's parameters: drop one, add one, or add *args/**kwargs
        functions = _nodes(tree, (ast.FunctionDef, ast.Lambda))
        if not functions:
            return data
        arguments = rng.choice(functions).args
        action = rng.randrange(3)
        if action == 0 and arguments.args:
            del arguments.args[rng.randrange(len(arguments.args))]
            arguments.defaults = arguments.defaults[-len(arguments.args):] if arguments.args else []
        elif action == 1:
            arguments.args.append(ast.arg(rng.choice(("dy", "extra", "variables", "self"))))
            arguments.defaults = []
        else:
            arguments.vararg = ast.arg("args")
            arguments.kwarg = ast.arg(rng.choice(("kwargs", "variables")))
    try:
        return ast.unparse(ast.fix_missing_locations(tree)).encode("utf-8") + b"\n"
    except Exception:  # an impossible combination: keep the input as it was
        return data


MUTATIONS = (
    m_flip, m_byte, m_truncate, m_nul, m_random_bytes, m_delete, m_duplicate, m_swap_lines,
    m_delete_line, m_indent, m_tabs, m_newlines, m_bom, m_coding, m_reencode, m_token,
    m_token_line, m_token_line, m_splice, m_nest,
) + (m_ast,) * 12  # grammar-aware mutations keep inputs parseable, so the rules run


def mutate(rng, data, seeds, steps=None):
    """`data` with 1-8 random mutations stacked; `rng` decides everything."""
    for _ in range(steps or rng.choice((1, 1, 2, 2, 3, 4, 8))):
        mutation = rng.choice(MUTATIONS)
        try:
            data = mutation(rng, data, seeds)
        except RecursionError:  # m_ast on a deeply nested input: keep it as it is
            pass
    return data


def load_seeds(folder=None):
    """Bytes of every *.py under fixtures/ (sorted by path, so seeds are stable)."""
    folder = folder or os.path.join(REPO, "fixtures")
    paths = []
    for root, dirs, names in os.walk(folder):
        dirs.sort()
        paths += [os.path.join(root, name) for name in sorted(names) if name.endswith(".py")]
    seeds = []
    for path in paths:
        with open(path, "rb") as handle:
            seeds.append(handle.read())
    return seeds


def make_input(seeds, master_seed, number):
    rng = random.Random("%d/%d" % (master_seed, number))
    return mutate(rng, rng.choice(seeds), seeds)


# --------------------------------------------------------------------------- the oracle

class FuzzFailure(AssertionError):
    pass


_OPTION_SETS = None


def option_sets():
    global _OPTION_SETS
    if _OPTION_SETS is None:
        from cglint import engine

        _OPTION_SETS = (engine.Options(),
                        engine.Options(target_python=(3, 6), report_unused_noqa=True))
    return _OPTION_SETS


def check_input(data, path="fuzz.py"):
    """Raise (FuzzFailure or the linter's own exception) when cglint mishandles `data`."""
    from cglint import autofix, check, engine, files, parse, suppress
    from cglint.fix import encode_like

    codes = set(engine.rules())
    loaded = files.decode(path, data)
    for options in option_sets():
        result = check.check_bytes(path, data, options)
        if result.error:
            raise FuzzFailure("internal error: %s\n%s" % (result.error, _where(loaded, options)))
        if isinstance(loaded, files.Unreadable):
            found = {d.code for d in result.diagnostics}
            if found != {"CG002"}:
                raise FuzzFailure("undecodable input gave %s, not CG002" % sorted(found))
            continue
        line_count = loaded.text.count("\n") + 1
        if suppress.scan(loaded.text) is suppress.NONE:  # no noqa can hide a CG001
            parsed = parse.parse(loaded.text, options.target_python)
            found = {d.code for d in result.diagnostics}
            if (parsed.tree is None or parsed.error) and "CG001" not in found:
                raise FuzzFailure("input does not parse but gave %s, not CG001" % sorted(found))
            # The one CG001 a parsed file may get: the analysis itself recursed too deep.
            if parsed.error is None and any(
                    d.code == "CG001" and "too deeply nested" not in d.message
                    for d in result.diagnostics):
                raise FuzzFailure("CG001 on an input that parses")
        for d in result.diagnostics:
            if d.code not in codes:
                raise FuzzFailure("unknown code %s" % d.code)
            if not (1 <= d.line <= line_count + 1 and d.col >= 1):
                raise FuzzFailure("position outside the file: %r" % (d,))
        for d in check.finish([result], lambda _: options)[0].diagnostics:
            if d.code not in codes:
                raise FuzzFailure("unknown code %s" % d.code)
        if result.fixes:
            fixed = autofix.fix_text(path, loaded.text, options, result)
            if fixed.text != loaded.text:
                if not autofix._parses(fixed.text, options):
                    raise FuzzFailure("autofix made a file that does not parse")
                try:
                    encode_like(fixed.text, data)
                except UnicodeError as error:
                    raise FuzzFailure("fixed text does not re-encode: %s" % error)
            if fixed.result.error:
                raise FuzzFailure("internal error after fixing: %s" % fixed.result.error)


def _where(loaded, options):
    """The traceback behind an internal error, which engine.lint_text keeps to itself."""
    from cglint import engine

    try:
        engine._lint(engine.Result("fuzz.py"), loaded.text, options, engine.enabled(options))
    except Exception:
        return traceback.format_exc()
    return ""


def check_cli(inputs, folder):
    """Run the command line over a folder of inputs: exit 0 or 1, no internal error."""
    from cglint import cli

    os.makedirs(folder, exist_ok=True)
    for number, data in inputs:
        with open(os.path.join(folder, "f%d.py" % number), "wb") as handle:
            handle.write(data)
    out, err = io.StringIO(), io.StringIO()
    saved = sys.stdout, sys.stderr
    sys.stdout, sys.stderr = out, err
    try:
        code = cli.main(["--no-cache", "--jobs", "1", "--quiet", "--report-unused-noqa", folder])
    finally:
        sys.stdout, sys.stderr = saved
    if code not in (0, 1) or "internal error" in err.getvalue():
        raise FuzzFailure("cli exited %s: %s" % (code, err.getvalue()[-2000:]))


# ------------------------------------------------------------------------------ driver

class Slow(Exception):
    pass


def _alarm(signum, frame):
    raise Slow()


def work(task):
    """In a worker: check inputs start..end. Returns (inputs checked, known, failure):
    known lists (number, pattern) of failures matching a --known pattern, failure is
    (number, text) of the first other failure, or None."""
    master_seed, start, end, slow, cli_every, seeds_folder, known_patterns = task
    seeds = _worker_seeds(seeds_folder)
    signal.signal(signal.SIGALRM, _alarm)
    warnings.simplefilter("ignore")  # ast.parse in m_ast warns about odd escapes
    batch, known = [], []
    for number in range(start, end):
        data = make_input(seeds, master_seed, number)
        signal.setitimer(signal.ITIMER_REAL, slow)
        try:
            check_input(data)
        except Slow:
            return number - start, known, (number, "slow: one check took over %gs" % slow)
        except ImportError as error:  # this interpreter lacks a dependency: not a crash
            return number - start, known, (number, ENVIRONMENT + str(error))
        except BaseException:
            text = traceback.format_exc()
            pattern = next((p for p in known_patterns if re.search(p, text)), None)
            if pattern is None:
                return number - start, known, (number, text)
            known.append((number, pattern))
            continue
        finally:
            signal.setitimer(signal.ITIMER_REAL, 0)
        batch.append((number, data))
    if cli_every and (start // (end - start or 1)) % cli_every == 0:
        folder = tempfile.mkdtemp(prefix="cglint-fuzz-cli-")
        try:
            check_cli(batch, folder)
        except BaseException:
            return end - start, known, (start, "cli batch %d..%d: %s" % (
                start, end - 1, traceback.format_exc()))
        finally:
            shutil.rmtree(folder, ignore_errors=True)
    return end - start, known, None


_SEEDS = {}


def _worker_seeds(folder):
    if folder not in _SEEDS:
        _SEEDS[folder] = load_seeds(folder)
    return _SEEDS[folder]


def save_crash(out, number, data, failure, master_seed):
    os.makedirs(out, exist_ok=True)
    base = os.path.join(out, "crash-%d-%d" % (master_seed, number))
    with open(base + ".py", "wb") as handle:
        handle.write(data)
    with open(base + ".txt", "w") as handle:
        handle.write("seed %d input %d\n%s\n" % (master_seed, number, failure))
    return base + ".py"


ENVIRONMENT = "environment error: "
# What the per-file check imports only when an input needs it (Python 2 sources): import
# it first, so a missing one is reported before the first input, whatever the inputs.
LAZY_DEPENDENCIES = ("fissix.refactor", "fissix.pgen2.tokenize", "six")


def environment_problem():
    """A message when cglint or a dependency cannot be imported by this interpreter."""
    import importlib

    for name in ("cglint.check", "cglint.autofix") + LAZY_DEPENDENCIES:
        try:
            importlib.import_module(name)
        except ImportError as error:
            return ("%s%s, needed by cglint, cannot be imported by %s: %s (run with the "
                    "interpreter cglint is installed in, e.g. .venv/bin/python bench/fuzz.py)"
                    % (ENVIRONMENT, name.split(".")[0], sys.executable, error))
    return None


def run(args):
    problem = environment_problem()
    if problem:
        sys.stderr.write(problem + "\n")
        return 2
    seeds = load_seeds(args.seeds)
    if not seeds:
        sys.exit("no seeds under %s" % args.seeds)
    chunk = args.chunk
    tasks = [(args.seed, start, min(start + chunk, args.start + args.count), args.slow,
              args.cli_every, args.seeds, tuple(args.known))
             for start in range(args.start, args.start + args.count, chunk)]
    done, started, tally = 0, time.time(), {}
    context = multiprocessing.get_context("fork")
    with context.Pool(args.jobs, maxtasksperchild=50) as pool:
        for count, known, failure in pool.imap_unordered(work, tasks):
            done += count
            for number, pattern in known:
                if pattern not in tally:
                    data = make_input(seeds, args.seed, number)
                    save_crash(args.out, number, data, "known: " + pattern, args.seed)
                tally.setdefault(pattern, []).append(number)
            if failure is not None and failure[1].startswith(ENVIRONMENT):
                pool.terminate()
                sys.stderr.write(failure[1] + "\n")
                return 2
            if failure is not None:
                number, text = failure
                data = make_input(seeds, args.seed, number)
                path = save_crash(args.out, number, data, text, args.seed)
                pool.terminate()
                print("CRASH after %d inputs: input %d (seed %d) saved to %s\n%s" % (
                    done, number, args.seed, path, text))
                _print_known(tally)
                return 1
            if args.progress and done % (chunk * 20) == 0:
                rate = done / max(time.time() - started, 1e-9)
                sys.stderr.write("%d inputs, %.0f/s\n" % (done, rate))
    seconds = time.time() - started
    print("OK: %d inputs (seed %d, inputs %d..%d), no %scrash, %.0f s on %d processes "
          "(%.0f inputs/s)" % (done, args.seed, args.start, args.start + args.count - 1,
                               "new " if tally else "", seconds, args.jobs,
                               done / max(seconds, 1e-9)))
    _print_known(tally)
    return 0


def _print_known(tally):
    for pattern, numbers in sorted(tally.items()):
        print("known failure %r: %d inputs, first %d" % (pattern, len(numbers), min(numbers)))


def replay(path):
    with open(path, "rb") as handle:
        data = handle.read()
    check_input(data)
    print("no failure on %s" % path)
    return 0


def run_atheris(argv):
    """Coverage-guided fuzzing of decode + parse + resolve + rules (+ autofix) with
    atheris. Extra arguments go to libFuzzer (-runs=N, -max_total_time=S, a corpus
    folder); without a corpus folder, the fixtures are the starting corpus."""
    import atheris

    with atheris.instrument_imports(include=["cglint"]):
        from cglint import autofix, check, engine, fix, parse, suppress  # noqa: F401

        engine.rules()  # the rules are imported lazily: here, so they are instrumented
    seeds = load_seeds()
    if not any(not arg.startswith("-") for arg in argv):
        corpus = tempfile.mkdtemp(prefix="cglint-atheris-")
        for number, data in enumerate(seeds):
            with open(os.path.join(corpus, "seed%03d.py" % number), "wb") as handle:
                handle.write(data)
        argv = argv + [corpus]

    def one(data):
        # Inputs starting with NUL seed a random stack of the mutations above (they reach
        # the rules more often); the others are linted as they are.
        if data[:1] == b"\x00" and len(data) > 4:
            rng = random.Random(data[1:])
            data = mutate(rng, rng.choice(seeds), seeds)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            check_input(data)

    atheris.Setup([sys.argv[0]] + argv, one)
    atheris.Fuzz()


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["--atheris"]:
        return run_atheris(argv[1:])
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--count", type=int, default=100000, help="inputs to try (100000)")
    parser.add_argument("--start", type=int, default=0, help="first input number (0)")
    parser.add_argument("--seed", type=int, default=0, help="master seed (0)")
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--chunk", type=int, default=100, help="inputs per task (100)")
    parser.add_argument("--slow", type=float, default=20.0,
                        help="seconds one input may take before it counts as a hang (20)")
    parser.add_argument("--cli-every", type=int, default=10,
                        help="run every Nth chunk through the command line as well (10; 0: never)")
    parser.add_argument("--seeds", default=os.path.join(REPO, "fixtures"),
                        help="folder of seed *.py files (fixtures/)")
    parser.add_argument("--out", default=os.path.join(tempfile.gettempdir(), "cglint-fuzz"),
                        help="where a crashing input is written")
    parser.add_argument("--replay", metavar="FILE", help="check one saved input and exit")
    parser.add_argument("--progress", action="store_true", help="print a rate line now and then")
    parser.add_argument("--known", action="append", default=[], metavar="REGEX",
                        help="a failure whose traceback matches REGEX is counted (first one "
                             "saved) and the run goes on: for a bug already reported")
    args = parser.parse_args(argv)
    if args.replay:
        return replay(args.replay)
    return run(args)


if __name__ == "__main__":
    sys.exit(main())
