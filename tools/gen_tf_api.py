#!/usr/bin/env python3
"""Generate cglint's TensorFlow API version table (cglint/data/tf_api.json).

Run by hand (see tools/README.md); the output is checked in and never edited
by hand.  What it does:

1. `pip download --no-deps` the TensorFlow wheel of every release in VERSIONS
   into a cache directory outside the repository (no install), plus the
   companion wheels (tensorflow-estimator, keras, tensorboard) that later
   releases delegate `tf.estimator`, `tf.keras` and `tf.summary` to; the
   companion version is the newest one the TF wheel's METADATA allows.
2. Read the generated API `__init__.py` files straight out of each wheel zip
   with `ast` (never importing them), emulating just enough of Python's import
   system (`from x import y as z`, star imports, relative imports,
   LazyLoader, `setattr`, `__path__` extensions, the 1.15/2.0
   `tensorflow_core` forwarding) to list every public dotted name.  A module
   reached twice (same file, or a `compat.vN...compat.vM` nest) is recorded
   once, as an alias of the first path; it is never expanded again.
3. Inside a real TensorFlow 1.8 interpreter (`--tf18-python`; this same file
   runs there in `--probe-tf18` mode, so it keeps Python 3.6 syntax) walk the
   live `tf` namespace including `tf.contrib`, record the defining object of
   every name, the argspecs of public functions and class `__init__`s, and
   which dotted paths `import` can really load.
4. For every name absent from 1.8, compute a 1.8 spelling: (a) compat.v1.X ->
   X; (d) the hand list HAND_REPLACEMENTS below; (b) the same defining object
   as a 1.8 name; (c) the reversed `tf_upgrade_v2` renames shipped in later
   wheels.
5. Write cglint/data/tf_api.json (names, version bitmasks, aliases,
   replacements, importable modules) and cglint/data/tf18_argspecs.json.
"""

import argparse
import ast
import collections
import json
import os
import posixpath
import re
import subprocess
import sys
import time
import zipfile

# (label, pip requirement, Python version whose wheel is downloaded)
# `tensorflow-cpu` where it exists (1.15, 2.1+): same API, smaller wheel.
VERSIONS = [
    ("1.8", "tensorflow==1.8.0", "3.6"),
    ("1.9", "tensorflow==1.9.0", "3.6"),
    ("1.10", "tensorflow==1.10.1", "3.6"),
    ("1.11", "tensorflow==1.11.0", "3.6"),
    ("1.12", "tensorflow==1.12.3", "3.6"),
    ("1.13", "tensorflow==1.13.2", "3.6"),
    ("1.14", "tensorflow==1.14.0", "3.6"),
    ("1.15", "tensorflow-cpu==1.15.0", "3.6"),
    ("2.0", "tensorflow==2.0.4", "3.7"),
    ("2.1", "tensorflow-cpu==2.1.4", "3.7"),
    ("2.2", "tensorflow-cpu==2.2.3", "3.8"),
    ("2.3", "tensorflow-cpu==2.3.4", "3.8"),
    ("2.4", "tensorflow-cpu==2.4.4", "3.8"),
    ("2.5", "tensorflow-cpu==2.5.3", "3.8"),
    ("2.6", "tensorflow-cpu==2.6.5", "3.8"),
    ("2.7", "tensorflow-cpu==2.7.4", "3.8"),
    ("2.8", "tensorflow-cpu==2.8.4", "3.10"),
    ("2.9", "tensorflow-cpu==2.9.3", "3.10"),
    ("2.10", "tensorflow-cpu==2.10.1", "3.10"),
    ("2.11", "tensorflow-cpu==2.11.1", "3.10"),
    ("2.12", "tensorflow-cpu==2.12.1", "3.10"),
    ("2.13", "tensorflow-cpu==2.13.1", "3.10"),
    ("2.14", "tensorflow-cpu==2.14.1", "3.10"),
    ("2.15", "tensorflow-cpu==2.15.1", "3.10"),
]
BASE = "1.8"  # the version replacements are computed for
# 1.7 has no generated API files (its API came from remove_undocumented); its
# wheel is only scanned for `tf_export(...)` names, to tell which 1.8 names are
# new in 1.8 (approximate, see exports_of_1_7).
PRE_VERSION = ("1.7", "tensorflow==1.7.1", "3.6")

# Top-level packages a TF wheel may delegate to, and the distribution that
# ships each (looked up in the TF wheel's Requires-Dist).
COMPANIONS = {
    "tensorflow_estimator": ("tensorflow-estimator", "tensorflow_estimator"),
    "keras": ("keras",),
    "tensorboard": ("tensorboard",),
}

# (d) Hand list: 1.8 spellings for names absent from 1.8 that no automatic
# rule finds (or finds wrongly).  Dotted names use the `tf.` prefix here.
# Each value: (1.8 replacement or None, note).
HAND_REPLACEMENTS = {
    # tf.print (1.12+) is a stateful op; 1.8 only has the identity op tf.Print,
    # which prints only if its *result* is used downstream.
    "tf.print": (
        "tf.Print",
        "tf.Print(input_, data, message=None, first_n=None, summarize=None) is an identity op: "
        "it prints only when its result is used, e.g. x = tf.Print(x, [x])"),
    # tf.function (1.14) has no core 1.8 equivalent; defun is the closest.
    "tf.function": (
        "tf.contrib.eager.defun",
        "tf.contrib.eager.defun is the closest 1.8 equivalent (eager-only graph function)"),
    # tf.random.* namespace (1.12+) -> the flat 1.8 names.
    "tf.random.normal": ("tf.random_normal", "1.8 name"),
    "tf.random.uniform": ("tf.random_uniform", "1.8 name"),
    "tf.random.truncated_normal": ("tf.truncated_normal", "1.8 name"),
    "tf.random.shuffle": ("tf.random_shuffle", "1.8 name"),
    "tf.random.set_seed": ("tf.set_random_seed", "1.8 name"),
    "tf.random.categorical": ("tf.multinomial", "tf.multinomial(logits, num_samples) is the 1.8 op"),
    "tf.random.gamma": ("tf.random_gamma", "1.8 name"),
    "tf.random.poisson": ("tf.random_poisson", "1.8 name"),
    "tf.random.crop": ("tf.random_crop", "1.8 name"),
    # tf.debugging.* (1.12+) -> flat 1.8 names.
    "tf.debugging.assert_equal": ("tf.assert_equal", "1.8 name"),
    "tf.debugging.check_numerics": ("tf.check_numerics", "1.8 name"),
    "tf.debugging.is_nan": ("tf.is_nan", "1.8 name"),
    # Gradient helpers (1.14/1.15+) that 1.8 spells differently.
    "tf.recompute_grad": ("tf.contrib.layers.recompute_grad", "1.8 has it only in contrib"),
    "tf.no_gradient": ("tf.NoGradient", "1.8 name (tf.NotDifferentiable is the same)"),
    # Numerics without a 1.8 name of their own.
    "tf.math.reduce_std": (None, "no 1.8 op; compute tf.sqrt(tf.reduce_mean(tf.square(x - tf.reduce_mean(x))))"),
    "tf.math.reduce_variance": (None, "no 1.8 op; compute tf.reduce_mean(tf.square(x - tf.reduce_mean(x)))"),
    "tf.math.divide_no_nan": (None, "no 1.8 op; use tf.where(tf.equal(y, 0), tf.zeros_like(x), x / y)"),
    "tf.math.softplus": ("tf.nn.softplus", "1.8 name"),
    "tf.nn.gelu": (None, "no 1.8 op; write 0.5 * x * (1 + tf.erf(x / 1.4142135623730951))"),
    "tf.nn.silu": ("tf.nn.swish", "tf.nn.swish is the same function (a composite op in 1.8)"),
    "tf.where_v2": (None, "no broadcasting where in 1.8; broadcast the inputs and use tf.where"),
    "tf.sort": ("tf.contrib.framework.sort", "1.8 has it only in contrib"),
    "tf.argsort": ("tf.contrib.framework.argsort", "1.8 has it only in contrib"),
    "tf.optimizers.Adam": ("tf.train.AdamOptimizer", "1.8 optimizer class"),
    "tf.optimizers.SGD": (
        "tf.train.GradientDescentOptimizer",
        "1.8 optimizer class (no momentum argument; see tf.train.MomentumOptimizer)"),
    "tf.keras.activations.swish": ("tf.nn.swish", "the same function (a composite op in 1.8)"),
    "tf.keras.layers.LayerNormalization": ("tf.contrib.layers.layer_norm", "functional contrib layer in 1.8"),
    # Checkpointing / summaries that 1.8 has only in contrib.
    "tf.train.Checkpoint": ("tf.contrib.eager.Checkpoint", "1.8 has it as tf.contrib.eager.Checkpoint"),
    "tf.summary.create_file_writer": (
        "tf.contrib.summary.create_file_writer",
        "1.8 has the v2-style summary API only in tf.contrib.summary"),
    # Renamed helpers.
    "tf.numpy_function": ("tf.py_func", "tf.py_func is the 1.8 name (numpy arrays in, numpy arrays out)"),
    "tf.compat.v1.disable_eager_execution": (
        None,
        "1.8 runs in graph mode unless tf.enable_eager_execution() is called; delete the call"),
    "tf.compat.v1.disable_v2_behavior": (None, "1.8 has only 1.x behaviour; delete the call"),
    # No 1.8 counterpart: say what to write instead.
    "tf.ensure_shape": (None, "no op in 1.8; use x.set_shape(shape) for the static shape"),
    "tf.broadcast_to": (None, "no op in 1.8; broadcast by arithmetic, e.g. x + tf.zeros(shape, x.dtype)"),
    "tf.UnconnectedGradients": (None, "1.8's tf.gradients always returns None for unconnected sources"),
    "tf.grad_pass_through": (None, "no 1.8 helper; use tf.custom_gradient with an identity gradient"),
    "tf.Module": (None, "no tf.Module in 1.8; track variables by hand or use tf.keras.layers.Layer"),
    "tf.config.experimental.set_memory_growth": (
        None,
        "use tf.Session(config=tf.ConfigProto(gpu_options=tf.GPUOptions(allow_growth=True)))"),
    "tf.autograph": (None, "no autograph in 1.8 (neither tf.autograph nor tf.contrib.autograph)"),
    "tf.nest": (None, "1.8 has no public nest module (tf.contrib.framework.nest exists)"),
}

DATA_RE = re.compile(r"^[^/]+\.data/(?:purelib|platlib)/")
SO_RE = re.compile(r"^([A-Za-z_][A-Za-z0-9_]*)\..*(so|pyd)$")
GENERATED_MARKERS = ("MACHINE GENERATED", "api_template", "Bring in all of the public TensorFlow interface")
API_DIR_RE = re.compile(r"(^|/)(_api/v\d|api/generator/api|api/_v\d)(/|$)")
# Modules whose own import lines are read but whose submodules are opaque.
SHALLOW = ("tensorflow.contrib", "tensorflow_core.contrib")
# Non-generated modules that are read like API modules.
EXTRA_API = ("tensorboard.summary._tf.summary",)
NEST_RE = re.compile(r"^tensorflow\.compat\.v\d\.(?:.*\.)?compat\.(v\d)$")
ROOT = "tensorflow"


def log(*a):
    print(*a, file=sys.stderr, flush=True)


# --------------------------------------------------------------------------
# Downloading
# --------------------------------------------------------------------------

class Downloader(object):
    def __init__(self, cache, offline=False):
        self.cache = cache
        self.offline = offline
        os.makedirs(cache, exist_ok=True)
        self.index_path = os.path.join(cache, "resolved.json")
        try:
            with open(self.index_path) as f:
                self.index = json.load(f)
        except (OSError, ValueError):
            self.index = {}
        self.downloaded_bytes = 0
        self.used = set()

    def get(self, req, pyver):
        key = "%s @ %s" % (req, pyver)
        fn = self.index.get(key)
        if fn and os.path.exists(os.path.join(self.cache, fn)):
            self.used.add(fn)
            return os.path.join(self.cache, fn)
        if self.offline:
            raise SystemExit("not in cache and --offline: %s" % key)
        abi = "cp" + pyver.replace(".", "") + ("m" if pyver in ("3.6", "3.7") else "")
        cmd = [sys.executable, "-m", "pip", "download", "--no-deps", "--only-binary=:all:",
               "--python-version", pyver, "--implementation", "cp", "--abi", abi,
               "--abi", "abi3", "--abi", "none"]
        for plat in ("manylinux1_x86_64", "manylinux2010_x86_64", "manylinux2014_x86_64",
                     "manylinux_2_17_x86_64", "any"):
            cmd += ["--platform", plat]
        cmd += ["-d", self.cache, req]
        before = set(os.listdir(self.cache))
        log("pip download", req, "(py%s)" % pyver)
        out = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                             universal_newlines=True)
        if out.returncode != 0:
            raise SystemExit("pip download failed for %s:\n%s" % (req, out.stdout[-3000:]))
        m = re.findall(r"(?:Saved|File was already downloaded) (\S+\.whl)", out.stdout)
        if not m:
            raise SystemExit("cannot find the wheel pip saved for %s:\n%s" % (req, out.stdout[-3000:]))
        fn = os.path.basename(m[-1])
        if fn not in before:
            self.downloaded_bytes += os.path.getsize(os.path.join(self.cache, fn))
        self.index[key] = fn
        with open(self.index_path, "w") as f:
            json.dump(self.index, f, indent=1, sort_keys=True)
        self.used.add(fn)
        return os.path.join(self.cache, fn)


def requires_dist(whl):
    z = zipfile.ZipFile(whl)
    md = [n for n in z.namelist() if n.endswith(".dist-info/METADATA")][0]
    reqs = {}
    for line in z.read(md).decode("utf-8", "replace").splitlines():
        if not line.startswith("Requires-Dist:"):
            continue
        spec = line.split(":", 1)[1].split(";")[0].strip()
        m = re.match(r"([A-Za-z0-9_.\-]+)\s*\(?([^)]*)\)?", spec)
        if m:
            reqs[m.group(1).lower().replace("_", "-")] = m.group(2).replace(" ", "")
    return reqs


# --------------------------------------------------------------------------
# Static reading of wheels
# --------------------------------------------------------------------------

class WheelFS(object):
    """The union of several wheels' files, keyed by installed path."""

    def __init__(self):
        self.files = {}
        self.dirs = set([""])
        self.extmods = set()
        self.tops = set()
        self.children = collections.defaultdict(set)
        self.wheels = []

    def add(self, path):
        z = zipfile.ZipFile(path)
        self.wheels.append(os.path.basename(path))
        for info in z.infolist():
            name = DATA_RE.sub("", info.filename)
            if name.endswith("/") or ".dist-info/" in name:
                continue
            self.files.setdefault(name, (z, info.filename))
            parts = name.split("/")
            self.tops.add(parts[0])
            for i in range(1, len(parts)):
                self.dirs.add("/".join(parts[:i]))
            for i in range(len(parts)):
                self.children["/".join(parts[:i])].add(parts[i])
            m = SO_RE.match(parts[-1])
            if m:
                self.extmods.add("/".join(parts[:-1] + [m.group(1)]))

    def read(self, path):
        z, member = self.files[path]
        return z.read(member).decode("utf-8", "replace")

    def find(self, d, name):
        base = d + "/" + name if d else name
        if base + "/__init__.py" in self.files:
            return "pkg", base, base + "/__init__.py"
        if base + ".py" in self.files:
            return "mod", d, base + ".py"
        if base in self.extmods:
            return "ext", d, base
        if base in self.dirs:
            return "ns", base, None
        return None


class ModInfo(object):
    def __init__(self, dotted, kind, d, fn):
        self.dotted = dotted
        self.kind = kind          # pkg / mod / ext / ns
        self.dir = d
        self.file = fn
        self.key = fn or d        # identity of the module object
        self.pathdirs = [d] if kind in ("pkg", "ns") else []
        self.env = {}
        self.api = None           # None / "full" / "shallow"
        self.state = 0            # 0 new, 1 evaluating, 2 done

    def package(self):
        return self.dotted if self.kind in ("pkg", "ns") else self.dotted.rpartition(".")[0]


class Reader(object):
    """Evaluates module bodies statically, emulating the import system."""

    def __init__(self, fs, companion_hook):
        self.fs = fs
        self.mods = {}
        self.sysmods = {}
        self.patches = collections.defaultdict(dict)
        self.companion_hook = companion_hook
        self.unresolved = set()

    # -- import emulation --------------------------------------------------
    def locate(self, dotted):
        if dotted in self.mods:
            return self.mods[dotted]
        if dotted in self.sysmods and self.sysmods[dotted] != dotted:
            info = self.locate(self.sysmods[dotted])
            self.mods[dotted] = info
            return info
        parent, _, name = dotted.rpartition(".")
        if not parent:
            loc = self.fs.find("", name)
            if loc is None and self.companion_hook(name):
                loc = self.fs.find("", name)
            dirs_loc = [loc] if loc else []
        else:
            pinfo = self.locate(parent)
            if pinfo is None or pinfo.kind not in ("pkg", "ns"):
                self.mods[dotted] = None
                return None
            self.evaluate(pinfo)
            dirs_loc = []
            for d in pinfo.pathdirs:
                loc = self.fs.find(d, name)
                if loc:
                    dirs_loc = [loc]
                    break
        if not dirs_loc:
            self.mods[dotted] = None
            return None
        kind, d, fn = dirs_loc[0]
        info = ModInfo(dotted, kind, d, fn)
        self.mods[dotted] = info
        return info

    def classify(self, info):
        if info.dotted in SHALLOW:
            return "shallow"
        if info.dotted in EXTRA_API:
            return "full"
        if info.file is None or not info.file.endswith(".py"):
            return None
        if info.dotted in ("tensorflow", "tensorflow_core"):
            return "full"
        if API_DIR_RE.search(info.file):
            return "full"
        head = self.fs.read(info.file)[:1500]
        if any(m in head for m in GENERATED_MARKERS):
            return "full"
        return None

    def evaluate(self, info):
        if info.state:
            return
        info.state = 1
        info.api = self.classify(info)
        if info.api:
            try:
                tree = ast.parse(self.fs.read(info.file))
            except SyntaxError as e:
                log("cannot parse", info.file, e)
                tree = ast.Module(body=[])
            self.exec_body(tree.body, info)
        info.state = 2

    def names(self, info):
        """Public names of an API module: name -> value."""
        self.evaluate(info)
        out = {}
        for k, v in info.env.items():
            if not k.startswith("_") and v[0] in ("m", "mm", "s", "o"):
                out[k] = v
        for k, v in self.patches.get(info.key, {}).items():
            if not k.startswith("_"):
                out[k] = v
        return out

    def get_attr(self, info, name):
        self.evaluate(info)
        p = self.patches.get(info.key, {})
        if name in p:
            return p[name]
        if info.api and name in info.env:
            return info.env[name]
        sub = info.dotted + "." + name
        if self.locate(sub) is not None:
            return ("m", sub)
        if info.api:
            return None
        return ("s", info.dotted + "." + name)

    # -- statements ---------------------------------------------------------
    def exec_body(self, body, info):
        for st in body:
            try:
                self.exec_stmt(st, info)
            except Exception as e:  # keep going; report
                log("  warning: %s:%s: %s" % (info.file, getattr(st, "lineno", "?"), e))

    def bind(self, info, name, value):
        if name == "__path__":
            # `if not hasattr(m, "__path__"): __path__ = [...]`: both branches of
            # an `if` are read, so never let this replace a package's path.
            if value and value[0] == "list" and not info.pathdirs:
                info.pathdirs = [x for x in value[1] if isinstance(x, str)]
            return
        old = info.env.get(name)
        if (value is None or value == ("o",)) and old is not None and old[0] in ("m", "mm", "s"):
            return  # an import that cannot be resolved never hides a resolved one
        if value and value[0] == "m" and value[1] in EXTRA_API and old:
            # tensorboard's tf.summary re-exports TF's own summary module.
            if old[0] == "m" and old[1] not in EXTRA_API:
                value = ("mm", (old[1], value[1]))
            elif old[0] == "mm":
                value = old
        info.env[name] = value if value is not None else ("o",)

    def exec_stmt(self, st, info):
        env = info.env
        if isinstance(st, ast.ImportFrom):
            if st.module == "__future__":
                return
            base = st.module or ""
            if st.level:
                pkg = info.package().split(".")
                if st.level > 1:
                    pkg = pkg[:-(st.level - 1)]
                base = ".".join(pkg + ([base] if base else []))
            mod = self.locate(base)
            for a in st.names:
                if mod is None:
                    self.unresolved.add(base)
                    if a.name != "*":
                        self.bind(info, a.asname or a.name, None)
                    continue
                if a.name == "*":
                    self.evaluate(mod)
                    if mod.api:
                        env.update(self.names(mod))
                    if info.dotted == ROOT and base == "tensorflow_core" and \
                            "DeprecationWrapper" in self.fs.read(info.file):
                        # 1.15's shim (measured with the real tensorflow-cpu
                        # 1.15.0): the module wrapper it installs gives
                        # `tensorflow` tensorflow_core's __path__, so `import
                        # tensorflow.math` works.  The 2.0/2.1 shim has no
                        # wrapper, and there it fails (measured with 2.0.4).
                        info.pathdirs = list(mod.pathdirs)
                    continue
                self.bind(info, a.asname or a.name, self.get_attr(mod, a.name))
        elif isinstance(st, ast.Import):
            for a in st.names:
                if a.asname:
                    env[a.asname] = ("m", a.name) if self.locate(a.name) else ("o",)
                else:
                    top = a.name.split(".")[0]
                    env[top] = ("m", top) if self.locate(top) else ("o",)
        elif isinstance(st, ast.Assign):
            v = self.eval(st.value, info)
            for t in st.targets:
                self.assign(t, v, info)
        elif isinstance(st, ast.AugAssign):
            if isinstance(st.target, ast.Name) and st.target.id == "__path__":
                v = self.eval(st.value, info)
                if v and v[0] == "list":
                    info.pathdirs = info.pathdirs + [x for x in v[1] if isinstance(x, str)]
        elif isinstance(st, ast.Expr) and isinstance(st.value, ast.Call):
            self.exec_call(st.value, info)
        elif isinstance(st, ast.For):
            it = self.eval(st.iter, info)
            if it and it[0] == "list" and len(st.body) == 1 and isinstance(st.body[0], ast.Expr):
                call = st.body[0].value
                if isinstance(call, ast.Call) and isinstance(call.func, ast.Name) and call.func.id == "_forward_module":
                    for item in it[1]:
                        if isinstance(item, str) and item.startswith("tensorflow."):
                            self.sysmods[item] = "tensorflow_core" + item[len("tensorflow"):]
        elif isinstance(st, ast.If):
            test = self.eval(st.test, info)
            if test == ("env",):
                test = ("bool", False)
            if test != ("bool", False):
                self.exec_body(st.body, info)
            if test != ("bool", True):
                self.exec_body(st.orelse, info)
        elif isinstance(st, ast.Try):
            self.exec_body(st.body, info)
            for h in st.handlers:
                self.exec_body(h.body, info)
            self.exec_body(st.orelse, info)
            self.exec_body(st.finalbody, info)
        elif isinstance(st, ast.With):
            self.exec_body(st.body, info)
        elif isinstance(st, ast.Delete):
            for t in st.targets:
                if isinstance(t, ast.Name):
                    env.pop(t.id, None)
        elif isinstance(st, (ast.FunctionDef, ast.ClassDef)):
            env[st.name] = ("s", info.dotted + "." + st.name)

    def assign(self, t, v, info):
        if isinstance(t, ast.Name):
            self.bind(info, t.id, v)
        elif isinstance(t, ast.Attribute):
            base = self.eval(t.value, info)
            if base and base[0] == "m":
                target = self.locate(base[1])
                if target is None:
                    return
                if t.attr == "__path__":
                    # `_current_module.__path__ = [d] + _current_module.__path__`
                    if v and v[0] == "list":
                        target.pathdirs = [x for x in v[1] if isinstance(x, str)]
                elif target is info:
                    self.bind(info, t.attr, v)
                else:
                    self.patches[target.key][t.attr] = v if v is not None else ("o",)

    def exec_call(self, call, info):
        f = call.func
        fname = f.id if isinstance(f, ast.Name) else (f.attr if isinstance(f, ast.Attribute) else "")
        if fname == "package_hook":
            # 1.13: component_api_helper.package_hook(parent, child): child becomes
            # an attribute of parent, and child's parent dir joins parent.__path__.
            kw = {k.arg: self.eval(k.value, info) for k in call.keywords if k.arg}
            pos = [self.eval(a, info) for a in call.args]
            parent = kw.get("parent_package_str") or (pos[0] if pos else None)
            child = kw.get("child_package_str") or (pos[1] if len(pos) > 1 else None)
            if not (parent and child and parent[0] == "str" and child[0] == "str"):
                return
            pinfo, cinfo = self.locate(parent[1]), self.locate(child[1])
            if pinfo is None or cinfo is None or not cinfo.file:
                return
            pinfo.pathdirs = [posixpath.dirname(posixpath.dirname(cinfo.file))] + pinfo.pathdirs
            name = child[1].split(".")[-1]
            if pinfo is info:
                self.bind(info, name, ("m", child[1]))
            else:
                self.patches[pinfo.key][name] = ("m", child[1])
            return
        if isinstance(f, ast.Name) and f.id == "setattr" and len(call.args) == 3:
            base = self.eval(call.args[0], info)
            name = self.eval(call.args[1], info)
            v = self.eval(call.args[2], info)
            if base and base[0] == "m" and name and name[0] == "str":
                target = self.locate(base[1])
                if target is info:
                    self.bind(info, name[1], v)
                elif target is not None:
                    self.patches[target.key][name[1]] = v if v is not None else ("o",)
        elif isinstance(f, ast.Attribute) and f.attr == "append" and len(call.args) == 1:
            if isinstance(f.value, ast.Name):
                v = self.eval(call.args[0], info)
                if f.value.id == "__path__":
                    if v and v[0] == "str":
                        info.pathdirs = info.pathdirs + [v[1]]
                else:
                    cur = info.env.get(f.value.id)
                    if cur and cur[0] == "list" and v and v[0] == "str":
                        info.env[f.value.id] = ("list", cur[1] + [v[1]])

    # -- expressions --------------------------------------------------------
    def eval(self, e, info):
        if isinstance(e, ast.Constant):
            return ("str", e.value) if isinstance(e.value, str) else ("o",)
        if isinstance(e, ast.Str):  # Python < 3.8 hosts
            return ("str", e.s)
        if isinstance(e, ast.Name):
            if e.id == "__name__":
                return ("str", info.dotted)
            if e.id == "__path__":
                return ("list", list(info.pathdirs))
            return info.env.get(e.id)
        if isinstance(e, ast.List) or isinstance(e, ast.Tuple):
            items = [self.eval(x, info) for x in e.elts]
            return ("list", [x[1] if x and x[0] == "str" else x for x in items])
        if isinstance(e, ast.BinOp) and isinstance(e.op, ast.Add):
            a, b = self.eval(e.left, info), self.eval(e.right, info)
            if a and b and a[0] == b[0] and a[0] in ("str", "list"):
                return (a[0], a[1] + b[1])
            return None
        if isinstance(e, ast.Subscript):
            base = e.value
            if isinstance(base, ast.Attribute) and base.attr == "modules":
                sl = e.slice
                if isinstance(sl, ast.Index):  # Python < 3.9 hosts
                    sl = sl.value
                k = self.eval(sl, info)
                if k and k[0] == "str":
                    return ("m", k[1]) if self.locate(k[1]) else None
            return None
        if isinstance(e, ast.Attribute):
            if e.attr == "TYPE_CHECKING":
                return ("bool", False)  # imports only for type checkers
            base = self.eval(e.value, info)
            if not base:
                return None
            if base[0] == "m":
                target = self.locate(base[1])
                if target is None:
                    return None
                if e.attr == "__file__":
                    return ("str", target.file) if target.file else None
                if e.attr == "__path__":
                    self.evaluate(target)
                    return ("list", list(target.pathdirs))
                return self.get_attr(target, e.attr)
            return None
        if isinstance(e, ast.Compare):
            vals = [self.eval(x, info) for x in [e.left] + list(e.comparators)]
            if any(v == ("env",) for v in vals):
                return ("bool", False)  # no TF_* / _PREFER_* variable is set
            return None
        if isinstance(e, ast.BoolOp):
            vals = [self.eval(x, info) for x in e.values]
            if isinstance(e.op, ast.Or) and all(v in (("bool", False), ("env",)) for v in vals):
                return ("bool", False)
            if isinstance(e.op, ast.And) and any(v in (("bool", False), ("env",)) for v in vals):
                return ("bool", False)
            return None
        if isinstance(e, ast.Call):
            f = e.func
            fname = f.id if isinstance(f, ast.Name) else (f.attr if isinstance(f, ast.Attribute) else "")
            args = e.args
            if fname == "getenv" or (fname == "get" and isinstance(f, ast.Attribute)
                                     and isinstance(f.value, ast.Attribute) and f.value.attr == "environ"):
                return ("env",)
            if fname == "package_hook":
                return None
            if fname in ("LazyLoader", "_LazyLoader") and len(args) >= 3:
                m = self.eval(args[2], info)
                if m and m[0] == "str":
                    return ("m", m[1]) if self.locate(m[1]) else None
                return None
            if fname in ("KerasLazyLoader", "_KerasLazyLoader"):
                # 2.15+: routes to the installed keras; with the keras 2.x
                # wheel TF requires, that is keras.api._v1/_v2.keras.
                kw = {k.arg: self.eval(k.value, info) for k in e.keywords if k.arg}
                mode = kw.get("mode")
                pkg = "keras.api._v1.keras" if mode and mode == ("str", "v1") else "keras.api._v2.keras"
                sub = kw.get("submodule")
                if sub and sub[0] == "str":
                    pkg += "." + sub[1]
                return ("m", pkg) if self.locate(pkg) else None
            if fname == "dirname" and len(args) == 1:
                a = self.eval(args[0], info)
                return ("str", posixpath.dirname(a[1])) if a and a[0] == "str" else None
            if fname == "get_parent_dir" and len(args) == 1:
                a = self.eval(args[0], info)
                if a and a[0] == "mm":
                    a = ("m", a[1][-1])
                if a and a[0] == "m":
                    t = self.locate(a[1])
                    if t is not None and t.file:
                        return ("str", posixpath.dirname(posixpath.dirname(t.file)))
                return None
            if fname == "get_parent_dir_for_name" and len(args) == 1:
                a = self.eval(args[0], info)
                if a and a[0] == "str":
                    parts = a[1].split(".")
                    if self.locate(parts[0]) is None:
                        return None
                    return ("str", "/".join(parts[:-1]))
                return None
            return None
        return None


def walk_static(reader, label):
    """Public tree of one version: path -> record.

    Records: ("m",) enumerated module, ("x",) opaque module (exists, children
    not enumerated), ("a", target) alias of another path, ("s", id) symbol,
    ("o",) other object.  Also returns path -> ModInfo key for modules.
    """
    tree = {}
    modkeys = {}
    visited = {}
    queue = collections.deque([(ROOT, ("m", ROOT), False)])
    while queue:
        path, val, shallow_child = queue.popleft()
        dotteds = list(val[1]) if val[0] == "mm" else [val[1]]
        infos = [reader.locate(d) for d in dotteds]
        infos = [i for i in infos if i is not None]
        if not infos:
            tree[path] = ("x",)
            continue
        key = tuple(i.key for i in infos)
        modkeys[path] = infos[0].key
        m = NEST_RE.match(path)
        if m:
            tree[path] = ("a", "tensorflow.compat." + m.group(1))
            continue
        if key in visited:
            tree[path] = ("a", visited[key])
            continue
        visited[key] = path
        for i in infos:
            reader.evaluate(i)
        if shallow_child or not any(i.api for i in infos):
            tree[path] = ("x",)
            continue
        tree[path] = ("m",)
        names = {}
        for i in infos:
            if i.api:
                names.update(reader.names(i))
        shallow = any(i.api == "shallow" for i in infos)
        # Subpackages of a generated package that its __init__ does not
        # import: `import tensorflow.x.y` works, `tf.x.y` does not.
        for i in infos:
            if i.api != "full" or path == ROOT:  # ROOT: see toplevel_modules
                continue
            for d in i.pathdirs:
                for c in reader.fs.children.get(d, ()):
                    c = c[:-3] if c.endswith(".py") else c
                    if c in names or c.startswith("_") or not re.match(r"^[A-Za-z]\w*$", c):
                        continue
                    if reader.fs.find(d, c) and path + "." + c not in tree:
                        tree[path + "." + c] = ("h",)
        for n in sorted(names):
            v = names[n]
            child = path + "." + n
            if v[0] in ("m", "mm"):
                queue.append((child, v, shallow))
            elif v[0] == "s":
                tree[child] = ("s", v[1])
            else:
                tree[child] = ("o",)
    return tree, modkeys


def normalize_id(sid, pymap):
    if sid.startswith("tensorflow_core."):
        sid = "tensorflow." + sid[len("tensorflow_core."):]
    if sid.startswith("tensorflow.python.") and sid.count(".") == 2:
        sid = pymap.get(sid, sid)
    return sid


def read_renames(fs):
    """Rename dicts of tf_upgrade_v2 shipped in the wheel (old -> new)."""
    out = {}
    for base in ("tensorflow", "tensorflow_core"):
        for fn in ("renames_v2.py", "all_renames_v2.py"):
            p = "%s/tools/compatibility/%s" % (base, fn)
            if p not in fs.files:
                continue
            tree = ast.parse(fs.read(p))
            for st in tree.body:
                if isinstance(st, ast.Assign) and isinstance(st.value, ast.Dict):
                    name = st.targets[0].id if isinstance(st.targets[0], ast.Name) else ""
                    if name not in ("renames", "manual_symbol_renames", "symbol_renames"):
                        continue
                    try:
                        d = ast.literal_eval(st.value)
                    except ValueError:
                        continue
                    for k, v in d.items():
                        if isinstance(k, str) and isinstance(v, str):
                            out[k] = v
    return out


def toplevel_modules(reader, fs, tree):
    """Importable `tensorflow.X` modules that are not public names (python, core...)."""
    root = reader.locate(ROOT)
    reader.evaluate(root)
    cands = set(k.split(".")[1] for k in reader.sysmods if k.startswith(ROOT + "."))
    for d in root.pathdirs:
        pre = d + "/" if d else ""
        for f in list(fs.files) + list(fs.dirs):
            if f.startswith(pre):
                head = f[len(pre):].split("/")[0]
                head = head[:-3] if head.endswith(".py") else head
                cands.add(head)
    out = set()
    for c in cands:
        if re.match(r"^[A-Za-z_][A-Za-z0-9_]*$", c) and ROOT + "." + c not in tree \
                and c != "__init__" and reader.locate(ROOT + "." + c) is not None:
            out.add(c)
    return out


def importable_static(reader, tree, modkeys):
    """For module paths of the public tree: (importable, same object)."""
    out = {}
    for path, rec in tree.items():
        if rec[0] not in ("m", "x", "a", "h"):
            continue
        info = reader.locate(path)
        if info is None:
            out[path] = (False, False)
        else:
            out[path] = (True, info.key == modkeys.get(path))
    return out


# --------------------------------------------------------------------------
# Probe: runs inside the TensorFlow 1.8 interpreter (keep Python 3.6 syntax)
# --------------------------------------------------------------------------

def probe_tf18(out_path):
    import warnings
    warnings.simplefilter("ignore")
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
    import importlib
    import inspect
    import types
    import tensorflow as tf
    from tensorflow.python.util import tf_inspect

    def recurse_ok(mod):
        n = getattr(mod, "__name__", "") or ""
        return (n == "tensorflow" or n.startswith("tensorflow.contrib")
                or n.startswith("tensorflow.tools.api.generator.api"))

    def spec_of(fn, drop_self):
        try:
            s = tf_inspect.getfullargspec(fn)
        except Exception:
            return None
        args = list(s.args or [])
        if drop_self and args:
            args = args[1:]
        flags = []
        required = len(args) - len(s.defaults or ())
        if required > 0:
            flags.append("!%d" % required)  # positional parameters without a default
        if s.varargs:
            flags.append("*")
        if s.varkw:
            flags.append("**")
        return ",".join(args + ["%s=" % k for k in (s.kwonlyargs or [])]) + "|" + ",".join(flags)

    def refuses_the_rest(function, kwargs):
        """Whether the def refuses whatever is left in its **kwargs: a statement of its
        body `if kwargs:` (or `if len(kwargs):`) that raises (Keras's `Input`, `Model.fit`,
        `Tokenizer`: `raise TypeError('Unrecognized keyword arguments: ...')`)."""
        for node in function.body:
            if not isinstance(node, ast.If):
                continue
            test = node.test
            if isinstance(test, ast.Call) and isinstance(test.func, ast.Name) \
                    and test.func.id == "len" and len(test.args) == 1:
                test = test.args[0]
            if isinstance(test, ast.Name) and test.id == kwargs \
                    and any(isinstance(statement, ast.Raise) for statement in node.body):
                return True
        return False

    def read_keys(function, kwargs):
        """The keys the def reads out of its **kwargs (`kwargs.pop('nb_epoch')`,
        `'batch_shape' in kwargs`)."""
        keys = set()
        for node in ast.walk(function):
            if (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
                    and node.func.attr in ("pop", "get") and isinstance(node.func.value, ast.Name)
                    and node.func.value.id == kwargs and node.args and isinstance(node.args[0], ast.Str)):
                keys.add(node.args[0].s)
            elif (isinstance(node, ast.Compare) and isinstance(node.left, ast.Str)
                  and len(node.comparators) == 1 and isinstance(node.comparators[0], ast.Name)
                  and node.comparators[0].id == kwargs):
                keys.add(node.left.s)
        return keys

    def function_kwargs_policy(fn):
        """The keywords a function's (or method's) **kwargs may take, when its body
        refuses what is left of them after reading some out; None when that is not seen."""
        import textwrap
        try:
            function = ast.parse(textwrap.dedent(inspect.getsource(fn))).body[0]
        except Exception:
            return None
        if not isinstance(function, ast.FunctionDef) or function.args.kwarg is None:
            return None
        kwargs = function.args.kwarg.arg
        if not refuses_the_rest(function, kwargs):
            return None
        return sorted(read_keys(function, kwargs))

    def with_policy(sp, policy):
        """An argspec with **kwargs narrowed to the keywords `policy` lists."""
        named = set(sp.partition("|")[0].replace("=", "").split(","))
        return sp + "=" + ";".join(k for k in policy if k not in named)

    def kwargs_policy(cls):
        """The keywords a class's **kwargs may take, when every __init__ up its MRO hands
        **kwargs on until one checks them against a literal set (Keras's
        `allowed_kwargs`): that set, the parameters of each __init__ on the way and the keys
        they read out of kwargs (`kwargs.pop('input_dim')`). None when that is not seen."""
        import textwrap
        accepted = set()
        for klass in inspect.getmro(cls):
            init = vars(klass).get("__init__")
            if init is None:
                continue
            if klass is object:
                return None
            try:
                function = ast.parse(textwrap.dedent(inspect.getsource(init))).body[0]
            except Exception:
                return None
            if not isinstance(function, ast.FunctionDef) or function.args.kwarg is None:
                return None
            kwargs = function.args.kwarg.arg
            accepted.update(a.arg for a in function.args.args[1:] + function.args.kwonlyargs)
            allowed, passed_on = None, False
            for node in ast.walk(function):
                if (isinstance(node, ast.Assign) and isinstance(node.value, (ast.Set, ast.List, ast.Tuple))
                        and node.value.elts and all(isinstance(e, ast.Str) for e in node.value.elts)
                        and any(isinstance(t, ast.Name) and "allowed" in t.id for t in node.targets)):
                    allowed = set(e.s for e in node.value.elts)
                elif (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
                      and node.func.attr == "__init__" and any(
                          k.arg is None and isinstance(k.value, ast.Name) and k.value.id == kwargs
                          for k in node.keywords)):
                    passed_on = True
            accepted |= read_keys(function, kwargs)
            if allowed is None and refuses_the_rest(function, kwargs):
                allowed = set()  # what it read out of them, and its parameters, only
            if allowed is not None:
                return sorted(accepted | allowed)
            if not passed_on:
                return None
        return None

    tree = {}
    objs = {}
    ids = {}
    specs = {}
    classes = []
    class_paths = {}
    extra_bases = {}
    errors = []
    seen = {id(tf): ROOT}
    queue = collections.deque([(tf, ROOT)])
    tree[ROOT] = ["m"]
    objs[ROOT] = tf
    while queue:
        mod, path = queue.popleft()
        try:
            names = dir(mod)
        except Exception as e:
            errors.append([path, repr(e)])
            continue
        for n in names:
            if n.startswith("_"):
                continue
            p = path + "." + n
            try:
                v = getattr(mod, n)
            except Exception as e:
                errors.append([p, repr(e)])
                tree[p] = ["o"]
                continue
            if isinstance(v, types.ModuleType):
                objs[p] = v
                if id(v) in seen:
                    tree[p] = ["a", seen[id(v)]]
                elif recurse_ok(v):
                    seen[id(v)] = p
                    tree[p] = ["m"]
                    queue.append((v, p))
                else:
                    seen[id(v)] = p
                    tree[p] = ["x"]
                continue
            mname = getattr(v, "__module__", None)
            oname = getattr(v, "__name__", None)
            if ((inspect.isclass(v) or inspect.isfunction(v) or inspect.isbuiltin(v))
                    and isinstance(mname, str) and isinstance(oname, str)):
                ids[p] = mname + "." + oname
                tree[p] = ["s", ids[p]]
            else:
                tree[p] = ["o"]
            if inspect.isclass(v):
                init = getattr(v, "__init__", None)
                if init is not None and init is not object.__init__:
                    sp = spec_of(init, True)
                    if sp is not None and sp.endswith("**"):
                        # **kwargs checked against a set: the keywords it takes, listed.
                        policy = kwargs_policy(v)
                        if policy is not None:
                            sp = with_policy(sp, policy)
                    if sp is not None:
                        specs[p] = sp
                if not p.startswith(ROOT + ".contrib."):
                    if id(v) not in class_paths:
                        class_paths[id(v)] = p
                        classes.append((p, v))
                    else:
                        extra_bases[p] = [class_paths[id(v)]]
            elif callable(v):
                sp = spec_of(v, False)
                if sp is not None and sp.endswith("**"):
                    policy = function_kwargs_policy(v)
                    if policy is not None:
                        sp = with_policy(sp, policy)
                if sp is not None:
                    specs[p] = sp

    # Methods of core classes: those the class defines or inherits from
    # private classes; public base classes are listed under "^" instead.
    def method_fn(mv):
        if isinstance(mv, staticmethod):
            return mv.__func__, False
        if isinstance(mv, classmethod):
            return mv.__func__, True
        if inspect.isfunction(mv):
            return mv, True
        return None, False

    bases = dict(extra_bases)
    for p, cls in classes:
        after_public = False
        try:
            mro = inspect.getmro(cls)
        except Exception:
            continue
        for klass in mro:
            if klass is object:
                continue
            if klass is not cls and id(klass) in class_paths:
                bases.setdefault(p, []).append(class_paths[id(klass)])
                after_public = True
                continue
            if after_public:
                continue
            for mn, mv in sorted(vars(klass).items()):
                if mn.startswith("_") or (p + "." + mn) in specs:
                    continue
                fn, drop = method_fn(mv)
                if fn is None:
                    continue
                sp = spec_of(fn, drop)
                if sp is not None and sp.endswith("**"):
                    policy = function_kwargs_policy(fn)
                    if policy is not None:
                        sp = with_policy(sp, policy)
                if sp is not None:
                    specs[p + "." + mn] = sp
    # tensorflow.python.X -> defining object, to normalise static ids.
    tpy = sys.modules["tensorflow.python"]
    pymap = {}
    for n in dir(tpy):
        v = getattr(tpy, n, None)
        mname = getattr(v, "__module__", None)
        oname = getattr(v, "__name__", None)
        if isinstance(mname, str) and isinstance(oname, str) and not isinstance(v, types.ModuleType):
            pymap["tensorflow.python." + n] = mname + "." + oname
    # Which module paths can `import` load, and is it the same object?
    imports = {}
    for p, rec in sorted(tree.items()):
        if rec[0] not in ("m", "x", "a"):
            continue
        try:
            m = importlib.import_module(p)
        except Exception:
            imports[p] = [0]
            continue
        if m is objs.get(p):
            imports[p] = [1]
        else:
            imports[p] = [2, sorted(n for n in dir(m) if not n.startswith("_"))]
    with open(out_path, "w") as f:
        json.dump({"version": tf.__version__, "python": sys.version.split()[0], "tree": tree,
                   "specs": specs, "bases": bases, "pymap": pymap, "imports": imports, "errors": errors}, f)


# --------------------------------------------------------------------------
# Building the table
# --------------------------------------------------------------------------

def module_paths_of_wheel(fs, top="tensorflow"):
    """Every dotted module path that Python 3 can import from the wheel."""
    out = set([top])
    for f in fs.files:
        if not f.startswith(top + "/"):
            continue
        parts = f.split("/")
        if f.endswith(".py"):
            if parts[-1] == "__init__.py":
                parts = parts[:-1]
            else:
                parts[-1] = parts[-1][:-3]
        else:
            m = SO_RE.match(parts[-1])
            if not m:
                continue
            parts[-1] = m.group(1)
        if all(re.match(r"^[A-Za-z_][A-Za-z0-9_]*$", x) for x in parts):
            for i in range(1, len(parts) + 1):
                out.add(".".join(parts[:i]))
    return out


def to_tf(path):
    return "tf" + path[len(ROOT):] if path == ROOT or path.startswith(ROOT + ".") else path


def from_tf(name):
    return ROOT + name[2:] if name == "tf" or name.startswith("tf.") else name


class Table(object):
    """Per-version public trees (path -> record) plus defining-object ids."""

    def __init__(self, labels):
        self.labels = labels
        self.trees = {}
        self.ids = collections.defaultdict(dict)  # path -> {version: defining object id}
        self.toplevel = {}  # version -> importable tensorflow.X that are not API names

    def lookup(self, path, label):
        """Record for path in a version, following aliases.

        None when missing; ("x?",) below an opaque module and ("attr?",) below
        a non-module object (both: unknown, never reported).
        """
        tree = self.trees[label]
        parts = path.split(".")
        cur = parts[0]
        i = 1
        for _ in range(500):
            rec = tree.get(cur)
            if rec is None:
                return None
            if rec[0] == "a":
                tparts = rec[1].split(".")
                parts = tparts + parts[i:]
                i = len(tparts)
                cur = rec[1]
                continue
            if i >= len(parts):
                return rec
            if rec[0] == "x":
                return ("x?",)
            if rec[0] != "m":
                return ("attr?",)
            cur = cur + "." + parts[i]
            i += 1
        return None


def _probe(args, cache):
    """The TF 1.8 probe's output: read from --probe-json, or made by running the probe."""
    if args.probe_json and os.path.exists(args.probe_json) and not args.reprobe:
        with open(args.probe_json) as f:
            return json.load(f)
    out = args.probe_json or os.path.join(cache, "tf18_probe.json")
    os.makedirs(os.path.dirname(os.path.abspath(out)), exist_ok=True)  # (--argspecs-only
    # on a machine that never downloaded the wheels has no cache folder yet)
    log("probing TF 1.8 with", args.tf18_python)
    r = subprocess.run([args.tf18_python, os.path.abspath(__file__), "--probe-tf18", out])
    if r.returncode != 0:
        raise SystemExit("TF 1.8 probe failed")
    with open(out) as f:
        return json.load(f)


def build_specs(args):
    """tf18_argspecs.json alone: it depends on the TF 1.8 probe only, not on the wheels
    of the other releases that tf_api.json is read from."""
    probe = _probe(args, os.path.expanduser(args.cache))
    assert probe["version"] == "1.8.0", probe["version"]
    out_specs, nspecs = write_specs(probe, args.out)
    log("wrote %s (%d bytes, %d callables)" % (out_specs, os.path.getsize(out_specs), nspecs))


def build(args):
    t0 = time.time()
    cache = os.path.expanduser(args.cache)
    dl = Downloader(cache, offline=args.offline)
    labels = [v[0] for v in VERSIONS]
    if args.versions:
        keep = set(args.versions.split(","))
        keep.add(BASE)
        labels = [lab for lab in labels if lab in keep]
    table = Table(labels)
    imports = {}
    renames = {}
    wheels = {}
    probe = _probe(args, cache)
    assert probe["version"] == "1.8.0", probe["version"]
    pymap = probe["pymap"]
    base_modules = None
    static18 = None
    for label, req, pyver in VERSIONS:
        if label not in labels:
            continue
        log("== TF", label)
        whl = dl.get(req, pyver)
        fs = WheelFS()
        fs.add(whl)
        reqs = requires_dist(whl)
        comp_used = []

        def hook(top, fs=fs, reqs=reqs, pyver=pyver, comp_used=comp_used):
            for dist in COMPANIONS.get(top, ()):
                spec = reqs.get(dist.replace("_", "-"))
                if spec is None:
                    continue
                path = dl.get(dist + spec, pyver)
                fs.add(path)
                comp_used.append(os.path.basename(path))
                return True
            return False

        reader = Reader(fs, hook)
        tree, modkeys = walk_static(reader, label)
        wheels[label] = [os.path.basename(whl)] + comp_used
        for p, rec in tree.items():
            if rec[0] == "s":
                table.ids[p][label] = normalize_id(rec[1], pymap)
        imp = importable_static(reader, tree, modkeys)
        table.toplevel[label] = toplevel_modules(reader, fs, tree)
        if label == BASE:
            static18 = tree
            # Public names of 1.8's generated API package itself (what
            # `from tensorflow.tools.api.generator.api import *` brings in).
            table.gen_top18 = len(reader.names(reader.locate("tensorflow.tools.api.generator.api")))
            base_modules = module_paths_of_wheel(fs)
            # The live 1.8 namespace is the ground truth for 1.8.  Modules
            # reached twice under tf.contrib (implementation re-exports) are
            # kept as opaque modules rather than aliases.
            tree = {}
            for p, r in probe["tree"].items():
                if r[0] == "a" and p.startswith(ROOT + ".contrib."):
                    r = ["x"]
                tree[p] = tuple(r)
                if r[0] == "s":
                    table.ids[p][label] = r[1]
            imp = {}
            for p, r in probe["imports"].items():
                imp[p] = (bool(r[0]), r[0] == 1, r[1] if len(r) > 1 else None)
        table.trees[label] = tree
        imports[label] = imp
        renames.update(read_renames(fs))
        unresolved = sorted(x for x in reader.unresolved if x.split(".")[0] in (
            "tensorflow", "tensorflow_core", "keras", "tensorflow_estimator", "tensorboard"))
        if unresolved:
            log("  unresolved imports (left opaque):", unresolved[:6], "..." if len(unresolved) > 6 else "")
        log("  %d paths (%d modules, %d opaque, %d aliases); wheels %s" % (
            len(tree), sum(1 for r in tree.values() if r[0] == "m"),
            sum(1 for r in tree.values() if r[0] == "x"),
            sum(1 for r in tree.values() if r[0] == "a"), wheels[label]))
    return finish(args, table, imports, renames, wheels, probe, static18, base_modules, dl, t0)


def compute_replacements(table, renames, labels):
    """1.8 spelling for names absent from 1.8 (rules d, b, c; a is implicit).

    Returns path -> (replacement or None, note, versions in which the name is
    the very object of a 1.8 name).
    """
    base_tree = table.trees[BASE]

    def exists18(path):
        return table.lookup(path, BASE) is not None

    by_id = collections.defaultdict(list)
    for p, rec in base_tree.items():
        if rec[0] == "s":
            by_id[rec[1]].append(p)
    rev = collections.defaultdict(list)
    for old, new in renames.items():
        rev[from_tf(new)].append(from_tf(old))

    def rank(cands, name):
        last = name.rsplit(".", 1)[-1]

        def key(c):
            return (".contrib." in c, c.rsplit(".", 1)[-1] != last, c.count("."), len(c), c)
        return sorted(set(cands), key=key)

    hand = {}
    for k, v in HAND_REPLACEMENTS.items():
        hand[from_tf(k)] = (from_tf(v[0]) if v[0] else None, v[1])
        if v[0] is not None and not exists18(from_tf(v[0])):
            raise SystemExit("hand replacement %s for %s does not exist in 1.8" % (v[0], k))
        if exists18(from_tf(k)):
            raise SystemExit("hand list entry %s exists in 1.8" % k)
    out = {}
    all_paths = set(hand)
    for lab in labels:
        all_paths.update(p for p, r in table.trees[lab].items() if r[0] != "h")
    for p in sorted(all_paths):
        if exists18(p):
            continue
        # Versions in which p is the very object of some 1.8 name.
        same = collections.defaultdict(list)
        for label, sid in table.ids.get(p, {}).items():
            for c in by_id.get(sid, ()):
                same[c].append(label)
        if p in hand:
            r, note = hand[p]
            out[p] = (r, note, same.get(r, []))
            continue
        if p.startswith(ROOT + ".compat.v1.") or p.startswith(ROOT + ".compat.v2."):
            # Looked up at query time: (a) tensorflow.X, else X's replacement.
            continue
        if same:
            best = rank(same, p)[0]
            out[p] = (best, "the same function/class under its 1.8 name", same[best])
            continue
        olds = [o for o in rev.get(p, ()) if exists18(o)]
        if olds:
            best = rank(olds, p)[0]
            out[p] = (best, "tf_upgrade_v2 renames the 1.x name to this one", [])
    return out


def exports_of_1_7(dl):
    """Names `tf_export`ed by the TF 1.7 sources (1.7 has no generated API)."""
    label, req, pyver = PRE_VERSION
    whl = dl.get(req, pyver)
    z = zipfile.ZipFile(whl)
    names = set()
    for n in z.namelist():
        n2 = DATA_RE.sub("", n)
        if not (n2.startswith("tensorflow/python/") or n2.startswith("tensorflow/core/")) or not n2.endswith(".py"):
            continue
        src = z.read(n).decode("utf-8", "replace")
        for m in re.finditer(r"tf_export\(([^)]*)\)", src):
            for a in re.findall(r"['\"]([A-Za-z_][\w.]*)['\"]", m.group(1)):
                names.add(ROOT + "." + a)
    return names


def instance_of(tree, path):
    """(instance, relative path): 0 = the API root, 1 = compat.v1, 2 = compat.v2."""
    for k, pre in ((1, ROOT + ".compat.v1"), (2, ROOT + ".compat.v2")):
        if path.startswith(pre + ".") and tree.get(pre, ("",))[0] == "m":
            return k, path[len(pre) + 1:]
    return 0, path[len(ROOT) + 1:]


def encode_tree(table, imports, labels, mi):
    """Trie over instance-relative paths; masks have 3 bits per version."""
    nodes = {}
    for vi, l in enumerate(labels):
        tree = table.trees[l]
        for p, rec in tree.items():
            if p == ROOT:
                continue
            k, rel = instance_of(tree, p)
            b = 1 << (3 * vi + k)
            n = nodes.setdefault(rel, {"e": 0, "m": 0, "x": 0, "i": 0, "s": 0, "a": {}})
            if rec[0] == "h":
                continue  # importable only: just the importable bit below
            n["e"] |= b
            if rec[0] == "m" or (rec[0] == "a" and NEST_RE.match(p)):
                n["m"] |= b
            elif rec[0] == "x":
                n["x"] |= b
            elif rec[0] == "a":
                n["a"][rec[1]] = n["a"].get(rec[1], 0) | b
        for p, r in imports[l].items():
            if p == ROOT:
                continue
            k, rel = instance_of(tree, p)
            if rel not in nodes:
                continue
            b = 1 << (3 * vi + k)
            if r[0]:
                nodes[rel]["i"] |= b
            if r[1]:
                nodes[rel]["s"] |= b
    root = {}
    for rel in sorted(nodes):
        d = root
        parts = rel.split(".")
        for seg in parts[:-1]:
            d = d.setdefault(seg, {"": None})
        d.setdefault(parts[-1], {"": None})[""] = nodes[rel]

    def enc(node):
        n = node[""]
        kids = {k: enc(v) for k, v in sorted(node.items()) if k}
        if not kids and not (n["m"] or n["x"] or n["i"] or n["s"] or n["a"]):
            return mi(n["e"])
        out = [mi(n["e"]), mi(n["m"]), mi(n["x"]), kids or 0, mi(n["i"]), mi(n["s"]),
               [[t, mi(m)] for t, m in sorted(n["a"].items())]]
        while out and out[-1] in (0, []) and len(out) > 3:
            out.pop()
        return out
    return {k: enc(v) for k, v in root.items()}, len(nodes)


def encode_specs(probe):
    """1.8 argspecs as a trie over the path after 'tensorflow.'.

    A node is a spec index, or a dict of children where "" holds the node's own
    spec index and "^" the public base classes to search for methods.
    Contrib implementation modules (paths with a `python` segment) are skipped.
    """
    def skip(p):
        return p.startswith(ROOT + ".contrib.") and ".python." in p
    table = {}
    root = {}
    cut = len(ROOT) + 1

    def node_for(p):
        d = root
        for seg in p[cut:].split("."):
            d = d.setdefault(seg, {})
        return d
    n = 0
    for p in sorted(probe["specs"]):
        if skip(p):
            continue
        node_for(p)[""] = table.setdefault(probe["specs"][p], len(table))
        n += 1
    for p, bases in sorted(probe.get("bases", {}).items()):
        if not skip(p):
            node_for(p)["^"] = [b[cut:] for b in bases]

    def enc(d):
        kids = {k: (enc(v) if k not in ("", "^") else v) for k, v in sorted(d.items())}
        if set(kids) == set([""]):
            return kids[""]
        return kids
    return [s for s, _ in sorted(table.items(), key=lambda kv: kv[1])], enc(root), n


def finish(args, table, imports, renames, wheels, probe, static18, base_modules, dl, t0):
    labels = table.labels
    masks = {}

    def mi(m):
        if m not in masks:
            masks[m] = len(masks)
        return masks[m]
    mi(0)
    trie, nnodes = encode_tree(table, imports, labels, mi)
    repl = compute_replacements(table, renames, labels)
    notes = {}

    def ni(s):
        if s not in notes:
            notes[s] = len(notes)
        return notes[s]
    cut = len(ROOT) + 1
    repl_out = {}
    bit = {lab: 1 << (3 * i) for i, lab in enumerate(labels)}
    for p, (r, n, same) in sorted(repl.items()):
        entry = [r[cut:] if r else None, ni(n)]
        m = sum(bit[lab] for lab in set(same))
        if m:
            entry.append(mi(m))
        repl_out[p[cut:]] = entry
    # 1.8 core names (not modules, not contrib) that TF 1.7 did not tf_export.
    ex17 = exports_of_1_7(dl)
    new18 = sorted(p[cut:] for p, r in probe["tree"].items()
                   if r[0] in ("s", "o") and not p.startswith(ROOT + ".contrib")
                   and p not in ex17)
    top = collections.defaultdict(int)
    for i, lab in enumerate(labels):
        for n in table.toplevel.get(lab, ()):
            top[n] |= 1 << (3 * i)
    toplevel = {n: mi(m) for n, m in sorted(top.items())}
    names18 = {}
    for p, r in imports[BASE].items():
        if r[0] and not r[1] and r[2] is not None:
            names18[p] = r[2]
    mods18 = {}
    for p in sorted(base_modules):
        d = mods18
        for seg in p.split(".")[1:]:
            d = d.setdefault(seg, {})
    live = probe["tree"]
    counts = {
        "live_core_names": sum(1 for p in live if p != ROOT and p != ROOT + ".contrib"
                               and not p.startswith(ROOT + ".contrib.")),
        "live_contrib_names": sum(1 for p in live if p.startswith(ROOT + ".contrib.")),
        "live_top_level": sum(1 for p in live if p.count(".") == 1),
        "generated_all": sum(1 for p, r in static18.items() if p != ROOT and p != ROOT + ".contrib"
                             and not p.startswith(ROOT + ".contrib.") and r[0] != "h"),
        "generated_top_level": sum(1 for p, r in static18.items() if p.count(".") == 1 and r[0] != "h"),
        "generated_api_module_names": table.gen_top18,
    }
    data = {
        "format": 1,
        "doc": "Generated by tools/gen_tf_api.py; do not edit.  See cglint/tfapi.py for the layout.",
        "versions": labels,
        "base": BASE,
        "wheels": wheels,
        "masks": [m for m, _ in sorted(masks.items(), key=lambda kv: kv[1])],
        "tree": trie,
        "replacements": repl_out,
        "notes": [n for n, _ in sorted(notes.items(), key=lambda kv: kv[1])],
        "imports_names18": names18,
        "imports_toplevel": toplevel,
        "new_in_18": new18,
        "exports17": len(ex17),
        "modules18": mods18,
        "counts18": counts,
    }
    os.makedirs(args.out, exist_ok=True)
    out_main = os.path.join(args.out, "tf_api.json")
    with open(out_main, "w") as f:
        json.dump(data, f, separators=(",", ":"))
        f.write("\n")
    out_specs, nspecs = write_specs(probe, args.out)
    dt = time.time() - t0
    log("wrote %s (%d bytes) and %s (%d bytes, %d callables)" % (
        out_main, os.path.getsize(out_main), out_specs, os.path.getsize(out_specs), nspecs))
    log("nodes: %d, masks: %d, replacements: %d, renames read: %d" % (
        nnodes, len(masks), len(repl_out), len(renames)))
    log("1.8 counts:", counts)
    if static18 is not None:
        livec = set(p for p in live if not p.startswith(ROOT + ".contrib"))
        stat = set(p for p, r in static18.items() if not p.startswith(ROOT + ".contrib") and r[0] != "h")
        log("1.8 generated-only names (not reachable live):", sorted(stat - livec)[:20])
        log("1.8 live-only core names (not in generated files):", sorted(livec - stat)[:20])
    log("downloaded this run: %.1f MB; wheel files used: %d (%.1f MB); %.1f s" % (
        dl.downloaded_bytes / 1e6, len(dl.used),
        sum(os.path.getsize(os.path.join(dl.cache, f)) for f in dl.used) / 1e6, dt))


def write_specs(probe, out_dir):
    """Write tf18_argspecs.json from the TF 1.8 probe alone: (its path, callables)."""
    spec_table, spec_trie, nspecs = encode_specs(probe)
    specs = {"format": 1, "version": "1.8.0", "python": probe["python"],
             "doc": "Generated by tools/gen_tf_api.py; do not edit.  Argspecs of TF 1.8 "
                    "public callables, as 'params|flags': params are the positional-or-keyword "
                    "parameter names (a class entry describes __init__ without self), flags "
                    "'!N' = the first N parameters have no default, "
                    "'*' = *args and '**' = **kwargs, '**=a;b' = **kwargs that takes only a and "
                    "b (checked against a set, as Keras does).  Trie over the path after 'tensorflow.'; "
                    "a node that is both a callable and a module holds its index under ''.",
             "specs": spec_table, "tree": spec_trie}
    os.makedirs(out_dir, exist_ok=True)
    out_specs = os.path.join(out_dir, "tf18_argspecs.json")
    with open(out_specs, "w") as f:
        json.dump(specs, f, separators=(",", ":"))
        f.write("\n")
    return out_specs, nspecs


def default_tf18_python():
    """The oracle's py36 interpreter (`cglint confirm --setup` builds it)."""
    root = os.path.expanduser(os.environ.get("CGLINT_CACHE_DIR") or "~/.cache/cglint")
    return os.path.join(root, "py36", "bin", "python")


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--probe-tf18", metavar="OUT", help=argparse.SUPPRESS)
    ap.add_argument("--cache", default="~/.cache/cglint/wheels",
                    help="wheel cache directory (outside the repository)")
    ap.add_argument("--tf18-python", default=default_tf18_python(),
                    help="a Python with tensorflow==1.8.0 installed (default: the py36 env "
                         "that `cglint confirm --setup` builds, %(default)s)")
    ap.add_argument("--probe-json", help="reuse/write the TF 1.8 probe output here")
    ap.add_argument("--reprobe", action="store_true", help="rerun the probe even if --probe-json exists")
    repo = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    ap.add_argument("--out", default=os.path.join(repo, "cglint", "data"),
                    help="output directory (default: %(default)s)")
    ap.add_argument("--offline", action="store_true", help="use only cached wheels")
    ap.add_argument("--versions", help="comma list of versions to read (debugging; 1.8 always)")
    ap.add_argument("--argspecs-only", action="store_true",
                    help="write only tf18_argspecs.json, from the TF 1.8 probe (no wheels)")
    args = ap.parse_args(argv)
    if args.probe_tf18:
        probe_tf18(args.probe_tf18)
        return
    if args.argspecs_only:
        build_specs(args)
        return
    build(args)


if __name__ == "__main__":
    main()
