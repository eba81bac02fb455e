"""The measured facts doctor judges by (cglint/data/doctor_facts.json, made by
tools/measure_doctor_facts.py), and the questions asked of them."""
import functools
import json
import os
import re
from dataclasses import dataclass

DATA = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "data",
                    "doctor_facts.json")
CPU_PACKAGE, GPU_PACKAGE = "tensorflow", "tensorflow-gpu"


@functools.lru_cache(maxsize=None)
def load():
    with open(DATA) as handle:
        return json.load(handle)


def tf_version():
    return load()["tensorflow"]


def version_key(text):
    """(1, 19, 5) for "1.19.5"; pre-release and local tails are ignored."""
    match = re.match(r"^\s*v?(\d+(?:\.\d+)*)", text or "")
    return tuple(int(part) for part in match.group(1).split(".")) if match else ()


def wheel_pythons(package=CPU_PACKAGE):
    """["2.7", "3.3", ...]: the Pythons PyPI has a Linux wheel of TF 1.8 `package` for."""
    return load()["wheels"]["pythons"][package]


def _needed(section):
    names = []
    for library in load()[section]["libraries"].values():
        names += [name for name in library["needed"] if name not in names]
    return names


def gpu_libraries():
    """The CUDA and cuDNN sonames the GPU build needs and the CPU build does not, in the
    order the wheel lists them: ["libcublas.so.9.0", "libcusolver.so.9.0", ...]."""
    cpu = set(_needed("cpu_wheel"))
    return [name for name in _needed("gpu_wheel")
            if name not in cpu and name.startswith("libcu")]


def cuda_version():
    """"9.0": the CUDA release of the runtime library the GPU build links."""
    return soname_version(next(name for name in gpu_libraries() if name.startswith("libcudart.")))


def soname_version(name):
    """"9.0" for libcudart.so.9.0, "7" for libcudnn.so.7, "" for libcudart.so."""
    match = re.search(r"\.so\.(\d+(?:\.\d+)*)$", name)
    return match.group(1) if match else ""


def stem(name):
    """"libcudart.so" for "libcudart.so.9.0"."""
    return name[:name.index(".so") + 3]


def gpu_architectures():
    """["3.5", ..., "7.0"]: the compute capabilities the GPU build has kernels for."""
    found = set()
    for library in load()["gpu_wheel"]["libraries"].values():
        found.update(library.get("gpu_architectures", ()))
    return sorted(found, key=version_key)


def documented(name):
    return load()["documented"][name]


@dataclass(frozen=True)
class Verdict:
    status: str  # ok, info, warn or fail
    found: str  # what the measurements say about this version
    measured: str  # the measured range, for `needed`


def judge_dependency(package, version, python):
    """Verdict for `package` at `version` beside TF 1.8 on Python `python` ("3.6.15"),
    from the trials of the nearest measured interpreter."""
    name, rows = _trials(package, python)
    tried = sorted((row for row in rows if row.get("installable", True)),
                   key=lambda row: version_key(row["version"]))
    outcome = {row["version"]: _outcome(package, row) for row in tried}
    measured = "measured on %s: %s" % (name, _summary(package, tried))
    if version is None:
        absent = outcome.get("absent")
        if absent is None or absent.startswith("breaks import"):
            return Verdict("fail", "not installed", measured)
        if absent == "works":
            return Verdict("ok", "not installed (%s)" % absent, measured)
        # Missing but only one feature needs it: a warning if TF declares it, else a note.
        declared = declared_requirement(package, python) is not None
        return Verdict("warn" if declared else "info", "not installed: %s" % absent, measured)
    key = version_key(version)
    versions = [row for row in tried if row["version"] != "absent"]
    below = [row for row in versions if version_key(row["version"]) <= key]
    above = [row for row in versions if version_key(row["version"]) >= key]
    if below and above:
        low, high = outcome[below[-1]["version"]], outcome[above[0]["version"]]
        if low == high:
            return Verdict(_status(low), low if below[-1] is above[0] else
                           "%s (like %s and %s)" % (low, below[-1]["version"], above[0]["version"]),
                           measured)
        return Verdict("warn", "not measured: between %s (%s) and %s (%s)" % (
            below[-1]["version"], low, above[0]["version"], high), measured)
    nearest = (below or above)[-1 if below else 0]
    near = outcome[nearest["version"]]
    if near.startswith("breaks"):
        return Verdict(_status(near), "%s (like %s)" % (near, nearest["version"]), measured)
    side = "newer" if below else "older"
    return Verdict("warn", "not measured: %s than every version tried" % side, measured)


def _trials(package, python):
    """(interpreter name, trial rows) measured on the interpreter nearest `python`."""
    deps = load()["deps"]
    name = "py27" if version_key(python)[:1] == (2,) else "py36"
    return name, deps[name][package]


def _label(package, row):
    """What a measured version did, in a few words."""
    if not row["import"]:
        return "breaks import tensorflow"
    if row.get("feature") is False:
        return "breaks %s" % FEATURES[package]
    if row["warnings"]:
        return "works; import warns %s" % row["warnings"][0].split(":")[0]
    return "works"


def _outcome(package, row):
    label = _label(package, row)
    return "%s (%s)" % (label, row["error"]) if label.startswith("breaks") else label


def _summary(package, tried):
    """"1.11.3 to 1.16.6 work; 1.17.5, 1.19.5 work, warn FutureWarning": runs of
    consecutive measured versions with the same outcome."""
    groups = []
    for row in tried:
        label = _label(package, row)
        if groups and groups[-1][0] == label:
            groups[-1][1].append(row["version"])
        else:
            groups.append((label, [row["version"]]))
    parts = []
    for label, versions in groups:
        shown = ("%s to %s" % (versions[0], versions[-1]) if len(versions) > 2
                 else ", ".join(versions))
        if len(versions) > 1:  # "1.9.0 to 1.17.0 work"
            label = re.sub(r"^(work|break)s", r"\1", label)
        parts.append("%s %s" % (shown, label))
    return "; ".join(parts)


def _status(outcome):
    """fail when TF cannot be imported; warn when one feature that needs the package
    breaks; info for harmless warnings."""
    if outcome.startswith("breaks import"):
        return "fail"
    if outcome.startswith("breaks"):
        return "warn"
    return "info" if "warns" in outcome else "ok"


def best_version(package, python):
    """The newest version measured to work without warnings on the nearest interpreter and
    installable there without ignoring Requires-Python, or None."""
    _, rows = _trials(package, python)
    good = [row["version"] for row in rows if row.get("installable", True)
            and row["version"] != "absent" and not row.get("ignored_requires_python")
            and _outcome(package, row) == "works"]
    return max(good, key=version_key) if good else None


def declared_requirement(package, python):
    """">=1.13.3" when TF 1.8's wheel for that Python requires `package`, else None."""
    name = "py27" if version_key(python)[:1] == (2,) else "py36"
    for line in load()["cpu_wheel"]["requires"][name]:
        match = re.match(r"^([\w.-]+)\s*(?:\(([^)]*)\))?", line)
        if match and match.group(1).lower() == package:
            return (match.group(2) or "").replace(" ", "") or "any version"
    return None


def compute_capability(gpu_name):
    """"6.1" for a GPU named in the documented table, else None."""
    table = documented("compute_capability")
    for name, capability in table.items():
        if name != "source" and (gpu_name == name or gpu_name.endswith(" " + name)
                                 or gpu_name == name.replace("GeForce ", "")):
            return capability
    return None


FEATURES = {"h5py": "tf.keras HDF5 save/load", "grpcio": "the tfdbg gRPC debug server"}
