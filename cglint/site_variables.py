"""The variables a custom-gradient function creates, or reads from outside, as it runs
forward: in its own body, and in the functions of the module its body calls (a helper
that builds a layer, `project(x)` returning `x * w`). TF 1.8 gives every one of them a
None gradient, silently (facts §2). CG101 reports the created ones, CG102 the read ones;
CG107 asks whether there are any.

A helper is followed where the module shows which def a call runs
(ModuleFacts.called_function), or where the call runs a function imported from another
module of the project (read from disk, never imported), a few calls deep; a use inside it
is reported at the call in the custom-gradient function, naming the helper.
"""
import os
import ast
from dataclasses import dataclass, replace
from typing import Optional

from cglint.containers import ADDING_METHODS, FILLING_METHODS, READING_METHODS
from cglint.facts import own_nodes
from cglint.names import is_none, within
from cglint.variable_creators import (LAYER_MODULES, always_makes_a_new_variable,
                                      creates_trained_variables, creates_variables)
from cglint.wording import tf_name

# Calls followed from the custom-gradient function's body into helpers, and helpers in all.
MAX_HELPER_DEPTH = 3
MAX_HELPERS = 20
# A layer's own methods that make a variable of it.
_LAYER_WEIGHT_METHODS = frozenset(("add_weight", "add_variable"))
# Attributes of a variable that describe it without reading its value.
_DESCRIPTIONS = frozenset(("shape", "get_shape", "dtype", "name", "device", "graph"))
_SCOPES = frozenset(("tensorflow.variable_scope", "tensorflow.compat.v1.variable_scope"))
# tf.AUTO_REUSE, and the same constant read off its module (`vs.AUTO_REUSE`): a value, not
# a function or class, so cglint.tfpublic does not rename it.
_AUTO_REUSE = frozenset(("tensorflow.AUTO_REUSE",
                         "tensorflow.python.ops.variable_scope.AUTO_REUSE"))
_STOP_GRADIENT = frozenset(("tensorflow.stop_gradient", "tensorflow.compat.v1.stop_gradient"))
# TensorFlow calls whose result has no gradient with respect to their argument: they
# read only its shape (`tf.shape(w)[0]`), or make a new tensor like it (`tf.zeros_like`).
_NO_GRADIENT = _STOP_GRADIENT | frozenset("tensorflow.%s" % name for name in (
    "shape", "shape_n", "size", "rank", "zeros_like", "ones_like"))


@dataclass(frozen=True)
class Use:
    """One variable created or read while the custom-gradient function runs forward."""

    node: ast.AST  # where the function shows it: the use itself, or the call of its helper
    name: str  # the creator's qualified name, or the variable as written (`w`, `self.w`)
    inner: ast.AST  # the use itself (node, when it is in the function's own body)
    helper: Optional[ast.AST] = None  # the def the use is in, when not the function's
    path: Optional[str] = None  # the helper's file, when it is another module's
    shown: Optional[str] = None  # how the creator is reached, when not called by name

    def where(self):
        """`dense()` (line 7) or `dense()` (layers.py:7): the helper and the use's line."""
        line = self.inner.lineno
        name = "`%s()`" % self.helper.name if hasattr(self.helper, "name") else "a lambda"
        if self.path is None:
            return "%s (line %d)" % (name, line)
        return "%s (%s:%d)" % (name, os.path.basename(self.path), line)


def created(module, site):
    """Uses of the calls that create a variable (`tf.get_variable`, `tf.layers.dense`).
    Not a variable no optimizer trains (`trainable=False`: a statistics accumulator the
    gradient function updates) that graph mode makes anew each run, or reuses by
    AUTO_REUSE: nothing asks for its gradient, and nothing fails."""
    found = []
    for facts, function, scope, via in _bodies(module, site, classes=True):
        for node in own_nodes(function):
            if isinstance(node, ast.Call):
                qualname = facts.resolve(node.func)
                if creates_variables(qualname):
                    if creates_trained_variables(node, qualname) or (
                            # under eager execution 1.8's tf.Variable raises RuntimeError
                            qualname == "tensorflow.Variable" if module.eager else
                            not _made_anew_or_reused(facts, node, qualname, function)):
                        found.append(_use(module, facts, node, qualname, function, via))
                elif _layer_weight(facts, node):
                    found.append(_use(module, facts, node, ast.unparse(node.func), function,
                                      via))
                else:
                    indirect = _creator_by_value(facts, node)
                    if indirect is not None:
                        use = _use(module, facts, node, indirect[0], function, via)
                        found.append(replace(use, shown=indirect[1]))
    return found


# TensorFlow functions that call a layer function they are given: `slim.stack(x,
# slim.fully_connected, [32, 16])`, `slim.repeat(x, 2, slim.conv2d, 64, [3, 3])`.
_LAYER_RUNNERS = frozenset("tensorflow.contrib.%s.%s" % (package, name)
                           for package in ("layers", "slim") for name in ("stack", "repeat"))
_PARTIALS = frozenset(("functools.partial",))


def _creator_by_value(facts, call):
    """(creator's qualified name, how the call reaches it) when the call runs a creator
    it does not name: a name bound once to `functools.partial(tf.layers.dense, ...)`,
    or to a lambda that calls one (`fc = lambda h: tf.layers.dense(h, 4)`), or a layer
    runner given one (`slim.stack(x, slim.fully_connected, [4, 2])`); else None."""
    func = call.func
    if isinstance(func, ast.Name):
        binding = facts.names.definitions(func, facts.names.scope_of(call))
        value = binding.node if binding is not None and binding.kind == "assign" else None
        if isinstance(value, ast.Call) and value.args and \
                facts.names.resolve(value.func, binding.scope) in _PARTIALS:
            made = facts.names.resolve(value.args[0], binding.scope)
            if creates_trained_variables(value, made):
                return made, "`%s`, a `functools.partial` of `%s`," % (
                    func.id, tf_name(made))
        elif isinstance(value, ast.Lambda):
            for inner in own_nodes(value):
                if isinstance(inner, ast.Call):
                    made = facts.resolve(inner.func)
                    if creates_trained_variables(inner, made):
                        return made, "`%s`, a lambda calling `%s`," % (func.id, tf_name(made))
        return None
    runner = facts.resolve(func)
    if runner in _LAYER_RUNNERS:
        for argument in call.args[1:3]:
            made = facts.resolve(argument) if isinstance(
                argument, (ast.Name, ast.Attribute)) else None
            if creates_variables(made):
                return made, "`%s` running `%s`" % (tf_name(runner), tf_name(made))
    return None


def _made_anew_or_reused(facts, call, qualname, function):
    """Whether running the call again in graph mode cannot fail: a class makes a new
    variable each time (`tf.Variable`), and `get_variable` under a `variable_scope(...,
    reuse=tf.AUTO_REUSE)` of the function reuses it (else the second run raises
    `ValueError: Variable ... already exists`)."""
    if always_makes_a_new_variable(qualname):
        return True
    if qualname.startswith(LAYER_MODULES) and not any(
            keyword.arg in ("name", "scope") for keyword in call.keywords):
        return True  # `tf.layers.dense(x, 4)`: a fresh scope each call (dense, dense_1)
    for node in facts.ancestors(call):
        if node is function:
            return False
        if isinstance(node, ast.With) and any(_auto_reuse(facts, item.context_expr)
                                              for item in node.items):
            return True
    return False


def _auto_reuse(facts, expr):
    return isinstance(expr, ast.Call) and facts.resolve(expr.func) in _SCOPES and any(
        keyword.arg == "reuse" and facts.resolve(keyword.value) in _AUTO_REUSE
        for keyword in expr.keywords)


def _layer_weight(facts, call):
    """`self.add_weight(...)` / `self.add_variable(...)` in a method of a class derived
    from a TensorFlow class (a `tf.layers.Layer`, a Keras layer or model): a new variable
    of the layer."""
    func = call.func
    if not (isinstance(func, ast.Attribute) and func.attr in _LAYER_WEIGHT_METHODS
            and isinstance(func.value, ast.Name)):
        return False
    owner = facts.instance_class(func.value, facts.names.scope_of(call))
    if owner is None:
        return False
    return facts.tensorflow_class(owner)


def read(module, site):
    """Uses of variables made outside the function and not passed in: by closure, through
    `self.w` set to a new variable in a method of the class, or in a helper. Each
    variable once, at its first use; its description (`w.shape`) is no read, nor is a
    read under `tf.stop_gradient`, which asks for no gradient."""
    found, seen = [], set()
    for facts, function, scope, via in _bodies(module, site):
        body = list(own_nodes(function))
        described = {id(n.value) for n in body
                     if isinstance(n, ast.Attribute) and n.attr in _DESCRIPTIONS}
        # `tf.stop_gradient(w)`: the code itself asks for no gradient there (nor does it
        # with `tf.shape(w)`, which reads only the shape)
        described.update(id(inner) for n in body if isinstance(n, ast.Call)
                         and facts.resolve(n.func) in _NO_GRADIENT
                         for argument in n.args for inner in ast.walk(argument))
        # `weights['h1']`: the element read stands for the name it is read from
        described.update(id(n.value) for n in body if isinstance(n, ast.Subscript)
                         and _held_variable(facts, n, scope, site) is not None)
        nodes = sorted((n for n in body
                        if isinstance(n, (ast.Name, ast.Attribute, ast.Subscript))
                        and isinstance(n.ctx, ast.Load) and id(n) not in described),
                       key=lambda n: (n.lineno, n.col_offset))
        answers = {}  # name -> _read_variable: a name read again has the same bindings
        for node in nodes:
            if isinstance(node, ast.Name):
                if node.id not in answers:
                    answers[node.id] = _read_variable(facts, node, scope, site)
                shown = answers[node.id]
                if shown is None and _whole_container(facts, node, scope, site):
                    shown = node.id  # (asked per read: an element read is not one)
            else:
                shown = _read_variable(facts, node, scope, site)
            if shown is not None and (facts.path, shown) not in seen:
                seen.add((facts.path, shown))
                found.append(_use(module, facts, node, shown, function, via))
    return sorted(found, key=lambda use: (use.node.lineno, use.node.col_offset))


def uses_variables(module, site):
    return bool(created(module, site) or read(module, site) or defaults(module, site))


def defaults(module, site):
    """[(parameter, default, call)] of the site's parameters whose default value is a
    variable made outside (`def scale(x, w=w)`, bound when the `def` runs), read in the
    body, and left to that default by a call of the module (`call`, the first): no
    positional input then, so no gradient. A site no call of the module shows is not
    judged (its callers may pass the argument)."""
    function, enclosing = site.func, site.scope.parent
    if not site.calls or enclosing is None or not (
            function.args.defaults or any(function.args.kw_defaults)):
        return []
    positional = list(function.args.posonlyargs) + list(function.args.args)
    pairs = list(zip(positional[len(positional) - len(function.args.defaults):],
                     function.args.defaults))
    pairs += [(arg, default) for arg, default in zip(function.args.kwonlyargs,
                                                      function.args.kw_defaults) if default]
    read = {node.id for statement in function.body for node in ast.walk(statement)
            if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load)}
    found = []
    for param, default in pairs:
        if param.arg not in read or not isinstance(default, ast.Name):
            continue
        bindings = module.names.lookup(default.id, enclosing)
        if not bindings or not all(_is_outer_variable(module, binding, site.scope, site)
                                   for binding in bindings):
            continue
        index = positional.index(param) if param in positional else len(positional)
        left = next((call for call in site.calls if leaves_to_default(call, index, param)),
                    None)
        if left is not None:
            found.append((param, default, left))
    return found


def leaves_to_default(call, index, param):
    """Whether `call` passes nothing for the parameter at `index` (by position, keyword,
    `*args` or `**kwargs`)."""
    if any(isinstance(a, ast.Starred) for a in call.args) or any(
            k.arg is None or k.arg == param.arg for k in call.keywords):
        return False
    return len(call.args) <= index


def _use(module, facts, node, name, function, via):
    if via is None:
        return Use(node, name, node)
    return Use(via, name, node, function, None if facts is module else facts.path)


def _bodies(module, site, classes=False):
    """(ModuleFacts of its module, def, its scope, the call of the site's body that leads
    there or None): the site first, then the helpers its forward body calls, in this
    module or imported from another of the project, breadth first. With `classes`, also
    the methods that make an instance's variables when a class of the module is made
    there (see _made_class_methods)."""
    bodies = [(module, site.func, site.scope, None)]
    seen = {id(site.func)}
    frontier = list(bodies)
    for _ in range(MAX_HELPER_DEPTH):
        following = []
        for facts, function, scope, via in frontier:
            for node in own_nodes(function):
                if not isinstance(node, ast.Call):
                    continue
                found = facts.def_called(node, scope)
                if found is not None:
                    helpers = [found]
                else:
                    helpers = [(facts, helper) for helper in _other_helpers(
                        facts, node, classes)]
                for helper_facts, helper in helpers:
                    if helper_facts is not facts:
                        module.dependencies.update(facts.dependencies)
                    if id(helper) in seen or len(seen) > MAX_HELPERS:
                        continue
                    seen.add(id(helper))
                    following.append((helper_facts, helper,
                                      helper_facts.names.scope_for_def[id(helper)],
                                      via or node))
        bodies += following
        frontier = following
    return bodies


def _other_helpers(facts, call, classes):
    """The defs of this module a call runs that ModuleFacts.def_called does not name: a
    staticmethod or classmethod called on its class (`Ops.weight(shape)`), and, with
    `classes`, the methods of a class of the module made by the call."""
    func = call.func
    scope = facts.names.scope_of(call)
    if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name):
        owner = _module_class(facts, func.value, scope)
        if owner is not None:
            methods = owner.bindings.get(func.attr, [])
            if len(methods) == 1 and methods[0].kind == "def" and any(
                    isinstance(d, ast.Name) and d.id in ("staticmethod", "classmethod")
                    for d in methods[0].node.decorator_list):
                return [methods[0].node]
        return []
    if classes and isinstance(func, ast.Name):
        owner = _module_class(facts, func, scope)
        if owner is not None:
            return _made_class_methods(facts, owner)
    return []


def _module_class(facts, name, scope):
    """The scope of the class of the module that `name` is bound to once, or None."""
    binding = facts.names.definitions(name, scope)
    if binding is None or binding.kind != "class":
        return None
    return facts.names.scope_for_def.get(id(binding.node))


def _made_class_methods(facts, owner):
    """The methods whose variables making an instance of a class of the module brings:
    its `__init__`; for a Keras or tf.layers layer or model (derived from a TensorFlow
    class), also its `build`, which the layer's first call runs."""
    names = ("__init__", "build") if facts.tensorflow_class(owner) else ("__init__",)
    found = []
    for name in names:
        methods = owner.bindings.get(name, [])
        if len(methods) == 1 and methods[0].kind == "def":
            found.append(methods[0].node)
    return found


def _read_variable(module, node, scope, site):
    """How a read of `node` in `scope` shows the outside variable it reads, or None."""
    if isinstance(node, ast.Attribute):
        return instance_variable(module, node, scope) or _made_instance_variable(
            module, node, scope, site) or _imported_module_variable(module, node, scope)
    if isinstance(node, ast.Subscript):
        return _held_variable(module, node, scope, site)
    bindings = module.names.lookup(node.id, scope)
    if len(bindings) == 1 and bindings[0].kind == "import" and isinstance(
            bindings[0].node, ast.ImportFrom):
        imported, _, name = bindings[0].qualname.rpartition(".")
        return _imported_variable(module, imported, name, node.id)
    if bindings and all(_is_outer_variable(module, binding, scope, site)
                        for binding in bindings):
        return node.id
    if len(bindings) == 1 and _unpacked_variable(module, bindings[0], scope, site):
        return node.id
    return None


def _unpacked_variable(module, binding, scope, site):
    """A name bound, outside the site and the reading function, by unpacking a tuple
    display whose element at its place makes a new variable: `w, b =
    tf.get_variable(...), tf.get_variable(...)`."""
    target = binding.node
    if binding.kind != "other" or not isinstance(target, ast.Name) or within(
            binding.scope, site.scope) or binding.scope is scope:
        return False
    names = module.parent_of(target)
    statement = module.parent_of(names) if isinstance(names, (ast.Tuple, ast.List)) else None
    if not (isinstance(statement, ast.Assign) and statement.targets == [names] and
            isinstance(statement.value, (ast.Tuple, ast.List)) and
            len(statement.value.elts) == len(names.elts) and not any(
                isinstance(e, ast.Starred) for e in names.elts + statement.value.elts)):
        return False
    value = statement.value.elts[names.elts.index(target)]
    return isinstance(value, ast.Call) and creates_trained_variables(
        value, module.names.resolve(value.func, binding.scope))


def _whole_container(module, node, scope, site):
    """`weights` itself, read whole (`for w in weights:`, `w1, w2 = weights`,
    `tf.add_n(weights)`; not an element or a slice), where it is bound, outside the site and the reading function,
    to a list or tuple display or comprehension of new variables, and the module puts
    nothing else in (see _held_variable). Its length (`len(weights)`) is no read."""
    bindings = module.names.lookup(node.id, scope)
    if len(bindings) != 1:
        return False
    binding = bindings[0]
    display = binding.node
    if binding.kind != "assign" or not isinstance(
            display, (ast.List, ast.Tuple, ast.ListComp)) or within(
            binding.scope, site.scope) or binding.scope is scope:
        return False
    parent = module.parent_of(node)
    if isinstance(parent, ast.Subscript) and parent.value is node:
        return False  # an element or a slice: _held_variable's
    if isinstance(parent, ast.Call) and isinstance(parent.func, ast.Name) and \
            parent.func.id == "len" and module.names.is_builtin(parent.func):
        return False
    elements = [display.elt] if isinstance(display, ast.ListComp) else display.elts
    # (nothing can put anything in a tuple)
    added = [] if isinstance(display, ast.Tuple) else _added_elements(module, node.id, binding)
    if added is None or not elements:
        return False
    chosen = list(elements) + [value for _, value in added]
    return all(isinstance(value, ast.Call) and creates_trained_variables(
        value, module.names.resolve(value.func, binding.scope)) for value in chosen)


def _held_variable(module, node, scope, site):
    """`weights['h1']` (or `layers[0]`) where `weights` is bound, outside the site and
    the reading function, to a dict (list, tuple) display or comprehension holding a new
    variable there: the TensorFlow-Examples way of keeping weights. With a key that is
    not a constant, every element must be one. A container the module fills
    (`layers.append(tf.get_variable(...))` in a loop, `weights['h2'] = ...`) is judged by
    everything ever put in, or, for a dict's constant key, put at that key. Or an element
    of TF's own list of the trainable variables (`tf.trainable_variables()[0]`)."""
    container = node.value
    if isinstance(container, (ast.Call, ast.ListComp)):
        return _collection_variable(module, node)
    if not isinstance(container, ast.Name):
        return None
    bindings = module.names.lookup(container.id, scope)
    if len(bindings) != 1 or bindings[0].kind != "assign" or \
            within(bindings[0].scope, site.scope) or bindings[0].scope is scope:
        return None
    display, key = bindings[0].node, node.slice
    if isinstance(key, ast.Slice):
        return None
    if isinstance(display, ast.Dict) and None not in display.keys:
        elements = dict(zip([_constant(k) for k in display.keys], display.values))
    elif isinstance(display, (ast.List, ast.Tuple)):
        elements = dict(enumerate(display.elts))
        elements.update((index - len(display.elts), value)
                        for index, value in list(elements.items()))
    elif isinstance(display, ast.ListComp):
        elements, key = {}, display.elt  # each element is the expression it repeats
    elif isinstance(display, ast.DictComp):
        elements, key = {}, display.value
    else:
        return None
    added = _added_elements(module, container.id, bindings[0])
    if added is None:
        return None  # filled with what cannot be seen
    if isinstance(display, (ast.ListComp, ast.DictComp)):
        chosen = [key] + [value for _, value in added]
    elif not isinstance(key, ast.Constant) or (added and not isinstance(display, ast.Dict)):
        chosen = list(elements.values()) + [value for _, value in added]
    else:  # a dict's key: what it is made with, and what is stored at that key after
        chosen = [elements[key.value]] if key.value in elements else []
        chosen += [value for at, value in added if at is _ANY_KEY or at == key.value]
    if chosen and all(isinstance(value, ast.Call) and creates_trained_variables(
            value, module.resolve(value.func)) for value in chosen):
        return ast.unparse(node)
    return None


_ANY_KEY = object()  # an element put in at a key or index not known


def _added_elements(module, name, binding):
    """[(key, value)] the module puts in the container `name` bound by `binding` after
    it is made (`layers.append(v)`, `weights['h2'] = v`, `layers.extend([v, u])`), the
    key _ANY_KEY where it is not a constant; or None when something it puts in cannot be
    seen (`layers.extend(others)`; an augmented assignment rebinds: another binding), or
    when the container goes where anything may be put in or taken out: given to a
    function (`add_to(layers, c)`), aliased (`other = layers`), returned, stored, or
    changed by another method (`layers.pop()`, `del layers[0]`). Reading it (an element,
    a reading method, a loop over it, `len`, a comparison, a TensorFlow call) changes
    nothing. Worked out once per binding: every read of an element asks, and the answer
    walks every name of the module."""
    key = id(binding)
    if key not in module.additions:
        module.additions[key] = _added_elements_now(module, name, binding)
    return module.additions[key]


def _added_elements_now(module, name, binding):
    added = []
    for read in module.nodes[ast.Name]:
        if read.id != name or not isinstance(read.ctx, ast.Load) or \
                binding not in module.names.lookup(name, module.names.scope_of(read)):
            continue
        parent = module.parent_of(read)
        if isinstance(parent, ast.Subscript) and parent.value is read:
            if isinstance(parent.ctx, ast.Load):
                continue
            statement = module.parent_of(parent)
            if not isinstance(parent.ctx, ast.Store) or not isinstance(
                    statement, ast.Assign) or len(statement.targets) != 1:
                return None  # `del layers[0]`, `weights['a'], weights['b'] = pair`
            added.append((_constant(parent.slice, _ANY_KEY), statement.value))
            continue
        if not (isinstance(parent, ast.Attribute) and parent.value is read):
            if _only_read(module, read, parent):
                continue
            return None  # it escapes: whatever it is given to may fill it
        call = module.parent_of(parent)
        if not isinstance(call, ast.Call) or call.func is not parent:
            return None  # `fill = layers.append`
        if parent.attr in ADDING_METHODS:
            position = ADDING_METHODS[parent.attr][1]
            if any(isinstance(a, ast.Starred) for a in call.args) or call.keywords or \
                    len(call.args) <= position:
                return None
            key = _constant(call.args[0], _ANY_KEY) if parent.attr == "setdefault" \
                else _ANY_KEY
            added.append((key, call.args[position]))
        elif parent.attr in FILLING_METHODS:
            for argument in call.args:
                if isinstance(argument, (ast.List, ast.Tuple)):
                    added.extend((_ANY_KEY, value) for value in argument.elts)
                elif isinstance(argument, ast.Dict) and None not in argument.keys:
                    added.extend((_constant(key, _ANY_KEY), value)
                                 for key, value in zip(argument.keys, argument.values))
                else:
                    return None
            if any(keyword.arg is None for keyword in call.keywords):
                return None  # `update(**others)`
            added.extend((keyword.arg, keyword.value) for keyword in call.keywords)
        elif parent.attr not in READING_METHODS:
            return None  # `layers.pop()`, `layers.reverse()`: the indices move
    return added


def _only_read(module, read, parent):
    """Whether the use `read` of a container, under `parent`, leaves it as it is: a loop
    over it, a comparison, `len(layers)`, an argument of a TensorFlow call (which keeps
    no hold of a Python list to fill)."""
    if isinstance(parent, (ast.For, ast.comprehension)) and parent.iter is read:
        return True
    if isinstance(parent, ast.Compare):
        return True
    if isinstance(parent, ast.Call) and read in parent.args:
        if isinstance(parent.func, ast.Name) and parent.func.id == "len" and \
                module.names.is_builtin(parent.func):
            return True
        return (module.resolve(parent.func) or "").startswith("tensorflow.")
    if isinstance(parent, ast.keyword):
        call = module.parent_of(parent)  # (a class's keyword is no call: it escapes)
        return isinstance(call, ast.Call) and (
            module.resolve(call.func) or "").startswith("tensorflow.")
    return False


# The trainable variables TF keeps in the graph's collection (a global variable may be a
# step counter or moving statistics, which want no gradient).
_TRAINABLE_COLLECTION_READS = frozenset((
    "tensorflow.trainable_variables", "tensorflow.compat.v1.trainable_variables",
    # the same list, of a scope: `tf.contrib.framework.get_trainable_variables("enc")`
    "tensorflow.contrib.framework.get_trainable_variables",
    "tensorflow.contrib.slim.get_trainable_variables"))
_COLLECTION_GETTERS = frozenset((
    "tensorflow.get_collection", "tensorflow.get_collection_ref",
    "tensorflow.compat.v1.get_collection", "tensorflow.compat.v1.get_collection_ref"))
_TRAINABLE_KEYS = frozenset(("tensorflow.GraphKeys.TRAINABLE_VARIABLES",
                             "tensorflow.compat.v1.GraphKeys.TRAINABLE_VARIABLES"))


def _collection_variable(module, node):
    """`tf.trainable_variables()[0]` (or of `tf.get_collection(
    tf.GraphKeys.TRAINABLE_VARIABLES)`): a trainable variable made before the call; also
    an element of a comprehension that picks its own loop variables from that list
    (`[v for v in tf.trainable_variables() if "scale" in v.name][0]`)."""
    call = node.value
    if isinstance(call, ast.ListComp):
        picked = call.generators[0] if len(call.generators) == 1 else None
        if picked is None or not isinstance(picked.iter, ast.Call) or not (
                isinstance(call.elt, ast.Name) and isinstance(picked.target, ast.Name)
                and call.elt.id == picked.target.id):
            return None
        call = picked.iter
    qualname = module.resolve(call.func)
    if qualname in _COLLECTION_GETTERS:
        key = call.args[0] if call.args else next(
            (k.value for k in call.keywords if k.arg == "key"), None)
        trainable = key is not None and (module.resolve(key) in _TRAINABLE_KEYS or (
            isinstance(key, ast.Constant) and key.value == "trainable_variables"))
    else:
        trainable = qualname in _TRAINABLE_COLLECTION_READS
    if trainable and not isinstance(node.slice, ast.Slice):
        return ast.unparse(node)
    return None


def _constant(node, unknown=None):
    """A constant key's value; else `unknown`, or a new object that equals no key."""
    if isinstance(node, ast.Constant):
        return node.value
    return object() if unknown is None else unknown


def instance_variable(module, node, scope):
    """`self.w` where a method of self's class sets `self.w` to a new variable."""
    if not isinstance(node.value, ast.Name):
        return None
    owner = module.instance_class(node.value, scope)
    if owner is None or not _holds_variable(module, owner, node.attr):
        return None
    return "%s.%s" % (node.value.id, node.attr)


def _holds_variable(module, owner, attr):
    """Whether the methods of a class (its scope) set `self.attr` to a new variable:
    directly (ModuleFacts.instance_variables), or through a helper of the module or a
    method of the class that returns one (`self.w = self._make("w", [3])`)."""
    if attr in module.instance_variables(owner):
        return True
    key = ("helper-made attribute", id(owner), attr)
    if key not in module.additions:
        module.additions[key] = _helper_made_attribute(module, owner, attr)
    return module.additions[key]


def _helper_made_attribute(module, owner, attr):
    values = []
    for bindings in owner.bindings.values():
        for binding in bindings:
            method = binding.node
            if binding.kind != "def" or not method.args.args:
                continue
            own = method.args.args[0].arg  # `self`
            for node in own_nodes(method):
                if not (isinstance(node, ast.Attribute) and node.attr == attr and isinstance(
                        node.ctx, (ast.Store, ast.Del)) and isinstance(node.value, ast.Name)
                        and node.value.id == own):
                    continue
                statement = module.parent_of(node)
                if not isinstance(statement, ast.Assign) or node not in statement.targets:
                    return False  # `self.w, self.b = pair`, `self.w += 1`: anything
                values.append(statement.value)
    made = [value for value in values if not is_none(value)]
    return bool(made) and all(isinstance(value, ast.Call) and (creates_trained_variables(
        value, module.resolve(value.func)) or _returns_new_variable(module, value))
        for value in made)


def _imported_module_variable(module, node, scope):
    """`params.W` after `import params`: see _imported_variable."""
    if not isinstance(node.value, ast.Name):
        return None
    bindings = module.names.lookup(node.value.id, scope)
    if len(bindings) != 1 or bindings[0].kind != "import" or not isinstance(
            bindings[0].node, ast.Import):
        return None
    return _imported_variable(module, bindings[0].qualname, node.attr,
                              "%s.%s" % (node.value.id, node.attr))


def _imported_variable(module, imported, name, shown):
    """`shown` (`W` of `from params import W`, or `params.W`) when the project module
    `imported` binds `name` once, at its top level, to a new variable: read from disk,
    never imported."""
    if not imported or (imported + ".").startswith("tensorflow.") or module.path == "-":
        return None  # (standard input has no project on disk)
    from cglint import project  # only reads of imported names in custom gradients need it

    found = project.current().top_level_value(module.path, imported, name)
    if found is None:
        return None
    facts, value, dependency = found
    module.dependencies.add(dependency)
    if isinstance(value, ast.Call) and (creates_trained_variables(
            value, facts.names.resolve(value.func, facts.names.module))
            or _returns_new_variable(facts, value)):  # `W = weight_variable([3])` there
        return shown
    return None


def _made_instance_variable(module, node, scope, site):
    """`params.w` where `params` is bound once, outside the site and the reading
    function, to an instance of a class of this module whose methods set `self.w` to a
    new variable (`params = Params()`)."""
    if not isinstance(node.value, ast.Name):
        return None
    bindings = module.names.lookup(node.value.id, scope)
    if len(bindings) != 1 or bindings[0].kind != "assign" or \
            within(bindings[0].scope, site.scope) or bindings[0].scope is scope:
        return None
    made = module.class_made_by(bindings[0])
    owner = module.names.scope_for_def.get(id(made)) if made is not None else None
    if owner is None or not _holds_variable(module, owner, node.attr):
        return None
    if any(isinstance(other.ctx, (ast.Store, ast.Del)) and other.attr == node.attr
           and isinstance(other.value, ast.Name) and other.value.id == node.value.id
           for other in module.nodes[ast.Attribute]):
        return None  # `params.w = tf.constant(...)`: set anew outside its class
    return "%s.%s" % (node.value.id, node.attr)


def _is_outer_variable(module, binding, scope, site):
    """A name bound, outside the site and the reading function, to a new variable (or
    to `self.w` holding one). A variable made inside the site is CG101's."""
    if binding.kind != "assign" or within(binding.scope, site.scope) or binding.scope is scope:
        return False
    value = binding.node
    if isinstance(value, ast.Attribute):  # `w = self.w` in the enclosing method
        return instance_variable(module, value, binding.scope) is not None
    if not isinstance(value, ast.Call):
        return False
    return creates_trained_variables(value, module.names.resolve(value.func, binding.scope)) \
        or _returns_new_variable(module, value) or _makes_own_layer(module, value, binding.scope)


def _makes_own_layer(module, call, scope):
    """Whether `call` makes an instance of a Keras or tf.layers layer (or model) class of
    the module that has variables of its own (`self.k = self.add_weight(...)` in its
    `build`, or `self.dense = tf.keras.layers.Dense(2)`)."""
    owner = _module_class(module, call.func, scope) if isinstance(call.func, ast.Name) else None
    return owner is not None and module.tensorflow_class(owner) and bool(
        module.instance_variables(owner))


def _returns_new_variable(module, call):
    """Whether `call` runs a def of the module every `return` of which gives a new
    trainable variable: the tutorials' `W = weight_variable([784, 10])`, whose helper
    returns `tf.Variable(initial)`."""
    returned = module.returned_by_call(call)
    if not returned:
        return False
    helper = module.called_function(call, module.names.scope_of(call))
    own = module.names.scope_for_def[id(helper)]
    for value in returned:
        if isinstance(value, ast.Name):  # `w = tf.get_variable(...)` ... `return w`
            bindings = module.names.lookup(value.id, own)
            if len(bindings) != 1 or bindings[0].kind != "assign" or \
                    bindings[0].scope is not own:
                return False
            value = bindings[0].node
        if not (isinstance(value, ast.Call) and creates_trained_variables(
                value, module.names.resolve(value.func, own))):
            return False
    return True


