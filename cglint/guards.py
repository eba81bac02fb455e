"""Code that only runs where a TensorFlow name exists: feature tests and version checks.

Code written for several TF releases tests before it uses a newer name:

    if hasattr(tf, "print"): tf.print(x)            # the body needs tf.print
    if "concat_v2" in dir(tf): tf.concat_v2(x, 0)   # so does this one
    tf1 = tf.compat.v1 if hasattr(tf.compat, "v1") else tf
    try: normal = tf.random.normal                  # the handler is the fallback
    except AttributeError: normal = tf.random_normal
    if LooseVersion(tf.__version__) >= LooseVersion("1.13"): ...
    if get_tf_version_tuple() >= (1, 13): ...      # the project's helper, one `return`
    if _HAS_PRINT: tf.print(x)                     # _HAS_PRINT = hasattr(tf, "print")
    if not hasattr(tf, "print"): return x          # the statements after it
    try: from tensorflow.python.ops.rnn import static_rnn   # 1.8 has it: the handler,
    except ImportError: from ...core_rnn import static_rnn  # for older TF, never runs
    try: return tf.nn.conv2d_transpose(x, w, output_shape=s)  # a call 1.8 takes: so
    except AttributeError: return tf.nn.deconv2d(x, w, output_shape=s)  # never runs

A name used only where such a test has passed is not a finding: the test, not the name,
decides what runs on the target; where the test asks for a name the target lacks
(`if hasattr(tf, "batch_gather"):` on 1.8), nothing its branch uses is. The other branch
(the fallback) is checked normally.
Version tests are evaluated with the target's version, as they run (two strings compare
as strings: "1.8.0" < "1.13" is False), so the branch the target takes is checked and
the one it skips is not; a test that cannot be evaluated guards both.
"""
import ast
import re
import weakref

from cglint import failing_imports, tfapi, tfimports
from cglint.facts import own_nodes
from cglint.ops import load as load_ops
from cglint.tfpackage import is_tensorflow_file
from cglint.version_tests import UNKNOWN, VERSION_NAMES, evaluate, evaluate_value, release

_CACHE = weakref.WeakKeyDictionary()
# What each caught exception protects: an attribute use, an import, a call's keywords.
ATTRIBUTE, IMPORT, KEYWORD = _ATTRIBUTE, _IMPORT, _KEYWORD = "attribute", "import", "keyword"
_CATCHES = {
    "AttributeError": {_ATTRIBUTE},
    "ImportError": {_IMPORT},
    "ModuleNotFoundError": {_IMPORT},
    "TypeError": {_KEYWORD},
    "Exception": {_ATTRIBUTE, _IMPORT, _KEYWORD},
    "BaseException": {_ATTRIBUTE, _IMPORT, _KEYWORD},
    "StandardError": {_ATTRIBUTE, _IMPORT, _KEYWORD},  # Python 2's base of both
}
_ALL = None  # guards every name
# What a `try` body may raise on the target (_Finder._cannot_fail): anything; only what
# it raises on every release (a call's ValueError for a bad shape); nothing.
_FAILS, _NO_VERSION_ERROR, _NEVER_FAILS = "fails", "no version error", "never fails"
# The release whose op registry (cglint.ops) the data describes.
_OPS_TARGET = tfapi.normalize_version("1.8")


class Guards:
    """Which nodes of one module run only where a guarded name exists."""

    def __init__(self):
        # id(node) -> (kinds, names): kinds is a set of _ATTRIBUTE/_IMPORT/_KEYWORD; names
        # a set of qualified names whose uses are guarded, or _ALL.
        self.regions = {}

    def covers(self, node, qualname=None, kind=_ATTRIBUTE):
        """Is `node` (an attribute chain, import or keyword) guarded for `qualname`?"""
        for kinds, names in self.regions.get(id(node), ()):
            if kind not in kinds:
                continue
            if names is _ALL:
                return True
            if qualname is None:
                # Any guard of a TF name (`hasattr(self, "loss")` guards no TF call)
                if any(name.startswith("tensorflow.") for name in names):
                    return True
                continue
            if any(qualname == name or qualname.startswith(name + ".") for name in names):
                return True
        return False


def of(module):
    """The Guards of a ModuleFacts, built once."""
    guards = _CACHE.get(module)
    if guards is None:
        guards = _CACHE[module] = _Finder(module).find()
    return guards


def _is_call_of(expr, builtin):
    return isinstance(expr, ast.Call) and isinstance(expr.func, ast.Name) and \
        expr.func.id == builtin


class _Finder:
    def __init__(self, module):
        self.module = module
        self.guards = Guards()
        self._helpers = {}  # id(call) -> _helper_outcome(call)
        self._following = []  # the defs _helper_runs is looking into
        self._mentions = {}  # (id(value), depth) -> _mentions_version of a name's value
        self.version = release(module.target_tf)

    def find(self):
        module = self.module
        # Feature tests (hasattr, getattr, `in dir()`, the project's `tf_supports("x")`)
        # and version tests (`tf.__version__`, the project's `get_tf_version_tuple()`,
        # `is_tfv2()`), whatever the helpers are called: only files with a finding to
        # judge get here.
        for branch in module.names.untaken:  # top-level code the target never runs
            self._mark(branch, {_ATTRIBUTE, _IMPORT, _KEYWORD}, _ALL)
        for node in module.nodes[ast.If] + module.nodes[ast.IfExp]:
            self._feature_test(node)
            self._version_test(node)
        for node in module.nodes[ast.BoolOp]:
            if isinstance(node.op, ast.And):
                self._and_operands(node)
        self._early_exits()
        for function in self._refused_registrations():
            self._mark(function.body, {_ATTRIBUTE, _IMPORT, _KEYWORD}, _ALL)
        if "except" in module.text:
            star = module.nodes.get(getattr(ast, "TryStar", None), [])
            for node in module.nodes[ast.Try] + star:
                self._try(node)
        return self.guards

    def _refused_registrations(self):
        """The defs decorated `@tf.RegisterGradient("MaxPoolGrad")` with an op type the
        target already registers a gradient for: the decorator raises KeyError (CG203's
        finding, or caught by an importer's `try`), so the def is never bound and its body
        never runs there. The body is written for releases without that gradient."""
        if "RegisterGradient" not in self.module.text or is_tensorflow_file(self.module.path) \
                or tfapi.normalize_version(self.module.target_tf) != _OPS_TARGET:
            return []
        registered = load_ops()
        return [registration.function.node
                for registration in self.module.overrides.registrations
                if registration.applied and registration.differentiable
                and registration.function is not None
                and registration.call in getattr(registration.function.node,
                                                 "decorator_list", ())
                and (registration.name.value in registered.gradients
                     or registration.name.value in registered.not_differentiable)]

    def _mark(self, nodes, kinds, names):
        for start in nodes:
            for node in ast.walk(start):
                self.guards.regions.setdefault(id(node), []).append((kinds, names))

    @staticmethod
    def _branches(node):
        body = node.body if isinstance(node.body, list) else [node.body]
        orelse = node.orelse if isinstance(node.orelse, list) else [node.orelse]
        return body, orelse

    # -- hasattr / getattr -------------------------------------------------------------
    def _feature_test(self, node):
        passed, failed = self._tested_names(node.test)
        body, orelse = self._branches(node)
        kinds = {_ATTRIBUTE, _IMPORT, _KEYWORD}
        test, negated = node.test, False
        while isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
            test, negated = test.operand, not negated
        if self._surely_false(test):
            # `if hasattr(tf, "batch_gather"):` on 1.8: the branch never runs there,
            # whatever else it uses (`tf.broadcast_to`); the other branch is judged.
            self._mark(orelse if negated else body, kinds, _ALL)
        if passed:
            self._mark(body, kinds, passed)
        if failed:
            self._mark(orelse, kinds, failed)

    def _and_operands(self, node):
        """`hasattr(tf, "strings") and hasattr(tf.strings, "split")`, in a test or alone
        (`hasattr(tf, "print") and tf.print(x)`): each operand runs only where the ones
        before it passed."""
        for index, value in enumerate(node.values[:-1]):
            tested, _ = self._tested_names(value)
            if tested:
                self._mark(node.values[index + 1:], {_ATTRIBUTE, _IMPORT, _KEYWORD}, tested)

    def _surely_false(self, test, depth=0):
        """Whether a feature test is surely false on the target: it asks for a TensorFlow
        name the API table knows the target lacks (`hasattr(tf, "batch_gather")`, `"sort"
        in dir(tf)`, `getattr(tf, "sort", None) is not None`), alone, through a flag set
        once from one, or as an operand of `and`."""
        if depth > 3:
            return False
        if isinstance(test, ast.BoolOp) and isinstance(test.op, ast.And):
            return any(self._surely_false(value, depth + 1) for value in test.values)
        if isinstance(test, ast.Name):
            value = self._single_value(test)
            return value is not None and self._surely_false(value, depth + 1)
        if _is_call_of(test, "callable") and len(test.args) == 1:
            return self._surely_false(test.args[0], depth + 1)
        names = set()
        if isinstance(test, ast.Call):
            names = self._falsy_feature_name(test)
        elif isinstance(test, ast.Compare) and len(test.ops) == 1:
            operator, right = test.ops[0], test.comparators[0]
            if isinstance(operator, ast.In):
                names = self._listed_name(test.left, right)
            elif isinstance(operator, ast.IsNot) and isinstance(right, ast.Constant) and \
                    right.value is None and not _is_call_of(test.left, "hasattr"):
                names = self._falsy_feature_name(test.left)
        module = self.module
        # (a name the code stores on `tf` itself, a backport, may be there after all)
        return len(names) == 1 and all(
            name.startswith("tensorflow.") and tfapi.status(
                name, module.target_tf) == tfapi.MISSING
            and name not in module.stored_tf_names and not module.stored_by_imports(name)
            for name in names)

    def _falsy_feature_name(self, call):
        """{qualified name} of `hasattr(x, "n")` or `getattr(x, "n", None)`, false when
        `n` is missing; empty for a getattr whose default may be true."""
        if _is_call_of(call, "getattr") and not (
                len(call.args) == 3 and isinstance(call.args[2], ast.Constant)
                and call.args[2].value is None):
            return set()
        return self._feature_name(call)

    def _tested_names(self, test, depth=0):
        """(names that exist when the test is true, names that exist when it is false)."""
        if depth > 20:
            return set(), set()  # hostile nesting: no guard
        if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
            passed, failed = self._tested_names(test.operand, depth + 1)
            return failed, passed
        if isinstance(test, ast.BoolOp):
            passed, failed = set(), set()
            for value in test.values:
                more_passed, more_failed = self._tested_names(value, depth + 1)
                passed |= more_passed
                failed |= more_failed
            return passed, failed
        if isinstance(test, ast.Name):
            # A flag set once from a test (`_HAS_PRINT = hasattr(tf, "print")`), however
            # far from where it is read; a flag of flags a few deep (`x = x or x` is no
            # test, and must not be expanded again and again).
            value = self._single_value(test) if depth < 3 else None
            return self._tested_names(value, 3) if value is not None else (set(), set())
        if isinstance(test, ast.Compare) and len(test.ops) == 1 and isinstance(
                test.comparators[0], ast.Constant) and test.comparators[0].value is None:
            names = self._feature_name(test.left)  # `getattr(tf, "print", None) is not None`
            return (names, set()) if isinstance(test.ops[0], ast.IsNot) else (set(), names)
        if isinstance(test, ast.Compare) and len(test.ops) == 1 and isinstance(
                test.ops[0], (ast.In, ast.NotIn)):
            names = self._listed_name(test.left, test.comparators[0])  # `"n" in dir(tf)`
            return (names, set()) if isinstance(test.ops[0], ast.In) else (set(), names)
        if _is_call_of(test, "callable") and len(test.args) == 1:
            return self._tested_names(test.args[0], depth + 1)  # `callable(getattr(...))`
        if isinstance(test, ast.Call) and not isinstance(test.func, ast.Name) or \
                isinstance(test, ast.Call) and test.func.id not in ("hasattr", "getattr"):
            return self._feature_helper(test), set()
        return self._feature_name(test), set()

    def _feature_helper(self, call):
        """{qualified name} that the project's own feature test checks
        (`tf_supports("strings.reduce_join")`): a def given one dotted name, which (or a
        def of its module it calls) looks it up with getattr or hasattr."""
        if len(call.args) != 1 or call.keywords or not (
                isinstance(call.args[0], ast.Constant) and isinstance(call.args[0].value, str)
                and _DOTTED.match(call.args[0].value)):
            return set()
        found = self._helper_def(call)
        if found is None:
            return set()
        finder, function = found
        looked_up = [function]
        for node in own_nodes(function):
            if isinstance(node, ast.Call):
                helper = finder.module.called_function(node, finder.module.names.scope_of(node))
                if helper is not None:
                    looked_up.append(helper)
        if not any(isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
                   and node.func.id in ("getattr", "hasattr")
                   for helper in looked_up for node in own_nodes(helper)):
            return set()
        tested = "tensorflow." + call.args[0].value
        if tfapi.status(tested, self.module.target_tf) == tfapi.EXISTS:
            return set()  # it passes on 1.8: the branch runs, and is judged
        return {tested}

    def _feature_name(self, expr):
        """{qualified name} that `hasattr(x, "n")` / `getattr(x, "n", d)` tests, or empty."""
        if not (isinstance(expr, ast.Call) and isinstance(expr.func, ast.Name)
                and expr.func.id in ("hasattr", "getattr") and len(expr.args) >= 2):
            return set()
        return self._attribute_of(expr.args[0], expr.args[1])

    def _listed_name(self, name, listing):
        """{qualified name} that `"n" in dir(x)` tests, or empty."""
        if not (isinstance(listing, ast.Call) and isinstance(listing.func, ast.Name)
                and listing.func.id == "dir" and len(listing.args) == 1
                and not listing.keywords):
            return set()
        return self._attribute_of(listing.args[0], name)

    def _attribute_of(self, owner, name):
        """{qualified name of the attribute `name` (a string constant) of `owner`}, or
        empty when either is unknown."""
        if not (isinstance(name, ast.Constant) and isinstance(name.value, str)):
            return set()
        qualname = self.module.resolve(owner) if isinstance(owner, (ast.Name, ast.Attribute)) \
            else None
        if not qualname and isinstance(owner, ast.Name):
            qualname = owner.id  # an object of the code's: `hasattr(tape, "jacobian")`
        if not qualname:
            return set()
        tested = qualname + "." + name.value
        if tested.startswith("tensorflow.") and tfapi.status(
                tested, self.module.target_tf) == tfapi.EXISTS:
            # `hasattr(tf, "compat")` passes on 1.8, whose tf.compat has no v1: the test
            # guards nothing there, and what its branch uses is judged.
            return set()
        return {tested}

    # -- if not hasattr(tf, "print"): return ------------------------------------------
    def _early_exits(self):
        """An `if` whose body always leaves (return, raise, continue, break) guards the
        statements after it: they run only where its test was false."""
        kinds = {_ATTRIBUTE, _IMPORT, _KEYWORD}
        for owner in ast.walk(self.module.tree):
            for field in ("body", "orelse", "finalbody"):
                statements = getattr(owner, field, None)
                if not isinstance(statements, list):
                    continue
                for index, statement in enumerate(statements[:-1]):
                    if not (isinstance(statement, ast.If) and not statement.orelse
                            and _leaves(statement.body)):
                        continue
                    rest = statements[index + 1:]
                    _, failed = self._tested_names(statement.test)
                    if failed:
                        self._mark(rest, kinds, failed)
                    test = statement.test
                    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not) and \
                            self._surely_false(test.operand):
                        self._mark(rest, kinds, _ALL)  # `if not _HAS_SORT: return ...`
                    if self._mentions_version(statement.test):
                        if self._evaluate(statement.test) is not False:
                            self._mark(rest, kinds, _ALL)

    # -- tf.__version__ ----------------------------------------------------------------
    def _version_test(self, node):
        if not self._mentions_version(node.test):
            return
        body, orelse = self._branches(node)
        kinds = {_ATTRIBUTE, _IMPORT, _KEYWORD}
        taken = self._evaluate(node.test)
        if taken is not True:
            self._mark(body, kinds, _ALL)
        if taken is not False:
            self._mark(orelse, kinds, _ALL)
        self._short_circuit(node.test, kinds)

    def _short_circuit(self, test, kinds):
        """`is_tfv2() and isinstance(opt, tf.optimizers.Optimizer)`: what follows an
        operand that decides on the target never runs there."""
        if not isinstance(test, ast.BoolOp):
            return
        deciding = not isinstance(test.op, ast.And)
        for index, value in enumerate(test.values[:-1]):
            if self._mentions_version(value) and self._evaluate(value) is deciding:
                self._mark(test.values[index + 1:], kinds, _ALL)
                return

    def _mentions_version(self, expr, depth=0):
        for node in ast.walk(expr):
            if isinstance(node, ast.Attribute) and self.module.resolve(node) in VERSION_NAMES:
                return True
            if isinstance(node, ast.Name) and depth < 3:
                value = self._single_value(node)
                if value is not None and self._value_mentions_version(value, depth + 1):
                    return True
            if isinstance(node, ast.Call) and depth < 3 and self._helper_outcome(node)[1]:
                return True
        return False

    def _value_mentions_version(self, value, depth):
        """_mentions_version of a name's value, once per value (`x = (x, x, ...)` would
        be walked again for each of its names)."""
        key = (id(value), depth)
        if key not in self._mentions:
            self._mentions[key] = False  # a value that holds itself does not, meanwhile
            self._mentions[key] = self._mentions_version(value, depth)
        return self._mentions[key]

    def _evaluate(self, test):
        return evaluate(test, self.version, self.module.resolve, self._single_value,
                        self._call_value)

    def _call_value(self, call):
        """What a call of the project's own version helper returns on the target."""
        return self._helper_outcome(call)[0]

    def _helper_outcome(self, call):
        """(what the call returns on the target or UNKNOWN, whether that depends on the
        TF release) for a call of a def of this module, or of one imported from the
        project, that tests the release, with constant arguments if any:
        `get_tf_version_tuple()` returning a computation on `tf.__version__`, `is_tfv2()`
        returning from a `try` of `from tensorflow.python import tf2`,
        `version_greater_or_equal("1.13.0")`. (UNKNOWN, False) for anything else."""
        if not isinstance(call.func, (ast.Name, ast.Attribute)) or not all(
                isinstance(value, ast.Constant)
                for value in call.args + [k.value for k in call.keywords]):
            return _NO_OUTCOME
        found = self._helpers.get(id(call))
        if found is None:
            found = self._helpers[id(call)] = self._run_helper(call)
        return found

    def _run_helper(self, call):
        found = self._helper_def(call)
        if found is None:
            return _NO_OUTCOME
        finder, function = found
        # `self.at_least("1.0")`: a method's first parameter is the object (or class)
        bound = isinstance(call.func, ast.Attribute) and finder is self and not any(
            isinstance(d, ast.Name) and d.id == "staticmethod" for d in function.decorator_list)
        env = _bound_arguments(function, call, 1 if bound else 0)
        if env is None:
            return _NO_OUTCOME
        env[_DEPENDS] = False
        outcome = finder._run(function.body, 0, env)
        if outcome is None:
            return _NO_OUTCOME  # fell off the end: returns None, not a test
        return outcome

    def _helper_def(self, call):
        """(the _Finder of its module, the def) a call runs: a def of this module, or one
        imported from the project; else None."""
        found = self.module.def_called(call, self.module.names.scope_of(call))
        if found is None:
            return None
        facts, function = found
        return (self if facts is self.module else _Finder(facts)), function

    def _run(self, statements, depth, env):
        """Run a helper's statements as the target would: (value or UNKNOWN, depends on
        the release) at a `return`, None when they fall through. Known: returns, local
        assignments, `if`s on what can be evaluated, `try`s whose imports or TF names
        fail or not on the target, imports."""
        if depth > 8:
            return _NO_OUTCOME
        for index, statement in enumerate(statements):
            if index == 0 and isinstance(statement, ast.Expr) and isinstance(
                    statement.value, ast.Constant):
                continue  # the docstring
            if isinstance(statement, ast.Return):
                if statement.value is None:
                    return _NO_OUTCOME
                value = evaluate_value(statement.value, self.version, self.module.resolve,
                                       self._in(env))
                return value, env[_DEPENDS] or self._mentions_version(statement.value, 3)
            if isinstance(statement, ast.Assign) and len(statement.targets) == 1 and \
                    isinstance(statement.targets[0], ast.Name):
                env[statement.targets[0].id] = statement.value
                continue
            if isinstance(statement, ast.If):
                taken = evaluate(statement.test, self.version, self.module.resolve,
                                 self._in(env))
                mentions = env[_DEPENDS] or self._mentions_version(statement.test, 3)
                if taken is None:
                    return UNKNOWN, mentions
                env[_DEPENDS] = mentions
                outcome = self._run(statement.body if taken else statement.orelse,
                                    depth + 1, env)
                if outcome is not None:
                    return outcome
                continue
            if isinstance(statement, ast.Try):
                fails, kind = self._fails_on_target(statement.body)
                if fails is None or statement.finalbody:
                    return UNKNOWN, True
                env[_DEPENDS] = True
                block = statement.body + statement.orelse  # `else:` runs after a body
                if fails:
                    handler = next((h for h in statement.handlers
                                    if kind in self._caught(h.type)), None)
                    if handler is None:
                        return _NO_OUTCOME
                    block = handler.body
                outcome = self._run(block, depth + 1, env)
                if outcome is not None:
                    return outcome
                continue
            if isinstance(statement, (ast.Import, ast.ImportFrom)):
                if _import_fails(statement) is not False:
                    return _NO_OUTCOME
                continue
            return _NO_OUTCOME
        return None

    def _fails_on_target(self, statements):
        """(whether a `try` body fails on the target, and with what kind of error) from
        its leading imports and assignments of TF names: (True, _IMPORT) for an import
        1.8 lacks, (True, _ATTRIBUTE) for a TF name it lacks (`tf.version.VERSION`),
        (False, None) when they all work and something else follows, (None, None) when
        unknown."""
        checked = 0
        for statement in statements:
            if isinstance(statement, (ast.Import, ast.ImportFrom)):
                failing = _import_fails(statement)
                if failing is None:
                    return None, None
                if failing:
                    return True, _IMPORT
            elif isinstance(statement, ast.Assign) and isinstance(statement.value,
                                                                  ast.Attribute):
                qualname = self.module.resolve(statement.value)
                if not qualname or not qualname.startswith("tensorflow."):
                    return None, None
                status = tfapi.status(qualname, self.module.target_tf)
                if status == tfapi.MISSING:
                    return True, _ATTRIBUTE
                if status != tfapi.EXISTS:
                    return None, None
            else:
                break
            checked += 1
        return (False, None) if checked else (None, None)

    def _in(self, env):
        """single_value for a helper's run: its arguments and locals first."""
        def value_of(name):
            if name.id in env:
                return env[name.id]
            return self._single_value(name)
        return value_of

    def _single_value(self, name):
        """The one value `name` was given: an assignment's, or its item of an unpacked
        one (`_MAJOR, _MINOR = tf.__version__.split(".")[:2]`, as `(...)[0]`); or None."""
        bindings = self.module.names.lookup(name.id, self.module.names.scope_of(name))
        if len(bindings) != 1:
            return None
        binding = bindings[0]
        if binding.kind == "assign":
            return binding.node
        if binding.kind == "other" and isinstance(binding.node, ast.Name):
            return self._unpacked_item(binding.node)
        return None

    def _unpacked_item(self, target):
        """`value[i]` for the name `target`, item i of the only target of an assignment
        (`a, b = value`), without a starred item before it; else None."""
        unpacking = self.module.parent_of(target)
        if not isinstance(unpacking, (ast.Tuple, ast.List)):
            return None
        assignment = self.module.parent_of(unpacking)
        if not (isinstance(assignment, ast.Assign) and assignment.targets == [unpacking]):
            return None
        index = next(i for i, item in enumerate(unpacking.elts) if item is target)
        if any(isinstance(item, ast.Starred) for item in unpacking.elts[:index + 1]):
            return None
        item = ast.Subscript(value=assignment.value, slice=ast.Constant(index), ctx=ast.Load())
        return ast.copy_location(item, target)

    # -- try / except ------------------------------------------------------------------
    def _try(self, node):
        kinds = set()
        for handler in node.handlers:
            kinds |= self._caught(handler.type)
        if kinds:
            self._mark(node.body, kinds, _ALL)
        if _IMPORT in kinds and self.version == (1, 8):
            # `try: import tensorflow.compat.v1 as tf; tf.disable_v2_behavior()` / `except
            # ImportError:`: on 1.8 the import fails, and what follows it never runs.
            for index, statement in enumerate(node.body):
                if isinstance(statement, (ast.Import, ast.ImportFrom)) and \
                        _import_fails(statement) is True:
                    self._mark(node.body[index + 1:], {_ATTRIBUTE, _IMPORT, _KEYWORD}, _ALL)
                    break
        safe = self._cannot_fail(node.body) if node.handlers else _FAILS
        if safe is not _FAILS:
            # A fallback for older releases (`except ImportError:` after imports that
            # work in the target) never runs there. A call may still raise what it
            # raises on any release (a ValueError for a shape): a handler of that is
            # no fallback, and is judged.
            for handler in node.handlers:
                if safe is _NEVER_FAILS or self._caught(handler.type):
                    self._mark(handler.body, {_ATTRIBUTE, _IMPORT, _KEYWORD}, _ALL)

    def _cannot_fail(self, statements):
        """_NEVER_FAILS when each statement is an import the target's TF surely has, an
        assignment of something surely there, or `pass`; _NO_VERSION_ERROR when some are
        calls of TF functions that surely take their arguments (assigned, returned or
        alone); _FAILS else. Known for 1.8 only, from its wheels."""
        if self.version != (1, 8) or not statements:
            return _FAILS
        verdict = _NEVER_FAILS
        bound = set()  # names the statements so far have bound
        for statement in statements:
            if isinstance(statement, ast.Pass):
                continue
            if isinstance(statement, ast.Assign):
                names = all(isinstance(target, ast.Name) for target in statement.targets)
                if names and self._surely_there(statement.value, bound):
                    bound.update(target.id for target in statement.targets)
                    continue
                # `self.outputs = tf.image.resize_images(...)`: data stores, TF calls
                if not (all(self._plain(target) for target in statement.targets)
                        and self._surely_runs(statement.value)):
                    return _FAILS
                verdict = _NO_VERSION_ERROR
                bound.update(target.id for target in statement.targets
                             if isinstance(target, ast.Name))
                continue
            if isinstance(statement, ast.Return) and (statement.value is None or (
                    isinstance(statement.value, ast.Name) and statement.value.id in bound)):
                continue  # a bare `return`, or of a name just bound
            if isinstance(statement, ast.With):
                # `with tf.name_scope("length"):` around statements that cannot fail
                targets = [item.optional_vars for item in statement.items
                           if item.optional_vars is not None]
                if not all(self._surely_runs(item.context_expr) for item in statement.items) \
                        or not all(isinstance(target, ast.Name) for target in targets) \
                        or self._cannot_fail(statement.body) is _FAILS:
                    return _FAILS
                verdict = _NO_VERSION_ERROR
                bound.update(target.id for target in targets)
                bound.update(_bound_names(statement.body))
                continue
            if isinstance(statement, (ast.Return, ast.Expr)):
                if not self._surely_runs(statement.value):
                    return _FAILS
                verdict = _NO_VERSION_ERROR
                continue
            if isinstance(statement, ast.Import):
                modules = [(alias.name, None) for alias in statement.names]
            elif isinstance(statement, ast.ImportFrom) and not statement.level and \
                    statement.module:
                modules = [(statement.module, alias.name) for alias in statement.names]
            else:
                return _FAILS
            for module, name in modules:
                if name == "*" or not (module + ".").startswith("tensorflow.") or \
                        not _surely_imports(module, name):
                    return _FAILS
            bound.update((alias.asname or alias.name).split(".")[0] for alias in statement.names)
        return verdict

    def _surely_there(self, value, bound):
        """A constant, a name bound just before, or a TF name 1.8 has (`tf.summary.merge`)."""
        if isinstance(value, ast.Constant) or (isinstance(value, ast.Name) and value.id in bound):
            return True
        if not isinstance(value, ast.Attribute):
            return False
        qualname = self.module.resolve(value)
        if not qualname or not qualname.startswith("tensorflow."):
            return False
        verdict = tfimports.follow(qualname, self.module.imported_modules)
        if verdict == tfimports.TABLE:
            return tfapi.status(qualname, "1.8") == tfapi.EXISTS
        return verdict == tfimports.FOUND

    def _surely_runs(self, value):
        """An expression of TF calls 1.8 has, with keywords their signatures name, over
        plain data (names, constants, attributes, displays, arithmetic, conditions): it
        raises nothing a fallback for older TF catches, only what it would raise on any
        release. At least one TF call: else it is not about TF at all."""
        calls = [node for node in ast.walk(value) if isinstance(node, ast.Call)]
        builtins = [call for call in calls if self._inert_builtin(call)]
        return len(calls) > len(builtins) and all(
            call in builtins or self._call_runs(call) or self._helper_runs(call)
            for call in calls) and self._plain(value)

    def _helper_runs(self, call):
        """A call of a def of this module whose body surely runs (`length(x)` whose body
        is `return tf.reduce_sum(tf.sign(x), 1)`), followed a few calls deep."""
        if len(self._following) >= 3 or not isinstance(call.func, ast.Name):
            return False
        function = self.module.called_function(call, self.module.names.scope_of(call))
        if function is None or function in self._following:
            return False
        body = function.body
        if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
            body = body[1:]  # the docstring
        self._following.append(function)
        try:
            return self._cannot_fail(body) is not _FAILS
        finally:
            self._following.pop()

    def _inert_builtin(self, call):
        return isinstance(call.func, ast.Name) and call.func.id in _INERT_BUILTINS and \
            not call.keywords and not self.module.names.lookup(
                call.func.id, self.module.names.scope_of(call))

    def _call_runs(self, call):
        """A TF function 1.8 has, called with keywords its signature names."""
        if not self._surely_there(call.func, ()):
            return False
        qualname = self.module.resolve(call.func)
        return all(keyword.arg is not None and tfapi.accepts_keyword(
            qualname, keyword.arg, self.module.target_tf) is True for keyword in call.keywords)

    def _plain(self, expr):
        """Data and checked calls only: a TF name in it is one 1.8 has, as CG402 judges."""
        for node in ast.walk(expr):
            if not isinstance(node, _PLAIN_DATA):
                return False
            if isinstance(node, ast.Attribute) and not self._not_missing(node):
                return False
        return True

    def _not_missing(self, node):
        qualname = self.module.resolve(node)
        if not qualname or not qualname.startswith("tensorflow."):
            return True
        verdict = tfimports.follow(qualname, self.module.imported_modules)
        if isinstance(verdict, tuple):
            return False  # a module of the wheel without it
        return verdict != tfimports.TABLE or tfapi.missing(qualname, "1.8") is None

    def _caught(self, expr):
        if expr is None:
            return {_ATTRIBUTE, _IMPORT, _KEYWORD}  # a bare except
        if isinstance(expr, ast.Tuple):
            kinds = set()
            for element in expr.elts:
                kinds |= self._caught(element)
            return kinds
        name = expr.attr if isinstance(expr, ast.Attribute) else getattr(expr, "id", None)
        return set(_CATCHES.get(name, ()))


# What an expression that surely runs may be made of: data, and calls checked apart.
_PLAIN_DATA = (ast.Name, ast.Constant, ast.Attribute, ast.Subscript, ast.Slice, ast.List,
               ast.Tuple, ast.Dict, ast.BinOp, ast.UnaryOp, ast.Starred, ast.IfExp,
               ast.Compare, ast.BoolOp, ast.Call, ast.keyword, ast.expr_context, ast.operator,
               ast.unaryop, ast.cmpop, ast.boolop)
# Builtins a TF expression may call (`isinstance(x, tf.Tensor)`) that raise no version error.
_INERT_BUILTINS = frozenset(("isinstance", "len", "int", "float", "list", "tuple"))


_NO_OUTCOME = (UNKNOWN, False)
_DOTTED = re.compile(r"[A-Za-z_]\w*(\.[A-Za-z_]\w*)*\Z")
_DEPENDS = None  # a helper run's record of whether its path depended on the TF release


def _bound_names(statements):
    """Names plain assignments among `statements` bind."""
    return {target.id for statement in statements if isinstance(statement, ast.Assign)
            for target in statement.targets if isinstance(target, ast.Name)}


def _bound_arguments(function, call, skip=0):
    """{parameter: the constant the call passes, or its constant default}, or None when
    the call does not fill the parameters plainly; the first `skip` parameters are bound
    already (a method's `self`)."""
    arguments = function.args
    if arguments.posonlyargs or arguments.vararg or arguments.kwarg or \
            len(arguments.args) < skip:
        return None
    names = [arg.arg for arg in arguments.args][skip:]
    if len(call.args) > len(names) or len(arguments.defaults) > len(names):
        return None
    env = dict(zip(names, call.args))
    for keyword in call.keywords:
        if keyword.arg not in names[len(call.args):]:
            return None
        env[keyword.arg] = keyword.value
    defaults = dict(zip(names[len(names) - len(arguments.defaults):], arguments.defaults))
    defaults.update((arg.arg, default) for arg, default in zip(arguments.kwonlyargs,
                                                               arguments.kw_defaults))
    for name in names + [arg.arg for arg in arguments.kwonlyargs]:
        if name not in env:
            if not isinstance(defaults.get(name), ast.Constant):
                return None
            env[name] = defaults[name]
    return env


def _surely_imports(module, name):
    """Whether `from module import name` (`import module`) surely works on 1.8: the
    wheels' model says so, or, for a module attribute access reaches there, the API
    table lists the name (positively: an unknown name may fail)."""
    verdict, _ = tfimports.import_fails(module, name)
    if verdict is not None:
        return verdict is False
    dotted = module + "." + name if name else module
    return tfapi.status(dotted, "1.8") == tfapi.EXISTS


def _import_fails(statement):
    """Whether an import statement of TensorFlow fails on 1.8 (its wheels): True, False, or
    None when unknown or not TensorFlow's."""
    if isinstance(statement, ast.Import):
        modules = [(alias.name, None) for alias in statement.names]
    elif not statement.level and statement.module:
        modules = [(statement.module, alias.name) for alias in statement.names]
    else:
        return None
    verdicts = []
    for module, name in modules:
        if name == "*" or not (module + ".").startswith("tensorflow."):
            return None
        verdicts.append(failing_imports.fails_on(module, name, "1.8"))
    if any(verdict is True for verdict in verdicts):
        return True
    return False if all(verdict is False for verdict in verdicts) else None


def _leaves(statements):
    """Does this block always leave the enclosing one (its last statement jumps away)?"""
    return bool(statements) and isinstance(statements[-1], (ast.Return, ast.Raise,
                                                            ast.Continue, ast.Break))

