#!/usr/bin/env python3
"""Generate cglint's TensorFlow 1.8 op registry (cglint/data/tf18_ops.json).

Run by hand with a TF 1.8 interpreter (see tools/README.md); the output is checked in
and never edited by hand:

    python3 tools/gen_tf_ops.py TF18_PYTHON [-o cglint/data/tf18_ops.json]

The host part starts TF18_PYTHON on this same file in `--inside` mode, which imports
TensorFlow and prints the facts as JSON; the host part checks and writes them. The
inside part runs under Python 2.7 and 3.6, so this file keeps to their common syntax.

Recorded, each from TF's own registries rather than from its docs:
- `ops`: every op type the C++ registry knows after `import tensorflow` and after
  `import tensorflow.contrib` (which loads more op libraries), with its inputs from the
  OpDef as [fixed, variadic]: `fixed` counts single-tensor input args, `variadic` counts
  input args whose length comes from a `number_attr` or `type_list_attr`; then its
  outputs, counted alike: [fixed in, variadic in, fixed out, variadic out].
- `contrib_ops`: the op types that exist only once `tensorflow.contrib` is imported.
- `gradients` / `not_differentiable`: the names in the Python gradient registry after
  `import tensorflow` (registering one of them again raises KeyError), split by whether
  a gradient function or `NotDifferentiable` (None) was registered; `contrib_gradients`
  and `contrib_not_differentiable` are the ones `import tensorflow.contrib` adds.
- `functions`: for common `tf.*` functions (names relative to `tf`), the op types one
  call builds, from a fresh graph: the ops that appear during the call, minus the `Const`
  ops that wrap its Python-number arguments.
- `functions_other_arguments`: op types some functions build instead with other
  arguments (`py_func(..., stateful=False)` builds `PyFuncStateless`).
- `operators`: the same for Python operators on float tensors, keyed by the `ast` class
  name of the operator (`Mult`, `USub`, `Lt`, `Subscript`).
- `function_ops`: op types among those built that are calls of a TF function (Defun),
  whose gradient `gradient_override_map` does not replace.
"""
from __future__ import print_function

import argparse
import json
import os
import subprocess
import sys
import time

FORMAT = 1

# Inputs the calls below use; each is created before the call so its ops are not counted.
INPUTS = (
    ("x", "tf.placeholder(tf.float32, [2, 3])"),
    ("y", "tf.placeholder(tf.float32, [2, 3])"),
    ("m", "tf.placeholder(tf.float32, [3, 2])"),
    ("bias", "tf.placeholder(tf.float32, [3])"),
    ("i", "tf.placeholder(tf.int32, [2, 3])"),
    ("labels", "tf.placeholder(tf.int32, [2])"),
    ("b", "tf.placeholder(tf.bool, [2, 3])"),
    ("c", "tf.placeholder(tf.bool, [2, 3])"),
    ("img", "tf.placeholder(tf.float32, [1, 4, 4, 2])"),
    ("kernel", "tf.placeholder(tf.float32, [2, 2, 2, 3])"),
    # for OTHER_CALLS: a batch of matrices, a tensor of unknown rank, a complex tensor,
    # a resource variable
    ("x3", "tf.placeholder(tf.float32, [2, 3, 3])"),
    ("xu", "tf.placeholder(tf.float32)"),
    ("z", "tf.placeholder(tf.complex64, [2, 3])"),
    ("rv", "tf.get_variable('rv', [4, 3], use_resource=True)"),
)
# Functions called as `f(x)` unless CALLS says otherwise.
UNARY = """
abs acos acosh asin asinh atan atanh ceil cos cosh digamma erf erfc exp expm1 floor identity
is_finite is_inf is_nan lgamma log log1p log_sigmoid negative reciprocal rint round rsqrt
sigmoid sign sin sinh softplus softsign sqrt square stop_gradient tan tanh zeros_like
ones_like shape size rank transpose squeeze reduce_sum reduce_mean reduce_max reduce_min
reduce_prod reduce_logsumexp reduce_euclidean_norm norm cumsum cumprod to_int32 to_int64
to_double to_float nn.relu nn.relu6 nn.elu nn.selu nn.crelu nn.softplus nn.softsign
nn.sigmoid nn.tanh nn.leaky_relu nn.swish nn.softmax nn.log_softmax nn.l2_normalize
nn.l2_loss nn.moments nn.zero_fraction math.sigmoid math.tanh math.log_sigmoid
layers.flatten contrib.layers.flatten
""".split()
CALLS = {
    "add": "f(x, y)", "subtract": "f(x, y)", "multiply": "f(x, y)", "divide": "f(x, y)",
    "truediv": "f(x, y)", "realdiv": "f(x, y)", "div": "f(x, y)", "floordiv": "f(x, y)",
    "floor_div": "f(x, y)", "mod": "f(x, y)", "floormod": "f(x, y)", "truncatediv": "f(i, i)",
    "truncatemod": "f(x, y)", "pow": "f(x, y)", "maximum": "f(x, y)", "minimum": "f(x, y)",
    "squared_difference": "f(x, y)", "atan2": "f(x, y)", "scalar_mul": "f(2.0, x)",
    "matmul": "f(x, m)", "tensordot": "f(x, m, 1)", "einsum": "f('ij,jk->ik', x, m)",
    "add_n": "f([x, y])", "accumulate_n": "f([x, y])", "concat": "f([x, y], 0)",
    "stack": "f([x, y])", "parallel_stack": "f([x, y])", "unstack": "f(x)",
    "split": "f(x, 3, axis=1)", "where": "f(b, x, y)",
    "equal": "f(x, y)", "not_equal": "f(x, y)", "less": "f(x, y)", "greater": "f(x, y)",
    "less_equal": "f(x, y)", "greater_equal": "f(x, y)", "logical_and": "f(b, c)",
    "logical_or": "f(b, c)", "logical_xor": "f(b, c)", "logical_not": "f(b)",
    "cast": "f(x, tf.int32)", "saturate_cast": "f(x, tf.int32)", "to_float": "f(i)",
    "bitcast": "f(x, tf.int32)", "clip_by_value": "f(x, 0.0, 6.0)",
    "clip_by_norm": "f(x, 1.0)", "clip_by_average_norm": "f(x, 1.0)",
    "argmax": "f(x, 1)", "argmin": "f(x, 1)", "expand_dims": "f(x, 0)",
    "reshape": "f(x, [-1])", "tile": "f(x, [1, 2])", "reverse": "f(x, [0])",
    "reverse_v2": "f(x, [0])", "gather": "f(x, [0])", "gather_nd": "f(x, [[0, 0]])",
    "slice": "f(x, [0, 0], [1, 1])", "strided_slice": "f(x, [0], [1])",
    "pad": "f(x, [[1, 1], [1, 1]])", "one_hot": "f(labels, 3)", "fill": "f([2, 3], 1.0)",
    "zeros": "f([2, 3])", "ones": "f([2, 3])", "constant": "f(1.0)",
    "range": "f(3)", "linspace": "f(0.0, 1.0, 3)", "random_normal": "f([2, 3])",
    "random_uniform": "f([2, 3])", "truncated_normal": "f([2, 3])",
    "boolean_mask": "f(x, b)", "sequence_mask": "f(labels, 3)",
    "check_numerics": "f(x, 'x')", "Print": "f(x, [x])", "py_func": "f(pyfn, [x], tf.float32)",
    "contrib.eager.py_func": "f(pyfn, [x], tf.float32)",
    "nn.bias_add": "f(x, bias)", "nn.dropout": "f(x, 0.5)",
    "nn.softmax_cross_entropy_with_logits": "f(labels=y, logits=x)",
    "nn.softmax_cross_entropy_with_logits_v2": "f(labels=y, logits=x)",
    "nn.sparse_softmax_cross_entropy_with_logits": "f(labels=labels, logits=x)",
    "nn.sigmoid_cross_entropy_with_logits": "f(labels=y, logits=x)",
    "nn.weighted_cross_entropy_with_logits": "f(y, x, 2.0)",
    "nn.xw_plus_b": "f(x, m, tf.zeros([2]))", "nn.conv2d": "f(img, kernel, [1, 1, 1, 1], 'SAME')",
    "nn.max_pool": "f(img, [1, 2, 2, 1], [1, 2, 2, 1], 'SAME')",
    "nn.avg_pool": "f(img, [1, 2, 2, 1], [1, 2, 2, 1], 'SAME')",
    "nn.embedding_lookup": "f(x, labels)", "nn.top_k": "f(x)", "nn.in_top_k": "f(x, labels, 1)",
    "losses.mean_squared_error": "f(y, x)", "losses.absolute_difference": "f(y, x)",
    "losses.huber_loss": "f(y, x)", "losses.sigmoid_cross_entropy": "f(y, x)",
    "image.resize_images": "f(img, [8, 8])", "image.resize_bilinear": "f(img, [8, 8])",
    "image.resize_nearest_neighbor": "f(img, [8, 8])",
}
# Other calls of some functions, whose op types depend on their arguments (the rank or
# dtype of an input, a mode or method keyword): an override of one of these op types
# may apply to a call cglint cannot tell apart.
OTHER_CALLS = {
    "py_func": ["f(pyfn, [x], tf.float32, stateful=False)"],
    "matmul": ["f(x3, x3)", "f(xu, xu)", "f(x, m, a_is_sparse=True)"],
    "einsum": ["f('bij,bjk->bik', x3, x3)"],
    "tensordot": ["f(x3, m, 1)"],
    "image.resize_images": ["f(img, [8, 8], method=1)", "f(img, [8, 8], method=2)",
                            "f(img, [8, 8], method=3)"],
    "pad": ["f(x, [[1, 1], [1, 1]], mode='REFLECT')", "f(x, [[1, 1], [1, 1]], mode='SYMMETRIC')",
            "f(x, [[1, 1], [1, 1]], constant_values=1.0)"],
    "where": ["f(b)"],
    "split": ["f(x, [1, 2], axis=1)"],
    "abs": ["f(z)"],
    "transpose": ["f(z, conjugate=True)"],
    "random_uniform": ["f([2, 3], maxval=5, dtype=tf.int32)"],
    "gather": ["f(rv, [0])"],
    "nn.embedding_lookup": ["f(rv, labels)"],
    "concat": ["f([x], 0)"],
    "add_n": ["f([x], name='s')"],
    "identity": ["f(rv)"],
    "nn.softmax": ["f(x3)"],
    "nn.log_softmax": ["f(x3)"],
}
# Python operators on float tensors, by ast class name.
OPERATORS = {
    "Add": "x + y", "Sub": "x - y", "Mult": "x * y", "Div": "x / y", "FloorDiv": "x // y",
    "Mod": "x % y", "Pow": "x ** y", "USub": "-x", "Invert": "~b", "BitAnd": "b & c",
    "BitOr": "b | c", "BitXor": "b ^ c", "Lt": "x < y", "LtE": "x <= y", "Gt": "x > y",
    "GtE": "x >= y", "Subscript": "x[0]",
}
if sys.version_info >= (3, 5):
    OPERATORS["MatMult"] = "x.__matmul__(m)"


def inside():
    """Runs in the TF 1.8 interpreter: print the facts as one JSON object."""
    import tensorflow as tf
    from tensorflow.core.framework import op_def_pb2
    from tensorflow.python import pywrap_tensorflow
    from tensorflow.python.framework import ops

    def op_defs():
        buffer = pywrap_tensorflow.TF_GetAllOpList()
        try:
            op_list = op_def_pb2.OpList()
            op_list.ParseFromString(pywrap_tensorflow.TF_GetBuffer(buffer))
        finally:
            pywrap_tensorflow.TF_DeleteBuffer(buffer)
        return dict((op.name, op) for op in op_list.op)

    def registry():
        entries = ops._gradient_registry._registry  # pylint: disable=protected-access
        gradients = set(name for name, entry in entries.items() if entry["type"] is not None)
        return gradients, set(entries) - gradients

    core_defs = op_defs()
    core_gradients, core_none = registry()
    built, function_ops = built_ops(tf)
    import tensorflow.contrib  # noqa: F401  (loads contrib's op libraries and gradients)
    all_defs = op_defs()
    all_gradients, all_none = registry()

    def counts(args):
        variadic = sum(1 for arg in args if arg.number_attr or arg.type_list_attr)
        return [len(args) - variadic, variadic]

    def inputs(op_def):
        return counts(op_def.input_arg) + counts(op_def.output_arg)

    facts = {
        "tensorflow": tf.__version__,
        "ops": dict((name, inputs(op_def)) for name, op_def in all_defs.items()),
        "contrib_ops": sorted(set(all_defs) - set(core_defs)),
        "gradients": sorted(core_gradients),
        "not_differentiable": sorted(core_none),
        "contrib_gradients": sorted(all_gradients - core_gradients),
        "contrib_not_differentiable": sorted(all_none - core_none),
        "functions": built["functions"],
        "functions_other_arguments": built["other"],
        "operators": built["operators"],
        "function_ops": sorted(function_ops),
        "skipped": built["skipped"],
    }
    json.dump(facts, sys.stdout, sort_keys=True)


def built_ops(tf):
    """Op types each call in UNARY/CALLS and each operator in OPERATORS builds."""
    found = {"functions": {}, "operators": {}, "other": {}, "skipped": []}
    function_ops = set()
    calls = dict((name, "f(x)") for name in UNARY)
    calls.update(CALLS)
    jobs = [("functions", name, call) for name, call in sorted(calls.items())]
    jobs += [("other", name, call) for name, others in sorted(OTHER_CALLS.items())
             for call in others]
    jobs += [("operators", name, expr) for name, expr in sorted(OPERATORS.items())]
    for kind, name, expr in jobs:
        graph = tf.Graph()
        with graph.as_default():
            env = {"tf": tf, "pyfn": lambda a: a}
            for input_name, input_expr in INPUTS:
                env[input_name] = eval(input_expr, env)
            if kind != "operators":
                env["f"] = attribute(tf, name)
                if env["f"] is None:
                    found["skipped"].append(name)
                    continue
            before = set(op.name for op in graph.get_operations())
            try:
                eval(expr, env)
            except Exception as error:  # absent in 1.8 or not callable this way: record it
                sys.stderr.write("skipped tf.%s: %s: %s\n" % (name, type(error).__name__, error))
                found["skipped"].append(name)
                continue
            new = [op for op in graph.get_operations() if op.name not in before]
            types = set(op.type for op in new)
            if types != set(["Const"]):
                types.discard("Const")
            is_function = graph._is_function  # pylint: disable=protected-access
            function_ops.update(t for t in types if is_function(t))
            if kind == "other":
                types = types.union(found["other"].get(name, ()))
            found[kind][name] = sorted(types)
    for name, types in list(found["other"].items()):
        found["other"][name] = sorted(set(types) - set(found["functions"].get(name, ())))
        if not found["other"][name]:
            del found["other"][name]
    return found, function_ops


def attribute(tf, dotted):
    value = tf
    for part in dotted.split("."):
        value = getattr(value, part, None)
        if value is None:
            return None
    return value


def host(argv):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("python", help="a Python with tensorflow==1.8.0 installed")
    default = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                           "cglint", "data", "tf18_ops.json")
    parser.add_argument("-o", "--output", default=default)
    args = parser.parse_args(argv)
    env = dict(os.environ, TF_CPP_MIN_LOG_LEVEL="3", PYTHONWARNINGS="ignore")
    env.pop("PYTHONPATH", None)
    started = time.time()
    completed = subprocess.run([args.python, os.path.abspath(__file__), "--inside"], env=env,
                               stdout=subprocess.PIPE, universal_newlines=True)
    if completed.returncode:
        raise SystemExit("gen_tf_ops: %s exited with status %d" % (args.python,
                                                                  completed.returncode))
    facts = json.loads(completed.stdout)
    if facts["tensorflow"] != "1.8.0":
        raise SystemExit("gen_tf_ops: %s has tensorflow %s, not 1.8.0" % (args.python,
                                                                         facts["tensorflow"]))
    facts = dict(format=FORMAT, generated_by="tools/gen_tf_ops.py", **facts)
    with open(args.output, "w") as handle:
        json.dump(facts, handle, sort_keys=True, separators=(",", ":"))
        handle.write("\n")
    print("wrote %s: %d op types, %d gradient names, %d functions (%d skipped) in %.1fs" % (
        args.output, len(facts["ops"]), len(facts["gradients"]) + len(facts["contrib_gradients"]),
        len(facts["functions"]), len(facts["skipped"]), time.time() - started))


if __name__ == "__main__":
    if sys.argv[1:] == ["--inside"]:
        inside()
    else:
        host(sys.argv[1:])
