"""Facts about one module that rules read: custom-gradient sites, their gradient
functions, how they are called, tapes, eager mode. Built once; rules never re-walk.
"""
import ast
import builtins
import dataclasses
import re
from dataclasses import dataclass, field
from functools import cached_property
from typing import Optional

from cglint import fstrings as fstring_texts
from cglint import rebindings
from cglint.fstrings import find_fstrings
from cglint.names import Names, children, is_none, same_scope_nodes, within
from cglint.newsyntax import newer_syntax
from cglint.source import LineIndex, Span
from cglint.statements import marked_index, statement_index
from cglint.variable_creators import creates_trained_variables

CUSTOM_GRADIENT = frozenset((
    "tensorflow.custom_gradient",
    "tensorflow.contrib.eager.custom_gradient",
    "tensorflow.compat.v1.custom_gradient",
    "tensorflow.compat.v2.custom_gradient",
))
EAGER_SWITCHES = frozenset((
    "tensorflow.enable_eager_execution",
    "tensorflow.contrib.eager.enable_eager_execution",
    "tensorflow.compat.v1.enable_eager_execution",
    # TF's eager test harness: its main() turns eager execution on, then runs the tests
    "tensorflow.python.eager.test.main",
))
# The functions that tell eager execution from graph mode: True when eager.
_EAGER_TESTS = {"executing_eagerly": True, "in_eager_mode": True, "in_graph_mode": False}
# Context managers whose block is expected to raise (a test of a call's bad arguments).
_RAISING_CONTEXTS = frozenset(("assertRaises", "assertRaisesRegexp", "assertRaisesRegex",
                               "assertRaisesOpError", "assertRaisesWithPredicateMatch",
                               "raises"))
GRADIENT_TAPES = frozenset((
    "tensorflow.GradientTape",
    "tensorflow.contrib.eager.GradientTape",
    "tensorflow.compat.v1.GradientTape",
))
# `tf.print` (TF 1.12+), which CG401 explains and CG402 leaves to it.
TF_PRINTS = frozenset(("tensorflow.print", "tensorflow.compat.v1.print",
                       "tensorflow.compat.v2.print"))
# TensorFlow functions that return a list or tuple of tensors, not one tensor: a gradient
# function's return through one of these is counted only where the tables below (or
# ModuleFacts._call_items) know its structure, else it is unknown. Every function of a
# `nest` module (NEST_MODULES) is one of them too.
MULTI_OUTPUT = frozenset((
    "gradients", "split", "unstack", "meshgrid", "identity_n", "map_fn", "while_loop", "cond",
    "case", "py_func", "tuple", "unique", "unique_with_counts", "top_k", "moments",
    "nn.moments", "nn.top_k", "nn.weighted_moments", "dynamic_partition", "scan", "foldl",
    "foldr", "hessians", "batch_jacobian", "group", "contrib.eager.gradients_function",
    "linalg.eigh", "self_adjoint_eig", "svd", "linalg.svd", "qr", "linalg.qr",
    "nn.sufficient_statistics", "nn.fused_batch_norm", "clip_by_global_norm",
))
# The modules of `nest` (`tf.contrib.framework.nest` in 1.8, TF's own
# `tensorflow.python.util.nest`, TF 2's `tf.nest`), by their path below `tensorflow.`.
NEST_MODULES = ("nest.", "contrib.framework.nest.", "python.util.nest.")
# Those of them that always return the same number of tensors (`mean, variance =
# tf.nn.moments(...)`); tests/test_output_counts.py checks each under TF 1.8.
FIXED_OUTPUT_COUNTS = {"nn.moments": 2, "nn.weighted_moments": 2, "nn.top_k": 2, "unique": 2,
                       "unique_with_counts": 3, "nn.sufficient_statistics": 4,
                       "nn.fused_batch_norm": 3, "qr": 2, "linalg.qr": 2,
                       "self_adjoint_eig": 2, "linalg.eigh": 2, "linalg.slogdet": 2,
                       "setdiff1d": 2, "nn.max_pool_with_argmax": 2,
                       "nn.fractional_max_pool": 3, "nn.fractional_avg_pool": 3,
                       "nn.normalize_moments": 2, "nn.uniform_candidate_sampler": 3,
                       "nn.log_uniform_candidate_sampler": 3,
                       "nn.compute_accidental_hits": 3,
                       "image.sample_distorted_bounding_box": 3}
# Those whose count follows an argument: (keyword, position, how many more): one gradient
# per tensor of `xs`. (Not `clip_by_global_norm`'s list and norm: a registered gradient's
# returns are not flattened, so its count there is another.)
COUNTED_BY_ARGUMENT = {"gradients": ("xs", 1, 0), "hessians": ("xs", 1, 0)}
# Those whose list has the structure of an argument, one tensor for each of its tensors:
# (keyword, position) of that argument (`tf.tuple([ga, gb])` is a list of 2). The nest
# functions that keep a structure (`map_structure`, `pack_sequence_as`) and
# `clip_by_global_norm`'s (clipped list, norm) are in ModuleFacts._call_items;
# tests/test_output_counts.py measures them all under TF 1.8.
# `tf.while_loop(cond, body, loop_vars)` gives the structure of its loop variables (which
# may nest: not one of TENSOR_LISTS).
SHAPED_LIKE_ARGUMENT = {"tuple": ("tensors", 0), "identity_n": ("input", 0),
                        "while_loop": ("loop_vars", 2)}
# TensorFlow's namedtuple classes, by their fields: a call of one builds a tuple that
# nest.flatten splits (`tf.contrib.rnn.LSTMStateTuple(c, h)` is two outputs);
# tests/test_counts_structures.py measures them under TF 1.8.
TF_NAMEDTUPLES = {"contrib.rnn.LSTMStateTuple": ("c", "h"),
                  "nn.rnn_cell.LSTMStateTuple": ("c", "h")}
MULTI_OUTPUT = MULTI_OUTPUT | frozenset(FIXED_OUTPUT_COUNTS) | frozenset(
    COUNTED_BY_ARGUMENT) | frozenset(TF_NAMEDTUPLES) | frozenset(
        path + "._make" for path in TF_NAMEDTUPLES)
# `tf.py_func(f, inp, Tout)` and its eager twin: a list of one tensor per dtype when Tout
# is a list or tuple, one tensor when it is a dtype (ModuleFacts._call_items, _is_tensor;
# tests/test_output_counts.py measures them).
PY_FUNCS = frozenset(("py_func", "contrib.eager.py_func"))
MULTI_OUTPUT = MULTI_OUTPUT | PY_FUNCS
# The dtypes a Tout names (`tf.float32`, `np.float32`, `tf.dtypes.int64`), by last name;
# and those only TensorFlow has (CG108 knows `tf.qint8` for a DType too).
DTYPE_NAMES = frozenset((
    "float16 float32 float64 bfloat16 half double int8 int16 int32 int64 uint8 uint16 "
    "bool string complex64 complex128").split())
TF_ONLY_DTYPE_NAMES = frozenset("qint8 quint8 qint16 quint16 qint32 resource variant".split())
# The builtins that make a list or tuple of the items of another (`tuple(tf.split(x,
# 3))`, `list(map(f, grads))`): ModuleFacts._converted counts them.
_SEQUENCE_BUILTINS = frozenset(("tuple", "list", "map"))
# What makes a namedtuple class (`Out = collections.namedtuple("Out", "y aux")`, `class
# Out(typing.NamedTuple)`) and a dict whose values nest.flatten gives (`OrderedDict([("mu",
# mu), ("logvar", lv)])`), by qualified name.
NAMEDTUPLE_MAKERS = frozenset(("collections.namedtuple", "typing.NamedTuple"))
DICT_MAKERS = frozenset(("collections.OrderedDict",))
# Those whose list or tuple holds tensors only (or None), never a nested list: each name
# unpacked from one (`ga, gb = tf.split(grad, 2)`) is one gradient. Not every function
# outside MULTI_OUTPUT gives one tensor (`outputs, state = tf.nn.dynamic_rnn(...)` may
# unpack an LSTM state tuple), so only these; tests/test_output_counts.py measures them.
TENSOR_LISTS = frozenset(("split", "unstack", "meshgrid", "dynamic_partition")) | frozenset(
    FIXED_OUTPUT_COUNTS) | frozenset(COUNTED_BY_ARGUMENT) | (
        frozenset(SHAPED_LIKE_ARGUMENT) - {"while_loop"})
# tf.data pipelines, for the keywords of their steps (`.batch(32, drop_remainder=True)` is
# TF 1.10's): the class, the factories that make one, the transformations that return one.
DATASET = "tensorflow.data.Dataset"
DATASET_FACTORIES = frozenset(("from_tensor_slices", "from_tensors", "from_generator", "range",
                               "zip", "list_files", "from_sparse_tensor_slices"))
DATASET_TRANSFORMATIONS = frozenset((
    "apply", "batch", "cache", "concatenate", "filter", "flat_map", "interleave", "map",
    "padded_batch", "prefetch", "repeat", "shard", "shuffle", "skip", "take",
    "unbatch", "with_options", "map_with_legacy_function", "window"))
# What TF 1.8 traces into a graph function even under eager execution, so that code in it
# meets graph mode's rules (custom_gradient's keyword check sees graph mode): the function
# a tf.data transformation takes, and a `tfe.defun`'s (measured: ValueError there too).
DATASET_FUNCTION_TAKERS = frozenset(("map", "flat_map", "filter", "interleave"))
GRAPH_TRACERS = frozenset((
    "tensorflow.contrib.eager.defun", "tensorflow.contrib.eager.python.tfe.defun",
    "tensorflow.python.eager.function.defun", "tensorflow.contrib.data.map_and_batch",
    "tensorflow.contrib.data.parallel_interleave"))
# `function.Defun(*input_types, python_grad_func=f, grad_func=g)`: TF 1.8's third way
# to give an op a custom gradient (tensor2tensor and sonnet use it).
DEFUN = frozenset(("tensorflow.python.framework.function.Defun",))
# TensorFlow's own modules, imported by path (`from tensorflow.python.ops import
# math_ops`): not part of any release's public API, so no table or argspec covers them.
PRIVATE_PACKAGES = tuple("tensorflow.%s." % package for package in (
    "python", "core", "compiler", "tools", "include", "_api", "examples"))


def _methods_recorded(kind):
    """Classes whose objects' methods are judged (the ones whose making cglint follows)."""
    return kind in GRADIENT_TAPES or kind == DATASET or (
        kind.startswith("tensorflow.train.") and kind.endswith("Optimizer"))


def may_switch_eager(text):
    """Whether the text holds what a call of one of EAGER_SWITCHES needs: its name, or for
    the test harness both words of its module (`from ...eager import context, test`)."""
    return "enable_eager_execution" in text or ("eager" in text and "test" in text)


def is_private(qualname):
    """TensorFlow's own modules, also inside contrib (`tf.contrib.learn.python.learn`)."""
    return qualname.startswith(PRIVATE_PACKAGES) or ".python." in qualname


_MAX_DEPTH = 6
# What ModuleFacts.execution_mode finds: code that runs only eagerly, or only in graphs.
EAGER_SWITCHES_OF_18 = frozenset(("tensorflow.enable_eager_execution",
                                  "tensorflow.contrib.eager.enable_eager_execution"))
EAGER, GRAPH = "eager", "graph"
# What TF 1.8 refuses under eager execution, with the RuntimeError it raises (measured on
# 2.7 and 3.6) and what to do instead; TF 2 takes the first and last eagerly.
GRAPH_ONLY = {
    "tensorflow.Variable": ("tf.Variable not supported when eager execution is enabled. "
                            "Please use tf.contrib.eager.Variable instead",
                            "use `tf.contrib.eager.Variable`"),
    "tensorflow.placeholder": ("tf.placeholder() is not compatible with eager execution",
                               "pass the values themselves"),
    "tensorflow.gradients": ("tf.gradients not supported when eager execution is enabled. "
                             "Use tf.contrib.eager.GradientTape instead",
                             "take gradients with `tf.GradientTape`"),
}
# Words of what may make code run in a graph although the module turned eager on.
_GRAPH_CONTEXT_WORDS = ("Graph", "graph", "as_default", "Session")
_MODE_TEST_WORDS = ("eager", "graph")
_GRAPH_FUNCTION_WORDS = ("defun", "function", "graph")
_CONDS = frozenset(("tensorflow.cond", "tensorflow.compat.v1.cond"))


def _public_tensorflow(bound):
    """Whether a chain through a name bound to `bound` may name public TensorFlow."""
    return (bound == "tensorflow" or bound.startswith("tensorflow.")) and not is_private(
        bound + ".")


# How many nodes parent_of finds by descending from the module before it maps every node.
_PATHS_BEFORE_MAP = 64


def _path_to(root, target, pruned=False):
    """[root, ..., target] through `children`, or []. `pruned`: enter only nodes whose
    position holds the target's (a decorated def starts at its first decorator), which
    finds it fast when positions nest as they should; the caller retries unpruned."""
    where = _position(target) if pruned else None
    stack = [(root, None)]
    while stack:
        node, parent = stack.pop()
        entry = (node, parent)
        if node is target:
            path = []
            while entry is not None:
                path.append(entry[0])
                entry = entry[1]
            return path[::-1]
        for child in children(node):
            if where is None or _holds(child, where):
                stack.append((child, entry))
    return []


def _position(node):
    if getattr(node, "lineno", None) is None or getattr(node, "end_lineno", None) is None:
        return None
    return (node.lineno, node.col_offset), (node.end_lineno, node.end_col_offset)


def _holds(node, where):
    own = _position(node)
    if own is None:
        return True  # arguments, comprehensions, `with` items: no position of their own
    start, end = own
    for decorator in getattr(node, "decorator_list", ()):
        start = min(start, (decorator.lineno, decorator.col_offset))
    return start <= where[0] and where[1] <= end


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

    @property
    def variables_read(self):
        """`kwargs.get("variables")` or `kwargs["variables"]`: the same protocol reached
        through `**kwargs`, or None."""
        if self.params.kwarg is None or isinstance(self.node, ast.Lambda):
            return None
        for read in keyword_reads(self.node, self.params.kwarg):
            if read.key == "variables":
                return read  # a KeywordRead: `required` when the read fails without it
        return None


@dataclass(frozen=True)
class KeywordRead:
    node: ast.AST  # the Subscript or the Call
    key: Optional[str]  # the literal key, when there is one
    required: bool  # `kwargs["x"]` or `kwargs.pop("x")`: fails when the key is absent


def keyword_reads(function, kwarg):
    """Reads of the `**kwarg` dict in a function's own body, in source order."""
    optional = _optional_keys(function, kwarg)
    found = []
    for node in own_nodes(function):
        if (isinstance(node, ast.Subscript) and isinstance(node.ctx, ast.Load)
                and isinstance(node.value, ast.Name) and node.value.id == kwarg):
            key = _literal_key(node.slice)
            found.append(KeywordRead(node, key, not _is_optional(key, optional)))
        elif (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
              and isinstance(node.func.value, ast.Name) and node.func.value.id == kwarg
              and node.func.attr in ("get", "pop") and node.args):
            key = _literal_key(node.args[0])
            required = (node.func.attr == "pop" and len(node.args) == 1
                        and not _is_optional(key, optional))
            found.append(KeywordRead(node, key, required))
    return sorted(found, key=lambda read: (read.node.lineno, read.node.col_offset))


def _optional_keys(function, kwarg):
    """Keys the body shows may be absent: tested with `"x" in kwargs` or read with
    `kwargs.get("x")` (a read guarded by it works without the keyword), and None (every
    key) when the body fills the dict, catches the KeyError, or tests a key it cannot
    name."""
    keys = set()
    for node in own_nodes(function):
        if isinstance(node, ast.Compare) and any(
                isinstance(op, (ast.In, ast.NotIn)) for op in node.ops) and any(
                isinstance(side, ast.Name) and side.id == kwarg for side in node.comparators):
            key = _literal_key(node.left)
            if key is None:
                return None
            keys.add(key)
        elif isinstance(node, ast.Try) and node.handlers:
            return None  # a read inside may be the one its handler expects to fail
        elif (isinstance(node, ast.Subscript) and isinstance(node.ctx, ast.Store)
              and isinstance(node.value, ast.Name) and node.value.id == kwarg):
            return None
        elif (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
              and isinstance(node.func.value, ast.Name) and node.func.value.id == kwarg):
            if node.func.attr in ("setdefault", "update"):
                return None
            if node.func.attr in ("get", "has_key") and node.args:
                # `if kwargs.get("x"): kwargs["x"]`, Python 2's `kwargs.has_key("x")`
                key = _literal_key(node.args[0])
                if key is None:
                    return None
                keys.add(key)
    return keys


def _is_optional(key, optional):
    # a key the code computes (`for k in kwargs: kwargs[k]`) may only name keys present
    return key is None or optional is None or key in optional


def _literal_key(node):
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
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
    partials: list = field(default_factory=list)  # `functools.partial(f, ...)` calls

    @property
    def input_range(self):
        """(fewest, most) tensor inputs a call passes: the positional parameters, without a
        method's `self` (TF converts it too, and fails: CG108's business)."""
        skip = 1 if self.is_method and self.params.names else 0
        return max(self.params.required - skip, 0), len(self.params.names) - skip

    @property
    def grad_functions(self):
        """The gradient functions its returns give, each once, in order."""
        found = []
        for ret in self.returns:
            if ret.grad is not None and ret.grad not in found:
                found.append(ret.grad)
        return found


@dataclass(eq=False)
class DefunSite:
    """A function made a TF op by `@function.Defun(...)`, with its gradient functions."""

    func: ast.AST
    name: str
    inputs: Optional[int]  # the op's inputs: the input types given, else the parameters
    outputs: Optional[int]  # the op's outputs, when every return agrees
    python_grad: Optional["GradFunction"] = None  # python_grad_func: (op, *grads) -> grads
    grad_defun: Optional["GradFunction"] = None  # grad_func: a Defun of (*inputs, *grads)


def _flattens_to_nothing(node):
    """Whether `nest.flatten` of a display gives nothing: `[]`, `[[]]`, `[(), []]`."""
    return isinstance(node, (ast.List, ast.Tuple)) and all(
        _flattens_to_nothing(element) for element in node.elts)


def variable_gradients(module, site, grad, value):
    """The `[dw]` of `return dx, [dw]`, the TF 2 idiom for variable gradients, or None.

    It counts as that idiom when the gradient function takes `variables`, or when the
    gradients before the list already cover every positional input of the function. A
    display that flattens to nothing (`return dx, []`, `dx, [[]]`) is not: TF 1.8 flattens
    the result, and the list adds no gradient (measured); the count of what is left is
    CG103's.
    """
    if not (isinstance(value, ast.Tuple) and len(value.elts) == 2
            and isinstance(value.elts[1], (ast.List, ast.ListComp))):
        return None
    if _flattens_to_nothing(value.elts[1]):
        return None
    if grad.variables_param is not None or grad.variables_read is not None:
        listed = value.elts[1]
        if isinstance(listed, ast.ListComp) and any(
                empty_without_variables(grad, generator.iter) for generator in listed.generators):
            return None  # `[... for v in (variables or [])]`: always empty on 1.8
        return listed
    covered = module.count_values(value.elts[0], grad.scope)
    if covered is not None and not site.params.vararg and covered == len(site.params.names):
        return value.elts[1]
    return None


def empty_without_variables(grad, expr):
    """Whether `expr` is `variables or []` (or `()`) of the gradient function's
    `variables` parameter, never rebound there: always empty on TF 1.8, which never
    passes it."""
    param = grad.variables_param
    if param is None or not (isinstance(expr, ast.BoolOp) and isinstance(expr.op, ast.Or)
                             and len(expr.values) == 2):
        return False
    name, empty = expr.values
    return isinstance(name, ast.Name) and name.id == param.arg and isinstance(
        empty, (ast.List, ast.Tuple)) and not empty.elts and not any(
            isinstance(node, ast.Name) and node.id == param.arg and not isinstance(
                node.ctx, ast.Load) for node in ast.walk(grad.node))


def gradient_count(module, site, ret, value):
    """How many gradients one return (`value`) of a site's gradient function gives, or
    None: `return dys` of `def grad(*dys)` gives one per output of the site."""
    grad = ret.grad
    if value is None:
        return 1
    if isinstance(value, ast.Name) and value.id == grad.params.vararg and ret.outputs is not None:
        bindings = module.names.lookup(value.id, grad.scope)
        if len(bindings) == 1 and bindings[0].kind == "param":
            return module.count_values(ret.outputs, site.scope)
    return module.count_values(value, grad.scope)


def unreachable_returns(grad):
    """The ids of the returns of a gradient function TF 1.8 never runs: under `if dy is
    None:` (or the `else` of `if dy is not None:`) for a positional parameter `dy` that
    the body never rebinds. TF passes one tensor for each, zeros for an output that was
    not differentiated, never None (tf18-facts e5), so `if dy is None: return None`
    decides no count."""
    if isinstance(grad.node, ast.Lambda):
        return frozenset()
    variables = grad.variables_param
    params = {arg.arg for arg in grad.params.nodes[:grad.params.required]
              if arg is not variables and len(grad.scope.bindings.get(arg.arg, ())) == 1}
    dead = set()
    for node in own_nodes(grad.node) if params else ():
        if isinstance(node, ast.If):
            tested = _tests_none(node.test, params)
            if tested is not None:
                dead.update(id(ret) for ret in same_scope_nodes(
                    node.body if tested else node.orelse) if isinstance(ret, ast.Return))
    return dead


def _tests_none(test, params):
    """True for `p is None` (`None is p`), False for `p is not None`, of a name in
    `params`; None for any other test."""
    if not (isinstance(test, ast.Compare) and len(test.ops) == 1 and isinstance(
            test.ops[0], (ast.Is, ast.IsNot))):
        return None
    sides = (test.left, test.comparators[0])
    if any(isinstance(side, ast.Name) and side.id in params for side in sides) and any(
            is_none(side) for side in sides):
        return isinstance(test.ops[0], ast.Is)
    return None


def gradient_counts(module, site):
    """({the gradient counts the site's gradient functions return}, whether every one of
    its returns has a known count and gradient function). A return TF 1.8 never runs
    (unreachable_returns) is left out."""
    counts, complete = set(), True
    for ret in site.returns:
        if ret.grad is None:
            complete = False
            continue
        dead = unreachable_returns(ret.grad)
        for anchor, value in ret.grad.returns:
            if id(anchor) in dead:
                continue
            count = gradient_count(module, site, ret, value)
            if count is None:
                complete = False
            else:
                counts.add(count)
    return counts, complete


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


# What opens a scope of its own: code in it runs when called, not where it stands.
_SCOPE_NODES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)


class ModuleFacts:
    def __init__(self, path, text, parsed, target_python=(2, 7), target_tf="1.8"):
        self.path = path
        self.text = text  # the original text; `parsed.text` is what the tree was made from
        self.parsed = parsed  # cglint.parse.Parsed
        self.tree = parsed.tree
        self.target_python = target_python
        self.python2_syntax = parsed.python2_syntax
        self.target_tf = target_tf
        self.bom = False  # the bytes began with a UTF-8 BOM, which declares UTF-8
        self._instance_variables = {}  # id(class scope) -> attributes holding variables
        self._attribute_classes = {}  # id(class scope) -> {attribute: TensorFlow class}
        self._rebound = {}  # (name, id(scope)) -> DATASET or None (_rebound_dataset)
        self._datasets_returned = {}  # (id(def), depth) -> whether it returns a dataset
        # Project files (project.Dependency) whose content the findings were drawn from.
        self.dependencies = set()
        self._imported = {}  # (module, level, name) -> ImportedSite or None
        self._parents = {id(parsed.tree): None}  # id(node) -> parent, along paths found
        self._paths_found = 0  # parent_of's descents so far (see _PATHS_BEFORE_MAP)
        self._mutated = {}  # id(function) -> names mutated in its body
        # id(the binding of a list or dict) -> what the module puts in it (site_variables)
        self.additions = {}
        self._followed = {}  # (kind, name, id(scope), id(arguments), depth) -> _followed_once

    @cached_property
    def lines(self):
        """LineIndex of the original text, for what is found in the text itself."""
        return self.parsed.lines if self.parsed.text == self.text else LineIndex(self.text)

    def span(self, node):
        """The Span of an `ast` node in the original text: characters, not bytes, and on
        lines rewritten from Python 2, columns of the line as written."""
        parsed = self.parsed
        line = node.lineno
        end_line = getattr(node, "end_lineno", None) or line
        end_col = getattr(node, "end_col_offset", None) or node.col_offset
        return Span(line, parsed.original_col(line, node.col_offset) + 1,
                    end_line, parsed.original_col(end_line, end_col) + 1)

    @cached_property
    def fstrings(self):
        """Every f-string group of the original text (cglint.fstrings.FString), in order."""
        if not fstring_texts.may_hold_fstrings(self.text):
            return []
        if not self.python2_syntax and not self._holds_joined_strings():
            return []  # an `f'` in strings or comments only (`'%f'`): no scan of the text
        return find_fstrings(self.text, self.lines)

    def _holds_joined_strings(self):
        """Whether the tree has an f-string (JoinedStr) under a statement whose lines hold
        an f-string's opening text."""
        if self.has_full_index:
            return bool(self.nodes.get(ast.JoinedStr))
        index = marked_index(self.tree, self.statements, self.parsed.text,
                             fstring_texts.OPENINGS)
        return bool(index.get(ast.JoinedStr))

    @cached_property
    def new_syntax(self):
        """Constructs newer than the target Python (cglint.newsyntax.NewSyntax), in order."""
        return newer_syntax(self)

    @cached_property
    def names(self):
        names = Names(self.tree)
        if "ImportError" in self.text or "except:" in self.text or "Exception" in self.text:
            names.never_bound = frozenset(_failing_fallback_imports(names.index[ast.Try]))
        if ("hasattr" in self.text or "version" in self.text or "VERSION" in self.text
                or "dir(" in self.text) and rebindings.may_rebind(names):
            rebindings.decide(self.tree, names, self.target_tf)
        return names

    @property
    def has_full_index(self):
        """Whether the walk that binds names (and indexes every node) has been made."""
        return "names" in self.__dict__

    @cached_property
    def statements(self):
        """Every statement by type (not in source order): the full index's when it has
        been built, else the cheap statement walk's (cglint.statements)."""
        if self.has_full_index:
            return self.names.index
        return statement_index(self.tree)

    @cached_property
    def public_tensorflow(self):
        """Whether a name here may resolve to public TensorFlow (`tensorflow.nn.relu`).
        Names resolve only through imports (cglint.names): when every import that binds
        a name to TensorFlow binds it to a private module (TF's own `from
        tensorflow.python.ops import array_ops`), every chain through it is private too,
        or the public name of a TF 1.8 object (cglint.tfpublic), which 1.8 has; and no API
        table, argspec or TF_PRINTS name is private (tests/test_prefilters.py checks the
        tables). Read from the statements alone: no binder needed. But what code outside
        TensorFlow's own tree reads off TF's modules (`array_ops.multiply`) or calls through
        them (`vs.get_variable(bogus=1)`) is judged too: True there, as if it imported
        `tensorflow` itself; TF's own modules are 1.8's."""
        if "tensorflow" not in self.text:
            return False
        internal = False
        for node in self.statements[ast.Import]:
            for alias in node.names:  # `import a.b` binds `a`; `import a.b as c`, a.b
                bound = alias.name if alias.asname else alias.name.split(".")[0]
                if _public_tensorflow(bound):
                    return True
                internal = internal or bound.startswith("tensorflow.python")
        for node in self.statements[ast.ImportFrom]:
            if not node.level and node.module and any(
                    _public_tensorflow(node.module + "." + alias.name)
                    for alias in node.names if alias.name != "*"):
                return True
            internal = internal or (not node.level and (node.module or "").startswith(
                "tensorflow.python"))
        return internal and not self._is_tensorflow_itself

    def execution_mode(self, node):
        """EAGER when `node` runs only under eager execution, GRAPH when only in graph
        mode, by the `tf.executing_eagerly()` tests around it in its function: the
        branches of `if tf.executing_eagerly():`, and what follows one whose branch
        returns or raises. None when no such test decides (and in a file that never asks)."""
        if not any(word in self.text for word in _EAGER_TESTS):
            return None

        def mode(test, holds):
            eager = self._tests_eager(test)
            return None if eager is None else EAGER if eager == holds else GRAPH
        return self._decided_by_tests(node, mode, stop_at_defs=True)

    def runs_in_graph(self, node):
        """Whether `node` may run in graph mode: in a graph module, anywhere but under `if
        tf.executing_eagerly():`; in an eager module, only inside what TF traces into a
        graph (graph_traced), and not under that test there either."""
        if self.execution_mode(node) == EAGER:
            return False
        return not self.eager or self.traced_as_graph(node)

    def traced_as_graph(self, node):
        """Whether `node` is inside a function an eager module hands TF to trace into a
        graph (graph_traced)."""
        return id(node) in self._graph_traced_nodes

    @cached_property
    def _graph_traced_nodes(self):
        """ids of every node inside the graph_traced functions: one walk of each, however
        many calls ask."""
        found = set()
        for function in self.graph_traced.values():
            found.update(id(node) for node in ast.walk(function) if node is not function)
        return frozenset(found)

    @cached_property
    def graph_traced(self):
        """{id: def or lambda} of the functions an eager module hands TF to trace into a
        graph: the function of a tf.data pipeline's `.map`/`.flat_map`/`.filter`/
        `.interleave` (the receiver visibly a dataset), of `tf.contrib.data.map_and_batch`
        or `parallel_interleave`, and a `tfe.defun`'s, as a decorator or a call; given as a
        lambda, a def's name, or a name bound once to a lambda. Empty in a graph module,
        where every function is traced anyway."""
        if not any(word in self.text for word in ("map", "filter", "interleave", "defun")) \
                or not self.eager:
            return {}
        found = {}
        for function in self.nodes[ast.FunctionDef]:
            if any(self.resolve(decorator) in GRAPH_TRACERS
                   for decorator in function.decorator_list):
                found[id(function)] = function
        for call, qualname in self.calls:
            func = call.func
            if qualname in GRAPH_TRACERS:
                keywords = ("func", "map_func")
            elif isinstance(func, ast.Attribute) and func.attr in DATASET_FUNCTION_TAKERS and \
                    _is_dataset(self._receiver_class(func.value, self.names.scope_of(call),
                                                     self._with_targets)):
                keywords = ("map_func", "predicate")
            else:
                continue
            taken = call.args[0] if call.args else next(
                (k.value for k in call.keywords if k.arg in keywords), None)
            if isinstance(taken, ast.Name):
                binding = self.names.definitions(taken, self.names.scope_of(taken))
                if binding is not None and (binding.kind == "def" or (
                        binding.kind == "assign" and isinstance(binding.node, ast.Lambda))):
                    taken = binding.node
            if isinstance(taken, (ast.Lambda, ast.FunctionDef)):
                found[id(taken)] = taken
        return found

    def python_at_least(self, node):
        """The oldest Python (major, minor) that the tests around `node` let it run on:
        the body of `if six.PY3:` or `if sys.version_info >= (3, 3):`, the else of `if
        six.PY2:`, what follows `if six.PY2: return ...`; None when no test says."""
        if "version_info" not in self.text and "PY2" not in self.text and \
                "PY3" not in self.text:
            return None
        return self._decided_by_tests(node, _python_of_test, stop_at_defs=False)

    def _decided_by_tests(self, node, decide, stop_at_defs):
        """What `decide(test, holds)` says of the innermost `if` test that decides whether
        `node` runs: in the branch of an `if` (holds: True in its body, False in its
        else), or after an `if` whose body returns or raises (held false). A function
        called from anywhere ends the search when `stop_at_defs`."""
        child, parent = node, self.parent_of(node)
        while parent is not None:
            for name in ("body", "orelse"):
                statements = getattr(parent, name, None)
                if not isinstance(statements, list) or child not in statements:
                    continue
                if isinstance(parent, ast.If):
                    found = decide(parent.test, name == "body")
                    if found is not None:
                        return found
                for before in statements[:statements.index(child)]:
                    if isinstance(before, ast.If) and not before.orelse and \
                            before.body and isinstance(before.body[-1], (ast.Return, ast.Raise)):
                        found = decide(before.test, False)
                        if found is not None:
                            return found
            if stop_at_defs and isinstance(parent, (ast.FunctionDef, ast.AsyncFunctionDef,
                                                    ast.Lambda, ast.ClassDef)):
                return None
            child, parent = parent, self.parent_of(parent)
        return None

    def _tests_eager(self, test):
        """True for `tf.executing_eagerly()`, False for `not tf.executing_eagerly()`."""
        if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
            inner = self._tests_eager(test.operand)
            return None if inner is None else not inner
        if isinstance(test, ast.Call) and not test.args and not test.keywords:
            func = test.func
            if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Call) and \
                    func.attr == "executing_eagerly":  # `context.context().executing_eagerly()`
                func = func.value.func
                qualname = self.resolve(func)
                return True if qualname == "tensorflow.python.eager.context.context" else None
            qualname = self.resolve(func)
            if qualname and qualname.startswith("tensorflow."):
                # tf.executing_eagerly, and 1.8's older spellings (context.in_eager_mode,
                # tfe.in_eager_mode; context.in_graph_mode, its opposite)
                return _EAGER_TESTS.get(qualname.rpartition(".")[2])
        return None

    def ancestors(self, node):
        """The nodes `node` stands in, innermost first, up to the module's statements."""
        parent = self.parent_of(node)
        while parent is not None:
            yield parent
            parent = self.parent_of(parent)

    def parent_of(self, node):
        """The node `node` is a child of (None for the module, or a node not in the tree).
        Found by descending from the module through the children whose lines and columns
        hold the node's, so climbing from a few nodes (gradient registrations, override
        maps) costs a path, not a map of the whole tree; the path found is kept. Past
        _PATHS_BEFORE_MAP such descents, one map of every node's parent is made."""
        parents = self._parents
        if id(node) not in parents:
            self._paths_found += 1
            if self._paths_found == _PATHS_BEFORE_MAP:
                # A descent looks at every statement of each body on the way down: past a
                # few, one map of the whole tree is cheaper (2,000 tapes in one file).
                stack = [self.tree]
                while stack:
                    parent = stack.pop()
                    for child in children(parent):
                        parents[id(child)] = parent
                        stack.append(child)
            else:
                path = _path_to(self.tree, node, pruned=True) or _path_to(self.tree, node)
                for parent, child in zip(path, path[1:]):
                    parents[id(child)] = parent
            parents.setdefault(id(node), None)
        return parents[id(node)]

    @cached_property
    def overrides(self):
        """Gradient override maps and registrations (cglint.overrides.OverrideFacts)."""
        from cglint import overrides  # it builds on this module's GradFunction

        return overrides.build(self)

    @cached_property
    def grad_functions(self):
        """[(site, GradFunction)]: each gradient function the sites return, once, with
        the first site that returns it."""
        found, seen = [], set()
        for site in self.sites:
            for grad in site.grad_functions:
                if grad not in seen:
                    seen.add(grad)
                    found.append((site, grad))
        return found

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
        """Whether the module turns eager execution on, or imports a project module whose
        top level does (`import eager_setup`)."""
        if self.eager_switches:
            return True
        return self._imports_eager_switch()

    @cached_property
    def may_run_eager(self):
        """Whether the module may run under eager execution: it turns it on (eager), or a
        project module importing it does, anywhere (an entry script's `main()`). Graph-only
        failures are then not certain; eager-only ones are not either (those ask eager)."""
        if self.eager:
            return True
        if self.path == "-":
            return False
        from cglint import project
        found, dependencies = project.current().imported_by_eager_program(self.path)
        self.dependencies.update(dependencies)
        return found

    @cached_property
    def eager_switches(self):
        """The calls that turn eager execution on, in source order, but those in a block
        that expects them to raise (`with self.assertRaises(TypeError):`, a test of bad
        arguments)."""
        if not may_switch_eager(self.text):
            return []
        found = [call for call, qualname in self.calls if qualname in EAGER_SWITCHES
                 and not self._expected_to_raise(call)]
        return sorted(found, key=lambda call: (call.lineno, call.col_offset))

    def _expected_to_raise(self, node):
        return any(isinstance(parent, (ast.With, ast.AsyncWith)) and any(
            _called_name(item.context_expr) in _RAISING_CONTEXTS for item in parent.items)
            for parent in self.ancestors(node))

    @property
    def enables_eager_on_import(self):
        """Whether importing the module turns eager execution on: a call of the switch at
        its top level (not in a def, a class or `if __name__ == "__main__":`)."""
        if not may_switch_eager(self.text):
            return False
        for statement in self.tree.body:
            if isinstance(statement, ast.Expr) and isinstance(statement.value, ast.Call) \
                    and self.resolve(statement.value.func) in EAGER_SWITCHES:
                return True
        return False

    @cached_property
    def graph_only_calls(self):
        """[(call, qualname)] of what TF 1.8 refuses under eager execution (GRAPH_ONLY), in
        a module whose top level turns it on: after the switch, or in a def; but in a
        block that visibly runs in a graph (`with tf.Graph().as_default():`, a session),
        under a test of the mode, or in a function made a graph function (`defun`)."""
        if not self.eager_switches or self._is_tensorflow_itself or not any(
                word in self.text for word in ("Variable", "placeholder", "gradients")):
            return []
        # The first switch of the top level (in source order); one 1.8 lacks,
        # `tf.compat.v1.enable_eager_execution()`, fails first.
        top_level = {id(statement.value) for statement in self.tree.body
                     if isinstance(statement, ast.Expr)}
        switch = next((call.lineno for call in self.eager_switches if id(call) in top_level
                       and self.resolve(call.func) in EAGER_SWITCHES_OF_18), None)
        if switch is None:
            return []
        found = []
        for call, qualname in self.calls:
            if qualname in GRAPH_ONLY and not self._maybe_in_a_graph(call, switch):
                found.append((call, qualname))
        return found

    def _maybe_in_a_graph(self, node, switch):
        in_def = False
        for parent in self.ancestors(node):
            if isinstance(parent, (ast.With, ast.AsyncWith)) and any(
                    word in ast.unparse(item.context_expr)
                    for item in parent.items for word in _GRAPH_CONTEXT_WORDS):
                return True
            if isinstance(parent, (ast.If, ast.IfExp, ast.While)) and any(
                    word in ast.unparse(parent.test) for word in _MODE_TEST_WORDS):
                return True
            if isinstance(parent, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
                in_def = True
                if any(word in ast.unparse(decorator) for decorator in getattr(
                        parent, "decorator_list", ()) for word in _GRAPH_FUNCTION_WORDS):
                    return True
        return not in_def and node.lineno < switch

    def _imports_eager_switch(self):
        return any(summary.enables_eager for summary in self._top_level_imports)

    @cached_property
    def _top_level_imports(self):
        """ModuleSummary of each project module that runs before the module's own code:
        the `__init__` of each package it is in, and what its top level imports, with the
        packages above them (`from pkg.ops import f` runs pkg/__init__.py first); each a
        dependency."""
        if self.path == "-":
            return []
        from cglint import project
        where = project.current()
        paths = list(project.enclosing_package_inits(self.path))
        for node in self.tree.body if "import" in self.text else ():
            if not isinstance(node, (ast.Import, ast.ImportFrom)):
                continue
            for module, level in _imported_modules(node):
                if _tensorflow_module(module, level):
                    continue
                if not level:  # `a.b.c` runs a and a.b first
                    parts = module.split(".")
                    wanted_above = [".".join(parts[:n]) for n in range(1, len(parts))]
                    paths += [where.module_path(self.path, above, 0) for above in wanted_above]
                paths.append(where.module_path(self.path, module, level))
        found, seen = [], set()
        for path in paths:
            if path is None or path in seen:
                continue
            seen.add(path)
            summary = where.summary(path)
            if summary is not None:  # what it does is drawn from its text
                self.dependencies.add(project.Dependency(summary.path, summary.digest))
                found.append(summary)
        return found

    @cached_property
    def stored_tf_names(self):
        """TensorFlow names the module assigns (`tf.TensorSpec = TensorSpec`)."""
        return {qualname for node in self.nodes[ast.Attribute]
                if isinstance(node.ctx, ast.Store)
                for qualname in [self.resolve(node)]
                if qualname and qualname.startswith("tensorflow.")}

    def stored_by_imports(self, qualname):
        """Whether a project module imported at the top assigns `qualname` (or a module
        above it) on TensorFlow: a backport that gives 1.8 the name. Also one those import
        in turn (`main` imports `model_desc`, whose top level calls the backport of
        `compat`), asked only when no direct import stores it."""
        wanted = _and_above(qualname)
        return not self._imported_tf_stores.isdisjoint(wanted) or \
            not self._further_imported_tf_stores.isdisjoint(wanted)

    @cached_property
    def _imported_tf_stores(self):
        return frozenset(name for summary in self._top_level_imports
                         for name in summary.tf_stores)

    @cached_property
    def _further_imported_tf_stores(self):
        """The TensorFlow names the modules that the top-level imports import when they
        are imported (and so on, nearest first, bounded: their top-level imports, and the
        `__init__` of the packages above each) assign; each module read a dependency."""
        from cglint import project
        where = project.current()
        queue = [(summary.path, 1) for summary in self._top_level_imports]
        seen = {path for path, _ in queue}
        stores = set()
        while queue and len(seen) <= project.MAX_IMPORTED_MODULES:
            path, depth = queue.pop(0)
            summary = where.summary(path, with_imports=True)
            if summary is None:
                continue
            self.dependencies.add(project.Dependency(summary.path, summary.digest))
            stores.update(summary.tf_stores)
            if depth >= project.MAX_IMPORT_DEPTH:
                continue
            found = [where.module_path(path, module, level)
                     for module, level in summary.top_imports]
            for module_file in found:
                if module_file is None or module_file in seen:
                    continue
                for file in list(project.enclosing_package_inits(module_file)) + [module_file]:
                    if file not in seen:
                        seen.add(file)
                        queue.append((file, depth + 1))
        return frozenset(stores)

    @cached_property
    def tape_calls(self):
        if "GradientTape" not in self.text:
            return []
        return [call for call, qualname in self.calls if qualname in GRADIENT_TAPES]

    @cached_property
    def override_maps(self):
        if "gradient_override_map" not in self.text:
            return []
        return [call for call in self.nodes[ast.Call]
                if isinstance(call.func, ast.Attribute)
                and call.func.attr == "gradient_override_map"]

    @cached_property
    def api_uses(self):
        """Every outermost attribute chain that resolves to a `tensorflow.` name."""
        if not self.public_tensorflow:
            return []  # every chain that resolves to TensorFlow is private: none to judge
        attributes = self.nodes[ast.Attribute]
        inner = {id(node.value) for node in attributes}
        called = {id(node.func): node for node in self.nodes[ast.Call]}
        uses, stored = [], {}
        for node in attributes:
            if id(node) in inner:
                continue
            qualname = self.resolve(node)
            if qualname and qualname.startswith("tensorflow."):
                if isinstance(node.ctx, ast.Load):
                    uses.append(ApiUse(node, qualname, called.get(id(node))))
                else:
                    # `tf.model = ...`: the code's own attribute
                    stored.setdefault(qualname, []).append(node)
                    if isinstance(node.value, ast.Attribute):  # `tf.a.b = ...` reads tf.a
                        owner = self.resolve(node.value)
                        uses.append(ApiUse(node.value, owner, None))
        if stored:
            uses = [use for use in uses if not self._stored_first(use, stored)]
        return uses

    def in_loop(self, node, stop=None):
        """Whether `node` stands in a loop (its body or its `else`), below `stop` when
        given (the def or module whose own loops count)."""
        for parent in self.ancestors(node):
            if parent is stop:
                return False
            if isinstance(parent, (ast.For, ast.AsyncFor, ast.While)):
                return True
        return False

    def _stored_first(self, use, stored):
        """Whether one of the module's own stores of the name a use reads (or of a module
        above it: {qualname: [store nodes]}) may run before the read: any store, but one
        that comes later at the top level of the module for a read there, which runs
        first (`h = tf.logging._logger` then `tf.logging._logger = ...`)."""
        names, module_scope = self.names, self.names.module
        # (in a loop, a store further down may run before the read's next turn)
        at_top = names.scope_of(use.node) is module_scope and not self.in_loop(use.node)
        read_at = (use.node.lineno, use.node.col_offset)
        return any(not (at_top and names.scope_of(store) is module_scope
                        and (store.lineno, store.col_offset) > read_at)
                   for name in _and_above(use.qualname) for store in stored.get(name, ()))

    @cached_property
    def private_uses(self):
        """[ApiUse] of the private names of TF's own modules the code reaches that TF
        1.8's modules lack (`gen_nn_ops._relu_grad(...)`, `variable_scope._VARSCOPE_KEY`,
        `tf.nn._nn_grad`), which api_uses, holding public names, leaves out: each first
        private attribute of a chain whose owner is a module whose private names TF 1.8's
        are recorded (tfimports.private_names), but those the module stores itself
        (`gen_nn_ops._relu_grad = gen_nn_ops.relu_grad`, a backport)."""
        roots = () if self._is_tensorflow_itself else _private_read_roots(self.text)
        if not roots:
            # (most files with one are `self._x`: the aliases decide; TensorFlow's own
            # sources read the private names of their own release, and need no binder)
            return []
        aliases = set()  # the names imports bind to TensorFlow or to its modules
        for node in self.statements[ast.ImportFrom]:
            if not node.level and (node.module or "").startswith("tensorflow"):
                aliases.update(alias.asname or alias.name for alias in node.names)
        for node in self.statements[ast.Import]:
            # `import ...gen_nn_ops as g` reads `g._x`; without `as`, the whole path is
            # written: `tensorflow.python...._x` reads from the top name on.
            aliases.update(alias.asname or alias.name.partition(".")[0] for alias in node.names
                           if alias.name.partition(".")[0] == "tensorflow")
        aliases &= roots
        if not aliases:
            return []
        from cglint import tfimports

        missing, stored = [], {}
        for node in self.nodes[ast.Attribute]:
            name = node.attr
            if name[:1] != "_" or name[:2] == "__":
                continue
            root = node.value
            while type(root) is ast.Attribute:
                root = root.value
            if type(root) is not ast.Name or root.id not in aliases:
                continue
            owner = self.resolve(node.value)
            names = tfimports.private_names(owner) if owner else None
            if names is None:
                continue
            if not isinstance(node.ctx, ast.Load):
                stored.setdefault(owner + "." + name, []).append(node)
            elif name not in names:
                missing.append((node, owner + "." + name))
        if not missing:
            return []
        called = {id(node.func): node for node in self.nodes[ast.Call]}
        uses = [ApiUse(node, qualname, called.get(id(node))) for node, qualname in missing]
        return [use for use in uses if not self._stored_first(use, stored)]

    @cached_property
    def method_uses(self):
        """Method calls on TensorFlow objects the code visibly makes: `t.gradient(...)`
        after `with tf.GradientTape() as t:` or `t = tf.GradientTape()`, and
        `self.opt.minimize(...)` after `self.opt = tf.train.AdamOptimizer(...)` in a method
        of the class. As ApiUse with the method's qualified name; only calls that pass
        keywords (what CG403 checks)."""
        if not self.public_tensorflow:
            return []  # only public classes have recorded argspecs
        with_targets = self._with_targets
        uses = []
        for call in self.nodes[ast.Call]:
            func = call.func
            if not isinstance(func, ast.Attribute) or not call.keywords:
                continue  # only keywords are checked against the argspecs
            scope = self.names.scope_of(call)
            kind = self._receiver_class(func.value, scope, with_targets)
            if kind is not None:
                uses.append(ApiUse(func, "%s.%s" % (kind, func.attr), call))
        return uses

    @cached_property
    def name_calls(self):
        """[ApiUse] of calls of a plain name that resolves to a TensorFlow function (`from
        tensorflow import gradients`, `moments = tf.nn.moments`): the calls api_uses,
        which holds attribute chains, does not see."""
        if not self.public_tensorflow:
            return []
        found = []
        for call in self.nodes[ast.Call]:
            if isinstance(call.func, ast.Name):
                qualname = self.resolve(call.func)
                if qualname and qualname.startswith("tensorflow."):
                    found.append(ApiUse(call.func, qualname, call))
        return found

    @cached_property
    def _with_targets(self):
        """{id(Name bound by `with X() as name`): the X() call}."""
        found = {}
        for node in self.nodes[ast.With] + self.nodes[ast.AsyncWith]:
            for item in node.items:
                if isinstance(item.optional_vars, ast.Name):
                    found[id(item.optional_vars)] = item.context_expr
        return found

    @cached_property
    def missing_methods(self):
        """[ApiUse] of calls of methods that a TF object the code visibly made has not in
        TF 1.8 (`tape.jacobian(y, x)` after `with tf.GradientTape() as tape`, `.unbatch()`
        on a tf.data pipeline, an optimizer's): those its class and public bases lack in
        the 1.8 argspecs, which record every public method of these classes."""
        # Each class judged is made by a call naming it (`tf.GradientTape()`,
        # `tf.data.Dataset.range(3)`, `tf.train.AdamOptimizer()`): without the word, none.
        if not self.public_tensorflow or not any(
                word in self.text for word in ("GradientTape", "Dataset", "Optimizer")):
            return []
        from cglint import tfapi  # the argspecs: only for modules that make TF objects
        found = []
        for call in self.nodes[ast.Call]:
            func = call.func
            if not isinstance(func, ast.Attribute) or func.attr.startswith("_") or \
                    not isinstance(func.value, (ast.Name, ast.Call, ast.Attribute)):
                continue
            kind = self._receiver_class(func.value, self.names.scope_of(call),
                                        self._with_targets)
            if kind is not None and _methods_recorded(kind) and tfapi.method_missing(
                    kind, func.attr, self.target_tf) and not self._stored_on(func):
                found.append(ApiUse(func, "%s.%s" % (kind, func.attr), call))
        return found

    @cached_property
    def _is_tensorflow_itself(self):
        from cglint.tfpackage import is_tensorflow_file
        return self.path != "-" and is_tensorflow_file(self.path)

    @cached_property
    def tape_gradient_calls(self):
        """[(call, the `with` block it runs in or None)] of `tape.gradient(...)` on a tape
        the code visibly made (`with tf.GradientTape() as tape`): the block is the one that
        made that tape, when the call is inside it."""
        if not self.public_tensorflow or "GradientTape" not in self.text:
            return []
        found = []
        for call in self.nodes[ast.Call]:
            func = call.func
            if not isinstance(func, ast.Attribute) or func.attr != "gradient":
                continue
            kind = self._receiver_class(func.value, self.names.scope_of(call),
                                        self._with_targets)
            if kind is not None and kind.rpartition(".")[2] == "GradientTape":
                found.append((call, self._making_block(call, func.value)))
        return found

    def _making_block(self, call, tape):
        """The `with ... as tape:` statement around `call` that binds the name `tape`."""
        if not isinstance(tape, ast.Name):
            return None
        for node in self.ancestors(call):
            if isinstance(node, _SCOPE_NODES):
                return None
            if isinstance(node, (ast.With, ast.AsyncWith)) and any(
                    isinstance(item.optional_vars, ast.Name) and item.optional_vars.id ==
                    tape.id for item in node.items):
                return node
        return None

    @cached_property
    def tape_target_lists(self):
        """[(target argument, the display it is)] of `tape.gradient([y1, y2], x)` on a tape
        the code visibly made: a list or tuple display, or a name bound only to one
        (`targets = (y1, y2)`), which TF 1.8's `GradientTape.gradient` cannot take (it
        wants one tensor, facts e6)."""
        found = []
        for call, _ in self.tape_gradient_calls:
            target = display = passed_argument(call, 0, "target")
            if isinstance(target, ast.Name):
                # (a list stays a list, whatever is put in it later)
                binding = self.names.definitions(target, self.names.scope_of(target))
                if binding is not None and binding.kind == "assign":
                    display = binding.node
            if isinstance(display, (ast.List, ast.Tuple, ast.ListComp)):
                found.append((target, display))
        return found

    def _stored_on(self, attribute):
        """Whether the module assigns the attribute on that receiver (`opt.warm = f`)."""
        receiver = ast.unparse(attribute.value)
        return any(isinstance(node.ctx, ast.Store) and node.attr == attribute.attr
                   and ast.unparse(node.value) == receiver
                   for node in self.nodes[ast.Attribute])

    def _receiver_class(self, expr, scope, with_targets, depth=0):
        """The qualified TensorFlow class an object expression was made by, or None."""
        if isinstance(expr, ast.Call) and depth < _MAX_DEPTH:
            return self._dataset_made(expr, scope, with_targets, depth)
        if isinstance(expr, ast.Name):
            bindings = self.names.lookup(expr.id, scope)
            if len(bindings) > 1 and depth < _MAX_DEPTH:
                return self._rebound_dataset(expr, bindings, with_targets, depth)
            if len(bindings) != 1:
                return None
            binding = bindings[0]
            if binding.kind == "assign" and isinstance(binding.node, ast.Call) and \
                    depth < _MAX_DEPTH:
                # `ds = tf.data.Dataset.from_tensor_slices(x)`: a factory's or a
                # transformation's result too, not only a constructor's
                return self._receiver_class(binding.node, binding.scope, with_targets,
                                            depth + 1)
            if binding.kind == "assign":
                return self._constructed(binding.node, binding.scope)
            if binding.kind == "other" and id(binding.node) in with_targets:
                return self._constructed(with_targets[id(binding.node)], binding.scope)
            return None
        if isinstance(expr, ast.Attribute) and isinstance(expr.value, ast.Name):
            owner = self.instance_class(expr.value, scope)
            if owner is not None:
                return self.instance_attribute_classes(owner).get(expr.attr)
        return None

    def _dataset_made(self, call, scope, with_targets, depth):
        """DATASET for a tf.data pipeline step: a Dataset factory's call
        (`tf.data.Dataset.from_tensor_slices(x)`), or a transformation (`.batch(32)`) of
        a dataset; a dataset class's own constructor is _constructed's."""
        func = call.func
        if isinstance(func, ast.Name) and self._returns_datasets(call, with_targets, depth):
            return DATASET  # `make_dataset(n)`: a def of the module that returns one
        if not isinstance(func, ast.Attribute):
            return self._constructed(call, scope)
        qualname = self.names.resolve(func, scope)
        if qualname and qualname.rpartition(".")[0] == DATASET and \
                func.attr in DATASET_FACTORIES:
            return DATASET
        if func.attr in DATASET_TRANSFORMATIONS and _is_dataset(
                self._receiver_class(func.value, scope, with_targets, depth + 1)):
            return DATASET
        return self._constructed(call, scope)

    def _returns_datasets(self, call, with_targets, depth):
        """Whether the module's def `call` runs returns a dataset from every `return`
        (worked out once per def)."""
        function = self.called_function(call, self.names.scope_of(call))
        if function is None:
            return False
        key = (id(function), depth)  # (an answer cut short by depth is its own)
        if key not in self._datasets_returned:
            self._datasets_returned[key] = False  # while it is worked out
            self._datasets_returned[key] = self._returns_datasets_now(
                function, with_targets, depth)
        return self._datasets_returned[key]

    def _returns_datasets_now(self, function, with_targets, depth):
        own_scope = self.names.scope_for_def[id(function)]
        values = [node.value for node in own_nodes(function) if isinstance(node, ast.Return)]
        return bool(values) and all(
            value is not None and _is_dataset(
                self._receiver_class(value, own_scope, with_targets, depth + 1))
            for value in values)

    def _rebound_dataset(self, name, bindings, with_targets, depth):
        """DATASET for `ds = tf.data.TFRecordDataset(f)` then `ds = ds.map(parse)`, ...:
        every assignment makes a dataset, from another step of the same name or anew.
        Each name's answer is kept (None while it is worked out), so names rebound from
        each other cost one look each."""
        key = (name.id, id(bindings[0].scope))
        if key not in self._rebound:
            self._rebound[key] = None
            self._rebound[key] = self._rebound_dataset_now(name, bindings, with_targets, depth)
        return self._rebound[key]

    def _rebound_dataset_now(self, name, bindings, with_targets, depth):
        made = False
        for binding in bindings:
            value = binding.node
            if binding.kind != "assign" or not isinstance(value, ast.Call):
                return None
            root = value
            while isinstance(root, ast.Call) and isinstance(root.func, ast.Attribute):
                root = root.func.value
            if isinstance(root, ast.Name) and root.id == name.id:
                continue  # a step of the same pipeline
            if not _is_dataset(self._receiver_class(value, binding.scope, with_targets,
                                                    depth + 1)):
                return None
            made = True
        return DATASET if made else None

    def _constructed(self, value, scope):
        if not isinstance(value, ast.Call):
            return None
        qualname = self.names.resolve(value.func, scope)
        if qualname and qualname.startswith("tensorflow.") and qualname.rsplit(".", 1)[1][:1].isupper():
            return qualname
        return None

    def instance_attribute_classes(self, owner):
        """{attribute: TensorFlow class} for `self.x = tf.SomeClass(...)` in the methods of
        a class (its scope), where every assignment of the attribute agrees."""
        cached = self._attribute_classes.get(id(owner))
        if cached is not None:
            return cached
        found = {}
        for attr, value, method_scope in self._class_attribute_stores(owner):
            kind = self._constructed(value, method_scope)
            previous = found.get(attr, kind)
            found[attr] = kind if previous == kind else None
        found = {name: kind for name, kind in found.items() if kind is not None}
        self._attribute_classes[id(owner)] = found
        return found

    @cached_property
    def imports(self):
        found = []
        for node in self.statements[ast.Import]:
            found += [ImportUse(node, alias.name) for alias in node.names
                      if alias.name.split(".")[0] == "tensorflow"]
        for node in self.statements[ast.ImportFrom]:
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
    def imported_calls(self):
        """[(call, ImportedSite)]: calls of custom-gradient functions that other modules
        of the project define, found on disk from this file's imports (never imported)."""
        if not self._imports_project_sites:
            return []
        found = []
        for call, qualname in self.calls:
            if qualname == "functools.partial" and call.args:
                continue  # a partial is not a call of its first argument
            site = self._imported_site(call.func, qualname)
            if site is not None:
                found.append((call, site))
        return found

    @cached_property
    def imported_partials(self):
        """[(call, ImportedSite)] for `functools.partial(imported_site, ...)`."""
        if "partial" not in self.text or not self._imports_project_sites:
            return []
        found = []
        for call, qualname in self.calls:
            if qualname == "functools.partial" and call.args and isinstance(
                    call.args[0], (ast.Name, ast.Attribute)):
                site = self._imported_site(call.args[0], self.resolve(call.args[0]))
                if site is not None:
                    found.append((call, site))
        return found

    @cached_property
    def _imports_project_sites(self):
        """Whether some import statement loads a project module that defines or
        re-exports custom-gradient functions: checked per import, not per call."""
        if self.path == "-" or "import" not in self.text:
            return False
        from cglint import project
        where = project.current()
        wanted = [found for node in self.statements[ast.Import] + self.statements[ast.ImportFrom]
                  for found in _imported_modules(node)]
        offered = False
        for module, level in wanted:
            if _tensorflow_module(module, level):
                continue  # TensorFlow's own functions: the API tables' business
            offers, dependencies = where.offers_sites(self.path, module, level)
            offered = offered or offers
            # Whether it offers any is itself drawn from the content of the modules it was
            # looked up in.
            self.dependencies.update(dependencies)
        return offered

    def _imported_site(self, expr, qualname):
        instance = self._factory_call(expr.value) if qualname is None and isinstance(
            expr, ast.Attribute) else None
        if instance is not None:
            # `Ops().grl(x)`, or `ops = Ops()` then `ops.grl(x)`: the staticmethod
            # `Ops.grl` of an imported class
            made = self._import_target(instance.func, self.resolve(instance.func))
            if made is None:
                return None
            module, level, name = made
            return self._imported_site_of((module, level, name + "." + expr.attr))
        factory = self._factory_call(expr) if qualname is None else None
        if factory is not None:
            # `make_clipper("c")(x)`, or `clip = make_clipper("c"); clip(x)`: the function
            # an imported factory makes (its module lists it as `make_clipper()`)
            made = self._import_target(factory.func, self.resolve(factory.func))
            if made is None:
                return None
            module, level, name = made
            return self._imported_site_of((module, level, name + "()"))
        target = self._import_target(expr, qualname)
        if target is None:
            # `from ops import *` then `scale_grad(x)`: the last star import that offers
            # the name is where it comes from
            for star in self._star_targets(expr):
                brought = self._star_names(star)
                if brought is None:
                    return None  # a module cglint cannot read may bring the name
                if star[2] in brought:  # the last star import that brings it wins
                    return self._imported_site_of(star)
            return None
        return self._imported_site_of(target)

    def _factory_call(self, expr):
        """The call of a named function that a called expression is (`make(...)` of
        `make(...)(x)`) or that a name is bound to once (`clip = make(...)`), or None."""
        if isinstance(expr, ast.Name):
            binding = self.names.definitions(expr, self.names.scope_of(expr))
            if binding is None or binding.kind != "assign" or (
                    binding.scope.kind == "module" and self.names.declared_global(expr.id)):
                return None
            expr = binding.node
        if isinstance(expr, ast.Call) and isinstance(expr.func, (ast.Name, ast.Attribute)):
            return expr
        return None

    def _star_targets(self, expr):
        """(module, level, name) for each top-level `from m import *` of the module, the
        last first, when `expr` is a name nothing in the module binds."""
        if not isinstance(expr, ast.Name) or expr.id.startswith("_") or "*" not in self.text:
            return []  # (a star import leaves out names starting with `_`)
        if self.names.lookup(expr.id, self.names.scope_of(expr)) or \
                expr.id in _BUILTIN_NAMES:
            return []
        return [(node.module or "", node.level, expr.id)
                for node in reversed(star_imports(self.tree))]

    def _star_names(self, target):
        """The names `from module import *` of `target` brings, or None when unknown."""
        from cglint import project

        module, level, _ = target
        names, dependency = project.current().star_names(self.path, module, level)
        if dependency is not None:
            self.dependencies.add(dependency)
        return names

    def _imported_site_of(self, target):
        if _tensorflow_module(target[0], target[1]):
            return None
        if target not in self._imported:  # a module calls the same names again and again
            from cglint import project  # only files with project imports need it
            module, level, name = target
            site, dependencies = project.current().imported_site(self.path, module, name, level)
            self.dependencies.update(dependencies)
            self._imported[target] = site
        return self._imported[target]

    def _import_target(self, func, qualname):
        """(module, level, name) a called expression imports, or None."""
        if qualname is not None:
            module, _, name = qualname.rpartition(".")
            return (module, 0, name) if module else None
        # Relative imports bind no qualified name: `from .ops import scale`, `from . import ops`
        if isinstance(func, ast.Name):
            base, attribute = func, None
        elif isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name):
            base, attribute = func.value, func.attr
        else:
            return None
        binding = self.names.definitions(base, self.names.scope_of(func))
        if binding is None or not isinstance(binding.node, ast.ImportFrom) or not binding.node.level:
            return None
        node = binding.node
        imported = next((alias.name for alias in node.names
                         if (alias.asname or alias.name) == base.id), None)
        if imported is None:
            return None
        if attribute is None:
            return node.module or "", node.level, imported
        module = "%s.%s" % (node.module, imported) if node.module else imported
        return module, node.level, attribute

    @cached_property
    def defun_sites(self):
        if "Defun" not in self.text:
            return []
        finder = _SiteFinder(self)
        found = []
        functions = self.nodes[ast.FunctionDef]
        for node in sorted(functions, key=lambda n: (n.lineno, n.col_offset)):
            scope = self.names.scope_of(node)
            for decorator in node.decorator_list:
                if (isinstance(decorator, ast.Call)
                        and self.names.resolve(decorator.func, scope) in DEFUN):
                    found.append(finder.defun_site(node, decorator, scope))
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

    def count_values(self, expr, scope, depth=0, arguments=None):
        """How many tensors `nest.flatten(expr)` gives, or None when it cannot be known.

        The parameters of `scope` are tensors (a gradient or custom-gradient function's),
        unless `arguments` (see `call_arguments`) says `scope` is a helper being followed:
        then a parameter counts as the argument the call passed it."""
        if depth > _MAX_DEPTH or expr is None:
            return None
        if isinstance(expr, _OneTensor):
            return 1
        if isinstance(expr, (ast.Tuple, ast.List)):
            total = 0
            for element in expr.elts:
                if isinstance(element, ast.Starred):  # `(dy, *[None] * 3)`: its items
                    count = self._count_spread(element.value, scope, depth + 1, arguments)
                else:
                    count = self.count_values(element, scope, depth + 1, arguments)
                if count is None:
                    return None
                total += count
            return total
        if isinstance(expr, ast.Constant):
            return 1  # None, or a number (CG110's business)
        if isinstance(expr, ast.Dict):  # nest.flatten gives its values
            if None in expr.keys:
                return None  # `{**other}`
            return self.count_values(ast.List(elts=expr.values), scope, depth + 1, arguments)
        if isinstance(expr, (ast.BinOp, ast.UnaryOp)):
            operands = [expr.left, expr.right] if isinstance(expr, ast.BinOp) else [expr.operand]
            if _is_sequence(expr):  # `[dy] + [None] * 3`
                return self._count_concatenated(expr, scope, depth, arguments)
            if isinstance(expr, ast.BinOp) and isinstance(expr.op, ast.Add) and any(
                    isinstance(o, (ast.List, ast.Tuple)) for o in operands):
                # `gs + [dy]` of a list of known items (`gs = tf.split(dy, 2)`): joined
                items = [self._items(o, scope, depth + 1, arguments) for o in operands]
                if None not in items:
                    return self._count_items(items[0] + items[1], depth)
            if any(isinstance(o, (ast.List, ast.Tuple, ast.ListComp)) for o in operands):
                return self._count_repeated(expr, scope, depth, arguments)
            if _never_a_sequence(expr):
                return 1
            return 1 if self._is_tensor(expr, scope, depth, arguments) else None
        if isinstance(expr, ast.ListComp):
            return self._count_comprehension(expr, scope, depth, arguments)
        if isinstance(expr, ast.Call):
            if self._is_tensor(expr, scope, depth, arguments):
                return 1
            shaped = self._shaped_like(expr, scope, depth, arguments)
            if shaped is not None:
                value, where, passed = shaped
                return self.count_values(value, where, depth + 1, passed)
            items = self._call_items(expr, scope, depth, arguments)
            if items is not None:
                return self._count_items(items, depth)
            built = self._built(expr, scope, depth, arguments)
            if built is not None:  # a namedtuple's fields, a dict's values
                return self._count_items(built[0], depth)
            if self.python3_map(expr):
                return 1  # Python 3's map object: one leaf to nest.flatten
            branches = self._cond_branches(expr, scope)
            if branches is not None:  # tf.cond gives what its branches give
                return _agreed(self.count_values(body, branch_scope, depth + 1, arguments)
                               for body, branch_scope in branches)
            return self._count_returned(expr, scope, depth, arguments)
        if isinstance(expr, ast.Name):
            scope = self._closure_scope(expr, scope, arguments)
            values = self.assigned_values(expr, scope)
            if values is None:
                appended = self._count_appended(expr, scope, depth, arguments)
                if appended is not None:
                    return appended
                unpacked = self._followed_once("count unpacked", expr, scope, depth, arguments)
                if unpacked is not None:
                    return unpacked[0]
                return 1 if self._is_parameter(expr, scope, depth, arguments) or (
                    self._unpacked_tensor(expr, scope)) else None
            return self._followed_once("count", expr, scope, depth, arguments)
        if isinstance(expr, ast.IfExp):
            counts = {self.count_values(expr.body, scope, depth + 1, arguments),
                      self.count_values(expr.orelse, scope, depth + 1, arguments)}
            return counts.pop() if len(counts) == 1 else None
        if isinstance(expr, ast.Subscript):
            picked = self._picked(expr, scope, depth, arguments)
            if picked is not None:  # `tf.clip_by_global_norm(grads, 1.0)[0]`: the list
                kind, found = picked
                if kind == "item":
                    return self.count_values(found[0], found[1], depth + 1, found[2])
                return self._count_items(found, depth) if kind == "items" else None
            # `grad[0]` of one tensor: one tensor
            return 1 if self._is_tensor(expr, scope, depth, arguments) else None
        return None

    def _closure_scope(self, name, scope, arguments):
        """The scope to follow `name` in: `scope` when it binds it (or when a helper's
        arguments are being followed), else the enclosing function's that assigns it
        (`params = [x, w]` in the custom-gradient function, read by its gradient
        function), so that its values are known there; a parameter of an enclosing
        function stays a question for `scope` (_is_parameter)."""
        if arguments is not None or name.id in scope.bindings:
            return scope
        bindings = self.names.lookup(name.id, scope)
        if not bindings or any(binding.kind not in ("assign", "other") for binding in bindings):
            return scope
        owner = bindings[0].scope
        if owner is None or owner.kind != "function" or any(
                binding.scope is not owner for binding in bindings[1:]):
            return scope
        return owner

    def _count_spread(self, value, scope, depth, arguments):
        """What `*value` in a list or tuple display adds: the count of a list or tuple of
        known items (a display, repeated or concatenated, a comprehension, see _items);
        None for anything else (a tensor, a dict's keys, a string's characters)."""
        if _is_sequence(value) or isinstance(value, ast.ListComp):
            return self.count_values(value, scope, depth, arguments)
        items = self._items(value, scope, depth, arguments)
        return None if items is None else self._count_items(items, depth)

    def _count_items(self, items, depth):
        """The count of [(item, its scope, its arguments)] together, or None."""
        total = 0
        for value, where, passed in items:
            count = self.count_values(value, where, depth + 1, passed)
            if count is None:
                return None
            total += count
        return total

    def _tf_function(self, func, scope):
        """The path below `tensorflow.` of the TensorFlow function `func` names
        (`clip_by_global_norm`), or None."""
        qualname = self.names.resolve(func, scope)
        return _tf_path(qualname) if qualname and qualname.startswith("tensorflow.") else None

    def _shaped_like(self, call, scope, depth, arguments):
        """(value, its scope, its arguments) whose structure a TensorFlow call's result
        has, one tensor for each of its tensors, or None: the list of `tf.tuple` and
        `tf.identity_n` (SHAPED_LIKE_ARGUMENT); the first structure of
        `nest.map_structure(fn, ...)` when `fn` gives one tensor for one; the structure of
        `nest.pack_sequence_as(structure, flat)` when it holds as many as `flat`."""
        path = self._tf_function(call.func, scope)
        if path is None or any(isinstance(a, ast.Starred) for a in call.args) or any(
                k.arg is None for k in call.keywords):
            return None
        if path in SHAPED_LIKE_ARGUMENT:
            given = passed_argument(call, SHAPED_LIKE_ARGUMENT[path][1],
                                    SHAPED_LIKE_ARGUMENT[path][0])
            return None if given is None else (given, scope, arguments)
        nested = _nest_function(path)
        if nested == "map_structure" and len(call.args) >= 2 and self._maps_one_to_one(
                call.args[0], scope, depth):
            return call.args[1], scope, arguments
        if nested == "pack_sequence_as":
            structure = passed_argument(call, 0, "structure")
            flat = passed_argument(call, 1, "flat_sequence")
            items = self._items(flat, scope, depth + 1, arguments)
            if structure is not None and items is not None:
                count = self.count_values(structure, scope, depth + 1, arguments)
                if count is not None and count == len(items) == self._count_items(
                        items, depth):
                    return structure, scope, arguments
        return None

    def _maps_one_to_one(self, function, scope, depth):
        """Whether `function`, given one tensor, gives one: a lambda whose body is one
        (its parameters are tensors), or a TensorFlow function of one tensor."""
        if isinstance(function, ast.Lambda):
            own = self.names.scope_for_def[id(function)]
            return self.count_values(function.body, own, depth + 1) == 1
        path = self._tf_function(function, scope)
        return path is not None and path not in MULTI_OUTPUT and _nest_function(path) is None

    def _call_items(self, call, scope, depth, arguments):
        """[(item, its scope, its arguments)] of the list or tuple a TensorFlow call gives,
        when its length is known: `tf.split` and `tf.unstack` with a literal count,
        FIXED_OUTPUT_COUNTS, COUNTED_BY_ARGUMENT, `tf.meshgrid(a, b)` (one tensor for each
        argument), `nest.flatten(structure)` (one for each of its tensors), and
        `tf.clip_by_global_norm(t_list, norm)` (the clipped list, then the global norm);
        else None."""
        path = self._tf_function(call.func, scope)
        if path is None:
            return None
        count = self._count_split(call, scope)
        if path in FIXED_OUTPUT_COUNTS:
            count = FIXED_OUTPUT_COUNTS[path]
        elif path in COUNTED_BY_ARGUMENT:  # one per tensor it was given
            keyword, position, extra = COUNTED_BY_ARGUMENT[path]
            given = passed_argument(call, position, keyword)
            count = None if given is None else self.count_values(
                given, scope, depth + 1, arguments)
            count = None if count is None else count + extra
        elif path == "meshgrid" and not any(isinstance(a, ast.Starred) for a in call.args):
            count = len(call.args)
        elif path in ("svd", "linalg.svd") and not any(
                isinstance(a, ast.Starred) for a in call.args) and all(
                    k.arg is not None for k in call.keywords):
            # (s, u, v); with `compute_uv=False` the one tensor s: a literal says which
            given = next((k.value for k in call.keywords if k.arg == "compute_uv"),
                         call.args[2] if len(call.args) > 2 else None)
            if given is None or (isinstance(given, ast.Constant) and given.value is True):
                count = 3
        elif _nest_function(path) == "flatten":
            given = passed_argument(call, 0, "nest")
            count = None if given is None else self.count_values(
                given, scope, depth + 1, arguments)
        elif path == "clip_by_global_norm":
            given = passed_argument(call, 0, "t_list")
            return None if given is None else [(given, scope, arguments),
                                               (ONE_TENSOR, scope, None)]
        elif path in PY_FUNCS:  # `tf.py_func(f, [x], [tf.float32, tf.float32])`: a list of 2
            given = passed_argument(call, 2, "Tout")
            dtypes = None if given is None or self._one_dtype(given, scope) else self._items(
                given, scope, depth + 1, arguments)
            count = len(dtypes) if dtypes else None  # (`[]` gives the op itself)
        return None if count is None else [(ONE_TENSOR, scope, None)] * count

    @cached_property
    def _builds_containers(self):
        """Whether the text may build a namedtuple or an OrderedDict at all: without the
        words, no call is looked up as one (the check every other call makes)."""
        return any(word in self.text for word in (
            "namedtuple", "NamedTuple", "StateTuple", "OrderedDict", "dict("))

    @cached_property
    def _namedtuple_classes(self):
        return {}  # id(the binding's node) -> the fields of the class it makes, or None

    def _built(self, call, scope, depth, arguments):
        """([(item, its scope, its arguments)], whether they are a dict's values) of what
        nest.flatten splits a call's result into, for Python containers of known
        contents: `tuple(S)`, `list(S)` and `map(f, S)` (see _converted); an instance
        of a namedtuple class (one item per field: see _namedtuple_fields) made by a call (`Out(y, aux=a)`, every field given) or by
        `Out._make([y, a])`, and a dict made by `collections.OrderedDict` or `dict` from
        pairs of string keys and values (`OrderedDict([("mu", mu)], logvar=lv)`); else
        None."""
        if any(isinstance(a, ast.Starred) for a in call.args) or any(
                k.arg is None for k in call.keywords):
            return None
        func = call.func
        if isinstance(func, ast.Name) and func.id in _SEQUENCE_BUILTINS and not (
                call.keywords) and self.names.is_builtin(func):
            items = self._converted(call, scope, depth, arguments)
            return None if items is None else (items, False)
        if not self._builds_containers:
            return None
        if isinstance(func, ast.Attribute) and func.attr == "_make":
            fields = self._namedtuple_fields(func.value, scope)
            if fields is None or len(call.args) != 1 or call.keywords:
                return None
            items = self._items(call.args[0], scope, depth + 1, arguments)
            return (items, False) if items is not None and len(items) == len(fields) else None
        if (isinstance(func, ast.Name) and func.id == "dict" and self.names.is_builtin(func)) \
                or self.names.resolve(func, scope) in DICT_MAKERS:
            values = _dict_values(call)
            return None if values is None else ([(v, scope, arguments) for v in values], True)
        fields = self._namedtuple_fields(func, scope)
        if fields is None or len(call.args) > len(fields):
            return None
        given = dict(zip(fields, call.args))
        for keyword in call.keywords:
            if keyword.arg not in fields or keyword.arg in given:
                return None  # a TypeError
            given[keyword.arg] = keyword.value
        if len(given) != len(fields):
            return None  # a field left to its default (Python 3.7's `defaults=`), or an error
        return [(given[name], scope, arguments) for name in fields], False

    def python3_map(self, expr):
        """Whether `expr` calls the builtin `map` for a Python 3 target: a map object,
        which nest.flatten takes as one value, not as the items it would give."""
        return self.target_python[0] >= 3 and isinstance(expr, ast.Call) and isinstance(
            expr.func, ast.Name) and expr.func.id == "map" and self.names.is_builtin(expr.func)

    def _converted(self, call, scope, depth, arguments):
        """The items of `tuple(S)` or `list(S)` (S's own, when S is a list or tuple of
        known items, or a comprehension giving one tensor an iteration: see
        _count_comprehension), and of `map(f, S)` with a function `f` of one argument
        giving one tensor for one (one per item of S; Python 2 only when not wrapped in
        `tuple`/`list`: Python 3's map object is one leaf to nest.flatten); else None."""
        if call.func.id == "map":
            if self.target_python[0] >= 3:
                return None
            return self._mapped(call, scope, depth, arguments)
        if not call.args:
            return []
        if len(call.args) != 1:
            return None
        given = call.args[0]
        if isinstance(given, ast.Call) and isinstance(given.func, ast.Name) and \
                given.func.id == "map" and self.names.is_builtin(given.func):
            return self._mapped(given, scope, depth, arguments)
        if isinstance(given, (ast.ListComp, ast.GeneratorExp)):
            count = self._count_comprehension(given, scope, depth, arguments)
            return None if count is None else [(ONE_TENSOR, scope, None)] * count
        return self._items(given, scope, depth + 1, arguments)

    def _mapped(self, call, scope, depth, arguments):
        """One tensor for each item of S in `map(f, S)` when `f` takes one argument and
        gives one tensor for one (see _maps_one_to_one); else None."""
        if len(call.args) != 2 or call.keywords:
            return None
        function, given = call.args
        if isinstance(function, ast.Lambda) and (
                len(function.args.args) != 1 or function.args.vararg):
            return None
        if not self._maps_one_to_one(function, scope, depth):
            return None
        items = self._items(given, scope, depth + 1, arguments)
        return None if items is None else [(ONE_TENSOR, scope, None)] * len(items)

    def _namedtuple_fields(self, func, scope, depth=0):
        """The fields of the namedtuple class `func` names, in order, or None: TensorFlow's
        (TF_NAMEDTUPLES), or one the module binds once to a `collections.namedtuple` or
        `typing.NamedTuple` call, or defines as a class deriving from `typing.NamedTuple`
        (its annotated names) or from one namedtuple class without a `__new__` of its
        own (`class State(namedtuple("State", "h c")): __slots__ = ()`)."""
        path = self._tf_function(func, scope)
        if path is not None:
            return TF_NAMEDTUPLES.get(path)
        if not isinstance(func, ast.Name) or depth > _MAX_DEPTH:
            return None
        bindings = self.names.lookup(func.id, scope)
        if len(bindings) != 1 or bindings[0].kind not in ("assign", "class"):
            return None
        binding = bindings[0]
        known = self._namedtuple_classes
        if id(binding.node) not in known:
            known[id(binding.node)] = None  # while it is worked out: a class of itself
            fields = None
            if binding.kind == "assign" and isinstance(binding.node, ast.Call):
                fields = self._namedtuple_made(binding.node, binding.scope)
            elif binding.kind == "class":
                fields = self._namedtuple_derived(binding.node, binding.scope, depth)
            if fields is not None and binding.scope is self.names.module and \
                    self.names.declared_global(func.id):
                fields = None  # `global Out` in a def that may bind another
            known[id(binding.node)] = fields
        return known[id(binding.node)]

    def _namedtuple_made(self, call, scope):
        """The fields a `collections.namedtuple(name, fields)` or `typing.NamedTuple(name,
        [(field, type), ...])` call gives its class, when they are literals; else None."""
        maker = self.names.resolve(call.func, scope)
        if maker not in NAMEDTUPLE_MAKERS or any(
                isinstance(a, ast.Starred) for a in call.args) or any(
                    k.arg in (None, "rename") for k in call.keywords):
            return None  # `rename=True` may rename fields the keywords name
        if maker == "typing.NamedTuple":
            given = passed_argument(call, 1, "fields")
            if given is None:  # `NamedTuple("Out", y=tf.Tensor)` (Python 3.6+)
                return [k.arg for k in call.keywords] if len(call.args) == 1 else None
            if not isinstance(given, (ast.List, ast.Tuple)):
                return None
            pairs = [e.elts for e in given.elts if isinstance(e, (ast.Tuple, ast.List))]
            names = [p[0].value for p in pairs if len(p) == 2 and isinstance(
                p[0], ast.Constant) and isinstance(p[0].value, str)]
            return names if len(names) == len(given.elts) else None
        given = passed_argument(call, 1, "field_names")
        if isinstance(given, ast.Constant) and isinstance(given.value, str):
            return given.value.replace(",", " ").split()
        if isinstance(given, (ast.List, ast.Tuple)):
            names = [e.value for e in given.elts if isinstance(e, ast.Constant) and isinstance(
                e.value, str)]
            return names if len(names) == len(given.elts) else None
        return None

    def _namedtuple_derived(self, classdef, scope, depth):
        """The fields of a class deriving from `typing.NamedTuple` or from one namedtuple
        class, or None (see _namedtuple_fields)."""
        if classdef.decorator_list or classdef.keywords or len(classdef.bases) != 1:
            return None
        own = self.names.scope_for_def[id(classdef)]
        if "__new__" in own.bindings or "_make" in own.bindings:
            return None  # it may build another tuple
        base = classdef.bases[0]
        if self.names.resolve(base, scope) == "typing.NamedTuple":
            return [s.target.id for s in classdef.body if isinstance(s, ast.AnnAssign)
                    and isinstance(s.target, ast.Name)]
        if isinstance(base, ast.Call):
            return self._namedtuple_made(base, scope)
        return self._namedtuple_fields(base, scope, depth + 1)

    def _items(self, expr, scope, depth, arguments):
        """[(item, its scope, its arguments)] of a list or tuple whose items are known: a
        display, a TensorFlow call of known structure, a helper of the module with one
        `return`, an item or slice of such a list, a name bound once to one; else None."""
        if depth > _MAX_DEPTH or expr is None:
            return None
        if isinstance(expr, (ast.Tuple, ast.List)):
            found = []
            for element in expr.elts:
                if not isinstance(element, ast.Starred):
                    found.append((element, scope, arguments))
                    continue
                spread = self._items(element.value, scope, depth + 1, arguments)
                if spread is None:
                    return None
                found.extend(spread)  # `(dy, *[None] * 2)`: the items it spreads
            return found
        if isinstance(expr, ast.BinOp) and _is_sequence(expr):
            return self._sequence_items(expr, scope, depth, arguments)
        if isinstance(expr, ast.Call):
            shaped = self._shaped_like(expr, scope, depth, arguments)
            if shaped is not None:
                value, where, passed = shaped
                return self._items(value, where, depth + 1, passed)
            items = self._call_items(expr, scope, depth, arguments)
            if items is not None:
                return items
            built = self._built(expr, scope, depth, arguments)
            if built is not None:  # a namedtuple's fields; a dict's values are no list
                return None if built[1] else built[0]
            returned = self._returned_values(expr, scope, arguments)
            if returned is None or len(returned[0]) != 1:
                return None
            (value,), own = returned
            return self._items(value, own[0], depth + 1, own)
        if isinstance(expr, ast.Subscript):
            picked = self._picked(expr, scope, depth, arguments)
            if picked is None or picked[0] == "error":
                return None
            kind, found = picked
            return found if kind == "items" else self._items(
                found[0], found[1], depth + 1, found[2])
        if isinstance(expr, ast.Name):
            scope = self._closure_scope(expr, scope, arguments)
            value = self.single_value(expr, scope)
            if value is not None:
                return self._items(value, scope, depth + 1, arguments)
            unpacked = self._unpacked_values(expr, scope, depth + 1, arguments)
            if unpacked is not None and len(unpacked) == 1:
                value, where, passed = unpacked[0]
                return self._items(value, where, depth + 1, passed)
        return None

    def _sequence_items(self, operation, scope, depth, arguments):
        """The items of `[dy] + [None] * 2` (_is_sequence): a concatenation's sides' items,
        a display's repeated an int literal of times; else None."""
        if isinstance(operation.op, ast.Add):
            sides = [self._items(side, scope, depth + 1, arguments)
                     for side in (operation.left, operation.right)]
            return None if None in sides else sides[0] + sides[1]
        for sequence, times in ((operation.left, operation.right),
                                (operation.right, operation.left)):
            if isinstance(sequence, (ast.List, ast.Tuple)) and isinstance(
                    times, ast.Constant) and type(times.value) is int:
                items = self._items(sequence, scope, depth + 1, arguments)
                return None if items is None else items * times.value
        return None

    def _picked(self, subscript, scope, depth, arguments):
        """What a constant index or slice of a list of known items picks: ("item", (item,
        its scope, its arguments)), ("items", [...]) for a slice, ("error", None) for an
        index out of range (IndexError); None when the list or the index is unknown."""
        index = _constant_index(subscript.slice)
        bounds = None if index is not None else _constant_slice(subscript.slice)
        if (index is None and bounds is None) or not isinstance(subscript.ctx, ast.Load):
            return None
        items = self._items(subscript.value, scope, depth + 1, arguments)
        if items is None:
            return None
        if bounds is not None:
            return "items", items[bounds]
        if not -len(items) <= index < len(items):
            return "error", None
        return "item", items[index]

    def _count_appended(self, name, scope, depth, arguments):
        """`grads = []` then `grads.append(dy * w)`, `grads.extend([a, b])` as statements
        of the function's own body, before `name` is read: the list display's count plus
        what they add; None when the list is used any other way (a loop, a branch, a
        call that may change it)."""
        bindings = scope.bindings.get(name.id, [])
        function = scope.node
        if len(bindings) == 1 and bindings[0].kind == "assign" and isinstance(
                bindings[0].node, ast.Dict) and isinstance(
                    function, (ast.FunctionDef, ast.AsyncFunctionDef)):
            return self._count_filled(name, bindings[0].node, scope, depth, arguments)
        if len(bindings) != 1 or bindings[0].kind != "assign" or not isinstance(
                bindings[0].node, ast.List) or not isinstance(
                    function, (ast.FunctionDef, ast.AsyncFunctionDef)):
            return None
        added = {}  # id(the list's Name in a statement of the body) -> (what it adds, times)
        for statement, times in self._body_statements(function, scope):
            call = statement.value if isinstance(statement, ast.Expr) else None
            if isinstance(call, ast.Call) and isinstance(call.func, ast.Attribute) and \
                    isinstance(call.func.value, ast.Name) and call.func.value.id == name.id \
                    and call.func.attr in ("append", "extend") and len(call.args) == 1 \
                    and not call.keywords and _before(statement, name):
                argument = call.args[0]
                if call.func.attr == "extend" and not isinstance(argument, (ast.List, ast.Tuple)):
                    return None
                added[id(call.func.value)] = (argument, times)
        for node in own_nodes(function):
            if isinstance(node, ast.Name) and node.id == name.id and isinstance(
                    node.ctx, ast.Load) and node is not name and id(node) not in added:
                return None  # read elsewhere: it may change in ways not counted here
        total = self.count_values(bindings[0].node, scope, depth + 1, arguments)
        for argument, times in added.values():
            count = self.count_values(argument, scope, depth + 1, arguments)
            if total is None or count is None:
                return None
            total += count * times
        return total

    def _count_filled(self, name, display, scope, depth, arguments):
        """`out = {}` then `out["logits"] = a`, `out["probs"] = b` as statements of the
        function's own body, before `name` is read: nest.flatten gives one value per key
        (the last one stored), so the count of those values; None when a key is no string
        literal or the dict is used any other way."""
        if None in display.keys or not all(
                isinstance(k, ast.Constant) and isinstance(k.value, str) for k in display.keys):
            return None
        values = dict(zip((k.value for k in display.keys), display.values))
        stored = set()  # id(the dict's Name in a store statement)
        for statement in scope.node.body:
            if not (isinstance(statement, ast.Assign) and len(statement.targets) == 1):
                continue
            target = statement.targets[0]
            if isinstance(target, ast.Subscript) and isinstance(target.value, ast.Name) and \
                    target.value.id == name.id and _before(statement, name):
                key = target.slice
                if not (isinstance(key, ast.Constant) and isinstance(key.value, str)):
                    return None
                values[key.value] = statement.value
                stored.add(id(target.value))
        for node in own_nodes(scope.node):
            if isinstance(node, ast.Name) and node.id == name.id and isinstance(
                    node.ctx, ast.Load) and node is not name and id(node) not in stored:
                return None  # read elsewhere: it may change in ways not counted here
        return self._count_items([(value, scope, arguments) for value in values.values()],
                                 depth)

    def _body_statements(self, function, scope):
        """(statement, how many times it runs) for each statement of the function's own
        body, and of the body of a `for` loop there over a known number of items (a
        range of int literals, a display, a name bound once to one: _iterations) that has
        no `else`, `break`, `continue` or `return`, one level deep."""
        for statement in function.body:
            if not isinstance(statement, ast.For) or statement.orelse:
                yield statement, 1
                continue
            times = self._iterations(statement.iter, scope)
            if times is None or any(isinstance(node, (ast.Break, ast.Continue, ast.Return))
                                    for inner in statement.body for node in ast.walk(inner)):
                yield statement, 1
                continue
            for inner in statement.body:
                yield inner, times

    def _cond_branches(self, call, scope):
        """[(returned expression, its scope)] of both branches of `tf.cond(pred, true_fn,
        false_fn)` when each is a lambda, or a def of the module with one `return`;
        else None."""
        if self.names.resolve(call.func, scope) not in _CONDS:
            return None
        functions = list(call.args[1:3]) + [k.value for k in call.keywords
                                            if k.arg in ("true_fn", "false_fn", "fn1", "fn2")]
        branches = []
        for function in functions:
            if isinstance(function, ast.Name):
                binding = self.names.definitions(function, scope)
                function = binding.node if binding is not None and binding.kind == "def" \
                    else None
            # A branch takes no arguments; one that binds no name of its own reads every
            # name where the cond is (the gradient function's `dy`): counted there.
            if isinstance(function, ast.Lambda) and not _takes_arguments(function):
                own = self.names.scope_for_def[id(function)]
                branches.append((function.body, scope if not own.bindings else own))
                continue
            if not isinstance(function, ast.FunctionDef) or function.decorator_list or \
                    _takes_arguments(function):
                return None
            returns = [node for node in own_nodes(function) if isinstance(node, ast.Return)]
            if len(returns) != 1 or returns[0].value is None:
                return None
            own = self.names.scope_for_def[id(function)]
            branches.append((returns[0].value, scope if not own.bindings else own))
        return branches if len(branches) == 2 else None

    def _count_repeated(self, expr, scope, depth, arguments):
        """`[g] * 2`, `2 * (g,)`: the list's count times a literal int, else None."""
        if not isinstance(expr, ast.BinOp) or not isinstance(expr.op, ast.Mult):
            return None
        for sequence, times in ((expr.left, expr.right), (expr.right, expr.left)):
            if (isinstance(sequence, (ast.List, ast.Tuple)) and isinstance(times, ast.Constant)
                    and type(times.value) is int):
                count = self.count_values(sequence, scope, depth + 1, arguments)
                return None if count is None else count * times.value
        return None

    def _count_concatenated(self, expr, scope, depth, arguments):
        """`[dy] + [None] * 3`, `(dx,) + (None,)`: the sum of the sequences' counts."""
        if isinstance(expr.op, ast.Add):
            counts = [self.count_values(side, scope, depth + 1, arguments)
                      for side in (expr.left, expr.right)]
            return None if None in counts else sum(counts)
        return self._count_repeated(expr, scope, depth, arguments)

    def _count_split(self, call, scope):
        """`tf.split(x, 3)`, `tf.split(x, [1, 2])`, `tf.unstack(x, num=3)`: the number of
        tensors, when it is written as a literal."""
        qualname = self.names.resolve(call.func, scope)
        path = _tf_path(qualname) if qualname and qualname.startswith("tensorflow.") else None
        if path not in ("split", "unstack"):
            return None
        wanted = "num_or_size_splits" if path == "split" else "num"
        given = next((k.value for k in call.keywords if k.arg == wanted), None)
        if given is None and len(call.args) > 1:
            given = call.args[1]
        if isinstance(given, ast.Constant) and type(given.value) is int and given.value > 0:
            return given.value
        if path == "split" and isinstance(given, (ast.List, ast.Tuple)) and not any(
                isinstance(e, ast.Starred) for e in given.elts):
            return len(given.elts)
        return None

    def _count_comprehension(self, comprehension, scope, depth, arguments):
        """`[tf.identity(dy) for _ in range(3)]`, `[g * 0.5 for g in (ga, gb)]`: one
        gradient an iteration, over a range of int literals or a list or tuple display,
        with no condition; else None."""
        if len(comprehension.generators) != 1:
            return None
        generator = comprehension.generators[0]
        iterations = self._iterations(generator.iter, scope)
        if generator.ifs or generator.is_async or iterations is None:
            return None
        own = self.names.scope_for_def[id(comprehension)]
        # An element that reads none of the comprehension's own names means what it means
        # around it (the gradient function's `dy`): counted there.
        element_scope = own if any(isinstance(node, ast.Name) and node.id in own.bindings
                                   for node in ast.walk(comprehension.elt)) else scope
        count = self.count_values(comprehension.elt, element_scope, depth + 1, arguments)
        return iterations if count == 1 else None

    def _iterations(self, iterable, scope):
        """How many items `range(3)`, `range(1, 4)` (int literals; `xrange` too) or a
        list or tuple display gives, also through a name bound once to such a display in
        a function (`weights = [b, a]`, read where `scope` reads it) that neither function
        changes in place; or None."""
        if isinstance(iterable, ast.Name):
            bindings = self.names.lookup(iterable.id, scope)
            if len(bindings) != 1 or bindings[0].kind != "assign" or not isinstance(
                    bindings[0].node, (ast.List, ast.Tuple)) or isinstance(
                        bindings[0].scope.node, ast.Module) or iterable.id in self._mutated_in(
                            bindings[0].scope) or iterable.id in self._mutated_in(scope):
                return None
            iterable = bindings[0].node
        if isinstance(iterable, (ast.List, ast.Tuple)):
            return None if any(isinstance(e, ast.Starred) for e in iterable.elts) \
                else len(iterable.elts)
        if not (isinstance(iterable, ast.Call) and isinstance(iterable.func, ast.Name)
                and iterable.func.id in ("range", "xrange") and not iterable.keywords
                and 1 <= len(iterable.args) <= 3 and self.names.is_builtin(iterable.func)):
            return None
        bounds = [a.value for a in iterable.args if isinstance(a, ast.Constant)]
        if len(bounds) != len(iterable.args) or any(type(b) is not int for b in bounds) or \
                bounds[2:] == [0]:
            return None
        try:
            return len(range(*bounds))
        except OverflowError:  # `range(10 ** 20)`: more than any count
            return None

    def _unpacked_tensor(self, name, scope):
        """Whether every binding of `name` in `scope` is a name that a plain assignment
        unpacks from a TensorFlow call giving tensors only (`ga, gb = tf.split(grad, 2)`,
        TENSOR_LISTS): one tensor. Not a name unpacked from anything else, which may hold
        a list (`a, b = [[x, y], z]`), nor one a `*rest` or nested target collects."""
        bindings = scope.bindings.get(name.id, [])
        if not bindings or isinstance(scope.node, ast.Module):
            return False
        for binding in bindings:
            target = binding.node
            if binding.kind != "other" or not isinstance(target, ast.Name):
                return False
            unpacked = self.parent_of(target)
            statement = self.parent_of(unpacked) if isinstance(
                unpacked, (ast.Tuple, ast.List)) else None
            if not isinstance(statement, ast.Assign) or not any(
                    t is unpacked for t in statement.targets):
                return False
            value = statement.value
            qualname = self.names.resolve(value.func, scope) if isinstance(
                value, ast.Call) else None
            if not (qualname and qualname.startswith("tensorflow.")
                    and _tf_path(qualname) in TENSOR_LISTS):
                return False
        return True

    def _count_returned(self, call, scope, depth, arguments):
        """The count every `return` of the called project function agrees on, or None."""
        returned = self._returned_values(call, scope, arguments)
        if returned is None:
            return None
        values, own = returned
        return _agreed(self.count_values(value, own[0], depth + 1, own)
                       for value in values)

    def _returned_values(self, call, scope, arguments):
        """([what each `return` of the called project function gives], (its scope, the
        arguments the call passes it)), or None: not a def of the module, a generator,
        or one without a `return`."""
        function = self.called_function(call, scope)
        if function is None:
            return None
        own_scope = self.names.scope_for_def[id(function)]
        passed = call_arguments(call, function, (scope, arguments))
        body = list(own_nodes(function))
        if any(isinstance(node, (ast.Yield, ast.YieldFrom)) for node in body):
            return None  # a generator
        values = [node.value for node in body if isinstance(node, ast.Return)]
        if not values:
            return None
        return values, (own_scope, passed)

    def _unpacked_values(self, name, scope, depth, arguments):
        """[(value, its scope, its arguments)] of every binding of `name` in `scope` when
        each is a plain assignment that gives it one known value: a chained one (`ga = gb
        = dy * 0.5`: the value), or one that unpacks a list or tuple display of the
        target's length (`ga, gb = dy * 0.5, dy * 0.5`: the item) or the call of a helper
        of the module whose every `return` is such a display (`ga, gb = _pair(dy)`: the
        item of each, counted in the helper), or another list of known items (`clipped,
        norm = tf.clip_by_global_norm(grads, 1.0)`, `ga, gb = pair` for a `pair` bound once
        to a display: see _items); else None. A `*rest` target, a target mutated in
        place, or any other value (`ga, gb = tuple(pair)`) leaves it unknown."""
        bindings = scope.bindings.get(name.id, [])
        if not bindings or isinstance(scope.node, ast.Module) or depth > _MAX_DEPTH:
            return None
        found = []
        for binding in bindings:
            target = binding.node
            if binding.kind != "other" or not isinstance(target, ast.Name):
                return None
            path = []  # (index, length) from the statement's target down to the name
            node, parent = target, self.parent_of(target)
            while isinstance(parent, (ast.Tuple, ast.List)):
                if any(isinstance(element, ast.Starred) for element in parent.elts):
                    return None
                path.append((next(i for i, e in enumerate(parent.elts) if e is node),
                             len(parent.elts)))
                node, parent = parent, self.parent_of(parent)
            if not isinstance(parent, ast.Assign) or not any(
                    t is node for t in parent.targets) or self._mutated_targets(parent, scope):
                return None
            values = [(parent.value, scope, arguments)]
            for index, length in reversed(path):
                values = self._items_at(values, index, length, depth)
                if values is None:
                    return None
            found.extend(values)
        return found

    def _followed_once(self, kind, name, scope, depth, arguments):
        """What the values `name` is bound to in `scope` give, worked out once: each
        binding of a name may be to names bound many times in turn (k copies of `a1, b1 =
        a0, b0`, L levels deep, were followed k ** L times). It depends on the name, not on
        where it is read. `kind`: "count", the count all its assigned values agree on;
        "count unpacked", (the count all its unpacked values agree on,), or None when it is
        not unpacked (_unpacked_values); "tensor", whether each of those is one tensor, or
        None."""
        key = (kind, name.id, id(scope), id(arguments), depth)
        found = self._followed.get(key)
        if found is None:
            # (the arguments are kept with the answer, so that their id names them only)
            found = self._followed[key] = (arguments, self._follow(
                kind, name, scope, depth, arguments))
        return found[1]

    def _follow(self, kind, name, scope, depth, arguments):
        if kind == "count":
            return _agreed(self.count_values(value, scope, depth + 1, arguments)
                           for value in self.assigned_values(name, scope))
        unpacked = self._unpacked_values(name, scope, depth, arguments)
        if unpacked is None:
            return None
        if kind == "count unpacked":
            return (_agreed(self.count_values(value, where, depth + 1, passed)
                            for value, where, passed in unpacked),)
        return all(self._is_tensor(value, where, depth + 1, passed) or (
            self._is_parameter(value, where, depth + 1, passed))
            for value, where, passed in unpacked)

    def _items_at(self, values, index, length, depth):
        """[(item, its scope, its arguments)] at `index` of each (value, scope, arguments):
        a display of `length` items, the call of a helper of the module returning such
        displays only, or another list of `length` known items (`clipped, norm =
        tf.clip_by_global_norm(grads, 1.0)`, see _items); None when any is something
        else."""
        items = []
        for value, where, passed in values:
            displays = [(value, where, passed)]
            returned = self._returned_values(value, where, passed) if isinstance(
                value, ast.Call) else None
            if returned is not None:
                returns, own = returned
                displays = [(each, own[0], own) for each in returns]
            for display, own_scope, own_arguments in displays:
                if returned is not None and not isinstance(display, (ast.Tuple, ast.List)):
                    return None  # a helper's return that is no display
                known = self._items(display, own_scope, depth + 1, own_arguments)
                if known is None or len(known) != length:
                    return None
                items.append(known[index])
        return items

    def _mutated_targets(self, statement, scope):
        """Whether a name the assignment `statement` binds is changed in place in `scope`
        (`ga = gb = []` then `ga.append(dy)` changes `gb` too)."""
        mutated = self._mutated_in(scope)
        return any(isinstance(node, ast.Name) and node.id in mutated
                   for target in statement.targets for node in ast.walk(target))

    def called_function(self, call, scope):
        """The def a call runs, when the module shows it: `helper(...)` for a def bound once,
        `self.method(...)` inside a method of the class defining `method` once."""
        func = call.func
        if isinstance(func, ast.Name):
            binding = self.names.definitions(func, scope)
            if binding is not None and binding.kind == "def" and not binding.node.decorator_list:
                return binding.node  # a decorator may change what the call returns
            return None
        if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name):
            owner = self.instance_class(func.value, scope) or self._made_instance_class(
                func.value, scope)
            if owner is not None:
                methods = owner.bindings.get(func.attr, [])
                if len(methods) == 1 and methods[0].kind == "def" and all(
                        _decorator_name(d) in ("staticmethod", "classmethod")
                        for d in methods[0].node.decorator_list) and not self._overridden(
                        owner.node.name, func.attr):
                    return methods[0].node
        return None

    def passed_keywords(self, call):
        """The keywords a call may pass: `**opts` of a dict that is surely empty passes
        none (TF 1.8's custom_gradient raises only `if kwargs:`)."""
        return [k for k in call.keywords if not (k.arg is None and self._empty_dict(k.value))]

    def _empty_dict(self, expr):
        """`{}`, `dict()`, or a name bound once to one of them and only ever unpacked with
        `**` in the module (never filled, never handed to what may fill it)."""
        if isinstance(expr, ast.Dict):
            return not expr.keys
        if isinstance(expr, ast.Call):
            return isinstance(expr.func, ast.Name) and expr.func.id == "dict" and not (
                expr.args or expr.keywords) and self.names.is_builtin(expr.func)
        if not isinstance(expr, ast.Name):
            return False
        bindings = self.names.lookup(expr.id, self.names.scope_of(expr))
        if len(bindings) != 1 or bindings[0].kind != "assign" or isinstance(
                bindings[0].node, ast.Name) or not self._empty_dict(bindings[0].node):
            return False
        return expr.id not in self._names_used_as_more_than_unpacked

    @cached_property
    def _names_used_as_more_than_unpacked(self):
        """Names the module fills (`opts["scale"] = 2.0`, `opts.update(...)`) or reads
        other than by `**` unpacking: one walk, however many calls ask (_empty_dict)."""
        found = {node.value.id for node in self.nodes[ast.Subscript] + self.nodes[ast.Attribute]
                 if isinstance(node.value, ast.Name)}
        unpacked = {id(keyword.value) for call in self.nodes[ast.Call]
                    for keyword in call.keywords if keyword.arg is None}
        found.update(node.id for node in self.nodes[ast.Name]
                     if isinstance(node.ctx, ast.Load) and id(node) not in unpacked)
        return frozenset(found)

    def imported_function(self, call):
        """(ModuleFacts of another project module, the def there that the call runs) for a
        call of a function imported from the project (`from layers import dense`), found
        on disk and never imported; else None."""
        if "import" not in self.text or self.path == "-":
            return None
        target = self._import_target(call.func, self.resolve(call.func))
        if target is None:
            return None
        from cglint import project  # only calls of imported names in custom gradients

        module, level, name = target
        if _tensorflow_module(module, level):
            return None  # TensorFlow's own functions: the API tables' business
        found = project.current().imported_function(self.path, module, name, level)
        if found is None:
            return None
        facts, function, dependency = found
        self.dependencies.add(dependency)
        return facts, function

    def def_called(self, call, scope):
        """(ModuleFacts of its module, the def) that a call in `scope` runs: a def of this
        module (called_function), or one imported from the project (imported_function,
        which makes that module a dependency); else None."""
        function = self.called_function(call, scope)
        if function is not None:
            return self, function
        return self.imported_function(call)

    def returned_by_call(self, call):
        """The values every `return` of the module's def that `call` runs gives (None for
        a bare `return`), or None when the def is not known or has no `return`."""
        function = self.called_function(call, self.names.scope_of(call))
        if function is None:
            return None
        values = [node.value for node in own_nodes(function) if isinstance(node, ast.Return)]
        return values or None

    def made_functions(self, call, scope):
        """The defs and lambdas a call of a project function hands back (a factory:
        `make_grad(0.5)` returning its inner `grad`, or one of two chosen by a conditional
        expression); [] when it may return anything else (a `functools.partial`, another
        factory's result: CG106's _may_give_function still takes those as functions)."""
        function = self.called_function(call, scope)
        if function is None:
            return []
        own_scope = self.names.scope_for_def[id(function)]
        values = [node.value for node in own_nodes(function) if isinstance(node, ast.Return)]
        found = []
        while values:
            value = values.pop()
            if isinstance(value, ast.IfExp):  # `(lambda dy: ...) if fast else slow_grad`
                values += [value.body, value.orelse]
                continue
            if isinstance(value, ast.Lambda):
                found.append(value)
                continue
            bindings = self.names.lookup(value.id, own_scope) if isinstance(
                value, ast.Name) else []
            if not bindings or any(binding.kind != "def" for binding in bindings):
                return []
            found += [binding.node for binding in bindings]
        return found

    def _overridden(self, class_name, method):
        """True when a class of the module derives from `class_name` and defines `method`:
        `self.method()` may then run the subclass's."""
        return (class_name, method) in self._overridden_methods

    @cached_property
    def _overridden_methods(self):
        """{(base class name, method)} that some class of the module defines again."""
        found = set()
        for node in self.nodes[ast.ClassDef]:
            bases = {b.id if isinstance(b, ast.Name) else getattr(b, "attr", None)
                     for b in node.bases}
            methods = {name for item in node.body if isinstance(
                item, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Assign))
                for name in _defined_names(item)}
            found.update((base, method) for base in bases for method in methods)
        return frozenset(found)

    def instance_class(self, name, scope):
        """The class scope when `name` is the `self` parameter of one of its methods."""
        bindings = self.names.lookup(name.id, scope)
        if len(bindings) != 1 or bindings[0].kind != "param":
            return None
        method_scope = bindings[0].scope
        method = method_scope.node
        owner = method_scope.parent
        if owner is None or owner.kind != "class" or not isinstance(
                method, (ast.FunctionDef, ast.AsyncFunctionDef)):
            return None
        positional = list(getattr(method.args, "posonlyargs", [])) + list(method.args.args)
        if not positional or positional[0] is not bindings[0].node:
            return None
        if any(isinstance(d, ast.Name) and d.id in ("staticmethod", "classmethod")
               for d in method.decorator_list):
            return None
        return owner

    def _made_instance_class(self, name, scope):
        """The class scope when `name` is bound once to an instance of a class of this
        module made without arguments to its own (`_scale = Scale()`)."""
        bindings = self.names.lookup(name.id, scope)
        made = self.class_made_by(bindings[0]) if len(bindings) == 1 else None
        if made is None or made.keywords or any(
                not (isinstance(base, ast.Name) and base.id == "object") for base in made.bases):
            return None  # a base class may define the method, or make it differently
        return self.names.scope_for_def.get(id(made))

    def class_made_by(self, binding):
        """The ClassDef of this module whose call an assignment binding holds
        (`clipper = Clipper(0.5)`), or None."""
        value = binding.node if binding.kind == "assign" else None
        if not (isinstance(value, ast.Call) and isinstance(value.func, ast.Name)):
            return None
        made = self.names.definitions(value.func, binding.scope)
        return made.node if made is not None and made.kind == "class" else None

    def instance_variables(self, owner):
        """Attributes the methods of a class (its scope) set to new variables: `self.w =
        tf.get_variable(...)`. `self.w = None` placeholders aside, every assignment of
        the attribute in the class must create a variable."""
        cached = self._instance_variables.get(id(owner))
        if cached is not None:
            return cached
        verdicts = {}
        for attr, value, method_scope in self._class_attribute_stores(owner):
            if is_none(value):
                continue
            creates = isinstance(value, ast.Call) and (
                creates_trained_variables(value, self.names.resolve(value.func, method_scope))
                or self._adds_weight(value, owner, method_scope))
            verdicts[attr] = verdicts.get(attr, True) and creates
        found = frozenset(name for name, creates in verdicts.items() if creates)
        self._instance_variables[id(owner)] = found
        return found

    def instance_attribute_value(self, attribute):
        """(value, the method's scope) of `self.x` read in a method, when the methods of
        its class store `self.x` once, plainly (`self.alpha = tf.Variable(0.25)` in
        `__init__`); else None."""
        if not (isinstance(attribute, ast.Attribute) and isinstance(attribute.value, ast.Name)):
            return None
        owner = self.instance_class(attribute.value, self.names.scope_of(attribute))
        if owner is None:
            return None
        stores = [(value, where) for attr, value, where in self._class_attribute_stores(owner)
                  if attr == attribute.attr]
        if len(stores) != 1 or stores[0][0] is None:
            return None
        return stores[0]

    def _class_attribute_stores(self, owner):
        """(attribute, value, method scope) of every `self.attribute` store in the methods
        of a class (its scope)."""
        for bindings in owner.bindings.values():
            for binding in bindings:
                if binding.kind == "def":
                    method_scope = self.names.scope_for_def[id(binding.node)]
                    for attr, value in self._attribute_stores(binding.node, method_scope, owner):
                        yield attr, value, method_scope

    def _attribute_stores(self, method, scope, owner):
        """(attribute, value) for every store to `self.attribute` in a method's own body;
        value is None where the store is not `self.x = value` (`self.x, self.y = ...`,
        `self.x += ...`, `with ... as self.x`), so it agrees with no other."""
        body = list(own_nodes(method))
        plain = {}  # id(target) -> the value a plain assignment stores
        for node in body:
            if isinstance(node, ast.Assign):
                plain.update((id(t), node.value) for t in node.targets)
            elif isinstance(node, ast.AnnAssign) and node.value is not None:
                plain[id(node.target)] = node.value
        for node in body:
            if (isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Store)
                    and isinstance(node.value, ast.Name)
                    and self.instance_class(node.value, scope) is owner):
                yield node.attr, plain.get(id(node))

    def _adds_weight(self, call, owner, scope):
        """`self.add_weight(...)` (or add_variable) in a class derived from a TensorFlow
        class (a Keras or tf.layers Layer): a new trained variable."""
        func = call.func
        if not (isinstance(func, ast.Attribute) and func.attr in ("add_weight", "add_variable")
                and isinstance(func.value, ast.Name)
                and self.instance_class(func.value, scope) is owner):
            return False
        if not self.tensorflow_class(owner):
            return False
        return creates_trained_variables(call, "tensorflow.Variable")

    def tensorflow_class(self, owner, prefixes=("tensorflow.",)):
        """Whether a class (its scope) derives from a class whose qualified name starts
        with one of `prefixes`: TensorFlow's (a Keras or tf.layers Layer) by default."""
        return any((self.names.resolve(base, owner.parent) or "").startswith(prefixes)
                   for base in owner.node.bases)

    def _is_tensor(self, expr, scope, depth, arguments=None):
        """True for expressions that are one tensor: TF calls and arithmetic on tensors."""
        if isinstance(expr, _OneTensor):
            return True
        if isinstance(expr, ast.Call):
            path = self._tf_function(expr.func, scope)
            if path in PY_FUNCS:  # `tf.py_func(f, [x], tf.float32)`: one tensor
                return self._one_dtype(passed_argument(expr, 2, "Tout"), scope)
            return path is not None and path not in MULTI_OUTPUT and _nest_function(
                path) is None
        if isinstance(expr, ast.BinOp):
            return any(self._is_tensor(side, scope, depth + 1, arguments)
                       or self._is_parameter(side, scope, depth, arguments)
                       for side in (expr.left, expr.right))
        if isinstance(expr, ast.UnaryOp):
            return self._is_tensor(expr.operand, scope, depth + 1, arguments) or (
                self._is_parameter(expr.operand, scope, depth, arguments))
        if isinstance(expr, ast.Subscript) and depth < _MAX_DEPTH:
            picked = self._picked(expr, scope, depth, arguments)
            if picked is not None:  # `tf.clip_by_global_norm(grads, 1.0)[1]`: the norm
                if picked[0] != "item":
                    return False
                value, where, passed = picked[1]
                return self._is_tensor(value, where, depth + 1, passed) or (
                    self._is_parameter(value, where, depth + 1, passed))
            if _constant_index(expr.slice) is not None and isinstance(
                    expr.value, ast.Call) and self._tf_function(
                        expr.value.func, scope) in TENSOR_LISTS:
                return True  # `tf.unstack(grad)[0]`: each of its items is one tensor
            # `grad[:1]`, `dy[0]`: a slice or an element of one tensor is a tensor
            return self._is_tensor(expr.value, scope, depth + 1, arguments) or (
                self._is_parameter(expr.value, scope, depth, arguments))
        if isinstance(expr, ast.Name) and depth < _MAX_DEPTH:
            value = self.single_value(expr, scope)
            if value is None:
                unpacked = self._followed_once("tensor", expr, scope, depth, arguments)
                return self._unpacked_tensor(expr, scope) if unpacked is None else unpacked
            return self._is_tensor(value, scope, depth + 1, arguments)
        return False

    def _one_dtype(self, expr, scope):
        """Whether `expr` is one dtype, no list of them: `tf.float32`, `np.float32`,
        `x.dtype`, `tf.as_dtype(...)`."""
        if isinstance(expr, ast.Attribute) and expr.attr in ("dtype", "base_dtype"):
            return True
        if isinstance(expr, ast.Call):
            return self.names.resolve(expr.func, scope) == "tensorflow.as_dtype"
        qualname = self.names.resolve(expr, scope) if expr is not None else None
        return bool(qualname) and qualname.startswith(("tensorflow.", "numpy.")) and (
            qualname.rpartition(".")[2] in DTYPE_NAMES)

    def _is_parameter(self, expr, scope, depth=0, arguments=None):
        """True for a parameter of `scope` holding one tensor: any parameter of a gradient
        or custom-gradient function, a helper's only when its call passed one."""
        if not isinstance(expr, ast.Name):
            return False
        bindings = scope.bindings.get(expr.id, [])
        if not bindings and arguments is None:
            # A gradient function reading its custom-gradient function's input (`[a, b]`
            # in `tf.gradients(y, [a, b], grad_ys=dy)`): TF made each of them one tensor.
            # So does a comprehension in a gradient function reading its upstream
            # gradient (`[dy * w for w in weights]`).
            outer = self.names.lookup(expr.id, scope)
            if len(outer) != 1 or outer[0].kind != "param" or (
                    outer[0].node.arg in _star_names(outer[0].scope.node)):
                return False
            owner = outer[0].scope.node
            return any(site.func is owner for site in self.sites) or (
                outer[0].node.arg != "variables" and any(
                    grad.node is owner and outer[0].node.arg in grad.params.names
                    for site in self.sites for grad in site.grad_functions))
        if not (len(bindings) == 1 and bindings[0].kind == "param" and (
                bindings[0].node.arg not in _star_names(scope.node))):
            return False
        if arguments is None or arguments[0] is not scope:
            return True
        passed = arguments[1].get(expr.id)
        if passed is None or depth > _MAX_DEPTH:
            return False  # a default, or passed in a way not followed: unknown
        value, (caller_scope, caller_arguments) = passed
        # one tensor, not merely one element: `[dy]` passed to `a + b` is a list
        return self._is_tensor(value, caller_scope, depth + 1, caller_arguments) or (
            self._is_parameter(value, caller_scope, depth + 1, caller_arguments))

    def is_one_tensor(self, expr, scope):
        """Whether `expr` is visibly one tensor where `scope` reads it: a TensorFlow call,
        arithmetic on tensors, a parameter of a (custom-)gradient function (_is_tensor,
        _is_parameter)."""
        return self._is_tensor(expr, scope, 0) or self._is_parameter(expr, scope)

    def single_value(self, name, scope):
        """The value a Name was assigned exactly once in `scope`, and never mutated."""
        values = self.assigned_values(name, scope)
        return values[0] if values is not None and len(values) == 1 else None

    def assigned_values(self, name, scope):
        """Every value a Name is assigned in `scope` (plain assignments only, never
        mutated), or None when any binding is something else."""
        bindings = scope.bindings.get(name.id, [])
        if not bindings or any(binding.kind != "assign" for binding in bindings):
            return None
        if isinstance(scope.node, ast.Module):
            return None  # module-level values can change from anywhere: do not follow them
        if name.id in self._mutated_in(scope):
            return None
        return [binding.node for binding in bindings]

    def _mutated_in(self, scope):
        """The names changed in place in the function of `scope` (see _mutated_names)."""
        mutated = self._mutated.get(id(scope.node))
        if mutated is None:  # one walk per function, however many names are asked about
            mutated = self._mutated[id(scope.node)] = _mutated_names(scope.node)
        return mutated


def passed_argument(call, position, keyword):
    """The expression `call` passes as `keyword`, or at `position`; None when not given
    (or given as None, the default of every argument looked up so)."""
    found = next((k.value for k in call.keywords if k.arg == keyword), None)
    if found is None and len(call.args) > position and not any(
            isinstance(a, ast.Starred) for a in call.args[:position + 1]):
        found = call.args[position]
    if isinstance(found, ast.Constant) and found.value is None:
        return None
    return found


def call_arguments(call, function, caller):
    """{parameter name: (argument, caller)} for the arguments `call` passes `function` by
    position or keyword (`self` aside for `self.method(...)`); empty when a `*args` or
    `**kwargs` at the call hides which parameter gets what. `caller` is the (scope,
    arguments) pair the argument is counted in."""
    if any(isinstance(a, ast.Starred) for a in call.args) or any(
            k.arg is None for k in call.keywords):
        return {}
    params = list(getattr(function.args, "posonlyargs", [])) + list(function.args.args)
    static = any(_decorator_name(d) == "staticmethod" for d in function.decorator_list)
    if isinstance(call.func, ast.Attribute) and not static:
        params = params[1:]  # `self.method(...)`: self (or the class) is bound
    passed = {param.arg: (value, caller) for param, value in zip(params, call.args)}
    keyword_params = {a.arg for a in params} | {a.arg for a in function.args.kwonlyargs}
    for keyword in call.keywords:
        if keyword.arg in keyword_params:
            passed[keyword.arg] = (keyword.value, caller)
    return passed


def _dict_values(call):
    """The values of the dict `OrderedDict([("mu", mu)], logvar=lv)` (or `dict(...)`,
    `OrderedDict({"mu": mu})`) makes, a later value of a key replacing an earlier one,
    when every key is a string literal; else None."""
    if len(call.args) > 1:
        return None
    found = {}
    if call.args:
        given = call.args[0]
        if isinstance(given, ast.Dict):
            pairs = [(key, value) for key, value in zip(given.keys, given.values)]
        elif isinstance(given, (ast.List, ast.Tuple)):
            pairs = [tuple(e.elts) if isinstance(e, (ast.Tuple, ast.List)) else ()
                     for e in given.elts]
        else:
            return None
        for pair in pairs:
            if len(pair) != 2 or not (isinstance(pair[0], ast.Constant) and isinstance(
                    pair[0].value, str)):
                return None
            found[pair[0].value] = pair[1]
    for keyword in call.keywords:
        found[keyword.arg] = keyword.value
    return list(found.values())


def _is_dataset(qualname):
    return bool(qualname) and qualname.startswith("tensorflow.data.") and qualname.endswith(
        "Dataset")


def _is_sequence(expr):
    """A list or tuple display, repeated (`[None] * 3`) or concatenated (`[a] + [b]`)."""
    if isinstance(expr, (ast.List, ast.Tuple)):
        return True
    if isinstance(expr, ast.BinOp) and isinstance(expr.op, ast.Add):
        return _is_sequence(expr.left) and _is_sequence(expr.right)
    if isinstance(expr, ast.BinOp) and isinstance(expr.op, ast.Mult):
        return any(isinstance(side, (ast.List, ast.Tuple)) for side in (expr.left, expr.right))
    return False


def _never_a_sequence(operation):
    """An operation no list or tuple takes part in: a unary one, a binary one other than
    `+` and `*`, or one with an operand that is a literal but not an int (`ga * 0.5`).
    Whatever it gives, nest.flatten gives it whole: one value."""
    if isinstance(operation, ast.UnaryOp) or not isinstance(operation.op, (ast.Add, ast.Mult)):
        return True
    return any(isinstance(side, ast.Constant) and not isinstance(side.value, int)
               for side in (operation.left, operation.right))


def _defined_names(statement):
    if isinstance(statement, ast.Assign):
        return {t.id for t in statement.targets if isinstance(t, ast.Name)}
    return {statement.name}


def _decorator_name(decorator):
    return decorator.id if isinstance(decorator, ast.Name) else None


def static_first(function):
    """Whether a def's outermost decorator is `staticmethod` (stacked over the others, the
    right order for `@tf.custom_gradient`: the class then hands out the plain function)."""
    decorators = getattr(function, "decorator_list", ())
    return bool(decorators) and _decorator_name(decorators[0]) == "staticmethod"


class _OneTensor(ast.expr):
    """An item TensorFlow gives as one tensor (an output of `tf.split`, the norm of
    `tf.clip_by_global_norm`), where no expression of the module stands for it."""


ONE_TENSOR = _OneTensor()


def _nest_function(path):
    """`map_structure` for the path of `tf.contrib.framework.nest.map_structure` (or of
    the same function of another NEST_MODULES module), else None."""
    for module in NEST_MODULES:
        if path.startswith(module) and "." not in path[len(module):]:
            return path[len(module):]
    return None


def _constant_index(node):
    """The int a subscript's index is written as (`[0]`, `[-1]`), or None."""
    sign = 1
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        sign, node = -1, node.operand
    if isinstance(node, ast.Constant) and type(node.value) is int:
        return sign * node.value
    return None


def _constant_slice(node):
    """The slice a subscript's `[a:b:c]` is, when each bound is an int literal or
    left out, or None."""
    if not isinstance(node, ast.Slice):
        return None
    bounds = []
    for bound in (node.lower, node.upper, node.step):
        value = None if bound is None else _constant_index(bound)
        if bound is not None and value is None:
            return None
        bounds.append(value)
    return None if bounds[2] == 0 else slice(*bounds)


def _tf_path(qualname):
    """`tensorflow.compat.v1.gradients` -> `gradients`: the compat modules re-export the
    same functions, so they return as many tensors as the root's."""
    path = qualname.split(".", 1)[1]
    for prefix in ("compat.v1.", "compat.v2."):
        if path.startswith(prefix):
            return path[len(prefix):]
    return path


def _agreed(counts):
    """The one count every value gives, or None when any is unknown or they differ."""
    found = set()
    for count in counts:
        if count is None:
            return None
        found.add(count)
    return found.pop() if len(found) == 1 else None


def _star_names(function):
    if isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
        arguments = function.args
        return {a.arg for a in (arguments.vararg, arguments.kwarg) if a is not None}
    return set()


def _before(statement, node):
    """Whether `statement` ends before `node` starts."""
    return (statement.end_lineno, statement.end_col_offset) <= (node.lineno, node.col_offset)


# Methods of a list, dict or set that change what it holds in place.
_MUTATORS = frozenset(("append", "extend", "insert", "pop", "remove", "reverse", "update",
                       "setdefault", "clear", "popitem", "add", "discard"))


def _mutated_names(function):
    """Names `x` with `x.append(...)`, `x.update(...)`, `x[i] = ...` or `x += ...` in the
    function body."""
    found = set()
    for node in own_nodes(function):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
            target = node.func.value
            if isinstance(target, ast.Name) and node.func.attr in _MUTATORS:
                found.add(target.id)
        elif isinstance(node, ast.Subscript) and isinstance(node.ctx, (ast.Store, ast.Del)):
            if isinstance(node.value, ast.Name):
                found.add(node.value.id)
        elif isinstance(node, ast.AugAssign) and isinstance(node.target, ast.Name):
            found.add(node.target.id)
    return frozenset(found)


class _SiteFinder:
    def __init__(self, module):
        self.module = module
        self.names = module.names
        self.grads = {}  # id(def or lambda) -> its GradFunction: one per function
        self._any_nested = None  # _nested_sites, worked out when first asked
        self._statics = None  # _static_names, likewise

    def find(self):
        sites = []
        by_func = {}  # decorated functions: calling them by name calls the custom gradient
        wrapped = {}  # f in `h = tf.custom_gradient(f)`: only calls of h do
        index = self.module.nodes
        functions = sorted(index[ast.FunctionDef] + index[ast.AsyncFunctionDef],
                           key=lambda node: (node.lineno, node.col_offset))
        decorators = self._custom_gradient_decorators()
        for node in functions:
            scope = self.names.scope_of(node)
            if any(self.names.resolve(d, scope) in CUSTOM_GRADIENT for d in node.decorator_list):
                site = self._site(node, scope)
                sites.append(site)
                by_func[id(node)] = site
            elif decorators and node.decorator_list:
                forwarded = self._decorated_through(node, scope, decorators)
                if forwarded is not None:
                    site = self._site(node, scope)
                    sites.append(site)
                    if forwarded:  # calling it by name calls the custom gradient
                        by_func[id(node)] = site
        for call, qualname in self.module.calls:
            if qualname in CUSTOM_GRADIENT and len(call.args) == 1 and not call.keywords:
                if isinstance(call.args[0], ast.Lambda):  # h = tf.custom_gradient(lambda x: ..)
                    lambda_ = call.args[0]
                    site = self._site(lambda_, self.names.scope_of(call),
                                      self._assigned_name(call))
                    sites.append(site)
                    wrapped[id(lambda_)] = site
                    continue
                binding = self.names.definitions(call.args[0], self.names.scope_of(call))
                if binding and binding.kind == "def" and id(binding.node) not in by_func:
                    site = wrapped.get(id(binding.node))
                    if site is None:
                        site = self._site(binding.node, binding.scope)
                        sites.append(site)
                        wrapped[id(binding.node)] = site
                    continue
                method = self._bound_method(call.args[0], self.names.scope_of(call))
                if method is not None and id(method.node) not in by_func and \
                        id(method.node) not in wrapped:
                    site = self._site(method.node, method.scope)
                    # `tf.custom_gradient(self._forward)`: `self` is bound, not an input
                    site.is_method = False
                    site.params = dataclasses.replace(
                        site.params, names=site.params.names[1:], nodes=site.params.nodes[1:],
                        required=max(site.params.required - 1, 0))
                    sites.append(site)
                    wrapped[id(method.node)] = site
        self._attach_calls(by_func, wrapped)
        return sites

    def _custom_gradient_decorators(self):
        """id(def) -> whether its wrapper forwards its arguments, for the defs of the module
        that are decorators applying `tf.custom_gradient` to the function they take: `def
        deco(f)` that returns `tf.custom_gradient(f)`, or a def nested in it (a
        `functools.wraps` wrapper) that calls `tf.custom_gradient(f)(*args)`. The wrapper
        forwards when that call passes its `*args` alone (and `**kwargs`)."""
        found = {}
        for call, qualname in self.module.calls:
            if qualname not in CUSTOM_GRADIENT or len(call.args) != 1 or call.keywords or \
                    not isinstance(call.args[0], ast.Name):
                continue
            where = self.names.scope_of(call)
            bindings = self.names.lookup(call.args[0].id, where)
            if len(bindings) != 1 or bindings[0].kind != "param":
                continue
            deco = bindings[0].scope.node
            if not isinstance(deco, ast.FunctionDef) or len(deco.args.args) != 1 or \
                    deco.args.vararg or getattr(deco.args, "posonlyargs", None):
                continue
            if not self._returns_a_function(deco, call):
                continue
            forwarded = call is self._only_returned(deco)
            parent = self.module.parent_of(call)
            wrapper = where.node
            if isinstance(parent, ast.Call) and parent.func is call and wrapper is not deco \
                    and isinstance(wrapper, ast.FunctionDef) and wrapper.args.vararg:
                starred = parent.args
                forwarded = len(starred) == 1 and isinstance(starred[0], ast.Starred) and \
                    isinstance(starred[0].value, ast.Name) and \
                    starred[0].value.id == wrapper.args.vararg.arg and all(
                        keyword.arg is None for keyword in parent.keywords)
            found[id(deco)] = found.get(id(deco), True) and forwarded
        return found

    def _returns_a_function(self, deco, call):
        """Whether every return of the decorator `deco` gives a function: `call`
        (`tf.custom_gradient(f)`) itself, or a def nested in it, by name."""
        returns = [node for node in own_nodes(deco) if isinstance(node, ast.Return)]
        if not returns:
            return False
        own = self.names.scope_for_def[id(deco)]
        for ret in returns:
            if ret.value is call:
                continue
            if not isinstance(ret.value, ast.Name):
                return False
            bindings = own.bindings.get(ret.value.id, ())
            if len(bindings) != 1 or bindings[0].kind != "def":
                return False
        return True

    @staticmethod
    def _only_returned(deco):
        returns = [node for node in own_nodes(deco) if isinstance(node, ast.Return)]
        return returns[0].value if len(returns) == 1 else None

    def _decorated_through(self, node, scope, decorators):
        """For a def decorated with one of the module's custom-gradient decorators
        (_custom_gradient_decorators): whether calling it by name passes its arguments on
        (one such decorator, forwarding); None when it is not so decorated."""
        through = None
        for decorator in node.decorator_list:
            binding = self.names.definitions(decorator, scope)
            if binding is not None and binding.kind == "def" and id(binding.node) in decorators:
                through = decorators[id(binding.node)]
        if through is None:
            return None
        return through and len(node.decorator_list) == 1

    def _bound_method(self, expr, scope):
        """The binding of the method `self.name` (`expr`) names, in a method of the same
        class, when the class binds `name` once, to a plain def taking `self`; or None."""
        if not (isinstance(expr, ast.Attribute) and isinstance(expr.value, ast.Name)):
            return None
        owner = self.module.instance_class(expr.value, scope)
        if owner is None:
            return None
        bindings = owner.bindings.get(expr.attr, ())
        if len(bindings) != 1 or bindings[0].kind != "def":
            return None
        method = bindings[0].node
        if method.decorator_list or not (method.args.posonlyargs or method.args.args):
            return None  # a staticmethod, a property...: no `self` bound
        return bindings[0]

    def _site(self, func, defining_scope, name=None):
        own_scope = self.names.scope_for_def[id(func)]
        decorators = getattr(func, "decorator_list", ())
        is_method = defining_scope.kind == "class" and not any(
            isinstance(d, ast.Name) and d.id == "staticmethod" for d in decorators)
        site = Site(func, name or func.name, own_scope, Parameters.of(func), is_method)
        if isinstance(func, ast.Lambda):
            site.returns.extend(self._forward_returns(func.body, own_scope, func.body))
            return site
        for node in own_nodes(func):
            if isinstance(node, ast.Return):
                site.returns.extend(self._forward_returns(node, own_scope))
        return site

    def _assigned_name(self, call):
        """`h` of `h = tf.custom_gradient(lambda x: ...)`, else "lambda"."""
        parent = self.module.parent_of(call)
        if isinstance(parent, ast.Assign) and len(parent.targets) == 1 and isinstance(
                parent.targets[0], ast.Name):
            return parent.targets[0].id
        return "lambda"

    def _captures_values(self, func, own_scope):
        """Whether a Defun's body reads a name of an enclosing scope that may hold a
        tensor (`x * w` for a module's variable `w`): TF 1.8 makes each such tensor an
        extra input of the op. Imports, classes and constants are none; a def of the module
        it calls may read one."""
        body = [node for statement in func.body for node in ast.walk(statement)]
        for node in body:  # nested lambdas and defs run inside it too
            if not (isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load)):
                continue
            bindings = self.names.lookup(node.id, self.names.scope_of(node))
            if not bindings:
                continue  # a builtin
            for binding in bindings:
                if within(binding.scope, own_scope) or binding.kind in ("import", "class"):
                    continue  # its own (a comprehension's too), or no tensor
                if binding.kind == "assign" and isinstance(binding.node, ast.Constant):
                    continue
                return True  # a value, or a def of the module (what it reads is unknown)
        return False

    def defun_site(self, func, decorator, scope):
        own_scope = self.names.scope_for_def[id(func)]
        params = Parameters.of(func)
        if decorator.args and not any(isinstance(a, ast.Starred) for a in decorator.args):
            inputs = len(decorator.args)
        else:
            inputs = None if params.vararg else len(params.names)
        if inputs is not None and self._captures_values(func, own_scope):
            inputs = None  # each outer tensor its body reads is one more input of the op
        values = [node.value for node in own_nodes(func) if isinstance(node, ast.Return)]
        outputs = _agreed(self.module.count_values(v, own_scope) for v in values) if values else None
        site = DefunSite(func, func.name, inputs, outputs)
        for keyword in decorator.keywords:
            if keyword.arg not in ("python_grad_func", "grad_func"):
                continue
            candidates = self._grad_candidates(keyword.value, scope)
            grad = self._grad_function(candidates[0]) if len(candidates) == 1 else None
            if keyword.arg == "python_grad_func":
                site.python_grad = grad
            else:
                site.grad_defun = grad
        return site

    def _forward_returns(self, node, scope, value=None):
        """One ForwardReturn per gradient function the `return` (or a lambda's body, given
        as `value`) may hand back: a grad fn defined in both branches of an if/else gives
        two, each checked on its own."""
        returned = value = node.value if value is None else value
        if isinstance(value, ast.Name):
            value = self.module.single_value(value, scope) or value
        if not (isinstance(value, (ast.Tuple, ast.List)) and len(value.elts) == 2):
            return [ForwardReturn(node, returned)]
        outputs, grad = value.elts
        bound = self._partial_grad_function(grad, scope) or self._method_grad_function(
            grad, scope)
        if bound is not None:
            return [ForwardReturn(node, returned, outputs, bound)]
        candidates = self._grad_candidates(grad, scope)
        if not candidates:
            return [ForwardReturn(node, returned, outputs)]
        return [ForwardReturn(node, returned, outputs, self._grad_function(candidate))
                for candidate in candidates]

    def _grad_candidates(self, expr, scope, depth=0):
        """The defs or lambda a gradient expression can be: every binding of the name
        must be a def (else it is unknown, and none is returned); a factory's call gives
        the functions it returns."""
        if isinstance(expr, ast.Lambda):
            return [expr]
        if isinstance(expr, ast.Call):
            return self.module.made_functions(expr, scope)
        if isinstance(expr, ast.IfExp) and depth < _MAX_DEPTH:
            # `ste if STRAIGHT else exact`: the branch a constant test takes, else both
            chosen = self.names.chosen.get(id(expr))
            branches = [chosen] if chosen is not None else [expr.body, expr.orelse]
            found = [self._grad_candidates(b, scope, depth + 1) for b in branches]
            return [] if not all(found) else [c for each in found for c in each]
        if isinstance(expr, ast.Subscript) and depth < _MAX_DEPTH:
            # `GRADS[mode]` of a dict display bound once whose values are all defs
            table = self.names.definitions(expr.value, scope)
            if table is None or table.kind != "assign" or not isinstance(
                    table.node, ast.Dict) or not table.node.values or None in table.node.keys \
                    or expr.value.id in self.module._mutated_in(table.scope):
                return []
            found = [self._grad_candidates(v, table.scope, depth + 1) for v in table.node.values]
            if not all(found):
                return []
            unique = []
            for candidate in (c for each in found for c in each):
                if candidate not in unique:
                    unique.append(candidate)
            return unique
        if not isinstance(expr, ast.Name):
            return []
        bindings = self.names.lookup(expr.id, scope)
        if len(bindings) == 1 and bindings[0].kind == "assign" and depth < _MAX_DEPTH:
            # `grad = ste_pair`: an alias bound once is the function it names
            return self._grad_candidates(bindings[0].node, bindings[0].scope, depth + 1)
        if not bindings or any(binding.kind != "def" for binding in bindings):
            return []
        return [binding.node for binding in bindings]

    def _partial_grad_function(self, expr, scope):
        """The GradFunction of `functools.partial(clip_grad, 0.5)`: the def's, less the
        leading parameters the partial binds (positional ones only; else None)."""
        if not (isinstance(expr, ast.Call) and expr.args and not expr.keywords
                and self.names.resolve(expr.func, scope) == "functools.partial"):
            return None
        bound = expr.args[1:]
        binding = self.names.definitions(expr.args[0], scope)
        if binding is None or binding.kind != "def" or any(
                isinstance(arg, ast.Starred) for arg in bound):
            return None
        return self._without_leading(self._grad_function(binding.node), len(bound))

    def _method_grad_function(self, expr, scope):
        """The GradFunction of a bound method, `clipper.grad` for `clipper = Clipper(0.5)`
        or `self.grad` in a method: its def less `self`, when the class of the module
        defines it once, plainly."""
        if not (isinstance(expr, ast.Attribute) and isinstance(expr.value, ast.Name)):
            return None
        owner = self.module.instance_class(expr.value, scope)
        if owner is not None and self.module._overridden(owner.node.name, expr.attr):
            return None  # `self` may be of a subclass with its own method
        binding = self.names.definitions(expr.value, scope) if owner is None else None
        if binding is not None and binding.kind == "class":
            # `Grads.backward` of a staticmethod: called as it is, no `self`.
            owner = self.names.scope_for_def.get(id(binding.node))
            methods = owner.bindings.get(expr.attr, []) if owner is not None else []
            if len(methods) == 1 and methods[0].kind == "def" and [
                    _decorator_name(d) for d in methods[0].node.decorator_list] == [
                        "staticmethod"]:
                return self._grad_function(methods[0].node)
            return None
        if binding is not None:
            made_by = self.module.class_made_by(binding)
            if made_by is not None:
                owner = self.names.scope_for_def.get(id(made_by))
        methods = owner.bindings.get(expr.attr, []) if owner is not None else []
        if len(methods) != 1 or methods[0].kind != "def" or methods[0].node.decorator_list:
            return None
        return self._without_leading(self._grad_function(methods[0].node), 1)  # self

    @staticmethod
    def _without_leading(grad, count):
        """The GradFunction less its first `count` positional parameters (bound before it
        is called), or None when it has fewer."""
        params = grad.params
        if count > len(params.names):
            return None
        shifted = Parameters(params.names[count:], max(params.required - count, 0),
                             params.vararg, params.kwonly, params.kwarg, params.nodes[count:])
        return GradFunction(grad.node, grad.name, grad.scope, shifted, grad.returns)

    def _grad_function(self, node):
        """The GradFunction of a def or lambda, made once: every return handing it back
        (and every site) shares it."""
        if id(node) not in self.grads:
            self.grads[id(node)] = self._new_grad_function(node)
        return self.grads[id(node)]

    def _new_grad_function(self, node):
        name = "lambda" if isinstance(node, ast.Lambda) else node.name
        own_scope = self.names.scope_for_def[id(node)]
        if isinstance(node, ast.Lambda):
            returns = [(node, node.body)]
        else:
            returns = [(ret, ret.value) for ret in own_nodes(node) if isinstance(ret, ast.Return)]
        return GradFunction(node, name, own_scope, Parameters.of(node), returns)

    def _attach_calls(self, by_func, wrapped):
        if not by_func and not wrapped:
            return
        for call, qualname in self.module.calls:
            if qualname == "functools.partial" and call.args:
                site = self._site_named(call.args[0], call, by_func, wrapped)
                if site is not None:
                    site.partials.append(call)
                continue
            site = self._site_named(call.func, call, by_func, wrapped)
            if site is not None and call not in site.calls:
                site.calls.append(call)

    def _site_named(self, expr, where, by_func, wrapped):
        """The site a Name refers to at `where`: a decorated def, or `h` of
        `h = tf.custom_gradient(f)`, also through plain aliases (`sg = scale_grad`) and
        an attribute a class's methods set to one once (`self.act = soft_clip`)."""
        scope = self.names.scope_of(where)
        if isinstance(expr, ast.Call):
            # `make_clipper("clipped")(x, 0.1)`: the function the factory returns
            return self._made_site(expr, scope, by_func)
        if isinstance(expr, ast.Attribute):
            site = self._static_site(expr, scope, by_func)
            if site is not None or not isinstance(expr.value, ast.Name):
                return site
            owner = self.module.instance_class(expr.value, scope)
            if owner is None:
                return None
            stores = [(value, method_scope) for attr, value, method_scope
                      in self.module._class_attribute_stores(owner) if attr == expr.attr]
            if len(stores) != 1:
                return None  # set twice
            value, method_scope = stores[0]
            if isinstance(value, ast.Call):
                # `self._rev = tf.custom_gradient(self._forward)`, then `self._rev(x)`; or
                # `self.clip = make_clipper("c")`, then `self.clip(x)`
                return self._wrapped_site(value, method_scope, by_func, wrapped) or \
                    self._made_site(value, method_scope, by_func)
            if not isinstance(value, ast.Name):
                return None  # set to what is no plain name
            return self._site_of_name(value, method_scope, by_func, wrapped, 0)
        return self._site_of_name(expr, scope, by_func, wrapped, 0)

    def _wrapped_site(self, call, scope, by_func, wrapped):
        """The site of `tf.custom_gradient(f)` (`call`): f a def, a lambda or a bound
        method `self._forward` of the class."""
        if len(call.args) != 1 or call.keywords or self.names.resolve(
                call.func, scope) not in CUSTOM_GRADIENT:
            return None
        function = call.args[0]
        if isinstance(function, ast.Lambda):
            return wrapped.get(id(function))
        if isinstance(function, ast.Name):
            inner = self.names.definitions(function, scope)
            return None if inner is None else (
                by_func.get(id(inner.node)) or wrapped.get(id(inner.node)))
        method = self._bound_method(function, scope)
        return None if method is None else wrapped.get(id(method.node))

    def _made_site(self, call, scope, by_func):
        """The site of the decorated def that every return of the factory `call` runs
        hands back (`def make_clipper(name): @tf.custom_gradient def clip(x): ...;
        return clip`), or None."""
        if not self._nested_sites(by_func):
            return None
        made = {id(function): function for function in self.module.made_functions(call, scope)}
        if len(made) != 1:
            return None
        return by_func.get(next(iter(made)))

    def _nested_sites(self, by_func):
        """Whether some decorated custom-gradient def is made inside a def (a factory's)."""
        if self._any_nested is None:
            self._any_nested = any(
                site.func is not None and self.names.scope_of(site.func).kind == "function"
                for site in by_func.values())
        return self._any_nested

    def _static_site(self, expr, scope, by_func):
        """The site of a staticmethod stacked over the decorator, called through its class
        (`Ops.grl(x)`), an instance (`self.grl(x)`, `Ops().grl(x)`, `ops.grl(x)` for `ops
        = Ops()`) or `cls` in a classmethod; None else."""
        if "staticmethod" not in self.module.text or expr.attr not in self._static_names(by_func):
            return None
        found = self._receiver_class(expr.value, scope)
        if found is None:
            return None
        owner, instance, subclassed = found
        methods = owner.bindings.get(expr.attr, ()) if owner is not None else ()
        if len(methods) != 1 or methods[0].kind != "def":
            return None
        site = by_func.get(id(methods[0].node))
        if site is None or not static_first(methods[0].node):
            return None
        if subclassed and self.module._overridden(owner.node.name, expr.attr):
            return None  # `self` may be of a subclass with its own method
        if instance and any(attr == expr.attr for attr, _, _
                            in self.module._class_attribute_stores(owner)):
            return None  # an instance attribute of the name hides it
        return site

    def _static_names(self, by_func):
        """The names of the staticmethods stacked over the decorator (worked out once)."""
        if self._statics is None:
            self._statics = frozenset(
                site.func.name for site in by_func.values() if static_first(site.func))
        return self._statics

    def _receiver_class(self, receiver, scope):
        """(class scope, whether `receiver` is an instance, whether it may be of a
        subclass) for a class of the module named, made or bound as `self`/`cls`."""
        if isinstance(receiver, ast.Call):
            if not isinstance(receiver.func, ast.Name):
                return None
            made = self.names.definitions(receiver.func, scope)
            if made is None or made.kind != "class":
                return None
            return self.names.scope_for_def.get(id(made.node)), True, False
        if not isinstance(receiver, ast.Name):
            return None
        owner = self.module.instance_class(receiver, scope)
        if owner is not None:
            return owner, True, True
        bindings = self.names.lookup(receiver.id, scope)
        if len(bindings) != 1:
            return None
        binding = bindings[0]
        if binding.kind == "class":
            return self.names.scope_for_def.get(id(binding.node)), False, False
        if binding.kind == "param":  # `cls` of a classmethod
            method = binding.scope.node
            owner = binding.scope.parent
            if owner is None or owner.kind != "class" or not isinstance(
                    method, (ast.FunctionDef, ast.AsyncFunctionDef)) or "classmethod" not in [
                        _decorator_name(d) for d in method.decorator_list]:
                return None
            positional = list(getattr(method.args, "posonlyargs", [])) + list(method.args.args)
            if not positional or positional[0] is not binding.node:
                return None
            return owner, False, True
        made = self.module.class_made_by(binding)
        if made is None:
            return None
        return self.names.scope_for_def.get(id(made)), True, False

    def _site_of_name(self, expr, scope, by_func, wrapped, depth):
        if not isinstance(expr, ast.Name) or depth > _MAX_ALIASES:
            return None
        binding = self.names.definitions(expr, scope)
        if binding is None:
            return None
        site = by_func.get(id(binding.node)) if binding.kind == "def" else None
        target = binding.node
        if binding.kind == "assign" and isinstance(target, ast.Name):
            if binding.scope.kind == "module" and self.names.declared_global(expr.id):
                return None  # a def may rebind the alias (`global activation`)
            return self._site_of_name(target, binding.scope, by_func, wrapped, depth + 1)
        if binding.kind == "assign" and isinstance(target, ast.Call) and target.args:
            # h = tf.custom_gradient(f): calls of h are calls of f's site
            if self.names.resolve(target.func, binding.scope) in CUSTOM_GRADIENT:
                if isinstance(target.args[0], ast.Lambda):
                    return wrapped.get(id(target.args[0]))
                inner = self.names.definitions(target.args[0], binding.scope)
                if inner is not None:
                    site = by_func.get(id(inner.node)) or wrapped.get(id(inner.node))
            elif not (binding.scope.kind == "module" and self.names.declared_global(expr.id)):
                # `clip = make_clipper("clipped")`: the function the factory returns (unless
                # a def may rebind the name: `global clip`)
                site = self._made_site(target, binding.scope, by_func)
        return site


# Python's builtins, which a star import does not provide (Python 2's own among them).
_BUILTIN_NAMES = frozenset(dir(builtins)) | {"xrange", "unicode", "basestring", "long",
                                             "raw_input", "reduce", "file", "execfile"}
# How many plain aliases (`sg = scale_grad`) are followed to a custom-gradient function.
_MAX_ALIASES = 8


def _imported_modules(node):
    """(module, level) that an import statement may load: `import a.b` a.b; `from m
    import n` m, and m.n when n is a module."""
    if isinstance(node, ast.Import):
        return [(alias.name, 0) for alias in node.names]
    module = node.module or ""
    # `from . import f` / `from . import *` load the package itself too: f may be a name
    # its `__init__` defines (Python takes the package's attribute when no submodule f is)
    return ([(module, node.level)] if module or node.level else []) + [
        ("%s.%s" % (module, alias.name) if module else alias.name, node.level)
        for alias in node.names if alias.name != "*"]


def _python_of_test(test, holds):
    """The oldest Python where a Python-version test has the truth `holds`, or None:
    `six.PY3`, `not six.PY2`, `sys.version_info >= (3, 3)`, `sys.version_info[0] >= 3`,
    `sys.version_info.major == 3`, `sys.version_info < (3,)` (held false)."""
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        return _python_of_test(test.operand, not holds)
    text = ast.unparse(test)
    if text in ("six.PY3", "PY3"):
        return (3, 0) if holds else None
    if text in ("six.PY2", "PY2"):
        return None if holds else (3, 0)
    if not (isinstance(test, ast.Compare) and len(test.ops) == 1):
        return None
    subject, operator, bound = ast.unparse(test.left), test.ops[0], test.comparators[0]
    if subject in ("sys.version_info", "sys.version_info[:2]") and isinstance(bound, ast.Tuple) \
            and bound.elts and all(isinstance(part, ast.Constant) and type(part.value) is int
                                   for part in bound.elts[:2]):
        version = (bound.elts[0].value, bound.elts[1].value if len(bound.elts) > 1 else 0)
    elif subject in ("sys.version_info[0]", "sys.version_info.major") and isinstance(
            bound, ast.Constant) and type(bound.value) is int:
        version = (bound.value, 0)
    else:
        return None
    at_least = (isinstance(operator, ast.GtE) and holds) or (isinstance(operator, ast.Lt)
                                                             and not holds)
    if at_least:
        return version
    if isinstance(operator, ast.Eq) and holds and version[0] >= 3 and version[1] == 0:
        return version  # `sys.version_info[0] == 3`
    if isinstance(operator, ast.Gt) and holds and subject.endswith(("[0]", ".major")):
        return (version[0] + 1, 0)
    return None


# Exceptions whose handler makes a `try` of imports a fallback for a failing import.
_IMPORT_ERRORS = frozenset(("ImportError", "ModuleNotFoundError", "Exception", "BaseException",
                            "StandardError"))


def _private_read_roots(text):
    """The names that begin, in `text`, a chain ending in a private attribute (`vs` of
    `vs._KEY`, `tf` of `tf.nn._nn_grad`): read back from each `._`, over names, dots,
    blanks, line breaks (in brackets) and continuations."""
    roots = set()
    for match in _ANY_PRIVATE_READ.finditer(text):
        at = match.start()  # the dot
        root = None
        while True:
            end = at
            while end > 0 and text[end - 1] in _BLANKS:
                end -= 1
            start = end
            while start > 0 and (text[start - 1].isalnum() or text[start - 1] == "_"):
                start -= 1
            if start == end:
                break  # `)._x`, `]._x`: no name before the dot
            root = text[start:end]
            at = start
            while at > 0 and text[at - 1] in _BLANKS:
                at -= 1
            if at == 0 or text[at - 1] != ".":
                break
            at -= 1
        if root is not None:
            roots.add(root)
    return roots


_BLANKS = frozenset(" \t\\\r\n")
# `._x`: a private attribute read of something. Blanks, line breaks (in brackets) and
# continuations may stand around the dot, a bounded run of them.
_ANY_PRIVATE_READ = re.compile(r"\.[ \t\\\r\n]{0,64}_(?!_)")


def _failing_fallback_imports(tries):
    """ids of the TensorFlow import statements of `try` bodies that fail on TF 1.8 (its
    wheels' model, cglint.tfimports), and of the imports after them in the body, when a
    handler catches the ImportError: `try: import tensorflow.compat.v1 as tf` / `except
    ImportError: import tensorflow as tf` binds `tf` to tensorflow only."""
    from cglint import tfimports

    found = []
    for node in tries:
        if not any(_catches_import_error(handler.type) for handler in node.handlers):
            continue
        failed = False
        for statement in node.body:
            if not isinstance(statement, (ast.Import, ast.ImportFrom)):
                continue
            if not failed:
                failed = _import_fails_on_target(statement, tfimports)
            if failed:
                found.append(id(statement))
    return found


def _catches_import_error(expr):
    if expr is None:
        return True  # a bare except
    if isinstance(expr, ast.Tuple):
        return any(_catches_import_error(element) for element in expr.elts)
    name = expr.attr if isinstance(expr, ast.Attribute) else getattr(expr, "id", None)
    return name in _IMPORT_ERRORS


def _import_fails_on_target(statement, tfimports):
    """Whether the statement's first TensorFlow import surely fails on TF 1.8."""
    if isinstance(statement, ast.Import):
        alias = statement.names[0]
        module, name = alias.name, None
    elif statement.level or not statement.module:
        return False
    else:
        module, name = statement.module, statement.names[0].name
    if not (module == "tensorflow" or module.startswith("tensorflow.")) or name == "*":
        return False
    return tfimports.import_fails(module, name)[0] is True


def _takes_arguments(function):
    arguments = function.args
    return bool(arguments.args or arguments.posonlyargs or arguments.vararg
                or arguments.kwonlyargs or arguments.kwarg)


def _called_name(expr):
    """The last name of what the call `expr` calls (`assertRaises` of
    `self.assertRaises(E)`), or None for no call or a callee of another shape."""
    if not isinstance(expr, ast.Call):
        return None
    func = expr.func
    return func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", None)


def star_imports(tree):
    """The module's top-level `from m import *` statements, in order."""
    return [node for node in tree.body if isinstance(node, ast.ImportFrom)
            and any(alias.name == "*" for alias in node.names)]


def _and_above(qualname):
    """`a.b.c`, `a.b`, `a`: a dotted name and every module above it."""
    parts = qualname.split(".")
    return [".".join(parts[:end]) for end in range(len(parts), 0, -1)]


def _tensorflow_module(module, level):
    """Whether an import names a module of TensorFlow itself (never looked up in the
    project, even when the project is TensorFlow's own tree)."""
    return not level and (module + ".").startswith("tensorflow.")


def returned_slots(value):
    """The returned gradients as TF takes them, a list of expressions (a display's
    elements, `[a] + [b]` joined); None when their number is not known."""
    if isinstance(value, (ast.Tuple, ast.List)):
        if any(isinstance(element, ast.Starred) for element in value.elts):
            return None
        return list(value.elts)
    if isinstance(value, ast.BinOp) and isinstance(value.op, ast.Add):
        left, right = returned_slots(value.left), returned_slots(value.right)
        return None if left is None or right is None else left + right
    return [value]


# TensorFlow's makers of a tensor or variable whose shape is an argument (its position).
_SHAPED_MAKERS = {"tensorflow.zeros": 0, "tensorflow.ones": 0, "tensorflow.fill": 0,
                  "tensorflow.random_normal": 0, "tensorflow.random_uniform": 0,
                  "tensorflow.truncated_normal": 0, "tensorflow.get_variable": 1,
                  "tensorflow.placeholder": 1}


def visibly_not_scalar(module, expr, depth=0):
    """Whether `expr` is a tensor whose static shape is surely not (): a variable or
    constant of a list display (`tf.Variable([3.0, 3.0])`), or made with a shape of one
    or more dimensions (`tf.get_variable("s", [2])`, `tf.placeholder(tf.float32, [None])`),
    directly or through a name bound once to one."""
    if expr is None or depth > 4:
        return False
    if isinstance(expr, ast.Name):
        names = module.names
        bindings = names.lookup(expr.id, names.scope_of(expr))
        return len(bindings) == 1 and bindings[0].kind == "assign" and \
            visibly_not_scalar(module, bindings[0].node, depth + 1)
    if not isinstance(expr, ast.Call):
        return False
    qualname = module.resolve(expr.func) or ""
    if qualname in ("tensorflow.Variable", "tensorflow.constant"):
        value = passed_argument(expr, 0, "initial_value" if qualname.endswith("Variable")
                                else "value")
        shape = passed_argument(expr, 2, "shape") if qualname.endswith("constant") else None
        return shape is None and isinstance(value, (ast.List, ast.Tuple)) and bool(value.elts)
    if qualname in _SHAPED_MAKERS:
        shape = passed_argument(expr, _SHAPED_MAKERS[qualname], "shape" if qualname != (
            "tensorflow.fill") else "dims")
        # a rank of one or more, whatever the sizes (`[None, 2]` is no scalar either)
        return isinstance(shape, (ast.List, ast.Tuple)) and bool(shape.elts) and not any(
            isinstance(e, ast.Starred) for e in shape.elts)
    return False
