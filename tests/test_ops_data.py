"""The generated TF 1.8 op data (cglint/data/tf18_ops.json) and its loader, cglint/ops.py."""
import json

from cglint import ops

REGISTRY = ops.load()


def test_data_comes_from_tf_1_8_and_its_generator():
    with open(ops.DATA, encoding="utf-8") as handle:
        data = json.load(handle)
    assert data["tensorflow"] == "1.8.0"
    assert data["generated_by"] == "tools/gen_tf_ops.py"
    assert len(data["ops"]) > 900


def test_relu_has_one_input_and_a_gradient():
    assert REGISTRY.inputs("Relu") == (1, 0)
    assert REGISTRY.fixed_inputs("Relu") == 1
    assert "Relu" in REGISTRY.gradients and "Relu" in REGISTRY.registered


def test_input_counts_of_common_override_targets():
    assert REGISTRY.fixed_inputs("Maximum") == 2
    assert REGISTRY.fixed_inputs("Mul") == 2
    assert REGISTRY.fixed_inputs("ClipByValue") == 3
    assert REGISTRY.fixed_inputs("Sign") == 1


def test_variadic_ops_have_no_fixed_input_count():
    assert REGISTRY.inputs("AddN") == (0, 1)
    assert REGISTRY.inputs("ConcatV2") == (1, 1)  # values (N tensors) and axis
    assert REGISTRY.fixed_inputs("AddN") is None
    assert REGISTRY.fixed_inputs("PyFunc") is None


def test_leaky_relu_is_no_op_in_1_8_and_builds_mul_and_maximum():
    assert not REGISTRY.is_op("LeakyRelu")
    assert REGISTRY.built_by("tensorflow.nn.leaky_relu") == ("Maximum", "Mul")
    assert REGISTRY.function_named("LeakyRelu") == "nn.leaky_relu"


def test_swish_builds_a_defun_call():
    built = REGISTRY.built_by("tensorflow.nn.swish")
    assert built == ("swish_f32",)
    assert "swish_f32" in REGISTRY.function_ops


def test_op_types_the_fact_sheet_lists_l8():
    expected = {
        "nn.relu": ("Relu",), "identity": ("Identity",), "round": ("Round",),
        "sign": ("Sign",), "floor": ("Floor",), "cast": ("Cast",),
        "clip_by_value": ("ClipByValue",), "sigmoid": ("Sigmoid",), "nn.relu6": ("Relu6",),
        "stop_gradient": ("StopGradient",), "abs": ("Abs",), "nn.softplus": ("Softplus",),
        "nn.elu": ("Elu",), "py_func": ("PyFunc",),
    }
    for name, op_types in expected.items():
        assert REGISTRY.built_by("tensorflow." + name) == op_types, name


def test_py_func_builds_the_stateless_op_with_stateful_false():
    assert REGISTRY.built_by_with_other_arguments("tensorflow.py_func") == ("PyFuncStateless",)
    assert REGISTRY.built_by_with_other_arguments("tensorflow.nn.relu") == ()


def test_only_tensorflow_functions_are_looked_up():
    assert REGISTRY.built_by("numpy.sign") is None
    assert REGISTRY.built_by(None) is None
    assert REGISTRY.built_by("tensorflow.not_a_function") is None


def test_every_built_op_type_is_a_registered_op_or_a_function_call():
    with open(ops.DATA, encoding="utf-8") as handle:
        data = json.load(handle)
    for name, op_types in list(data["functions"].items()) + list(data["operators"].items()):
        for op_type in op_types:
            assert REGISTRY.is_op(op_type) or op_type in REGISTRY.function_ops, (name, op_type)


def test_python_operators_build_the_binary_op_types():
    assert REGISTRY.built_by_operator("Mult") == ("Mul",)
    assert REGISTRY.built_by_operator("Sub") == ("Sub",)
    assert REGISTRY.built_by_operator("Subscript") == ("StridedSlice",)
    assert REGISTRY.built_by_operator("Not") == ()


def test_registry_names_tf_registers_itself():
    assert "Identity" in REGISTRY.gradients
    assert "Size" in REGISTRY.not_differentiable  # NotDifferentiable: registered as None
    assert "ClippedReluGrad" not in REGISTRY.registered


def test_similar_op_is_case_insensitive_then_close_matches():
    assert REGISTRY.similar_op("ReLU") == "Relu"
    assert REGISTRY.similar_op("relu6") == "Relu6"
    assert REGISTRY.similar_op("Maximun") == "Maximum"
    assert REGISTRY.similar_op("CompletelyDifferent") is None


def test_op_types_the_arguments_choose():
    # from the probe of real overrides; fixtures/CG201/good_override_of_an_op_the_arguments_choose.py
    # shows three of them applying under TF 1.8
    chosen = {"matmul": {"BatchMatMul", "SparseMatMul"}, "einsum": {"BatchMatMul"},
              "image.resize_images": {"ResizeNearestNeighbor", "ResizeBicubic", "ResizeArea"},
              "pad": {"MirrorPad", "PadV2"}, "where": {"Where"}, "abs": {"ComplexAbs"},
              "random_uniform": {"RandomUniformInt"}, "gather": {"ResourceGather"},
              "nn.embedding_lookup": {"ResourceGather"}, "concat": {"Identity"},
              "add_n": {"Identity"}, "transpose": {"ConjugateTranspose"}}
    for name, types in chosen.items():
        assert types <= set(REGISTRY.built_by_with_other_arguments("tensorflow." + name)), name
