"""Facts about gradient overrides in one module: `graph.gradient_override_map({...})`
maps and the ops built inside their `with` blocks, and `tf.RegisterGradient` (and
`tf.NotDifferentiable`) registrations: under which name, of which function, guarded or
not, and how many times they run. Built once per module from ModuleFacts; rules CG201 to
CG204 read them, and summarize them for the whole-run checks.

A name is known only when static analysis can be sure of the string: constants, constant
concatenation, and variables assigned a constant once. Anything built at run time (uuid,
counters, `format`, f-strings with values) is unknown, and rules say nothing about it.
"""
import ast
import hashlib
import os
import re
import stat
import string
import sys
from dataclasses import dataclass, field
from functools import cached_property
from typing import Optional

from cglint.containers import ADDING_METHODS
from cglint.facts import GradFunction, Parameters, _tensorflow_module, own_nodes
from cglint.names import same_scope_nodes
from cglint.ops import load as load_ops
from cglint.project import (LOAD_OPS_WORD, catches_key_error, dynamic_imports,
                            imported_by_calls)
from cglint.tfpackage import is_tensorflow_file

REGISTER_GRADIENT = frozenset((
    "tensorflow.RegisterGradient",
    "tensorflow.compat.v1.RegisterGradient",
))
NOT_DIFFERENTIABLE = frozenset((
    "tensorflow.NotDifferentiable",
    "tensorflow.NoGradient",
    "tensorflow.compat.v1.NotDifferentiable",
    "tensorflow.compat.v1.NoGradient",
))
# Without one of these words a module has no override facts: skip the walks.
_MARKERS = ("gradient_override_map", "RegisterGradient", "NotDifferentiable", "NoGradient")
_LOOPS = (ast.For, ast.AsyncFor, ast.While)
_SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)
_FUNCTIONS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)
# Expressions that make a container, never a string: what a message calls them.
_CONTAINERS = {ast.Dict: "dict", ast.DictComp: "dict", ast.List: "list", ast.ListComp: "list",
               ast.Tuple: "tuple", ast.Set: "set", ast.SetComp: "set",
               ast.GeneratorExp: "generator"}
_MAX_DEPTH = 6
# Methods of a dict whose result a `for` loop takes the keys (or the items) of.
_DICT_VIEWS = frozenset(("keys", "items", "iterkeys", "iteritems"))
# Methods and builtins that only read the list, dict or set they are given.
_READING_METHODS = frozenset(("keys", "items", "values", "iterkeys", "iteritems",
                              "itervalues", "get", "index", "count", "copy"))
_READING_BUILTINS = frozenset(("len", "sorted", "list", "tuple", "set", "zip", "enumerate",
                               "reversed", "print", "str", "repr", "any", "all", "iter"))


@dataclass(eq=False)
class GradientName:
    node: ast.AST
    value: Optional[str]  # the string, when static analysis can know it
    # Equal identities mean the same run-time string: ("const", text), or ("binding", id)
    # for one variable, so `tf.RegisterGradient(name)` and `{"Relu": name}` still match
    # when `name` holds a uuid-suffixed string.
    identity: object = None
    from_caller: bool = False  # a parameter of the enclosing function: any name can come in
    # For a name built at run time from known parts (an f-string, `%`, `.format`, `+`):
    # a regular expression every value it can take matches.
    pattern: Optional[str] = None


@dataclass(eq=False)
class OverrideEntry:
    key_node: ast.AST
    key: Optional[str]
    value: GradientName
    # a key or value that is surely no string (`{"Relu": _guided}`, the function itself):
    # TF 1.8 raises TypeError at the `with`
    not_strings: tuple = ()  # (NotAString, ...)
    # For a value that is a parameter of the def holding the map (`{"Relu": name}` in
    # `def modify_backprop(model, name)`): the known strings the module's calls of the
    # def pass it, each a GradientName at the argument.
    passed: tuple = ()


@dataclass(eq=False)
class BuiltCall:
    call: ast.Call
    qualname: str  # "tensorflow.nn.leaky_relu"
    op_types: tuple  # ("Maximum", "Mul")
    # The enclosing function's parameter passed on as an argument that changes the op
    # types (`tf.py_func(..., stateful=stateful)`): its callers decide them.
    switch_parameter: Optional[str] = None
    # Op types it builds instead given other arguments (`tf.nn.log_softmax` of an `axis`
    # not the last), when its arguments here do not decide them.
    other_types: tuple = ()


@dataclass(eq=False)
class OverrideMap:
    call: ast.Call  # the `gradient_override_map(...)` call
    entries: list  # [OverrideEntry]; empty when the mapping is not a literal we can read
    keys_complete: bool  # every key of the mapping is a known string
    block: Optional[ast.AST] = None  # the `with` statement it is the context manager of
    # Calls in the block with the op types they build; None when the block calls something
    # whose ops are unknown (a user function, a TF function not in the op data).
    built: Optional[list] = None
    # Op types the block may build too: through Python operators on tensors, or through
    # arguments that change what a function builds (`py_func(..., stateful=False)`).
    maybe_built: frozenset = frozenset()
    # Op types of maybe_built that a Python operator surely builds: an operand is surely
    # a tensor (`x * w` with `x = tf.constant(...)`) and the operator has one op type.
    operator_built: frozenset = frozenset()
    # [(call of the function holding the block, BuiltCall)]: calls whose argument makes a
    # call in the block build its other op types (`py_func(f, [x], [tf.float32],
    # stateful=False)` of a helper passing `stateful` on to `tf.py_func`).
    switched: list = field(default_factory=list)


@dataclass(eq=False)
class Registration:
    call: ast.Call  # `tf.RegisterGradient("Name")` or `tf.NotDifferentiable("Name")`
    name: GradientName
    differentiable: bool  # False for NotDifferentiable: registers None
    applied: bool  # the registration happens (decorator, or called on a function at once)
    function: Optional[GradFunction]  # the registered gradient function, when known
    guarded: bool  # inside `try: ... except KeyError`, or `if ... _gradient_registry ...`
    # One (line, guarded) per time it runs: the statement itself at module level, or each
    # call of the function it sits in (twice for a call in a loop). Empty when unknown.
    runs: list = field(default_factory=list)
    in_function: Optional[ast.AST] = None  # the def it sits in
    in_loop: bool = False  # inside a loop of its own module or function body
    looped_lines: frozenset = frozenset()  # lines of `runs` whose call is in a loop
    estimator_lines: frozenset = frozenset()  # lines of `runs` where an Estimator runs it
    per_instance: bool = False  # it sits in `__init__` or a layer's `build`: runs are its
    # class's instantiations
    # In a def, behind a run-once guard that the def sets (Builder.registers_once): it
    # registers once however often the def runs.
    once: bool = False


@dataclass(eq=False)
class NotAString:
    """Something given where TF 1.8 wants a string, and that surely is none."""

    node: ast.AST  # to report
    what: str  # "the function `_guided`", "a lambda", "None", "the number 1"
    # the def or lambda it is, when one (its registration may give the name wanted)
    function: Optional[ast.AST] = None


@dataclass(eq=False)
class Misregistration:
    """`tf.RegisterGradient` (or `tf.NotDifferentiable`) given no name: applied to the
    gradient function as a bare decorator (`@tf.RegisterGradient`), or called with one
    (`tf.RegisterGradient(_guided)`). TF 1.8 raises `TypeError: op_type must be a string`
    there, and registers nothing."""

    node: ast.AST  # the decorator, or the call
    qualname: str  # "tensorflow.RegisterGradient"
    given: NotAString
    decorator: bool  # a bare decorator (else a call)


@dataclass(eq=False)
class OverrideFacts:
    maps: list = field(default_factory=list)  # [OverrideMap]
    registrations: list = field(default_factory=list)  # [Registration]
    eager_line: Optional[int] = None  # where the module enables eager execution
    # `x.RegisterGradient("Name")` where `x` is not known to be TensorFlow (bound through a
    # call, say): unknown is not wrong, so such names still count as registered.
    unresolved_registrations: list = field(default_factory=list)  # [GradientName]
    # Dotted components of this module's own path, and of every module it imports: which
    # files of a run end up in one process together.
    components: tuple = ()
    imports: tuple = ()
    misregistrations: list = field(default_factory=list)  # [Misregistration]
    source: tuple = ()  # (tree, text) of the module, for loads_unknown (no cycle through it)
    imported_registrars: Optional[list] = None  # registering_imports, once worked out

    @property
    def loads_unknown(self):
        """Whether the module loads modules or runs code cglint cannot name
        (`importlib.import_module(name)`, `imp.load_source`, `exec`): any gradient name may
        be registered there. Asked only of modules with a registration or a map: one
        search of the text, too dear for every file."""
        return dynamic_imports(*self.source).unknown

    def registered(self, identity):
        return [r for r in self.registrations if r.name.identity == identity]


@dataclass
class RegisteredNames:
    """What a module's registrations can register: for the whole-run CG202 check."""

    names: dict  # known name -> first line registering it
    patterns: list  # regular expressions of names built at run time from known parts
    any_name: bool  # some name cglint cannot know (a caller's, a loop variable's): any


def registered_names(facts):
    names, patterns, any_name = {}, [], False
    found = [(r.name, r.call.lineno) for r in facts.registrations]
    found += [(name, name.node.lineno) for name in facts.unresolved_registrations]
    for name, line in found:
        if name.value is not None:
            names.setdefault(name.value, line)
        elif name.pattern is not None and not name.from_caller:
            patterns.append(name.pattern)
        else:
            # A parameter, a loop variable (`for name, f in [("HalfGrad", 0.5), ...]`), an
            # item of a table: any name may be registered here.
            any_name = True
    # `@tf.RegisterGradient` without a name raises TypeError at the decorator (CG202
    # reports it there), before a map of the name it was meant to register, which cglint
    # cannot know, can raise LookupError.
    any_name = any_name or bool(facts.misregistrations)
    return RegisteredNames(names, patterns, any_name)


def repeatable_registrations(facts):
    """(Registration, name, whether one of its runs is outside `try: ... except
    KeyError`) of each registration that runs under a known name that TF 1.8 does not
    register itself: those a second registration of the same name makes fail (CG203)."""
    ops = load_ops()
    for registration in facts.registrations:
        name = registration.name.value
        if (not registration.applied or name is None or not registration.runs
                or name in ops.gradients or name in ops.not_differentiable):
            continue
        yield registration, name, not all(guarded for _, guarded in registration.runs)


def registered_runs(facts):
    """{name: whether some registration of it runs unguarded} (repeatable_registrations)."""
    found = {}
    for _, name, unguarded in repeatable_registrations(facts):
        found[name] = found.get(name, False) or unguarded
    return found


def override_uses(facts):
    """(registered name, op type, line) of each gradient_override_map entry that maps a
    known op type to a known name."""
    return [(entry.value.value, entry.key, found.call.lineno) for found in facts.maps
            for entry in found.entries if entry.value.value and entry.key]


# The first Python whose imports find a package without `__init__.py` (PEP 420).
NAMESPACE_PACKAGES = (3, 3)


def loaded_on_disk(module):
    """[ModuleSummary] of the project modules on disk that a process importing `module`
    loads (cglint.project), made dependencies of its findings: so that a file checked
    alone is judged with the modules a whole-tree run would give it. None for a text on
    no disk, or a module of TensorFlow itself."""
    if module.path == "-" or is_tensorflow_file(module.path):
        return []
    found = module.__dict__.get("_loaded_on_disk")  # CG201, CG203 and CG204 ask
    if found is None:
        from cglint import project

        summaries, dependencies = project.current().loaded_with(
            module.path, namespaces=module.target_python >= NAMESPACE_PACKAGES)
        module.dependencies.update(dependencies)
        found = module.__dict__["_loaded_on_disk"] = [
            summary for summary in summaries if not is_tensorflow_file(summary.path)]
    return found


# What a TF op type's name looks like: one of a loaded op library may have any such name.
OP_NAME = re.compile(r"(?:_.*|[A-Z][A-Za-z0-9]*)\Z")  # (`.`: no line break, as RE2)


def loads_custom_ops(module):
    """Whether the program defines op types of its own: it, or a project module loaded
    with it, calls `tf.load_op_library` (their names are in no table)."""
    word = LOAD_OPS_WORD
    calls_it = word in module.text and any(
        qualname and qualname.endswith("." + word) for _, qualname in module.calls)
    return calls_it or any(summary.loads_ops for summary in loaded_on_disk(module))


def key_matches_no_op(module, key, ops, custom_ops):
    """Whether CG201 reports `key` as no TF 1.8 op type (`"ReLU"`): no op has that type,
    so TF 1.8 never looks the entry's value up, registered or not (probe z1, z01: the
    program runs with Relu's own gradient). `custom_ops` caches, as its one item, whether
    the program loads op types of its own (then a name spelled like an op type may be
    one, and CG201 says nothing)."""
    if key is None or ops.is_op(key):
        return False
    if OP_NAME.match(key):
        if not custom_ops:
            custom_ops.append(loads_custom_ops(module))
        return not custom_ops[0]
    return True


def build(module):
    """The OverrideFacts of a ModuleFacts (read them as `module.overrides`)."""
    return _Builder(module).build()


class _Builder:
    def __init__(self, module):
        self.module = module
        self.qualnames = {}  # id(Call) -> what it calls
        self.calls_by_name = {}  # `f` -> the calls `f(...)` of a plain name
        self.looped_call_lines = set()  # lines of calls _times found in a loop
        self.estimator_lines = set()  # lines where an Estimator runs a model_fn
        self.per_instance_functions = set()  # ids of `__init__`s and layers' `build`s
        self._runs_of = {}  # (id(scope), looped, guarded) -> runs()
        self._exits_of = {}  # id(statement list) -> its early exits (_early_exits)
        self._indices = {}  # id(statement list) -> {id(statement): its index}
        self._sets_of = {}  # (id(statement list), state) -> _sets_state of a statement
        self._strings = {}  # (id(expr), id(scope), depth) -> constant_string
        self._module_dicts = {}  # id(the name's one binding) -> _module_dict
        self.misregistrations = []  # [Misregistration] of the calls registration() reads
        self.nameless = []  # [GradientName] of registrations without one name (`()`, `*a`)

    @property
    def names(self):
        return self.module.names  # only files with a marker get this far

    def build(self):
        module = self.module
        facts = OverrideFacts(components=module_components(module.path),
                              imports=imported_components(
                                  module, imported_by_calls(module.tree, module.text)),
                              source=(module.tree, module.text))
        if not any(marker in module.text for marker in _MARKERS):
            return facts
        for call, qualname in module.calls:
            self.qualnames[id(call)] = qualname
            if isinstance(call.func, ast.Name):
                self.calls_by_name.setdefault(call.func.id, []).append(call)
        if module.eager_switches:
            facts.eager_line = module.eager_switches[0].lineno
        for call, qualname in module.calls:
            if qualname in REGISTER_GRADIENT or qualname in NOT_DIFFERENTIABLE:
                registration = self.registration(call, qualname in REGISTER_GRADIENT)
                if registration is not None:
                    facts.registrations.append(registration)
            elif qualname is None and _registers_by_name(call) and len(call.args) == 1:
                facts.unresolved_registrations.append(
                    self.gradient_name(call.args[0], self.names.scope_of(call)))
        facts.misregistrations += self.misregistrations
        facts.unresolved_registrations += self.nameless
        facts.misregistrations += self.bare_decorators()
        for call in module.override_maps:
            facts.maps.append(self.override_map(call))
        facts.registrations.sort(key=lambda r: (r.call.lineno, r.call.col_offset))
        facts.maps.sort(key=lambda m: (m.call.lineno, m.call.col_offset))
        return facts

    # Registrations

    def registration(self, call, differentiable):
        passed = call.args + [keyword.value for keyword in call.keywords
                              if keyword.arg == "op_type"]
        op_type = passed[0] if len(passed) == 1 and not isinstance(passed[0], ast.Starred) \
            and len(call.args) + len(call.keywords) == 1 else None
        if op_type is None:
            # `tf.RegisterGradient()` raises TypeError at once (CG403), and `*args` may
            # pass any name: a name cglint cannot know, which any map may use
            self.nameless.append(GradientName(call, None))
            return None
        scope = self.names.scope_of(call)
        given = self.not_a_string(op_type, scope)
        if given is not None:
            self.misregistrations.append(Misregistration(
                call, self.qualnames[id(call)], given, False))
            return None
        name = self.gradient_name(op_type, scope)
        function, applied = None, not differentiable
        parent = self.module.parent_of(call)
        if differentiable:
            if isinstance(parent, (ast.FunctionDef, ast.AsyncFunctionDef)) and (
                    call in parent.decorator_list):
                function, applied = self.grad_function(parent), True
            elif isinstance(parent, ast.Call) and parent.func is call and len(parent.args) == 1:
                applied = True
                function = self.registered_function(parent.args[0], scope)
        registration = Registration(call, name, differentiable, applied, function,
                                    self.guarded(call, name.value))
        home, looped = self.enclosing_scope(call)
        registration.in_loop = looped or self.in_loop(call, home.node)
        registration.in_function, registration.runs = self.runs(
            call.lineno, home, registration.in_loop, registration.guarded)
        registration.looped_lines = frozenset(
            line for line, _ in registration.runs if line in self.looped_call_lines)
        registration.estimator_lines = frozenset(
            line for line, _ in registration.runs if line in self.estimator_lines)
        registration.per_instance = registration.in_function is not None and id(
            registration.in_function) in self.per_instance_functions
        if registration.in_function is not None:
            registration.once = self.registers_once(call, home.node, name.value)
        if len(registration.runs) > 1 and (registration.once or (
                registration.in_function is None and self.registers_once(
                    call, home.node, name.value))):
            registration.runs = registration.runs[:1]
        return registration

    def bare_decorators(self):
        """Misregistrations of defs decorated with `@tf.RegisterGradient` (or
        `@tf.NotDifferentiable`) itself, not with its call."""
        nodes = self.module.nodes
        for function in nodes[ast.FunctionDef] + nodes[ast.AsyncFunctionDef]:
            for decorator in function.decorator_list:
                if not isinstance(decorator, (ast.Name, ast.Attribute)):
                    continue
                qualname = self.module.resolve(decorator)
                if qualname in REGISTER_GRADIENT or qualname in NOT_DIFFERENTIABLE:
                    given = NotAString(function, "the function `%s`" % function.name, function)
                    yield Misregistration(decorator, qualname, given, True)

    def not_a_string(self, expr, scope):
        """NotAString when `expr`, read in `scope`, is surely no string: a def, a lambda
        or a class (or a name bound only to them), None, a number, a container; bytes on
        Python 3 (they are Python 2's `str`). None when it may be a string."""
        if isinstance(expr, ast.Lambda):
            return NotAString(expr, "a lambda", expr)
        if isinstance(expr, ast.Constant):
            value = expr.value
            if isinstance(value, bytes):
                return NotAString(expr, "the bytes `%s` (no `str` on Python 3)"
                                  % ast.unparse(expr)) if self.module.target_python >= (3,) \
                    else None
            if value is None or value is Ellipsis or isinstance(value, (bool, int, float,
                                                                        complex)):
                return NotAString(expr, "`%r`" % (value,))
            return None
        if type(expr) in _CONTAINERS:
            return NotAString(expr, "a %s" % _CONTAINERS[type(expr)])
        if isinstance(expr, ast.Name):
            bindings = self.names.lookup(expr.id, scope)
            kinds = {binding.kind for binding in bindings}
            if kinds == {"def"}:
                function = bindings[-1].node
                return NotAString(expr, "the function `%s`" % expr.id, function)
            if kinds == {"class"}:
                return NotAString(expr, "the class `%s`" % expr.id)
            if len(bindings) == 1 and kinds == {"assign"} and isinstance(
                    bindings[0].node, ast.Lambda):
                return NotAString(expr, "the lambda `%s`" % expr.id, bindings[0].node)
        return None

    def registers_once(self, call, stop, name=None):
        """Behind a run-once guard of the def (or module) it sits in: under `if not
        flag:` (`if name not in done:`, `if cache is None:`, or the `else` of the opposite
        test), or after `if flag: return`, where the def sets that state on the way to the
        registration (`flag = True`, `done.add(name)`, `cache[name] = f`) in a global, an
        attribute or a container that outlives the call; or a test of TF's gradient
        registry, which the registration itself fills. Not when a loop between the guard
        and the registration repeats it within one run."""
        blocks, guards = [], []  # statement lists on the way up; (test, truth it runs at)
        child, parent = call, self.module.parent_of(call)
        while parent is not None:
            if isinstance(parent, _LOOPS) and child not in parent.orelse and not guards:
                return False  # (a guard inside the loop still holds: see the next level)
            for field_name in ("body", "orelse", "finalbody"):
                block = getattr(parent, field_name, None)
                position = self._index(block, child) if isinstance(block, list) else None
                if position is not None:
                    blocks.append(block)
                    guards += [(test, False) for test in self._early_exits(block, position)]
            if isinstance(parent, ast.If) and child is not parent.test:
                guards.append((parent.test, self._index(parent.body, child) is not None))
            if parent is stop:
                break
            child, parent = parent, self.module.parent_of(parent)
        return any(self._guards(test, runs_when, blocks, stop, name)
                   for test, runs_when in guards)

    def _index(self, block, statement):
        """The index of `statement` in the statement list `block`, or None: a lookup, as
        each of a block's registrations asks (list.index made a long block quadratic)."""
        indices = self._indices.get(id(block))
        if indices is None:
            indices = self._indices[id(block)] = {
                id(each): index for index, each in enumerate(block)}
        return indices.get(id(statement))

    def _early_exits(self, block, position):
        """The tests of `if test: ... return` statements before `position` in `block`."""
        exits = self._exits_of.get(id(block))
        if exits is None:
            exits = self._exits_of[id(block)] = [
                (index, statement.test) for index, statement in enumerate(block)
                if isinstance(statement, ast.If) and isinstance(statement.body[-1], ast.Return)]
        return [test for index, test in exits if index < position]

    def _guards(self, test, runs_when, blocks, stop, name=None):
        """Whether the registration runs only while the state `test` reads is unset (it
        runs when `test` is `runs_when`), and the def sets that state in `blocks`."""
        if any(isinstance(node, ast.Attribute) and node.attr == "_gradient_registry"
               for node in ast.walk(test)):
            return self._tests_the_name(test, name)  # the registration sets it
        state = _state_test(test)
        if state is None:
            return False
        kind, read, key, when_set = state
        if runs_when == when_set or not self._outlives_the_call(read, kind, stop):
            return False
        state = (kind, ast.unparse(read), None if key is None else ast.unparse(key))
        return any(self._block_sets(block, state) for block in blocks)

    def _block_sets(self, block, state):
        """Whether a statement of `block` sets `state` (_sets_state); worked out once per
        block and state, however many registrations the guard holds."""
        found = self._sets_of.get((id(block),) + state)
        if found is None:
            found = self._sets_of[(id(block),) + state] = any(
                _sets_state(statement, *state) for statement in block)
        return found

    def _outlives_the_call(self, expr, kind, stop):
        """Whether the state `expr` reads is one a later run sees: a name of the module
        (declared `global` in a def to be set), or a container, attribute or item of
        something not local to the def (`self` counts as it did: the instance outlives a
        method's call)."""
        root = expr
        while isinstance(root, (ast.Attribute, ast.Subscript)):
            root = root.value
        if not isinstance(root, ast.Name) or not isinstance(
                stop, (ast.FunctionDef, ast.AsyncFunctionDef)):
            return isinstance(root, ast.Name)
        scope = self.names.scope_for_def[id(stop)]
        if root.id in scope.globals or root.id in scope.nonlocals:
            return True
        local = scope.bindings.get(root.id)
        if root is expr and kind != "item":
            # A name the def sets is its own, bound afresh each run; read before the def
            # binds it, the test raises UnboundLocalError and nothing is registered.
            return not any(binding.kind == "param" or getattr(
                binding.node, "lineno", expr.lineno) < expr.lineno for binding in local or ())
        if not local:
            return True
        arguments = stop.args.posonlyargs + stop.args.args
        return (scope.parent is not None and scope.parent.kind == "class" and arguments
                and arguments[0].arg == root.id and stop.name not in ("__init__", "build"))

    def registered_function(self, expr, scope):
        function = gradient_function(self.names, expr, scope)
        return None if function is None else self.grad_function(function)

    def grad_function(self, node):
        return GradFunction(node, "lambda" if isinstance(node, ast.Lambda) else node.name,
                            self.names.scope_for_def[id(node)], Parameters.of(node),
                            returns_of(node))

    def runs(self, line, scope, looped, guarded):
        """(the def a registration sits in, [(line, guarded)] once per time it runs);
        worked out once per def (it may hold hundreds of registrations)."""
        if scope.kind in ("module", "class"):
            return self._runs(line, scope, looped, guarded)
        key = (id(scope), looped, guarded)
        if key not in self._runs_of:
            self._runs_of[key] = self._runs(line, scope, looped, guarded)
        function, runs = self._runs_of[key]
        return function, list(runs)

    def _runs(self, line, scope, looped, guarded):
        times = 2 if looped else 1
        if scope.kind in ("module", "class"):
            if scope.kind == "class" and scope.parent.kind != "module":
                return None, []
            return None, [(line, guarded)] * times
        function = scope.node
        if not isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef)):
            return None, []  # a lambda: its calls are not followed
        # `__init__` runs once per instance: the calls are those of its class (a layer
        # class registering its gradient in its constructor, built twice). Another method
        # runs once per call of it on an instance (`__call__`, and a TF layer's `call`,
        # once per call of the instance itself).
        called = function
        if scope.parent is not None and scope.parent.kind == "class":
            owner = scope.parent.node
            # (a Keras layer's `build` runs once per instance too, at its first call)
            if function.name == "__init__" or (function.name == "build" and (
                    self.module.tensorflow_class(scope.parent, ("tensorflow.", "keras.")))):
                called = owner
                self.per_instance_functions.add(id(function))
            else:
                calls = self.instance_calls(owner, function.name, scope.parent)
                return function, self._times(calls, guarded, times)
        runs = self._times(self.calls_of(called), guarded, times)
        return function, sorted(runs + self.estimator_runs(function, guarded))

    def estimator_runs(self, function, guarded):
        """[(line, guarded)] once per graph an Estimator builds with `function` as its
        model_fn: each `train`, `evaluate`, `predict` or export of the estimator, two for
        `tf.estimator.train_and_evaluate`."""
        found = []
        for call in self.estimators_of.get(id(function), ()):
            for use, times in self.estimator_uses(call):
                found += self._times([use], guarded, times)  # (twice in a loop)
                self.estimator_lines.add(use.lineno)
        return found

    @cached_property
    def estimators_of(self):
        """{id(def): [the Estimator constructions given it as model_fn]}, found once."""
        found = {}
        for call, qualname in self.module.calls:
            if qualname not in ESTIMATORS:
                continue
            model_fn = _argument(call, "model_fn", 0)
            if isinstance(model_fn, ast.Name):
                binding = self.names.definitions(model_fn, self.names.scope_of(call))
                if binding is not None and binding.kind == "def":
                    found.setdefault(id(binding.node), []).append(call)
        return found

    def estimator_uses(self, made):
        """(call, graphs it builds) of the module's calls that build a graph with the
        Estimator `made` makes: `est.train(...)` once, `train_and_evaluate(est, ...)` twice
        (the name `est` bound once to it)."""
        parent = self.module.parent_of(made)
        if not (isinstance(parent, ast.Assign) and len(parent.targets) == 1
                and isinstance(parent.targets[0], ast.Name)):
            return []
        name = parent.targets[0].id
        found = []
        for call, qualname in self.module.calls:
            func = call.func
            if isinstance(func, ast.Attribute) and func.attr in ESTIMATOR_GRAPHS:
                receiver, times = func.value, 1
            elif qualname == "tensorflow.estimator.train_and_evaluate":
                receiver, times = _argument(call, "estimator", 0), 2
            else:
                continue
            if not (isinstance(receiver, ast.Name) and receiver.id == name):
                continue
            binding = self.names.definitions(receiver, self.names.scope_of(call))
            if binding is not None and binding.node is made:
                found.append((call, times))
        return found

    def calls_of(self, defined):
        """The module's calls, by its plain name, of a def or class (`f(x)`, `Layer()`)."""
        found = []
        for call in self.calls_by_name.get(defined.name, ()):
            binding = self.names.definitions(call.func, self.names.scope_of(call))
            if binding is not None and binding.node is defined:
                found.append(call)
        return found

    def _times(self, calls, guarded, times):
        """[(line, guarded)] once per time the calls run (twice for one in a loop); once
        in all for calls that exclude one another (each in its own branch of one `if`)."""
        found = []
        if len(calls) > 1 and times == 1 and exclusive_calls(self.module, calls):
            calls = calls[:1]
        for call in calls:
            call_scope, call_looped = self.enclosing_scope(call)
            repeat = 2 if call_looped or self.in_loop(call, call_scope.node) else 1
            if repeat == 2:
                self.looped_call_lines.add(call.lineno)
            found += [(call.lineno, guarded or self.guarded(call))] * (repeat * times)
        return sorted(found)

    def instance_calls(self, owner, method, class_scope):
        """The calls of the module that run `method` of an instance of the class `owner`:
        `Layer()(x)` or `layer(x)` after `layer = Layer()` for `__call__` (and for `call`
        of a class with a TensorFlow base, which its `__call__` runs), `obj.apply(x)`
        for another method. Calls through `self` are not followed."""
        if method == "call" and self.module.tensorflow_class(class_scope):
            method = "__call__"
        found = []
        for call, _ in self.module.calls:
            func = call.func
            if method == "__call__":
                receiver = func
            elif isinstance(func, ast.Attribute) and func.attr == method:
                receiver = func.value
            else:
                continue
            if self.made_instance(receiver, owner, call):
                found.append(call)
        return found

    def made_instance(self, expr, owner, at, depth=0):
        """Whether `expr` is `Owner(...)`, or a name bound once to one."""
        if isinstance(expr, ast.Call):
            binding = self.names.definitions(expr.func, self.names.scope_of(expr))
            return binding is not None and binding.node is owner
        if isinstance(expr, ast.Name) and depth < 1:
            binding = self.names.definitions(expr, self.names.scope_of(at))
            return binding is not None and binding.kind == "assign" and \
                self.made_instance(binding.node, owner, at, depth + 1)
        return False

    def switch_value(self, call, qualname):
        """Whether a call passes its switch argument (SWITCH_ARGUMENTS) the value the op
        data was recorded with (True), another constant (False); else the argument node."""
        switch = SWITCH_ARGUMENTS.get(qualname)
        if switch is None:
            return None
        keyword, position, _ = switch
        value = _argument(call, keyword, position)
        if value is None:
            return True  # not passed: the default, which the op data was recorded with
        recorded = builds_recorded_ops(qualname, value)
        return value if recorded is None else recorded

    def switch_parameter(self, call, switch):
        """The name of the enclosing def's parameter the switch argument passes on."""
        if not isinstance(switch, ast.Name):
            return None
        binding = self.names.definitions(switch, self.names.scope_of(call))
        scope = self.names.scope_of(call)
        if binding is None or binding.kind != "param" or binding.scope is not scope or \
                not isinstance(scope.node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            return None
        return switch.id

    def switched_by_callers(self, built):
        """[(call, BuiltCall)] of the calls of the def holding a block that pass the
        parameter a BuiltCall's switch argument comes from another constant."""
        found = []
        for made in built or ():
            if made.switch_parameter is None:
                continue
            function = self.names.scope_of(made.call).node
            for call in self.calls_of(function):
                value = _passed_to(call, function, made.switch_parameter)
                if builds_recorded_ops(made.qualname, value) is False:
                    found.append((call, made))
        return found

    def enclosing_scope(self, node):
        scope, looped = self.names.scope_of(node), False
        while scope.kind == "comprehension":
            scope, looped = scope.parent, True
        return scope, looped

    def ancestors(self, node, stop):
        """Parents of `node` up to (not including) `stop`, innermost first."""
        child = node
        parent = self.module.parent_of(child)
        while parent is not None and parent is not stop:
            if isinstance(parent, _SCOPES) and _runs_inside(child, parent):
                return
            yield child, parent
            child, parent = parent, self.module.parent_of(parent)

    def in_loop(self, node, stop):
        return any(isinstance(parent, _LOOPS) and child not in getattr(parent, "orelse", ())
                   for child, parent in self.ancestors(node, stop))

    def guarded(self, node, name=None):
        """Inside `try:` with an `except KeyError` (or wider), or under an `if` that
        consults TF's gradient registry, within its own function."""
        for child, parent in self.ancestors(node, None):
            if isinstance(parent, ast.Try) and child in parent.body:
                if any(catches_key_error(handler.type) for handler in parent.handlers):
                    return True
            if isinstance(parent, ast.If) and child is not parent.test and any(
                    isinstance(n, ast.Attribute) and n.attr == "_gradient_registry"
                    for n in ast.walk(parent.test)) and self._tests_the_name(
                        parent.test, name):
                return True
        return False

    def _tests_the_name(self, test, name):
        """Whether a test of TF's gradient registry may be about the gradient name `name`
        registered under it: False only when each name it looks up is a known string
        other than `name` (`if "GuidedBackprop" not in ops._gradient_registry._registry:`
        over `RegisterGradient("GuidedBackProp")`, which the test never sees registered)."""
        if name is None:
            return True
        scope = self.names.scope_of(test)
        looked_up = [node.left for node in ast.walk(test) if isinstance(node, ast.Compare)
                     and len(node.ops) == 1 and isinstance(node.ops[0], (ast.In, ast.NotIn))]
        looked_up += [node.args[0] for node in ast.walk(test) if isinstance(node, ast.Call)
                      and isinstance(node.func, ast.Attribute) and node.func.attr in (
                          "get", "lookup", "__contains__") and len(node.args) == 1]
        if not looked_up:
            return True
        names = [self.constant_string(node, scope, 0) for node in looked_up]
        return None in names or name in names

    # Names

    def gradient_name(self, expr, scope):
        value = self.constant_string(expr, scope, 0)
        if value is not None:
            return GradientName(expr, value, ("const", value))
        pattern = self.name_pattern(expr, scope, 0)
        if isinstance(expr, ast.Name):
            bindings = self.names.lookup(expr.id, scope)
            if len(bindings) == 1 and pattern is None:
                pattern = self.loop_pattern(bindings[0])
            if len(bindings) == 1:
                return GradientName(expr, None, ("binding", id(bindings[0])),
                                    bindings[0].kind == "param", pattern)
        return GradientName(expr, None, pattern=pattern)

    def loop_pattern(self, binding, depth=0):
        """A regular expression of the strings a `for` target takes from a literal table
        (`for name, f in [("HalfGrad", 0.5), ("DoubleGrad", 2.0)]:`, a dict's keys or
        items, `zip` of lists, `enumerate`'s items, `sorted(...)` of one), or None."""
        target = binding.node
        if binding.kind != "other" or not isinstance(target, ast.Name):
            return None
        parent = self.module.parent_of(target)
        position = None
        if isinstance(parent, ast.Tuple):
            position = next(i for i, element in enumerate(parent.elts) if element is target)
            target, parent = parent, self.module.parent_of(parent)
        if not isinstance(parent, ast.For) or parent.target is not target:
            return None
        scope = self.names.scope_of(parent)
        rows = self._table_rows(parent.iter, scope, 0)
        if rows is None:
            return None
        if not rows:
            return "(?!)"  # an empty table registers nothing
        values = []
        for row in rows:
            if position is not None:
                if not isinstance(row, (ast.List, ast.Tuple)) or len(row.elts) != len(
                        target.elts):
                    return None
                row = row.elts[position]
            value = self._constant(row, scope, depth + 1)  # (`enumerate`'s index: an int)
            if value is None:
                return None
            values.append(re.escape(str(value)))
        return "(?:%s)" % "|".join(sorted(set(values)))

    def _table_rows(self, table, scope, depth):
        """The rows a `for` loop over `table` takes, as expressions (a row of several
        values as a tuple display), when the table is a literal one: a list, tuple or set
        display, a dict display's keys (`.keys()`) or items (`.items()`), one of these
        bound once to a name, `zip` of them, `enumerate` of one, or `sorted`, `list`,
        `tuple` or `reversed` of one; None for any other table."""
        if depth > _MAX_DEPTH:
            return None
        if isinstance(table, ast.Name):  # `for name, f in _GRADIENTS:`, a table bound once
            bindings = self.names.lookup(table.id, scope)
            if len(bindings) != 1 or bindings[0].kind != "assign" or not isinstance(
                    bindings[0].node, (ast.List, ast.Tuple, ast.Set, ast.Dict)) or (
                        not isinstance(bindings[0].node, ast.Tuple)
                        and self._changed(table.id)):
                return None
            return self._table_rows(bindings[0].node, bindings[0].scope, depth + 1)
        if isinstance(table, (ast.List, ast.Tuple, ast.Set)):
            if any(isinstance(row, ast.Starred) for row in table.elts):
                return None
            return list(table.elts)
        if isinstance(table, ast.Dict):
            return None if None in table.keys else list(table.keys)
        if not isinstance(table, ast.Call) or table.keywords:
            return None
        func = table.func
        if isinstance(func, ast.Attribute) and not table.args and func.attr in _DICT_VIEWS:
            found = self._table_rows(func.value, scope, depth + 1)
            if found is None or not isinstance(func.value, (ast.Name, ast.Dict)):
                return None
            mapping = func.value
            if isinstance(mapping, ast.Name):
                mapping = self.names.lookup(mapping.id, scope)[0].node
            if not isinstance(mapping, ast.Dict):
                return None
            if func.attr in ("items", "iteritems"):
                return [ast.Tuple(elts=[key, value], ctx=ast.Load())
                        for key, value in zip(mapping.keys, mapping.values)]
            return found
        if not isinstance(func, ast.Name) or not self.names.is_builtin(func) or \
                any(isinstance(a, ast.Starred) for a in table.args):
            return None
        if func.id in ("sorted", "list", "tuple", "reversed", "set") and len(table.args) == 1:
            # (the order of the rows changes no pattern: each is the set of a column)
            return self._table_rows(table.args[0], scope, depth + 1)
        if func.id == "zip" and table.args:
            columns = [self._table_rows(arg, scope, depth + 1) for arg in table.args]
            if None in columns:
                return None
            return [ast.Tuple(elts=list(row), ctx=ast.Load()) for row in zip(*columns)]
        if func.id == "enumerate" and len(table.args) == 1:
            found = self._table_rows(table.args[0], scope, depth + 1)
            if found is None:
                return None
            return [ast.Tuple(elts=[ast.Constant(index), row], ctx=ast.Load())
                    for index, row in enumerate(found)]
        return None

    def _changed(self, name):
        """Whether the module may change a container some name `name` holds: any use of
        the name but a read (iterated over, an item or a view read, `in`, `len` and the
        like): an item assigned (`TABLE["Extra"] = f`), a method called that may change it
        (`TABLE.append(...)`), the table handed to a function or bound to another name;
        or a `global` declaration of it. Worked out once per name."""
        key = ("changed", name)
        if key not in self._strings:
            changed = self.names.declared_global(name)
            for node in self.module.nodes[ast.Name]:
                if changed:
                    break
                if node.id == name and isinstance(node.ctx, ast.Load):
                    changed = not self._read_only(node)
            self._strings[key] = changed
        return self._strings[key]

    def _read_only(self, node):
        parent = self.module.parent_of(node)
        if isinstance(parent, (ast.For, ast.comprehension)) and parent.iter is node:
            return True
        if isinstance(parent, ast.Subscript):
            return parent.value is node and isinstance(parent.ctx, ast.Load)
        if isinstance(parent, ast.Attribute):
            return parent.attr in _READING_METHODS
        if isinstance(parent, ast.Compare):
            return node is not parent.left and all(
                isinstance(op, (ast.In, ast.NotIn)) for op in parent.ops)
        if isinstance(parent, ast.Call) and node in parent.args:
            return isinstance(parent.func, ast.Name) and parent.func.id in _READING_BUILTINS \
                and self.names.is_builtin(parent.func)
        return False

    def name_pattern(self, expr, scope, depth):
        """A regular expression for the strings `expr` can be when it is built from known
        and unknown parts (f-string, `%`, `.format`, `+`), or None for any other shape."""
        if depth > _MAX_DEPTH:
            return None
        known = self.constant_string(expr, scope, depth)
        if known is not None:
            return re.escape(known)
        if isinstance(expr, ast.JoinedStr):
            return "".join(re.escape(part.value) if isinstance(part, ast.Constant)
                           else self._part(part.value, scope, depth) for part in expr.values)
        if isinstance(expr, ast.BinOp) and isinstance(expr.op, ast.Add):
            left, right = (self.name_pattern(side, scope, depth + 1)
                           for side in (expr.left, expr.right))
            if left is None and right is None:
                return None
            return (left or ".*") + (right or ".*")
        if isinstance(expr, ast.BinOp) and isinstance(expr.op, ast.Mod):
            template = self.constant_string(expr.left, scope, depth + 1)
            if template is not None:
                values = expr.right.elts if isinstance(expr.right, ast.Tuple) else [expr.right]
                return _percent_pattern(template, self._fills(values, scope, depth))
        if (isinstance(expr, ast.Call) and isinstance(expr.func, ast.Attribute)
                and expr.func.attr == "format"):
            template = self.constant_string(expr.func.value, scope, depth + 1)
            if template is not None:
                fills = None if expr.keywords else self._fills(expr.args, scope, depth)
                return _format_pattern(template, fills)
        if isinstance(expr, ast.Name):
            bindings = self.names.lookup(expr.id, scope)
            if len(bindings) == 1 and bindings[0].kind == "assign":
                return self.name_pattern(bindings[0].node, bindings[0].scope, depth + 1)
            if len(bindings) == 1:  # a loop variable over a literal table: its strings
                return self.loop_pattern(bindings[0], depth + 1)
        return None

    def _part(self, expr, scope, depth):
        return self.name_pattern(expr, scope, depth + 1) or ".*"

    def _fills(self, values, scope, depth):
        """The patterns of the values a `%` or `.format` template is filled with: of the
        strings or ints they can be (`.*` for any other), or None when one is starred."""
        if any(isinstance(value, (ast.Starred, ast.Dict)) for value in values):
            return None
        fills = []
        for value in values:
            known = self._constant(value, scope, depth + 1)
            fills.append(re.escape(str(known)) if known is not None
                         else self._part(value, scope, depth))
        return fills

    def constant_string(self, expr, scope, depth):
        """The string `expr` always evaluates to, or None when it is not a constant (or
        longer than any gradient name: a hostile fan of formats stays small). Each
        expression is worked out once."""
        key = (id(expr), id(scope), depth)  # (an answer cut short by depth is its own)
        if key not in self._strings:
            self._strings[key] = None  # while it is worked out (a name bound to itself)
            found = self._constant_string(expr, scope, depth)
            self._strings[key] = found if found is None or len(found) <= _MAX_NAME else None
        return self._strings[key]

    def _constant_string(self, expr, scope, depth):
        if depth > _MAX_DEPTH:
            return None
        if isinstance(expr, ast.Constant):
            return expr.value if isinstance(expr.value, str) else None
        if isinstance(expr, ast.BinOp) and isinstance(expr.op, ast.Add):
            left = self.constant_string(expr.left, scope, depth + 1)
            right = self.constant_string(expr.right, scope, depth + 1)
            return left + right if left is not None and right is not None else None
        if isinstance(expr, ast.JoinedStr):
            parts = [self.constant_string(part, scope, depth + 1) for part in expr.values]
            return "".join(parts) if None not in parts else None
        if isinstance(expr, ast.FormattedValue):  # `{LAYER}` of an f-string, plainly
            if expr.conversion != -1 or expr.format_spec is not None:
                return None
            value = self._constant(expr.value, scope, depth + 1)
            return None if value is None else str(value)
        if isinstance(expr, ast.BinOp) and isinstance(expr.op, ast.Mod):  # "Grad%d" % IDX
            template = self.constant_string(expr.left, scope, depth + 1)
            if template is None or _PERCENT_NOT_PLAIN.search(template):
                return None
            values = expr.right.elts if isinstance(expr.right, ast.Tuple) else [expr.right]
            values = [self._constant(value, scope, depth + 1) for value in values]
            return None if None in values else _formatted(lambda: template % tuple(values))
        if isinstance(expr, ast.Call) and isinstance(expr.func, ast.Attribute) and \
                expr.func.attr == "format" and not expr.keywords:  # "Grad_{}".format(IDX)
            template = self.constant_string(expr.func.value, scope, depth + 1)
            if template is None or _FORMAT_NOT_PLAIN.search(
                    template.replace("{{", "").replace("}}", "")):
                return None
            values = [self._constant(value, scope, depth + 1) for value in expr.args]
            return None if None in values else _formatted(lambda: template.format(*values))
        if isinstance(expr, ast.Name):
            bindings = self.names.lookup(expr.id, scope)
            if len(bindings) == 1 and (bindings[0].kind == "import" or isinstance(
                    bindings[0].node, ast.ImportFrom)):  # (a relative import's is "other")
                return self._imported_constant(expr, depth)  # `from names import GRAD`
            if len(bindings) != 1 or bindings[0].kind != "assign":
                return None
            binding = bindings[0]
            if binding.scope.kind == "module" and self.names.declared_global(expr.id):
                return None
            return self.constant_string(binding.node, binding.scope, depth + 1)
        if isinstance(expr, ast.Subscript) and isinstance(expr.ctx, ast.Load) and \
                isinstance(expr.value, ast.Name):  # `GRADS["relu"]` of a module constant
            table = self._module_dict(expr.value)
            key = self.constant_string(expr.slice, scope, depth + 1)
            if table is None or key is None or None in table.keys:
                return None
            value = None
            for item, given in zip(table.keys, table.values):  # (the last one wins)
                if self.constant_string(item, self.names.module, depth + 1) == key:
                    value = given
            return None if value is None else self.constant_string(
                value, self.names.module, depth + 1)
        if isinstance(expr, ast.Attribute) and isinstance(expr.ctx, ast.Load):
            found = None
            if isinstance(expr.value, ast.Name):
                found = self._class_constant(expr, scope, depth)  # `self.GRAD`, `Cls.GRAD`
            if found is None:
                found = self._imported_constant(expr, depth)  # `names.GRAD`, `pkg.names.GRAD`
            if found is None:
                value = self._init_attribute(expr, scope)  # `self.prefix = "Flip"`
                if value is not None and isinstance(value.value, str):
                    found = value.value
            return found
        return None

    def _imported_constant(self, expr, depth):
        """The string a project module binds once at its top level (`GRAD = "Name"`) that
        `expr` reads through an import (`from names import GRAD`, `import names` then
        `names.GRAD`), found on disk (a dependency of the findings): alone or in a
        whole-tree run alike. None for TensorFlow's modules and anything else."""
        module = self.module
        if module.path == "-":
            return None
        target = module._import_target(expr, module.resolve(expr))
        if target is None or _tensorflow_module(target[0], target[1]):
            return None
        from cglint import project  # only files with project imports get this far

        imported_from, level, name = target
        found = project.current().top_level_value(module.path, imported_from, name, level)
        if found is None:
            return None
        other, value, dependency = found
        module.dependencies.add(dependency)
        if isinstance(value, ast.Constant):
            return value.value if isinstance(value.value, str) else None
        # `GRAD = PREFIX + "Relu"`: worked out in that module, within the same depth
        builder = _Builder(other)
        return builder.constant_string(value, other.names.module, depth + 1)

    def _class_constant(self, expr, scope, depth):
        """The string a class attribute is bound to once in its class body (`GRAD_NAME =
        "GuidedRelu"`), read as `self.GRAD_NAME` or `cls.GRAD_NAME` in a method (or a
        function nested in one), or as `Cls.GRAD_NAME`; None when the module assigns the
        attribute anywhere (`self.GRAD_NAME = ...`) or a subclass here binds it again."""
        found = self._class_attribute(expr, scope)
        return None if found is None else self.constant_string(found[1], found[0], depth + 1)

    def _class_dict(self, expr, scope):
        """The dict display a class attribute is bound to once in its class body
        (`OVERRIDES = {"Relu": "GuidedRelu"}`), read as `self.OVERRIDES` (as
        _class_constant), when no use of the attribute in the module may change it: each
        is an override map or an item read."""
        found = self._class_attribute(expr, scope)
        if found is None or not isinstance(found[1], ast.Dict):
            return None
        for node in self.module.nodes[ast.Attribute]:
            if node.attr != expr.attr:
                continue
            parent = self.module.parent_of(node)
            if isinstance(parent, ast.Subscript) and parent.value is node and isinstance(
                    parent.ctx, ast.Load):
                continue
            if isinstance(parent, ast.Call) and parent.args == [node] and isinstance(
                    parent.func, ast.Attribute) and parent.func.attr == "gradient_override_map":
                continue
            return None
        return found[1]

    def _class_attribute(self, expr, scope):
        """(the class scope, the value) of the class attribute `expr` (`self.X`,
        `cls.X`, `Cls.X`) reads, bound once in the class body and never rebound; or None."""
        bindings = self.names.lookup(expr.value.id, scope)
        if len(bindings) != 1:
            return None
        binding = bindings[0]
        if binding.kind == "class":
            owner = self.names.scope_for_def.get(id(binding.node))
        elif binding.kind == "param" and binding.scope.kind == "function" and \
                binding.scope.parent is not None and binding.scope.parent.kind == "class":
            method = binding.scope.node
            positional = method.args.posonlyargs + method.args.args
            if not positional or positional[0].arg != expr.value.id or any(
                    isinstance(decorator, ast.Name) and decorator.id == "staticmethod"
                    for decorator in method.decorator_list):
                return None
            owner = binding.scope.parent
        else:
            return None
        if owner is None or owner.kind != "class":
            return None
        attributes = owner.bindings.get(expr.attr, [])
        if len(attributes) != 1 or attributes[0].kind != "assign" or \
                self._attribute_rebound(expr.attr, owner.node):
            return None
        return owner, attributes[0].node

    def _attribute_rebound(self, attribute, class_node):
        """Whether the module may give `attribute` another value than its class body's:
        an assignment to `x.attribute` anywhere, or a subclass here that binds it."""
        key = ("attribute", attribute, id(class_node))
        if key not in self._strings:
            rebound = any(node.attr == attribute and not isinstance(node.ctx, ast.Load)
                          for node in self.module.nodes[ast.Attribute])
            for other in self.module.nodes[ast.ClassDef]:
                if rebound:
                    break
                rebound = attribute in self.names.scope_for_def[id(other)].bindings and any(
                    isinstance(base, ast.Name) and base.id == class_node.name
                    for base in other.bases)
            self._strings[key] = rebound
        return self._strings[key]

    def _module_dict(self, name):
        """The dict display a module-level name is bound to once (`OVERRIDES = {...}`),
        when nothing may change it: no `global`, no item assignment or deletion, no
        method call on it, and no use but as an override map or a subscript read. Worked
        out once per name."""
        bindings = self.names.lookup(name.id, self.names.scope_of(name))
        if len(bindings) != 1:
            return None  # (a parameter, or a name bound twice, is no module constant)
        key = id(bindings[0])
        if key not in self._module_dicts:
            self._module_dicts[key] = self._module_dict_now(name, bindings)
        return self._module_dicts[key]

    def _module_dict_now(self, name, bindings):
        if len(bindings) != 1 or bindings[0].kind != "assign" or \
                bindings[0].scope.kind != "module" or \
                not isinstance(bindings[0].node, ast.Dict) or \
                self.names.declared_global(name.id):
            return None
        for node in self.module.nodes[ast.Name]:
            if node.id != name.id or not isinstance(node.ctx, ast.Load):
                continue
            parent = self.module.parent_of(node)
            if isinstance(parent, ast.Subscript) and isinstance(parent.ctx, ast.Load):
                continue
            if isinstance(parent, ast.Call) and parent.args == [node] and isinstance(
                    parent.func, ast.Attribute) and parent.func.attr == "gradient_override_map":
                continue
            return None
        return bindings[0].node

    def _constant(self, expr, scope, depth):
        """A string or a small int that `expr` always is (what a format fills in), or
        None."""
        if isinstance(expr, ast.Name):
            bindings = self.names.lookup(expr.id, scope)
            if len(bindings) == 1 and bindings[0].kind == "assign" and isinstance(
                    bindings[0].node, ast.Constant) and not (
                        bindings[0].scope.kind == "module"
                        and self.names.declared_global(expr.id)):
                expr = bindings[0].node
        elif isinstance(expr, ast.Attribute) and isinstance(expr.ctx, ast.Load):
            expr = self._init_attribute(expr, scope) or expr  # `self.num_calls`
        if isinstance(expr, ast.Constant) and type(expr.value) is int:
            return expr.value if abs(expr.value) < 10 ** 18 else None
        return self.constant_string(expr, scope, depth)

    def _init_attribute(self, expr, scope):
        """The constant (a string or an int) `self.X`, read in a method of a module-level
        class, always is: `__init__` sets it once (`self.num_calls = 0`) and nothing in
        the module assigns the attribute again (`self.num_calls += 1`, `obj.X = ...`, a
        `setattr`, a class body binding it); else None."""
        if not isinstance(expr.value, ast.Name) or "setattr" in self.module.text or \
                "__dict__" in self.module.text:
            return None
        bindings = self.names.lookup(expr.value.id, scope)
        if len(bindings) != 1 or bindings[0].kind != "param":
            return None
        method = bindings[0].scope
        owner = method.parent
        if method.kind != "function" or owner is None or owner.kind != "class" or \
                owner.parent is None or owner.parent.kind != "module" or \
                not isinstance(method.node, ast.FunctionDef):
            return None
        positional = method.node.args.posonlyargs + method.node.args.args
        if not positional or positional[0].arg != expr.value.id or \
                method.node.decorator_list or expr.attr in owner.bindings:
            return None
        key = ("init attribute", expr.attr, id(owner.node))
        if key not in self._strings:
            self._strings[key] = self._init_attribute_now(expr.attr, owner)
        return self._strings[key]

    def _init_attribute_now(self, attribute, owner):
        stores = [node for node in self.module.nodes[ast.Attribute]
                  if node.attr == attribute and not isinstance(node.ctx, ast.Load)]
        if len(stores) != 1 or not isinstance(stores[0].value, ast.Name):
            return None
        store = stores[0]
        statement = self.module.parent_of(store)
        init = next((node for node in owner.node.body if isinstance(node, ast.FunctionDef)
                     and node.name == "__init__"), None)
        if init is None or not isinstance(statement, ast.Assign) or \
                statement.targets != [store] or statement not in init.body:
            return None
        positional = init.args.posonlyargs + init.args.args
        if not positional or positional[0].arg != store.value.id or init.decorator_list:
            return None
        value = statement.value
        if isinstance(value, ast.Constant) and (
                isinstance(value.value, str) or type(value.value) is int):
            return value
        return None

    # Override maps

    def override_map(self, call):
        scope = self.names.scope_of(call)
        mapping = call.args[0] if len(call.args) == 1 and not call.keywords else None
        if isinstance(mapping, ast.Name):
            mapping = self.module.single_value(mapping, scope) or self._module_dict(mapping)
        elif isinstance(mapping, ast.Attribute) and isinstance(mapping.value, ast.Name):
            mapping = self._class_dict(mapping, scope)  # `self.OVERRIDES`
        if isinstance(mapping, ast.Call) and isinstance(mapping.func, ast.Name) and \
                mapping.func.id == "dict" and not mapping.args and \
                self.names.is_builtin(mapping.func) and all(k.arg for k in mapping.keywords):
            # `dict(Relu="ClipGrad")`: keys that are op types written as names
            mapping = ast.Dict(keys=[ast.copy_location(ast.Constant(k.arg), k)
                                     for k in mapping.keywords],
                               values=[k.value for k in mapping.keywords])
        found = OverrideMap(call, [], False)
        if isinstance(mapping, ast.Dict):
            found.keys_complete = True
            for key, value in zip(mapping.keys, mapping.values):
                if key is None:  # `**other`
                    found.keys_complete = False
                    continue
                text = self.constant_string(key, scope, 0)
                found.keys_complete = found.keys_complete and text is not None
                not_strings = tuple(wrong for wrong in (
                    self.not_a_string(key, scope), self.not_a_string(value, scope)) if wrong)
                name = self.gradient_name(value, scope)
                found.entries.append(OverrideEntry(key, text, name, not_strings,
                                                   self.passed_names(name, scope)))
        parent = self.module.parent_of(call)
        block = self.module.parent_of(parent) if parent is not None else None
        if isinstance(block, (ast.With, ast.AsyncWith)) and any(
                item.context_expr is call for item in block.items):
            found.block = block
            found.built, found.maybe_built = self.built_in(block)
            found.operator_built = self.operator_built(block)
            found.switched = self.switched_by_callers(found.built)
        return found

    def passed_names(self, name, scope):
        """The GradientNames of the known strings the module's calls (by plain name) of
        the def whose parameter `name` is pass it (`modify_backprop(model,
        "GuidedBackProp")`); () for anything else."""
        if not name.from_caller or not isinstance(name.node, ast.Name) or \
                scope.kind != "function" or not isinstance(scope.node, ast.FunctionDef):
            return ()
        from cglint.facts import call_arguments

        found = []
        for call in self.calls_of(scope.node):
            given = call_arguments(call, scope.node, None).get(name.node.id)
            if given is None:
                continue
            text = self.constant_string(given[0], self.names.scope_of(call), 0)
            if text is not None:
                found.append(GradientName(given[0], text, ("const", text)))
        return tuple(found)

    def built_in(self, block):
        """(calls in the `with` body and the op types they build, or None when some call
        builds unknown ops; the op types it may build besides)."""
        ops = load_ops()
        built, maybe = [], set()
        for node in body_nodes(block):
            if isinstance(node, (ast.Yield, ast.YieldFrom)):
                # A @contextmanager holding the map open: its caller's `with` block builds
                # the ops, which this module cannot see.
                return None, frozenset()
            if isinstance(node, ast.Call):
                if isinstance(node.func, ast.Name) and node.func.id in _NO_OP_BUILTINS and \
                        self.names.is_builtin(node.func):
                    continue  # `hasattr(layer, "activation")`: Python's, no op
                qualname = self.qualnames.get(id(node))
                if qualname is None and isinstance(node.func, ast.Attribute) and \
                        node.func.attr in NO_OP_METHODS:
                    continue  # `y.set_shape(x.get_shape())` after a `tf.py_func`
                op_types = ops.built_by(qualname)
                if op_types is None:
                    return None, frozenset()
                other = ops.built_by_with_other_arguments(qualname)
                switch = self.switch_value(node, qualname)
                if switch is True:  # the arguments the op data was recorded with
                    other = ()
                elif switch is False:
                    op_types, other = other, ()
                built.append(BuiltCall(node, qualname, op_types,
                                       self.switch_parameter(node, switch), tuple(other)))
                maybe.update(other)
            elif isinstance(node, (ast.BinOp, ast.UnaryOp, ast.AugAssign)):
                maybe.update(ops.built_by_operator(type(node.op).__name__))
            elif isinstance(node, ast.Compare):
                for operator in node.ops:
                    maybe.update(ops.built_by_operator(type(operator).__name__))
            elif isinstance(node, ast.Subscript) and isinstance(node.ctx, ast.Load):
                maybe.update(ops.built_by_operator("Subscript"))
        built.sort(key=lambda b: (b.call.lineno, b.call.col_offset))
        return built, frozenset(maybe)

    def operator_built(self, block):
        """The op types the Python operators of the `with` body surely build: the
        operator has one op type (`*`: `Mul`) and an operand is surely a tensor (see
        surely_tensor), so the tensor's overload runs (numpy defers to it too)."""
        ops = load_ops()
        surely = set()
        for node in body_nodes(block):
            if isinstance(node, ast.BinOp):
                operator, operands = type(node.op).__name__, (node.left, node.right)
            elif isinstance(node, ast.UnaryOp):
                operator, operands = type(node.op).__name__, (node.operand,)
            elif isinstance(node, ast.Compare) and len(node.ops) == 1:
                operator = type(node.ops[0]).__name__
                operands = (node.left, node.comparators[0])
            else:
                continue
            types = ops.built_by_operator(operator)
            if len(types) != 1 or types[0] in surely:
                continue
            if any(self.surely_tensor(operand, 0) for operand in operands):
                surely.add(types[0])
        return frozenset(surely)

    def surely_tensor(self, expr, depth):
        """Whether `expr` is surely one tensor (or variable): a call of a TF function
        recorded to build ops of one output each (`tf.multiply`, `tf.constant`), a
        placeholder or variable, an operator on one, or a name bound once to one (at
        module level: never declared `global`)."""
        if depth > _MAX_TENSOR_DEPTH:
            return False
        if isinstance(expr, ast.Call):
            qualname = self.qualnames.get(id(expr)) or self.names.resolve(
                expr.func, self.names.scope_of(expr))
            if not qualname or not qualname.startswith("tensorflow."):
                return False
            if qualname in _TENSOR_MAKERS:
                return True
            ops = load_ops()
            types = ops.built_by(qualname)
            return bool(types) and all(ops.fixed_outputs(t) == 1 for t in types)
        if isinstance(expr, ast.BinOp):
            return self.surely_tensor(expr.left, depth + 1) or self.surely_tensor(
                expr.right, depth + 1)
        if isinstance(expr, ast.UnaryOp):
            return not isinstance(expr.op, ast.Not) and self.surely_tensor(
                expr.operand, depth + 1)
        if isinstance(expr, ast.Name):
            binding = self.names.definitions(expr, self.names.scope_of(expr))
            if binding is None or binding.kind != "assign" or (
                    binding.scope.kind == "module"
                    and self.names.declared_global(expr.id)):
                return False
            return self.surely_tensor(binding.node, depth + 1)
        return False


# Formats worked out: plain `%s`/`%d` and `{}`/`{0}` fields only. A gradient name has no
# width, precision, spec, attribute or index, and a hostile one (`"%.999999999d"`) would
# build a gigabyte string.
_PERCENT_NOT_PLAIN = re.compile(r"%(?![sdi%])")
_FORMAT_NOT_PLAIN = re.compile(r"\{(?!\d*\})|(?<!\{)(?<!\{\d)(?<!\{\d\d)\}")
_MAX_NAME = 256  # longer strings are no gradient names


def _formatted(format_it):
    """The formatted string, or None when the template and its values do not fit."""
    try:
        return format_it()
    except Exception:  # whatever a template and values of the code's raise: not a name
        return None


# Builtins that build no op (on a tensor they answer from Python, or raise).
_NO_OP_BUILTINS = frozenset(("print", "len", "range", "isinstance", "issubclass", "hasattr",
                             "getattr", "setattr", "type", "id", "repr", "str", "enumerate",
                             "zip", "dict", "set", "bool", "int", "float", "callable"))


# TF functions that make one tensor or variable, besides those the op data records.
_TENSOR_MAKERS = frozenset("tensorflow." + name for name in (
    "placeholder", "placeholder_with_default", "Variable", "get_variable",
    "convert_to_tensor", "constant"))
_MAX_TENSOR_DEPTH = 8

# Methods of a tensor and its shape that build no op (tests/test_overrides.py measures
# each under TF 1.8): the shape a `tf.py_func` recipe sets on its result in the block.
NO_OP_METHODS = frozenset(("set_shape", "get_shape", "as_list"))


# Estimators, whose model_fn runs once per graph they build: for each of these methods.
ESTIMATORS = frozenset("tensorflow.%s" % name for name in (
    "estimator.Estimator", "contrib.tpu.TPUEstimator", "contrib.learn.Estimator"))
ESTIMATOR_GRAPHS = frozenset(("train", "evaluate", "predict", "export_savedmodel",
                              "export_saved_model", "fit"))


# Arguments that change which op types a TF function builds: (keyword, position, the
# truth of the value the op data's `functions` were recorded with); a value of the other
# truth builds the op types of `functions_other_arguments` (tools/gen_tf_ops.py). TF 1.8's
# `_internal_py_func` asks `if stateful:`, so `stateful=None` or `0` builds PyFuncStateless.
SWITCH_ARGUMENTS = {"tensorflow.py_func": ("stateful", 3, True)}


def builds_recorded_ops(qualname, value):
    """Whether the switch argument `value` (a node) of a call of `qualname` builds the op
    types the op data was recorded with: a literal by its truth, as TF tests it
    (`stateful=1` is `stateful=True`, `stateful=None` is False); None for anything else."""
    if not isinstance(value, ast.Constant):
        return None
    return bool(value.value) == SWITCH_ARGUMENTS[qualname][2]


def _argument(call, keyword, position):
    """The node a call passes by keyword or at a position, or None when not passed (an
    unknown one, behind `*args` or `**kwargs`, is the call itself)."""
    for passed in call.keywords:
        if passed.arg == keyword:
            return passed.value
        if passed.arg is None:
            return call
    for index, value in enumerate(call.args):
        if isinstance(value, ast.Starred):
            return call
        if index == position:
            return value
    return None


def gradient_function(names, expr, scope):
    """The def or lambda a gradient function given as `expr` (read in `scope`) is: a
    lambda written there, or a name bound once to a def or to a lambda; else None."""
    if isinstance(expr, ast.Name):
        binding = names.definitions(expr, scope)
        if binding is None or binding.kind not in ("def", "assign"):
            return None
        expr = binding.node
    return expr if isinstance(expr, _FUNCTIONS) else None


def returns_of(function):
    """(the node to report, the returned expression) of each way out of a def or a
    lambda (the lambda's body)."""
    if isinstance(function, ast.Lambda):
        return [(function, function.body)]
    return [(node, node.value) for node in own_nodes(function) if isinstance(node, ast.Return)]


def passes(call, function, parameter):
    """Whether a call of `function` (a plain def) gives `parameter` itself, by keyword or
    position, rather than leaving its default (unknown, behind `*args`: True)."""
    arguments = function.args
    names = [arg.arg for arg in arguments.posonlyargs + arguments.args]
    if parameter not in names:
        return any(keyword.arg == parameter for keyword in call.keywords)
    return _argument(call, parameter, names.index(parameter)) is not None


def _passed_to(call, function, parameter):
    """The node a call of `function` (a plain def) gives `parameter`: the argument, or
    the default when not passed; None when unknown."""
    arguments = function.args
    names = [arg.arg for arg in arguments.posonlyargs + arguments.args]
    if parameter not in names:
        return None
    value = _argument(call, parameter, names.index(parameter))
    if value is call:
        return None
    if value is None:
        defaults = dict(zip(names[len(names) - len(arguments.defaults):], arguments.defaults))
        return defaults.get(parameter)
    return value


def _state_test(test):
    """(kind, the state read, the key, the truth of `test` once the state is set) of a
    run-once guard's test: `flag`, `not flag`, `cache is None`, `cache is not None`,
    `key in done`, `key not in done`, `getattr(f, "done", False)`; else None."""
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        state = _state_test(test.operand)
        return state and state[:3] + (not state[3],)
    if isinstance(test, ast.Compare) and len(test.ops) == 1:
        operator, right = test.ops[0], test.comparators[0]
        if isinstance(operator, (ast.In, ast.NotIn)):
            return "item", right, test.left, isinstance(operator, ast.In)
        if isinstance(operator, (ast.Is, ast.IsNot)) and isinstance(
                right, ast.Constant) and right.value is None:
            return "value", test.left, None, isinstance(operator, ast.IsNot)
        return None
    if isinstance(test, ast.Call) and isinstance(test.func, ast.Name) and \
            test.func.id == "getattr" and len(test.args) in (2, 3) and not test.keywords \
            and isinstance(test.args[1], ast.Constant) and isinstance(test.args[1].value, str):
        read = ast.Attribute(value=test.args[0], attr=test.args[1].value, ctx=ast.Load())
        return "flag", read, None, True
    if isinstance(test, (ast.Name, ast.Attribute, ast.Subscript)):
        return "flag", test, None, True
    return None


def _sets_state(statement, kind, text, key):
    """Whether `statement` sets the state a `_state_test` reads (the texts of the state
    and of its key): `flag = True` (a true constant), `cache = value` (not None),
    `done.add(key)`, `done[key] = value`."""
    if isinstance(statement, ast.Assign):
        value = statement.value
        for target in statement.targets:
            if kind == "item":
                if isinstance(target, ast.Subscript) and ast.unparse(
                        target.value) == text and ast.unparse(target.slice) == key:
                    return True
            elif kind == "flag" and isinstance(target, ast.Subscript) and ast.unparse(
                    target.value) == text:
                return True  # `_DONE["guided"] = True`: the container is no longer empty
            elif ast.unparse(target) == text:
                if kind == "flag":
                    return isinstance(value, ast.Constant) and bool(value.value)
                return not (isinstance(value, ast.Constant) and value.value is None)
        return False
    if kind == "item" and isinstance(statement, ast.Expr) and isinstance(
            statement.value, ast.Call):
        call = statement.value
        member = ADDING_METHODS.get(call.func.attr) if isinstance(
            call.func, ast.Attribute) else None
        return (member is not None and ast.unparse(call.func.value) == text
                and len(call.args) > member[0] and ast.unparse(call.args[member[0]]) == key)
    if kind == "flag" and isinstance(statement, ast.Expr) and isinstance(
            statement.value, ast.Call):  # `setattr(f, "done", True)`
        call = statement.value
        if isinstance(call.func, ast.Attribute) and call.func.attr in _FILLING_METHODS and \
                call.args and ast.unparse(call.func.value) == text:
            return True  # `_DONE.append(True)`: the container is no longer empty
        return (isinstance(call.func, ast.Name) and call.func.id == "setattr"
                and len(call.args) == 3 and isinstance(call.args[1], ast.Constant)
                and isinstance(call.args[1].value, str)
                and "%s.%s" % (ast.unparse(call.args[0]), call.args[1].value) == text
                and isinstance(call.args[2], ast.Constant) and bool(call.args[2].value))
    return False


# Methods after whose call (given an item) a list, set or dict is not empty.
_FILLING_METHODS = frozenset(("append", "add", "insert", "setdefault"))
_PERCENT_FIELD = re.compile(r"%%|%(?:\([^)]*\))?[-#0 +]*(?:\*|\d+)?(?:\.(?:\*|\d+))?[diouxXeEfFgGcrsa]")
_REGISTERING = frozenset(("RegisterGradient", "NotDifferentiable", "NoGradient"))


def _percent_pattern(template, fills=None):
    """The pattern of a `%` template: each conversion matches anything, or, for a plain
    `%s` or `%d` filled in order, the pattern of its value (`fills`, when known)."""
    fields = [match for match in _PERCENT_FIELD.finditer(template) if match.group() != "%%"]
    if fills is None or len(fills) != len(fields) or any(
            match.group() not in ("%s", "%d", "%i") for match in fields):
        fills = [".*"] * len(fields)
    pieces, start, filled = [], 0, iter(fills)
    for match in _PERCENT_FIELD.finditer(template):
        literal = re.escape(template[start:match.start()])
        pieces.append(literal + (re.escape("%") if match.group() == "%%" else next(filled)))
        start = match.end()
    return "".join(pieces) + re.escape(template[start:])


def _format_pattern(template, fills=None):
    """The pattern of a `str.format` template, or None when it is malformed. A field
    `{}` or `{0}` with no spec or conversion matches the pattern of the value it takes
    (`fills`, when known); any other field matches anything."""
    try:
        parts = list(string.Formatter().parse(template))
    except ValueError:
        return None
    pieces, automatic = [], 0
    for literal, field, spec, conversion in parts:
        pieces.append(re.escape(literal))
        if field is None:
            continue
        index = None
        if field == "":
            index, automatic = automatic, automatic + 1
        elif field.isdigit():
            index = int(field)
        plain = not spec and conversion is None and fills is not None
        pieces.append(fills[index] if plain and index is not None and index < len(fills)
                      else ".*")
    return "".join(pieces)


def _registers_by_name(call):
    func = call.func
    name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", None)
    return name in _REGISTERING


def exclusive_calls(module, calls):
    """Whether at most one of `calls` runs each time their code runs: none sits in a
    loop (or comprehension) of its own function, and each two sit in different branches
    of one `if` (or conditional expression, or in different `except` handlers)."""
    paths = []
    for call in calls:
        path, child = [], call
        for parent in module.ancestors(call):
            if isinstance(parent, (ast.For, ast.AsyncFor, ast.While, ast.ListComp,
                                   ast.SetComp, ast.DictComp, ast.GeneratorExp)):
                return False
            path.append((parent, _branch(parent, child)))
            if isinstance(parent, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda,
                                   ast.ClassDef)):
                break
            child = parent
        paths.append(path)
    for index, first in enumerate(paths):
        branches = {id(parent): branch for parent, branch in first}
        for second in paths[index + 1:]:
            if not any(id(parent) in branches and branch is not None and
                       branches[id(parent)] is not None and branch != branches[id(parent)]
                       for parent, branch in second):
                return False
    return True


def _branch(parent, child):
    """Which branch of an `if`, a conditional expression or a `try`'s handlers `child`
    is in (None when it is in no such branch of `parent`, or in its test)."""
    if isinstance(parent, (ast.If, ast.IfExp)):
        if child is parent.test:
            return None
        if isinstance(parent, ast.IfExp):
            return "body" if child is parent.body else "orelse"
        return "body" if child in parent.body else "orelse"
    if isinstance(parent, ast.Try) and child in parent.handlers:
        return "handler %d" % parent.handlers.index(child)
    return None


def body_nodes(block):
    """Nodes the `with` body evaluates, not entering nested defs, lambdas or classes."""
    for statement in block.body:
        yield from same_scope_nodes([statement])


def _runs_inside(child, scope_node):
    """True when `child` runs when the def, lambda or class body runs, not at its
    definition (as decorators and defaults do)."""
    if isinstance(scope_node, ast.Lambda):
        return child is scope_node.body
    return child in scope_node.body


# Which files of a run share a process

def module_components(path):
    """('pkg', 'sub', 'mod') for pkg/sub/mod.py: every suffix is a name it imports by."""
    if not path or path == "-":
        return ()
    stem = os.path.splitext(os.path.abspath(path))[0]
    parts = [part for part in stem.split(os.sep) if part]
    if parts and parts[-1] == "__init__":
        parts.pop()
    return tuple(parts)


def imported_components(module, by_calls=()):
    """Dotted components of every module a ModuleFacts imports (relative ones made
    absolute), wherever the import statement is, and of the dotted names `by_calls`
    (cglint.project.dynamic_imports)."""
    path = module.path
    package = module_components(path)[:-1] if path and path != "-" else ()
    if path and os.path.basename(path) == "__init__.py":
        package = module_components(path)
    found = set()
    for node in module.statements[ast.Import] + module.statements[ast.ImportFrom]:
        if isinstance(node, ast.Import):
            found.update(tuple(alias.name.split(".")) for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                if not package or node.level - 1 > len(package):
                    continue
                base = package[:len(package) - (node.level - 1)]
            else:
                base = ()
            base += tuple(node.module.split(".")) if node.module else ()
            if base:
                found.add(base)
            found.update(base + (alias.name,) for alias in node.names if alias.name != "*")
    found.update(tuple(name.split(".")) for name in by_calls)
    return tuple(sorted(found))


# Top-level packages whose functions are no project module's (left out before any disk
# lookup), besides the standard library's.
_NOT_PROJECT = frozenset(("tensorflow", "keras", "numpy", "scipy", "six", "sklearn",
                          "matplotlib", "__future__")) | frozenset(
                              getattr(sys, "stdlib_module_names", ()))
_REGISTRATION_BYTES = (b"RegisterGradient", b"NotDifferentiable")
# path -> (stat signature, digest, the bytes when they register gradients, else None)
_REGISTERING_FILES = {}
_MAX_FILES = 4096


@dataclass(eq=False)
class ImportedCallee:
    """A function of another project module that the module calls (registering_imports)."""

    shown: str  # as the calls write it: `gradient_reversal`, `grl.gradient_reversal`
    module: str  # the module it is defined in, as imported (`models.grl`, `.grl`)
    level: int  # of a relative import
    name: str  # its name there
    calls: list  # the module's calls of it
    data: bytes  # the bytes of that module's file


def registering_imports(module):
    """[ImportedCallee] for each function of a project module whose text registers
    gradients that the module calls, every call alike: `f(...)` of `from x import f`,
    `grl.f(...)` of `import models.grl as grl` or `from models import grl`, and
    `models.grl.f(...)` of `import models.grl`. Files are read from disk, never opening
    anything but a regular file: alone and whole alike; each file looked at is a
    dependency of the module's findings. The imports are looked at first (the cheap
    statement walk), names and calls only when one of them registers. Worked out once
    per module, for CG203 and CG204."""
    facts = module.overrides
    if facts.imported_registrars is not None:
        return facts.imported_registrars
    found = facts.imported_registrars = []
    if module.path == "-":
        return found
    # (module, level) imported -> the bound name it is reached by, per import statement
    wanted = []
    for node in module.statements[ast.ImportFrom]:
        if not node.level and (node.module or "").split(".")[0] in _NOT_PROJECT:
            continue
        wanted.append((node, node.module or "", node.level))  # `from x import f`
        for alias in node.names:  # `from models import grl`: a module, maybe
            if alias.name != "*":
                wanted.append((node, "%s.%s" % (node.module, alias.name) if node.module
                               else alias.name, node.level))
    for node in module.statements[ast.Import]:
        for alias in node.names:
            if alias.name.split(".")[0] not in _NOT_PROJECT:
                wanted.append((node, alias.name, 0))
    if not wanted:
        return found
    from cglint import project  # (only modules importing from project modules)

    where = project.current()
    registering = {}  # (module, level) -> the bytes of its file, when it registers
    for node, imported, level in wanted:
        if (imported, level) in registering:
            continue
        path = where.module_path(module.path, imported, level)
        known = None if path is None else _registering_file(path)
        if known is not None:
            module.dependencies.add(project.Dependency(path, known[0]))
            if known[1] is not None:
                registering[(imported, level)] = known[1]
    if not registering:
        return found
    callees = {}  # shown -> [(module, level, name), [calls]]
    for call in module.nodes[ast.Call]:
        target = _imported_target(module, call.func)
        if target is None:
            continue
        shown = ast.unparse(call.func)
        known = callees.setdefault(shown, [target, []])
        if known[0] is not None and known[0] != target:
            known[0] = None  # (the name is bound to different things)
        known[1].append(call)
    for shown, (target, calls) in sorted(callees.items()):
        if target is not None and target[:2] in registering:
            found.append(ImportedCallee(shown, target[0], target[1], target[2], calls,
                                        registering[target[:2]]))
    return found


def _imported_target(module, func):
    """(module, level, name) of the function `func` reaches through an import, or None."""
    parts = []
    while isinstance(func, ast.Attribute):
        parts.append(func.attr)
        func = func.value
    if not isinstance(func, ast.Name) or len(parts) > 4:
        return None
    binding = module.names.definitions(func, module.names.scope_of(func))
    if binding is None:
        return None
    node = binding.node
    parts.reverse()
    if isinstance(node, ast.ImportFrom):
        alias = next((alias for alias in node.names
                      if (alias.asname or alias.name) == func.id), None)
        if alias is None:
            return None
        if not parts:  # `f(...)` of `from x import f`
            return node.module or "", node.level, alias.name
        base = "%s.%s" % (node.module, alias.name) if node.module else alias.name
        return ".".join([base] + parts[:-1]), node.level, parts[-1]
    if isinstance(node, ast.Import) and parts:
        for alias in node.names:
            if alias.asname == func.id:  # `grl.f(...)` of `import models.grl as grl`
                return ".".join([alias.name] + parts[:-1]), 0, parts[-1]
            # `models.grl.f(...)` of `import models.grl`
            if alias.asname is None and alias.name == ".".join([func.id] + parts[:-1]):
                return alias.name, 0, parts[-1]
    return None


def _registering_file(path):
    """(digest, the bytes when the file registers gradients, else None) of a regular
    file, or None; kept while its stat signature stays."""
    try:
        info = os.stat(path)
    except OSError:
        return None
    if not stat.S_ISREG(info.st_mode):
        return None
    signature = (info.st_dev, info.st_ino, info.st_size, info.st_mtime_ns)
    known = _REGISTERING_FILES.get(path)
    if known is None or known[0] != signature:
        from cglint import files

        try:
            data = files.read_bytes(path)
        except OSError:
            return None
        registers = any(word in data for word in _REGISTRATION_BYTES)
        if len(_REGISTERING_FILES) >= _MAX_FILES:
            _REGISTERING_FILES.clear()
        known = _REGISTERING_FILES[path] = (signature, hashlib.sha256(data).hexdigest(),
                                            data if registers else None)
    return known[1:]


def loaded_together(modules, wanted):
    """{path: the paths of `wanted` loaded in one process with it}, for each path in
    `wanted`, from {path: (components, imports)} of the whole run. A file loads itself
    and what it imports, transitively: a name it imports is a file whose components end
    with it, in the importer's own folder or one above it; two files are loaded together
    when one file of the run loads both. Only the few `wanted` files are searched from
    (backwards)."""
    # Indexed by the name imported, not by the file it names: a name can name a file in
    # each of several copies of a package, and an index of file -> importers then grew
    # with the number of copies times the imports (most of a large run's memory).
    importers = {}  # dotted name (a tuple) -> the files that import it
    longest = 0
    for path, (_, imports) in modules.items():
        for imported in imports:
            imported = tuple(imported)
            importers.setdefault(imported, []).append(path)
            longest = max(longest, len(imported))

    # The importer lists of each file's names (the suffixes of its components): shared
    # lists, not copies, each with the folder the name is imported from (the components
    # before it). An importer finds a name only from its own folder or one above it, as
    # cglint.project resolves imports: `import grads` in one program does not load the
    # `grads.py` of another program beside it.
    importer_lists = {}
    for path, (components, _) in modules.items():
        components = tuple(components)
        found = [(components[:start], importers[components[start:]])
                 for start in range(max(0, len(components) - longest), len(components))
                 if components[start:] in importers]
        if found:
            importer_lists[path] = found
    components_of = {path: tuple(components) for path, (components, _) in modules.items()}
    # Searched backwards from each wanted file: a file that loads it gets its bit. Two
    # wanted files are loaded together when some file has both bits.
    order = sorted(wanted)
    marks = {}  # path -> bits of the wanted files it loads
    for bit, path in enumerate(order):
        flag = 1 << bit
        expanded, stack = set(), [path]
        while stack:
            current = stack.pop()
            mark = marks.get(current, 0)
            if mark & flag:
                continue
            marks[current] = mark | flag
            for folder, found in importer_lists.get(current, ()):
                if (id(found), folder) not in expanded:
                    expanded.add((id(found), folder))
                    stack.extend(importer for importer in found
                                 if components_of[importer][:len(folder)] == folder)
    together = [0] * len(order)
    for mask in set(marks.values()):
        for bit in range(len(order)):
            if mask >> bit & 1:
                together[bit] |= mask
    return {path: {other for bit, other in enumerate(order) if together[index] >> bit & 1}
            for index, path in enumerate(order)}
