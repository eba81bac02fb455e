"""Facts about one module that rules read: custom-gradient sites, their gradient
functions, how they are called, tapes, eager mode. Built once; rules never re-walk.
"""
import ast
from dataclasses import dataclass, field
from functools import cached_property
from typing import Optional

from cglint.names import Names, same_scope_nodes

CUSTOM_GRADIENT = frozenset((
    "tensorflow.custom_gradient",
    "tensorflow.contrib.eager.custom_gradient",
    "tensorflow.python.ops.custom_gradient.custom_gradient",
    "tensorflow.compat.v1.custom_gradient",
    "tensorflow.compat.v2.custom_gradient",
))
EAGER_SWITCHES = frozenset((
    "tensorflow.enable_eager_execution",
    "tensorflow.contrib.eager.enable_eager_execution",
    "tensorflow.compat.v1.enable_eager_execution",
))
GRADIENT_TAPES = frozenset((
    "tensorflow.GradientTape",
    "tensorflow.contrib.eager.GradientTape",
    "tensorflow.compat.v1.GradientTape",
))
# TensorFlow functions that return a list or tuple of tensors: counting a gradient
# function's return through one of these is not possible statically.
MULTI_OUTPUT = frozenset((
    "gradients", "split", "unstack", "meshgrid", "identity_n", "map_fn", "while_loop", "cond",
    "case", "py_func", "tuple", "unique", "unique_with_counts", "top_k", "moments",
    "nn.moments", "nn.top_k", "nn.weighted_moments", "dynamic_partition", "scan", "foldl",
    "foldr", "hessians", "batch_jacobian", "group", "contrib.eager.gradients_function",
    "contrib.framework.nest.flatten", "nest.flatten", "linalg.eigh", "self_adjoint_eig", "svd",
    "linalg.svd", "qr", "linalg.qr", "nn.sufficient_statistics", "nn.fused_batch_norm",
))
_MAX_DEPTH = 6


def own_nodes(root):
    """Nodes evaluated in `root`'s own body: nested defs, lambdas and classes are not
    entered (the nested node itself is yielded). Iterative, so deep trees are fine."""
    return same_scope_nodes([root.body] if isinstance(root, ast.Lambda) else root.body)


@dataclass(eq=False)
class Parameters:
    names: list  # positional parameter names, in order
    required: int  # positional parameters without a default
    vararg: Optional[str]
    kwonly: list  # keyword-only parameter ast.arg nodes
    kwarg: Optional[str]
    nodes: list  # ast.arg of the positional parameters

    @classmethod
    def of(cls, function):
        arguments = function.args
        positional = list(getattr(arguments, "posonlyargs", [])) + list(arguments.args)
        return cls(
            [arg.arg for arg in positional],
            len(positional) - len(arguments.defaults),
            arguments.vararg.arg if arguments.vararg else None,
            list(arguments.kwonlyargs),
            arguments.kwarg.arg if arguments.kwarg else None,
            positional,
        )


@dataclass(eq=False)
class GradFunction:
    node: ast.AST  # FunctionDef or Lambda
    name: str  # `grad`, or "lambda"
    scope: object
    params: Parameters
    returns: list  # [(anchor node, value expr or None)]

    @property
    def variables_param(self):
        """The `variables` parameter of the newer TF protocol, or None."""
        for arg in self.params.nodes + self.params.kwonly:
            if arg.arg == "variables":
                return arg
        return None

@dataclass(eq=False)
class ForwardReturn:
    node: ast.AST  # the Return statement
    value: Optional[ast.AST]
    outputs: Optional[ast.AST] = None  # first element of a (outputs, grad) pair
    grad: Optional[GradFunction] = None


@dataclass(eq=False)
class Site:
    """One function made a custom gradient by `@tf.custom_gradient` or `tf.custom_gradient(f)`."""

    func: ast.AST
    name: str
    scope: object  # the function's own scope
    params: Parameters
    is_method: bool
    returns: list = field(default_factory=list)  # [ForwardReturn]
    calls: list = field(default_factory=list)  # ast.Call nodes that call it


def variable_gradients(module, site, grad, value):
    """The `[dw]` of `return dx, [dw]`, the TF 2 idiom for variable gradients, or None.

    It counts as that idiom when the gradient function takes `variables`, or when the
    gradients before the list already cover every positional input of the function.
    """
    if not (isinstance(value, ast.Tuple) and len(value.elts) == 2
            and isinstance(value.elts[1], (ast.List, ast.ListComp))):
        return None
    if grad.variables_param is not None:
        return value.elts[1]
    covered = module.count_values(value.elts[0], grad.scope)
    if covered is not None and not site.params.vararg and covered == len(site.params.names):
        return value.elts[1]
    return None


@dataclass(eq=False)
class ApiUse:
    """A dotted chain that resolves to a TensorFlow name: `tf.math.log`, `tfe.Variable`."""

    node: ast.AST  # the outermost Attribute of the chain
    qualname: str
    call: Optional[ast.Call] = None  # the call, when the chain is called


@dataclass(eq=False)
class ImportUse:
    """`import tensorflow.x.y` or `from tensorflow.x import y`."""

    node: ast.AST
    module: str
    name: Optional[str] = None  # the imported name of a from-import


class ModuleFacts:
    def __init__(self, path, text, tree, target_python=(2, 7), python2_syntax=False,
                 target_tf="1.8"):
        self.path = path
        self.text = text
        self.tree = tree
        self.target_python = target_python
        self.python2_syntax = python2_syntax
        self.target_tf = target_tf

    @cached_property
    def names(self):
        return Names(self.tree)

    @property
    def nodes(self):
        """Every node by type (not in source order), recorded by the one walk that binds
        names, so no fact needs a walk of its own."""
        return self.names.index

    @cached_property
    def calls(self):
        """Every Call node with the qualified name of what it calls (None if unknown)."""
        names = self.names
        return [(node, names.resolve(node.func, names.scope_of(node)))
                for node in self.nodes[ast.Call]]

    # Each name these look for ends in a word that must then be in the text (names resolve
    # only through the module's own imports and attributes): without it, no call resolves
    # to one, and the calls need not be resolved at all.

    @cached_property
    def eager(self):
        if "enable_eager_execution" not in self.text:
            return False
        return any(qualname in EAGER_SWITCHES for _, qualname in self.calls)

    @cached_property
    def tape_calls(self):
        if "GradientTape" not in self.text:
            return []
        return [call for call, qualname in self.calls if qualname in GRADIENT_TAPES]

    @cached_property
    def override_maps(self):
        return [call for call in self.nodes[ast.Call]
                if isinstance(call.func, ast.Attribute)
                and call.func.attr == "gradient_override_map"]

    @cached_property
    def api_uses(self):
        """Every outermost attribute chain that resolves to a `tensorflow.` name."""
        attributes = self.nodes[ast.Attribute]
        inner = {id(node.value) for node in attributes}
        called = {id(node.func): node for node in self.nodes[ast.Call]}
        uses = []
        for node in attributes:
            if id(node) in inner:
                continue
            qualname = self.resolve(node)
            if qualname and qualname.startswith("tensorflow."):
                uses.append(ApiUse(node, qualname, called.get(id(node))))
        return uses

    @cached_property
    def imports(self):
        found = []
        for node in self.nodes[ast.Import]:
            found += [ImportUse(node, alias.name) for alias in node.names
                      if alias.name.split(".")[0] == "tensorflow"]
        for node in self.nodes[ast.ImportFrom]:
            if not node.level and node.module and node.module.split(".")[0] == "tensorflow":
                found += [ImportUse(node, node.module, alias.name) for alias in node.names
                          if alias.name != "*"]
        return sorted(found, key=lambda use: (use.node.lineno, use.node.col_offset))

    @cached_property
    def imported_modules(self):
        """Dotted paths of the TensorFlow modules this file's imports load (`import a.b.c`
        loads a, a.b and a.b.c; `from a.b import c` also a.b.c when that is a module)."""
        found = set()
        for use in self.imports:
            dotted = use.module + ("." + use.name if use.name else "")
            parts = dotted.split(".")
            found.update(".".join(parts[:length]) for length in range(1, len(parts) + 1))
        return found

    @cached_property
    def sites(self):
        # Every name in CUSTOM_GRADIENT ends in `custom_gradient`, and a name resolves only
        # through the module's own imports and attributes: without the word, no site.
        if "custom_gradient" not in self.text:
            return []
        return _SiteFinder(self).find()

    def resolve(self, expr):
        return self.names.resolve(expr, self.names.scope_of(expr))

    def count_values(self, expr, scope, depth=0):
        """How many tensors `nest.flatten(expr)` gives, or None when it cannot be known."""
        if depth > _MAX_DEPTH or expr is None:
            return None
        if isinstance(expr, (ast.Tuple, ast.List)):
            total = 0
            for element in expr.elts:
                count = self.count_values(element, scope, depth + 1)
                if count is None:
                    return None
                total += count
            return total
        if isinstance(expr, ast.Constant):
            return 1  # None, or a number (CG110's business)
        if isinstance(expr, (ast.BinOp, ast.UnaryOp)):
            operands = [expr.left, expr.right] if isinstance(expr, ast.BinOp) else [expr.operand]
            if any(isinstance(o, (ast.List, ast.Tuple, ast.ListComp)) for o in operands):
                return None  # list arithmetic such as `[None] * n`
            return 1 if self._is_tensor(expr, scope, depth) else None
        if isinstance(expr, ast.Call):
            return 1 if self._is_tensor(expr, scope, depth) else None
        if isinstance(expr, ast.Name):
            value = self.single_value(expr, scope)
            if value is None:
                return 1 if self._is_parameter(expr, scope) else None
            return self.count_values(value, scope, depth + 1)
        if isinstance(expr, ast.IfExp):
            counts = {self.count_values(expr.body, scope, depth + 1),
                      self.count_values(expr.orelse, scope, depth + 1)}
            return counts.pop() if len(counts) == 1 else None
        return None

    def _is_tensor(self, expr, scope, depth):
        """True for expressions that are one tensor: TF calls and arithmetic on tensors."""
        if isinstance(expr, ast.Call):
            qualname = self.names.resolve(expr.func, scope)
            if not qualname or not qualname.startswith("tensorflow."):
                return False
            return qualname.split(".", 1)[1] not in MULTI_OUTPUT
        if isinstance(expr, ast.BinOp):
            return any(self._is_tensor(side, scope, depth + 1) or self._is_parameter(side, scope)
                       for side in (expr.left, expr.right))
        if isinstance(expr, ast.UnaryOp):
            return self._is_tensor(expr.operand, scope, depth + 1) or self._is_parameter(
                expr.operand, scope)
        if isinstance(expr, ast.Name) and depth < _MAX_DEPTH:
            value = self.single_value(expr, scope)
            return value is not None and self._is_tensor(value, scope, depth + 1)
        return False

    def _is_parameter(self, expr, scope):
        if not isinstance(expr, ast.Name):
            return False
        bindings = scope.bindings.get(expr.id, [])
        return len(bindings) == 1 and bindings[0].kind == "param" and (
            bindings[0].node.arg not in _star_names(scope.node))

    def single_value(self, name, scope):
        """The value a Name was assigned exactly once in `scope`, and never mutated."""
        bindings = scope.bindings.get(name.id, [])
        if len(bindings) != 1 or bindings[0].kind != "assign":
            return None
        if _is_mutated(name.id, scope.node):
            return None
        return bindings[0].node


def _star_names(function):
    if isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
        arguments = function.args
        return {a.arg for a in (arguments.vararg, arguments.kwarg) if a is not None}
    return set()


def _is_mutated(name, function):
    """`name.append(...)`, `name[i] = ...`, `name += ...` anywhere in the function body."""
    if isinstance(function, ast.Module):
        return True  # module-level values can change from anywhere: do not follow them
    for node in own_nodes(function):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
            target = node.func.value
            if isinstance(target, ast.Name) and target.id == name and node.func.attr in (
                    "append", "extend", "insert", "pop", "remove", "reverse"):
                return True
        if isinstance(node, ast.Subscript) and isinstance(node.ctx, (ast.Store, ast.Del)):
            if isinstance(node.value, ast.Name) and node.value.id == name:
                return True
        if isinstance(node, ast.AugAssign) and isinstance(node.target, ast.Name):
            if node.target.id == name:
                return True
    return False


class _SiteFinder:
    def __init__(self, module):
        self.module = module
        self.names = module.names

    def find(self):
        sites = []
        by_func = {}  # decorated functions: calling them by name calls the custom gradient
        wrapped = {}  # f in `h = tf.custom_gradient(f)`: only calls of h do
        index = self.module.nodes
        functions = sorted(index[ast.FunctionDef] + index[ast.AsyncFunctionDef],
                           key=lambda node: (node.lineno, node.col_offset))
        for node in functions:
            scope = self.names.scope_of(node)
            if any(self.names.resolve(d, scope) in CUSTOM_GRADIENT for d in node.decorator_list):
                site = self._site(node, scope)
                sites.append(site)
                by_func[id(node)] = site
        for call, qualname in self.module.calls:
            if qualname in CUSTOM_GRADIENT and len(call.args) == 1 and not call.keywords:
                binding = self.names.definitions(call.args[0], self.names.scope_of(call))
                if binding and binding.kind == "def" and id(binding.node) not in by_func:
                    site = wrapped.get(id(binding.node))
                    if site is None:
                        site = self._site(binding.node, binding.scope)
                        sites.append(site)
                        wrapped[id(binding.node)] = site
        self._attach_calls(by_func, wrapped)
        return sites

    def _site(self, func, defining_scope):
        own_scope = self.names.scope_for_def[id(func)]
        is_method = defining_scope.kind == "class" and not any(
            isinstance(d, ast.Name) and d.id == "staticmethod" for d in func.decorator_list)
        site = Site(func, func.name, own_scope, Parameters.of(func), is_method)
        for node in own_nodes(func):
            if isinstance(node, ast.Return):
                site.returns.append(self._forward_return(node, own_scope))
        return site

    def _forward_return(self, node, scope):
        result = ForwardReturn(node, node.value)
        value = node.value
        if isinstance(value, ast.Name):
            value = self.module.single_value(value, scope) or value
        if isinstance(value, (ast.Tuple, ast.List)) and len(value.elts) == 2:
            result.outputs = value.elts[0]
            result.grad = self.grad_function(value.elts[1], scope)
        return result

    def grad_function(self, expr, scope):
        if isinstance(expr, ast.Lambda):
            node, name = expr, "lambda"
        else:
            binding = self.names.definitions(expr, scope)
            if binding is None or binding.kind != "def":
                return None
            node, name = binding.node, binding.node.name
        own_scope = self.names.scope_for_def[id(node)]
        if isinstance(node, ast.Lambda):
            returns = [(node, node.body)]
        else:
            returns = [(ret, ret.value) for ret in own_nodes(node) if isinstance(ret, ast.Return)]
        return GradFunction(node, name, own_scope, Parameters.of(node), returns)

    def _attach_calls(self, by_func, wrapped):
        if not by_func and not wrapped:
            return
        for call, _ in self.module.calls:
            if not isinstance(call.func, ast.Name):
                continue
            binding = self.names.definitions(call.func, self.names.scope_of(call))
            if binding is None:
                continue
            site = by_func.get(id(binding.node)) if binding.kind == "def" else None
            target = binding.node
            if binding.kind == "assign" and isinstance(target, ast.Call) and target.args:
                # h = tf.custom_gradient(f): calls of h are calls of f's site
                if self.names.resolve(target.func, binding.scope) in CUSTOM_GRADIENT:
                    inner = self.names.definitions(target.args[0], binding.scope)
                    if inner is not None:
                        site = by_func.get(id(inner.node)) or wrapped.get(id(inner.node))
            if site is not None and call not in site.calls:
                site.calls.append(call)
