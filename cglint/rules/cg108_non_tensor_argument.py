import ast

from cglint.facts import gradient_counts
from cglint.rules.base import Rule

# Argument kinds that fail in both modes, and those that only graph mode converts.
_ALWAYS = ("None", "callable", "dict")


class NonTensorArgument(Rule):
    """A custom-gradient function gets a positional argument that is not a tensor.

    What: `None`, a string, a bool, an int, a dict, a function, a float the function tests
    in an `if`, or a Python list of tensors
    passed positionally to a `@tf.custom_gradient` function, or the decorator put on a
    method (whose `self` is then an argument).

    Why it breaks on TF 1.8: graph mode calls `convert_to_tensor` on every positional
    argument. `None` raises `ValueError: None values not supported`; a function, a dict or
    `self` raise `TypeError: Failed to convert object of type ...`; an int becomes an int32
    tensor that cannot mix with float tensors; `if flag:` on a bool tensor raises TypeError;
    a string becomes a `tf.string` tensor and `opt == "fast"` is silently False (wrong
    branch); a list of tensors is stacked into one tensor, so the function sees one input.
    A float is a float tensor, which is fine, unless the function tests it in Python
    (`if scale > 1.0:`, facts f6): that raises TypeError too. Eager mode passes the raw
    values, so the same code works there, which hides the bug.

    Not reported where the function visibly takes the tensor it gets: an int used only as
    a shape or count (`tf.tile(x, [n])`, `tf.reshape(dy, [n, -1])`, `tf.cast(n, ...)`), or
    a list it never iterates or unpacks, whose gradient functions give one gradient per
    argument (the stacked list's one: `tf.stack([ga, gb])`).

    Fix: pass only tensors positionally; bind configuration (strings, flags, functions) in
    a closure, or make a decorated function per configuration. For methods, decorate a
    nested function inside the method.
    """

    code = "CG108"
    name = "non-tensor-argument"
    judges_project_calls = True  # imported_calls

    def check(self, module):
        for site in module.sites:
            if site.is_method and site.params.names:
                yield self.at(site.func, "custom-gradient function `%s` is a method: TF 1.8 "
                              "converts `%s` to a tensor and fails; decorate a function "
                              "nested in the method instead" % (site.name,
                                                                site.params.names[0]), function=site.func)
            for call in site.calls:
                yield from self._check_call(module, call, site.name, site.func, site)
        for call, site in module.imported_calls:
            yield from self._check_call(module, call, site.name, None)

    def _check_call(self, module, call, name, function, site=None):
        for index, arg in enumerate(call.args):
            kind = self._kind(module, arg)
            if kind in _HANDLED and site is not None and _handled(module, site, call, index,
                                                                  kind):
                continue
            if kind == "float" and (site is None or not _tested(module, site, index)):
                continue  # a float is a float tensor: fine, unless Python tests it
            if kind and (kind in _ALWAYS or not module.eager):
                yield self.at(arg, "`%s` gets %s as a positional argument: %s" % (
                    name, _DESCRIPTIONS[kind][0], _DESCRIPTIONS[kind][1]), function=function)

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
        if isinstance(arg, ast.Lambda):
            return "callable"
        if isinstance(arg, (ast.Name, ast.Attribute)):
            binding = module.names.definitions(arg, module.names.scope_of(arg))
            if binding is not None and binding.kind == "def":
                return "callable"
            qualname = module.resolve(arg)
            if qualname in _STRING_CONSTANTS:
                return "str"  # `tf.estimator.ModeKeys.TRAIN` is the string "train"
            if qualname and qualname.startswith("tensorflow.") and qualname.split(".")[-1][:1].islower():
                return "callable"
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
# (with one gradient for it: facts g2), an int used only where TF takes an int tensor (a
# shape, a count, a cast).
_HANDLED = ("list", "int")
# TensorFlow functions that take an int tensor as their first argument as it is.
_TAKES_INT_TENSOR = frozenset("tensorflow." + name for name in (
    "cast", "to_float", "to_double", "to_int32", "to_int64", "range", "ones", "zeros", "fill"))


def _handled(module, site, call, index, kind):
    """Whether the function visibly takes the converted value as the tensor it is: every
    use of its parameter is one a tensor allows, and, for a list, every gradient function
    gives one gradient per argument (the stacked list's is one)."""
    name = _parameter(site, index)
    if name is None:
        return False  # into *args: not followed
    uses = list(_uses(module, site, name))
    if kind == "int":
        return all(_int_tensor_use(module, node, parent, grandparent)
                   for node, parent, grandparent in uses)
    if any(_sequence_use(module, node, parent) for node, parent, _ in uses):
        return False
    counts, complete = gradient_counts(module, site)
    return complete and counts == {len(call.args)}


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
    if isinstance(parent, (ast.If, ast.While, ast.IfExp, ast.Assert, ast.BoolOp)):
        return True
    if isinstance(parent, ast.UnaryOp):
        return isinstance(parent.op, ast.Not)
    if isinstance(parent, ast.Compare):
        return not all(isinstance(op, (ast.Is, ast.IsNot)) for op in parent.ops)
    return False


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


def _int_tensor_use(module, node, parent, grandparent):
    """`tf.tile(x, [n])`, `tf.reshape(dy, [n, -1])`, `tf.cast(n, tf.float32)`."""
    if isinstance(parent, (ast.List, ast.Tuple)) and isinstance(grandparent, ast.Call):
        return parent in grandparent.args and _tensorflow_call(module, grandparent)
    return (isinstance(parent, ast.Call) and parent.args[:1] == [node]
            and module.resolve(parent.func) in _TAKES_INT_TENSOR)


def _called(module, call):
    """The qualified name of what a call calls, or None."""
    return module.resolve(call.func) if isinstance(call.func, (ast.Name, ast.Attribute)) \
        else None


def _tensorflow_call(module, call):
    qualname = _called(module, call)
    return bool(qualname) and qualname.startswith("tensorflow.")


def _sequence_use(module, node, parent):
    """`for t in factors`, `a, b = factors`, `len(factors)`, `*factors`."""
    if isinstance(parent, (ast.For, ast.comprehension)):
        return parent.iter is node
    if isinstance(parent, ast.Assign):
        return parent.value is node and any(
            isinstance(target, (ast.Tuple, ast.List)) for target in parent.targets)
    if isinstance(parent, ast.Starred):
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
    "bool": ("a bool", "graph mode makes it a bool tensor, and `if` on it raises TypeError"),
    "int": ("an int", "graph mode makes it an int32 tensor, which cannot mix with float "
                      "tensors; pass a float tensor or bind it in a closure"),
    "float": ("a float", "graph mode makes it a tensor, and the function's `if` on it "
                         "raises TypeError; bind it in a closure"),
    "str": ("a string", "graph mode makes it a tf.string tensor, so comparing it with `==` is "
                        "silently False"),
    "dict": ("a dict", "TF 1.8 cannot convert it to a tensor (TypeError)"),
    "list": ("a Python list", "graph mode stacks it into one tensor, so the function sees one "
                              "input, not one per element"),
    "callable": ("a function", "TF 1.8 cannot convert it to a tensor (TypeError); bind it in "
                               "a closure"),
}


RULE = NonTensorArgument
