import ast

from cglint.facts import returned_slots, visibly_not_scalar
from cglint.rules.base import Rule
from cglint.variable_creators import VARIABLE_FUNCTIONS


class NumberAsGradient(Rule):
    """The gradient function returns a Python number as a gradient.

    What: `return dy * 2, 0` or `return 1.0` from a gradient function (of a custom gradient,
    registered with `tf.RegisterGradient`, or a Defun's `python_grad_func`): a Python
    `int` or
    `float` where a tensor (or None) belongs, also through a helper of the module that
    returns one or a module-level constant bound once (`ZERO = 0.0`), a class constant
    (`self.NO_GRADIENT`), an item of a module's dict display (`FIXED["phase"]`), `math.pi`
    or `np.pi`, in a conditional
    expression (`dw if TRAIN else 0.0`), a concatenated or repeated list (`[dx] + [0.0]`,
    `[dy] + [0] * 2`), a `*` item (`(dy, *[0] * 2)`) or as
    `float(0)`, a helper's parameter left at a number default (`def _or_zero(g=0.0):
    return g` called as `_or_zero()`), or `sum` of an empty list (`sum(extra)` for
    `extra = []`, which is the int 0); likewise a NumPy value (`np.zeros(2)`).

    Why it breaks on TF 1.8: `tf.gradients` treats each returned gradient as a tensor and
    fails with `AttributeError: 'int' object has no attribute 'name'` while building the
    backward graph, a message that points nowhere near your code. An optimizer's
    `minimize()` (or `compute_gradients`, `gate_gradients=True`) gates two or more
    gradients through `tf.tuple`, which makes the number a tensor of shape () first: for
    an input of another known shape (`tf.Variable([3.0, 3.0])`) `tf.gradients` raises
    `ValueError: Incompatible shapes between op input and calculated input gradient`; for
    a scalar input a float then works, but an int becomes an int32 gradient, and a
    trainable variable (or a float computation) that receives it raises `TypeError: Input
    'delta' of 'ApplyGradientDescent' Op has type int32 that does not match type float32`.
    So a module that takes its gradients only that way is told of a number for an input
    that is visibly no scalar, and of an int that reaches a trainable input, never of a
    float or of an int for a constant, a placeholder or a variable made with
    `trainable=False` otherwise.

    Fix: return `None` for "no gradient", or a tensor such as `tf.zeros_like(x)` or
    `dy * 0.0`.
    """

    code = "CG110"
    name = "number-as-gradient"

    def check(self, module):
        # Whether minimize() gates the gradients: asked of the few modules whose gradient
        # functions return a number
        gated = _Lazy(lambda: _gradients_gated(module))
        for site, grad in module.grad_functions:
            yield from self._numbers_returned(module, grad, "", site.func, gated, site)
        seen = set()
        for defun in module.defun_sites:
            # python_grad_func returns the op's input gradients (grad_func, a Defun
            # itself, is not judged: what its body returns becomes its op's outputs)
            grad = defun.python_grad
            if grad is None or grad.node is None or id(grad.node) in seen:
                continue
            seen.add(id(grad.node))
            yield from self._numbers_returned(
                module, grad, " (python_grad_func of `%s`)" % defun.name, _anchor(grad),
                gated)
        if "RegisterGradient" not in module.text:
            return
        for registration in module.overrides.registrations:
            grad = registration.function
            if grad is None or not registration.differentiable or id(grad.node) in seen:
                continue
            seen.add(id(grad.node))
            yield from self._numbers_returned(
                module, grad, " (registered as `%s`)" % (registration.name.value or "..."),
                _anchor(grad), gated)

    def _numbers_returned(self, module, grad, which, function, gated=False, site=None):
        for _, value in grad.returns:
            slots = returned_slots(value)
            for number, what in _numbers(module, value):
                why = "TF 1.8 needs a tensor or None"
                if gated and gated():
                    if _gated_into_a_scalar(module, number, slots, site):
                        why = ("minimize()'s gating (tf.tuple) makes it a tensor of shape (), "
                               "which does not fit the shape of its input; return a tensor "
                               "or None")
                    elif _made_a_tensor(module, number, slots, site):
                        continue
                yield self.at(number, "gradient function `%s`%s returns %s as a gradient: %s"
                              % (grad.name, which, what, why), function=function)


# Gradient calls that gate what a gradient function returns through tf.tuple (an
# optimizer's GATE_OP by default), and those that never do.
_GATING_METHODS = frozenset(("minimize", "compute_gradients"))
_UNGATED_CALLS = frozenset(("gradients", "gradient", "GradientTape", "fit", "fit_generator",
                            "train_on_batch", "implicit_gradients", "gradients_function",
                            "value_and_gradients_function", "implicit_value_and_gradients"))


def _gradients_gated(module):
    """Whether every gradient the module takes goes through a gating call (`minimize()`,
    `compute_gradients()`, `gate_gradients=True`), and it takes some; eager execution gates
    nothing."""
    if not any(word in module.text for word in _GATING_METHODS) and \
            "gate_gradients" not in module.text:
        return False
    if module.eager:
        return False
    gated = False
    for call in module.nodes[ast.Call]:
        func = call.func
        name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", None)
        gate = next((keyword.value for keyword in call.keywords
                     if keyword.arg == "gate_gradients"), None)
        if name in _GATING_METHODS or (name == "gradients" and gate is not None):
            if gate is not None and not _gates(gate) or \
                    gate is None and name == "gradients":
                return False
            gated = True
        elif name in _UNGATED_CALLS:
            return False
    return gated


def _gates(value):
    """Whether a `gate_gradients=` value surely gates (True, 1, 2, GATE_OP, GATE_GRAPH)."""
    if isinstance(value, ast.Attribute):
        return value.attr in ("GATE_OP", "GATE_GRAPH")
    return isinstance(value, ast.Constant) and value.value in (True, 1, 2)


class _Lazy:
    """A value worked out when first asked, once."""

    def __init__(self, compute):
        self.compute, self.done, self.value = compute, False, None

    def __call__(self):
        if not self.done:
            self.value, self.done = self.compute(), True
        return self.value


def _made_a_tensor(module, number, slots, site):
    """Whether gating makes `number` a tensor that does no harm: it is one of two or more
    gradients that are not None, and it is a float, or an int whose input is, at every
    call, a constant, a placeholder or an untrainable variable. (Asked only when the
    tensor's shape, (), fits its input: see _gated_into_a_scalar.)"""
    if slots is None or sum(1 for slot in slots if not _is_none(slot)) < 2:
        return False  # tf.tuple is not used for fewer
    value = _number_value(module, number)
    if value is None:
        return False  # a NumPy value becomes a float64 tensor: a dtype error later
    slot = next((index for index, element in enumerate(slots) if element is number), None)
    if isinstance(value, float):
        return True
    if site is None or slot is None or not site.calls:
        return False
    return all(_untrained_leaf(module, _argument(call, slot)) for call in site.calls)


def _gated_into_a_scalar(module, number, slots, site):
    """Whether gating (tf.tuple, for two or more gradients that are not None) makes the
    Python number a tensor of shape () for an input that some call of the custom-gradient
    function passes visibly of another shape: `tf.gradients` then raises `ValueError:
    Incompatible shapes between op input and calculated input gradient`."""
    if slots is None or site is None or sum(1 for slot in slots if not _is_none(slot)) < 2:
        return False
    if _number_value(module, number) is None:
        return False
    slot = next((index for index, element in enumerate(slots) if element is number), None)
    return slot is not None and any(
        visibly_not_scalar(module, _argument(call, slot)) for call in site.calls)


def _argument(call, slot):
    args = call.args
    if any(isinstance(arg, ast.Starred) for arg in args[:slot + 1]) or slot >= len(args):
        return None
    return args[slot]


# What gives a tensor that no gradient trains and that passes its gradient on to none.
_LEAF_MAKERS = frozenset("tensorflow." + name for name in (
    "constant", "placeholder", "placeholder_with_default", "zeros", "ones", "fill"))


def _untrained_leaf(module, expr, depth=0):
    if expr is None or depth > 4:
        return False
    if _is_number(expr):
        return True
    if isinstance(expr, ast.Name):
        names = module.names
        bindings = names.lookup(expr.id, names.scope_of(expr))
        return len(bindings) == 1 and bindings[0].kind == "assign" and \
            _untrained_leaf(module, bindings[0].node, depth + 1)
    if isinstance(expr, ast.Call):
        qualname = module.resolve(expr.func) or ""
        if qualname in _LEAF_MAKERS:
            return True
        if qualname in VARIABLE_FUNCTIONS:
            return any(keyword.arg == "trainable" and isinstance(keyword.value, ast.Constant)
                       and keyword.value.value is False for keyword in expr.keywords)
    return False


def _is_none(node):
    return isinstance(node, ast.Constant) and node.value is None


def _unsigned(node):
    return node.operand if isinstance(node, ast.UnaryOp) else node


def _anchor(grad):
    """The def a finding belongs to (a lambda is no def of its own)."""
    return grad.node if grad.name != "lambda" else None


def _numbers(module, value):
    """(node, what it is) for each element of a return that is no tensor: a number, or a
    NumPy array or scalar (`np.zeros(2)`), which tf.gradients cannot take either. In
    source order, without recursion (a chain of 1,000 conditional expressions is fine)."""
    stack = [value]
    while stack:
        element = stack.pop()
        if isinstance(element, (ast.Tuple, ast.List)):
            stack.extend(reversed(element.elts))
        elif isinstance(element, ast.BinOp) and isinstance(element.op, ast.Add) and all(
                _is_list(side) for side in (element.left, element.right)):
            stack.extend((element.right, element.left))  # `[dy * s] + [0.0]`
        elif _repeated(element) is not None:
            stack.append(_repeated(element))  # `[0] * 2`: its items
        elif isinstance(element, ast.Starred):
            stack.append(element.value)  # `(dy, *[0] * 2)`
        elif isinstance(element, ast.IfExp):  # `(dy * s if TRAIN else 0.0)`
            stack.extend((element.orelse, element.body))
        elif _is_number(element) or _number_call(module, element):
            yield element, "the number %s" % ast.unparse(element)
        elif isinstance(element, ast.Name) and _is_number(_constant_of(module, element)):
            yield element, "`%s` (the number %s)" % (
                element.id, ast.unparse(_constant_of(module, element)))
        elif isinstance(element, ast.Attribute) and (
                module.resolve(element) in _NUMBER_CONSTANTS):
            yield element, "`%s` (a number)" % ast.unparse(element)  # `math.pi`
        elif isinstance(element, (ast.Attribute, ast.Subscript)) and _is_number(
                _looked_up(module, element)):
            yield element, "`%s` (the number %s)" % (
                ast.unparse(element), ast.unparse(_looked_up(module, element)))
        elif isinstance(element, ast.Call) and (module.resolve(element.func) or "").startswith(
                "numpy."):
            yield element, "the NumPy value %s" % ast.unparse(element)
        elif isinstance(element, ast.Call) and _returns_a_number(module, element):
            yield element, "`%s` (a number)" % ast.unparse(element)
        elif isinstance(element, ast.Call) and _sum_of_numbers(module, element):
            yield element, "`%s` (a number: `sum` of no tensor)" % ast.unparse(element)


def _is_list(node):
    """A list or tuple display, repeated (`[0] * 2`) or concatenated (`[dy] + [0] * 2`)."""
    while isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        if not _is_list(node.right):
            return False
        node = node.left
    return isinstance(node, (ast.Tuple, ast.List)) or _repeated(node) is not None


def _repeated(node):
    """The display of `[0] * 2` or `2 * (0,)` (repeated an int literal of times), or None."""
    if not (isinstance(node, ast.BinOp) and isinstance(node.op, ast.Mult)):
        return None
    for sequence, times in ((node.left, node.right), (node.right, node.left)):
        if isinstance(sequence, (ast.Tuple, ast.List)) and isinstance(
                times, ast.Constant) and type(times.value) is int:
            return sequence
    return None


def _returns_a_number(module, call):
    """A call of a def of the module every return of which is a number (`_no_grad()`
    returning 0), or a parameter the call leaves at a number default or passes a number
    (`def _or_zero(g=0.0): return g` called as `_or_zero()`)."""
    values = module.returned_by_call(call)
    if values is None or any(value is None for value in values):
        return False
    if all(_is_number(value) for value in values):
        return True
    if not any(isinstance(value, ast.Name) for value in values):
        return False
    function = module.called_function(call, module.names.scope_of(call))
    return function is not None and all(
        _is_number(value) or _number_parameter(module, call, function, value)
        for value in values)


def _number_parameter(module, call, function, value):
    """Whether `value`, returned by `function`, is a parameter it never rebinds that
    `call` leaves at a number default or passes a number literal."""
    if not isinstance(value, ast.Name) or isinstance(call.func, ast.Attribute):
        return False  # `self.helper()`: the parameters shift
    if any(isinstance(arg, ast.Starred) for arg in call.args) or any(
            keyword.arg is None for keyword in call.keywords):
        return False
    own = module.names.scope_for_def.get(id(function))
    bindings = own.bindings.get(value.id, ()) if own is not None else ()
    if len(bindings) != 1 or bindings[0].kind != "param" or value.id in own.nonlocals:
        return False
    arguments = function.args
    positional = list(getattr(arguments, "posonlyargs", [])) + list(arguments.args)
    names = [arg.arg for arg in positional]
    passed = next((keyword.value for keyword in call.keywords if keyword.arg == value.id),
                  None)
    if passed is None and value.id in names and names.index(value.id) < len(call.args):
        passed = call.args[names.index(value.id)]
    if passed is not None:
        return _is_number(passed)
    if value.id in names:
        index = names.index(value.id) - (len(positional) - len(arguments.defaults))
        default = arguments.defaults[index] if index >= 0 else None
    else:
        kwonly = [arg.arg for arg in arguments.kwonlyargs]
        default = arguments.kw_defaults[kwonly.index(value.id)] if value.id in kwonly \
            else None
    return default is not None and _is_number(default)


def _sum_of_numbers(module, call):
    """`sum([])`, `sum(extra)` of a name bound once to an empty list (or a display of
    numbers) that is read nowhere else, with no start or a number start: a Python number
    (`0` for an empty list)."""
    if not (isinstance(call.func, ast.Name) and call.func.id == "sum") or call.keywords \
            or not 1 <= len(call.args) <= 2 or not module.names.is_builtin(call.func):
        return False
    if len(call.args) == 2 and not _is_number(call.args[1]):
        return False
    items = call.args[0]
    if isinstance(items, ast.Name):
        bindings = module.names.lookup(items.id, module.names.scope_of(items))
        if len(bindings) != 1 or bindings[0].kind != "assign":
            return False
        for node in module.nodes[ast.Name]:
            if node.id == items.id and isinstance(node.ctx, ast.Load):
                parent = module.parent_of(node)
                if not (isinstance(parent, ast.Call) and isinstance(parent.func, ast.Name)
                        and parent.func.id == "sum" and parent.args[:1] == [node]):
                    return False  # `extra.append(g)`, `extend(extra)`: may be changed
        items = bindings[0].node
    return isinstance(items, (ast.List, ast.Tuple)) and all(
        _is_number(item) for item in items.elts)


def _constant_of(module, name):
    """The value of a name the module binds once, at its top level, to a constant
    (`ZERO = 0.0`), read where no other binding hides it; else None."""
    names = module.names
    bindings = names.lookup(name.id, names.scope_of(name))
    if len(bindings) != 1 or bindings[0].kind != "assign" or \
            bindings[0].scope is not names.module:
        return None
    if names.declared_global(name.id):
        return None  # `global ZERO` in a def that may assign it anew
    return bindings[0].node


# The numbers Python's and NumPy's modules hold (`math.pi`, `np.inf`).
_NUMBER_CONSTANTS = frozenset(
    "%s.%s" % (module, name) for module in ("math", "numpy")
    for name in ("pi", "e", "inf", "nan", "tau"))


def _looked_up(module, node):
    """The constant `self.ZERO` reads (a class attribute its class binds once, which no
    method sets on the instance) or `GRADS["bias"]` picks (a dict display the module binds
    once at its top level, by a literal key); else None."""
    if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name):
        owner = module.instance_class(node.value, module.names.scope_of(node))
        if owner is None or any(attr == node.attr
                                for attr, _, _ in module._class_attribute_stores(owner)):
            return None
        bindings = owner.bindings.get(node.attr, [])
        return bindings[0].node if len(bindings) == 1 and bindings[0].kind == "assign" \
            else None
    if isinstance(node, ast.Subscript) and isinstance(node.value, ast.Name) and isinstance(
            node.slice, ast.Constant):
        table = _constant_of(module, node.value)
        if isinstance(table, ast.Dict) and node.value.id not in module._mutated_in(
                module.names.module):
            picked = [value for key, value in zip(table.keys, table.values)
                      if isinstance(key, ast.Constant) and key.value == node.slice.value]
            return picked[0] if len(picked) == 1 else None
    return None


def _number_value(module, node):
    """The Python number a reported element is (through a constant's name, a class
    attribute, a dict display, `math.pi`); None for anything else (a NumPy value, a
    call)."""
    if isinstance(node, ast.Name):
        node = _constant_of(module, node)
    elif isinstance(node, ast.Attribute) and module.resolve(node) in _NUMBER_CONSTANTS:
        return float("nan")  # every one of them is a float
    elif isinstance(node, (ast.Attribute, ast.Subscript)):
        node = _looked_up(module, node)
    return _unsigned(node).value if node is not None and _is_number(node) else None


def _number_call(module, node):
    """`float(0)`, `int(1)`: the builtin called on a number."""
    return (isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
            and node.func.id in ("float", "int") and module.names.is_builtin(node.func)
            and len(node.args) == 1 and not node.keywords and _is_number(node.args[0]))


def _is_number(node):
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
        node = node.operand
    return (isinstance(node, ast.Constant) and isinstance(node.value, (int, float, complex))
            and not isinstance(node.value, bool))


RULE = NumberAsGradient
