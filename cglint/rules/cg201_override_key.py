import ast

from cglint import overrides
from cglint.facts import GRAPH
from cglint.ops import load as load_ops
from cglint.rules.base import Rule
from cglint.wording import listed


class OverrideNeverApplies(Rule):
    """A gradient_override_map entry that never applies to any op.

    What: a `graph.gradient_override_map({...})` key that is not a TF 1.8 op type
    (`"ReLU"`, `"relu"`, `"LeakyRelu"`); a map whose op types match none of the ops built
    inside its `with` block (overriding `Relu` around `tf.nn.leaky_relu`, which builds
    `Mul` and `Maximum` in 1.8; `tf.nn.swish`, which builds a call of the TF function
    `swish_f32`; ops created after the block has exited); a call that makes the block
    build another op type (`tf.py_func(..., stateful=False)` builds `PyFuncStateless`, not
    `PyFunc`, as does `stateful=None` or `0`, whose truth TF tests; the default
    `stateful=True` builds `PyFunc`, not `PyFuncStateless`; also when a helper passes its
    own `stateful` parameter on and a caller gives it `False`; setting the result's shape
    in the block, `y.set_shape(x.get_shape())`, builds no op); a block that only takes
    gradients (`tf.gradients`, `opt.minimize`) of an op of the key's type built before it
    (guided backpropagation with the map opened around `tf.gradients` instead of around
    the model: `tf.nn.relu(x)`, a layer given `activation=tf.nn.relu`, or `y = model(x)`
    of a function of the module building one); or any override map in a program that enables eager execution (but in a
    function TF traces into a graph there: a `tfe.defun`'s, a dataset's `.map` function,
    whose graph takes the map); or a map opened on a graph taken with
    `tf.get_default_graph()` before a `with tf.Graph().as_default():` that holds the
    block, or that holds a call of the function holding it (directly or through up to
    three calls, for a graph a module-level name took at import: `G =
    tf.get_default_graph()` then `def quantize(x): with G.gradient_override_map(...)`);
    its ops go to the new graph. Likewise a map opened on a `g = tf.Graph()` that is never
    made the default (the module uses `g` only for maps and `tf.Session(graph=g)`, never
    `g.as_default()`): the block's ops go to the default graph. Keys that could name an op type (CamelCase) are
    left alone in a program that loads op types of its own (`tf.load_op_library`, in the
    module or a project module loaded with it); `"sign"` names none in any library. Also a
    key or value that is surely not a string: the registered gradient function itself
    (`{"Relu": _guided_relu}`), a lambda, a class, None, a number, a container, or bytes
    on Python 3.

    Why it breaks on TF 1.8: keys are matched exactly against the op type of each op
    created inside the block. A key that matches nothing is silently ignored: no error,
    no warning, and the op keeps its built-in gradient (for `{"ReLU": ...}` around
    `tf.nn.relu`, d(100*y)/dx came out `[0, 100, 100]` instead of the custom `[5, 5, 5]`).
    Calls of TF functions (Defuns) never consult the map. Under eager execution the map is
    ignored entirely, even when its gradient name was never registered. A key or value
    that is not a string fails at once, in graph and eager mode: `TypeError: op_type_map
    must be a dictionary mapping strings to strings` at the `with`.

    Fix: use the op type TF 1.8 really builds (`Relu`, `Identity`, `Sign`, `Round`,
    `Floor`, `Cast`, `ClipByValue`, `Maximum`; map both `PyFunc` and `PyFuncStateless`
    around a `tf.py_func` whose `stateful` varies), build the op inside the `with` block,
    and for eager code use `tf.custom_gradient` instead. Map op type names to the names
    given to `tf.RegisterGradient` (`{"Relu": "GuidedRelu"}`), never to the functions. (`Cast` only where the dtype
    changes: `tf.cast` to the dtype its input already has returns the input and builds
    no op, which cglint does not see.)
    """

    code = "CG201"
    name = "override-never-applies"

    def check(self, module):
        facts = module.overrides
        ops = load_ops()
        custom_ops = None  # looked up at the first key that is no TF 1.8 op type
        for found in facts.maps:
            wrong = [(entry, given) for entry in found.entries for given in entry.not_strings]
            if wrong:  # the `with` raises: nothing else about the map matters
                for entry, given in wrong:
                    yield self.at(given.node, _not_a_string(entry, given, facts))
                continue
            if module.eager and module.execution_mode(found.call) != GRAPH and not (
                    module.traced_as_graph(found.call)):  # (a defun's graph takes maps)
                where = ("enabled at line %d" % facts.eager_line if facts.eager_line
                         else "enabled by a module this one imports")
                yield self.at(found.call, "`gradient_override_map` has no effect under eager "
                              "execution (%s): %s; use `tf.custom_gradient`"
                              % (where, _never_used(found.entries)))
                continue
            stale = _stale_graph(module, found.call)
            if stale is not None:
                graph, opened, through = stale
                called = "" if through is None else ", where `%s` is called at line %d" % (
                    ast.unparse(through.func), through.lineno)
                yield self.at(found.call, "`%s` is the graph that was the default at line %d, "
                              "but this block builds its ops in the new graph made default "
                              "at line %d%s: the override never applies; take the graph "
                              "inside (`tf.get_default_graph()` there)" % (
                                  found.call.func.value.id, graph.lineno, opened.lineno,
                                  called))
                continue
            never = _never_default(module, found)
            if never is not None:
                yield self.at(found.call, "`%s` is a new graph (line %d) that is never made "
                              "the default: the ops this block builds go to the default "
                              "graph, so the override never applies; open the map inside "
                              "`with %s.as_default():`" % (never.id, never.lineno, never.id))
                continue
            op_keys = []
            for entry in found.entries:
                if entry.key is None:
                    continue
                if ops.is_op(entry.key):
                    op_keys.append(entry.key)
                else:
                    if _OP_NAME.match(entry.key):  # a loaded library's op may have it
                        if custom_ops is None:
                            custom_ops = _loads_custom_ops(module)
                        if custom_ops:
                            continue
                    yield self.at(entry.key_node, "`%s` is not a TF 1.8 op type, so this "
                                  "override is silently ignored%s"
                                  % (entry.key, _suggestion(entry, facts, ops)))
            if op_keys and found.keys_complete and found.built is not None:
                built = {t for call in found.built for t in call.op_types} | found.maybe_built
                if not built & set(op_keys):
                    yield self.at(found.call, "the override of %s applies to no op built in "
                                  "this `with` block: %s" % (listed(op_keys), _built(found, ops)))
                    continue
            if op_keys and found.keys_complete and found.block is not None and \
                    set(op_keys) <= FIRST_ORDER_KEYS:
                before = _built_before_gradients(module, found, set(op_keys), ops)
                if before is not None:
                    call, op_type, how = before
                    yield self.at(found.call, "this `with` block only takes gradients, and "
                                  "the override applies to ops built inside it: the `%s` op "
                                  "of `%s` (line %d%s) was built before it and keeps its "
                                  "gradient; build the forward ops inside the block" % (
                                      op_type, ast.unparse(call.func), call.lineno, how))
                    continue
            yield from self._switched_by_callers(module, found, set(op_keys), ops)

    def _switched_by_callers(self, module, found, keys, ops):
        """A helper's call passing an argument on to `tf.py_func(..., stateful=...)` that
        makes it build the op type the map does not name."""
        for call, made in found.switched:
            other = set(ops.built_by_with_other_arguments(made.qualname))
            if not keys & set(made.op_types) or keys & other:
                continue
            none = " (TF 1.8 gives it no gradient: None)" if other <= ops.not_differentiable \
                else ""
            passes = "passes `%s` a `%s` that makes" % (call.func.id, made.switch_parameter)
            function = module.names.scope_of(made.call).node
            if not overrides.passes(call, function, made.switch_parameter):
                passes = "leaves `%s`'s `%s` at its default, which makes" % (
                    call.func.id, made.switch_parameter)
            yield self.at(call, "this call %s `tf.%s` (line %d) "
                          "build %s, which the override map of line %d does not name: the "
                          "override never applies%s" % (
                              passes, made.qualname.split(".", 1)[1], made.call.lineno,
                              listed(sorted(other)), found.call.lineno, none))


# Op types whose TF 1.8 gradient builds no op of their own type (tests/test_override_keys.py
# measures each): a map of one around gradients only can override nothing the gradient
# builds, while one of `Mul` or `Cast` may mean the ops `tf.gradients` makes (second order).
FIRST_ORDER_KEYS = frozenset(("Relu", "Relu6", "Elu", "Selu", "Sigmoid", "Tanh", "Softplus",
                              "Softsign", "Sign", "Round", "Floor", "Ceil", "MaxPool",
                              "Identity", "Abs", "Maximum", "ClipByValue"))
# Calls that take gradients of ops built before them (the guided-backpropagation mistake
# is to open the override map around these, not around the model).
_GRADIENT_FUNCTIONS = frozenset(("tensorflow.gradients", "tensorflow.hessians",
                                 "tensorflow.keras.backend.gradients",
                                 "keras.backend.gradients"))
_GRADIENT_METHODS = frozenset(("compute_gradients", "minimize", "gradient"))


def _built_before_gradients(module, found, keys, ops):
    """(call, op type, how) of a TF call that built a keyed op type before a `with`
    block whose calls only take gradients (`tf.gradients(loss, x)`, `opt.minimize(loss)`)
    or build none of the keyed types; None otherwise."""
    takes_gradients = False
    for node in overrides.body_nodes(found.block):
        if not isinstance(node, ast.Call):
            continue
        qualname = module.resolve(node.func)
        if qualname in _GRADIENT_FUNCTIONS or (
                isinstance(node.func, ast.Attribute) and node.func.attr in _GRADIENT_METHODS):
            takes_gradients = True
            continue
        built = ops.built_by(qualname)
        if built is None or keys & set(built):
            return None  # it may build a keyed op itself
    if not takes_gradients:
        return None
    scope = module.names.scope_of(found.call)
    for call, qualname in module.calls:
        if call.lineno >= found.block.lineno or module.names.scope_of(call) is not scope:
            continue
        built = _builds_keyed(module, call, qualname, keys, ops)
        if built is None and qualname is None:
            # `y = model(x)`: a def of this module, holding the keyed op's call
            built = _built_by_own_function(module, call, keys, ops)
            if built is not None and _inside_a_map_of(module, call, {built[1]}):
                built = None  # (called under a map of its own: its ops take it)
            if built is not None:
                built = built[:2] + ("%s, in `%s`, called at line %d" % (
                    built[2], call.func.id, call.lineno),)
        if built is not None:
            return built
    return None


def _builds_keyed(module, call, qualname, keys, ops):
    """(call, op type, how: its activation, or "") when `call` builds an op of one of
    `keys` outside a map of it: itself, or through the activation it is given
    (`tf.layers.dense(x, 4, activation=tf.nn.relu)`, `Dense(4, activation="relu")`);
    else None."""
    how = ""
    built = keys & (set(ops.built_by(qualname) or ()) | _keras_activation(call, qualname))
    for keyword in call.keywords:
        if keyword.arg in _ACTIVATION_KEYWORDS and not built:
            built = keys & set(ops.built_by(module.resolve(keyword.value)) or ())
            how = ", its `%s=%s`" % (keyword.arg, ast.unparse(keyword.value))
    if built and not _inside_a_map_of(module, call, built):
        return call, sorted(built)[0], how
    return None


def _built_by_own_function(module, call, keys, ops):
    """(call, op type, how) of a keyed op that a def of this module called by `call` by its
    plain name builds in its own body (the model of a guided-backpropagation script,
    built by `y = model(x)` before the map), outside any map of it; else None."""
    if not isinstance(call.func, ast.Name):
        return None
    bindings = module.names.lookup(call.func.id, module.names.scope_of(call))
    if len(bindings) != 1 or bindings[0].kind != "def" or not isinstance(
            bindings[0].node, ast.FunctionDef):
        return None
    own = module.names.scope_for_def.get(id(bindings[0].node))
    for inner, qualname in module.calls:
        if module.names.scope_of(inner) is own:
            built = _builds_keyed(module, inner, qualname, keys, ops)
            if built is not None:
                return built
    return None


# Keywords that give a layer its activation function (`tf.layers.dense`, `slim`, Keras).
_ACTIVATION_KEYWORDS = frozenset(("activation", "activation_fn"))


# Keras activations by name, and the op type each builds in TF 1.8.
_KERAS_ACTIVATIONS = {"relu": "Relu", "sigmoid": "Sigmoid", "tanh": "Tanh", "elu": "Elu",
                      "selu": "Selu", "softplus": "Softplus", "softsign": "Softsign"}


def _keras_activation(call, qualname):
    """{op type} a Keras layer made with `activation="relu"` (or `Activation("relu")`)
    builds when it is called: the model of a guided-backpropagation script."""
    if not qualname or not qualname.startswith(("tensorflow.keras.layers.", "keras.layers.")):
        return set()
    given = next((k.value for k in call.keywords if k.arg == "activation"), None)
    if given is None and qualname.endswith(".Activation") and call.args:
        given = call.args[0]
    if isinstance(given, ast.Constant) and given.value in _KERAS_ACTIVATIONS:
        return {_KERAS_ACTIVATIONS[given.value]}
    return set()


def _inside_a_map_of(module, node, op_types):
    """Whether `node` is in the `with` block of an override map of one of `op_types`."""
    return any(
        other.block is not None and other.block.lineno <= node.lineno <= other.block.end_lineno
        and op_types & {entry.key for entry in other.entries}
        for other in module.overrides.maps)


# What TF 1.8 accepts as an op type's name when an op library registers it (measured:
# CamelCase from a capital, `Zero_Out` refused; anything after a leading `_`, `_Zero_Out`
# and `_lower` taken): a key like `sign` is no op type of any library.
_OP_NAME = overrides.OP_NAME
# (TF's own modules' spellings, `ops.get_default_graph`, resolve to these: cglint.tfpublic)
_GET_DEFAULT_GRAPH = frozenset(("tensorflow.get_default_graph",))
_NEW_GRAPH = frozenset(("tensorflow.Graph",))


def _not_a_string(entry, given, facts):
    """The message of a key or value of a map that is no string."""
    if given.node is entry.key_node:
        what, fix = "key", "the op type's name (`\"Relu\"`)"
    else:
        what, fix = "value", "the name the gradient is registered under"
        named = [r.name.value for r in facts.registrations if r.function is not None and
                 r.function.node is given.function and r.name.value is not None]
        if named:
            fix = "the name `%s` is registered under: `\"%s\"`" % (
                ast.unparse(given.node), named[0])
    return ("this %s is %s, but `gradient_override_map` maps op types to gradient names, "
            "both strings: TF 1.8 raises `TypeError: op_type_map must be a dictionary "
            "mapping strings to strings` at the `with`; use %s" % (what, given.what, fix))


def _stale_graph(module, call):
    """(the `tf.get_default_graph()` call, the `with` opening another graph, None or the
    call in it through which the block runs there) when the map is opened on a graph taken
    before a `with tf.Graph().as_default():` around it (not inside it), or around a call
    of the function holding it (a graph taken at import, by a module-level name): its
    ops go to the new default graph, whose map is another. Else None."""
    receiver = call.func.value
    if not isinstance(receiver, ast.Name) or "as_default" not in module.text:
        return None
    bindings = module.names.lookup(receiver.id, module.names.scope_of(call))
    if len(bindings) != 1 or bindings[0].kind != "assign":
        return None
    taken = bindings[0].node
    if not (isinstance(taken, ast.Call) and module.resolve(taken.func) in _GET_DEFAULT_GRAPH):
        return None
    opened = _new_graph_around(module, call, taken)
    if opened is not None:
        return taken, opened, None
    if bindings[0].scope.kind != "module":
        return None  # taken when its function runs: maybe in the new graph
    if any(receiver.id in scope.globals for scope in module.names.scope_for_def.values()):
        return None  # a function rebinds it (`global G` ... `as G`): maybe to the new graph
    calls = None  # id(def) -> the module's calls of it, worked out on the first need
    pending, seen = [(call, 0)], set()
    while pending:
        node, depth = pending.pop(0)
        scope = module.names.scope_of(node)
        function = scope.node
        if not isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef)) or \
                depth >= _MAX_CALL_DEPTH or id(function) in seen:
            continue
        seen.add(id(function))
        if calls is None:
            calls = {}
            for each in module.nodes[ast.Call]:
                called = module.called_function(each, module.names.scope_of(each))
                if called is not None:
                    calls.setdefault(id(called), []).append(each)
        for caller in sorted(calls.get(id(function), ()), key=lambda c: c.lineno):
            opened = _new_graph_around(module, caller, taken)
            if opened is not None:
                return taken, opened, caller
            pending.append((caller, depth + 1))
    return None


def _never_default(module, found):
    """The `g` of `g.gradient_override_map(...)` when `g = tf.Graph()` (bound once, in the
    same function or at the top level) is never made the default: the module uses `g`
    only to open override maps and as a `graph=` argument (`tf.Session(graph=g)`), never
    `g.as_default()`. The ops the block builds go to the default graph, whose map is
    another. None otherwise."""
    receiver = found.call.func.value
    if found.block is None or not isinstance(receiver, ast.Name):
        return None
    scope = module.names.scope_of(found.call)
    bindings = module.names.lookup(receiver.id, scope)
    if len(bindings) != 1 or bindings[0].kind != "assign" or bindings[0].scope is not scope:
        return None
    made = bindings[0].node
    if not (isinstance(made, ast.Call) and module.resolve(made.func) in _NEW_GRAPH):
        return None
    for node in module.nodes[ast.Name]:
        if node.id != receiver.id or not isinstance(node.ctx, ast.Load):
            continue
        parent = module.parent_of(node)
        if isinstance(parent, ast.Attribute) and parent.attr == "gradient_override_map":
            continue
        if isinstance(parent, ast.keyword) and parent.arg == "graph":
            continue
        return None  # (`g.as_default()`, or `g` handed on: it may be made the default)
    return ast.copy_location(ast.Name(id=receiver.id, ctx=ast.Load()), made)


# How many calls deep a map's function is followed to a `with` opening a new graph.
_MAX_CALL_DEPTH = 3


def _new_graph_around(module, node, taken):
    """The `with` opening a new default graph that `node` runs in, in the body of its
    own function (or module), with the graph `taken` before it; else None."""
    for parent in module.ancestors(node):
        if isinstance(parent, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda,
                               ast.ClassDef)):
            return None  # (its body runs when called, not in the `with` around the def)
        if isinstance(parent, ast.With) and not (
                parent.lineno <= taken.lineno <= parent.end_lineno) and any(
                    _opens_new_graph(module, item.context_expr) for item in parent.items):
            return parent
    return None


def _opens_new_graph(module, expr):
    """`tf.Graph().as_default()`, or `g.as_default()` of a `g` bound once to `tf.Graph()`."""
    if not (isinstance(expr, ast.Call) and isinstance(expr.func, ast.Attribute)
            and expr.func.attr == "as_default" and not expr.args):
        return False
    graph = expr.func.value
    if isinstance(graph, ast.Name):
        bindings = module.names.lookup(graph.id, module.names.scope_of(graph))
        if len(bindings) != 1 or bindings[0].kind != "assign":
            return False
        graph = bindings[0].node
    return isinstance(graph, ast.Call) and module.resolve(graph.func) in _NEW_GRAPH


_loads_custom_ops = overrides.loads_custom_ops


def _suggestion(entry, facts, ops):
    if entry.value.value is not None and ops.is_op(entry.value.value) and facts.registered(
            ("const", entry.key)):
        return "; key and value look swapped: the map goes from op type to gradient name"
    similar = ops.similar_op(entry.key)
    if similar is not None and similar.lower() == entry.key.lower():
        return "; did you mean `%s`?" % similar
    function = ops.function_named(entry.key)
    if function is not None:
        built = ops.built_by("tensorflow." + function)
        if built and set(built) & ops.function_ops:
            return "; `tf.%s` builds a call of the TF function `%s`, which an override " \
                   "map cannot change" % (function, built[0])
        if built:
            return "; `tf.%s` builds %s in TF 1.8" % (function, listed(built))
    return "; did you mean `%s`?" % similar if similar else ""


def _built(found, ops):
    others = {t for call in found.built or () for t in call.other_types}
    # (what the block's Python operators may build: the rest of maybe_built)
    operators = sorted(found.maybe_built - others)
    if not found.built and operators:  # `x // 1.0` builds FloorDiv, not Floor
        return "its operators build %s on tensors in TF 1.8" % listed(operators)
    if not found.built:
        return "the block builds no TensorFlow op (ops created after it keep their gradient)"
    parts = []
    for call in found.built:
        name = "`tf.%s`" % call.qualname.split(".", 1)[1]
        function_ops = [t for t in call.op_types if t in ops.function_ops]
        if function_ops:
            parts.append("%s builds a call of the TF function `%s`, which no override map "
                         "can change" % (name, function_ops[0]))
        else:
            other = [t for t in call.other_types if t not in call.op_types]
            parts.append("%s builds %s%s" % (name, listed(call.op_types), (
                " (given other arguments, also %s)" % listed(other) if other else "")))
    unique = []
    for part in parts:
        if part not in unique:
            unique.append(part)
    if operators:
        unique.append("its operators %s" % listed(operators))
    return "; ".join(unique) + " in TF 1.8"


def _never_used(entries):
    values = [e.value.value for e in entries if e.value.value is not None]
    if not values:
        return "the gradients it names are never used"
    return "%s %s never used" % (listed(values), "is" if len(values) == 1 else "are")


RULE = OverrideNeverApplies
