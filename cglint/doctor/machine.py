"""What the machine has for a GPU build: GPUs and driver (nvidia-smi), and which CUDA and
cuDNN shared libraries the dynamic loader could find."""
import glob
import os
import re
import shutil
from dataclasses import dataclass

from cglint.doctor.probe import ProbeError, run

# Where CUDA installers put their libraries besides the loader's own search path.
CUDA_LIBRARY_GLOBS = ("/usr/local/cuda*/lib64", "/usr/local/cuda*/lib")
QUERY = ["--query-gpu=name,driver_version", "--format=csv,noheader"]


@dataclass(frozen=True)
class Gpu:
    name: str
    driver: str


@dataclass(frozen=True)
class GpuReport:
    gpus: tuple  # of Gpu; empty when there is none or nvidia-smi could not say
    problem: str = ""  # why there is no answer: no nvidia-smi, or its error


def gpus(timeout=15):
    """The NVIDIA GPUs `nvidia-smi` (the first on PATH) reports."""
    smi = shutil.which("nvidia-smi")
    if smi is None:
        return GpuReport((), "no nvidia-smi on PATH")
    try:
        code, out, err = run([smi] + QUERY, timeout)
    except ProbeError as error:
        return GpuReport((), str(error))
    found = []
    for line in out.splitlines():
        parts = [part.strip() for part in line.split(",")]
        if len(parts) == 2 and re.match(r"^\d+(\.\d+)*$", parts[1]):
            found.append(Gpu(parts[0], parts[1]))
    if code or not found:
        said = (err or out).strip().splitlines()
        return GpuReport(tuple(found), "nvidia-smi failed (exit %d): %s"
                         % (code, said[-1] if said else "no output"))
    return GpuReport(tuple(found))


def library_folders(ld_library_path=None):
    """The folders searched, in the loader's order: LD_LIBRARY_PATH, then the CUDA install
    folders (the ldconfig cache is added by `find_libraries`)."""
    if ld_library_path is None:
        ld_library_path = os.environ.get("LD_LIBRARY_PATH", "")
    folders = [folder for folder in ld_library_path.split(os.pathsep) if folder]
    for pattern in CUDA_LIBRARY_GLOBS:
        folders += sorted(glob.glob(pattern))
    unique = []
    for folder in folders:
        if folder not in unique:
            unique.append(folder)
    return unique


def ldconfig_cache(timeout=15):
    """{file name: path} from `ldconfig -p` (the first ldconfig on PATH, else /sbin)."""
    tool = shutil.which("ldconfig") or next(
        (path for path in ("/sbin/ldconfig", "/usr/sbin/ldconfig") if os.path.exists(path)), None)
    if tool is None:
        return {}
    try:
        _, out, _ = run([tool, "-p"], timeout)
    except ProbeError:
        return {}
    found = {}
    for line in out.splitlines():
        match = re.match(r"^\s*(\S+) \(([^)]*)\) => (\S+)$", line)
        if match and ("x86-64" in match.group(2) or "64bit" in match.group(2)):
            found.setdefault(match.group(1), match.group(3))
    return found


@dataclass(frozen=True)
class LibraryFiles:
    """Every file found whose name starts like a library's, e.g. `libcudart.so.8.0`."""
    paths: tuple  # of (file name, full path), in search order

    def named(self, name):
        return [path for file_name, path in self.paths if file_name == name]

    def versions_of(self, stem):
        """(file name, path) of the files `stem.*`, e.g. all `libcudart.so.*`."""
        return [(file_name, path) for file_name, path in self.paths
                if file_name == stem or file_name.startswith(stem + ".")]


def find_libraries(stems, ld_library_path=None):
    """LibraryFiles for the stems (`libcudart.so` ...) in the loader's folders and cache."""
    paths = []
    for folder in library_folders(ld_library_path):
        try:
            names = sorted(os.listdir(folder))
        except OSError:
            continue
        for name in names:
            if any(name == stem or name.startswith(stem + ".") for stem in stems):
                paths.append((name, os.path.join(folder, name)))
    for name, path in sorted(ldconfig_cache().items()):
        if any(name == stem or name.startswith(stem + ".") for stem in stems):
            if (name, path) not in paths:
                paths.append((name, path))
    return LibraryFiles(tuple(paths))
