import ast

from cglint.facts import gradient_count, gradient_counts, unreachable_returns, variable_gradients
from cglint.rules.base import Rule
from cglint.wording import counted


class GradientCountMismatch(Rule):
    """The gradient function returns a different number of gradients than there are inputs.

    What: a `@tf.custom_gradient` function takes N positional inputs, but its gradient
    function returns some other number of gradients; or it is called with an extra
    positional argument (`f(x, 3.0)` where `def f(x, scale=2.0)`) that its gradient does not
    cover; or a `def f(*xs)` whose gradient function returns a fixed number of gradients is
    called with another number of inputs. Lambdas count too
    (`h = tf.custom_gradient(lambda x: (y, lambda dy: ...))`). Gradients are counted
    through tuples, lists (also one built by `append`/`extend` statements, also in a
    `for` loop over `range(3)` or a display, and `*` items
    of known length: `(dy, *[None] * 2)`), `tf.split` and
    `tf.unstack` with a literal count, `tf.cond` branches and helpers of the module, and
    a `tf.gradients` call by its `xs` (the custom-gradient function's inputs it names are
    one tensor each); through results of known structure: `tf.tuple` and `tf.identity_n`
    (as long as their list), `tf.while_loop` (its loop variables), `tf.meshgrid` (one per argument), `tf.clip_by_global_norm`
    (the clipped list, then the norm: `tf.clip_by_global_norm(grads, 1.0)[0]` is the
    list), and the `nest` functions that keep a structure (`map_structure` with a function
    giving one tensor for one, `pack_sequence_as`, `flatten`), each also by a literal
    index or slice (`tf.split(dy, 4)[1:3]`) or unpacked into names; any other call of
    unknown structure is left alone. A name unpacked from `tf.split`, `tf.unstack` and the like
    (`ga, gb = tf.split(dy, 2)`) is one gradient, and so is an operation no list takes
    part in (`ga * 0.5`, `-g`, `g / 2`); a list comprehension over `range(3)` or a tuple
    display (or a name bound once to one in a function: `[dy * w for w in weights]`)
    gives one gradient per item when its element is one; `tuple(S)` and `list(S)`
    give what S gives, and `tuple(map(f, S))` one gradient per item of S when `f` takes
    one argument and gives one tensor (a bare `map(f, S)` does too on Python 2; Python 3's
    map object is one value to TF). A name bound by a
    chained assignment (`ga = gb = dy * 0.5`), or unpacked from a list or tuple display
    (`ga, gb = dy * 0.5, dy * 0.5`) or from a helper of the module that returns one
    (`ga, gb = _pair(dy)`), counts as the value it gets, also when the custom-gradient
    function binds it and its gradient function reads it (`params = [x, w]`, then
    `tf.gradients(y, params, grad_ys=dy)`). A return under `if dy is None:`
    for a parameter `dy` of the gradient function is not counted: TF 1.8 always passes a
    tensor there (zeros for an output not differentiated), so it never runs. A gradient
    function picked by a conditional expression (`ste if straight else exact`) or looked
    up in a dict display of defs (`GRADS[mode]`) is each function it may be, checked on
    its own.

    Gradients returned as a dict (a display with string keys, or `dict(k=v, ...)`) are
    also checked for order: `nest.flatten` takes a dict's values in sorted key order, so
    `{"x": dx, "w": dw}` for inputs `(x, w)` gives dx to w and dw to x. Reported when the
    keys name the inputs and, sorted, are not in the inputs' order, or when they name
    something else and are not written in sorted order; a dict whose sorted keys follow
    the inputs is clean.

    Why it breaks on TF 1.8: in graph mode `tf.gradients` raises
    `ValueError: Num gradients 3 generated for op name: "IdentityN" ... do not match num
    inputs 2`, counting outputs plus inputs, so the message names neither your function nor
    your numbers. A dict out of sorted order raises nothing: the gradients silently
    reach the wrong inputs. Graph mode turns every positional argument, even a Python float, into a
    tensor input that needs a gradient. In eager mode nothing is checked: a missing gradient
    is silently None, and an extra one was seen added to the wrong input.

    The same holds for `function.Defun(..., python_grad_func=f)` and `grad_func=g`: they
    must return one gradient per input of the Defun (a tensor of an enclosing scope that
    its body reads is one more input, which cglint does not count: such a Defun is left
    alone). TF 1.8 raises `ValueError: Num
    gradients 1 generated for op name: "scale_..."` at `tf.gradients` (python_grad_func),
    or `InvalidArgumentError: SymGrad expects to return 2 tensor(s)` when the session runs
    (grad_func).

    Fix: return exactly one gradient (or None) per positional input, in order; pass
    constants through a closure or a default instead of positionally.
    """

    code = "CG103"
    name = "gradient-count-mismatch"
    judges_project_calls = True  # imported_calls

    def check(self, module):
        for site in module.sites:
            params = site.params
            if params.vararg:
                yield from self._check_vararg(module, site)
                continue
            low, high = site.input_range
            counts = set()
            for ret in site.returns:
                grad = ret.grad
                if grad is None:
                    continue
                dead = unreachable_returns(grad)
                for anchor, value in grad.returns:
                    if id(anchor) in dead:
                        continue  # `if dy is None: return None`: TF 1.8 never runs it
                    if variable_gradients(module, site, grad, value) is not None:
                        continue  # CG107 explains this one
                    count = gradient_count(module, site, ret, value)
                    if count is None:
                        continue
                    counts.add(count)
                    # A method's gradient with a slot for `self` counts what TF would
                    # count: its failure is that `self` is converted at all (CG108).
                    with_self = site.is_method and low + 1 <= count <= high + 1
                    if not low <= count <= high and not with_self:
                        node = anchor.body if isinstance(anchor, ast.Lambda) else anchor
                        hint = "" if not module.python3_map(value) else (
                            " (Python 3's `map` object is one value to TF: wrap it in "
                            "`list(...)`)")
                        yield self.at(node, "`%s` takes %s but its gradient function `%s` "
                                      "returns %s%s" % (site.name, _inputs(low, high),
                                                        grad.name, counted(count, "gradient"),
                                                        hint), function=site.func)
                    elif count >= 2:
                        message = _dict_order(module, site, grad, value, count)
                        if message is not None:
                            node = anchor.body if isinstance(anchor, ast.Lambda) else anchor
                            yield self.at(node, message, function=site.func)
            if module.eager or len(counts) != 1:
                continue
            count = counts.pop()
            for call in site.calls:
                given = _extra_inputs(module, call, count, low, high)
                if given is not None:
                    yield self.at(call, _extra(site.name, given, count), function=site.func)
        yield from self._check_defuns(module)
        if not module.imported_calls or module.eager:
            return
        for call, site in module.imported_calls:
            if site.vararg or len(site.gradient_counts) != 1:
                continue
            (count,) = site.gradient_counts
            given = _extra_inputs(module, call, count, site.required, len(site.positional))
            if given is not None:
                yield self.at(call, _extra(site.name, given, count))


    def _check_vararg(self, module, site):
        """`def f(*xs)`: the inputs are what each call passes, so a gradient function that
        returns a fixed number of gradients fits only calls passing that many."""
        if module.eager or any(variable_gradients(module, site, ret.grad, value)
                               for ret in site.returns if ret.grad is not None
                               for _, value in ret.grad.returns):
            return
        counts, complete = gradient_counts(module, site)
        if not complete or len(counts) != 1:
            return  # `[dy] * len(xs)` and the like: any number
        count = counts.pop()
        for call in site.calls:
            given = _positional_count(module, call)
            if given is None or module.passed_keywords(call):
                continue
            if given != count and given >= site.params.required:
                yield self.at(call, _extra(site.name, given, count), function=site.func)

    def _check_defuns(self, module):
        for site in module.defun_sites:
            if site.inputs is None:
                continue
            for grad, kind in ((site.python_grad, "python_grad_func"),
                               (site.grad_defun, "grad_func")):
                if grad is None:
                    continue
                for anchor, value in grad.returns:
                    count = 1 if value is None else module.count_values(value, grad.scope)
                    if count is not None and count != site.inputs:
                        yield self.at(anchor, "Defun `%s` has %s but its %s `%s` returns %s"
                                      % (site.name, _inputs(site.inputs, site.inputs), kind,
                                         grad.name, counted(count, "gradient")), function=site.func)


_EXTRA = ("`%s` is called with %s here but its gradient function returns "
          "%s: in graph mode every positional argument becomes a tensor input that needs a "
          "gradient")


def _extra(name, given, count):
    return _EXTRA % (name, counted(given, "positional input"), counted(count, "gradient"))


def _positional_count(module, call):
    """How many positional arguments `call` passes, `*parts` of a list or tuple display
    (or a name bound once to one) counted by its items; None when unknown."""
    given = 0
    for arg in call.args:
        if not isinstance(arg, ast.Starred):
            given += 1
            continue
        items = arg.value
        if isinstance(items, ast.Name):
            bindings = module.names.lookup(items.id, module.names.scope_of(items))
            if len(bindings) != 1 or bindings[0].kind != "assign" or _changed(module, items):
                return None
            items = bindings[0].node
        if not isinstance(items, (ast.List, ast.Tuple)) or any(
                isinstance(item, ast.Starred) for item in items.elts):
            return None
        given += len(items.elts)
    return given


def _changed(module, name):
    """Whether the list a name holds may be changed in place: the name is read anywhere
    but in a `*` unpacking, an argument of a TensorFlow function (`tf.gradients(y,
    parts)`), `len(parts)` or `parts[0]` (`parts.append(t)`, `extend_parts(parts)`,
    `more = parts` may change it)."""
    for node in module.nodes[ast.Name]:
        if node.id == name.id and isinstance(node.ctx, ast.Load) and not _only_read(
                module, node):
            return True
    return False


def _only_read(module, node):
    parent = module.parent_of(node)
    if isinstance(parent, ast.Starred) or (
            isinstance(parent, ast.Subscript) and parent.value is node
            and isinstance(parent.ctx, ast.Load)):  # not `del parts[0]`, `parts[1:] = []`
        return True
    if isinstance(parent, ast.Call) and node in parent.args:
        if isinstance(parent.func, ast.Name) and parent.func.id == "len":
            return True
        called = module.resolve(parent.func)
        return bool(called) and called.startswith("tensorflow.")
    return False


def _dict_items(module, grad, value):
    """[(key, value)] of the dict a gradient function returns: a display with string
    literal keys, `dict(k=v, ...)`, or a name bound once to either and read only here;
    else None."""
    if isinstance(value, ast.Name):
        bindings = module.names.lookup(value.id, grad.scope)
        if len(bindings) != 1 or bindings[0].kind != "assign" or not isinstance(
                bindings[0].node, (ast.Dict, ast.Call)):
            return None
        if sum(1 for node in ast.walk(grad.node) if isinstance(node, ast.Name)
               and node.id == value.id and isinstance(node.ctx, ast.Load)) != 1:
            return None  # `grads["b"] = ...`, `grads.update(...)`: changed in place
        value = bindings[0].node
    if isinstance(value, ast.Dict):
        if not all(isinstance(key, ast.Constant) and isinstance(key.value, str)
                   for key in value.keys):
            return None
        return [(key.value, item) for key, item in zip(value.keys, value.values)]
    if isinstance(value, ast.Call) and isinstance(value.func, ast.Name) and (
            value.func.id == "dict" and not value.args and value.keywords
            and all(keyword.arg for keyword in value.keywords)
            and not module.names.lookup("dict", grad.scope)):
        return [(keyword.arg, keyword.value) for keyword in value.keywords]
    return None


def _dict_order(module, site, grad, value, count):
    """The message for gradients returned as a dict whose sorted keys (the order
    `nest.flatten` gives its values in) put a gradient on another input than meant: the
    keys name the inputs and sorted they are not in the inputs' order, or they name
    something else and their written order is not the sorted one."""
    if not isinstance(value, (ast.Dict, ast.Name, ast.Call)):
        return None
    items = _dict_items(module, grad, value)
    if items is None or len(items) != count or len(set(key for key, _ in items)) != count:
        return None
    if any(module.count_values(item, grad.scope) != 1 for _, item in items):
        return None
    keys = [key for key, _ in items]
    ordered = sorted(keys)
    names = site.params.names[1:] if site.is_method else site.params.names
    if set(keys) == set(names[:count]):
        wrong = [i for i in range(count) if ordered[i] != names[i]]
        if not wrong:
            return None
        return ("`%s`'s gradient function `%s` returns a dict keyed by its inputs' names: "
                "TF 1.8 flattens a dict in sorted key order (%s), so the gradient under "
                "\"%s\" goes to input `%s`, silently wrong; return a tuple in the inputs' "
                "order" % (site.name, grad.name, _keys(ordered), ordered[wrong[0]],
                           names[wrong[0]]))
    if keys == ordered:
        return None
    return ("`%s`'s gradient function `%s` returns a dict written in the order (%s): TF 1.8 "
            "flattens a dict in sorted key order (%s) and hands its values to the inputs in "
            "that order, so they reach other inputs than written, silently; return a tuple "
            "in the inputs' order" % (site.name, grad.name, _keys(keys), _keys(ordered)))


def _keys(keys):
    return ", ".join('"%s"' % key for key in keys)


def _extra_inputs(module, call, count, low, high):
    """How many positional inputs `call` passes, when that differs from the gradient count
    and both are in the function's range; else None."""
    given = _positional_count(module, call)
    if given is None or module.passed_keywords(call):
        return None
    if given != count and low <= given <= high and low <= count <= high:
        return given
    return None


def _inputs(low, high):
    if low == high:
        return counted(low, "tensor input")
    return "%d to %d tensor inputs" % (low, high)


RULE = GradientCountMismatch
