import ast
import os

from cglint import overrides, project
from cglint.ops import load as load_ops
from cglint.rules.base import Finding, Rule, Span
from cglint.wording import plural


class RegisteredGradientCount(Rule):
    """A registered gradient returns a different number of gradients than its op has inputs.

    What: a function registered with `tf.RegisterGradient("ClippedReluGrad")` and used
    for an op type through `gradient_override_map({"Relu": "ClippedReluGrad"})` returns,
    say, 2 gradients while a `Relu` op has 1 input. The op type comes from the override
    map (in the same file or in a file loaded with it), and its input count from TF 1.8's
    op registry; ops with a variable number of inputs (`AddN`, `ConcatV2`) are left alone,
    but for a `PyFunc` that its block builds with `tf.py_func(f, [x, w], ...)` (the inputs
    are the list's tensors; likewise `ConcatV2`, `Pack` and `AddN` of a list display, a
    `ConcatV2` counting its axis too), also through the widely copied `py_func(func, inp, Tout,
    grad=...)` wrapper that registers its `grad` parameter: each call of it passes the
    gradient function (a def, or a lambda: `grad=lambda op, g: [g * 2.0]`) and the `inp`
    list, also when the wrapper is imported from another project module (`from utils
    import py_func`, or `utils.py_func(...)`: reported at the caller's gradient function,
    alone or whole). The list may be kept in a name first (`inputs = [x, w]`), bound once and not
    changed after (in a function: never appended to or item-assigned; at module level: a
    tuple, or a list only ever passed to calls). The same holds for TF's own gradients mapped onto another op type: the
    straight-through `{"Round": "Identity"}` works (one input each), but
    `{"ClipByValue": "Identity"}` returns one gradient for three inputs, and
    `{"Mul": "Identity"}` one for two, whether the block calls `tf.multiply(x, w)` or
    writes `x * w` with `x` surely a tensor (a name bound once to `tf.constant(...)`, a
    placeholder, a variable or a TF call; an operator of one op type: not on numbers,
    numpy arrays or unknown values).

    Why it breaks on TF 1.8: `tf.gradients` calls the function with `(op, grad)` and
    checks the count: `ValueError: Num gradients 2 generated for op name: "Relu"`, then
    the op's whole NodeDef, then `do not match num inputs 1`. It names neither your
    function nor its registration.

    The function must also take `(op, *grads)`, one upstream gradient per output of the
    op type (`Identity`: one, `TopKV2`: two; for a `PyFunc`, `Unpack` or `Split` the one
    the block builds gives it: `tf.py_func(f, [x], [tf.float32, tf.float32])`,
    `tf.unstack(x, num=2)`, `tf.split(x, 2)`): `def grad(op)` is called with two arguments,
    and `tf.gradients` raises `TypeError: grad() takes 1 positional argument but 2 were
    given`.

    Fix: return exactly one gradient (or None) per input of the op, in the op's input
    order: `Relu` has 1 (`features`), `Maximum` and `Mul` have 2 (`x`, `y`), `ClipByValue`
    has 3 (`t`, `clip_value_min`, `clip_value_max`).
    """

    code = "CG204"
    name = "registered-gradient-count"

    def check(self, module):
        facts = module.overrides
        wrapped = list(_imported_wrappers(self, module))
        if wrapped and not module.eager:  # (whether eager: a look at the imports, made late)
            yield from wrapped
        if not facts.maps or module.eager:
            return  # override maps are ignored under eager execution (CG201)
        for registration in facts.registrations:
            if registration.function is None or registration.name.identity is None:
                continue
            maps = [(entry.key, found.call.lineno, found) for found in facts.maps
                    for entry in found.entries
                    if entry.value.identity == registration.name.identity and entry.key]
            yield from self._arity(registration, maps)
            for anchor, count, key, line, inputs in _mismatches(module, registration, maps):
                node = anchor.body if isinstance(anchor, ast.Lambda) else anchor
                function = registration.function
                yield self.at(node, _message(function.name, _shown(registration.name), key,
                                             "line %d" % line, inputs, count),
                              function=function.node if function.name != "lambda" else None)
        yield from self._builtin_mismatches(module, facts)
        yield from _passed_gradients(self, module, facts)

    def _arity(self, registration, uses):
        """The function cannot take `(op, *grads)`, one upstream gradient per output of
        an op type it overrides."""
        ops = load_ops()
        function = registration.function
        params = function.params
        for key, line, found in uses:
            outputs = ops.fixed_outputs(key)
            if outputs is None:
                outputs = _block_outputs(key, found)
            if outputs is None or params.vararg:
                continue
            given = 1 + outputs
            if params.required <= given <= len(params.names):
                continue
            node = function.node
            yield self.at(node,
                          "`%s`, registered as %s and overriding `%s` (line %d), takes %s, "
                          "but TF 1.8 calls it with the op and %d upstream gradient%s "
                          "(TypeError in tf.gradients)" % (
                              function.name, _shown(registration.name), key, line,
                              _taken(params), outputs, plural(outputs)),
                          function=node if function.name != "lambda" else None)
            return

    @staticmethod
    def _builtin_mismatches(module, facts):
        """`{"ClipByValue": "Identity"}`: TF's own gradient of an op type returns one
        gradient per input of that op type, whatever op it is mapped onto."""
        ops = load_ops()
        own = {registration.name.value for registration in facts.registrations}
        for found in facts.maps:
            # Only where the block surely builds the op: else the map may never apply
            # (CG201's business), and nothing fails.
            built = {op for call in found.built or () for op in call.op_types}
            built |= found.operator_built  # `x * w` of a tensor: a `Mul`
            for entry in found.entries:
                name, key = entry.value.value, entry.key
                if not key or name is None or name in own or name not in ops.gradients \
                        or key not in built:
                    continue
                returned, inputs = ops.fixed_inputs(name), ops.fixed_inputs(key)
                if returned is None or inputs is None or returned == inputs:
                    continue
                yield RegisteredGradientCount.at(
                    entry.value.node, "`%s` has %d input%s, but TF's own gradient `%s` is "
                    "written for the op type `%s`, of %d input%s, and returns one gradient "
                    "per input: `tf.gradients` fails (`Num gradients %d generated for op "
                    "name: ...`, or an error inside that gradient)" % (
                        key, inputs, plural(inputs), name, name, returned, plural(returned),
                        returned))

    def summarize(self, module):
        facts = module.overrides
        registrations = []
        for registration in facts.registrations:
            name = registration.name.value
            if registration.function is None or name is None:
                continue
            returns = []
            for anchor, value in registration.function.returns:
                count = _count(module, registration, value)
                node = anchor.body if isinstance(anchor, ast.Lambda) else anchor
                if count is not None:
                    returns.append((tuple(module.span(node)), count))
            if returns:
                registrations.append((name, registration.function.name, returns))
        uses = []
        if facts.maps and not module.eager:
            uses = overrides.override_uses(facts)
        # The override maps of the project modules on disk loaded with it: a file checked
        # alone is judged as in its whole tree. (shown path, real path, (name, op, line))
        elsewhere = []
        if registrations:
            names = {name for name, _, _ in registrations}
            elsewhere = [(project.shown_path(summary.path, module.path),
                          os.path.realpath(summary.path), use)
                         for summary in overrides.loaded_on_disk(module)
                         for use in summary.override_uses if use[0] in names]
        return facts.components, facts.imports, registrations, uses, elsewhere

    def check_run(self, summaries):
        names = {name for summary in summaries.values() for name, _, _ in summary[2]}
        wanted = {path for path, summary in summaries.items()
                  if summary[2] or any(use[0] in names for use in summary[3])}
        if not names:
            return
        together = overrides.loaded_together(
            {path: (summary[0], summary[1]) for path, summary in summaries.items()}, wanted)
        ops = load_ops()
        for path in sorted(p for p in summaries if summaries[p][2]):
            # The file's own override maps first: check() has reported what they link.
            linked = [(path, use) for use in summaries[path][3]]
            others = sorted(together[path] - {path})
            linked += [(other, use) for other in others for use in summaries[other][3]]
            checked = {os.path.realpath(other) for other in others}
            linked += [(shown, use) for shown, real, use in summaries[path][4]
                       if real not in checked]
            for name, function, returns in summaries[path][2]:
                reported = set()
                for where, (value, key, line) in linked:
                    inputs = ops.fixed_inputs(key)
                    if value != name or not inputs:
                        continue
                    for place, count in returns:
                        if count == inputs or place in reported:
                            continue
                        reported.add(place)
                        if where != path:
                            yield Finding(_message(function, "`%s`" % name, key,
                                                   "%s:%d" % (where, line), inputs, count),
                                          span=Span(*place), path=path)


def _mismatches(module, registration, maps):
    """(return anchor, count, op type, line of the map, inputs) per wrong return."""
    ops = load_ops()
    counts = [(anchor, _count(module, registration, value))
              for anchor, value in registration.function.returns]
    reported = set()
    for key, line, found in maps:
        inputs = ops.fixed_inputs(key) or _py_func_inputs(module, key, found)
        if not inputs:
            continue
        for anchor, count in counts:
            if count is not None and count != inputs and id(anchor) not in reported:
                reported.add(id(anchor))
                yield anchor, count, key, line, inputs


# Op types of `tf.py_func`, whose inputs are the tensors of its `inp` list.
_PY_FUNCS = {"PyFunc": "tensorflow.py_func", "PyFuncStateless": "tensorflow.py_func",
             "EagerPyFunc": "tensorflow.contrib.eager.py_func"}


# Op types of a variable number of inputs that a call's list gives: {op type: (function,
# the list's position, its keyword, inputs besides the list)}. `tf.concat([a, b], 0)`
# builds a ConcatV2 of three inputs: the two values and the axis.
_LIST_INPUTS = {
    "ConcatV2": ("tensorflow.concat", 0, "values", 1),
    "Pack": ("tensorflow.stack", 0, "values", 0),
    "AddN": ("tensorflow.add_n", 0, "inputs", 0),
}
_LIST_INPUTS.update((key, (qualname, 1, "inp", 0)) for key, qualname in _PY_FUNCS.items())


def _py_func_inputs(module, key, found):
    """The inputs of the ops of a variable number of inputs the map's block builds
    (`PyFunc`'s `inp`, a `ConcatV2`'s values and axis), when every call building one
    gives its list as a display of the same length (written there, or in a name bound
    once: `inputs = [a, b]`); else None."""
    if key not in _LIST_INPUTS or not found.built:
        return None
    qualname, position, keyword, besides = _LIST_INPUTS[key]
    counts = set()
    for built in found.built:
        if built.qualname != qualname or key not in built.op_types:
            continue
        given = _display(module, _passed(built.call, keyword, position),
                         module.names.scope_of(built.call))
        if given is None:
            return None
        if len(given.elts) == 1 and key in ("ConcatV2", "AddN"):
            return None  # `tf.concat([a], 0)`, `tf.add_n([a])` give `a` back: no such op
        counts.add(len(given.elts) + besides)
    return counts.pop() if len(counts) == 1 else None


# Op types whose output count a call's argument gives: {op type: (function, the
# argument's position, its keyword, what it is)}. `tf.py_func(f, inp, Tout)` has one
# output per dtype of a `Tout` list (one for a single dtype); `tf.unstack(x, num)` num;
# `tf.split(x, 3)` three.
_OUTPUTS_GIVEN_BY = {
    "PyFunc": ("tensorflow.py_func", 2, "Tout", "dtypes"),
    "PyFuncStateless": ("tensorflow.py_func", 2, "Tout", "dtypes"),
    "EagerPyFunc": ("tensorflow.contrib.eager.py_func", 2, "Tout", "dtypes"),
    "Unpack": ("tensorflow.unstack", 1, "num", "count"),
    "Split": ("tensorflow.split", 1, "num_or_size_splits", "count"),
}


def _block_outputs(key, found):
    """The outputs of the `key` ops the map's block builds, when each call building one
    shows the same count (`Tout=[tf.float32, tf.float32]`, `num=2`); else None."""
    given_by = _OUTPUTS_GIVEN_BY.get(key)
    if given_by is None or not found.built:
        return None
    qualname, position, keyword, kind = given_by
    counts = set()
    for built in found.built:
        if built.qualname != qualname or key not in built.op_types:
            continue
        value = _passed(built.call, keyword, position)
        if kind == "count" and isinstance(value, ast.Constant) and type(value.value) is int:
            counts.add(value.value)
        elif kind == "dtypes" and isinstance(value, (ast.List, ast.Tuple)) and not any(
                isinstance(element, ast.Starred) for element in value.elts):
            counts.add(len(value.elts))
        elif kind == "dtypes" and isinstance(value, ast.Attribute) and value.attr in _DTYPES:
            counts.add(1)  # `Tout=tf.float32`: one output
        else:
            return None
    return counts.pop() if len(counts) == 1 else None


def _display(module, expr, scope):
    """The list or tuple display (without `*`) that `expr`, read in `scope`, is: written
    there, or a name bound once to one that nothing changes: a function's own (never
    appended to, item-assigned or augmented there), a module's tuple, or a module's list
    that is only ever passed to calls as an argument. Else None."""
    if isinstance(expr, ast.Name):
        binding = module.names.definitions(expr, scope)
        if binding is None or binding.kind != "assign":
            return None
        if binding.scope.kind != "module":
            expr = module.single_value(expr, binding.scope)
        elif not module.names.declared_global(expr.id) and (
                isinstance(binding.node, ast.Tuple) or _only_passed(module, expr.id)):
            expr = binding.node
        else:
            return None
    if not isinstance(expr, (ast.List, ast.Tuple)) or any(
            isinstance(element, ast.Starred) for element in expr.elts):
        return None
    return expr


def _only_passed(module, name):
    """Whether every read of the module-level `name` passes it to a call as an argument
    (so no method of it is called, and no item of it is assigned)."""
    for node in module.nodes[ast.Name]:
        if node.id != name or not isinstance(node.ctx, ast.Load):
            continue
        parent = module.parent_of(node)
        if isinstance(parent, ast.keyword):
            parent = module.parent_of(parent)
        elif not (isinstance(parent, ast.Call) and node in parent.args):
            return False
        if not isinstance(parent, ast.Call):
            return False
    return True


def _passed(call, keyword, position):
    """What `call` passes as `keyword`, else at `position`, else None."""
    given = next((k.value for k in call.keywords if k.arg == keyword), None)
    if given is None and len(call.args) > position:
        given = call.args[position]
    return given


_DTYPES = frozenset(("float16", "float32", "float64", "int8", "int16", "int32", "int64",
                     "uint8", "uint16", "bool", "string", "complex64", "complex128"))


def _passed_gradients(rule, module, facts):
    """The `py_func` wrapper of the widely copied recipe: `def py_func(func, inp, Tout,
    ..., grad=None)` registers its `grad` parameter under a name it maps `PyFunc` to
    around `tf.py_func(func, inp, Tout)`. Each call of the wrapper in the module passes
    the gradient function and the inputs: the function must return one gradient per
    tensor of that call's `inp` list."""
    reported = set()  # returns: one finding each, at the first call it does not fit
    calls_of = None  # id(def) -> the module's calls of it, worked out once
    for wrapper, passed_as, inp, key, built in _wrappers(module, facts):
        if calls_of is None:
            calls_of = {}
            for call in module.nodes[ast.Call]:
                called = module.called_function(call, module.names.scope_of(call))
                if called is not None:
                    calls_of.setdefault(id(called), []).append(call)
        yield from _wrapper_calls(rule, module, calls_of.get(id(wrapper), ()), wrapper,
                                  passed_as, inp, key, built, reported, (wrapper,))


def _imported_wrappers(rule, module):
    """The same for calls of a `py_func` wrapper another project module defines (`from
    utils import py_func`), read from disk: the gradient function and the `inp` list are
    this module's, so the finding is here, alone or in the whole tree."""
    reported = set()
    for callee in overrides.registering_imports(module):
        if b"gradient_override_map" not in callee.data:
            continue
        found = project.current().imported_function(module.path, callee.module, callee.name,
                                                     callee.level)
        if found is None:
            continue
        other, function, dependency = found
        if other.eager:
            continue  # (maps are ignored under eager execution: CG201's)
        for wrapper, passed_as, inp, key, built in _wrappers(other, other.overrides):
            if wrapper is function:
                module.dependencies.add(dependency)
                yield from _wrapper_calls(rule, module, callee.calls, wrapper, passed_as,
                                          inp, key, built, reported, imported=True)


def _wrappers(module, facts):
    """(the wrapper def, the parameter it registers, its `inp` parameter, the op type
    mapped, the BuiltCall of its `tf.py_func`) of each `py_func` wrapper of the module."""
    for registration in facts.registrations:
        wrapper = registration.in_function
        parent = module.parent_of(registration.call)
        if registration.function is not None or wrapper is None or not isinstance(
                wrapper, ast.FunctionDef) or registration.name.identity is None or not (
                    isinstance(parent, ast.Call) and parent.func is registration.call
                    and len(parent.args) == 1 and isinstance(parent.args[0], ast.Name)):
            continue
        own = module.names.scope_for_def[id(wrapper)].bindings
        # parameters the wrapper never rebinds (`inp = list(inp) + [c]` is another list)
        parameters = {arg.arg for arg in wrapper.args.args + wrapper.args.kwonlyargs
                      if len(own.get(arg.arg, ())) == 1}
        passed_as = parent.args[0].id
        if passed_as not in parameters:
            continue
        for found in facts.maps:
            for entry in found.entries:
                if entry.value.identity != registration.name.identity or \
                        entry.key not in _PY_FUNCS:
                    continue
                for built in found.built or ():
                    if built.qualname != _PY_FUNCS[entry.key]:
                        continue
                    inp = _passed(built.call, "inp", 1)
                    if isinstance(inp, ast.Name) and inp.id in parameters:
                        yield wrapper, passed_as, inp, entry.key, built


def _wrapper_calls(rule, module, calls, wrapper, passed_as, inp, key, built, reported,
                   imported=False):
    """Findings at the gradient functions the calls (of `module`) pass the wrapper whose
    returns do not fit the call's `inp` list."""
    from cglint.facts import call_arguments as arguments_of
    for call in calls:
        plain = call
        if imported and isinstance(call.func, ast.Attribute):
            # `utils.py_func(...)`: a module's function, no bound `self` to skip
            plain = ast.Call(func=ast.Name(id=wrapper.name, ctx=ast.Load()), args=call.args,
                             keywords=call.keywords)
        given = arguments_of(plain, wrapper, None)
        switch = given.get(built.switch_parameter, (None,))[0] \
            if built.switch_parameter else None
        if switch is not None and overrides.builds_recorded_ops(
                built.qualname, switch) is not True:
            continue  # `stateful=False` builds another op type: CG201's
        gradient = overrides.gradient_function(
            module.names, given.get(passed_as, (None,))[0], module.names.scope_of(call))
        listed = _display(module, given.get(inp.id, (None,))[0], module.names.scope_of(call))
        if gradient is None or listed is None:
            continue
        inputs = len(listed.elts)
        scope = module.names.scope_for_def[id(gradient)]
        for anchor, value in overrides.returns_of(gradient):
            node = anchor.body if isinstance(anchor, ast.Lambda) else anchor
            count = 1 if value is None else module.count_values(value, scope)
            if count is not None and count != inputs and id(node) not in reported:
                reported.add(id(node))
                lambda_ = isinstance(gradient, ast.Lambda)
                yield rule.at(node, "%s, passed to `%s` (line %d) as the gradient it "
                              "registers for `%s`, returns %d gradient%s, but that `%s` op "
                              "has %d input%s (its `%s`): `tf.gradients` raises `ValueError: "
                              "Num gradients %d generated for op name: ...`"
                              % ("a lambda" if lambda_ else "`%s`" % gradient.name,
                                 wrapper.name, call.lineno, key, count, plural(count), key,
                                 inputs, plural(inputs), inp.id, count),
                              function=None if lambda_ else gradient)


def _count(module, registration, value):
    """How many gradients a registered gradient function's return gives: TF 1.8 takes a
    tuple or list as it is (`_AsList`), one gradient per item, never flattened as a
    custom gradient's (`return [g, g], None` is two)."""
    if value is None:
        return 1
    if isinstance(value, (ast.Tuple, ast.List)) and not any(
            isinstance(element, ast.Starred) for element in value.elts):
        return len(value.elts)
    return module.count_values(value, registration.function.scope)


def _taken(params):
    if params.required == len(params.names):
        return "%d argument%s" % (params.required, plural(params.required))
    return "%d to %d arguments" % (params.required, len(params.names))


def _shown(name):
    return "`%s`" % name.value if name.value is not None else "`%s`" % ast.unparse(name.node)


def _message(function, name, key, where, inputs, count):
    return ("`%s`, registered as %s and overriding `%s` (%s), returns %d gradient%s, but a "
            "`%s` op has %d input%s: `tf.gradients` raises `ValueError: Num gradients %d "
            "generated for op name: ...`" % (
                function, name, key, where, count, plural(count), key, inputs,
                plural(inputs), count))


RULE = RegisteredGradientCount
