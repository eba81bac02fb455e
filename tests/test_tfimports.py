"""The TF 1.8 import model read from the CPU and GPU wheels."""
from cglint import tfimports


def test_module_files_of_both_wheels():
    assert tfimports.build_of("tensorflow.contrib.autograph.pyct.anno") == tfimports.CPU
    assert tfimports.build_of("tensorflow.contrib.tensorrt") == tfimports.GPU
    assert tfimports.build_of("tensorflow.compat.v1") is None
    assert tfimports.build_of("numpy") is None


def test_imports_that_raise_in_18_and_why():
    assert "PyInit__lstm_ops" in tfimports.import_error("tensorflow.contrib.rnn.python.ops._lstm_ops")
    assert tfimports.import_error("tensorflow.contrib.rnn") is None
    # A third-party package the probe's interpreter lacked says nothing about TF 1.8.
    assert tfimports.import_error("tensorflow.python.debug.lib.grpc_debug_test_server") is None


def test_import_fails():
    assert tfimports.import_fails("tensorflow.contrib.slim.nets", "resnet_v1") == (False, None)
    assert tfimports.import_fails("tensorflow.contrib.eager", "Variable")[0] is True
    assert tfimports.import_fails("tensorflow.keras.layers")[0] is True
    assert tfimports.import_fails("tensorflow.contrib.tensorrt", "create_inference_graph") == (
        False, None)  # GPU-only: contents unknown
    assert tfimports.import_fails("tensorflow.contrib.layers", "fully_connected") == (None, None)


def test_follow_reaches_names_through_imported_modules():
    imported = {"tensorflow", "tensorflow.contrib", "tensorflow.contrib.slim",
                "tensorflow.contrib.slim.nets", "tensorflow.contrib.slim.nets.resnet_v1"}
    prefix = "tensorflow.contrib.slim.nets.resnet_v1."
    assert tfimports.follow(prefix + "resnet_v1_50", imported) == tfimports.FOUND
    assert tfimports.follow(prefix + "resnet_v1_5000", imported) == (
        "tensorflow.contrib.slim.python.slim.nets.resnet_v1", "resnet_v1_5000")
    assert tfimports.follow("tensorflow.math.log", imported) == tfimports.TABLE
    assert tfimports.follow("tensorflow.contrib.slim.conv2d", imported) == tfimports.TABLE
    assert tfimports.follow(prefix + "_private", imported) == tfimports.UNKNOWN
