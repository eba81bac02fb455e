import ast

from cglint.facts import EAGER
from cglint.names import same_scope_nodes
from cglint.rules.base import Rule
from cglint.variable_creators import VARIABLE_FUNCTIONS


class GradientTapeInGraphMode(Rule):
    """`tf.GradientTape` is used in graph mode alongside custom gradients.

    What: a module that defines a `@tf.custom_gradient` function, calls one of another
    project module, or uses `gradient_override_map` takes gradients with `tf.GradientTape`
    without enabling eager execution (a module imported by a project module that turns
    it on, or by one importing that, may run eagerly and is left alone). A tape whose
    `with` block visibly runs no
    custom-gradient function and opens no override map, nor is opened in one (only TF
    ops, builtins, and functions of the module that do neither), is left alone, and so
    is one that runs only eagerly (in the branch of `if
    tf.executing_eagerly():`); one that runs such a function directly, through functions
    of the module or of other project modules (`grads.domain_loss(h)`), or as a value
    (`tf.map_fn(f, x)`), or runs what cglint cannot follow, is reported.

    Why it breaks on TF 1.8: in graph mode 1.8's tape silently ignores both
    `@tf.custom_gradient` and `gradient_override_map` and returns the natural gradient of
    the forward ops. No error, no warning: the custom gradient simply never runs. With
    variables as sources (`tape.gradient(loss, model.trainable_weights)`, the TF 2 train
    step) it fails instead: `AttributeError: 'Variable' object has no attribute '_id'`
    (the message says so when the sources visibly are variables).

    Fix: in graph mode take gradients with `tf.gradients(y, xs)` (or an optimizer's
    `minimize`); use `tf.GradientTape` only after `tf.enable_eager_execution()`.
    """

    code = "CG109"
    name = "gradient-tape-in-graph-mode"

    def check(self, module):
        if not module.tape_calls or module.eager:
            return
        findings = list(self._findings(module))
        # Whether a program importing the module turns eager execution on: a search of
        # the project, made only for a module that has something to report
        if findings and not module.may_run_eager:
            yield from findings

    def _findings(self, module):
        # Worked out once per module and per scope, not per tape: a file may hold
        # thousands of tapes.
        sites, gradient_calls = {}, {}
        for call in module.tape_calls:
            if module.execution_mode(call) == EAGER:
                continue  # under `if tf.executing_eagerly():`, where tapes see them
            reached = _reached(module, call, sites)
            if reached is _NONE and _inside_override_block(module, call):
                reached = _OVERRIDE  # the tape's ops are made under the map too
            if reached is _NONE or (reached is _UNKNOWN and not module.sites
                                    and not module.override_maps):
                # The tape's block visibly runs no custom gradient and opens no override
                # map (the tape records only the ops made in it); or only one of another
                # module could be run, through what cglint cannot follow.
                continue
            if reached is _OVERRIDE or (reached is _UNKNOWN and not module.sites):
                what = "gradient_override_map"
            else:
                site = reached if reached is not _UNKNOWN else module.sites[0]
                what = "custom gradient `%s`" % site.name
            message = "`tf.GradientTape` in graph mode ignores %s in TF 1.8 (natural " \
                "gradient, silently); use tf.gradients" % what
            if _variable_sources(module, call, gradient_calls):
                message += "; with variables as sources its `gradient` raises `AttributeError: " \
                    "'Variable' object has no attribute '_id'`"
            yield self.at(call, message)


# What holds a model's or the graph's variables: sources 1.8's graph-mode tape fails on.
_VARIABLE_ATTRIBUTES = frozenset(("trainable_weights", "trainable_variables", "weights",
                                  "variables"))
_VARIABLE_LISTS = frozenset(("tensorflow.trainable_variables", "tensorflow.global_variables"))


def _variable_sources(module, tape_call, gradient_calls):
    """Whether the tape's `gradient(target, sources)` visibly takes variables: a model's
    `trainable_weights`, `tf.trainable_variables()`, or a name bound to a new variable.
    `gradient_calls`: a memo of _gradient_calls by scope."""
    parent = module.parent_of(tape_call)
    if not isinstance(parent, ast.withitem) or not isinstance(parent.optional_vars, ast.Name):
        return False
    tape = parent.optional_vars.id
    scope = module.names.scope_of(tape_call)
    # (the tape's own scope: another function's `tape` is another tape)
    if id(scope) not in gradient_calls:
        gradient_calls[id(scope)] = _gradient_calls(scope)
    for node in gradient_calls[id(scope)].get(tape, ()):
        sources = next((k.value for k in node.keywords if k.arg == "sources"),
                       node.args[1] if len(node.args) > 1 else None)
        items = sources.elts if isinstance(sources, (ast.List, ast.Tuple)) else [sources]
        for item in items:
            if isinstance(item, ast.Attribute) and item.attr in _VARIABLE_ATTRIBUTES:
                return True
            if isinstance(item, ast.Call) and module.resolve(item.func) in _VARIABLE_LISTS:
                return True
            if isinstance(item, ast.Name):
                bindings = module.names.lookup(item.id, module.names.scope_of(item))
                if len(bindings) == 1 and bindings[0].kind == "assign" and isinstance(
                        bindings[0].node, ast.Call) and _ref_variable(
                            bindings[0].node, module.names.resolve(
                                bindings[0].node.func, bindings[0].scope)):
                    return True
    return False


def _gradient_calls(scope):
    """{name: [calls of `name.gradient(...)`]} in the scope's own body."""
    body = getattr(scope.node, "body", [])
    body = body if isinstance(body, list) else [body]  # a lambda's one expression
    found = {}
    for node in same_scope_nodes(body):
        if isinstance(node, ast.Call):
            func = node.func
            if isinstance(func, ast.Attribute) and func.attr == "gradient" and isinstance(
                    func.value, ast.Name):
                found.setdefault(func.value.id, []).append(node)
    return found


def _ref_variable(call, qualname):
    """A 1.8 variable the tape cannot take: `tf.Variable`, `tf.get_variable` (not a layer
    function's output tensor, nor `use_resource=True`, which it takes)."""
    return qualname in VARIABLE_FUNCTIONS and "Resource" not in qualname and \
        "eager" not in qualname and not any(
            keyword.arg == "use_resource" and not (
                isinstance(keyword.value, ast.Constant) and keyword.value.value is False)
            for keyword in call.keywords)


# What a tape's `with` block runs: no custom gradient, one cglint cannot rule out, or
# a `gradient_override_map` block.
_NONE, _UNKNOWN, _OVERRIDE = "none", "unknown", "override"
# Builtins a block may call that run no custom gradient.
_INERT_BUILTINS = frozenset(("print", "len", "range", "float", "int", "bool", "str", "list",
                             "tuple", "dict", "set", "zip", "enumerate", "isinstance", "abs",
                             "min", "max", "sum", "sorted", "reversed", "map", "repr"))
MAX_HELPER_DEPTH = 3


def _reached(module, call, sites):
    """The site a tape's `with` block runs (directly, through functions of the module or
    of other project modules, or passed along as a value), _UNKNOWN when the block calls
    what cglint cannot follow or the tape is not used as a `with`, _NONE when it visibly
    runs none."""
    item = module.parent_of(call)
    statement = module.parent_of(item) if isinstance(item, ast.withitem) else None
    if not isinstance(statement, (ast.With, ast.AsyncWith)) or item.context_expr is not call:
        return _UNKNOWN
    tape = item.optional_vars.id if isinstance(item.optional_vars, ast.Name) else None
    return _runs(module, statement.body, tape, 0, set(), sites)


def _inside_override_block(module, call):
    """Whether the tape is opened inside a `with ....gradient_override_map(...)` block."""
    if not module.override_maps:
        return False
    maps = {id(found) for found in module.override_maps}
    return any(isinstance(parent, (ast.With, ast.AsyncWith)) and any(
        id(item.context_expr) in maps for item in parent.items)
        for parent in module.ancestors(call))


def _sites(module, memo):
    """({id(def): site}, {id(call): site}) of the custom-gradient functions a module
    defines and the calls of them it makes (of other modules' too), its override maps'
    calls giving _OVERRIDE; kept in `memo` by module."""
    if id(module) in memo:
        return memo[id(module)][1]
    by_def = {id(site.func): site for site in module.sites}
    by_call = {id(c): site for site in module.sites for c in site.calls + site.partials}
    by_call.update((id(c), site) for c, site in module.imported_calls)
    by_call.update((id(c), _OVERRIDE) for c in module.override_maps)
    memo[id(module)] = (module, (by_def, by_call))  # (the module kept: its id stays its own)
    return by_def, by_call


def _runs(module, statements, tape, depth, seen, sites):
    found = _NONE
    by_def, by_call = _sites(module, sites)
    for statement in statements:
        for node in ast.walk(statement):
            if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load):
                binding = module.names.definitions(node, module.names.scope_of(node))
                if binding is not None and id(binding.node) in by_def:
                    return by_def[id(binding.node)]  # called, or handed to tf.map_fn
            if not isinstance(node, ast.Call):
                continue
            if id(node) in by_call:
                return by_call[id(node)]
            verdict = _call_runs(module, node, tape, depth, seen, sites)
            if verdict is not _NONE:
                if verdict is not _UNKNOWN:
                    return verdict
                found = _UNKNOWN
    return found


def _call_runs(module, call, tape, depth, seen, sites):
    func = call.func
    qualname = module.resolve(func)
    if qualname and qualname.startswith("tensorflow."):
        return _NONE  # TF's own ops (a site passed to one is found as a name)
    if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) and \
            func.value.id == tape:
        return _NONE  # tape.watch(w)
    if isinstance(func, ast.Name) and func.id in _INERT_BUILTINS and \
            module.names.is_builtin(func):
        return _NONE
    if depth >= MAX_HELPER_DEPTH:
        return _UNKNOWN
    # A def of this module, or of another project module (`grads.discriminator(h)`),
    # followed in its own module's facts.
    called = module.def_called(call, module.names.scope_of(call))
    if called is None:
        return _UNKNOWN
    facts, helper = called
    if id(helper) in seen:
        return _NONE
    seen.add(id(helper))
    found = _runs(facts, helper.body, None, depth + 1, seen, sites)
    if facts is not module:
        # What the other module's facts drew from the project decides this finding too.
        module.dependencies.update(facts.dependencies)
    return found


RULE = GradientTapeInGraphMode
