"""`cglint doctor` on faked machines: a fake `nvidia-smi` and `ldconfig` first on PATH and
empty files named like CUDA libraries on LD_LIBRARY_PATH, against real interpreters (the
oracle's TF 1.8 py3.6 env, a Python 3.6 venv without TensorFlow, this Python) and fake ones
that hang or do not exist."""
import json
import os
import stat
import subprocess
import sys

import pytest

from cglint.cli import main as cglint_main
from cglint.doctor import checks, facts, machine, probe
from cglint.doctor.machine import Gpu, GpuReport, LibraryFiles
from cglint.oracle import envs

SEED_LIBRARIES = {  # what CUDA 8.0 + cuDNN 7.0.5 install; the 375 driver brings libcuda
    "cuda-8.0/lib64": ["libcudart.so.8.0", "libcublas.so.8.0", "libcufft.so.8.0",
                       "libcurand.so.8.0", "libcusolver.so.8.0", "libcudnn.so.7.0.5"],
    "nvidia-375": ["libcuda.so.1"],
}


@pytest.fixture(scope="module")
def oracle_pythons():
    found, errors = envs.find_interpreters(tf_pythons=envs.tf_pythons_from_env())
    if errors:
        pytest.fail("the TF 1.8 interpreters are unavailable: %s" % errors)
    return found


@pytest.fixture(scope="module")
def tf36(oracle_pythons):
    return oracle_pythons["py36"]


def executable(path, text):
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    path.chmod(path.stat().st_mode | stat.S_IXUSR)
    return str(path)


@pytest.fixture
def bare_machine(tmp_path, monkeypatch):
    """No GPU, no CUDA, an empty ldconfig cache, no oracle envs; returns the fake bin dir."""
    bin_dir = tmp_path / "bin"
    executable(bin_dir / "ldconfig", "#!/bin/sh\necho '0 libs found in cache'\n")
    monkeypatch.setenv("PATH", os.pathsep.join([str(bin_dir), "/usr/bin", "/bin"]))
    monkeypatch.setenv("LD_LIBRARY_PATH", "")
    monkeypatch.setenv("CGLINT_CACHE_DIR", str(tmp_path / "no-oracle"))
    monkeypatch.setattr(machine, "CUDA_LIBRARY_GLOBS", (str(tmp_path / "usr-local" / "cuda*" / "lib64"),))
    return bin_dir


def seed_machine(tmp_path, monkeypatch, bin_dir):
    """The seed's machine: a GTX 1080 on driver 375.26, CUDA 8.0 and cuDNN 7.0.5."""
    executable(bin_dir / "nvidia-smi", "#!/bin/sh\necho 'GeForce GTX 1080, 375.26'\n")
    folders = []
    for folder, names in SEED_LIBRARIES.items():
        for name in names:
            (tmp_path / folder).mkdir(parents=True, exist_ok=True)
            (tmp_path / folder / name).write_bytes(b"")
        folders.append(str(tmp_path / folder))
    monkeypatch.setenv("LD_LIBRARY_PATH", os.pathsep.join(folders))


def doctor(capsys, *args):
    code = cglint_main(["doctor", "--format", "json"] + list(args))
    out = capsys.readouterr().out
    return code, {row["check"]: row for row in json.loads(out)}


def test_seed_machine_names_cuda_8_found_9_needed_the_old_driver_and_the_fix(
        tf36, tmp_path, monkeypatch, bare_machine, capsys):
    seed_machine(tmp_path, monkeypatch, bare_machine)
    code, rows = doctor(capsys, "--python", tf36)
    assert code == 0  # the CPU build works; every GPU gap is a warning
    assert rows["import"]["status"] == "ok" and rows["import"]["found"] == "TensorFlow 1.8.0 (CPU build)"
    assert rows["gpu"]["found"] == "GeForce GTX 1080 (compute capability 6.1), driver 375.26"
    assert rows["gpu"]["status"] == "ok" and "6.1" in rows["gpu"]["needed"]
    assert rows["cuda"]["status"] == "warn"
    assert rows["cuda"]["found"] == "CUDA 8.0" and rows["cuda"]["needed"].startswith("CUDA 9.0")
    assert rows["driver"]["status"] == "warn"
    assert rows["driver"]["found"] == "NVIDIA driver 375.26: too old for CUDA 9.0"
    assert rows["driver"]["needed"].startswith(">= 384.81 for CUDA 9.0 (documented")
    cudart = rows["libcudart.so.9.0"]
    assert cudart["status"] == "warn" and cudart["found"].startswith("libcudart.so.8.0 (CUDA 8.0) in ")
    assert cudart["fix"] == "part of the CUDA 9.0 toolkit: see the gpu-fix check"
    cudnn = rows["libcudnn.so.7"]
    assert "libcudnn.so.7.0.5 (cuDNN 7.0.5)" in cudnn["found"]
    assert "no file named libcudnn.so.7" in cudnn["found"]
    assert "`sudo ldconfig -n %s` (or `ln -s libcudnn.so.7.0.5 libcudnn.so.7` there)" % (
        tmp_path / "cuda-8.0" / "lib64") in cudnn["fix"]
    assert cudnn["fix"].endswith("use the cuDNN 7 build for CUDA 9.0")
    assert rows["libcuda.so.1"]["status"] == "ok"
    assert rows["gpu-unused"]["status"] == "warn"
    assert rows["gpu-unused"]["found"].startswith("the GeForce GTX 1080 is unused")
    fix = rows["gpu-fix"]
    assert fix["found"] == "driver 375.26, CUDA 8.0, cuDNN 7.0.5"
    assert fix["needed"] == "driver >= 384.81, CUDA 9.0, cuDNN 7 built for CUDA 9.0"
    assert "export LD_LIBRARY_PATH=/usr/local/cuda-9.0/lib64:$LD_LIBRARY_PATH" in fix["fix"]
    assert "pip install tensorflow-gpu==1.8.0" in fix["fix"]
    cuda8 = str(tmp_path / "cuda-8.0")
    assert ("TF_NEED_CUDA=1 TF_CUDA_VERSION=8.0 CUDA_TOOLKIT_PATH=%s TF_CUDNN_VERSION=7 "
            "CUDNN_INSTALL_PATH=%s TF_CUDA_COMPUTE_CAPABILITIES=6.1 ./configure" % (cuda8, cuda8)
            in fix["fix"])
    assert "Or keep the CPU build: `pip install tensorflow==1.8.0`" in fix["fix"]
    assert "allow_growth = True" in rows["gpu-memory"]["fix"]
    assert rows["oracle-py36"]["status"] == "info" and "confirm --setup" in rows["oracle-py36"]["fix"]


def test_seed_machine_as_text(tf36, tmp_path, monkeypatch, bare_machine, capsys):
    seed_machine(tmp_path, monkeypatch, bare_machine)
    assert cglint_main(["doctor", "--python", tf36]) == 0
    out = capsys.readouterr().out
    assert "\nwarn  driver              NVIDIA driver 375.26: too old for CUDA 9.0\n" in out
    assert "needed: >= 384.81 for CUDA 9.0" in out
    assert out.rstrip().splitlines()[-1].endswith("warn, 0 fail.")


def test_no_gpu_and_the_cpu_build_is_all_ok(oracle_pythons, tf36, tmp_path, monkeypatch,
                                            bare_machine, capsys):
    oracle = tmp_path / "oracle"
    for name, real in oracle_pythons.items():  # the oracle's envs, through wrapper scripts
        executable(oracle / name / "bin" / "python", '#!/bin/sh\nexec %s "$@"\n' % real)
    monkeypatch.setenv("CGLINT_CACHE_DIR", str(oracle))
    code, rows = doctor(capsys, "--python", tf36)
    assert code == 0
    assert rows["gpu"]["found"] == "no NVIDIA GPU (no nvidia-smi on PATH)"
    assert rows["cuda"]["found"] == "not looked for: CPU build and no GPU"
    assert rows["oracle-py27"]["found"] == rows["oracle-py36"]["found"] == "TensorFlow 1.8.0 imports"
    assert "gpu-unused" not in rows and "gpu-fix" not in rows and "driver" not in rows
    statuses = {name: row["status"] for name, row in rows.items()}
    # Two notes, no problem: numpy 1.19.5 works but makes `import tensorflow` print
    # FutureWarnings, and h5py (optional) is missing, which only HDF5 model files need.
    assert statuses.pop("numpy") == "info" and "FutureWarning" in rows["numpy"]["found"]
    assert statuses.pop("h5py") == "info"
    assert rows["h5py"]["found"].startswith("not installed: breaks tf.keras HDF5 save/load")
    assert set(statuses.values()) == {"ok"}, statuses


def test_python_without_tensorflow_fails(tmp_path, bare_machine, capsys):
    venv = tmp_path / "venv"
    subprocess.run([envs.base_python("py36"), "-m", "venv", "--without-pip", str(venv)], check=True)
    code, rows = doctor(capsys, "--python", str(venv / "bin" / "python"))
    assert code == 1
    assert rows["python"]["status"] == "ok" and rows["python"]["found"].startswith("Python 3.6.")
    assert rows["tensorflow"]["status"] == "fail"
    assert rows["tensorflow"]["fix"] == "pip install tensorflow==1.8.0"
    assert rows["import"]["found"] == "ModuleNotFoundError: No module named 'tensorflow'"
    assert "numpy" not in rows  # pip installs it with TF; nothing to judge without TF


def test_a_python_tf_18_has_no_wheel_for(bare_machine, capsys):
    code, rows = doctor(capsys, "--python", sys.executable)
    assert code == 1
    assert rows["python"]["status"] == "fail"
    assert rows["python"]["needed"].startswith("Python 2.7, 3.3, 3.4, 3.5, 3.6 (")
    assert "pyenv install 3.6.15" in rows["python"]["fix"]


def test_hanging_and_missing_interpreters_fail_without_crashing(tmp_path, bare_machine, capsys):
    hangs = executable(tmp_path / "hangs", "#!/bin/sh\nsleep 60\n")
    code, rows = doctor(capsys, "--python", hangs, "--timeout", "1")
    assert code == 1
    assert rows["python"]["found"] == "%s did not answer within 1 s" % hangs
    assert "import" not in rows and rows["gpu"]["status"] == "ok"
    floods = executable(tmp_path / "floods", "#!/bin/sh\nyes garbage | head -c 50000000\n")
    code, rows = doctor(capsys, "--python", floods, "--timeout", "20")
    assert code == 1
    assert rows["python"]["found"] == "%s printed more than 4 MiB; stopped" % floods
    code, rows = doctor(capsys, "--python", str(tmp_path / "nothing-here"))
    assert code == 1
    assert rows["python"]["found"].startswith("cannot run %s: " % (tmp_path / "nothing-here"))


def test_usage_errors_exit_2(capsys):
    assert cglint_main(["doctor", "--format", "xml"]) == 2
    assert cglint_main(["doctor", "--timeout", "0"]) == 2
    for huge in ("inf", "1e12", "nan", "86401"):  # past a day they overflowed the waits
        assert cglint_main(["doctor", "--timeout", huge]) == 2
        assert "at most 86400 seconds (a day), got %s" % huge in capsys.readouterr().err
    assert cglint_main(["doctor", "extra"]) == 2
    assert cglint_main(["doctor", "--python", ""]) == 2
    assert "--python: expected an interpreter's path or name, got ''" in capsys.readouterr().err


def test_nvidia_smi_that_fails_or_hangs(tmp_path, bare_machine, monkeypatch):
    executable(bare_machine / "nvidia-smi", '#!/bin/sh\necho "NVIDIA-SMI has failed because it '
               'couldn\'t communicate with the NVIDIA driver."\nexit 9\n')
    report = machine.gpus()
    assert report.gpus == ()
    assert report.problem == ("nvidia-smi failed (exit 9): NVIDIA-SMI has failed because it "
                              "couldn't communicate with the NVIDIA driver.")
    executable(bare_machine / "nvidia-smi", "#!/bin/sh\nsleep 60\n")
    assert "did not answer within 1 s" in machine.gpus(timeout=1).problem
    # 50 MB of GPU lines were all kept, then printed as one gpu line of 100 MB.
    executable(bare_machine / "nvidia-smi",
               "#!/bin/sh\nyes 'GeForce GTX 1080, 375.26' | head -c 50000000\n")
    flooded = machine.gpus()
    assert flooded.gpus == ()
    assert flooded.problem == "%s printed more than 4 MiB; stopped" % (bare_machine / "nvidia-smi")
    executable(bare_machine / "nvidia-smi", "#!/bin/sh\nprintf 'Tesla K80, 470.57.02\\n"
               "GeForce GTX 1080, 375.26\\n'\n")
    assert machine.gpus().gpus == (Gpu("Tesla K80", "470.57.02"), Gpu("GeForce GTX 1080", "375.26"))


def test_libraries_from_ld_library_path_cuda_folders_and_ldconfig(tmp_path, bare_machine, monkeypatch):
    (tmp_path / "a").mkdir()
    (tmp_path / "a" / "libcudart.so.8.0").write_bytes(b"")
    (tmp_path / "a" / "libcudart_static.a").write_bytes(b"")
    cuda = tmp_path / "usr-local" / "cuda-9.0" / "lib64"
    cuda.mkdir(parents=True)
    (cuda / "libcublas.so.9.0").write_bytes(b"")
    executable(bare_machine / "ldconfig", "#!/bin/sh\nprintf '2 libs found in cache\\n"
               "\\tlibcuda.so.1 (libc6,x86-64) => /usr/lib/x86_64-linux-gnu/libcuda.so.1\\n"
               "\\tlibcuda.so.1 (libc6) => /usr/lib32/libcuda.so.1\\n'\n")
    monkeypatch.setenv("LD_LIBRARY_PATH", str(tmp_path / "a") + ":" + str(tmp_path / "missing"))
    found = machine.find_libraries(["libcudart.so", "libcublas.so", "libcuda.so"])
    assert found.paths == (
        ("libcudart.so.8.0", str(tmp_path / "a" / "libcudart.so.8.0")),
        ("libcublas.so.9.0", str(cuda / "libcublas.so.9.0")),
        ("libcuda.so.1", "/usr/lib/x86_64-linux-gnu/libcuda.so.1"))


def gpu_build_on_seed(error):
    """The seed's user with tensorflow-gpu 1.8.0 on Python 2.7, as gather.py would see it."""
    libraries = [(name, "/usr/local/cuda-8.0/lib64/" + name)
                 for name in SEED_LIBRARIES["cuda-8.0/lib64"]]
    libraries.append(("libcuda.so.1", "/usr/lib/nvidia-375/libcuda.so.1"))
    return checks.Inspection(
        python="python", problem="",
        described={"version": "2.7.12", "executable": "/usr/bin/python",
                   "packages": {"tensorflow-gpu": "1.8.0", "numpy": "1.16.6", "protobuf": "3.17.3",
                                "six": "1.10.0", "grpcio": "1.39.0"}},
        imported={"error": probe.cause(error)},
        gpus=GpuReport((Gpu("GeForce GTX 1080", "375.26"),)),
        libraries=LibraryFiles(tuple(libraries)), oracle={})


# The message of TF 1.8's ImportError for the GPU build without CUDA 9 (tf18-facts.md §3).
GPU_IMPORT_ERROR = """ImportError: Traceback (most recent call last):
  File "/x/tensorflow/python/pywrap_tensorflow.py", line 58, in <module>
    from tensorflow.python.pywrap_tensorflow_internal import *
ImportError: libcublas.so.9.0: cannot open shared object file: No such file or directory


Failed to load the native TensorFlow runtime.

See https://www.tensorflow.org/install/install_sources#common_installation_problems

for some common reasons and solutions.  Include the entire stack trace
above this error message when asking for help."""


def test_gpu_build_on_the_seed_machine_fails_on_the_missing_cuda_9_libraries():
    rows = {row.check: row for row in checks.run_checks(gpu_build_on_seed(GPU_IMPORT_ERROR))}
    assert rows["import"].status == "fail"
    assert rows["import"].found == ("ImportError: libcublas.so.9.0: cannot open shared object "
                                    "file: No such file or directory")
    assert "see the gpu-fix check" in rows["import"].fix
    assert rows["driver"].status == rows["cuda"].status == rows["libcublas.so.9.0"].status == "fail"
    assert rows["libcuda.so.1"].status == "ok"
    assert "gpu-unused" not in rows
    assert "TF_CUDA_VERSION=8.0 CUDA_TOOLKIT_PATH=/usr/local/cuda-8.0" in rows["gpu-fix"].fix


def test_the_error_line_that_names_the_cause():
    assert probe.cause("ImportError: No module named tensorflow") == "ImportError: No module named tensorflow"
    assert probe.cause("ImportError: numpy.core.multiarray failed to import\n\nduring handling\n"
                       "ImportError: Failed to load the native TensorFlow runtime.") == \
        "ImportError: numpy.core.multiarray failed to import"


@pytest.mark.parametrize("package, version, python, status, found", [
    ("protobuf", "3.3.0", "3.6.15", "fail", "breaks import tensorflow (TypeError: __new__() got an "
                                            "unexpected keyword argument 'file')"),
    ("protobuf", "3.2.0", "3.6.15", "fail", "breaks import tensorflow"),
    ("protobuf", "3.10.0", "3.6.15", "ok", "works (like 3.4.0 and 3.19.6)"),
    ("protobuf", "3.3.5", "3.6.15", "warn", "not measured: between 3.3.0 (breaks"),
    ("protobuf", "4.21.0", "3.6.15", "ok", "works"),
    ("numpy", "1.19.5", "3.6.15", "info", "works; import warns FutureWarning"),
    ("numpy", "1.16.6", "2.7.18", "ok", "works"),
    ("numpy", "1.20.0", "3.6.15", "warn", "not measured: newer than every version tried"),
    ("six", None, "3.6.15", "fail", "not installed"),
    ("h5py", None, "3.6.15", "info", "not installed: breaks tf.keras HDF5 save/load"),
    ("h5py", "2.10.0", "2.7.18", "ok", "works"),
    ("h5py", "3.1.0", "3.6.15", "warn", "breaks tf.keras HDF5 save/load (AttributeError: 'str' "
                                        "object has no attribute 'decode')"),
    ("h5py", "3.7.0", "3.6.15", "warn", "breaks tf.keras HDF5 save/load (Attr"),
])
def test_dependency_versions_are_judged_by_the_measurements(package, version, python, status, found):
    verdict = facts.judge_dependency(package, version, python)
    assert (verdict.status, verdict.found[:len(found)]) == (status, found)


def test_gpu_libraries_come_from_the_measured_wheels():
    assert sorted(facts.gpu_libraries()) == ["libcublas.so.9.0", "libcuda.so.1", "libcudart.so.9.0",
                                             "libcudnn.so.7", "libcufft.so.9.0", "libcurand.so.9.0",
                                             "libcusolver.so.9.0"]
    assert facts.cuda_version() == "9.0"
    assert facts.wheel_pythons("tensorflow-gpu") == ["2.7", "3.3", "3.4", "3.5", "3.6"]
    assert "6.1" in facts.gpu_architectures()


def test_protobuf_too_old_for_tf_fails_with_the_measured_fix():
    seen = gpu_build_on_seed("TypeError: __new__() got an unexpected keyword argument 'file'")
    seen.described["packages"] = {"tensorflow": "1.8.0", "numpy": "1.16.6", "protobuf": "3.3.0",
                                  "six": "1.10.0", "grpcio": "1.39.0"}
    seen.gpus = GpuReport((), "no nvidia-smi on PATH")
    rows = {row.check: row for row in checks.run_checks(seen)}
    assert rows["import"].status == rows["protobuf"].status == "fail"
    assert rows["protobuf"].found.startswith("protobuf 3.3.0: breaks import tensorflow (TypeError")
    assert rows["protobuf"].needed.startswith("TF 1.8 requires protobuf >=3.4.0; measured on py27: "
                                              "3.3.0 breaks import tensorflow; 3.4.0, 3.17.3 work")
    assert rows["protobuf"].fix == "pip install 'protobuf==3.17.3'"
    assert rows["import"].fix.startswith("see the dependency checks")
    assert "gpu-fix" not in rows and "driver" not in rows


def test_oracle_envs_not_built_broken_or_fine():
    seen = gpu_build_on_seed(GPU_IMPORT_ERROR)
    seen.oracle = {"py27": ("/c/py27/bin/python", None),
                   "py36": ("/c/py36/bin/python", {"error": "ImportError: no numpy"})}
    rows = {row.check: row for row in checks.check_oracle(seen)}
    assert (rows["oracle-py27"].status, rows["oracle-py27"].found) == ("info", "not built")
    assert (rows["oracle-py36"].status, rows["oracle-py36"].found) == ("warn", "ImportError: no numpy")
    assert rows["oracle-py36"].fix == "`cglint confirm --setup` rebuilds it"
    seen.oracle["py36"] = ("/c/py36/bin/python", {"version": "1.8.0", "cuda": False})
    assert checks.check_oracle(seen)[1].status == "ok"


def test_describe_runs_under_python_2_7_and_imports_nothing(oracle_pythons):
    described = probe.describe(oracle_pythons["py27"], 30)
    assert described["version"].startswith("2.7.")
    assert described["packages"]["tensorflow"] == "1.8.0"
    assert described["packages"]["backports-weakref"]  # names normalised like pip's
    # (`google` is there anyway: protobuf's nspkg.pth makes it at start-up, before any code.)
    code, out, _ = probe.run([oracle_pythons["py27"], "-c", probe.DESCRIBE + "\nimport sys\n"
                              "print(sorted(m for m in sys.modules if m.startswith(('numpy', "
                              "'tensorflow', 'google.protobuf'))))"], 30)
    assert out.splitlines()[-1] == "[]"


def test_a_working_gpu_build_is_all_ok():
    """The near miss of the seed: driver 390.48, CUDA 9.0 and cuDNN 7.1.4 in place."""
    folder = "/usr/local/cuda-9.0/lib64/"
    names = [name for name in facts.gpu_libraries() if not name.startswith("libcuda.")]
    libraries = [(name, folder + name) for name in names] + [
        ("libcudnn.so.7.1.4", folder + "libcudnn.so.7.1.4"),
        ("libcuda.so.1", "/usr/lib/nvidia-390/libcuda.so.1")]
    seen = checks.Inspection(
        python="python", described={"version": "2.7.12", "executable": "/usr/bin/python",
                                    "packages": {"tensorflow-gpu": "1.8.0", "numpy": "1.13.3",
                                                 "protobuf": "3.4.0", "six": "1.10.0",
                                                 "grpcio": "1.39.0", "h5py": "2.10.0"}},
        imported={"version": "1.8.0", "cuda": True},
        gpus=GpuReport((Gpu("GeForce GTX 1080", "390.48"),)),
        libraries=LibraryFiles(tuple(libraries)), oracle={})
    rows = checks.run_checks(seen)
    statuses = {row.check: row.status for row in rows}
    assert statuses.pop("gpu-memory") == "info"
    assert set(statuses.values()) == {"ok"}, statuses
    found = {row.check: row.found for row in rows}
    assert found["import"] == "TensorFlow 1.8.0 (GPU build)"
    assert found["cuda"] == "CUDA 9.0" and found["driver"] == "NVIDIA driver 390.48"
    assert "gpu-fix" not in found and "gpu-unused" not in found


def test_a_gpu_the_build_has_no_kernels_for(monkeypatch):
    seen = gpu_build_on_seed(GPU_IMPORT_ERROR)
    table = dict(facts.documented("compute_capability"), **{"GeForce GTX 680": "3.0"})
    monkeypatch.setitem(facts.load()["documented"], "compute_capability", table)
    seen.gpus = GpuReport((Gpu("GeForce GTX 680", "390.48"),))
    [row] = checks.check_gpu(seen)
    assert (row.status, row.found) == ("fail", "GeForce GTX 680 (compute capability 3.0), driver 390.48")
    assert row.fix.startswith("TF 1.8's GPU build has no kernels for the GeForce GTX 680")
