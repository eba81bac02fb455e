import ast
import dataclasses

from cglint import failing_imports, guards, tfapi, tfimports, tfpackage
from cglint.facts import (GRAPH_ONLY, TENSOR_LISTS, TF_PRINTS, ApiUse, is_private,
                          passed_argument)
from cglint.diagnostics import Finding
from cglint.names import within
from cglint.rules.base import Edit, Rule
from cglint.source import Span
from cglint.tfpublic import public_name
from cglint.wording import tf_name


class MissingApi(Rule):
    """A TensorFlow name that the target TF release does not have.

    What: any `tf.*` name (through any alias: `tf`, `tensorflow`, `tfe`, ...) absent from
    the target release, such as `tf.math.log`, `tf.compat.v1.Session`, `tf.random.normal`,
    `tf.nn.gelu` or `tf.function`; the message says when it first appeared and the 1.8
    spelling where one exists. Also imports the target cannot import even where the
    attribute exists: in 1.8 `import tensorflow.keras` and `from tensorflow.keras.layers
    import Dense` raise ImportError while `tf.keras.layers.Dense` works.

    Why it breaks on TF 1.8: `AttributeError: module 'tensorflow' has no attribute ...`
    when the line runs, which inside a gradient function is only at `tf.gradients` time;
    an ImportError at import for the module forms.

    Fix: use the 1.8 spelling named in the message (`tf.log`, `tf.Session`,
    `tf.random_normal`); `--fix` rewrites the name where the newer name came in as the
    very object the 1.8 one is (in its first release) and the call fits its 1.8
    signature (`tf.math.log` -> `tf.log`, `tf.compat.v1.X` -> `tf.X`); `--unsafe-fixes`
    also applies plain 1.8 renames, and renames of a call passing two or more arguments
    positionally to a name that the newest release gives to another function
    (`tf.math.in_top_k` takes `targets` first in TF 2: check the order). Reach Keras and
    contrib modules through attributes (`tf.keras.layers`) or `import` the
    module the message names.

    Also calls of methods that an object the code visibly makes does not have in 1.8: a
    `tf.GradientTape`'s `jacobian`, a `tf.data` pipeline's `unbatch()`, a `tf.train`
    optimizer's (from the 1.8 argspecs, which record every public method of these
    classes).

    Also the private names of TF's own modules that 1.8's do not have, read or imported:
    the hidden ops of TF 1.0-1.4 such as `gen_nn_ops._relu_grad` (guided backpropagation
    in Grad-CAM code) are public in 1.8 (`relu_grad`), and `--fix` writes that name;
    `variable_scope._VARSCOPE_KEY` and `from tensorflow.python.ops.rnn_cell_impl import
    _linear` are gone; 1.8's public modules (`tf.nn._nn_grad`) are generated and hold
    none. The private names 1.8 keeps (`gen_math_ops._sum`, `array_ops._all_dimensions`)
    come from `tools/gen_tf18_private_names.py`; modules it could not import (most of
    contrib) are not judged.

    Also what goes through the packages TF 1.8's `__init__` deletes once loaded
    (`tensorflow.python`, `tensorflow.core`): a chain read off the `tensorflow` module
    (`tf.python.ops`, `tensorflow.python.ops.math_ops.add`), and `import
    tensorflow.python.ops.array_ops as array_ops`, which Python before 3.7 binds by reading
    those attributes (`AttributeError: module 'tensorflow' has no attribute 'python'`);
    `--fix` writes `from tensorflow.python.ops import array_ops as array_ops`.

    Also, in a module that turns eager execution on (`tf.enable_eager_execution()` at its
    top), what 1.8 refuses eagerly and TF 2 takes: `tf.Variable` (use
    `tf.contrib.eager.Variable`), `tf.placeholder` and `tf.gradients` (use
    `tf.GradientTape`), each a `RuntimeError`; not in a block that runs in a graph
    (`with tf.Graph().as_default():`), under a test of the mode, or in a `defun`.

    Also `tf.contrib.data.AUTOTUNE` as a pipeline's `num_parallel_calls`, directly or
    as the fallback of `tf.data.experimental.AUTOTUNE`: it is -1 in 1.8, which only
    `prefetch` takes (`InvalidArgumentError: num_parallel_calls must be greater than zero`).

    Also what newer releases' `GradientTape.gradient` takes and 1.8's refuses, on a tape
    the code visibly made: several targets (`tape.gradient([y1, y2], x)`, or a name bound
    to that list), which newer releases sum (`AttributeError: 'list' object has no
    attribute '_id'`); a call inside the `with` block of a non-persistent tape
    (`RuntimeError: Trying to call tape.gradient on a non-persistent tape while it is
    still active`); and a tensor as `output_gradients`, which 1.8 wants as a list: a
    `TypeError` in graph mode, a crash of the process (segmentation fault) in eager mode.
    `--fix` writes `[dy]` for the last.

    Code for TF 1 and 2 alike that picks its alias at the top (`if hasattr(tf.compat,
    "v1"): tf = tf.compat.v1`, `"v1" in dir(tf.compat)`, a test of `tf.__version__`, or
    the one-line `tf = tf.compat.v1 if ... else tf`) is read as the target runs it: on 1.8 `tf` stays the
    module, and the names used through it are judged. The same line with no test (`tf =
    tf.compat.v1` at the top), or under a test that holds on 1.8 (`tf.__version__ >=
    "1.13"` compares strings: "1.8.0" is the greater), runs there and fails: it is
    reported there, once.

    A name the module assigns on TensorFlow itself is its own attribute wherever the
    assignment may run first: not for a read above it at the top level (NiftyNet's
    `tf.logging._logger.handlers = []` the line before it sets `tf.logging._logger`).
    A name that a project module imported at the top assigns on TensorFlow (a backport:
    `tf.TensorSpec = TensorSpec`) is not reported, nor one that a module those import
    when imported assigns (tensorpack's `model_desc` calling the backport of `compat`).

    Guards are respected: a name used under `if hasattr(tf, ...)` or `if "name" in
    dir(tf)`, in a `try` whose handler catches AttributeError/ImportError, in the
    fallback of a `try` whose body 1.8 surely runs (imports, and expressions of calls it
    has with keywords its signatures take: the fallback is for older releases), in the branch
    of a `tf.__version__` test that the target does not take, or in the body of a
    `@tf.RegisterGradient("MaxPoolGrad")` for an op type 1.8 already registers (the
    decorator raises KeyError, CG203's finding, so the body never runs), is not reported. Names
    reached through a failing import, directly or through aliases (`FLAGS =
    tf.flags.FLAGS` after `import tensorflow.compat.v1 as tf`), are the import's one
    finding. Imports follow the TF 1.8 wheels (CPU and GPU): a module file of either
    wheel imports, and the names such an import binds are checked against that module.
    A public name read off one of TensorFlow's own modules (`array_ops.multiply` after
    `from tensorflow.python.ops import array_ops`) is judged by what 1.8's module holds,
    as the same name imported from it is. The imports of a file of TensorFlow's own tree
    that no wheel ships (a test, a tool, an
    example of a source checkout) are not judged: they import what their own build makes.
    """

    code = "CG402"
    name = "missing-api"

    def check(self, module):
        target = module.target_tf
        # Whether the import model of the 1.8 wheels applies.
        wheels = tfapi.normalize_version(target) == failing_imports.WHEELS_TARGET
        rebinding = _self_rebinding_uses(module)
        for use in module.api_uses + rebinding:
            if use.qualname in TF_PRINTS:
                continue  # CG401 says more about tf.print
            if is_private(use.qualname) and not (wheels and _public_of_own_module(use.qualname)):
                continue
            finding = self._judge(module, use, target, wheels)
            if finding is not None and rebinding and use in rebinding:
                top = any(statement.value is use.node for statement in module.tree.body
                          if type(statement) is ast.Assign)
                if not top:
                    finding = dataclasses.replace(finding, message=finding.message + (
                        "; the test of the `if` above holds on TF %s, which runs this "
                        "branch" % target))
                elif use.qualname == "tensorflow.compat.v1":
                    finding = dataclasses.replace(finding, message=finding.message + (
                        "; `%s` is the TF 1 API itself in TF %s: drop the assignment" % (
                            _text(module, use.node.value.value) or "tf", target)))
            # Guards are looked for only where there is something to report; names stored
            # on `tf` by project modules (backports) are public ones.
            if finding is not None and not guards.of(module).covers(use.node, use.qualname) \
                    and not failing_imports.through_failing_import(module, use, target) \
                    and (is_private(use.qualname)
                         or not module.stored_by_imports(use.qualname)):
                yield finding
        for use in module.private_uses:
            finding = self._judge_private(module, use, target)
            if finding is not None and not guards.of(module).covers(use.node, use.qualname) \
                    and not module.stored_by_imports(use.qualname):
                yield finding
        for use in module.missing_methods:
            guarded = guards.of(module)
            # `hasattr(tape, "jacobian")` or `hasattr(tf.GradientTape, "jacobian")`
            if not (guarded.covers(use.node, ast.unparse(use.node))
                    or guarded.covers(use.node, use.qualname)):
                owner, _, method = use.qualname.rpartition(".")
                whole = module.span(use.node)  # at the method's name, after its receiver
                yield Finding("`%s` objects have no method `%s` in TF %s" % (
                    tf_name(owner), method, target), span=Span(
                        whole.end_line, whole.end_col - len(method), whole.end_line,
                        whole.end_col))
        for call, block in module.tape_gradient_calls:
            tape = next((item.context_expr for item in (block.items if block else ())
                         if isinstance(item.optional_vars, ast.Name)
                         and item.optional_vars.id == call.func.value.id), None)
            if tape is not None and _surely_not_persistent(tape):
                yield self.at(call, "`%s.gradient` runs inside the tape's own `with` block: "
                              "TF %s raises `RuntimeError: Trying to call tape.gradient on a "
                              "non-persistent tape while it is still active`; call it "
                              "after the block" % (call.func.value.id, target))
            given = passed_argument(call, 2, "output_gradients")
            if given is not None and _a_tensor_not_a_list(module, given):
                text = _text(module, given)
                yield self.at(given, "`output_gradients` of `GradientTape.gradient` is a list "
                              "in TF %s, one gradient per target: a tensor raises `TypeError` "
                              "(in graph mode, or a scalar) or crashes the process in eager "
                              "mode (a segmentation fault, measured); pass `[%s]`" % (
                                  target, text or "..."),
                              (Edit(module.span(given), "[%s]" % text),) if text else None)
        sites = [module.names.scope_for_def.get(id(site.func)) for site in module.sites] \
            if module.graph_only_calls else ()
        for call, qualname in module.graph_only_calls:
            if qualname == "tensorflow.Variable" and any(
                    within(module.names.scope_of(call), scope) for scope in sites if scope):
                continue  # CG101's, inside a custom-gradient function
            error, instead = GRAPH_ONLY[qualname]
            yield self.at(call, "`%s` under eager execution raises `RuntimeError: %s` in TF "
                          "%s; %s" % (tf_name(qualname), error, target, instead))
        for node in _autotune_as_parallel_calls(module, target):
            yield self.at(node, "`tf.contrib.data.AUTOTUNE` is -1 in TF %s, which only "
                          "`prefetch` takes: as `num_parallel_calls` it raises "
                          "`InvalidArgumentError: num_parallel_calls must be greater than "
                          "zero` when the pipeline runs; pass a number" % target)
        for listed, display in module.tape_target_lists:
            yield self.at(listed, "`GradientTape.gradient` takes one target tensor in TF %s: "
                          "a list of targets raises `AttributeError: '%s' object has no "
                          "attribute '_id'`; take the gradient of their sum, or one "
                          "gradient per target" % (
                              target, "tuple" if isinstance(display, ast.Tuple) else "list"))
        for statement, alias in _imports_bound_through_deleted(module):
            if not guards.of(module).covers(statement, alias.name, guards.ATTRIBUTE):
                yield self.at(statement, "`import %s as %s` raises AttributeError in TF %s: "
                              "TensorFlow's own `__init__` deletes `%s`, which Python "
                              "before 3.7 reads to bind `%s`; write `from ... import`" % (
                                  alias.name, alias.asname, target,
                                  ".".join(alias.name.split(".")[:2]), alias.asname),
                              _from_import_fix(module, statement, alias))
        failed_modules = set()  # (statement, module): one finding when the module fails
        unshipped = None  # asked at the first failing import only (most files have none)
        for use in module.imports:
            fails, why = failing_imports.fails(use, target)
            dotted = use.module + ("." + use.name if use.name else "")
            if not fails or guards.of(module).covers(use.node, dotted, guards.IMPORT):
                continue
            if unshipped is None:
                unshipped = _unshipped_tensorflow_file(module.path)
            if unshipped:
                return  # its imports are of its own build (see _unshipped_tensorflow_file)
            if use.name is not None and len(use.node.names) > 1 and failing_imports.fails(
                    failing_imports.Imported(use.module, None), target)[0]:
                if (id(use.node), use.module) in failed_modules:
                    continue
                failed_modules.add((id(use.node), use.module))
                use = failing_imports.Imported(use.module, None, use.node)
                why = failing_imports.fails(use, target)[1]
            yield self.at(use.node, _import_message(use, target, why))

    def _judge(self, module, use, target, wheels):
        """The Finding for one use, before guards; None when the name is there."""
        deleted = _deleted_package(module, use) if wheels else None
        if deleted is not None:
            return self.at(use.node, "`%s` is not in TF %s: TensorFlow's own `__init__` "
                           "deletes `%s`, and importing it again does not bring it back; "
                           "import the module instead" % (
                               _text(module, use.node) or tf_name(use.qualname), target,
                               tf_name(deleted)))
        if wheels:
            verdict = tfimports.follow(use.qualname, module.imported_modules)
            if isinstance(verdict, tuple):
                owner, name = verdict
                return self.at(use.node, "`%s` is not in TF %s: module `%s` has no `%s`"
                               % (_text(module, use.node) or tf_name(use.qualname), target,
                                  owner, name))
            if verdict != tfimports.TABLE:
                return None
        missing = tfapi.missing(use.qualname, target)
        if missing is None:
            return None
        missing = _compat_attribute(missing, target)
        if missing.replacement and missing.replacement.endswith(".AUTOTUNE") and \
                _keyword_of(module, use.node) == "num_parallel_calls":
            # 1.8's contrib.data.AUTOTUNE is -1, which only `prefetch` takes (measured)
            return self.at(use.node, "`%s` is not in TF %s, and `tf.contrib.data.AUTOTUNE` "
                           "is no number of parallel calls there (`InvalidArgumentError: "
                           "num_parallel_calls must be greater than zero`): pass a number"
                           % (tf_name(use.qualname), target))
        message = _message(missing, target)
        if missing.replacement and _reorder_risk(use):
            message += " (TF %s's `%s` is another function: check the order of its " \
                "arguments)" % (_newest_release(use.qualname), tf_name(use.qualname))
        return self.at(use.node, message, _fix(module, use, missing))

    def _judge_private(self, module, use, target):
        """A private name of TF's own module that TF 1.8's lacks: the hidden ops of TF
        1.0-1.4 (`gen_nn_ops._relu_grad`) are public there (`relu_grad`)."""
        if tfapi.normalize_version(target) != failing_imports.WHEELS_TARGET:
            return None  # the table records 1.8's modules only
        owner, _, name = use.qualname.rpartition(".")
        if name in tfimports.private_names(owner):
            return None
        public = name.lstrip("_")
        contents = tfimports.contents(owner) or {}
        message = "`%s` is not in TF %s: module `%s` has no `%s`" % (
            _text(module, use.node) or tf_name(use.qualname), target, owner, name)
        if public not in contents:
            return self.at(use.node, message)
        message += "; TF %s spells it `%s`" % (target, public)
        # The generated wrapper of the same op takes the op's inputs and attributes in the
        # same order, but some were renamed since (`_split(split_dim=...)` is `split(axis=
        # ...)`): fixed only where the call passes them by position.
        if use.call is None or any(keyword.arg != "name" for keyword in use.call.keywords):
            return self.at(use.node, message + (
                " (check the names of its keyword arguments)" if use.call else ""))
        start = module.span(use.node)
        edit = Edit(Span(start.end_line, start.end_col - len(name), start.end_line,
                         start.end_col), public)
        return self.at(use.node, message, (edit,))


def _self_rebinding_uses(module):
    """[ApiUse] of the chains that a top-level `tf = tf.compat.v1` reads. Bound twice
    (the import, then this), `tf` resolves to nothing, so the chain the assignment reads
    off the module is no API use; but nothing but the import binds `tf` when it runs, and
    on TF 1.8 it raises `AttributeError` (`compat` has no `v1`). The plain statement at
    the top level, with one import of TensorFlow before it, or in the branch of a
    top-level `if` that the target surely takes (cglint.rebindings decided it: `if
    tf.__version__ >= "1.13":` compares strings, and "1.8.0" is the greater); in a `try`,
    or under a test the target fails or that is not decided, it is a guarded pick."""
    uses = []
    if not module.public_tensorflow:
        return uses  # (the binder is asked below only where such a statement stands)
    for statement in _run_at_the_top(module, module.tree.body):
        name, chain, root = statement.targets[0].id, [], statement.value
        while type(root) is ast.Attribute:
            chain.append(root.attr)
            root = root.value
        if type(root) is not ast.Name or root.id != name:
            continue
        never = module.names.never_bound
        bound = [binding for binding in module.names.module.bindings.get(name, ())
                 if id(binding.node) not in never]
        imports = [binding for binding in bound if binding.kind == "import"]
        if len(bound) != 2 or len(imports) != 1 or not any(
                binding.node is statement.value for binding in bound):
            continue
        imported = imports[0]
        if imported.node.lineno >= statement.lineno \
                or not (imported.qualname == "tensorflow"
                        or imported.qualname.startswith("tensorflow.")) \
                or module.resolve(statement.value) is not None:
            continue
        uses.append(ApiUse(statement.value, public_name(
            ".".join([imported.qualname] + chain[::-1]))))
    return uses


def _run_at_the_top(module, statements):
    """The `name = name.attribute...` statements among `statements` (a module's body),
    and in the branches of its `if`s that the target surely runs."""
    for statement in statements:
        kind = type(statement)
        if kind is ast.Assign:
            if len(statement.targets) == 1 and type(statement.value) is ast.Attribute \
                    and type(statement.targets[0]) is ast.Name:
                yield statement
        elif kind is ast.If and any(True for _ in _run_at_the_top(
                module, statement.body + statement.orelse)):
            untaken = module.names.untaken  # (decided branches: the skipped one listed)
            if any(branch is statement.orelse for branch in untaken):
                yield from _run_at_the_top(module, statement.body)
            elif any(branch is statement.body for branch in untaken):
                yield from _run_at_the_top(module, statement.orelse)


def _public_of_own_module(qualname):
    """A public name read off one of TensorFlow's own modules (`context.in_graph_mode`
    after `from tensorflow.python.eager import context`): the wheels' import model knows
    what those modules hold (tfimports.follow), as it does for `from ... import`."""
    return qualname.startswith("tensorflow.python.") and not any(
        part.startswith("_") for part in qualname.split("."))


def _surely_not_persistent(tape):
    """Whether the `tf.GradientTape(...)` call makes a non-persistent tape (its default)."""
    persistent = passed_argument(tape, 0, "persistent")
    return persistent is None or (isinstance(persistent, ast.Constant)
                                  and not persistent.value)


def _a_tensor_not_a_list(module, value):
    """Whether `value` is visibly one tensor: a TensorFlow call, or a name bound once to
    one (`dy = tf.ones_like(y)`), not a list of them."""
    if isinstance(value, ast.Name):
        binding = module.names.definitions(value, module.names.scope_of(value))
        if binding is None or binding.kind != "assign":
            return False
        value = binding.node
    if not isinstance(value, ast.Call):
        return False
    qualname = module.resolve(value.func)
    return bool(qualname) and qualname.startswith("tensorflow.") and \
        qualname.rpartition(".")[2] not in TENSOR_LISTS


def _unshipped_tensorflow_file(path):
    """A file of TensorFlow's own tree that no 1.8 wheel ships (a test, a tool, an example,
    a module of a checkout of another release): it imports what its own build makes (test
    modules, `_pb2` and `gen_` modules of its protos and ops), which the wheels' model of
    what imports cannot judge."""
    name = tfpackage.module_name(path)
    return name is not None and tfimports.build_of(name) is None


def _import_message(use, target, why):
    if use.name:
        what = "from %s import %s" % (use.module, use.name)
    elif isinstance(use.node, ast.ImportFrom):
        what = "from %s import ..." % use.module  # the module itself fails
    else:
        what = "import %s" % use.module
    message = "`%s` raises ImportError in TF %s" % (what, target)
    dotted = use.module + ("." + use.name if use.name else "")
    if why:
        message += " (%s)" % why
    if tfapi.status(dotted, target) == tfapi.EXISTS:
        return message + ": reach it as an attribute instead (`%s`)" % tf_name(dotted)
    in_wheel = tfapi.normalize_version(target) == failing_imports.WHEELS_TARGET and \
        tfimports.build_of(use.module) is not None
    missing = None if is_private(dotted) or in_wheel else tfapi.missing(dotted, target)
    if missing is not None and missing.first is not None:
        return message + ": " + _message(missing, target, hint=False)  # a newer name
    return message


def _text(module, node):
    text = module.lines.segment(node)
    return text if text and "\n" not in text else None


def _message(missing, target, hint=True):
    name, full = tf_name(missing.name), tf_name(missing.qualname)
    versions = tfapi.versions()
    if missing.first is None and missing.unlisted:
        # contrib below its top level is not enumerated for 1.9 to 1.15: it may be there
        may_be = "may be in %s, whose contrib the table does not list" % _releases(
            missing.unlisted)
        history = "it " + may_be if full == name else "absent, and " + may_be
    elif missing.first is None:
        covered = "the table covers %s to %s" % (versions[0], versions[-1])
        history = covered if full == name else (
            "in no release from %s to %s, the releases the table covers" % (versions[0],
                                                                            versions[-1]))
    elif _version(missing.first) > _version(target):
        history = "new in %s" % missing.first
    else:
        history = "only in %s to %s" % (missing.first, missing.last)
    if full == name:
        message = "`%s` is not in TF %s (%s)" % (name, target, history)
    else:
        message = "`%s` is not in TF %s (`%s` is %s)" % (full, target, name, history)
    if missing.replacement:
        return message + "; use `%s`" % tf_name(missing.replacement)
    return message + (_hint(missing, target) if hint else "")


# The packages TF 1.8's `tensorflow/__init__.py` deletes once loaded (`del python`, `del
# core`): `tf.python` is missing, and `import tensorflow.python` leaves it so (measured,
# tests/test_tf18_init_deletions.py).
DELETED_BY_TENSORFLOW_INIT = frozenset(("tensorflow.python", "tensorflow.core"))


def _deleted_package(module, use):
    """The package (`tensorflow.python`) its `__init__` deletes that the chain `tf.python.
    ops...` goes through from the `tensorflow` module itself, or None (an import of the
    module, `array_ops.x`, is no such chain). Read off the chain as written: its name may
    be public (`tensorflow.python.ops.math_ops.add` is `tf.add`)."""
    first = use.node
    while isinstance(first, ast.Attribute) and isinstance(first.value, ast.Attribute):
        first = first.value
    if not isinstance(first, ast.Attribute) or not isinstance(first.value, ast.Name):
        return None
    package = "tensorflow." + first.attr
    if package not in DELETED_BY_TENSORFLOW_INIT or module.resolve(first.value) != "tensorflow":
        return None
    return package


def _imports_bound_through_deleted(module):
    """(statement, dotted name) of each `import tensorflow.python.x as y`: Python before
    3.7 binds `y` by reading the attributes `tensorflow.python.x`, and TF 1.8's `__init__`
    has deleted `python` (measured on 2.7 and 3.6: `AttributeError: module 'tensorflow'
    has no attribute 'python'`). TF's own modules run theirs before that."""
    if module.target_python >= (3, 7) or tfpackage.is_tensorflow_file(module.path):
        return
    for statement in module.statements[ast.Import]:
        for alias in statement.names:
            parts = alias.name.split(".")
            # (a module that is not there at all is the import's own ImportError finding)
            if alias.asname and len(parts) > 1 and \
                    ".".join(parts[:2]) in DELETED_BY_TENSORFLOW_INIT and not \
                    failing_imports.fails_on(alias.name, None, module.target_tf):
                yield statement, alias


def _from_import_fix(module, statement, alias):
    """`import a.b.c as d` as `from a.b import c as d`, which 2.7 and 3.6 bind from
    sys.modules (measured); none for `import tensorflow.python as p` (2.7 cannot) or a
    statement of several names."""
    parent, _, name = alias.name.rpartition(".")
    if len(statement.names) > 1 or parent.count(".") < 1:
        return None
    return (Edit(module.span(statement), "from %s import %s as %s" % (
        parent, name, alias.asname)),)


def _chain_root(node):
    """The expression an attribute chain starts from (`tf` of `tf.nn.relu`)."""
    while isinstance(node, ast.Attribute):
        node = node.value
    return node


def _hint(missing, target):
    """Where 1.8 has the name after all: a module only `import` loads, or the same last
    name elsewhere (`tf.moments` -> `tf.nn.moments`)."""
    if tfapi.normalize_version(target) == failing_imports.WHEELS_TARGET:
        build = tfimports.build_of(missing.name)
        if build is not None and tfimports.import_error(missing.name) is None:
            gpu = " (GPU build only)" if build == tfimports.GPU else ""
            return "; `import %s` loads it%s" % (missing.name, gpu)
    if missing.name != missing.qualname:
        return ""
    last = missing.qualname.rsplit(".", 1)[1]
    found = [name for name in tfapi.spellings(last, target) if not is_private(name)]
    core = [name for name in found if ".contrib." not in name]
    if core:
        names = ", ".join("`%s`" % tf_name(name) for name in core[:3])
        if all(_family(name) != _family(missing.qualname) for name in core):
            # `tf.nn.l2` is not `tf.keras.regularizers.l2`, nor `tf.train.Adam` Keras's
            where = "in Keras" if _family(core[0]) == "keras" else "outside Keras"
            return "; TF %s has a `%s` only %s (%s): check it is the same function" % (
                target, last, where, names)
        return "; TF %s has `%s` as %s" % (target, last, names)
    if found:  # contrib holds many unrelated functions of common names
        return "; TF %s has a `%s` only in contrib (%s): check it is the same function" % (
            target, last, ", ".join("`%s`" % tf_name(name) for name in found[:2]))
    return ""


def _family(qualname):
    """Whether a TF name is Keras's (`tensorflow.keras...`) or of the rest of TF: the two
    hold many different functions of one last name."""
    return "keras" if qualname.startswith(("tensorflow.keras.", "tensorflow.python.keras.")) \
        else "tf"


def _releases(labels):
    return labels[0] if len(labels) == 1 else "%s to %s" % (labels[0], labels[-1])


def _version(text):
    return tuple(int(part) for part in text.split(".") if part.isdigit())


def _fix(module, use, missing):
    """Rewrite the name to its 1.8 spelling, keeping the user's alias; None if not exact.

    Safe where the 1.8 name is the very object the newer one is in some release
    (`tf.math.log` is `tf.log` from 1.10, `tf.compat.v1.Session` is `tf.Session`) and the
    call fits the 1.8 signature; unsafe for a plain 1.8 rename that was never the same
    object; no fix otherwise (`tf.print` -> `tf.Print` is not a drop-in)."""
    replacement = missing.replacement
    if not replacement or missing.qualname != use.qualname:
        return None
    compat = use.qualname.startswith("tensorflow.compat.v1.") and replacement == (
        "tensorflow." + use.qualname[len("tensorflow.compat.v1."):])
    # Safe only where the name came in as the 1.8 object itself (`tf.math.log` is `tf.log`
    # from 1.10, its first release): a name that became that object only later met it
    # changed (`tf.nn.avg_pool2d` is 1.15's `tf.nn.avg_pool`, which takes `ksize=2`; 1.8's
    # wants four sizes). And not where a newer release has another function under it.
    same_in = tfapi.same_object_versions(use.qualname)
    first = _first_release(use.qualname)
    same = compat or (first in same_in and not _reorder_risk(use))
    if not same and missing.note not in _RENAME_NOTES and not same_in:
        return None
    # tf.compat.v1.X is tf.X in the same release: any call fits. Otherwise the 1.8
    # signature may differ from the newer release's: the call must fit it.
    call = use.call
    if call is not None and not compat and not _fits(call, replacement, module.target_tf):
        return None
    root = _chain_root(use.node)
    if not isinstance(root, ast.Name):
        return None
    root_qualname = module.resolve(root)
    text = module.lines.segment(use.node)
    if not root_qualname or text != ast.unparse(use.node):
        return None  # spans lines or holds comments: leave it to a human
    if not replacement.startswith(root_qualname + "."):
        return None
    new = root.id + replacement[len(root_qualname):]
    # A name past what the table enumerates (a class's attribute) is safe only as listed.
    listed = tfapi.status(replacement, module.target_tf) == tfapi.EXISTS
    return (Edit(module.span(use.node), new, same and listed),)


_COMPAT_V1 = "tensorflow.compat.v1."


def _compat_attribute(missing, target):
    """The replacement of a name that goes on past what the table enumerates (a class's
    attribute, a function's `__doc__`): its longest prefix's replacement, with the rest
    (`tf.compat.v1.GraphKeys.UPDATE_OPS` -> `tf.GraphKeys.UPDATE_OPS`, `tf.math.log.__doc__`
    -> `tf.log.__doc__`); or, under compat.v1 (the TF 1 API of 1.13 on), the same chain
    without `compat.v1` when its first name is in 1.8 and nothing of it is missing."""
    if missing.replacement:
        return missing
    parts = missing.qualname.split(".")
    for length in range(len(parts) - 1, len(missing.name.split(".")) - 1, -1):
        prefix = ".".join(parts[:length])
        found = tfapi.missing(prefix, target)
        if found is not None and found.replacement:
            replacement = found.replacement + "." + ".".join(parts[length:])
            if _lacks_method(replacement, target):
                return missing
            return dataclasses.replace(missing, replacement=replacement, note=found.note)
    if not missing.qualname.startswith(_COMPAT_V1):
        return missing
    rest = missing.qualname[len(_COMPAT_V1):]
    stripped = "tensorflow." + rest
    if tfapi.status("tensorflow." + rest.split(".")[0], target) != tfapi.EXISTS or \
            tfapi.status(stripped, target) == tfapi.MISSING or _lacks_method(stripped, target):
        return missing
    return dataclasses.replace(missing, replacement=stripped)


def _lacks_method(qualname, target):
    """Whether the chain goes through a public method a 1.8 class lacks (its argspecs
    record every public method: `tf.data.Dataset.unbatch` is 1.13's)."""
    parts = qualname.split(".")
    for length in range(len(parts) - 1, 1, -1):
        owner = ".".join(parts[:length])
        if tfapi.status(owner, target) == tfapi.EXISTS:
            name = parts[length]
            return not name.startswith("_") and tfapi.method_missing(owner, name, target) is True
    return False


CONTRIB_AUTOTUNE = "tensorflow.contrib.data.AUTOTUNE"


def _autotune_as_parallel_calls(module, target):
    """The `num_parallel_calls` arguments that are, on 1.8, `tf.contrib.data.AUTOTUNE`:
    the name itself, or a name every binding of which 1.8 gives either it or a name 1.8
    lacks (`try: AUTOTUNE = tf.data.experimental.AUTOTUNE` / `except AttributeError:
    AUTOTUNE = tf.contrib.data.AUTOTUNE`). 1.8's is -1, which `map` refuses (measured)."""
    if "AUTOTUNE" not in module.text or "num_parallel_calls" not in module.text or \
            tfapi.normalize_version(target) != failing_imports.WHEELS_TARGET:
        return []
    found = []
    for keyword in module.nodes[ast.keyword]:
        if keyword.arg != "num_parallel_calls":
            continue
        value = keyword.value
        if module.resolve(value) == CONTRIB_AUTOTUNE:
            found.append(value)
        elif isinstance(value, ast.Name):
            bound = [binding.node for binding in module.names.lookup(
                value.id, module.names.scope_of(value))]
            names = [module.resolve(node) if isinstance(node, ast.Attribute) else None
                     for node in bound]
            if CONTRIB_AUTOTUNE in names and all(
                    name == CONTRIB_AUTOTUNE or (name and tfapi.missing(name, target))
                    for name in names):
                found.append(value)
    return found


def _keyword_of(module, node):
    """The keyword `node` is passed as (`num_parallel_calls=...`), or None."""
    parent = module.parent_of(node)
    return parent.arg if isinstance(parent, ast.keyword) else None


def _reorder_risk(use):
    """Whether a rename could reorder the call's arguments: it passes two or more
    positionally, and the newest release that has the name (whose docs the code is likely
    copied from) has another object under it than the 1.8 name's. `tf.math.in_top_k` is
    `tf.nn.in_top_k` in 1.15 only: TF 2's takes `targets` first, and renaming
    `tf.math.in_top_k(labels, logits, 1)` would swap them silently."""
    if use.call is None or len(use.call.args) < 2:
        return False
    same = tfapi.same_object_versions(use.qualname)
    newest = _newest_release(use.qualname)
    return bool(same) and newest is not None and newest not in same


def _first_release(qualname):
    """The oldest release of the table that has `qualname`, or None."""
    having = _releases_having(qualname)
    return having[0] if having else None


def _newest_release(qualname):
    """The newest release of the table that has `qualname`, or None."""
    having = _releases_having(qualname)
    return having[-1] if having else None


def _releases_having(qualname):
    """The releases of the table that have `qualname`, oldest first."""
    return [version for version in tfapi.versions()
            if tfapi.status(qualname, version) == tfapi.EXISTS]


# Notes of replacements that are the 1.8 name of the same operation (cglint.tfapi).
_RENAME_NOTES = ("1.8 name", "the same function/class under its 1.8 name")


def _fits(call, qualname, target):
    """Does the call pass only what the 1.8 signature of `qualname` takes?"""
    signature = tfapi.signature(qualname, target)
    if signature is None:
        return False
    parameters, takes_any_keyword = signature
    if any(isinstance(arg, ast.Starred) for arg in call.args) or len(call.args) > len(parameters):
        return False
    for keyword in call.keywords:
        if keyword.arg is None:
            return False  # **kwargs: unknown keywords
        if keyword.arg not in parameters and not takes_any_keyword:
            return False
    # Every parameter 1.8 requires is given: newer releases gave some a default
    # (`tf.TensorSpec(shape)`: 1.8's TensorSpec requires its dtype).
    required = tfapi.required_positional(qualname, target) or 0
    given = set(parameters[:len(call.args)]) | {keyword.arg for keyword in call.keywords}
    if not all(name in given for name in parameters[:required]):
        return False
    # The pooling ops of 1.8 take four sizes where 1.15's `avg_pool2d` takes one
    # (`ksize=2`: `TypeError: Expected list for 'ksize' argument`, measured).
    values = dict(zip(parameters, call.args))
    values.update((keyword.arg, keyword.value) for keyword in call.keywords)
    return not any(
        name in values and not (isinstance(values[name], (ast.List, ast.Tuple))
                                and len(values[name].elts) == 4)
        for name in _FOUR_SIZES.get(qualname, ()))


# 1.8 functions whose window and stride arguments must each list four sizes.
_FOUR_SIZES = {"tensorflow.nn.%s" % name: ("ksize", "strides")
               for name in ("avg_pool", "max_pool", "max_pool_with_argmax")}


RULE = MissingApi
