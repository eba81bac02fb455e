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
    # A directory chain broken by a folder without __init__.py.
    _package(tmp_path / "b", "tensorflow", "python")
    _package(tmp_path / "b", "tensorflow", "core")
    loose = tmp_path / "b" / "tensorflow" / "python" / "scripts"
    loose.mkdir()
    (loose / "grad.py").write_text("")
    assert not is_tensorflow_file(str(loose / "grad.py"))
    assert not is_tensorflow_file("snippet.py")


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
