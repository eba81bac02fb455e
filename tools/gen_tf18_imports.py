#!/usr/bin/env python3
"""Generate cglint's TF 1.8 import model (cglint/data/tf18_imports.json).

Run by hand (see tools/README.md); the output is checked in and never edited
by hand.  What it does:

1. `pip download --no-deps` the `tensorflow==1.8.0` and `tensorflow-gpu==1.8.0`
   cp36 wheels into a temporary directory (deleted afterwards; `--cpu-wheel` /
   `--gpu-wheel` reuse files already on disk) and list every module file in
   each: each one is a path `import` can name.
2. Inside a real TensorFlow 1.8 interpreter (`--tf18-python`; this file runs
   there in `--probe` mode, so it keeps Python 2.7/3.6 syntax) import every
   module of the CPU wheel: record the ones whose import raises (each failure
   retried alone in a fresh interpreter, so one broken import cannot poison
   the next), which imports give the very object attribute access reaches
   (`import tensorflow.contrib.layers` is `tf.contrib.layers`), and the public
   names of every other importable module and of the modules those names hold
   (`from tensorflow.contrib.slim.nets import resnet_v1` lets `resnet_v1.X`
   reach the names of the module `resnet_v1` is).  GPU-only modules cannot be
   imported without CUDA: they are listed, their contents unknown.
3. Write cglint/data/tf18_imports.json; cglint/tfimports.py documents the
   layout.
"""
from __future__ import print_function

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import zipfile

ROOT = "tensorflow"
WHEELS = (("cpu", "tensorflow==1.8.0"), ("gpu", "tensorflow-gpu==1.8.0"))
DATA_RE = re.compile(r"^[^/]+\.data/(?:purelib|platlib)/")
SO_RE = re.compile(r"^([A-Za-z_][A-Za-z0-9_]*)\..*(so|pyd)$")
IDENTIFIER = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
PROBE_TIMEOUT = 60  # seconds for one module's import


def log(*args):
    print(*args, file=sys.stderr)
    sys.stderr.flush()


def module_paths(wheel):
    """Every dotted module path under `tensorflow` that a wheel's files give."""
    found = set([ROOT])
    for member in zipfile.ZipFile(wheel).namelist():
        name = DATA_RE.sub("", member)
        if not name.startswith(ROOT + "/") or ".dist-info/" in name:
            continue
        parts = name.split("/")
        if name.endswith(".py"):
            if parts[-1] == "__init__.py":
                parts = parts[:-1]
            else:
                parts[-1] = parts[-1][:-3]
        else:
            match = SO_RE.match(parts[-1])
            if not match:
                continue
            parts[-1] = match.group(1)
        if all(IDENTIFIER.match(part) for part in parts):
            for i in range(1, len(parts) + 1):
                found.add(".".join(parts[:i]))
    return found


def download(requirement, directory):
    command = [sys.executable, "-m", "pip", "download", "--no-deps", "--only-binary=:all:",
               "--python-version", "36", "--platform", "manylinux1_x86_64", "-d", directory,
               requirement]
    log("pip download", requirement)
    before = set(os.listdir(directory))
    subprocess.check_call(command, stdout=sys.stderr)
    new = sorted(set(os.listdir(directory)) - before)
    wheels = [name for name in new if name.endswith(".whl")]
    if len(wheels) != 1:
        raise SystemExit("expected one new wheel for %s, got %s" % (requirement, new))
    return os.path.join(directory, wheels[0])


# --------------------------------------------------------------------------
# Inside TF 1.8 (Python 2.7/3.6 syntax)
# --------------------------------------------------------------------------

def _first_line(error):
    text = "%s: %s" % (type(error).__name__, error)
    return text.strip().splitlines()[0][:200]


def _import_with_timeout(importlib, path):
    import signal

    def expired(signum, frame):
        raise RuntimeError("import took more than %d s" % PROBE_TIMEOUT)
    signal.signal(signal.SIGALRM, expired)
    signal.alarm(PROBE_TIMEOUT)
    try:
        return importlib.import_module(path)
    finally:
        signal.alarm(0)


def probe(paths_file, out_path, single=False):
    import importlib
    import types
    import warnings
    warnings.simplefilter("ignore")
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
    with open(paths_file) as f:
        paths = json.load(f)
    sys.argv = sys.argv[:1]  # modules that parse flags must not see the probe's arguments
    import tensorflow
    # What attribute access reaches before anything else is imported (each import
    # below also sets its module as an attribute of its parent package).
    reached = {}
    for path in paths:
        obj = tensorflow
        for part in path.split(".")[1:]:
            obj = getattr(obj, part, None)
            if obj is None:
                break
        if isinstance(obj, types.ModuleType):
            reached[path] = obj
    fails = {}
    modules = {}
    for path in paths:
        try:
            modules[path] = _import_with_timeout(importlib, path)
        except BaseException as error:  # SystemExit too: a module must not end the probe
            fails[path] = _first_line(error)
    same = sorted(path for path, module in modules.items() if reached.get(path) is module)
    contents = {}
    if not single:
        # Every importable module, and the modules their names hold (`nets.resnet_v1`
        # is tensorflow.contrib.slim.python.slim.nets.resnet_v1): "name", or
        # "name=module path" for a module.
        queue = sorted(path for path in modules if path != ROOT and path not in same)
        while queue:
            path = queue.pop()
            if path in contents or path in same:
                continue
            module = modules.get(path) or sys.modules.get(path)
            if module is None:
                continue
            names = []
            for name in sorted(dir(module)):
                if name.startswith("_"):
                    continue
                try:
                    value = getattr(module, name, None)
                except Exception:  # flags modules parse the command line on access
                    value = None
                real = getattr(value, "__name__", None)
                if (isinstance(value, types.ModuleType) and isinstance(real, str)
                        and real.startswith(ROOT + ".") and real != path + "." + name):
                    names.append(name + "=" + real)
                    queue.append(real)
                else:
                    names.append(name)
            contents[path] = names
    with open(out_path, "w") as f:
        json.dump({"version": tensorflow.__version__, "fails": fails, "same": same,
                   "contents": contents}, f)


# --------------------------------------------------------------------------
# Building the data file
# --------------------------------------------------------------------------

def run_probe(python, paths, work, single=False):
    paths_file = os.path.join(work, "paths.json")
    out = os.path.join(work, "probe.json")
    with open(paths_file, "w") as f:
        json.dump(paths, f)
    command = [python, os.path.abspath(__file__), "--probe", paths_file, out]
    if single:
        command.append("--single")
    subprocess.check_call(command)
    with open(out) as f:
        result = json.load(f)
    assert result["version"] == "1.8.0", result["version"]
    return result


def trie(paths):
    root = {}
    for path in sorted(paths):
        node = root
        for part in path.split(".")[1:]:
            node = node.setdefault(part, {})
    return root


def build(args):
    work = tempfile.mkdtemp(prefix="cglint-tf18-imports-")
    try:
        wheels = {}
        for kind, requirement in WHEELS:
            given = getattr(args, kind + "_wheel")
            wheels[kind] = given or download(requirement, work)
        cpu = module_paths(wheels["cpu"])
        gpu = module_paths(wheels["gpu"])
        log("modules: %d in the CPU wheel, %d in the GPU wheel" % (len(cpu), len(gpu)))
        result = run_probe(args.tf18_python, sorted(cpu), work)
        fails = {}
        for path in sorted(result["fails"]):
            # Alone, in a fresh interpreter: is it the module, or an earlier import?
            alone = run_probe(args.tf18_python, [path], work, single=True)
            if path in alone["fails"]:
                fails[path] = alone["fails"][path]
            else:
                log("imports alone, not after the others:", path, result["fails"][path])
        log("imports that raise in 1.8:", len(fails))
        for path, error in sorted(fails.items()):
            log("  %s: %s" % (path, error))
        data = {
            "format": 1,
            "doc": "Generated by tools/gen_tf18_imports.py; do not edit.  See cglint/tfimports.py "
                   "for the layout.",
            "wheels": [os.path.basename(wheels[kind]) for kind, _ in WHEELS],
            "modules": trie(cpu),
            "gpu_only": sorted(gpu - cpu),
            "fails": fails,
            "same": result["same"],
            "contents": {path: ",".join(names) for path, names in sorted(result["contents"].items())
                         if path not in fails},
        }
        with open(args.out, "w") as f:
            json.dump(data, f, separators=(",", ":"), sort_keys=True)
            f.write("\n")
        log("wrote %s (%d bytes): %d modules, %d GPU-only, %d failing, %d with contents" % (
            args.out, os.path.getsize(args.out), len(cpu), len(data["gpu_only"]), len(fails),
            len(data["contents"])))
    finally:
        shutil.rmtree(work, ignore_errors=True)


def default_tf18_python():
    """The oracle's py36 interpreter (`cglint confirm --setup` builds it)."""
    root = os.path.expanduser(os.environ.get("CGLINT_CACHE_DIR") or "~/.cache/cglint")
    return os.path.join(root, "py36", "bin", "python")


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--probe", nargs=2, metavar=("PATHS", "OUT"), help=argparse.SUPPRESS)
    parser.add_argument("--single", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--cpu-wheel", help="a tensorflow-1.8.0 cp36 wheel already on disk")
    parser.add_argument("--gpu-wheel", help="a tensorflow_gpu-1.8.0 cp36 wheel already on disk")
    parser.add_argument("--tf18-python", default=default_tf18_python(),
                        help="a Python with tensorflow==1.8.0 installed (default: %(default)s)")
    repo = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    parser.add_argument("--out", default=os.path.join(repo, "cglint", "data", "tf18_imports.json"),
                        help="output file (default: %(default)s)")
    args = parser.parse_args(argv)
    if args.probe:
        probe(args.probe[0], args.probe[1], args.single)
        return
    build(args)


if __name__ == "__main__":
    main()
