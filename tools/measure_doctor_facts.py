#!/usr/bin/env python3
"""Measure the facts `cglint doctor` judges a machine by (cglint/data/doctor_facts.json).

Run by hand from the repository root (see tools/README.md); the output is checked in and
never edited by hand:

    python3 tools/measure_doctor_facts.py [--only wheels,gpu_wheel,cpu_wheel,deps]

Sections, each measured here rather than recalled:
- `wheels`: the Linux x86_64 Python versions PyPI has `tensorflow==1.8.0` and
  `tensorflow-gpu==1.8.0` wheels for (`pip index versions` per Python version: it reads
  the index page only, so no wheel is downloaded), and the newest numpy, protobuf, six,
  grpcio and h5py wheels for Python 2.7 and 3.6.
- `gpu_wheel`: the shared libraries the GPU build needs: `pip download --no-deps` of the
  cp36 `tensorflow-gpu==1.8.0` wheel (216 MB, deleted afterwards), then the ELF DT_NEEDED
  entries of its `_pywrap_tensorflow_internal.so` and the GPU architectures (`sm_NN`) its
  embedded kernels name.
- `cpu_wheel`: the same DT_NEEDED list of the CPU build, read from the oracle's py36 env.
- `deps`: for each oracle interpreter (`~/.cache/cglint/py36`, `py27`), a throwaway copy
  of the env (the originals are never touched) in which a handful of numpy, protobuf,
  six, grpcio and h5py versions are installed one at a time; for each, whether
  `import tensorflow` works and what it warns, and for grpcio and h5py the one TF feature
  that uses them (the tfdbg gRPC server; a tf.keras HDF5 save and load), since
  `import tensorflow` imports neither.
- `documented`: facts that need an NVIDIA GPU to measure, copied with their source and
  marked as documented (the CUDA 9.0 driver minimum, the GTX 1080's compute capability,
  TF 1.8's source-build settings).
"""
import argparse
import json
import os
import re
import shutil
import struct
import subprocess
import sys
import tempfile
import time
import zipfile

HERE = os.path.dirname(os.path.abspath(__file__))
OUTPUT = os.path.join(HERE, os.pardir, "cglint", "data", "doctor_facts.json")
SECTIONS = ("wheels", "gpu_wheel", "cpu_wheel", "deps", "documented")
TF = "1.8.0"
PLATFORM = "manylinux1_x86_64"
PYTHONS = ("2.7", "3.3", "3.4", "3.5", "3.6", "3.7", "3.8")
ORACLE = os.path.expanduser(os.environ.get("CGLINT_CACHE_DIR", "~/.cache/cglint"))
SO_PATH = "tensorflow/python/_pywrap_tensorflow_internal.so"
FRAMEWORK_PATH = "tensorflow/libtensorflow_framework.so"  # the wrapper links it

DEPENDENCIES = ("numpy", "protobuf", "six", "grpcio", "h5py")
DEPENDENCY_PLATFORMS = ("manylinux2014_x86_64", "manylinux2010_x86_64", "manylinux1_x86_64")
# Versions tried per interpreter: the declared minimum and one below it, the newest with a
# wheel for that Python, and releases around known changes. `force` installs ignore
# Requires-Python, as pip before 9.0 did.
TRIALS = {
    "py36": {
        "numpy": ["1.11.3", "1.12.1", "1.13.3", "1.16.6", "1.17.5", "1.19.5"],
        "protobuf": ["3.3.0", "3.4.0", "3.19.6", "force:3.20.3", "force:4.21.0"],
        "six": ["1.9.0", "1.10.0", "1.17.0"],
        "grpcio": ["absent", "1.8.6", "1.48.2"],
        "h5py": ["absent", "2.10.0", "3.1.0"],
    },
    "py27": {
        "numpy": ["1.11.3", "1.12.1", "1.13.3", "1.16.6"],
        "protobuf": ["3.3.0", "3.4.0", "3.17.3"],
        "six": ["1.9.0", "1.10.0", "1.17.0"],
        "grpcio": ["absent", "1.39.0"],
        "h5py": ["absent", "2.10.0"],
    },
}

# Runs inside the TF 1.8 interpreters (Python 2.7 and 3.6).
TRY = r"""
import os, sys, tempfile
import tensorflow as tf
sys.stderr.write("CGLINT-IMPORTED\n")
if sys.argv[1] == "h5py":
    model = tf.keras.models.Sequential([tf.keras.layers.Dense(1, input_shape=(2,))])
    model.compile(loss="mse", optimizer="sgd")
    path = os.path.join(tempfile.mkdtemp(), "m.h5")
    model.save(path)
    tf.keras.models.load_model(path)
elif sys.argv[1] == "grpcio":
    from tensorflow.python.debug.lib import grpc_debug_server
"""

DOCUMENTED = {
    "cuda_driver_minimum": {
        "cuda": "9.0", "linux_driver": "384.81",
        "source": "NVIDIA CUDA Toolkit Release Notes, table 'CUDA Toolkit and Compatible "
                  "Driver Versions': CUDA 9.0 (9.0.76) >= 384.81 on Linux x86_64 "
                  "(https://docs.nvidia.com/cuda/cuda-toolkit-release-notes/index.html)",
    },
    "compute_capability": {
        "GeForce GTX 1080": "6.1", "GeForce GTX 1070": "6.1", "GeForce GTX 1080 Ti": "6.1",
        "source": "NVIDIA, CUDA GPUs (https://developer.nvidia.com/cuda-gpus)",
    },
    "source_build": {
        "variables": ["TF_NEED_CUDA", "TF_CUDA_VERSION", "CUDA_TOOLKIT_PATH",
                      "TF_CUDNN_VERSION", "CUDNN_INSTALL_PATH", "TF_CUDA_COMPUTE_CAPABILITIES"],
        "source": "TensorFlow r1.8 `configure.py` and install_sources.md (Installing "
                  "TensorFlow from Sources): ./configure reads these from the environment "
                  "instead of asking",
    },
    "gpu_memory": {
        "text": "TF 1.8 maps nearly all the memory of every visible GPU into the first "
                "process that opens it unless gpu_options.allow_growth is set",
        "source": "TensorFlow r1.8 programmers_guide/using_gpu.md, 'Allowing GPU memory "
                  "growth'",
    },
}


def log(message):
    sys.stderr.write(message + "\n")
    sys.stderr.flush()


def pip(*args, python=sys.executable, check=True, timeout=900):
    command = [python, "-m", "pip", "--disable-pip-version-check"] + list(args)
    proc = subprocess.run(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                          timeout=timeout)
    output = proc.stdout.decode("utf-8", "replace")
    if check and proc.returncode:
        raise RuntimeError("%s failed:\n%s" % (" ".join(command), output[-2000:]))
    return proc.returncode, output


def target_options(python_version):
    return ["--python-version", python_version, "--implementation", "cp",
            "--platform", PLATFORM, "--only-binary=:all:"]


def measure_wheels():
    found = {}
    for package in ("tensorflow", "tensorflow-gpu"):
        found[package] = []
        for version in PYTHONS:
            _, output = pip("index", "versions", package, *target_options(version), check=False)
            releases = re.search(r"Available versions: (.*)", output)
            if releases and TF in [item.strip() for item in releases.group(1).split(",")]:
                found[package].append(version)
            log("%s %s on Python %s: %s" % (package, TF, version,
                                            "wheel" if version in found[package] else "none"))
    newest = {}
    # The oracle's Pythons (a UCS-4 2.7, as Linux distributions build it): newest wheels.
    for version, abi in (("2.7", "cp27mu"), ("3.6", "cp36m")):
        newest[version] = {}
        for package in DEPENDENCIES:
            _, output = pip("index", "versions", package, "--python-version", version,
                            "--implementation", "cp", "--abi", abi, "--abi", "none",
                            "--only-binary=:all:",
                            *["--platform=" + name for name in DEPENDENCY_PLATFORMS], check=False)
            latest = re.search(r"^%s \(([^)]+)\)" % re.escape(package), output, re.M)
            newest[version][package] = latest.group(1) if latest else None
        log("newest wheels for Python %s: %s" % (version, newest[version]))
    return {"platform": PLATFORM, "pythons": found, "newest_dependency_wheels": newest}


def elf_dynamic(path):
    """(DT_NEEDED names, DT_RUNPATH or DT_RPATH) of a 64-bit little-endian ELF file."""
    with open(path, "rb") as handle:
        header = handle.read(64)
        if header[:4] != b"\x7fELF" or header[4] != 2 or header[5] != 1:
            raise ValueError("%s is not a 64-bit little-endian ELF file" % path)
        phoff, = struct.unpack_from("<Q", header, 0x20)
        phentsize, phnum = struct.unpack_from("<HH", header, 0x36)
        handle.seek(phoff)
        table = handle.read(phentsize * phnum)
        segments = [struct.unpack_from("<IIQQQQQQ", table, index * phentsize)
                    for index in range(phnum)]
        loads = [(vaddr, offset, filesz) for kind, _, offset, vaddr, _, filesz, _, _
                 in segments if kind == 1]
        dynamic = [(offset, filesz) for kind, _, offset, _, _, filesz, _, _
                   in segments if kind == 2]
        if not dynamic:
            return [], None
        handle.seek(dynamic[0][0])
        raw = handle.read(dynamic[0][1])
        entries = [struct.unpack_from("<qQ", raw, index) for index in range(0, len(raw), 16)]
        strtab = next(value for tag, value in entries if tag == 5)
        strtab_offset = next(offset + strtab - vaddr for vaddr, offset, size in loads
                             if vaddr <= strtab < vaddr + size)

        def string(index):
            handle.seek(strtab_offset + index)
            data = b""
            while b"\0" not in data:
                data += handle.read(4096)
            return data[:data.index(b"\0")].decode()

        needed = [string(value) for tag, value in entries if tag == 1]
        paths = [string(value) for tag, value in entries if tag in (15, 29)]
        return needed, (paths[0] if paths else None)


def gpu_architectures(path):
    """The `sm_NN` names in the file (its embedded cubins and PTX), in order."""
    names, tail = set(), b""
    with open(path, "rb") as handle:
        while True:
            chunk = handle.read(1 << 24)
            if not chunk:
                break
            names.update(re.findall(rb"\bsm_(\d\d)\b", tail + chunk))
            tail = chunk[-16:]
    return sorted("%s.%s" % (name[:1].decode(), name[1:].decode()) for name in names)


def measure_gpu_wheel():
    work = tempfile.mkdtemp(prefix="cglint-gpu-wheel-")
    try:
        started = time.time()
        pip("download", "--no-deps", "-d", work, "tensorflow-gpu==" + TF, *target_options("3.6"))
        wheel = [name for name in os.listdir(work) if name.endswith(".whl")][0]
        size = os.path.getsize(os.path.join(work, wheel))
        log("downloaded %s (%.1f MB) in %.1f s" % (wheel, size / 1e6, time.time() - started))
        found = {"wheel": wheel, "bytes": size, "libraries": {}}
        with zipfile.ZipFile(os.path.join(work, wheel)) as archive:
            # Members may sit under `<name>.data/purelib/`, so they are found by their tail.
            def member(path):
                return next(name for name in archive.namelist() if name.endswith(path))

            build_info = archive.read(member("tensorflow/python/platform/build_info.py")).decode()
            for path in (SO_PATH, FRAMEWORK_PATH):
                library = archive.extract(member(path), work)
                needed, runpath = elf_dynamic(library)
                found["libraries"][path] = {
                    "needed": needed, "runpath": runpath,
                    "gpu_architectures": gpu_architectures(library)}
                os.remove(library)
        found["build_info"] = dict(re.findall(r"^(\w+) = (.*)$", build_info, re.M))
        return found
    finally:
        shutil.rmtree(work, ignore_errors=True)


def requirements(python):
    """The Requires-Dist lines of the tensorflow distribution installed for `python`."""
    site = subprocess.check_output([python, "-c", "import tensorflow, os; "
                                    "print(os.path.dirname(os.path.dirname(tensorflow.__file__)))"],
                                   stderr=subprocess.DEVNULL).decode().strip()
    with open(os.path.join(site, "tensorflow-%s.dist-info" % TF, "METADATA")) as handle:
        return [line.split(":", 1)[1].strip() for line in handle
                if line.startswith("Requires-Dist:")]


def measure_cpu_wheel():
    python = os.path.join(ORACLE, "py36", "bin", "python")
    site = subprocess.check_output([python, "-c", "import tensorflow, os; "
                                    "print(os.path.dirname(os.path.dirname(tensorflow.__file__)))"],
                                   stderr=subprocess.DEVNULL).decode().strip()
    libraries = {}
    for member in (SO_PATH, FRAMEWORK_PATH):
        needed, runpath = elf_dynamic(os.path.join(site, member))
        libraries[member] = {"needed": needed, "runpath": runpath}
    return {"interpreter": "py36", "libraries": libraries,
            "requires": {name: requirements(os.path.join(ORACLE, name, "bin", "python"))
                         for name in ("py27", "py36")}}


def clean_env(home):
    env = {"PATH": os.environ.get("PATH", os.defpath), "HOME": home, "TMPDIR": home,
           "LANG": "C.UTF-8", "PYTHONIOENCODING": "utf-8", "PYTHONDONTWRITEBYTECODE": "1"}
    return env


def try_tensorflow(python, feature):
    """{"import": bool, "feature": bool or None, "warnings": [...], "error": last line}."""
    home = tempfile.mkdtemp(prefix="cglint-try-")
    try:
        proc = subprocess.run([python, "-s", "-c", TRY, feature], cwd=home, env=clean_env(home),
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=300)
    finally:
        shutil.rmtree(home, ignore_errors=True)
    err = proc.stderr.decode("utf-8", "replace")
    imported = "CGLINT-IMPORTED" in err
    before_import = err.split("CGLINT-IMPORTED")[0]
    warnings = sorted(set(re.sub(r"^.*?: (\w*Warning): ", r"\1: ", line.strip())
                          for line in before_import.splitlines() if "Warning: " in line))
    lines = [line for line in err.splitlines() if line.strip()]
    result = {"import": imported, "warnings": warnings}
    if feature in ("h5py", "grpcio") and imported:
        result["feature"] = proc.returncode == 0
    if proc.returncode:
        result["error"] = _error_line(lines)
    return result


def _error_line(lines):
    errors = [line for line in lines if re.match(r"^\w+(\.\w+)*(Error|Exception)\b", line)]
    return (errors or lines or ["(no output)"])[0 if errors else -1]


def copy_env(name, work):
    source = os.path.join(ORACLE, name)
    target = os.path.join(work, name)
    subprocess.run(["cp", "-a", source, target], check=True)
    python = os.path.join(target, "bin", "python")
    prefix = subprocess.check_output([python, "-c", "import sys; print(sys.prefix)"]).decode().strip()
    if os.path.realpath(prefix) != os.path.realpath(target):
        raise RuntimeError("the copy of %s still points at %s" % (source, prefix))
    return python


def installed_version(python, package):
    _, output = pip("show", package, python=python, check=False)
    match = re.search(r"^Version: (\S+)", output, re.M)
    return match.group(1) if match else None


def set_version(python, package, trial):
    if trial == "absent":
        pip("uninstall", "-y", package, python=python, check=False)
        return True
    extra = []
    if trial.startswith("force:"):
        trial = trial[len("force:"):]
        extra = ["--ignore-requires-python"]
    # With its dependencies (h5py 3 needs cached-property); pip keeps what already fits.
    code, output = pip("install", "--only-binary=:all:", "-q", *extra,
                       "%s==%s" % (package, trial), python=python, check=False)
    if code:
        log("  cannot install %s %s: %s" % (package, trial, output.strip().splitlines()[-1]))
    return code == 0


def measure_deps():
    work = tempfile.mkdtemp(prefix="cglint-deps-")
    results = {}
    try:
        for name, packages in TRIALS.items():
            python = copy_env(name, work)
            results[name] = {"baseline": {package: installed_version(python, package)
                                          for package in packages}}
            baseline = try_tensorflow(python, "import")
            results[name]["baseline_warnings"] = baseline["warnings"]
            log("%s baseline: %s, %s" % (name, results[name]["baseline"], baseline))
            for package, trials in packages.items():
                rows = []
                for trial in trials:
                    if not set_version(python, package, trial):
                        rows.append({"version": trial, "installable": False})
                        continue
                    outcome = try_tensorflow(python, package)
                    outcome["version"] = trial.replace("force:", "")
                    if package != "numpy":  # numpy's own warnings are the baseline's
                        outcome["warnings"] = [line for line in outcome["warnings"]
                                               if line not in baseline["warnings"]]
                    if trial.startswith("force:"):
                        outcome["ignored_requires_python"] = True
                    rows.append(outcome)
                    log("  %s %s %s" % (name, package, json.dumps(outcome)))
                results[name][package] = rows
                original = results[name]["baseline"][package]
                set_version(python, package, original or "absent")
            shutil.rmtree(os.path.join(work, name), ignore_errors=True)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return results


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", help="comma-separated sections to re-measure (default: all)")
    parser.add_argument("-o", "--output", default=OUTPUT)
    args = parser.parse_args()
    wanted = args.only.split(",") if args.only else list(SECTIONS)
    unknown = set(wanted) - set(SECTIONS)
    if unknown:
        parser.error("unknown sections %s (choose from %s)" % (", ".join(sorted(unknown)),
                                                               ", ".join(SECTIONS)))
    try:
        with open(args.output) as handle:
            facts = json.load(handle)
    except (OSError, ValueError):
        facts = {}
    measure = {"wheels": measure_wheels, "gpu_wheel": measure_gpu_wheel,
               "cpu_wheel": measure_cpu_wheel, "deps": measure_deps,
               "documented": lambda: DOCUMENTED}
    for section in SECTIONS:
        if section in wanted:
            started = time.time()
            facts[section] = measure[section]()
            log("%s: %.0f s" % (section, time.time() - started))
    facts["tensorflow"] = TF
    with open(args.output, "w") as handle:
        json.dump(facts, handle, indent=1, sort_keys=True)
        handle.write("\n")


if __name__ == "__main__":
    main()
