import ast
import os

from cglint import overrides, project
from cglint.tfpackage import is_tensorflow_file
from cglint.ops import load as load_ops
from cglint.rules.base import Finding, Rule, Span

_KEY_ERROR = ("`KeyError: \"Registering two gradient with name '%s' !(Previous registration "
              "was in ...)\"`")


class GradientRegisteredTwice(Rule):
    """The same gradient name is registered twice, or a built-in op type's name is.

    What: `tf.RegisterGradient("ClippedReluGrad")` (or `tf.NotDifferentiable`) where the
    same name is registered again: twice in one module, inside a function or loop that
    runs more than once (building a model twice, a helper called per layer, a layer
    class's constructor or a Keras layer's `build` with two instances, a layer's `call` or
    a method run twice on instances of its class, an Estimator's `model_fn`, which runs
    once per graph the estimator builds: `train`, then `evaluate`; also a helper another
    project module defines, called twice or in a loop here: reported at the second call,
    `from models.grl import gradient_reversal`, or `grl.gradient_reversal(x)` of `import
    models.grl as grl`), or in two
    modules that end up in one program (reported at the second to run: the one whose
    module imports the other, or the later path where a third module imports both); or a
    name TF 1.8 already registers for its own op
    types (`"Relu"`, `"Identity"`, `"Sign"`); or two different `@function.Defun`s of one
    module (other input types, parameters or body) given the same literal `func_name`,
    both called (and the defs holding them called too). A registration under `try: ... except
    KeyError` is left alone, and so is a function called once in each branch of an
    `if` (only one runs), and one behind a run-once guard that its function sets
    (`if _REGISTERED: return` then `_REGISTERED = True` on a global, an attribute or an
    item; `if name not in _done:` then `_done.add(name)`; `if not _done:` then
    `_done.append(True)`; a test of TF's gradient registry that may look up the name
    registered: `if "GuidedBackprop" not in ops._gradient_registry._registry:` over
    `RegisterGradient("GuidedBackProp")` guards nothing), and a module-level one in a module that every project
    module importing it imports inside such a `try` (the KeyError is expected there), and
    names built at run time (a counter the function increments, a uuid), and
    TensorFlow's own files (a module inside the `tensorflow`
    package), whose registrations are the originals.

    Why it breaks on TF 1.8: the gradient registry is global to the process, whatever the
    graph, and refuses a second registration at once (at import, or at the second call):
    `KeyError: "Registering two gradient with name 'ClippedReluGrad' !(Previous
    registration was in <func> <file>:<line>)"`. A name built from values that are
    the same on every call is one name: a module constant, or an attribute `__init__`
    sets once that nothing changes (the gradient reversal builder whose
    `"FlipGradient%d" % self.num_calls` never sees `self.num_calls += 1`). Re-running a notebook cell or
    re-importing the module does the same. `tf.RegisterGradient("Relu")` fails the same
    way, because `Relu` already has its built-in gradient. The second of two different
    Defuns named alike raises at its call, once both are in one graph:
    `InvalidArgumentError: Cannot add function 'ScaleGradient' because a different
    function with the same name already exists`.

    Fix: register each name once, at module level, under a name of your own; map op types
    to it with `gradient_override_map({"Relu": "ClippedReluGrad"})`. A helper that runs
    more than once registers a fresh name each time (`"ClippedReluGrad_" +
    uuid.uuid4().hex`), or guards the registration with `try/except KeyError` or a
    module flag it sets after registering. Give each Defun its own `func_name`.
    """

    code = "CG203"
    name = "gradient-registered-twice"

    def check(self, module):
        if is_tensorflow_file(module.path):
            return  # TensorFlow's own registrations are the originals
        facts = module.overrides
        ops = load_ops()
        by_name = {}
        for registration in facts.registrations:
            name = registration.name.value
            if not registration.applied or name is None:
                continue
            if name in ops.gradients or name in ops.not_differentiable:
                if not registration.guarded and not _importers_catch_it(module, registration):
                    what = "a gradient" if name in ops.gradients else "a registration " \
                        "(not differentiable)"
                    yield self.at(registration.call, "`%s` is a TF 1.8 op type that already "
                                  "has %s: registering it raises %s; register a name of "
                                  "your own and map `%s` to it with `gradient_override_map`"
                                  % (name, what, _KEY_ERROR % name, name))
                continue
            by_name.setdefault(name, []).append(registration)
        for name, registrations in sorted(by_name.items()):
            runs = sorted((line, index, guarded) for index, registration in
                          enumerate(registrations) for line, guarded in registration.runs)
            reported = set()
            for line, index, guarded in runs[1:]:
                if guarded or index in reported:
                    continue
                reported.add(index)
                registration = registrations[index]
                first = registrations[runs[0][1]]
                if first is registration:
                    yield self.at(registration.call, "%s: the second time raises %s"
                                  % (_runs_again(registration, name), _KEY_ERROR % name))
                else:
                    yield self.at(registration.call, "gradient `%s` is already registered at "
                                  "line %d: registering it again raises %s"
                                  % (name, first.call.lineno, _KEY_ERROR % name))
        yield from _imported_helpers_run_twice(module)
        if "func_name" in module.text:
            yield from _defuns_named_alike(self, module)

    def summarize(self, module):
        if is_tensorflow_file(module.path):
            return None
        facts = module.overrides
        names = {}
        for registration, name, unguarded in overrides.repeatable_registrations(facts):
            names.setdefault(name, []).append((tuple(module.span(registration.call)),
                                               unguarded))
        # The same names registered by the project modules on disk loaded with it: a
        # file checked alone is judged as in its whole tree. (shown path, real path,
        # name, whether one of its registrations runs unguarded)
        elsewhere = []
        if names:
            first = None  # the real paths of what runs before the module's own code
            for summary in overrides.loaded_on_disk(module):
                registered = [(name, unguarded) for name, unguarded in sorted(
                    summary.registered_runs.items()) if name in names]
                if not registered:
                    continue
                if first is None:
                    first = {os.path.realpath(imported.path)
                             for imported in module._top_level_imports}
                order = _order(module, summary, first)
                elsewhere += [(project.shown_path(summary.path, module.path), os.path.realpath(
                    summary.path), name, unguarded, order) for name, unguarded in registered]
        return facts.components, facts.imports, names, elsewhere

    def check_run(self, summaries):
        by_name = {}
        for path in sorted(summaries):
            for name, places in summaries[path][2].items():
                by_name.setdefault(name, []).append((path, places))
        wanted = {path for found in by_name.values() if len(found) > 1 for path, _ in found}
        if not wanted and not any(summary[3] for summary in summaries.values()):
            return
        together = overrides.loaded_together(
            {path: (summary[0], summary[1]) for path, summary in summaries.items()}, wanted)
        for name, found in sorted(by_name.items()):
            for path, places in found:
                # (real path, shown path, whether one of its registrations is unguarded)
                others = [(os.path.realpath(other), other,
                           any(unguarded for _, unguarded in other_places))
                          for other, other_places in found
                          if other != path and other in together.get(path, ())]
                checked = {real for real, _, _ in others}
                others += [(real, shown, unguarded)
                           for shown, real, other_name, unguarded, _ in summaries[path][3]
                           if other_name == name and real not in checked]
                # What the module imports at its top registers first; what imports it,
                # after (the second registration is the one that raises). Else the order
                # is unknown: blame the later path, or the unguarded side.
                order = {real: known for _, real, _, _, known in summaries[path][3]}
                real_path = os.path.realpath(path)
                earlier = [shown for real, shown, unguarded in others
                           if order.get(real) == _FIRST or (order.get(real) is None and (
                               real < real_path or not unguarded))]
                if not earlier:
                    continue
                for place, unguarded in places:
                    if unguarded:
                        yield Finding("gradient `%s` is also registered in %s, which is "
                                      "loaded in the same program: the second registration "
                                      "raises %s" % (name, earlier[0], _KEY_ERROR % name),
                                      span=Span(*place), path=path)


def _imported_helpers_run_twice(module):
    """Findings at the second run of a function another project module defines (`from
    models.grl import gradient_reversal`), which registers a fixed gradient name each
    time it runs, unguarded, when this module calls it twice or in a loop: the second
    call raises KeyError. The other module is read from disk, so the file is judged
    alike alone and in its whole tree (and the other module, which cannot know its
    callers, reports nothing)."""
    for callee in overrides.registering_imports(module):
        name, calls = callee.shown, callee.calls
        runs = sorted((call.lineno, call.col_offset, call) for call in calls
                      for _ in range(2 if _in_loop(module, call) else 1))
        if len(runs) < 2 or overrides.exclusive_calls(module, calls):
            continue  # (once, or each call in its own branch of an `if`: one runs)
        registered = _registers_each_run(module, callee)
        if registered is None:
            continue
        shown, registration, gradient = registered
        second = runs[1][2]
        lines = sorted({run[0] for run in runs})
        if len(lines) == 1:
            how = "it is called in a loop (line %d)" % lines[0]
        else:
            how = "it is called %s (lines %s)" % (
                "twice" if len(runs) == 2 else "more than once",
                ", ".join(str(line) for line in lines))
        yield Finding("`%s` (%s:%d) registers gradient `%s` each time it runs, and %s: "
                      "the second time raises %s" % (
                          name, shown, registration.call.lineno, gradient, how,
                          _KEY_ERROR % gradient), node=second)


_COMPREHENSIONS = (ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)


def _in_loop(module, call):
    """Whether `call` sits in a loop of its own def (or of the module's top level)."""
    child, parent = call, module.parent_of(call)
    while parent is not None and not isinstance(parent, (
            ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef, ast.Module)):
        if isinstance(parent, (ast.For, ast.AsyncFor, ast.While)) and \
                child not in parent.orelse and child is not getattr(parent, "iter", None):
            return True
        if isinstance(parent, _COMPREHENSIONS) and child is not parent.generators[0].iter:
            return True  # `[binarize(w) for w in weights]`
        child, parent = parent, module.parent_of(parent)
    return False


def _registers_each_run(module, callee):
    """(shown path, Registration, gradient name) when the ImportedCallee is a plain def
    holding a registration of a fixed name (not one TF 1.8 registers itself) that runs
    each time the def does: not under `try: ... except KeyError` or a test of TF's
    registry, not behind a run-once guard, not in a loop of its own (that one is
    reported there); else None."""
    found = project.current().imported_function(module.path, callee.module, callee.name,
                                                 callee.level)
    if found is None:
        return None
    other, function, dependency = found
    ops = load_ops()
    for registration in other.overrides.registrations:
        gradient = registration.name.value
        if registration.in_function is function and registration.applied and \
                gradient is not None and not registration.guarded and \
                not registration.once and not registration.in_loop and \
                gradient not in ops.gradients and gradient not in ops.not_differentiable:
            module.dependencies.add(dependency)
            return project.shown_path(other.path, module.path), registration, gradient
    return None


def _defuns_named_alike(rule, module):
    """Two different `@function.Defun(..., func_name="ScaleGradient")` of the module (other
    input types, parameters or body), each called, and the defs holding them called too:
    in one graph the second one's call raises `InvalidArgumentError: Cannot add function
    'ScaleGradient' because a different function with the same name already exists`."""
    first = {}  # func_name -> (def, its text)
    for site in module.defun_sites:
        func = site.func
        decorator = next((d for d in func.decorator_list if isinstance(d, ast.Call) and any(
            k.arg == "func_name" for k in d.keywords)), None)
        if decorator is None:
            continue
        given = next(k.value for k in decorator.keywords if k.arg == "func_name")
        if not (isinstance(given, ast.Constant) and isinstance(given.value, str)) or \
                not _used(module, func, 0):
            continue
        text = (tuple(ast.unparse(a) for a in decorator.args), ast.unparse(func.args),
                tuple(ast.unparse(statement) for statement in func.body))
        if given.value not in first:
            first[given.value] = (func, text)
        elif first[given.value][1] != text:
            yield rule.at(given, "a different Defun `%s` (line %d) is also named `%s`: once "
                          "both are called in one graph, the second raises "
                          "`InvalidArgumentError: Cannot add function '%s' because a "
                          "different function with the same name already exists`; give "
                          "each its own func_name" % (
                              first[given.value][0].name, first[given.value][0].lineno,
                              given.value, given.value))


def _used(module, func, depth):
    """Whether the module calls `func` by its plain name where it is bound, and the defs
    holding it are called likewise."""
    scope = module.names.scope_of(func)
    if depth > 3 or not isinstance(func, (ast.FunctionDef, ast.AsyncFunctionDef)):
        return False
    if scope.kind not in ("module", "function"):
        return False
    for call in module.nodes[ast.Call]:
        if isinstance(call.func, ast.Name) and call.func.id == func.name:
            binding = module.names.definitions(call.func, module.names.scope_of(call))
            if binding is not None and binding.node is func:
                break
    else:
        return False
    return scope.kind == "module" or _used(module, scope.node, depth + 1)


_FIRST, _AFTER = "first", "after"


def _order(module, summary, first):
    """Whether the other module's code runs before the module's own (its top level
    imports it: _FIRST), after it (it imports the module: _AFTER), or None: unknown."""
    if os.path.realpath(summary.path) in first:
        return _FIRST
    where, own = project.current(), os.path.realpath(module.path)
    if any(found is not None and os.path.realpath(found) == own
           for found in (where.module_path(summary.path, imported, level)
                         for imported, level in summary.imports or ())):
        return _AFTER
    return None


def _importers_catch_it(module, registration):
    """A module-level registration in a module every project importer of which imports
    it inside `try: ... except KeyError:` (maml's `special_grads`): the KeyError is
    expected and handled where it surfaces."""
    if registration.in_function is not None or module.path == "-":
        return False
    from cglint import project  # only modules registering a built-in op's name need it

    caught, dependencies = project.current().imports_all_catch_key_error(
        module.path, namespaces=module.target_python >= overrides.NAMESPACE_PACKAGES)
    module.dependencies.update(dependencies)
    return caught


def _runs_again(registration, name):
    function = registration.in_function
    if registration.in_loop:
        where = " in `%s`" % function.name if function is not None else ""
        return "gradient `%s` is registered inside a loop%s" % (name, where)
    lines = sorted({line for line, _ in registration.runs})
    if len(lines) == 1 and lines[0] in registration.looped_lines:
        calls = "it is called in a loop (line %d)" % lines[0]
    elif len(lines) == 1:  # two calls on one line (`Layer()(Layer()(x))`)
        calls = "it is called more than once on line %d" % lines[0]
    else:
        times = "twice" if len(lines) == 2 else "%d times" % len(lines)
        if len(registration.runs) > len(lines):
            times = "more than once"
        calls = "it is called %s (lines %s)" % (times, ", ".join(str(line) for line in lines))
    shown = "`%s`" % function.name
    if set(lines) <= registration.estimator_lines:  # a model_fn
        calls = calls.replace("it is called", "an Estimator builds a graph with it")
    if registration.per_instance:  # `__init__`, or a layer's `build`: once per instance
        shown = "constructor `__init__`" if function.name == "__init__" else \
            "method `%s`" % function.name
        calls = calls.replace("it is called", "its class is instantiated")
    elif function.name in ("call", "__call__"):  # once per call of an instance
        shown = "method `%s`" % function.name
        calls = calls.replace("it is called", "instances of its class are called")
    return "%s registers gradient `%s` each time it runs, and %s" % (shown, name, calls)


RULE = GradientRegisteredTwice
