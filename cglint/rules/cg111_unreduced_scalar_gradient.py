import ast
import os

from cglint.facts import passed_argument, returned_slots, visibly_not_scalar
from cglint.rules.base import Rule


class UnreducedScalarGradient(Rule):
    """A scalar input's gradient keeps the shape of the upstream gradient.

    What: a `@tf.custom_gradient` function is called with a Python number, a NumPy
    float32 scalar, or a scalar tensor (`tf.constant(0.3)`, `tf.Variable(0.3)` or
    `tf.Variable(initial_value=0.3)` or its `read_value()`, Keras's `K.variable(0.3)` or
    `K.constant(0.3)`, a placeholder, `get_variable` or contrib's and slim's
    `model_variable` of shape `[]` (or `[1]`, one element, checked the same way), a
    `get_variable` whose `initializer=` is a scalar such as `tf.constant(0.3)`, the
    global step (`tf.train.get_or_create_global_step()`), a learning-rate schedule of a
    scalar rate (`tf.train.exponential_decay(0.1, step, ...)`), a reduction over every
    axis, or casts, arithmetic and elementwise functions of those and numbers (the
    gradient-reversal weight `2.0 / (1.0 + tf.exp(-10.0 * progress)) - 1.0` of
    `progress = tf.cast(step, tf.float32) / 1000.0`), directly or through a name bound
    once, an attribute the class's methods set once (`self.alpha = tf.Variable(0.25)`;
    a Keras or tf.layers Layer's `self.add_weight("scale", shape=())`), or an item of a
    dict or list display bound once (`HPARAMS["lambda"]`)) in one positional slot, next to tensor inputs, while the gradient function
    returns, for that slot, an elementwise expression of the upstream gradient such as
    `dy * (x - y)` or `tf.zeros_like(dy)` (directly or kept in a name first: `dalpha =
    dy * x`): a tensor shaped like `dy`, not a scalar; or, for a scalar, a reduction of
    one that keeps its dimensions (`tf.reduce_sum(dy * x, keepdims=True)`: shape (1, 1),
    the rank of `dy`). A function whose output may
    itself be a scalar gets a scalar `dy`, and is left alone: a reduction over every axis
    (`tf.reduce_sum(v) * s`), a `tf.losses` loss, a norm, a helper of the module returning
    one, or another TensorFlow function whose result's shape cglint does not know
    (`tf.tensordot`); elementwise arithmetic and functions of the tensor inputs,
    `tf.reshape`, a slice, a matrix product or a layer object's output are known not to
    be.
    A call of such a function that another module of the project defines is reported at
    the call.

    The reverse is reported too: a gradient surely of shape () (a reduction over every
    axis without `keepdims=True`, such as `tf.reduce_sum(dy * x)`, `tf.nn.l2_loss(dy)`,
    or arithmetic of those and numbers) for an input that a call passes visibly of rank
    one or more (`tf.Variable([1.0, 2.0])`, `tf.constant([...])`, `tf.get_variable("b",
    [3])`, `tf.placeholder(tf.float32, [None])`, or a name bound once to one).

    Why it breaks on TF 1.8: graph mode turns the number into a scalar tensor input, and
    `tf.gradients` checks each gradient's static shape against its input:
    `ValueError: Incompatible shapes between op input and calculated input gradient ...
    Original input shape: ().  Calculated input gradient shape: (3,)` (and the same with
    the shapes the other way round for a reduced gradient of a vector input). With unknown static
    shapes it fails later, when an optimizer applies the gradient (`var and delta do not
    have the same shape`). This is the `weighted_sum(x, y, 0.3)` example of the original
    request.

    Fix: sum the gradient over the broadcast dimensions, e.g.
    `tf.reduce_sum(dy * (x - y))` (for a one-element input, keep its shape:
    `tf.reshape(tf.reduce_sum(...), [1])`, since a gradient of shape () fails the same
    check), or keep the number a Python constant (a closure or a default) so that it is
    not an input at all. For a vector input, reduce only the axes broadcasting added, or
    give the gradient the input's shape (`tf.ones_like(b) * tf.reduce_sum(dy)`).
    """

    code = "CG111"
    name = "unreduced-scalar-gradient"

    judges_project_calls = True  # imported_calls

    def check(self, module):
        if not (module.sites or module.imported_calls) or module.eager:
            return  # eager keeps Python numbers as they are: no input, no gradient slot
        yield from self._imported(module)
        for site in module.sites:
            if site.is_method or site.params.vararg:
                continue
            yield from self._reduced_for_shaped(module, site)
            scalar_slots = self._scalar_slots(module, site)
            if not scalar_slots:
                continue
            reported = set()
            scalar_names = {site.params.names[slot] for slot in scalar_slots}
            for ret in site.returns:
                grad = ret.grad
                if grad is None or not grad.params.nodes:
                    continue
                if _scalar_output(module, ret.outputs, site.scope, scalar_names):
                    continue  # a scalar output: dy, and what keeps its shape, are scalars
                upstream = {arg.arg for arg in grad.params.nodes}
                for _, value in grad.returns:
                    if not isinstance(value, (ast.Tuple, ast.List)):
                        continue
                    for slot, (number, line) in sorted(scalar_slots.items()):
                        if slot >= len(value.elts) or id(value.elts[slot]) in reported:
                            continue
                        element = value.elts[slot]
                        if _keeps_upstream_shape(module, element, upstream):
                            reported.add(id(element))
                            yield self.at(element, "`%s` gets %s for `%s` (line "
                                          "%d), but its gradient `%s` has the shape of the "
                                          "upstream gradient; %s"
                                          % (site.name, number, site.params.names[slot], line,
                                             ast.unparse(element), _reduce_it(number)),
                                          function=site.func)
                        elif number.startswith("the scalar ") and _keeps_upstream_rank(
                                module, element, upstream):
                            reported.add(id(element))
                            keyword = _kept_dims_keyword(module, element, upstream)
                            yield self.at(element, "`%s` gets %s for `%s` (line %d), but "
                                          "its gradient `%s` keeps the upstream gradient's "
                                          "rank (`%s=True`), where a scalar's gradient "
                                          "has shape (); reduce it without `%s`"
                                          % (site.name, number, site.params.names[slot], line,
                                             ast.unparse(element), keyword, keyword),
                                          function=site.func)

    def _reduced_for_shaped(self, module, site):
        """The reverse: a gradient surely of shape () (`tf.reduce_sum(dy * x)`) for an
        input that a call passes visibly of a rank of one or more (`tf.Variable([1.0,
        2.0])`, `tf.placeholder(tf.float32, [None])`)."""
        shaped = {}
        for call in site.calls:
            if call.keywords or any(isinstance(a, ast.Starred) for a in call.args):
                continue
            for slot, arg in enumerate(call.args[:len(site.params.names)]):
                if slot not in shaped and visibly_not_scalar(module, arg):
                    shaped[slot] = arg
        if not shaped:
            return
        reported = set()
        for ret in site.returns:
            grad = ret.grad
            if grad is None:
                continue
            for _, value in grad.returns:
                slots = returned_slots(value) if value is not None else None
                if slots is None:
                    continue
                for slot, arg in sorted(shaped.items()):
                    if slot >= len(slots) or id(slots[slot]) in reported:
                        continue
                    element = slots[slot]
                    if _number(element) or not _surely_scalar(module, element, 0):
                        continue
                    reported.add(id(element))
                    yield self.at(element, "`%s` gets `%s` for `%s` (line %d), a tensor of "
                                  "rank one or more, but its gradient `%s` is reduced to "
                                  "shape (); tf.gradients raises `ValueError: Incompatible "
                                  "shapes between op input and calculated input gradient`: "
                                  "give it the input's shape (reduce only the broadcast "
                                  "axes, or `tf.ones_like(%s) * ...`)"
                                  % (site.name, ast.unparse(arg), site.params.names[slot],
                                     arg.lineno, ast.unparse(element),
                                     site.params.names[slot]), function=site.func)

    def _imported(self, module):
        """Calls of another project module's custom-gradient function (its ImportedSite
        records the slots whose gradient keeps the upstream shape): reported at the call,
        the only place this file shows."""
        for call, site in module.imported_calls:
            if not site.unreduced or call.keywords or any(
                    isinstance(a, ast.Starred) for a in call.args) or \
                    len(call.args) > len(site.positional):
                continue
            scalars = {i: arg for i, arg in enumerate(call.args) if _scalar(module, arg)}
            if not scalars or len(scalars) == len(call.args):
                continue
            for slot, gradient in site.unreduced:
                if slot in scalars:
                    arg = scalars[slot]
                    shown = ast.unparse(arg)
                    what = _described(module, arg)
                    yield self.at(arg, "`%s` (%s:%d) gets %s %s for `%s` here, but "
                                  "its gradient `%s` has the shape of the upstream gradient; "
                                  "%s there" % (
                                      site.name, os.path.basename(site.path), site.line, what,
                                      shown if isinstance(arg, ast.Constant) else
                                      "`%s`" % shown, site.positional[slot], gradient,
                                      _reduce_it(what)))
                    break

    @staticmethod
    def _scalar_slots(module, site):
        """slot -> (text of the number, line) for calls that mix scalars and tensors."""
        slots = {}
        for call in site.calls:
            if call.keywords or any(isinstance(a, ast.Starred) for a in call.args):
                continue
            if len(call.args) > len(site.params.names):
                continue  # too many arguments: a TypeError at call, not this rule's business
            scalars = {i: arg for i, arg in enumerate(call.args) if _scalar(module, arg)}
            if scalars and len(scalars) < len(call.args):
                for slot, arg in scalars.items():
                    shown = ast.unparse(arg)
                    shown = shown if isinstance(arg, ast.Constant) else "`%s`" % shown
                    slots.setdefault(slot, ("%s %s" % (_described(module, arg), shown),
                                            call.lineno))
        return slots


def unreduced_slots(module, site):
    """((slot, gradient text), ...) of a custom-gradient function: the positional slots
    whose gradient keeps the upstream gradient's shape where the forward output is no
    scalar even with that input a scalar. For the ImportedSite its importers judge their
    calls by (cglint.project)."""
    if site.is_method or site.params.vararg:
        return ()
    found = {}
    for ret in site.returns:
        grad = ret.grad
        if grad is None or not grad.params.nodes:
            continue
        upstream = {arg.arg for arg in grad.params.nodes}
        for _, value in grad.returns:
            if not isinstance(value, (ast.Tuple, ast.List)):
                continue
            for slot, element in enumerate(value.elts[:len(site.params.names)]):
                if slot in found or not _keeps_upstream_shape(module, element, upstream):
                    continue
                if not _scalar_output(module, ret.outputs, site.scope,
                                      {site.params.names[slot]}):
                    found[slot] = ast.unparse(element)
    return tuple(sorted(found.items()))


def _scalar(module, arg, depth=0):
    """A float, or a tensor surely of shape (): `tf.constant(0.3)`, `tf.Variable(0.0)`,
    `tf.Variable(initial_value=0.0)`, `tf.placeholder(tf.float32, [])`,
    `tf.get_variable("b", [])`, `tf.get_variable("b", initializer=tf.constant(0.3))`, or a
    name bound once to one of them, or a call of a helper of the module that returns one
    (the seed's `weighted_sum`, facts n2); casts, arithmetic and elementwise functions of
    those and numbers. `depth`: how many expressions, names and helpers deep."""
    if depth > _MAX_SCALAR_DEPTH:
        return False
    if isinstance(arg, ast.UnaryOp) and isinstance(arg.op, ast.USub):
        arg = arg.operand
    if isinstance(arg, ast.Constant):
        return isinstance(arg.value, float)  # ints are CG108's business
    if isinstance(arg, ast.Name):
        bindings = module.names.lookup(arg.id, module.names.scope_of(arg))
        return len(bindings) == 1 and bindings[0].kind == "assign" and _scalar(
            module, bindings[0].node, depth + 1)
    if isinstance(arg, ast.Attribute):
        # `self.alpha` that the class's methods set once (`self.alpha = tf.Variable(0.25)`)
        stored = module.instance_attribute_value(arg)
        return stored is not None and _scalar(module, stored[0], depth + 1)
    if isinstance(arg, ast.Subscript):
        # `params["lam"]` of a dict display bound once, `alphas[i]` of a list display
        # bound once whose items are all scalars
        items = _items_picked(module, arg)
        return bool(items) and all(_scalar(module, item, depth + 1) for item in items)
    if isinstance(arg, ast.BinOp):
        # `x * 2.0`, `x + y` of scalars and numbers: a scalar (a number alone is no tensor)
        sides = (arg.left, arg.right)
        return all(_number(side) or _scalar(module, side, depth + 1) for side in sides) \
            and not all(_number(side) for side in sides)
    if not isinstance(arg, ast.Call):
        return False
    if isinstance(arg.func, ast.Attribute) and arg.func.attr in _READS and not (
            arg.args or arg.keywords):
        return _scalar(module, arg.func.value, depth + 1)  # `v.read_value()` of a scalar v
    if isinstance(arg.func, ast.Attribute) and arg.func.attr in ("add_weight", "add_variable") \
            and isinstance(arg.func.value, ast.Name):
        # a Keras or tf.layers Layer's `self.add_weight("scale", shape=())`
        owner = module.instance_class(arg.func.value, module.names.scope_of(arg))
        return owner is not None and bool(module.tensorflow_class(owner)) and _empty_shape(
            passed_argument(arg, 1, "shape"))
    qualname = module.resolve(arg.func)
    if qualname in _SCALAR_OF_VALUE:
        # `tf.Variable(0.3)`, `tf.Variable(initial_value=0.3, name="alpha")`
        value = passed_argument(arg, 0, _SCALAR_OF_VALUE[qualname])
        shape = passed_argument(arg, 2, "shape") if qualname == "tensorflow.constant" else None
        if qualname in _CASTS and _number(value):
            return True  # `tf.cast(3, tf.float32)`: a scalar tensor, the int is gone
        return value is not None and (shape is None or _empty_shape(shape)) and _scalar(
            module, value, depth + 1)
    if qualname == "tensorflow.get_variable":
        # `tf.get_variable("alpha", initializer=tf.constant(0.3))`: a value, not an
        # initializer object, makes the variable of its shape (1.8 then refuses `shape=`)
        value = passed_argument(arg, 3, "initializer")
        shape = passed_argument(arg, 1, "shape")
        if value is not None and shape is None and _scalar(module, value, depth + 1):
            return True  # (`tf.constant_initializer(0.3)` is no scalar: its `shape=` decides)
    if _reduces_every_axis(arg, qualname) or qualname in _SCALAR_RESULTS:
        return True  # `tf.reduce_sum(v)`: over every axis; `tf.nn.l2_loss(w)`
    if qualname in _SCHEDULES:
        # `tf.train.exponential_decay(0.1, step, ...)`: the rate, broadcast with the step
        rate = passed_argument(arg, 0, "learning_rate")
        return rate is not None and (_number(rate) or _scalar(module, rate, depth + 1))
    if qualname == "tensorflow.train.piecewise_constant":
        values = passed_argument(arg, 2, "values")  # one of them, chosen by the step
        return isinstance(values, (ast.List, ast.Tuple)) and bool(values.elts) and all(
            _number(value) or _scalar(module, value, depth + 1) for value in values.elts)
    if qualname in _SHAPE_KEEPING and arg.args and not any(
            isinstance(a, ast.Starred) for a in arg.args) and all(
                keyword.arg is not None for keyword in arg.keywords):
        # `tf.exp(-10.0 * p)`, `tf.maximum(p, 0.1)`: elementwise of scalars and numbers
        given = arg.args[:1] if qualname in _OPTIONS_AFTER_FIRST else arg.args + [
            keyword.value for keyword in arg.keywords if keyword.arg != "name"]
        return all(_number(a) or _scalar(module, a, depth + 1) for a in given)
    returns = module.returned_by_call(arg)
    if returns is not None:  # `get_temperature()` returning `tf.constant(2.0)`
        return all(value is not None and _scalar(module, value, depth + 1)
                   for value in returns)
    if qualname in _SCALAR_OF_SHAPE:
        position = _SCALAR_OF_SHAPE[qualname]
        return _empty_shape(passed_argument(arg, position, "shape"))
    return False


def _items_picked(module, subscript):
    """The items `subscript` may pick from a list, tuple or dict display a name is bound
    to once: the one a constant key names in a dict, else every item; () when unknown."""
    if not isinstance(subscript.value, ast.Name):
        return ()
    bindings = module.names.lookup(subscript.value.id, module.names.scope_of(subscript))
    if len(bindings) != 1 or bindings[0].kind != "assign":
        return ()
    table = bindings[0].node
    if isinstance(table, ast.Dict):
        if None in table.keys:
            return ()  # `{**other}`
        key = subscript.slice
        if isinstance(key, ast.Constant):
            return [value for name, value in zip(table.keys, table.values)
                    if isinstance(name, ast.Constant) and name.value == key.value]
        return table.values
    if isinstance(table, (ast.List, ast.Tuple)) and not any(
            isinstance(item, ast.Starred) for item in table.elts):
        return table.elts
    return ()


def _empty_shape(shape):
    """`[]` or `()`: the shape of a scalar; or `[1]`, one element, whose gradient must
    be reduced the same way (`Original input shape: (1,)`)."""
    return isinstance(shape, (ast.List, ast.Tuple)) and (not shape.elts or _one(shape))


def _described(module, arg):
    """How a message names a scalar-like argument."""
    return "the one-element tensor" if _one_element(module, arg) else "the scalar"


def _reduce_it(what):
    """The fix: a scalar's gradient summed; a one-element tensor's kept of shape [1] (a
    plain sum, of shape (), fails the same check: measured under TF 1.8)."""
    if what.startswith("the one-element"):
        return "reduce it to shape [1], e.g. tf.reshape(tf.reduce_sum(...), [1])"
    return "reduce it, e.g. tf.reduce_sum"


def _one(shape):
    """`[1]` or `(1,)`."""
    return isinstance(shape, (ast.List, ast.Tuple)) and len(shape.elts) == 1 and isinstance(
        shape.elts[0], ast.Constant) and shape.elts[0].value == 1 and type(
            shape.elts[0].value) is int


def _one_element(module, arg, depth=0):
    """Whether a scalar-like argument is a tensor of shape [1] (a name bound once to one)."""
    if isinstance(arg, ast.Name) and depth < 3:
        bindings = module.names.lookup(arg.id, module.names.scope_of(arg))
        return len(bindings) == 1 and bindings[0].kind == "assign" and _one_element(
            module, bindings[0].node, depth + 1)
    if isinstance(arg, ast.Call):
        qualname = module.resolve(arg.func)
        if qualname in _SCALAR_OF_SHAPE:
            return _one(passed_argument(arg, _SCALAR_OF_SHAPE[qualname], "shape"))
    return False


def _number(node):
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        node = node.operand
    return isinstance(node, ast.Constant) and type(node.value) in (int, float)


# Calls that are a scalar when their first argument (or this keyword) is one.
_SCALAR_OF_VALUE = {"tensorflow.constant": "value", "tensorflow.convert_to_tensor": "value",
                    "tensorflow.Variable": "initial_value", "tensorflow.cast": "x",
                    "tensorflow.to_float": "x",
                    # eager's variable (a ResourceVariable in 1.8, which graph code
                    # makes too; its module's spelling is no public name to resolve to)
                    "tensorflow.python.ops.resource_variable_ops.ResourceVariable":
                        "initial_value",
                    "tensorflow.contrib.eager.Variable": "initial_value",
                    # a NumPy float32 scalar is a float32 tensor of shape () as an input
                    "numpy.float32": "",
                    # Keras's (standalone on the TF backend, and tf.keras's) variables
                    "tensorflow.keras.backend.variable": "value",
                    "keras.backend.variable": "value",
                    "tensorflow.keras.backend.constant": "value",
                    "keras.backend.constant": "value"}
# Of those, the casts: a Python number given them is a tensor of the dtype asked for
# (`tf.cast(3, tf.int32)` is an int32 one), no longer the number _scalar leaves to CG108.
_CASTS = frozenset(("tensorflow.cast", "tensorflow.to_float"))
# Methods of a variable that read its value, of its shape.
_READS = ("read_value", "value")
# Calls that are a scalar when their shape (keyword, or the argument at this position) is [].
_SCALAR_OF_SHAPE = {"tensorflow.placeholder": 1, "tensorflow.get_variable": 1,
                    "tensorflow.zeros": 0, "tensorflow.ones": 0,
                    "tensorflow.placeholder_with_default": 1,
                    "tensorflow.get_local_variable": 1,
                    # contrib's (and slim's) variables: (name, shape=None, ...)
                    "tensorflow.contrib.framework.model_variable": 1,
                    "tensorflow.contrib.framework.variable": 1,
                    "tensorflow.contrib.slim.model_variable": 1,
                    "tensorflow.contrib.slim.variable": 1}
# Elementwise TF functions: the result has the shape of their tensor arguments.
_ELEMENTWISE = frozenset(("tensorflow.%s" % name for name in (
    "zeros_like", "ones_like", "identity", "multiply", "add", "subtract", "negative",
    "square", "abs", "sign", "exp", "sigmoid", "tanh")))


# Calls whose result is a scalar whatever their tensor's shape: losses (reduced to one
# number by default), norms and counts over every axis, and the global step (TF 1.8's
# training_util makes it of shape [], and get_global_step refuses one of another shape);
# `axis=` (or a position below) makes a reduction keep axes.
_SCALAR_RESULTS = frozenset("tensorflow.%s" % name for name in (
    "global_norm", "trace", "nn.l2_loss", "losses.get_total_loss",
    "losses.get_regularization_loss", "rank", "size",
    "train.get_or_create_global_step", "train.get_global_step", "train.create_global_step",
    "contrib.framework.get_or_create_global_step", "contrib.framework.get_global_step",
    "contrib.framework.create_global_step"))
# tf.train's learning-rate schedules: their rate broadcast with the global step, so a
# scalar when the rate is one (of shape (3,) for a rate of that shape: measured).
_SCHEDULES = frozenset("tensorflow.train.%s" % name for name in (
    "exponential_decay", "polynomial_decay", "natural_exp_decay", "inverse_time_decay",
    "cosine_decay", "cosine_decay_restarts", "linear_cosine_decay",
    "noisy_linear_cosine_decay"))
_REDUCING = {"tensorflow.%s" % name: 1 for name in (
    "reduce_sum", "reduce_mean", "reduce_max", "reduce_min", "reduce_prod",
    "reduce_logsumexp", "reduce_any", "reduce_all", "count_nonzero", "norm",
    "math.reduce_sum", "math.reduce_mean", "math.reduce_max", "math.reduce_min")}
_REDUCING.update(("%s.%s" % (backend, name), 1) for backend in (
    "tensorflow.keras.backend", "keras.backend") for name in (
        "sum", "mean", "max", "min", "prod", "std", "var", "logsumexp"))
_REDUCING["tensorflow.norm"] = 2  # (tensor, ord, axis)
_AXIS_KEYWORDS = ("axis", "reduction_indices", "keepdims", "keep_dims")
# Functions of tensors whose result has the (broadcast) shape of their arguments.
_SHAPE_KEEPING = _ELEMENTWISE | frozenset("tensorflow.%s" % name for name in (
    "nn.relu", "nn.relu6", "nn.elu", "nn.selu", "nn.softplus", "nn.softsign", "nn.sigmoid",
    "nn.tanh", "nn.leaky_relu", "nn.swish", "nn.dropout", "log", "log1p", "sqrt", "rsqrt",
    "pow", "maximum", "minimum", "clip_by_value", "round", "floor", "ceil", "sin", "cos",
    "divide", "truediv", "div", "realdiv", "squared_difference", "stop_gradient",
    "to_float", "cast", "reciprocal", "expm1", "log_sigmoid", "erf",
    "math.log", "math.exp", "math.sqrt", "math.sigmoid", "math.tanh"))
# Of those, the ones whose later arguments are options (a dtype, a rate), not tensors.
_OPTIONS_AFTER_FIRST = frozenset("tensorflow.%s" % name for name in (
    "cast", "to_float", "nn.dropout", "nn.leaky_relu"))
# How many names and calls the output is followed through.
_MAX_OUTPUT_DEPTH = 12
# How deep a scalar input is followed, through its expression's parts, names and helpers
# (DANN's weight `2.0 / (1.0 + tf.exp(-10.0 * p)) - 1.0` of `p = tf.cast(step, ...) / n`
# is 10 deep); a long chain of additions is not, where recursion would reach its limit.
_MAX_SCALAR_DEPTH = 12
# Functions whose result keeps the shape, or the number of elements, of a tensor
# argument: a scalar only when that is one (a reshape to `[]` aside).
_SHAPED = frozenset("tensorflow.%s" % name for name in (
    "reshape", "transpose", "where", "nn.l2_normalize", "nn.batch_normalization",
    "reverse", "reverse_v2", "cumsum", "cumprod", "nn.softmax", "nn.log_softmax",
    "image.resize_images", "pad", "tile"))
# Functions whose result is never a scalar (a matrix product, a layer's output, a
# concatenation).
_NEVER_SCALAR = frozenset("tensorflow.%s" % name for name in (
    "matmul", "nn.conv2d", "nn.conv1d", "nn.bias_add", "concat", "stack", "one_hot",
    "expand_dims", "layers.dense", "layers.conv2d", "nn.embedding_lookup", "gather",
    "nn.xw_plus_b"))


def _reduces_every_axis(call, qualname):
    """`tf.reduce_sum(v)`, `K.mean(v)`: a reduction given no axis (`axis=0` is one)."""
    if any(isinstance(arg, ast.Starred) for arg in call.args) or any(
            keyword.arg is None for keyword in call.keywords):
        return False  # `*args` or `**options` may give an axis
    return qualname in _REDUCING and len(call.args) <= _REDUCING[qualname] and not any(
        keyword.arg in _AXIS_KEYWORDS and not (
            isinstance(keyword.value, ast.Constant) and (
                keyword.value.value is None or keyword.value.value is False))
        for keyword in call.keywords)


# Calls whose result has shape () whatever their argument's shape (besides reductions
# over every axis).
_REDUCED_RESULTS = frozenset(("tensorflow.nn.l2_loss", "tensorflow.global_norm"))


def _surely_scalar(module, expr, depth):
    """Whether a gradient is surely of shape (): a reduction over every axis without
    `keepdims=True`, `tf.nn.l2_loss`, a cast of one, arithmetic of those and numbers,
    directly or through a name of the gradient function bound once."""
    if depth > _MAX_LOCAL_NAMES:
        return False
    if isinstance(expr, ast.Name):
        value = _assigned_once(module, expr)
        return value is not None and _surely_scalar(module, value, depth + 1)
    if isinstance(expr, ast.UnaryOp):
        return _surely_scalar(module, expr.operand, depth)
    if isinstance(expr, ast.BinOp):
        if isinstance(expr.op, ast.MatMult):
            return False
        sides = (expr.left, expr.right)
        return all(_number(side) or _surely_scalar(module, side, depth) for side in sides) \
            and not all(_number(side) for side in sides)
    if isinstance(expr, ast.Call):
        qualname = module.resolve(expr.func) or ""
        if qualname in _REDUCED_RESULTS:
            return bool(expr.args)
        if qualname in _CASTS and expr.args:
            return _surely_scalar(module, expr.args[0], depth)
        return _reduces_every_axis(expr, qualname)
    return False


def _scalar_output(module, expr, scope, scalar_names):
    """Whether the forward output may be a scalar, so that `dy`, and what keeps its
    shape, may be scalars too: a reduction over every axis, a loss, a norm, a helper of
    the module returning one, an element (`x[0]`), arithmetic of those, numbers and the
    scalar inputs, or another TensorFlow function whose result's shape cglint does not
    know. Not arithmetic, elementwise or shape-keeping functions of the other tensor
    inputs, a slice, a matrix product, or a layer object's output."""
    return _OutputShape(module, frozenset(scalar_names)).may_be_scalar(expr, scope, 0)


class _OutputShape:
    """_scalar_output, with each expression's answer kept: a name assigned again and
    again (`h = tf.nn.relu(h)`) is followed once, not once per path to it."""

    def __init__(self, module, scalar_names):
        self.module = module
        self.scalar_names = scalar_names
        self.answers = {}  # (id(expr), id(scope), names) -> answer

    def may_be_scalar(self, expr, scope, depth, names=None):
        names = self.scalar_names if names is None else names
        if expr is None or depth > _MAX_OUTPUT_DEPTH:
            return False
        key = (id(expr), id(scope), names)
        if key not in self.answers:
            self.answers[key] = False  # while it is worked out (`h = h * alpha`)
            self.answers[key] = self._may_be_scalar(expr, scope, depth, names)
        return self.answers[key]

    def _may_be_scalar(self, expr, scope, depth, names):
        module, deeper = self.module, depth + 1

        def scalar(node, node_scope=scope, node_names=names):
            return self.may_be_scalar(node, node_scope, deeper, node_names)

        if isinstance(expr, ast.Name):
            if expr.id in names:
                return True
            values = module.assigned_values(expr, scope)
            return bool(values) and any(scalar(value) for value in values)
        if isinstance(expr, ast.Constant):
            return isinstance(expr.value, (int, float))
        if isinstance(expr, ast.BinOp):
            return scalar(expr.left) and scalar(expr.right)
        if isinstance(expr, ast.UnaryOp):
            return scalar(expr.operand)
        if isinstance(expr, ast.IfExp):
            return scalar(expr.body) or scalar(expr.orelse)
        if isinstance(expr, ast.Subscript):
            return not isinstance(expr.slice, ast.Slice)  # `x[0]` of a vector; not `x[1:]`
        if not isinstance(expr, ast.Call):
            return False
        qualname = module.resolve(expr.func)
        tensors = [arg for arg in expr.args if not isinstance(arg, ast.Starred)]
        if qualname in _REDUCING:
            return _reduces_every_axis(expr, qualname)
        if qualname in _SCALAR_RESULTS:
            return True
        if qualname and qualname.startswith("tensorflow.losses."):
            return not any(keyword.arg in ("reduction", None) for keyword in expr.keywords)
        if qualname in _SHAPE_KEEPING:
            first = tensors[:1] if qualname in _OPTIONS_AFTER_FIRST else tensors[:2]
            return all(scalar(arg) for arg in first)
        if qualname in _SHAPED:
            if qualname == "tensorflow.reshape":
                shape = passed_argument(expr, 1, "shape")
                return _empty_shape(shape) and not _one(shape) or (
                    bool(tensors) and scalar(tensors[0]))
            # `tf.where(c, a, b)`: of its arguments' shape; the others, of the first's
            return all(scalar(arg) for arg in tensors) if qualname == "tensorflow.where" \
                else bool(tensors) and scalar(tensors[0])
        if qualname in _NEVER_SCALAR:
            return False
        returns = module.returned_by_call(expr)
        if returns is not None:  # a helper of the module: `mse(pred, target)`
            function = module.called_function(expr, scope)
            own = module.names.scope_for_def[id(function)]
            return any(scalar(value, own, frozenset()) for value in returns)
        # Another TensorFlow function, whose result's shape is not known here, may be a
        # scalar (`tf.tensordot(a, b, 1)`, `tf.squeeze`); a call of anything else (a layer
        # object, a function cglint does not follow) is taken as keeping its input's shape.
        return bool(qualname) and qualname.startswith(("tensorflow.", "keras."))


def _keeps_upstream_shape(module, expr, upstream, depth=0, followed=None):
    """Elementwise arithmetic that reaches an upstream-gradient parameter, no reduction
    (`dy * (x - y)`, `tf.zeros_like(dy)`), also through a local name assigned it once
    (`dalpha = dy * x; return dy, dalpha`). `followed`: each local name's answer, so a
    name read many times is followed once."""
    if depth > _MAX_LOCAL_NAMES:
        return False
    if followed is None:
        followed = {}
    if isinstance(expr, ast.Name):
        if expr.id in upstream:
            return True
        value = _assigned_once(module, expr)
        if value is None:
            return False
        # (by depth too: a value cut off by the depth bound may hold nearer up; at most
        # _MAX_LOCAL_NAMES answers per value)
        key = (id(value), depth)
        if key not in followed:
            followed[key] = False  # while it is worked out
            followed[key] = _keeps_upstream_shape(module, value, upstream, depth + 1,
                                                  followed)
        return followed[key]
    if isinstance(expr, ast.BinOp):
        return (_keeps_upstream_shape(module, expr.left, upstream, depth, followed)
                or _keeps_upstream_shape(module, expr.right, upstream, depth, followed))
    if isinstance(expr, ast.UnaryOp):
        return _keeps_upstream_shape(module, expr.operand, upstream, depth, followed)
    if isinstance(expr, ast.Call) and not expr.keywords and \
            module.resolve(expr.func) in _ELEMENTWISE:
        return any(_keeps_upstream_shape(module, arg, upstream, depth, followed)
                   for arg in expr.args)
    return False


def _keeps_upstream_rank(module, expr, upstream, depth=0):
    """Whether `expr` is a reduction with `keepdims=True` (`keep_dims=True`) of what keeps
    the upstream gradient's shape (`tf.reduce_sum(dy * x, keepdims=True)`: every axis is
    kept, of size one, so its rank is the upstream gradient's), also scaled (arithmetic
    never lowers a rank) or through a local name assigned it once."""
    return _kept_dims_keyword(module, expr, upstream, depth) is not None


def _kept_dims_keyword(module, expr, upstream, depth=0):
    """The keyword (`keepdims` or `keep_dims`) of such a reduction, or None."""
    if depth > _MAX_LOCAL_NAMES:
        return None
    if isinstance(expr, ast.Name):
        value = _assigned_once(module, expr)
        return None if value is None else _kept_dims_keyword(module, value, upstream, depth + 1)
    if isinstance(expr, ast.BinOp):
        return _kept_dims_keyword(module, expr.left, upstream, depth + 1) or \
            _kept_dims_keyword(module, expr.right, upstream, depth + 1)
    if isinstance(expr, ast.UnaryOp):
        return _kept_dims_keyword(module, expr.operand, upstream, depth + 1)
    if not (isinstance(expr, ast.Call) and expr.args
            and not isinstance(expr.args[0], ast.Starred)
            and module.resolve(expr.func) in _REDUCING
            and _keeps_upstream_shape(module, expr.args[0], upstream)):
        return None
    return next((keyword.arg for keyword in expr.keywords
                 if keyword.arg in ("keepdims", "keep_dims")
                 and isinstance(keyword.value, ast.Constant) and keyword.value.value is True),
                None)


_MAX_LOCAL_NAMES = 4  # local names followed to their value, one after another


def _assigned_once(module, name):
    """The value a name of a function's own scope is assigned, when that is its one
    binding there (`dalpha = dy * x`); else None."""
    scope = module.names.scope_of(name)
    if scope.kind != "function":
        return None
    bindings = scope.bindings.get(name.id, ())
    if len(bindings) != 1 or bindings[0].kind != "assign" or name.id in scope.globals:
        return None
    return bindings[0].node


RULE = UnreducedScalarGradient
