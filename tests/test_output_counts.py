"""facts.FIXED_OUTPUT_COUNTS, measured: each TF function there returns that many tensors
under TF 1.8 (as `nest.flatten` counts them, which is how custom_gradient counts a
function's outputs), on both interpreters; and facts.TENSOR_LISTS: each one's list or
tuple holds no nested list, so a name unpacked from it is one gradient."""
import json
import subprocess

import pytest

from cglint.facts import FIXED_OUTPUT_COUNTS
from cglint.oracle import envs

# One call of each, as TF 1.8 takes it.
CALLS = {
    "nn.moments": "tf.nn.moments(x, [0])",
    "nn.weighted_moments": "tf.nn.weighted_moments(x, [0], tf.ones([4]))",
    "nn.top_k": "tf.nn.top_k(x, 2)",
    "unique": "tf.unique(tf.constant([1, 1, 2]))",
    "unique_with_counts": "tf.unique_with_counts(tf.constant([1, 1, 2]))",
    "nn.sufficient_statistics": "tf.nn.sufficient_statistics(x, [0])",
    "nn.fused_batch_norm": "tf.nn.fused_batch_norm(tf.ones([1, 2, 2, 3]), tf.ones([3]), "
                           "tf.zeros([3]))",
    "qr": "tf.qr(tf.eye(2))",
    "linalg.qr": "tf.linalg.qr(tf.eye(2))",
    "self_adjoint_eig": "tf.self_adjoint_eig(tf.eye(2))",
    "linalg.eigh": "tf.linalg.eigh(tf.eye(2))",
    "linalg.slogdet": "tf.linalg.slogdet(tf.eye(2))",
    "setdiff1d": "tf.setdiff1d(tf.constant([1, 2]), tf.constant([2]))",
    "nn.max_pool_with_argmax": "tf.nn.max_pool_with_argmax(tf.ones([1, 2, 2, 1]), "
                               "[1, 2, 2, 1], [1, 2, 2, 1], 'SAME')",
    "nn.fractional_max_pool": "tf.nn.fractional_max_pool(tf.ones([1, 4, 4, 1]), "
                              "[1.0, 1.5, 1.5, 1.0])",
    "nn.fractional_avg_pool": "tf.nn.fractional_avg_pool(tf.ones([1, 4, 4, 1]), "
                              "[1.0, 1.5, 1.5, 1.0])",
    "nn.normalize_moments": "tf.nn.normalize_moments(tf.constant(4.0), x, x, None)",
    "nn.uniform_candidate_sampler": "tf.nn.uniform_candidate_sampler("
                                    "tf.constant([[1]], tf.int64), 1, 2, True, 10)",
    "nn.log_uniform_candidate_sampler": "tf.nn.log_uniform_candidate_sampler("
                                        "tf.constant([[1]], tf.int64), 1, 2, True, 10)",
    "nn.compute_accidental_hits": "tf.nn.compute_accidental_hits("
                                  "tf.constant([[1]], tf.int64), tf.constant([1, 2], tf.int64), 1)",
    "image.sample_distorted_bounding_box": "tf.image.sample_distorted_bounding_box("
                                           "[4, 4, 1], tf.constant([[[0.0, 0.0, 1.0, 1.0]]]))",
}
# Counted by an argument: the calls, and the counts they must give.
BY_ARGUMENT = {
    "tf.gradients(tf.reduce_sum(x), [x, x, x])": 3,
    "tf.gradients(tf.reduce_sum(x), x)": 1,
    "tf.hessians(tf.reduce_sum(x * x), [x, x])": 2,
}
PROGRAM = """
import json
import tensorflow as tf
from tensorflow.python.util import nest
x = tf.constant([1.0, 2.0, 3.0, 4.0])
print(json.dumps(dict((path, len(nest.flatten(eval(call)))) for path, call in %r.items())))
"""
# One call of each function of TENSOR_LISTS.
LISTED = dict(CALLS, split="tf.split(x, 2)", unstack="tf.unstack(x)",
              meshgrid="tf.meshgrid(x, x)",
              dynamic_partition="tf.dynamic_partition(x, [0, 1, 0, 1], 2)",
              gradients="tf.gradients(tf.reduce_sum(x), [x, x])",
              hessians="tf.hessians(tf.reduce_sum(x * x), [x, x])",
              tuple="tf.tuple([x, x])", identity_n="tf.identity_n([x, x])")
# {path: whether that call gives a list or tuple holding no nested list}
LISTS_PROGRAM = """
import json
import tensorflow as tf
from tensorflow.python.util import nest
x = tf.constant([1.0, 2.0, 3.0, 4.0])
given = dict((path, eval(call)) for path, call in %r.items())
print(json.dumps(dict((path, isinstance(value, (list, tuple)) and not any(
    nest.is_sequence(e) for e in value)) for path, value in given.items())))
"""


def test_every_entry_has_a_call_to_measure():
    from cglint.facts import COUNTED_BY_ARGUMENT

    assert set(CALLS) == set(FIXED_OUTPUT_COUNTS)
    assert {call[3:].split("(")[0] for call in BY_ARGUMENT} == set(COUNTED_BY_ARGUMENT)


def test_every_tensor_list_has_a_call_to_measure():
    from cglint.facts import TENSOR_LISTS

    assert set(LISTED) == set(TENSOR_LISTS)


@pytest.mark.parametrize("name", envs.INTERPRETERS)
def test_the_tensor_lists_hold_no_nested_list(interpreters, name):
    ran = subprocess.run([interpreters[name], "-c", LISTS_PROGRAM % LISTED],
                         capture_output=True, timeout=300)
    assert ran.returncode == 0, ran.stderr.decode()[-2000:]
    assert json.loads(ran.stdout.decode().strip().splitlines()[-1]) == dict.fromkeys(
        LISTED, True)


@pytest.mark.parametrize("name", envs.INTERPRETERS)
def test_the_counts_are_tf18s(interpreters, name):
    calls = dict(CALLS)
    calls.update((call, call) for call in BY_ARGUMENT)
    ran = subprocess.run([interpreters[name], "-c", PROGRAM % calls], capture_output=True,
                         timeout=300)
    assert ran.returncode == 0, ran.stderr.decode()[-2000:]
    assert json.loads(ran.stdout.decode().strip().splitlines()[-1]) == dict(
        FIXED_OUTPUT_COUNTS, **BY_ARGUMENT)


@pytest.mark.parametrize("call, count", sorted(BY_ARGUMENT.items()))
def test_cglint_counts_them_so(call, count):
    from cglint.facts import ModuleFacts
    from cglint.parse import parse

    text = "import tensorflow as tf\ndef f(x):\n    return %s\n" % call
    module = ModuleFacts("m.py", text, parse(text), (3, 6), "1.8")
    function = module.tree.body[1]
    value = function.body[0].value
    assert module.count_values(value, module.names.scope_for_def[id(function)]) == count


# Results of known structure, items and slices of them: cglint's count of each must be
# what nest.flatten gives under TF 1.8 (facts.SHAPED_LIKE_ARGUMENT, ModuleFacts._call_items).
STRUCTURED = [
    "tf.tuple([x, x])",
    "tf.identity_n([x, x, x])",
    # tf.svd: (s, u, v) unless compute_uv=False
    "tf.svd(tf.eye(2))",
    "tf.linalg.svd(tf.eye(2), full_matrices=True)",
    "tf.svd(tf.eye(2), False, True)",
    "tf.svd(tf.eye(2), compute_uv=True)[1:]",
    # tf.while_loop: the structure of its loop variables
    "tf.while_loop(lambda i, v: i < 3, lambda i, v: (i + 1, v * 0.5), [tf.constant(0), x])",
    "tf.while_loop(lambda v: tf.reduce_sum(v) < 100.0, lambda v: v * 2.0, [x])",
    "tf.while_loop(lambda i, p: i < 2, lambda i, p: (i + 1, (p[0], p[1])), "
    "(tf.constant(0), (x, x)), back_prop=False)",
    "tf.while_loop(lambda i, v: i < 3, lambda i, v: (i + 1, v), loop_vars=[tf.constant(0), x])[1]",
    "tf.meshgrid(x, x, x)",
    "tf.clip_by_global_norm([x, x], 1.0)",
    "tf.clip_by_global_norm([x, x], 1.0)[0]",
    "tf.clip_by_global_norm([x, x], 1.0)[1]",
    "tf.clip_by_global_norm([x, x, x], 1.0)[0][1:]",
    "tf.contrib.framework.nest.map_structure(lambda t: t * 0.5, (x, [x, x]))",
    "tf.contrib.framework.nest.map_structure(lambda t: t * 0.5, (x, [x, x]))[1]",
    "tf.contrib.framework.nest.map_structure(tf.identity, [x, x])",
    "tf.contrib.framework.nest.pack_sequence_as((x, x), [x * 0.5, x])",
    "tf.contrib.framework.nest.flatten([x, [x, x]])",
    "tf.contrib.framework.nest.flatten([x, [x, x]])[2]",
    "tf.gradients(tf.reduce_sum(x), [x, x])[1]",
    "tf.split(x, 4)[1:3]",
    "tf.nn.moments(x, [0])[-1]",
    "tf.unstack(x)[0]",
    "([x, x], x)[0]",
    # tuple() and list() keep the items of a list of known items; map() of a function
    # giving one tensor for one gives one per item (ModuleFacts._converted)
    "tuple(tf.split(x, 2))",
    "list(tf.split(x, 4)[1:3])",
    "list(tf.nn.moments(x, [0]))",
    "tuple([x, (x, x)])",
    "tuple()",
    "tuple(map(lambda t: t * 0.5, (x, x, x)))",
    "list(map(tf.identity, [x, x]))",
    "tuple(t * 2.0 for t in (x, x))",
    "list([t * 2.0 for t in range(3)])",
    "tuple(tf.split(x, 2))[1]",
    # tf.py_func: a list of one tensor per dtype of a Tout list, one tensor for a dtype
    "tf.py_func(lambda a: (a, a), [x], [tf.float32, tf.float32])",
    "tf.py_func(lambda a: (a, a), [x], (tf.float32, tf.float32))[1]",
    "tf.py_func(lambda a: [a], [x], [tf.float32])",
    "tf.py_func(lambda a: a, [x], tf.float32)",
    "tf.py_func(lambda a: a, [x], Tout=x.dtype)",
    "tf.py_func(lambda a: a, [x], tf.as_dtype('float32'))",
    "tf.contrib.eager.py_func(lambda a: (a, a), [x], [tf.float32, tf.float32])",
    "tf.contrib.eager.py_func(lambda a: a, [x], tf.float32)",
    "[tf.py_func(lambda a: a, [x], tf.float32), tf.py_func(lambda a: a, [x], [tf.float32])]",
]


def _cglint_count(call):
    from cglint.facts import ModuleFacts
    from cglint.parse import parse

    text = "import tensorflow as tf\ndef f(x):\n    return %s\n" % call
    module = ModuleFacts("m.py", text, parse(text), (3, 6), "1.8")
    function = module.tree.body[1]
    value = function.body[0].value
    return module.count_values(value, module.names.scope_for_def[id(function)])


@pytest.mark.parametrize("name", envs.INTERPRETERS)
def test_cglint_counts_structured_results_as_tf18_flattens_them(interpreters, name):
    calls = dict((call, call) for call in STRUCTURED)
    ran = subprocess.run([interpreters[name], "-c", PROGRAM % calls], capture_output=True,
                         timeout=300)
    assert ran.returncode == 0, ran.stderr.decode()[-2000:]
    measured = json.loads(ran.stdout.decode().strip().splitlines()[-1])
    assert {call: _cglint_count(call) for call in STRUCTURED} == measured


@pytest.mark.parametrize("call", [
    # the function may give a tuple for each tensor, or its count is unknown
    "tf.contrib.framework.nest.map_structure(lambda t: (t, t), [x, x])",
    "tf.contrib.framework.nest.map_structure(helper, [x, x])",
    "tf.contrib.framework.nest.map_structure_up_to([1, 2], tf.identity, [x, x])",
    "tf.contrib.framework.nest.flatten_up_to([1, 2], [x, x])",
    "tf.contrib.framework.nest.pack_sequence_as((x, x), [x, x, x])",  # a ValueError
    "tf.clip_by_global_norm([x, x], 1.0)[2]",  # an IndexError
    "tf.clip_by_global_norm([x, x], 1.0)[i]",
    "tf.unstack(x)",
    "tf.meshgrid(*xs)",
    "tuple(x)",  # iterating a tensor: a TypeError in graph mode
    "tuple({'a': x})",  # its keys
    "tuple(xs)",
    "tuple(map(lambda a, b: a * b, (x, x)))",  # a TypeError
    "tuple(map(helper, (x, x)))",
    "tuple(map(lambda t: (t, t), (x, x)))",
    "list(tf.split(x, 2), key)",
    "tf.py_func(f, [x], touts)",
    "tf.py_func(f, [x], [])",  # the op itself
    "tf.py_func(f, [x], [*touts])",
    "tf.while_loop(c, b, state)",
    "tf.svd(x, compute_uv=flag)",  # three tensors, or one with compute_uv=False
    "tf.svd(x, **options)",
])
def test_unknown_structures_are_not_counted(call):
    assert _cglint_count(call) is None


def test_a_py_func_tout_bound_to_a_name_is_counted():
    from cglint.facts import ModuleFacts
    from cglint.parse import parse

    text = ("import tensorflow as tf\ndef f(x):\n    touts = [tf.float32, tf.float32]\n"
            "    outs = tf.py_func(lambda a: (a, a), [x], touts)\n    return outs\n")
    module = ModuleFacts("m.py", text, parse(text), (3, 6), "1.8")
    function = module.tree.body[1]
    value = function.body[-1].value
    assert module.count_values(value, module.names.scope_for_def[id(function)]) == 2


@pytest.mark.parametrize("name", ["py36"])
def test_a_python3_map_object_is_one_leaf(interpreters, name):
    # Python 3's map object is one leaf of nest (Python 2's map gives a list): cglint's
    # count for a 3.x target (the ModuleFacts above: 3.6) is what py36 measures
    call = "map(lambda t: t * 0.5, (x, x))"
    ran = subprocess.run([interpreters[name], "-c", PROGRAM % {call: call}],
                         capture_output=True, timeout=300)
    assert ran.returncode == 0, ran.stderr.decode()[-2000:]
    assert json.loads(ran.stdout.decode().strip().splitlines()[-1]) == {call: 1}
    assert _cglint_count(call) == 1
