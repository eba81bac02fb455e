"""The doctor's checks: small functions from what was inspected to result rows.

Each check returns Check rows (status ok, info, warn or fail; what it found; what TF 1.8
needs; the fix). What "needed" means always comes from the measured facts (facts.py),
never from a number written here.
"""
import os
import re
from dataclasses import dataclass, field

from cglint.doctor import facts

DEPENDENCIES = ("numpy", "protobuf", "six", "grpcio", "h5py")
STATUSES = ("ok", "info", "warn", "fail")


@dataclass(frozen=True)
class Check:
    check: str
    status: str
    found: str
    needed: str
    fix: str = ""

    def as_dict(self):
        return {"check": self.check, "status": self.status, "found": self.found,
                "needed": self.needed, "fix": self.fix}


@dataclass
class Inspection:
    """Everything the checks look at; gathered once by gather.py."""
    python: str  # the interpreter as given
    described: dict = None  # probe.describe's answer, None when it could not run
    problem: str = ""  # why `described` is None
    imported: dict = None  # probe.import_tensorflow's answer
    gpus: object = None  # machine.GpuReport
    libraries: object = None  # machine.LibraryFiles
    oracle: dict = field(default_factory=dict)  # name -> (python path, import answer or None)

    @property
    def packages(self):
        return (self.described or {}).get("packages", {})

    @property
    def python_version(self):
        return (self.described or {}).get("version", "")

    @property
    def gpu_build(self):
        """True when the GPU build is installed (whether or not it imports)."""
        return (facts.GPU_PACKAGE in self.packages
                or bool((self.imported or {}).get("cuda")))

    @property
    def gpu_names(self):
        return [gpu.name for gpu in self.gpus.gpus] if self.gpus else []


def check_python(seen):
    pythons = facts.wheel_pythons()
    needed = "Python %s (TF %s has Linux wheels for these only)" % (
        ", ".join(pythons), facts.tf_version())
    if seen.described is None:
        return [Check("python", "fail", seen.problem, needed,
                      "pass a working interpreter with --python PATH")]
    short = ".".join(seen.python_version.split(".")[:2])
    found = "Python %s (%s)" % (seen.python_version, seen.described.get("executable") or seen.python)
    if short in pythons:
        return [Check("python", "ok", found, needed)]
    return [Check("python", "fail", found, needed,
                  "use Python 3.6 or 2.7 for TF %s, e.g. `pyenv install 3.6.15` and a venv "
                  "made from it" % facts.tf_version())]


def check_tensorflow(seen):
    if seen.described is None:
        return []
    want = facts.tf_version()
    needed = "%s==%s (CPU) or %s==%s (GPU, CUDA %s)" % (
        facts.CPU_PACKAGE, want, facts.GPU_PACKAGE, want, facts.cuda_version())
    installed = [(name, seen.packages[name]) for name in (facts.CPU_PACKAGE, facts.GPU_PACKAGE)
                 if name in seen.packages]
    found = ", ".join("%s %s" % pair for pair in installed) or "neither is installed"
    if not installed:
        return [Check("tensorflow", "fail", found, needed,
                      "pip install %s==%s" % (facts.CPU_PACKAGE, want))]
    if len(installed) == 2:
        return [Check("tensorflow", "warn", found, needed,
                      "both install into the same `tensorflow` folder, so the one installed "
                      "last wins: `pip uninstall -y %s %s`, then install one of them"
                      % (facts.CPU_PACKAGE, facts.GPU_PACKAGE))]
    name, version = installed[0]
    if version != want:
        return [Check("tensorflow", "fail", found, needed, "pip install %s==%s" % (name, want))]
    return [Check("tensorflow", "ok", found, needed)]


def check_import(seen):
    if seen.described is None:
        return []
    needed = "`import tensorflow` succeeds"
    imported = seen.imported or {}
    if "error" in imported:
        return [Check("import", "fail", imported["error"], needed, _import_fix(seen, imported["error"]))]
    build = "GPU build" if imported.get("cuda") else "CPU build"
    return [Check("import", "ok", "TensorFlow %s (%s)" % (imported.get("version"), build), needed)]


def _import_fix(seen, error):
    missing = re.search(r"(lib[\w+-]+\.so[.\d]*): cannot open shared object file", error)
    if missing and missing.group(1) in facts.gpu_libraries():
        return ("the GPU build cannot find %s: see the gpu-fix check, or use the CPU build "
                "(`pip uninstall -y %s && pip install %s==%s`)"
                % (missing.group(1), facts.GPU_PACKAGE, facts.CPU_PACKAGE, facts.tf_version()))
    if "No module named" in error and "tensorflow" in error:
        return "pip install %s==%s" % (facts.CPU_PACKAGE, facts.tf_version())
    return "see the dependency checks below; reinstall with `pip install %s==%s`" % (
        facts.GPU_PACKAGE if seen.gpu_build else facts.CPU_PACKAGE, facts.tf_version())


def check_dependencies(seen):
    # Without TF there is nothing to judge them against: pip brings them with TF.
    if not any(name in seen.packages for name in (facts.CPU_PACKAGE, facts.GPU_PACKAGE)):
        return []
    rows = []
    for package in DEPENDENCIES:
        version = seen.packages.get(package)
        verdict = facts.judge_dependency(package, version, seen.python_version)
        declared = facts.declared_requirement(package, seen.python_version)
        needed = "%s; %s" % ("TF 1.8 requires %s %s" % (package, declared) if declared is not None
                             else "optional for TF 1.8", verdict.measured)
        found = "%s %s: %s" % (package, version, verdict.found) if version else verdict.found
        fix = ""
        best = facts.best_version(package, seen.python_version)
        if verdict.status != "ok" and best:
            fix = "pip install '%s==%s'" % (package, best)
            if "warns" in verdict.found:
                fix = "harmless; `%s` (measured: no warnings) silences them" % fix
        rows.append(Check(package, verdict.status, found, needed, fix))
    return rows


def check_gpu(seen):
    report = seen.gpus
    if report.gpus:
        return [_gpu_row(seen)]
    status = "fail" if seen.gpu_build else "ok"
    return [Check("gpu", status, "no NVIDIA GPU (%s)" % report.problem,
                  "an NVIDIA GPU and its driver for the GPU build; nothing for the CPU build",
                  "install the NVIDIA driver, or use the CPU build %s==%s"
                  % (facts.CPU_PACKAGE, facts.tf_version()) if status == "fail" else "")]


def _gpu_row(seen):
    """The GPUs, judged by compute capability where the documented table knows them."""
    built = facts.gpu_architectures()
    needed = "an NVIDIA GPU of compute capability %s (the GPU build has kernels for these)" % (
        ", ".join(built))
    described, unsupported = [], []
    for gpu in seen.gpus.gpus:
        capability = facts.compute_capability(gpu.name)
        described.append("%s%s, driver %s" % (
            gpu.name, " (compute capability %s)" % capability if capability else "", gpu.driver))
        if capability and capability not in built:
            unsupported.append(gpu.name)
    if unsupported:
        return Check("gpu", _gpu_status(seen), "; ".join(described), needed,
                     "TF 1.8's GPU build has no kernels for the %s: build TF from source "
                     "with its capability in TF_CUDA_COMPUTE_CAPABILITIES, or use the CPU build"
                     % " and ".join(unsupported))
    return Check("gpu", "ok", "; ".join(described), needed)


def _gpu_status(seen):
    """How bad a missing GPU piece is: fatal for the GPU build, a warning beside a GPU."""
    return "fail" if seen.gpu_build else "warn"


def check_driver(seen):
    if not seen.gpus.gpus:
        return []
    minimum = facts.documented("cuda_driver_minimum")
    needed = ">= %s for CUDA %s (documented: NVIDIA's CUDA release notes)" % (
        minimum["linux_driver"], minimum["cuda"])
    oldest = min((gpu.driver for gpu in seen.gpus.gpus), key=facts.version_key)
    if facts.version_key(oldest) >= facts.version_key(minimum["linux_driver"]):
        return [Check("driver", "ok", "NVIDIA driver %s" % oldest, needed)]
    return [Check("driver", _gpu_status(seen), "NVIDIA driver %s: too old for CUDA %s"
                  % (oldest, minimum["cuda"]), needed,
                  "install NVIDIA driver %s or newer (newer drivers still run programs built "
                  "for older CUDA releases)" % minimum["linux_driver"])]


def check_cuda_libraries(seen):
    needed_names = facts.gpu_libraries()
    if not (seen.gpus.gpus or seen.gpu_build):
        return [Check("cuda", "ok", "not looked for: CPU build and no GPU",
                      "nothing for the CPU build; the GPU build needs %s" % ", ".join(needed_names))]
    rows = [_cuda_summary(seen)]
    for name in needed_names:
        rows.append(_library_row(seen, name))
    return rows


def _cuda_summary(seen):
    runtime = next(name for name in facts.gpu_libraries() if name.startswith("libcudart."))
    found = cuda_releases(seen.libraries)
    needed = "CUDA %s (%s)" % (facts.cuda_version(), runtime)
    if facts.cuda_version() in found:
        return Check("cuda", "ok", "CUDA %s" % ", ".join(found), needed)
    return Check("cuda", _gpu_status(seen),
                 "CUDA %s" % ", ".join(found) if found else "no CUDA runtime (libcudart.so.*)",
                 needed, "install CUDA %s beside any other release: see the gpu-fix check"
                 % facts.cuda_version())


def cuda_releases(libraries):
    """["8.0"]: the CUDA releases whose runtime library is on the search path."""
    found = []
    for name, _ in libraries.versions_of("libcudart.so"):
        release = ".".join(facts.soname_version(name).split(".")[:2])
        if release and release not in found:
            found.append(release)
    return sorted(found, key=facts.version_key)


def _library_row(seen, name):
    version = facts.soname_version(name)
    needed = ("%s (from the NVIDIA driver)" % name if name.startswith("libcuda.")
              else "%s (%s %s)" % (name, _library_kind(name), version))
    exact = seen.libraries.named(name)
    if exact:
        return Check(name, "ok", exact[0], needed)
    others = seen.libraries.versions_of(facts.stem(name))
    status = _gpu_status(seen)
    if not others:
        return Check(name, status, "not found on LD_LIBRARY_PATH, in the ldconfig cache or "
                     "in /usr/local/cuda*/lib64", needed, _library_fix(name))
    found = ", ".join("%s (%s %s) in %s" % (
        other, _library_kind(other), facts.soname_version(other), os.path.dirname(path))
        for other, path in others)
    same_major = [(other, path) for other, path in others
                  if facts.soname_version(other).startswith(version + ".")]
    if same_major:
        other, path = same_major[0]
        fix = ("the loader looks for the file %s: `sudo ldconfig -n %s` (or `ln -s %s %s` "
               "there) makes it" % (name, os.path.dirname(path), other, name))
        return Check(name, status, found + "; no file named %s" % name, needed,
                     fix + _cudnn_note(name))
    return Check(name, status, found, needed, _library_fix(name))


def _cudnn_note(name):
    """cuDNN is built per CUDA release; its file name does not say which."""
    if not name.startswith("libcudnn"):
        return ""
    return "; and with CUDA %s use the cuDNN %s build for CUDA %s" % (
        facts.cuda_version(), facts.soname_version(name), facts.cuda_version())


def _library_kind(name):
    return "cuDNN" if name.startswith("libcudnn") else "CUDA"


def _library_fix(name):
    if name.startswith("libcuda."):
        return "comes with the NVIDIA driver: install or repair the driver"
    if name.startswith("libcudnn"):
        return ("install cuDNN %s built for CUDA %s into /usr/local/cuda-%s/lib64 and put that "
                "folder on LD_LIBRARY_PATH" % (facts.soname_version(name), facts.cuda_version(),
                                               facts.cuda_version()))
    return "part of the CUDA %s toolkit: see the gpu-fix check" % facts.cuda_version()


def check_gpu_unused(seen):
    imported = seen.imported or {}
    if not seen.gpus.gpus or seen.gpu_build or "error" in imported or seen.described is None:
        return []
    names = " and ".join(sorted(set(seen.gpu_names)))
    return [Check("gpu-unused", "warn", "the %s is unused: %s %s is the CPU build"
                  % (names, facts.CPU_PACKAGE, imported.get("version")),
                  "%s==%s and what it links (see the cuda checks)"
                  % (facts.GPU_PACKAGE, facts.tf_version()),
                  "fine if you meant it; to train on the GPU, see the gpu-fix check")]


def check_gpu_fix(seen):
    if not seen.gpus.gpus:
        return []
    rows = check_driver(seen) + check_cuda_libraries(seen)
    if all(row.status == "ok" for row in rows):
        return []  # nothing to install; gpu-unused says when only the build is wrong
    minimum = facts.documented("cuda_driver_minimum")
    cuda = facts.cuda_version()
    have = cuda_releases(seen.libraries)
    cudnn = [name for name, _ in seen.libraries.versions_of("libcudnn.so")]
    found = "driver %s, CUDA %s, cuDNN %s" % (
        min((gpu.driver for gpu in seen.gpus.gpus), key=facts.version_key),
        ", ".join(have) or "none", ", ".join(_versions(cudnn)) or "none")
    needed = "driver >= %s, CUDA %s, cuDNN %s built for CUDA %s" % (
        minimum["linux_driver"], cuda, facts.soname_version(_named("libcudnn.")), cuda)
    others = [release for release in have if release != cuda]
    return [Check("gpu-fix", "info", found, needed, " ".join(_fix_options(seen, others, cudnn)))]


def _versions(names):
    """["7.0.5"]: the versions in library file names, oldest first, once each."""
    return sorted(set(facts.soname_version(name) for name in names) - {""}, key=facts.version_key)


def _named(prefix):
    return next(name for name in facts.gpu_libraries() if name.startswith(prefix))


def _fix_options(seen, have, cudnn):
    """The ways out, spelled out; `have` are the other CUDA releases on the machine."""
    cuda = facts.cuda_version()
    minimum = facts.documented("cuda_driver_minimum")["linux_driver"]
    home = "/usr/local/cuda-%s" % cuda
    yield ("(1) CUDA %s beside %s: NVIDIA driver >= %s; the CUDA %s toolkit installed "
           "to %s (decline its bundled driver if yours is newer); cuDNN %s for CUDA %s "
           "copied into %s/lib64; then `export LD_LIBRARY_PATH=%s/lib64:$LD_LIBRARY_PATH` "
           "(in ~/.bashrc) and `pip install %s==%s`; CUDA %s stays usable for other "
           "programs." % (cuda, " and ".join(have) or "what is there", minimum, cuda, home,
                          facts.soname_version(_named("libcudnn.")), cuda, home, home,
                          facts.GPU_PACKAGE, facts.tf_version(), " and ".join(have) or "any other"))
    if have:
        yield ("(2) Or build TF %s from source against CUDA %s: in a r1.8 checkout run `%s "
               "./configure`, then `bazel build --config=opt --config=cuda "
               "//tensorflow/tools/pip_package:build_pip_package`."
               % (facts.tf_version(), have[-1], " ".join(_configure_settings(seen, have[-1], cudnn))))
    yield ("(%d) Or keep the CPU build: `pip install %s==%s` (no GPU, no CUDA)."
           % (3 if have else 2, facts.CPU_PACKAGE, facts.tf_version()))


def _configure_settings(seen, release, cudnn):
    """NAME=value for TF's ./configure, from what this machine has."""
    cudart = [path for name, path in seen.libraries.versions_of("libcudart.so")
              if facts.soname_version(name).startswith(release)]
    toolkit = os.path.dirname(os.path.dirname(cudart[0])) if cudart else "/usr/local/cuda-" + release
    majors = [version.split(".")[0] for version in _versions(cudnn)]
    cudnn_home = os.path.dirname(os.path.dirname(
        next(path for _, path in seen.libraries.versions_of("libcudnn.so")))) if cudnn else toolkit
    values = {"TF_NEED_CUDA": "1", "TF_CUDA_VERSION": release, "CUDA_TOOLKIT_PATH": toolkit,
              "TF_CUDNN_VERSION": majors[-1] if majors else facts.soname_version(_named("libcudnn.")),
              "CUDNN_INSTALL_PATH": cudnn_home}
    capabilities = sorted(set(facts.compute_capability(name) for name in seen.gpu_names) - {None},
                          key=facts.version_key)
    if capabilities:
        values["TF_CUDA_COMPUTE_CAPABILITIES"] = ",".join(capabilities)
    return ["%s=%s" % (name, values[name]) for name in facts.documented("source_build")["variables"]
            if name in values]


def check_gpu_memory(seen):
    if not seen.gpus.gpus:
        return []
    return [Check("gpu-memory", "info", "TF 1.8 takes nearly all memory of every visible GPU "
                  "when a session starts (documented)",
                  "room for every process that shares the card",
                  "config = tf.ConfigProto(); config.gpu_options.allow_growth = True; "
                  "sess = tf.Session(config=config); or pick cards with CUDA_VISIBLE_DEVICES")]


def check_oracle(seen):
    rows = []
    for name, (python, answer) in sorted(seen.oracle.items()):
        needed = "TF %s in %s (built by `cglint confirm --setup`)" % (facts.tf_version(), python)
        if answer is None:
            rows.append(Check("oracle-" + name, "info", "not built", needed,
                              "`cglint confirm --setup` builds it (about a minute)"))
        elif "error" in answer:
            rows.append(Check("oracle-" + name, "warn", answer["error"], needed,
                              "`cglint confirm --setup` rebuilds it"))
        elif answer.get("version") != facts.tf_version():
            rows.append(Check("oracle-" + name, "warn", "TensorFlow %s" % answer.get("version"),
                              needed, "`cglint confirm --setup` rebuilds it"))
        else:
            rows.append(Check("oracle-" + name, "ok", "TensorFlow %s imports" % answer["version"],
                              needed))
    return rows


CHECKS = (check_python, check_tensorflow, check_import, check_dependencies, check_gpu,
          check_driver, check_cuda_libraries, check_gpu_unused, check_gpu_fix,
          check_gpu_memory, check_oracle)


def run_checks(seen):
    return [row for check in CHECKS for row in check(seen)]
