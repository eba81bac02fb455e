"""TensorFlow's own files are told by the package layout on disk."""
from cglint.tfpackage import is_tensorflow_file


def _package(root, *parts):
    directory = root
    for part in parts:
        directory = directory / part
        directory.mkdir(parents=True, exist_ok=True)
        (directory / "__init__.py").write_text("")
    return directory


def test_a_module_inside_the_tensorflow_package(tmp_path):
    ops = _package(tmp_path, "tensorflow", "python", "ops")
    _package(tmp_path, "tensorflow", "core")
    (ops / "array_grad.py").write_text("")
    assert is_tensorflow_file(str(ops / "array_grad.py"))


def test_near_misses(tmp_path):
    # A user package called tensorflow without TF's own subpackages.
    mine = _package(tmp_path / "a", "tensorflow", "ops")
    (mine / "grad.py").write_text("")
    assert not is_tensorflow_file(str(mine / "grad.py"))
    # TF's folders without the package's own __init__.py (a checkout's root holds
    # neither python/ nor core/; this one is a copy of the folders alone).
    bare = tmp_path / "b" / "tensorflow"
    (bare / "python" / "ops").mkdir(parents=True)
    (bare / "core").mkdir()
    (bare / "python" / "ops" / "grad.py").write_text("")
    assert not is_tensorflow_file(str(bare / "python" / "ops" / "grad.py"))
    # A file beside the package, not in it.
    _package(tmp_path / "c", "tensorflow", "python")
    _package(tmp_path / "c", "tensorflow", "core")
    (tmp_path / "c" / "configure.py").write_text("")
    assert not is_tensorflow_file(str(tmp_path / "c" / "configure.py"))
    assert not is_tensorflow_file("snippet.py")


def test_a_source_checkout_without_init_files_in_between(tmp_path):
    # TF 1.8's git tree has no python/ops/__init__.py (Bazel makes the wheel's): its
    # gradient modules are still TF's own, as are its scripts in folders of their own.
    _package(tmp_path, "tensorflow", "python")
    _package(tmp_path, "tensorflow", "core")
    ops = tmp_path / "tensorflow" / "python" / "ops"
    scripts = tmp_path / "tensorflow" / "python" / "tools" / "scripts"
    ops.mkdir()
    scripts.mkdir(parents=True)
    (ops / "array_grad.py").write_text("")
    (scripts / "run.py").write_text("")
    assert is_tensorflow_file(str(ops / "array_grad.py"))
    assert is_tensorflow_file(str(scripts / "run.py"))


def test_tensorflows_own_registrations_are_not_cg203(tmp_path):
    from cglint import engine
    ops = _package(tmp_path, "tensorflow", "python", "ops")
    _package(tmp_path, "tensorflow", "core")
    code = 'from tensorflow.python.framework import ops\n\n\n@ops.RegisterGradient("Pack")\n' \
           'def _PackGrad(op, grad):\n    return grad\n'
    (ops / "array_grad.py").write_text(code)
    options = engine.Options(select=("CG203",))
    inside = engine.lint_text(str(ops / "array_grad.py"), code, options)
    assert inside.diagnostics == []
    outside = engine.lint_text(str(tmp_path / "my_grads.py"), code, options)
    assert [d.code for d in outside.diagnostics] == ["CG203"]


def test_module_names_of_tensorflows_own_files(tmp_path):
    from cglint.tfpackage import module_name
    _package(tmp_path, "tensorflow", "python")
    _package(tmp_path, "tensorflow", "core")
    ops = tmp_path / "tensorflow" / "python" / "ops"
    ops.mkdir()
    (ops / "array_grad.py").write_text("")
    assert module_name(str(ops / "array_grad.py")) == "tensorflow.python.ops.array_grad"
    assert module_name(str(tmp_path / "tensorflow" / "python" / "__init__.py")) == \
        "tensorflow.python"
    assert module_name(str(tmp_path / "tensorflow" / "__init__.py")) == "tensorflow"
    assert module_name(str(tmp_path / "mine.py")) is None
    assert module_name("-") is None


# A test-only proto module, which a checkout's build makes and no wheel ships.
TEST_IMPORT = "from tensorflow.python.util.protobuf import compare_test_pb2\n"


def test_imports_of_tensorflows_unshipped_files_are_not_judged_by_the_wheels(tmp_path):
    from cglint import engine
    _package(tmp_path, "tensorflow", "python", "util", "protobuf")
    _package(tmp_path, "tensorflow", "core")
    options = engine.Options(select=("CG402",))

    def codes(path):
        return [d.code for d in engine.lint_text(str(path), TEST_IMPORT, options).diagnostics]

    protobuf = tmp_path / "tensorflow" / "python" / "util" / "protobuf"
    assert codes(protobuf / "compare_test.py") == []  # a test of the checkout
    # A module the 1.8 wheel ships is judged as the wheel has it (TF 1.8's own
    # recurrent_api.py imports names its package lacks: a real ImportError).
    assert codes(protobuf / "compare.py") == ["CG402"]
    assert codes(tmp_path / "user_code.py") == ["CG402"]
