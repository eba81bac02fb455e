"""Finding, reusing and naming TF 1.8 interpreters, without building any."""
import io
import json
import os
import stat

import pytest

from cglint.oracle import envs


def fake_python(tmp_path, name, probe_line):
    """An executable that answers the probe like a TF interpreter would."""
    path = tmp_path / name
    path.write_text("#!/bin/sh\ncat <<'EOF'\n%s\nEOF\n" % probe_line)
    path.chmod(path.stat().st_mode | stat.S_IEXEC)
    return str(path)


def fake_env(root, name, base):
    """A cached env as a finished build leaves it: site-packages and a current stamp."""
    target = os.path.join(root, name)
    os.makedirs(os.path.join(target, "lib", "python3.6", "site-packages"))
    os.makedirs(os.path.join(target, "bin"))
    envs._write_stamp(target, {"python": "3.6", "tf": "1.8.0"}, base)
    return target


@pytest.fixture
def no_build(monkeypatch):
    calls = []
    monkeypatch.setattr(envs, "_build", lambda name, root, log: calls.append(name))
    return calls


def test_current_stamp_is_reused_without_running_anything(tmp_path, no_build, monkeypatch):
    monkeypatch.setattr(envs, "verified", lambda python: pytest.fail("must not probe a current env"))
    fake_env(str(tmp_path), "py36", base=os.__file__)
    assert envs.ensure_env("py36", str(tmp_path)) == str(tmp_path / "py36" / "bin" / "python")
    assert no_build == []


def test_half_built_env_without_stamp_is_rebuilt(tmp_path, no_build):
    os.makedirs(str(tmp_path / "py36" / "bin"))
    envs.ensure_env("py36", str(tmp_path))
    assert no_build == ["py36"]


def test_changed_env_is_probed_and_rebuilt_when_broken(tmp_path, no_build, monkeypatch):
    target = fake_env(str(tmp_path), "py36", base=os.__file__)
    os.mkdir(os.path.join(target, "lib", "python3.6", "site-packages", "newpkg"))  # pip did something

    def broken(python):
        raise envs.EnvError("import tensorflow failed: ImportError: no numpy")
    monkeypatch.setattr(envs, "verified", broken)
    log = io.StringIO()
    envs.ensure_env("py36", str(tmp_path), log=log)
    assert "cached py36 env is broken (import tensorflow failed: ImportError: no numpy); rebuilding" in log.getvalue()
    assert no_build == ["py36"]


def test_changed_env_that_still_works_gets_a_new_stamp(tmp_path, no_build, monkeypatch):
    target = fake_env(str(tmp_path), "py36", base=os.__file__)
    os.mkdir(os.path.join(target, "lib", "python3.6", "site-packages", "newpkg"))
    monkeypatch.setattr(envs, "verified", lambda python: {"python": "3.6", "tf": "1.8.0"})
    envs.ensure_env("py36", str(tmp_path))
    assert no_build == []
    with open(os.path.join(target, envs.STAMP)) as handle:
        assert json.load(handle)["fingerprint"] == envs._fingerprint(target)


def test_cache_dir_from_environment(monkeypatch, tmp_path):
    monkeypatch.setenv("CGLINT_CACHE_DIR", str(tmp_path))
    assert envs.cache_root() == str(tmp_path)
    assert envs.cache_root(str(tmp_path / "x")) == str(tmp_path / "x")


def test_missing_base_python_says_what_to_install(monkeypatch):
    monkeypatch.setattr(envs, "_pyenv_roots", lambda: [])
    monkeypatch.setattr(envs.shutil, "which", lambda name: None)
    with pytest.raises(envs.EnvError, match=r"pyenv install 2\.7\.18"):
        envs.base_python("py27")


def test_base_python_prefers_newest_pyenv_patch_release(tmp_path, monkeypatch):
    for version in ("3.6.9", "3.6.15", "3.7.1"):
        bin_dir = tmp_path / "versions" / version / "bin"
        bin_dir.mkdir(parents=True)
        fake_python(bin_dir, "python" + version[:3], "unused")
    monkeypatch.setattr(envs, "_pyenv_roots", lambda: [str(tmp_path)])
    monkeypatch.setattr(envs, "_python_version", lambda python: "3.6")
    assert envs.base_python("py36").endswith("/versions/3.6.15/bin/python3.6")


def test_gpu_build_without_cuda_is_explained(tmp_path):
    gpu = fake_python(tmp_path, "gpu", json.dumps({"python": "3.6", "error": (
        "ImportError: Traceback (most recent call last):\n ImportError: libcublas.so.9.0: cannot "
        "open shared object file: No such file or directory\nFailed to load the native TensorFlow runtime.")}))
    found, errors = envs.given_interpreters([gpu])
    assert "py36" not in found
    assert "tensorflow-gpu 1.8 needs CUDA 9 libraries (libcublas.so.9.0 ...)" in errors["py36"]
    assert "use the CPU build tensorflow==1.8.0" in errors["py36"]


def test_given_interpreters_are_named_by_python_version(tmp_path):
    py27 = fake_python(tmp_path, "a", '{"python": "2.7", "tf": "1.8.0"}')
    py37 = fake_python(tmp_path, "b", '{"python": "3.7", "tf": "1.8.0"}')
    tf19 = fake_python(tmp_path, "c", '{"python": "3.6", "tf": "1.9.0"}')
    found, errors = envs.given_interpreters([py27, py37, tf19])
    assert found == {"py27": py27}
    assert "run on 2.7 or 3.6" in errors[py37]
    assert "TensorFlow 1.9.0, not 1.8.0" in errors["py36"]


def test_given_interpreters_that_do_not_run_say_why_once(tmp_path):
    """Each is named once, with how it ended (it was "/bin/false: /bin/false: /bin/false did
    not run: ", with no reason)."""
    says = fake_python(tmp_path, "says", "unused")
    (tmp_path / "says").write_text("#!/bin/sh\necho 'bad interpreter' >&2\nexit 3\n")
    found, errors = envs.given_interpreters(["/bin/false", says, str(tmp_path / "none")])
    assert found == {}
    assert errors["/bin/false"] == "did not run (exit 1, no output)"
    assert errors[says] == "did not run (exit 3: bad interpreter)"
    assert errors[str(tmp_path / "none")] == "cannot be run: No such file or directory"
    with pytest.raises(envs.EnvError, match=r"^/bin/false did not run \(exit 1, no output\)$"):
        envs.verified("/bin/false")


def test_given_interpreters_name_the_missing_one(tmp_path):
    py27 = fake_python(tmp_path, "a", '{"python": "2.7", "tf": "1.8.0"}')
    found, errors = envs.given_interpreters([py27])
    assert found == {"py27": py27}
    assert "no Python 3.6 among the given" in errors["py36"]


def test_tf_pythons_from_environment(monkeypatch):
    monkeypatch.setenv("CGLINT_TF_PYTHON", os.pathsep.join(["/a/python", "", "/b/python"]))
    assert envs.tf_pythons_from_env() == ["/a/python", "/b/python"]


def test_clean_env_drops_secrets(monkeypatch, tmp_path):
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "x")
    monkeypatch.setenv("LD_LIBRARY_PATH", "/cuda9/lib64")  # tensorflow-gpu needs it
    env = envs.clean_env(str(tmp_path))
    assert "AWS_SECRET_ACCESS_KEY" not in env
    assert env["HOME"] == env["TMPDIR"] == str(tmp_path)
    assert env["LD_LIBRARY_PATH"] == "/cuda9/lib64"
    assert "PATH" in env
