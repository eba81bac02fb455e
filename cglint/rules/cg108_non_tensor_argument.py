import ast

from cglint import tfapi
from cglint.facts import (CUSTOM_GRADIENT, DTYPE_NAMES, TF_ONLY_DTYPE_NAMES,
                          gradient_counts)
from cglint.names import within
from cglint.rules.base import Rule
from cglint.site_variables import leaves_to_default
from cglint.wording import TRACED, tf_name

# Argument kinds that fail in both modes, and those that only graph mode converts.
_ALWAYS = ("None", "callable", "dict", "dtype", "object")


class NonTensorArgument(Rule):
    """A custom-gradient function gets a positional argument that is not a tensor.

    What: `None`, a string, a bool, an int (also a list of ints, `len(parts)`, or
    `tf.constant(3)`, an int32 tensor already), a dict, a function, a float the function tests
    (also `np.float32(0.5)`) in an `if` or hands to Python's `float()`, `int()`, `range()`, `max()`, `min()`,
    `round()`, a `math` function (`math.sqrt`) or a NumPy function that needs a number
    (`np.exp`, `np.float32`; not `np.abs` or `np.square`, which work on a tensor), an
    argument whose value is a module constant (`MODE = "fast"`, in the module or imported
    from a project module: `from config import MODE`) or the default of a
    parameter of the calling function that a call of the module leaves out (`def
    attend(x, mask=None): return masked_softmax(x, mask)` with `attend(x)`), or a Python list of
    tensors
    passed positionally to a `@tf.custom_gradient` function (directly, or as a local name
    assigned it once: `is_training = mode == ModeKeys.TRAIN`; also bound by
    `functools.partial(f, "hard")`), a Keras or tf.layers layer object, a model or a
    `tf.SparseTensor` (`apply(x, tf.keras.layers.Dense(3))`), a list of numbers the
    function iterates, unpacks or takes the `len()` of (`lo, hi = bounds`; indexing it,
    `bounds[0]`, works), or the decorator put on a method (whose `self` is
    then an argument), or above `@staticmethod`/`@classmethod` (it then wraps the
    descriptor, which TF 1.8 cannot call: TypeError).

    Why it breaks on TF 1.8: graph mode calls `convert_to_tensor` on every positional
    argument. `None` raises `ValueError: None values not supported`; a function, a dict, a
    dtype (`tf.float32`) or `self` raise `TypeError: Failed to convert object of type ...`; an int becomes an int32
    tensor that cannot mix with float tensors; `if flag:` on a bool tensor raises TypeError;
    a string becomes a `tf.string` tensor and `opt == "fast"` is silently False (wrong
    branch); a list of tensors is stacked into one tensor, so the function sees one input.
    A float is a float tensor, which is fine, unless the function tests it in Python
    (`if scale > 1.0:`, facts f6): that raises TypeError too. Eager mode passes the raw
    values, so the same code works there, which hides the bug; except inside what TF
    traces into a graph even under eager execution (a `tfe.defun` function, a dataset's
    `.map` function), where the graph-mode failures return, and which is reported.

    Not reported where the function visibly takes the tensor it gets: an int used only
    where TF takes an int tensor, as an index, slice bound, shape, count or axis (`x[:k]`,
    `dy[k]`, `tf.gather(x, k)`, `tf.nn.top_k(x, k)`, `tf.one_hot(k, 3)`,
    `tf.reduce_sum(x, axis=k)`, `tf.tile(x, [n])`, `tf.reshape(dy, [n, -1])`,
    `tf.cast(n, ...)`), also through int arithmetic (`k - 1`, `tf.shape(x)[0] - k`), or
    compared with an int as a tensor predicate (`tf.cond(step > 100, ...)`,
    `tf.where(tf.greater(step, 1), ...)`), never in arithmetic with a float tensor (`x *
    n`); a bool used only
    as a tensor predicate (`tf.cond(training, ...)`, `tf.where(flag, ...)`,
    `tf.logical_not(flag)`), never in a Python `if`, `while`, `and`, `or`, `not` or
    conditional expression; a string used only where TF takes a string tensor
    (`tf.equal(mode, "train")`, not `name=` or `padding=`) and not tested by Python, or
    not at all; or a list it never iterates or unpacks, whose gradient functions give one
    gradient per argument (the stacked list's one: `tf.stack([ga, gb])`).

    Fix: pass only tensors positionally; bind configuration (strings, flags, functions) in
    a closure, or make a decorated function per configuration. For methods, decorate a
    nested function inside the method.
    """

    code = "CG108"
    name = "non-tensor-argument"
    judges_project_calls = True  # imported_calls

    def check(self, module):
        # Answers about a function's parameter (how its body uses it) are worked out once
        # per function and argument position, not once per call: a module may call or
        # `partial` one big function hundreds of times.
        memo = {}
        for site in module.sites:
            below = _method_decorator_below(module, site)
            if below is not None:
                decorator, kind = below
                fix = ("put `@staticmethod` above `@tf.custom_gradient`" if kind == "staticmethod"
                       else "decorate a function nested in the method instead (above it, "
                       "`cls` would be converted to a tensor)")
                yield self.at(decorator, "`@tf.custom_gradient` is applied to a `%s` object "
                              "(decorators apply from the bottom up): TF 1.8 calls it and "
                              "raises TypeError; %s" % (kind, fix), function=site.func)
                continue
            if site.is_method and site.params.names:
                yield self.at(site.func, "custom-gradient function `%s` is a method: TF 1.8 "
                              "converts `%s` to a tensor and fails; decorate a function "
                              "nested in the method instead" % (site.name,
                                                                site.params.names[0]), function=site.func)
            for call in site.calls:
                yield from self._check_call(module, call, site.name, site.func, site, memo=memo)
            for partial in site.partials:
                # `functools.partial(quantize, "hard")`: what it binds positionally comes
                # first at every call (a list is left alone: the count is the call's)
                bound = ast.copy_location(ast.Call(func=partial.func, args=[
                    arg for arg in partial.args[1:]], keywords=[]), partial)
                yield from self._check_call(module, bound, site.name, site.func, site,
                                            skip=("list",), memo=memo)
        for call, site in module.imported_calls:
            yield from self._check_call(module, call, site.name, None)

    def _check_call(self, module, call, name, function, site=None, skip=(), memo=None):
        memo = {} if memo is None else memo

        def once(question, *arguments):
            key = (question, id(site.func), index) + arguments
            if key not in memo:
                memo[key] = question(module, site, index, *arguments)
            return memo[key]

        for index, arg in enumerate(call.args):
            kind = self._kind(module, arg)
            if kind in skip or (site is None and kind == "floats") or (
                    site is None and kind in _HANDLED_ELSEWHERE
                                and not isinstance(arg, (ast.Constant, ast.List, ast.Tuple))):
                # (another module's function may handle what a name holds: its body is
                # not seen here, and the literal is what the call shows)
                continue
            # (a list's answer depends on how many arguments the call stacks)
            if kind in _HANDLED and site is not None and once(_handled, kind, len(call.args)):
                continue
            builtin = once(_python_needs) if kind in ("int", "float") and \
                site is not None else None
            if kind == "float" and builtin is None and (
                    site is None or not once(_tested)):
                continue  # a float is a float tensor: fine, unless Python tests it
            # (eager execution passes raw values, but not into what TF traces: a
            # `tfe.defun`, a dataset's `.map` function)
            if kind and (kind in _ALWAYS or not module.eager or
                         module.runs_in_graph(call)):
                what, why = _DESCRIPTIONS[kind]
                behind, left = _constant_behind(module, arg) if isinstance(
                    arg, ast.Name) else (None, None)
                if left is not None:
                    what += " (`%s`, left to its default by the call on line %d)" % (
                        arg.id, left.lineno)
                elif behind is not None:
                    what += " (constant `%s`)" % arg.id
                if kind == "int":
                    what = _int_what(module, arg, what)
                elif kind == "object":
                    what = _object_what(module, arg, what)
                elif isinstance(arg, ast.Tuple):  # stacked the same way as a list
                    what = "a Python tuple"
                if builtin is not None:
                    why = "graph mode makes it a tensor, which %s cannot take (%s); bind " \
                        "it in a closure" % (
                            "NumPy's `np.%s()`" % builtin[6:] if builtin.startswith("numpy.")
                            else "Python's `%s()`" % builtin,
                            "it raises" if builtin.startswith("numpy.") else "TypeError")
                if module.eager and kind not in _ALWAYS:  # reported where TF traces it
                    why += TRACED
                yield self.at(arg, "`%s` gets %s as a positional argument: %s" % (
                    name, what, why), function=function)

    @staticmethod
    def _kind(module, arg):
        if isinstance(arg, ast.Constant):
            value = arg.value
            if value is None:
                return "None"
            if isinstance(value, bool):
                return "bool"
            if isinstance(value, int):
                return "int"
            if isinstance(value, (str, bytes)):
                return "str"
            if isinstance(value, float):
                return "float"
            return None
        if isinstance(arg, (ast.Dict, ast.DictComp)):
            return "dict"
        if isinstance(arg, (ast.List, ast.Tuple)) and arg.elts and not all(
                isinstance(element, ast.Constant) and type(element.value) in (int, float)
                for element in arg.elts):
            return "list"  # a list of numbers is one vector, as its author means it
        if _int_values(arg):
            return "int"  # `[1, 2]`: one int32 vector
        if isinstance(arg, (ast.List, ast.Tuple)) and arg.elts:
            return "floats"  # `[0.0, 0.5]`: one float vector, which Python cannot unpack
        if isinstance(arg, ast.Call) and module.resolve(arg.func) in _NUMPY_FLOATS and \
                len(arg.args) == 1 and isinstance(arg.args[0], ast.Constant):
            return "float"  # `np.float32(0.5)`: a float tensor, like the literal
        if isinstance(arg, ast.Call) and _int_call(module, arg):
            return "int"  # `len(parts)`, `tf.constant(3)`
        if isinstance(arg, ast.Call) and _unconvertible(module.resolve(arg.func)):
            return "object"  # `tf.keras.layers.Dense(3)`, `tf.SparseTensor(...)`
        if isinstance(arg, ast.Lambda):
            return "callable"
        if isinstance(arg, (ast.Name, ast.Attribute)):
            binding = module.names.definitions(arg, module.names.scope_of(arg))
            if binding is not None and binding.kind == "def":
                return "callable"
            qualname = module.resolve(arg)
            if qualname in _STRING_CONSTANTS:
                return "str"  # `tf.estimator.ModeKeys.TRAIN` is the string "train"
            if isinstance(arg, ast.Name):
                # a local name assigned once: `is_training = mode == ModeKeys.TRAIN`
                value = module.single_value(arg, module.names.scope_of(arg))
                if value is None:  # `MODE = "fast"`, or a default left: `mask=None`
                    value = _constant_behind(module, arg)[0]
                    if value is not None and module.resolve(value) in _DTYPES:
                        return "dtype"  # `def to(x, dtype=tf.float16)`
                if isinstance(value, ast.Constant) or _number_values(value) or (
                        isinstance(value, ast.Call) and _int_call(module, value)):
                    return NonTensorArgument._kind(module, value)
                if _python_bool(module, value):
                    return "bool"
                bindings = module.names.lookup(arg.id, module.names.scope_of(arg))
                made = bindings[0].node if len(bindings) == 1 and \
                    bindings[0].kind == "assign" else None
                if isinstance(made, ast.Call) and _unconvertible(
                        module.names.resolve(made.func, bindings[0].scope)):
                    return "object"  # `dense = tf.keras.layers.Dense(3)`
            if qualname in _DTYPES:
                return "dtype"  # `tf.float32`: a DType object, not a function
            if qualname and qualname.startswith("tensorflow.") and qualname.split(".")[-1][:1].islower():
                return "callable"
        return None


def _constant_behind(module, name):
    """(value, call) for a name whose value the module shows though it is not a local
    assigned once (see ModuleFacts.single_value): a module constant assigned a literal
    once and declared `global` by no function (`MODE = "fast"`; call None), or a
    parameter of the enclosing function that no statement rebinds, whose default is a
    literal or a dtype (`def attend(x, mask=None)`), with the first call of that function
    in the module that leaves it to that default. (None, None) otherwise."""
    bindings = module.names.lookup(name.id, module.names.scope_of(name))
    if len(bindings) != 1:
        return None, None
    binding = bindings[0]
    if binding.kind == "import" and isinstance(binding.node, ast.ImportFrom):
        return _imported_constant(module, binding), None
    if binding.kind == "assign" and binding.scope.kind == "module":
        if isinstance(binding.node, ast.Constant) and not any(
                name.id in scope.globals for scope in module.names.scope_for_def.values()):
            return binding.node, None
        return None, None
    function = binding.scope.node
    if binding.kind != "param" or not isinstance(function, (ast.FunctionDef, ast.Lambda)):
        return None, None
    positional = list(function.args.posonlyargs) + list(function.args.args)
    if binding.node not in positional:
        return None, None
    index = positional.index(binding.node)
    first = len(positional) - len(function.args.defaults)
    if index < first:
        return None, None
    default = function.args.defaults[index - first]
    if not (isinstance(default, ast.Constant) or module.resolve(default) in _DTYPES):
        return None, None
    if not isinstance(function, ast.FunctionDef) or _tested_or_branched(module, name, function):
        return None, None
    for call in module.nodes[ast.Call]:
        if not isinstance(call.func, ast.Name) or call.func.id != function.name:
            continue
        called = module.names.definitions(call.func, module.names.scope_of(call))
        if called is not None and called.node is function and leaves_to_default(
                call, index, binding.node):
            return default, call
    return None, None


def _imported_constant(module, binding):
    """The literal a project module binds once at its top level to the name `from config
    import MODE` imports (read from disk, never imported), or None."""
    imported, _, name = binding.qualname.rpartition(".")
    if not imported or (imported + ".").startswith("tensorflow.") or module.path == "-":
        return None
    from cglint import project  # only names passed to custom gradients need it

    found = project.current().top_level_value(module.path, imported, name)
    if found is None or not isinstance(found[1], ast.Constant):
        return None
    facts, value, dependency = found
    if any(name in scope.globals for scope in facts.names.scope_for_def.values()):
        return None  # a function there may change it
    module.dependencies.add(dependency)
    return value


def _tested_or_branched(module, name, function):
    """Whether the function tests the parameter `name` (`if mask is None: return x`), or
    passes it on only in a branch: the default may then never reach the call."""
    for node in ast.walk(function):
        test = getattr(node, "test", None) if isinstance(
            node, (ast.If, ast.IfExp, ast.While, ast.Assert)) else None
        if test is not None and any(isinstance(inner, ast.Name) and inner.id == name.id
                                    for inner in ast.walk(test)):
            return True
    for node in module.ancestors(name):
        if node is function:
            return False
        if isinstance(node, (ast.If, ast.IfExp, ast.Try, ast.While, ast.BoolOp)):
            return True
    return False


# NumPy's float scalar types: `np.float32(0.5)` is converted like the literal.
_NUMPY_FLOATS = frozenset(("numpy.float32", "numpy.float64", "numpy.float16"))
# TensorFlow classes whose objects TF 1.8 cannot convert to a tensor (TypeError in graph
# mode, ValueError under eager execution; a layer or model checked under TF 1.8).
_UNCONVERTIBLE = frozenset("tensorflow.%s" % name for name in (
    "SparseTensor", "TensorArray", "keras.Sequential", "keras.Model",
    "keras.models.Sequential", "keras.models.Model"))
_LAYER_CLASS_MODULES = ("tensorflow.keras.layers.", "tensorflow.layers.", "keras.layers.",
                        "tensorflow.contrib.keras.layers.")


def _object_what(module, arg, what):
    """`a `tf.keras.layers.Dense` object`: the class the call (or the name's one
    assignment) makes."""
    made, scope = arg, module.names.scope_of(arg)
    if isinstance(arg, ast.Name):
        bindings = module.names.lookup(arg.id, scope)
        made, scope = bindings[0].node, bindings[0].scope
    qualname = module.names.resolve(made.func, scope)
    return "a `%s` object" % tf_name(qualname) if qualname else what


def _unconvertible(qualname):
    """Whether a call of `qualname` makes an object TF 1.8 cannot convert: a Keras or
    tf.layers layer (a class: `Dense`, not the function `dense`), a model, a SparseTensor."""
    if not qualname:
        return False
    return qualname in _UNCONVERTIBLE or (qualname.startswith(_LAYER_CLASS_MODULES) and
                                          qualname.rsplit(".", 1)[1][:1].isupper())


def _number_values(node):
    """`[0.0, 0.5]`, `(1, 2)`: a display of numbers only (one tensor in graph mode)."""
    return isinstance(node, (ast.List, ast.Tuple)) and bool(node.elts) and all(
        isinstance(element, ast.Constant) and type(element.value) in (int, float)
        for element in node.elts)


def _int_values(node):
    """`[1, 2]`, `(3, 4)`: a display of ints only, which graph mode makes an int32
    tensor (a float among them makes it a float32 one)."""
    return isinstance(node, (ast.List, ast.Tuple)) and bool(node.elts) and all(
        isinstance(element, ast.Constant) and type(element.value) is int
        for element in node.elts)


def _int_call(module, call):
    """`len(parts)`, and `tf.constant(3)` or `tf.constant([1, 2])` without a dtype: an int,
    or already an int32 tensor."""
    if isinstance(call.func, ast.Name) and call.func.id == "len" and \
            module.names.is_builtin(call.func):
        return True
    if module.resolve(call.func) not in ("tensorflow.constant", "tensorflow.convert_to_tensor"):
        return False
    if len(call.args) != 1 or call.keywords:
        return False  # a dtype (or anything else) may make it a float tensor
    value = call.args[0]
    return _int_values(value) or (isinstance(value, ast.Constant) and type(value.value) is int)


def _int_what(module, arg, what):
    """How an int argument is named in the message: by what the call shows."""
    value = arg
    if isinstance(arg, ast.Name):
        value = module.single_value(arg, module.names.scope_of(arg))
    if _int_values(value):
        return "a Python list of ints"
    if isinstance(value, ast.Call):
        return "an int (`len()`)" if isinstance(value.func, ast.Name) and \
            value.func.id == "len" else "an int32 tensor"
    return what


# Comparisons that give a Python bool even of tensors (`==` compares the objects in
# TF 1.8; `<` would build a bool tensor).
_OBJECT_COMPARISONS = (ast.Eq, ast.NotEq, ast.Is, ast.IsNot, ast.In, ast.NotIn)


def _python_bool(module, value):
    """`mode == "train"`, `mode == ModeKeys.TRAIN`, `x is None`, `k in modes`, `not
    flag`: a Python bool. (`labels == 1` may be a NumPy array's comparison: an array.)"""
    if isinstance(value, ast.Compare):
        return all(isinstance(op, _OBJECT_COMPARISONS) for op in value.ops) and (
            not any(isinstance(op, (ast.Eq, ast.NotEq)) for op in value.ops) or any(
                _plain_constant(module, side) for side in [value.left] + value.comparators))
    return isinstance(value, ast.UnaryOp) and isinstance(value.op, ast.Not)


def _plain_constant(module, node):
    """A string, None or a bool, or TF's string constants (`ModeKeys.TRAIN`)."""
    if isinstance(node, ast.Constant):
        return node.value is None or isinstance(node.value, (str, bytes, bool))
    return isinstance(node, ast.Attribute) and module.resolve(node) in _STRING_CONSTANTS


def _method_decorator_below(module, site):
    """(the custom_gradient decorator, "staticmethod" or "classmethod") when one of those
    sits below it, so that custom_gradient wraps the descriptor, not the function."""
    decorators = getattr(site.func, "decorator_list", [])
    for index, decorator in enumerate(decorators):
        target = decorator.func if isinstance(decorator, ast.Call) else decorator
        if module.resolve(target) in CUSTOM_GRADIENT:
            for lower in decorators[index + 1:]:
                if isinstance(lower, ast.Name) and lower.id in ("staticmethod", "classmethod") \
                        and module.names.is_builtin(lower):
                    return decorator, lower.id
    return None


# TensorFlow's string constants (`tf.estimator.ModeKeys.TRAIN == "train"`).
_STRING_CONSTANTS = frozenset("tensorflow.%s.%s" % (owner, key)
                              for owner in ("estimator.ModeKeys", "contrib.learn.ModeKeys")
                              for key in ("TRAIN", "EVAL", "PREDICT", "INFER"))
# TF functions that take a Python list of tensors: a stacked tensor in its place fails.
_TAKE_LISTS = frozenset("tensorflow.%s" % name for name in (
    "add_n", "accumulate_n", "concat", "stack", "parallel_stack", "tuple", "group",
    "identity_n", "meshgrid", "dynamic_stitch", "math.add_n"))
# Kinds the function may well handle as the tensor it gets: a list stacked into one input
# (with one gradient for it: facts g2), an int used only where TF takes an int tensor (an
# index, a shape, a count, an axis, a cast), a bool used only as a tensor predicate.
_HANDLED = ("list", "int", "bool", "str", "floats")
# What a name may hold that another module's function, whose body is not seen, may handle
# (a string is judged by the call, as before the body's use of it was followed).
_HANDLED_ELSEWHERE = ("list", "int", "bool")
_CASTS = ("cast", "to_float", "to_double", "to_int32", "to_int64")
# The parameters of TensorFlow functions that take an int32 tensor as it is (an input of
# the op, not an attribute that must be a Python int), checked under TF 1.8.
_INT_TENSOR_PARAMETERS = {"tensorflow." + name: frozenset(params.split()) for name, params in (
    [(cast, "x") for cast in _CASTS] + [
        ("range", "start limit delta"), ("ones", "shape"), ("zeros", "shape"),
        ("fill", "dims"), ("gather", "indices axis"), ("nn.embedding_lookup", "ids"),
        ("nn.top_k", "k"), ("nn.in_top_k", "k"), ("one_hot", "indices depth"),
        ("sequence_mask", "lengths maxlen"), ("concat", "axis"), ("split", "axis"),
        ("expand_dims", "axis dim"), ("cumsum", "axis"), ("cumprod", "axis"),
        ("argmax", "axis dimension"), ("argmin", "axis dimension"),
        ("nn.l2_normalize", "axis dim"), ("matrix_band_part", "num_lower num_upper"),
        ("linspace", "num"), ("manip.roll", "shift axis"), ("reshape", "shape"),
        ("tile", "multiples"), ("transpose", "perm"), ("slice", "begin size"),
        ("pad", "paddings"), ("random_normal", "shape"), ("random_uniform", "shape")] + [
        ("reduce_" + op, "axis reduction_indices")
        for op in ("sum", "mean", "max", "min", "prod", "any", "all", "logsumexp")] + [
        ("unsorted_segment_" + op, "segment_ids num_segments")
        for op in ("sum", "max", "min", "prod")])}
# The parameters of TensorFlow functions that take a string tensor (checked under TF 1.8;
# `padding=`, `name=`, `data_format=` want a Python string).
_STRING_TENSOR_PARAMETERS = {"tensorflow." + name: frozenset(params.split()) for name, params in (
    ("equal", "x y"), ("not_equal", "x y"), ("identity", "input"),
    ("string_join", "inputs"), ("substr", "input"), ("string_split", "source"),
    ("string_to_number", "string_tensor"), ("string_to_hash_bucket_fast", "input"),
    ("read_file", "filename"), ("decode_raw", "bytes"))}
# The parameters of TensorFlow functions that take a bool tensor as a predicate.
_BOOL_TENSOR_PARAMETERS = {"tensorflow." + name: frozenset(params.split()) for name, params in (
    [(cast, "x") for cast in _CASTS] + [
        ("cond", "pred"), ("where", "condition"), ("logical_and", "x y"),
        ("logical_or", "x y"), ("logical_xor", "x y"), ("logical_not", "x"),
        # layers that switch on a training flag with a tf.cond (a bool tensor works)
        ("layers.dropout", "training"), ("layers.batch_normalization", "training"),
        ("contrib.layers.dropout", "is_training"),
        ("contrib.layers.batch_norm", "is_training")])}
# TensorFlow functions that return a Python list or tuple (which a tensor cannot index).
_RETURN_LISTS = frozenset("tensorflow." + name for name in (
    "unstack", "split", "gradients", "hessians", "meshgrid", "dynamic_partition",
    "identity_n", "tuple", "shape_n", "unique", "unique_with_counts", "setdiff1d",
    "nn.top_k", "nn.moments", "nn.weighted_moments", "nn.sufficient_statistics",
    "nn.fused_batch_norm", "nn.dynamic_rnn", "nn.bidirectional_dynamic_rnn",
    "cond", "case", "while_loop", "map_fn", "scan", "py_func", "svd", "qr",
    "self_adjoint_eig", "get_collection", "trainable_variables", "global_variables"))
# TensorFlow functions whose result is an int32 tensor (checked under TF 1.8): a shape,
# a size, a rank, and its elements.
_INT_RESULTS = frozenset("tensorflow." + name for name in ("shape", "size", "rank"))
# Arithmetic that keeps an int32 tensor an int32 tensor when the other operand is an int
# (`k - 1`, `2 * k`; not `/`, which makes a float64 tensor on Python 3).
_INT_OPERATORS = (ast.Add, ast.Sub, ast.Mult, ast.FloorDiv, ast.Mod)


def _handled(module, site, index, kind, arguments):
    """Whether the function visibly takes the converted value as the tensor it is: every
    use of its parameter is one a tensor allows, and, for a list, every gradient function
    gives one gradient per argument (the stacked list's is one)."""
    name = _parameter(site, index)
    if name is None:
        return False  # into *args: not followed
    uses = list(_uses(module, site, name))
    if kind == "floats":  # taken as the vector it becomes, unless Python iterates it
        return not any(_iterated(module, node, parent) for node, parent, _ in uses)
    if kind in ("int", "bool", "str"):
        parents = _parent_map(site.func)
        if kind == "str":
            # A string tensor handed where TF takes one (`tf.equal(mode, "train")`, not
            # `padding=` or `name=`, which want a Python string), whose result Python does
            # not test, is what the function means, and an unused one harms nothing.
            return all(_argument_of(module, node, parents, _STRING_TENSOR_PARAMETERS)
                       and not _truth_of_call_taken(node, parents) for node, _, _ in uses)
        if kind == "int":
            return all(_int_tensor_use(module, site, node, parents) for node, _, _ in uses)
        # An unused flag is still reported: nothing shows the function means a tensor.
        return bool(uses) and all(_argument_of(module, node, parents, _BOOL_TENSOR_PARAMETERS)
                                  for node, _, _ in uses)
    if any(_sequence_use(module, node, parent) for node, parent, _ in uses):
        return False
    counts, complete = gradient_counts(module, site)
    return complete and counts == {arguments}


def _truth_of_call_taken(node, parents):
    """Whether Python tests the result of the call `node` is an argument of (`if
    tf.equal(mode, "train"):`): on a tensor that raises TypeError."""
    call = parents.get(id(node))
    if isinstance(call, ast.keyword):
        call = parents.get(id(call))
    return _truth_asked(parents.get(id(call)))


def _tested(module, site, index):
    """Whether the parameter at `index` is read in a test Python runs (`if scale > 1.0:`,
    `while`, `x if flag else y`, `assert`): on a tensor that raises TypeError."""
    name = _parameter(site, index)
    if name is None:
        return False
    tests = [node.test for node in ast.walk(site.func)
             if isinstance(node, (ast.If, ast.While, ast.IfExp, ast.Assert))]
    tested = {id(node) for test in tests for node in ast.walk(test)}
    return any(id(node) in tested and _truth_taken(node, parent)
               for node, parent, _ in _uses(module, site, name))


# Builtins that need a Python number, not a tensor (TypeError in graph mode, measured
# under TF 1.8: `max` and `min` ask the comparison's truth), and the standard `math`
# module, whose every function wants a float.
_NUMBER_BUILTINS = ("range", "xrange", "float", "int", "max", "min", "round")


def _python_needs(module, site, index):
    """The builtin or `math` function (`range`, `float`, `math.sqrt`) that a use of the
    parameter at `index` reaches, through arithmetic (`float(2 ** k - 1)`), where it needs
    a Python number; or None."""
    name = _parameter(site, index)
    if name is None:
        return None
    for node, _, _ in _uses(module, site, name):
        expr = node  # (parents climbed through the module's own kept paths)
        while isinstance(module.parent_of(expr), (ast.BinOp, ast.UnaryOp)):
            expr = module.parent_of(expr)
        call = module.parent_of(expr)
        if not isinstance(call, ast.Call) or expr not in call.args:
            continue
        if isinstance(call.func, ast.Name) and call.func.id in _NUMBER_BUILTINS and \
                module.names.is_builtin(call.func):
            return call.func.id
        qualname = module.resolve(call.func)  # `math.sqrt`, or `sqrt` imported from math
        if qualname and qualname.startswith("math.") and qualname.count(".") == 1:
            return qualname
        if qualname in _NUMPY_NEEDS_NUMBER:
            return qualname
    return None


# NumPy functions that fail on a graph-mode tensor (measured under TF 1.8 on 2.7 and 3.6:
# a TypeError, or an AttributeError on 2.7; a ValueError for the scalar types). Not `np.abs`, `np.square`,
# `np.power` or `np.sum`, which end in the tensor's own operators and work.
_NUMPY_NEEDS_NUMBER = frozenset("numpy." + name for name in (
    "exp", "log", "sqrt", "sin", "cos", "tan", "tanh", "sinh", "cosh", "arctan", "arcsin",
    "arccos", "log1p", "expm1", "log2", "log10", "exp2", "floor", "ceil", "rint", "round",
    "isfinite", "isnan", "sign", "maximum", "minimum", "clip", "float32", "float64",
    "float16", "int32", "int64", "mean"))


def _parameter(site, index):
    """The parameter the call's positional argument `index` fills (a method's `self`
    aside), or None when it goes into `*args`."""
    skip = 1 if site.is_method and site.params.names else 0
    if index + skip >= len(site.params.names):
        return None
    return site.params.names[index + skip]


def _truth_taken(node, parent):
    """Whether the test asks the tensor's truth: it is the test, an operand of `and`,
    `or`, `not`, or of a comparison (`scale > 1.0`); `scale is None`, `isinstance(scale,
    float)` and `scale.dtype == tf.float32` ask nothing of it."""
    if _truth_asked(parent):
        return True
    if isinstance(parent, ast.Compare):
        return not all(isinstance(op, (ast.Is, ast.IsNot)) for op in parent.ops)
    return False


def _truth_asked(parent):
    """Whether `parent` asks its operand's truth itself: a test, `and`, `or`, `not`."""
    return isinstance(parent, (ast.If, ast.While, ast.IfExp, ast.Assert, ast.BoolOp)) or (
        isinstance(parent, ast.UnaryOp) and isinstance(parent.op, ast.Not))


def _uses(module, site, name):
    """(Name, parent, grandparent) of each read of the site's parameter `name` in its body
    and in the functions nested in it that do not bind the name again."""
    stack = [(child, site.func, None) for child in site.func.body]
    while stack:
        node, parent, grandparent = stack.pop()
        if isinstance(node, ast.Name) and node.id == name and isinstance(node.ctx, ast.Load):
            bindings = module.names.lookup(name, module.names.scope_of(node))
            if bindings and all(binding.kind == "param" and binding.scope is site.scope
                                for binding in bindings):
                yield node, parent, grandparent
            continue
        stack.extend((child, node, parent) for child in ast.iter_child_nodes(node))


def _parent_map(func):
    """{id(node): parent} over the function's tree."""
    parents = {}
    for node in ast.walk(func):
        for child in ast.iter_child_nodes(node):
            parents[id(child)] = node
    return parents


def _int_tensor_use(module, site, node, parents):
    """Where TF takes an int32 tensor: a subscript of a tensor (`x[k]`, `x[:k]`,
    `dy[k:]`), an element of a list handed to a TF function (`tf.tile(x, [n])`,
    `tf.reshape(dy, [n, -1])`), or an index, count or axis parameter of a TF function
    (`tf.gather(x, k)`, `tf.nn.top_k(x, k)`, `tf.one_hot(k, 3)`, `tf.cast(n, ...)`); also
    through int arithmetic on the way there (`x[:k - 1]`, `tf.range(2 * k)`)."""
    expr = _int_arithmetic(module, node, parents)
    value = _subscripted_by(expr, parents)
    if value is not None:
        return _tensor_value(module, site, value)
    outer = expr
    while isinstance(parents.get(id(outer)), (ast.List, ast.Tuple)):
        outer = parents[id(outer)]
    call = parents.get(id(outer))
    if outer is not expr and isinstance(call, ast.Call) and (
            outer in call.args or any(keyword.value is outer for keyword in call.keywords)):
        return _tensorflow_call(module, call)
    compared = _compared_with_int(module, expr, parents)
    if compared is not None:
        # `step > 100`, `tf.equal(k, 3)`: a bool tensor, fine where TF takes a predicate
        # (`tf.cond(step > 100, ...)`); `tf.minimum(k, 2)`: an int32 tensor again
        if isinstance(compared, ast.Call) and _called(module, compared) in _INT_KEEPING:
            return _int_tensor_use(module, site, compared, parents)
        return _argument_of(module, compared, parents, _BOOL_TENSOR_PARAMETERS)
    return _argument_of(module, expr, parents, _INT_TENSOR_PARAMETERS)


# TensorFlow functions of two int32 tensors: a comparison (a bool tensor), and those
# whose result is an int32 tensor again.
_INT_COMPARISONS = frozenset("tensorflow." + name for name in (
    "equal", "not_equal", "greater", "greater_equal", "less", "less_equal"))
_INT_KEEPING = frozenset(("tensorflow.minimum", "tensorflow.maximum"))
# Python comparisons an int32 tensor answers with a bool tensor (`==` compares the
# objects in TF 1.8: a Python bool).
_TENSOR_COMPARISONS = (ast.Lt, ast.LtE, ast.Gt, ast.GtE)


def _compared_with_int(module, expr, parents):
    """The comparison (`expr > 100`) or the call (`tf.equal(expr, 3)`, `tf.minimum(expr,
    2)`) that meets `expr` with an int, or None."""
    parent = parents.get(id(expr))
    if isinstance(parent, ast.Compare) and len(parent.ops) == 1 and isinstance(
            parent.ops[0], _TENSOR_COMPARISONS):
        other = parent.comparators[0] if parent.left is expr else parent.left
        return parent if _int_operand(module, other) else None
    if isinstance(parent, ast.Call) and len(parent.args) == 2 and expr in parent.args and \
            _called(module, parent) in _INT_COMPARISONS | _INT_KEEPING:
        other = parent.args[1] if parent.args[0] is expr else parent.args[0]
        return parent if _int_operand(module, other) else None
    return None


def _int_arithmetic(module, node, parents):
    """The outermost expression that int arithmetic builds on `node` (`k - 1`, `-k`,
    `tf.shape(x)[0] - k`)."""
    while True:
        parent = parents.get(id(node))
        if isinstance(parent, ast.UnaryOp) and isinstance(parent.op, (ast.USub, ast.UAdd)):
            node = parent
        elif isinstance(parent, ast.BinOp) and isinstance(parent.op, _INT_OPERATORS) and (
                _int_operand(module, parent.right if parent.left is node else parent.left)):
            node = parent
        else:
            return node


def _int_operand(module, node):
    """An int, or an int32 tensor TF makes: a shape, size or rank (`tf.shape(x)[0]`)."""
    if isinstance(node, ast.Constant):
        return type(node.value) is int
    if isinstance(node, ast.Subscript):
        node = node.value
    # (`out_type=tf.int64` makes an int64 tensor, which an int32 one cannot meet)
    return isinstance(node, ast.Call) and _called(module, node) in _INT_RESULTS and \
        len(node.args) <= 2 and not any(k.arg in ("out_type", None) for k in node.keywords)


def _subscripted_by(expr, parents):
    """The value `expr` indexes or bounds a slice of (`x` of `x[k]`, `x[:k]`, `x[k, 0]`),
    or None."""
    parent = parents.get(id(expr))
    if isinstance(parent, ast.Slice):
        expr, parent = parent, parents.get(id(parent))
    if isinstance(parent, ast.Tuple) and isinstance(parents.get(id(parent)), ast.Subscript):
        expr, parent = parent, parents.get(id(parent))
    if isinstance(parent, ast.Subscript) and parent.slice is expr:
        return parent.value
    return None


def _tensor_value(module, site, value, depth=0):
    """Whether `value` is visibly a tensor: a parameter of the custom-gradient function
    or of a function nested in it (its gradient function's `dy`), a local assigned one, the
    result of a TF function that returns a tensor, a subscript or arithmetic of one. A
    Python list (`TABLE[k]`, `tf.unstack(x)[k]`) cannot be indexed by a tensor."""
    if depth > 4:
        return False
    if isinstance(value, ast.Name):
        bindings = module.names.lookup(value.id, module.names.scope_of(value))
        return bool(bindings) and all(
            within(binding.scope, site.scope) and (
                binding.kind == "param" or binding.kind == "assign" and binding.node is not None
                and _tensor_value(module, site, binding.node, depth + 1))
            for binding in bindings)
    if isinstance(value, ast.Call):
        return _tensorflow_call(module, value) and _called(module, value) not in _RETURN_LISTS
    if isinstance(value, ast.Subscript):
        return _tensor_value(module, site, value.value, depth + 1)
    if isinstance(value, ast.BinOp):
        return any(_tensor_value(module, site, operand, depth + 1)
                   for operand in (value.left, value.right))
    return False


def _argument_of(module, node, parents, table):
    """Whether `node` is passed, positionally or by keyword, for one of the parameters
    `table` lists for the TF function called."""
    parent = parents.get(id(node))
    if isinstance(parent, ast.keyword) and parent.arg is not None:
        call, keyword = parents.get(id(parent)), parent.arg
    elif isinstance(parent, ast.Call) and node in parent.args:
        call, keyword = parent, None
    else:
        return False
    if not isinstance(call, ast.Call):
        return False  # a class's keyword (`metaclass=flag`)
    wanted = table.get(_called(module, call))
    if not wanted:
        return False
    if keyword is not None:
        return keyword in wanted
    position = next(index for index, arg in enumerate(call.args) if arg is node)
    if any(isinstance(arg, ast.Starred) for arg in call.args[:position]):
        return False
    signature = tfapi.signature(_called(module, call))
    names = signature[0] if signature else ()
    return position < len(names) and names[position] in wanted


def _called(module, call):
    """The qualified name of what a call calls, or None."""
    return module.resolve(call.func) if isinstance(call.func, (ast.Name, ast.Attribute)) \
        else None


def _tensorflow_call(module, call):
    qualname = _called(module, call)
    return bool(qualname) and qualname.startswith("tensorflow.")


def _unpacked(node, parent):
    """`for b in bounds`, `lo, hi = bounds`, `*bounds`."""
    if isinstance(parent, (ast.For, ast.comprehension)):
        return parent.iter is node
    if isinstance(parent, ast.Assign):
        return parent.value is node and any(
            isinstance(target, (ast.Tuple, ast.List)) for target in parent.targets)
    return isinstance(parent, ast.Starred)


def _iterated(module, node, parent):
    """`for b in bounds`, `lo, hi = bounds`, `*bounds`, `len(bounds)`: what a graph-mode
    tensor cannot give (`TypeError: Tensor objects are not iterable ...`)."""
    if _unpacked(node, parent):
        return True
    return isinstance(parent, ast.Call) and isinstance(parent.func, ast.Name) and \
        parent.func.id == "len" and node in parent.args and module.names.is_builtin(parent.func)


def _sequence_use(module, node, parent):
    """`for t in factors`, `a, b = factors`, `len(factors)`, `*factors`."""
    if _unpacked(node, parent):
        return True
    # Handed to a call as it is: `len(factors)`, a TF function that takes a list
    # (`tf.add_n(factors)`), or one cglint does not know (it may iterate it); a TF
    # function of a tensor (`tf.zeros_like(factors)`) takes the stacked one as it is.
    if not (isinstance(parent, ast.Call) and (node in parent.args or any(
            keyword.value is node for keyword in parent.keywords))):
        return False
    return not _tensorflow_call(module, parent) or _called(module, parent) in _TAKE_LISTS


_DESCRIPTIONS = {
    "None": ("None", "TF 1.8 raises `ValueError: None values not supported`"),
    "bool": ("a bool", "graph mode makes it a bool tensor, which a Python `if`, `and`, `or` "
                       "or `not` cannot test (TypeError) and float arithmetic cannot take; "
                       "use it only as a tensor predicate (`tf.cond`, `tf.where`) or bind it "
                       "in a closure"),
    "int": ("an int", "graph mode makes it an int32 tensor, which cannot mix with float "
                      "tensors, nor be an op attribute that wants a Python int (`num_split`, "
                      "a `squeeze` axis); pass a float tensor or bind it in a closure"),
    "float": ("a float", "graph mode makes it a tensor, and the function's `if` on it "
                         "raises TypeError; bind it in a closure"),
    "str": ("a string", "graph mode makes it a tf.string tensor, where Python needs the "
                        "string: `==` on it is silently False, and a dict key, `name=` or "
                        "`padding=` fails; bind it in a closure"),
    "dict": ("a dict", "TF 1.8 cannot convert it to a tensor (TypeError)"),
    "floats": ("a Python list of numbers", "graph mode makes it one float tensor, which the "
               "function iterates, unpacks or takes the `len()` of (`TypeError: Tensor objects "
               "are not iterable when eager execution is not enabled`); index it (`bounds[0]`) "
               "or bind it in a closure"),
    "list": ("a Python list", "graph mode stacks it into one tensor, so the function sees one "
                              "input, not one per element"),
    "callable": ("a function", "TF 1.8 cannot convert it to a tensor (TypeError); bind it in "
                               "a closure"),
    "object": ("a layer, model or sparse tensor object", "TF 1.8 cannot convert it to a "
               "tensor (`TypeError: Failed to convert object of type ...`; under eager "
               "execution `ValueError: Attempt to convert a value ...`); bind it in a "
               "closure"),
    "dtype": ("a `tf.DType`", "TF 1.8 cannot convert it to a tensor (`TypeError: Failed to "
                              "convert object of type <class '...DType'> to Tensor`); bind it "
                              "in a closure"),
}
# TF 1.8's dtype objects, as `tf.float32` or `tf.dtypes.float32` spells them.
_DTYPES = frozenset("tensorflow.%s%s" % (module, name) for module in ("", "dtypes.")
                    for name in DTYPE_NAMES | TF_ONLY_DTYPE_NAMES)


RULE = NonTensorArgument
