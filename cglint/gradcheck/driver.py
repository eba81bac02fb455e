"""Check one custom-gradient function numerically, inside a TF 1.8 interpreter.

Runs under Python 2.7 and 3.6 as the program of an oracle job (harness.py runs it as
__main__, in graph mode or after tf.enable_eager_execution()); it never imports cglint.
sys.argv[1] is a JSON job:
  {"module": "/abs/user.py", "call": "clipped_relu", "params": [...], "lines": [10, 11],
   "mode": "graph", "seed": 0, "atol": 0.0, "rtol": 1e-3, "max_probes": 200}
where each param is {"name": "x", "kind": "shape" | "number" | "expr" | "auto", "value": ...}
and "lines" are the first (decorator) and the def line of the function meant.
The answer goes to $CGLINT_PAYLOAD_FILE as JSON, rewritten after each stage, so a run
that dies (a crash, a timeout, os._exit in the user's module) still says how far it got.

Two passes: first as the user runs it (float32 tensors, Python numbers as numbers), which
must not raise; then the custom gradient of sum(y * r), r a random upstream gradient,
against central differences at float64 (float32 when the function only takes float32),
with respect to the array inputs only: a Python number is a fixed hyperparameter, passed
as in the first pass (see fixed_argument).
"""
from __future__ import absolute_import, division, print_function

import io
import json
import os
import re
import sys
import traceback

MESSAGE_CAP = 2000
# TF's errors for inputs of shapes an op does not take (the words of its shape functions
# and kernels; "shape=" is the repr of any tensor, so not one of them)
SHAPE_ERROR = re.compile(r"dimension|shapes?\b(?!=)|\brank\b|size-incompatible|"
                         r"out of (?:range|bounds)|must be \d-?D\b|-dimensional", re.I)
EPSILON = {"float64": 1e-6, "float32": 1e-2}
# tf.gradients' check of a gradient's shape; the op's inputs are the custom-gradient
# function's flat outputs, then its arguments
INCOMPATIBLE_GRADIENT = re.compile(
    r"Forward operation: (?P<op>\S+)\.\s+Input index: (?P<index>\d+)\.\s+Original input shape: "
    r"(?P<input>.*?)\.\s+Calculated input gradient shape: (?P<gradient>[^\n]*)")
# Rounding error of an output, in units of its precision, that the comparison allows for:
# each output carries a few from every op that made it.
ROUNDING = 100
# Central differences at float32 are only good to about 1e-3 of the value (the rounding
# allowance scales with the precision by itself, so no absolute floor).
FLOAT32_TOLERANCE = (0.0, 1e-2)


class Stop(Exception):
    """Ends the check with a verdict (status, stage, message)."""

    def __init__(self, status, stage, message, exception="", note=""):
        Exception.__init__(self, message)
        self.status, self.stage, self.message = status, stage, message
        self.exception = exception  # the class name of the error that stopped it
        self.note = note  # said besides the verdict (the inputs it was reached with)
        self.detail = ""  # the message in the words eager's comparison uses, when it has one


def describe_error(exc):
    """`Type: message`, cut to MESSAGE_CAP (TF's messages embed whole node_defs)."""
    try:
        message = str(exc)
    except Exception:
        message = repr(exc)
    message = ("%s: %s" % (type(exc).__name__, message.strip())) if message.strip() else type(exc).__name__
    return message[:MESSAGE_CAP]


def user_frame(trace, module_path):
    """`file:line` of the innermost traceback frame in the user's module, or ""."""
    found = ""
    for filename, line, _, _ in traceback.extract_tb(trace):
        if os.path.abspath(filename) == module_path:
            found = "line %d" % line
    return found


class Payload(object):
    def __init__(self, path, mode):
        self.path = path
        self.answer = {"mode": mode, "stage": "start"}

    def update(self, **fields):
        self.answer.update(fields)
        if not self.path:
            return
        partial = self.path + ".tmp"
        with open(partial, "w") as handle:
            json.dump(self.answer, handle)
        os.rename(partial, self.path)


def package_root(path):
    """(the folder to import from, the module's dotted name): the folder above its
    outermost package (the folders with an __init__.py), as `python -c "import
    mypkg.ops"` from the project would import it; its own folder and bare name outside a
    package."""
    folder, filename = os.path.split(path)
    parts = [os.path.splitext(filename)[0]]
    while os.path.isfile(os.path.join(folder, "__init__.py")):
        folder, package = os.path.split(folder)
        parts.insert(0, package)
    return folder, ".".join(parts)


class Tee(object):
    """sys.stderr during the import, kept as well as written: argparse's message before
    its SystemExit."""

    def __init__(self, stream):
        self.stream, self.kept = stream, []

    def write(self, text):
        self.kept.append(text)
        return self.stream.write(text)

    def __getattr__(self, name):
        return getattr(self.stream, name)


def import_module(path):
    """The user's module, imported as its project would: by its dotted name with the
    folder above its package first on sys.path (relative and package imports work), or,
    outside a package, by path under its own name (a module named random.py is still
    the user's); its own folder on sys.path too, for sibling imports."""
    root, dotted = package_root(path)
    folder = os.path.dirname(path)
    sys.path[:0] = [root] + ([folder] if folder != root else [])
    if "." in dotted:
        __import__(dotted)
        return sys.modules[dotted]
    if sys.version_info[0] == 2:
        import imp
        return imp.load_source(dotted, path)
    import importlib.util
    spec = importlib.util.spec_from_file_location(dotted, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[dotted] = module
    spec.loader.exec_module(module)
    return module


def import_failure(exc, trace, module_path, stderr):
    """Why the import failed, with the module's line and, for a SystemExit, what the
    module wrote to stderr before it (argparse's usage error)."""
    where = user_frame(trace, module_path)
    message = "the module failed to import%s: %s" % (" (%s)" % where if where else "", describe_error(exc))
    if isinstance(exc, (ImportError, IOError, OSError)) and module_path.startswith("/tmp/"):
        message += ("; the sandbox hides /tmp but for the module's package or project folder "
                    "(setup.py, pyproject.toml, .git...)")
    if isinstance(exc, SystemExit):
        said = [line.strip() for line in "".join(stderr).splitlines() if line.strip()]
        message = "the module exits while being imported%s: sys.exit(%r)%s" % (
            " (%s)" % where if where else "", exc.code, " after writing: %s" % said[-1] if said else "")
    return message


def attribute(module, dotted):
    """module.A.b for "A.b" (a staticmethod of a class), or None."""
    found = module
    for name in dotted.split("."):
        found = getattr(found, name, None)
    return found


def defined_on(fn, module_path):
    """(first line, def line) of the innermost function of the module's file that `fn`
    wraps (through tf.custom_gradient's wrapper, functools.wraps), or None. The first line
    is the code's, which starts at the first decorator."""
    found, seen = None, 0
    while fn is not None and seen < 50:
        code = getattr(fn, "__code__", None)
        if code is not None and os.path.realpath(code.co_filename) == os.path.realpath(module_path):
            found = code
        inner = getattr(getattr(fn, "_tf_decorator", None), "decorated_target", None)
        fn = inner if inner is not None else getattr(fn, "__wrapped__", None)
        seen += 1
    if found is None:
        return None
    first = def_line = found.co_firstlineno
    if found.co_name != "<lambda>":
        pattern = re.compile(r"\bdef\s+%s\b" % re.escape(found.co_name))
        try:
            with io.open(module_path, encoding="utf-8", errors="replace") as handle:
                lines = handle.read().splitlines()
        except (IOError, OSError, UnicodeError):
            lines = []
        for number in range(first, min(first + 50, len(lines)) + 1):
            if pattern.search(lines[number - 1]):
                def_line = number
                break
    return first, def_line


def balanced_normal(np, state, shape):
    """Standard-normal magnitudes with as many negative signs as positive ones, in random
    places: a plain draw of 5 values is all positive one time in 32, and kinks at 0
    (relu, abs, clipping) are where custom gradients most often go wrong."""
    magnitudes = np.abs(state.standard_normal(shape))
    size = magnitudes.size
    signs = np.where(np.arange(size) < size // 2, -1.0, 1.0)
    state.shuffle(signs)
    return magnitudes * signs.reshape(shape)


def build_inputs(np, params, automatic_shapes, seed):
    """(values, kinds): float64 arrays for shapes (automatic_shapes in turn for the
    parameters without a spec), numbers as given, expressions evaluated."""
    state = np.random.RandomState(seed)
    np.random.seed(seed)  # expressions such as np.random.uniform(...) are reproducible too
    values, kinds = [], []
    automatic = iter(automatic_shapes or ())
    for param in params:
        kind, value = param["kind"], param.get("value")
        if kind == "auto":
            kind, value = "shape", next(automatic)
        if kind == "shape":
            values.append(balanced_normal(np, state, tuple(value)))
            kinds.append("array")
        elif kind == "number":
            values.append(value)
            kinds.append("number")
        else:
            try:
                built = eval(value, {"np": np, "numpy": np})
            except Exception as exc:
                raise Stop("no-inputs", "inputs", "parameter `%s`: cannot evaluate %s: %s" % (
                    param["name"], value, describe_error(exc)))
            if isinstance(built, (list, tuple)):
                try:
                    built = np.asarray(built)
                except Exception:
                    pass
            if isinstance(built, np.ndarray) and built.dtype.kind == "f":
                values.append(built.astype(np.float64))
                kinds.append("array")
            elif isinstance(built, float) and not isinstance(built, bool):
                values.append(built)
                kinds.append("number")
            else:
                values.append(built)
                kinds.append("constant")
    return values, kinds


def flatten_outputs(tf, outputs):
    from tensorflow.python.util import nest
    flat = nest.flatten(outputs)
    floats = [t for t in flat if hasattr(t, "dtype") and tf.as_dtype(t.dtype).is_floating]
    if not floats:
        raise Stop("error", "call", "the function returns no floating-point tensor to differentiate")
    return floats


def projected(tf, outputs, upstream):
    """sum(y * r) over the outputs: its gradient is the vector-Jacobian product with r."""
    return tf.add_n([tf.reduce_sum(o * tf.constant(r, dtype=o.dtype)) for o, r in zip(outputs, upstream)])


def require_dtype(outputs, dtype):
    """A function that casts to another precision cannot be checked at this one."""
    found = sorted(set(o.dtype.base_dtype.name for o in outputs))
    if found != [dtype.name]:
        raise TypeError("outputs are %s" % ", ".join(found))


def session_config(tf):
    # Small inputs: TF's default pools (a thread per core, per session) cost more to start
    # than they save, and runs share the machine.
    return tf.ConfigProto(intra_op_parallelism_threads=1, inter_op_parallelism_threads=1)


def upstream_ops(tensors):
    """Every op that `tensors` are computed from."""
    seen, todo = set(), [t.op for t in tensors]
    while todo:
        op = todo.pop()
        if op in seen:
            continue
        seen.add(op)
        todo.extend(t.op for t in op.inputs)
    return seen


class GraphBackend(object):
    """Builds in the graph the module's own tensors live in (the default graph at import:
    a module-level tf.constant or tf.Variable is usable there and nowhere else), with
    placeholders, and evaluates by feeding. Its variables are initialized in each
    session, as the user's training script would."""

    def __init__(self, tf, np, names):
        self.tf, self.np, self.names = tf, np, names
        self.graph = tf.get_default_graph()
        # trainable variables the outputs depend on but get no gradient: {"inside": names
        # the call made, "outside": names it reads (module-level ones)}
        self.ungraded = {}

    def initialize(self, sess):
        tf = self.tf
        sess.run([tf.global_variables_initializer(), tf.local_variables_initializer()])

    def user_pass(self, fn, values, kinds, upstream_state):
        tf = self.tf
        self.ungraded = {}
        with self.graph.as_default():
            args = [tf.constant(v.astype(self.np.float32)) if k == "array" else v
                    for v, k in zip(values, kinds)]
            before = set(tf.trainable_variables())
            y = run_stage("call", lambda: fn(*args))
            outputs = flatten_outputs(tf, y)
            used = upstream_ops(outputs)
            variables = [v for v in tf.trainable_variables() if v.op in used]
            with tf.Session(config=session_config(tf)) as sess:
                run_stage("forward", lambda: self.initialize(sess))
                forward = run_stage("forward", lambda: sess.run(outputs))
                upstream = [upstream_state.standard_normal(v.shape) for v in forward]
                target = projected(tf, outputs, upstream)
                sources = arrays_of(args, kinds)
                try:
                    grads = run_stage("tf.gradients", lambda: tf.gradients(target, sources + variables))
                except Stop as stop:
                    raise self.named(stop, y)
                present = [g for g in grads if g is not None]
                run_stage("gradient run", lambda: sess.run(present))
        for variable, grad in zip(variables, grads[len(sources):]):
            if grad is None:
                where = "outside" if variable in before else "inside"
                self.ungraded.setdefault(where, []).append(variable.op.name)
        return upstream

    def named(self, stop, y):
        """`stop`, its message naming the parameter whose gradient has the wrong shape
        when it is TF's "Incompatible shapes ... Input index: 3" for the op the call made."""
        from tensorflow.python.util import nest
        flat = nest.flatten(y)
        match = INCOMPATIBLE_GRADIENT.search(stop.message)
        made = getattr(flat[0], "op", None) if flat else None
        if match is None or made is None or match.group("op") != made.name:
            return stop
        index = int(match.group("index")) - len(flat)
        if not 0 <= index < len(self.names):
            return stop
        stop.detail = "gradient of `%s` has shape %s for an input of shape %s" % (
            self.names[index], match.group("gradient").strip(), match.group("input"))
        stop.message = "%s (%s)" % (stop.detail, stop.message)
        return stop

    def check_pass(self, fn, values, kinds, upstream, dtype):
        """(analytic gradients, f(arrays) -> the outputs) for the array inputs."""
        tf, np = self.tf, self.np
        with self.graph.as_default():
            holders, args = [], []
            for value, kind in zip(values, kinds):
                if kind == "array":
                    holder = tf.placeholder(dtype, np.shape(value))
                    holders.append(holder)
                    args.append(holder)
                else:
                    args.append(fixed_argument(tf, value, kind, dtype))
            # A second call in the same graph: tf.get_variable inside the function takes
            # the variable the user pass made, instead of raising "already exists".
            with tf.variable_scope(tf.get_variable_scope(), reuse=tf.AUTO_REUSE):
                outputs = flatten_outputs(tf, fn(*args))
            require_dtype(outputs, dtype)
            target = projected(tf, outputs, upstream)
            grads = tf.gradients(target, holders)
            sess = tf.Session(graph=self.graph, config=session_config(tf))  # lives as long as evaluate()
            self.initialize(sess)
        arrays = arrays_of(values, kinds)
        feed = dict(zip(holders, arrays))
        present = [g for g in grads if g is not None]
        computed = iter(sess.run(present, feed))
        analytic = [None if g is None else next(computed) for g in grads]

        def evaluate(points):
            return [np.asarray(o, dtype=np.float64) for o in sess.run(outputs, dict(zip(holders, points)))]
        return analytic, evaluate


class EagerBackend(object):
    """Calls the function directly; gradients from a tape watching every tensor input."""

    def __init__(self, tf, np):
        self.tf, self.np = tf, np
        self.ungraded = {}

    def user_pass(self, fn, values, kinds, upstream_state):
        tf = self.tf
        args = [tf.constant(v.astype(self.np.float32)) if k == "array" else v
                for v, k in zip(values, kinds)]
        sources = arrays_of(args, kinds)
        with tf.GradientTape() as tape:
            for source in sources:
                tape.watch(source)
            y = run_stage("call", lambda: fn(*args))
            outputs = flatten_outputs(tf, y)
            upstream = [upstream_state.standard_normal(tuple(o.shape.as_list())) for o in outputs]
            target = projected(tf, outputs, upstream)
        run_stage("tape.gradient", lambda: tape.gradient(target, sources))
        return upstream

    def check_pass(self, fn, values, kinds, upstream, dtype):
        tf, np = self.tf, self.np
        where = [i for i, k in enumerate(kinds) if k == "array"]

        def arguments(points):
            args = list(values)  # numbers stay Python numbers, as eager mode passes them on
            for i, point in zip(where, points):
                args[i] = tf.constant(point, dtype=dtype)
            return args

        args = arguments([values[i] for i in where])
        sources = [args[i] for i in where]
        with tf.GradientTape() as tape:
            for source in sources:
                tape.watch(source)
            outputs = flatten_outputs(tf, fn(*args))
            require_dtype(outputs, dtype)
            target = projected(tf, outputs, upstream)
        grads = tape.gradient(target, sources)
        analytic = [None if g is None else g.numpy() for g in grads]

        def evaluate(points):
            outputs = flatten_outputs(tf, fn(*arguments(points)))
            return [np.asarray(o.numpy(), dtype=np.float64) for o in outputs]
        return analytic, evaluate


def arrays_of(items, kinds):
    """The items that stand for array inputs (kinds from build_inputs), in order: what is
    differentiated; numbers and expressions' other values are not."""
    return [item for item, kind in zip(items, kinds) if kind == "array"]


def fixed_argument(tf, value, kind, dtype):
    """A graph-mode argument that is not differentiated. TF 1.8's graph-mode
    custom_gradient makes every argument a tensor itself: an int an int32 one, as in the
    user's run (so tf.reshape(x, [groups, -1]) works); a float a float32 one, which would
    not mix with float64 arrays, so it is made at the check's precision instead, as the
    arrays are."""
    if kind == "number" and isinstance(value, float):
        return tf.constant(value, dtype=dtype)
    return value


def run_stage(stage, action):
    try:
        return action()
    except Stop:
        raise
    except Exception as exc:
        raise Stop("error", stage, describe_error(exc), type(exc).__name__)


def probe_indices(np, size, max_probes, seed):
    """The flat indices to probe: all of them for small inputs, else a seeded random
    sample (a regular stride misses whole columns: every odd one of an [N, 4] layout)."""
    if size <= max_probes:
        return np.arange(size)
    return np.sort(np.random.RandomState(seed).choice(size, max_probes, replace=False))


def numeric_gradient(np, evaluate, upstream, points, index, epsilon, max_probes, seed, dtype):
    """Central differences of sum(y * r) with respect to points[index], at up to max_probes
    elements (all of them for small inputs): (gradient, noise, probed flat indices).

    The outputs are differenced element by element before they are weighted and summed:
    an output the probed element does not move cancels exactly, instead of adding its
    rounding error (exp(10 x) reaches 5e9 in one element and would drown the derivative
    of every other). `noise` is what rounding can still put in each estimate: ROUNDING
    units of the precision in every output that moved, over the step."""
    unit = np.finfo(dtype).eps
    base = np.asarray(points[index], dtype=np.float64)
    size = base.size
    probed = probe_indices(np, size, max_probes, seed)
    gradient = np.full(size, np.nan)
    noise = np.full(size, np.nan)
    for flat in probed:
        step = epsilon * max(1.0, abs(base.flat[flat]))
        shifted = []
        for sign in (1.0, -1.0):
            moved = base.copy()
            moved.flat[flat] += sign * step
            trial = list(points)
            trial[index] = moved if moved.shape else float(moved)
            shifted.append(evaluate(trial))
        change, size_moved, size_all = 0.0, 0.0, 0.0
        for plus, minus, r in zip(shifted[0], shifted[1], upstream):
            with np.errstate(invalid="ignore"):
                moved_here = plus != minus
            weighed = np.maximum(np.abs(plus), np.abs(minus)) * np.abs(r)
            change += np.sum(((plus - minus) * r)[moved_here])
            size_moved += np.sum(weighed[moved_here])
            size_all += np.sum(weighed)
            if np.isnan(plus).any() or np.isnan(minus).any():
                change = np.nan
        gradient[flat] = change / (2.0 * step)
        # When no output moved, the derivative is below what the outputs can resolve (a
        # softmax tail at float32), not necessarily 0: one unit of every output, over the step.
        noise[flat] = unit * (ROUNDING * size_moved if size_moved else size_all) / step
    return gradient.reshape(base.shape), noise.reshape(base.shape), probed


def nice_threshold(np, low, high):
    """The roundest number t with low <= t < high (0 when it fits)."""
    if low <= 0.0 < high:
        return 0.0
    for digits in range(0, 7):
        candidate = np.ceil(low * 10 ** digits) / 10 ** digits
        if low <= candidate < high:
            return float(candidate)
    return float(low)


def fmt(value):
    return "%.3g" % value


def locate(np, bad, variables):
    """Where the error mask `bad` lies, as a partition of one input's values (or "")."""
    if bad.all():
        return "everywhere"
    if bad.sum() < 2 or (~bad).sum() < 2:
        return ""
    for label, values in variables:
        inside, outside = values[bad], values[~bad]
        if inside.max() < outside.min():
            t = nice_threshold(np, inside.max(), outside.min())
            return "where %s <= %s, matches where %s > %s" % (label, fmt(t), label, fmt(t))
        if inside.min() > outside.max():
            t = nice_threshold(np, outside.max(), inside.min())
            return "where %s > %s, matches where %s <= %s" % (label, fmt(t), label, fmt(t))
    return ""


def index_text(np, shape, flat):
    if not shape:
        return ""
    return "[%s]" % ", ".join(str(int(i)) for i in np.unravel_index(flat, shape))


def compare(np, names, values, kinds, analytic, numeric, atol, rtol, unit):
    """Per array input: errors, and the mismatch message when it differs.
    `unit` is the precision of the check's dtype (np.finfo(dtype).eps)."""
    where = [i for i, k in enumerate(kinds) if k == "array"]
    report = []
    for slot, i in enumerate(where):
        name, num, noise, probed = names[i], numeric[slot][0], numeric[slot][1], numeric[slot][2]
        entry = {"name": name, "max_abs_error": 0.0, "max_rel_error": 0.0, "message": "",
                 "compared": int(len(probed)), "size": int(num.size)}
        got = analytic[slot]
        num_flat = num.reshape(-1)[probed]
        noise_flat = noise.reshape(-1)[probed]
        if got is None:
            depends = float(np.abs(num_flat).max()) if num_flat.size else 0.0
            entry["max_abs_error"] = depends
            if (np.abs(num_flat) > atol + noise_flat).any():
                entry["message"] = ("gradient of `%s` is None, but the output depends on it "
                                    "(numerical gradient up to %s)" % (name, fmt(depends)))
            else:
                # nothing compared: a numerical derivative within rounding of 0 is no error
                entry["max_abs_error"] = entry["max_rel_error"] = None
                entry["none_accepted"] = True
            report.append(entry)
            continue
        got = np.asarray(got, dtype=np.float64)
        if got.shape != num.shape:
            entry["max_abs_error"] = None  # no element-wise comparison possible
            entry["message"] = "gradient of `%s` has shape %s for an input of shape %s" % (
                name, tuple(got.shape), tuple(num.shape))
            entry["shape_error"] = True
            report.append(entry)
            continue
        got_flat = got.reshape(-1)[probed]
        # a step across the edge of the domain (sqrt just above 0) has no numerical value
        # to compare with; a NaN custom gradient still counts as bad
        undefined = ~np.isfinite(num_flat)
        entry["undefined"] = int(undefined.sum())
        with np.errstate(invalid="ignore"):
            error = np.where(undefined, 0.0, np.abs(got_flat - num_flat))
            magnitude = np.where(undefined, 0.0, np.maximum(np.abs(num_flat), np.abs(got_flat)))
        # symmetric, so a zero on either side gives 1 (or 2 for opposite signs), not 1e12
        relative = error / np.maximum(magnitude, 1e-300)
        # rtol of the numerical value, plus what rounding can put in either side: in the
        # difference (noise), and in the gradient, from its largest element. No fixed
        # absolute floor: a gradient of 1e-6 that is 2x or of the wrong sign is wrong.
        scale = float(np.nanmax(magnitude)) if error.size else 0.0
        with np.errstate(invalid="ignore"):
            tolerance = atol + rtol * np.abs(num_flat) + noise_flat + ROUNDING * unit * scale
        bad = ~(error <= tolerance) & ~undefined
        # the worst element is the one furthest outside its tolerance (the largest error
        # when all pass), so the one shown is one that fails
        with np.errstate(invalid="ignore"):
            excess = np.where(np.isnan(error), np.inf, error / np.maximum(tolerance, 1e-300))
        excess = np.where(undefined, -1.0, excess)
        worst = int(np.argmax(np.where(bad, excess, -1.0) if bad.any() else excess)) if error.size else 0
        entry["max_abs_error"] = float(np.nanmax(np.where(np.isnan(error), np.inf, error))) if error.size else 0.0
        entry["max_rel_error"] = float(np.nanmax(np.where(np.isnan(relative), np.inf, relative))) if error.size else 0.0
        if not bad.any():
            report.append(entry)
            continue
        flat_worst = int(probed[worst])
        entry["worst_index"] = [int(x) for x in np.unravel_index(flat_worst, num.shape)] if num.shape else []
        variables = []
        for j in [i] + [j for j in where if j != i]:
            if kinds[j] == "array" and np.shape(values[j]) == num.shape:
                flat_values = np.asarray(values[j]).reshape(-1)[probed]
                variables += [(names[j], flat_values), ("|%s|" % names[j], np.abs(flat_values))]
        sampled = bad.size < num.size
        place = locate(np, bad, variables) or "at %d of %d %selements" % (
            int(bad.sum()), bad.size, "sampled " if sampled else "")
        if sampled and place == "everywhere":
            place = "everywhere sampled"
        detail = "worst %s%s: custom %s, numerical %s" % (
            name, index_text(np, num.shape, flat_worst), fmt(got_flat[worst]), fmt(num_flat[worst]))
        nonzero = np.abs(num_flat) > tolerance
        factor = None
        if bad.all():
            ratios = got_flat[nonzero] / num_flat[nonzero]
            if ratios.size and np.allclose(ratios, ratios[0], rtol=1e-3):
                factor = float(ratios[0])
                detail = ("custom gradient is 0 where the numerical one is not" if factor == 0 else
                          "custom gradient is %sx the numerical one" % fmt(factor))
        entry["message"] = "gradient of `%s` differs %s (%s)" % (name, place, detail)
        estimator = intentional_pattern(np, got_flat, num_flat, nonzero, bad, factor)
        if estimator:
            entry["message"] += "; %s? if on purpose: `# cglint: gradcheck skip %s`" % (
                estimator, estimator)
        report.append(entry)
    return report


def intentional_pattern(np, got, numerical, nonzero, bad, factor):
    """The usual estimator whose custom gradient is not the true one on purpose, when the
    mismatch looks like one: a stop-gradient (0), a gradient reversal (-1x), a
    straight-through estimator (a piecewise-constant forward: the numerical gradient is 0
    at most elements, and it is wrong only there), a clipped gradient (the wrong elements are
    the numerical gradient cut to one magnitude). "" otherwise."""
    if factor == 0 and not got.any():
        return "stop-gradient"
    if factor is not None and abs(factor + 1) < 1e-3:
        return "gradient reversal"
    if (~nonzero).mean() >= 0.8 and (~nonzero[bad]).all():
        return "straight-through estimator"
    wrong_got, wrong_num = np.abs(got[bad]), np.abs(numerical[bad])
    if (wrong_got.size and (wrong_got < wrong_num).all() and np.allclose(wrong_got, wrong_got[0], rtol=1e-3)
            and (np.sign(got[bad]) == np.sign(numerical[bad])).all() and wrong_got[0] > 0):
        return "clipped gradient"
    return ""


def require_deterministic(np, forward, evaluate, points):
    """Stop when a second run at the same point gives other outputs (a dropout mask, a
    random_uniform): central differences of a random function are noise, 1e6 and more."""
    again = evaluate(points)
    if not all(np.array_equal(first, second) for first, second in zip(forward, again)):
        raise Stop("no-inputs", "check pass", "not deterministic: two runs at the same inputs differ "
                   "(random ops?); pass the random values (a mask) in as an input, or "
                   "`# cglint: gradcheck skip random forward`")


def outside_domain(np, names, values, kinds, undefined, size):
    """Why a function whose output is NaN or infinite at the inputs cannot be checked."""
    name, value = [(n, v) for n, v, k in zip(names, values, kinds) if k == "array"][0]
    return ("NaN/inf output at %d of %d elements (out of domain?): "
            "`# cglint: gradcheck %s=np.random.uniform(0.1, 0.9, %s)`"
            % (undefined, size, name, tuple(np.shape(value))))


def check(tf, np, job, payload):
    payload.update(stage="import")
    module_path = os.path.abspath(job["module"])
    # As `python module.py` from its folder would see it: its own path as the whole
    # command line (argparse at import), its folder as the working directory (files
    # read next to it). The sandbox keeps that folder read-only.
    sys.argv = [module_path]
    try:
        os.chdir(os.path.dirname(module_path))
    except OSError:
        pass  # the harness's temporary folder, then
    stderr = sys.stderr = Tee(sys.stderr)
    try:
        module = import_module(module_path)
    except BaseException as exc:
        raise Stop("error", "import", import_failure(exc, sys.exc_info()[2], module_path, stderr.kept),
                   type(exc).__name__)
    finally:
        sys.stderr = stderr.stream
    fn = attribute(module, job["call"])
    if fn is None:
        raise Stop("no-inputs", "import", "the module has no attribute `%s` after import" % job["call"])
    low, high = job.get("lines") or (None, None)
    bound = defined_on(fn, module_path)
    if low is not None and bound is not None and not low <= bound[0] <= high:
        # another def of the same name (an if/else, a redefinition) is what the name holds
        raise Stop("no-inputs", "import", "not checked: after import `%s` is the function at "
                   "line %d, so this one cannot be reached by name" % (job["call"], bound[1]))
    mode = "eager" if tf.executing_eagerly() else "graph"
    note = ""
    if mode != job["mode"]:
        note = "the module enables eager execution itself: checked in eager mode only"
        payload.update(mode=mode, note=note)
    names = [p["name"] for p in job["params"]]
    backend = EagerBackend(tf, np) if mode == "eager" else GraphBackend(tf, np, names)
    run = Run(tf, np, job, fn, backend, payload)
    if not run.automatic:
        return run.judged(None, note)
    return with_automatic_inputs(run, note)


def joined(*notes):
    return "; ".join(filter(None, notes))


class Run(object):
    """One function's check at given inputs (the user pass, then the check pass)."""

    def __init__(self, tf, np, job, fn, backend, payload):
        self.tf, self.np, self.job, self.fn = tf, np, job, fn
        self.backend, self.payload = backend, payload
        self.names = [p["name"] for p in job["params"]]
        self.automatic = [p["name"] for p in job["params"] if p["kind"] == "auto"]

    def inputs(self, automatic_shapes):
        np, names = self.np, self.names
        self.payload.update(stage="inputs")
        values, kinds = build_inputs(np, self.job["params"], automatic_shapes, self.job["seed"])
        if "array" not in kinds:
            whole = ["`%s` is an %s array, which cannot be differentiated: give floats, as "
                     ".astype(float)" % (name, value.dtype.name)
                     for name, value, kind in zip(names, values, kinds)
                     if kind == "constant" and isinstance(value, np.ndarray) and value.dtype.kind in "biu"]
            raise Stop("no-inputs", "inputs", "; ".join(whole) or "no parameter is an array to differentiate")
        return values, kinds

    def judged(self, automatic_shapes, note):
        """The answer at these inputs, or Stop."""
        np, job, backend, names = self.np, self.job, self.backend, self.names
        values, kinds = self.inputs(automatic_shapes)
        shapes = dict((n, list(np.shape(v))) for n, v, k in zip(names, values, kinds) if k == "array")
        self.payload.update(stage="user pass", shapes=shapes)
        upstream = backend.user_pass(self.fn, values, kinds, np.random.RandomState(job["seed"] + 1))
        self.payload.update(stage="check pass")
        dtype, tolerance, (analytic, evaluate), precision_note = self.check_pass(values, kinds, upstream)
        note = joined(note, precision_note)
        points = arrays_of(values, kinds)
        try:
            forward = evaluate(points)
        except Exception as exc:
            raise Stop("error", "check pass", describe_error(exc))
        undefined = sum(int((~np.isfinite(o)).sum()) for o in forward)
        if undefined:
            raise Stop("no-inputs", "check pass", outside_domain(np, names, values, kinds, undefined,
                                                                 sum(o.size for o in forward)))
        require_deterministic(np, forward, evaluate, points)
        numeric = []
        for index in range(len(points)):
            try:
                numeric.append(numeric_gradient(np, evaluate, upstream, points, index, EPSILON[dtype],
                                                job["max_probes"], job["seed"] + 2 + index, dtype))
            except Exception as exc:
                raise Stop("error", "numerical gradient", describe_error(exc))
        inputs = compare(np, names, values, kinds, analytic, numeric, tolerance[0], tolerance[1],
                         float(np.finfo(dtype).eps))
        messages = [entry["message"] for entry in inputs if entry["message"]]
        messages += ungraded_messages(backend.ungraded)
        status = "mismatch" if messages else "ok"
        return {"status": status, "stage": "done", "message": "; ".join(messages), "dtype": dtype,
                "note": joined(note, comparison_notes(inputs)), "inputs": inputs, "atol": tolerance[0],
                "rtol": tolerance[1], "ungraded": backend.ungraded, "shapes": shapes}

    def check_pass(self, values, kinds, upstream):
        """(dtype, (atol, rtol), the backend's check pass, note): at float64, else at
        float32 with wider tolerances, for a function that only runs at float32."""
        tf, job = self.tf, self.job
        try:
            return "float64", (job["atol"], job["rtol"]), self.backend.check_pass(
                self.fn, values, kinds, upstream, tf.float64), ""
        except Exception as exc:
            note = "checked at float32 (at float64: %s)" % describe_error(exc).splitlines()[0][:120]
        tolerance = (max(job["atol"], FLOAT32_TOLERANCE[0]), max(job["rtol"], FLOAT32_TOLERANCE[1]))
        try:
            return "float32", tolerance, self.backend.check_pass(self.fn, values, kinds, upstream,
                                                                 tf.float32), note
        except Exception as exc:
            raise Stop("error", "check pass", describe_error(exc))


def comparison_notes(inputs):
    """What the comparison leaves out: the elements not sampled, and those whose numerical
    gradient is not finite."""
    notes = []
    sampled = ["%d of the %d elements of `%s`" % (entry["compared"], entry["size"], entry["name"])
               for entry in inputs if entry["compared"] < entry["size"]]
    if sampled:
        notes.append("compared a seeded random sample: %s" % ", ".join(sampled))
    for entry in inputs:
        if entry.get("undefined"):
            notes.append("the numerical gradient of `%s` is not finite at %d of %d elements (a step "
                         "leaves the function's domain): not compared there"
                         % (entry["name"], entry["undefined"], entry["compared"]))
    return joined(*notes)


def automatic_shape_sets(count):
    """The shapes to try, in turn, for `count` parameters without a spec: the same vector
    for all (elementwise code), then the same matrix, then, for two or more, a matrix
    product (with a bias), a bias broadcast over rows, scalar factors."""
    sets = [[(5,)] * count, [(3, 4)] * count]
    if count > 1:
        sets += [[(3, 4), (4, 5)] + [(5,)] * (count - 2),
                 broadcast_shapes(count),
                 [(5,)] + [()] * (count - 1)]
    return sets


def broadcast_shapes(count):
    """A matrix, and rows to broadcast against it: how a bias is added."""
    return [(3, 4)] + [(4,)] * (count - 1)


def shapes_text(names, shapes):
    return ", ".join("%s=%s" % (name, tuple(shape)) for name, shape in zip(names, shapes))


def shape_problem(result):
    """What in a Stop or an answer says the inputs have shapes the function does not take
    (a TF shape error, a gradient of another shape than its input), or ""."""
    if isinstance(result, Stop):
        return result.detail or (first_line(result.message) if SHAPE_ERROR.search(result.message) else "")
    return "; ".join(entry["message"] for entry in result["inputs"] if entry.get("shape_error"))


def first_line(text):
    lines = text.strip().splitlines()
    return lines[0] if lines else ""


def with_automatic_inputs(run, note):
    """The answer at the first automatic inputs the function takes, said in its note. A
    function that takes the same shape for every input is also tried with the others
    broadcast against the first (a bias): a gradient that is wrong there is a mismatch,
    one that is not summed over the broadcast axes a note (it is right when the input is
    never broadcast). No-inputs, with the spec to write, when no shapes fit."""
    failures = []
    for shapes in automatic_shape_sets(len(run.automatic)):
        inputs = shapes_text(run.automatic, shapes)
        try:
            answer = run.judged(shapes, note)
        except Stop as stop:
            if stop.stage not in ("call", "forward") and not shape_problem(stop):
                stop.note = joined(note, "with automatic inputs %s" % inputs)
                raise
            failures.append((inputs, stop))
            continue
        if shape_problem(answer):
            failures.append((inputs, Stop("mismatch", "check pass", shape_problem(answer))))
            continue
        answer["note"] = joined(answer["note"], "with automatic inputs %s" % inputs)
        if answer["status"] == "ok" and len(run.automatic) > 1 and len(set(shapes)) == 1:
            answer = broadcast_probe(run, answer, shapes, note)
        return answer
    not_shapes = [stop for _, stop in failures if not shape_problem(stop)]
    if not_shapes:
        not_shapes[0].note = joined(note, "with automatic inputs %s" % failures[0][0])
        raise not_shapes[0]
    raise Stop("no-inputs", "inputs", "automatic inputs do not fit: give its input shapes, "
               "`# cglint: gradcheck %s`" % " ".join("%s=(...)" % name for name in run.automatic),
               note=joined(note, "at %s: %s" % (failures[0][0], first_line(failures[0][1].message))))


def broadcast_probe(run, answer, same, note):
    """The ok `answer`, reached with the `same` shape for every automatic input, or what
    checking it with the others broadcast against the first adds."""
    shapes = broadcast_shapes(len(run.automatic))
    inputs = shapes_text(run.automatic, shapes)
    try:
        probe = run.judged(shapes, note)
    except Stop as stop:
        problem = "" if stop.stage in ("call", "forward") else shape_problem(stop)
    else:
        problem = shape_problem(probe)
        if not problem:
            if probe["status"] == "ok":
                answer["note"] += " (and broadcast: %s)" % inputs
                return answer
            probe["note"] = joined(probe["note"], "with automatic inputs %s" % inputs)
            return probe
    if problem:
        spec = " ".join("%s=%s" % (name, tuple(shape)) for name, shape in zip(run.automatic, same))
        answer["note"] = joined(answer["note"], "at %s: %s" % (inputs, problem),
                                "sum a broadcast input's gradient over the broadcast axes",
                                "or, if never broadcast: `# cglint: gradcheck %s`" % spec)
    return answer


def ungraded_messages(ungraded):
    """What to say of trainable variables the outputs depend on that get no gradient:
    TF 1.8 hands the gradient function only the outputs' gradients and passes None on
    for everything the function reads besides its inputs, so they never train."""
    def listed(names):
        return ", ".join("`%s`" % name for name in names)
    messages = []
    if ungraded.get("inside"):
        messages.append("variable %s is made inside the function: it gets no gradient and never "
                        "trains" % listed(ungraded["inside"]))
    if ungraded.get("outside"):
        messages.append("variable %s is read, not passed in: it gets no gradient and never "
                        "trains" % listed(ungraded["outside"]))
    return messages


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    sys.path[:] = [p for p in sys.path if os.path.abspath(p or ".") != here]
    job = json.loads(sys.argv[1])
    import numpy as np
    import tensorflow as tf
    # Not tf.executing_eagerly() yet: it creates the eager context, after which a module
    # that calls tf.enable_eager_execution() itself would fail to import.
    payload = Payload(os.environ.get("CGLINT_PAYLOAD_FILE"), job["mode"])
    try:
        answer = check(tf, np, job, payload)
    except Stop as stop:
        answer = {"status": stop.status, "stage": stop.stage, "message": stop.message,
                  "exception": stop.exception}
        if stop.note:
            answer["note"] = stop.note
    except Exception as exc:
        answer = {"status": "error", "stage": payload.answer.get("stage"),
                  "message": "gradcheck driver failed: %s" % describe_error(exc),
                  "traceback": traceback.format_exc()[-MESSAGE_CAP:]}
    times = os.times()
    # CPU of this forked child alone (a fork starts its counts at 0): the check's own
    # cost, apart from the wall time a loaded machine adds
    payload.update(done=True, cpu_seconds=round(times[0] + times[1], 3), **answer)


if __name__ == "__main__":
    main()
