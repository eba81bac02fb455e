"""Find or build the TensorFlow 1.8 interpreters (`py27`, `py36`) that run fixtures.

Built envs live outside the repo in `~/.cache/cglint/<name>` (or $CGLINT_CACHE_DIR).
A build goes into a temporary folder that is renamed into place only after
`import tensorflow` worked there, so an interrupted build never looks usable.
"""
import fcntl
import glob
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor

from cglint import interrupts
from cglint.oracle.headers import INTERPRETERS

TF_VERSION = "1.8.0"
VERSIONS = {"py27": "2.7", "py36": "3.6"}
# Measured recipes (shared/tf18-facts.md §3): pip 18.1 in a fresh 3.6 venv cannot
# resolve TF's deps; unpinned grpcio on 2.7 compiles an sdist for minutes.
PACKAGES = {"py36": ["tensorflow==" + TF_VERSION], "py27": ["tensorflow==" + TF_VERSION, "grpcio<1.40"]}
VIRTUALENV = "virtualenv==16.7.12"  # legacy one-file virtualenv: runs from a --target folder under 2.7
STAMP = "cglint-stamp.json"
# Kept in the interpreters' environment; everything else (tokens, keys) is dropped.
KEEP_ENV = ("PATH", "LANG", "LANGUAGE", "LC_ALL", "LC_CTYPE", "TZ", "TERM",
            "LD_LIBRARY_PATH", "CUDA_VISIBLE_DEVICES")

PROBE = """
import json, sys
info = {"python": "%d.%d" % sys.version_info[:2]}
try:
    import tensorflow as tf
    info["tf"] = tf.__version__
except Exception as exc:
    info["error"] = "%s: %s" % (type(exc).__name__, exc)
print(json.dumps(info))
"""


class EnvError(Exception):
    """An interpreter that cannot be found, built or used; the message says what to do."""


def clean_env(home):
    """The environment TF 1.8 interpreters run in: no inherited secrets, HOME elsewhere."""
    env = {key: os.environ[key] for key in KEEP_ENV if key in os.environ}
    env.setdefault("PATH", os.defpath)
    env.setdefault("LANG", "C.UTF-8")
    env.update(HOME=home, TMPDIR=home, PYTHONIOENCODING="utf-8", PYTHONDONTWRITEBYTECODE="1")
    return env


def cache_root(override=None):
    return os.path.abspath(os.path.expanduser(
        override or os.environ.get("CGLINT_CACHE_DIR") or "~/.cache/cglint"))


def tf_pythons_from_env():
    return [path for path in os.environ.get("CGLINT_TF_PYTHON", "").split(os.pathsep) if path]


def explain_import_error(error):
    if re.search(r"libcu\w*\.so|CUDA", error):
        return ("tensorflow-gpu 1.8 needs CUDA 9 libraries (libcublas.so.9.0 ...) which this "
                "machine lacks; use the CPU build tensorflow==1.8.0")
    lines = [line for line in error.splitlines() if line.strip()]
    return "import tensorflow failed: %s" % (lines[-1] if lines else error)


def probe(python):
    """{"python": "3.6", "tf": "1.8.0"} or {"python": "3.6", "error": ...}; EnvError if it
    cannot run, whose message follows the interpreter's path ("PATH did not run ...")."""
    with tempfile.TemporaryDirectory(prefix="cglint-probe-") as home:
        try:
            proc = subprocess.run([python, "-s", "-c", PROBE], cwd=home, env=clean_env(home),
                                  stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=300)
        except OSError as exc:
            raise EnvError("cannot be run: %s" % (exc.strerror or exc))
        except subprocess.TimeoutExpired as exc:
            raise EnvError("did not answer within %g s" % exc.timeout)
    lines = proc.stdout.decode("utf-8", "replace").strip().splitlines()
    try:
        info = json.loads(lines[-1])
    except (IndexError, ValueError):
        raise EnvError("did not run (%s)" % _how_it_ended(proc))
    if "error" not in info and info["tf"] != TF_VERSION:
        info["error"] = "it has TensorFlow %s, not %s" % (info["tf"], TF_VERSION)
    elif "error" in info:
        info["error"] = explain_import_error(info["error"])
    return info


def _how_it_ended(proc):
    """`exit 1: <the end of its stderr>`, or `killed by signal 9, no output`."""
    status = ("exit %d" % proc.returncode if proc.returncode >= 0
              else "killed by signal %d" % -proc.returncode)
    said = (proc.stderr.strip() or proc.stdout.strip())[-500:].decode("utf-8", "replace")
    return "%s: %s" % (status, said) if said else "%s, no output" % status


def verified(python):
    try:
        info = probe(python)
    except EnvError as exc:
        raise EnvError("%s %s" % (python, exc))
    if "error" in info:
        raise EnvError("%s (Python %s): %s" % (python, info["python"], info["error"]))
    return info


def given_interpreters(pythons, names=INTERPRETERS):
    """Name user-given TF 1.8 interpreters by Python version: ({name: path}, {name or path: error})."""
    found, errors = {}, {}
    with ThreadPoolExecutor(max(1, len(pythons))) as pool:
        futures = [pool.submit(_try_probe, python) for python in pythons]
        probes = [interrupts.result(future) for future in futures]
    for python, info in zip(pythons, probes):
        name = {version: key for key, version in VERSIONS.items()}.get(info.get("python"))
        if "error" in info:  # without a name, the path is the key: not said twice
            errors[name or python] = "%s: %s" % (python, info["error"]) if name else info["error"]
        elif name is None:
            errors[python] = "%s is Python %s; TF 1.8 fixtures run on 2.7 or 3.6" % (python, info["python"])
        elif name in found:
            errors[name] = "two %s interpreters given: %s and %s" % (name, found[name], python)
        else:
            found[name] = os.path.abspath(python)
    for name in names:
        if name not in found and name not in errors:
            errors[name] = ("no Python %s among the given TF interpreters (--tf-python, CGLINT_TF_PYTHON)"
                            % VERSIONS[name])
    return {name: path for name, path in found.items() if name in names}, errors


def _try_probe(python):
    try:
        return probe(python)
    except EnvError as exc:
        return {"error": str(exc)}


def find_interpreters(names=INTERPRETERS, tf_pythons=(), cache_dir=None, log=sys.stderr):
    """({name: python path}, {name or path: error}) for the interpreters named.

    Uses `tf_pythons` when given, else the cached envs, building missing or broken ones.
    """
    if tf_pythons:
        return given_interpreters(list(tf_pythons), names)
    found, errors = {}, {}
    with ThreadPoolExecutor(max(1, len(names))) as pool:
        futures = {name: pool.submit(ensure_env, name, cache_dir, log) for name in names}
        interrupts.wait(list(futures.values()))  # before the pool's join, which sits on a stop
    for name, future in futures.items():
        try:
            found[name] = future.result()
        except EnvError as exc:
            errors[name] = str(exc)
    return found, errors


def ensure_env(name, cache_dir=None, log=sys.stderr):
    """Path of the cached `name` interpreter, built first when missing or broken."""
    root = cache_root(cache_dir)
    os.makedirs(root, exist_ok=True)
    target, python = os.path.join(root, name), env_python(root, name)
    with open(os.path.join(root, name + ".lock"), "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # another cglint may be building the same env
        stamp = _read_stamp(target)
        if stamp and stamp["fingerprint"] == _fingerprint(target) and os.path.exists(stamp["base"]):
            return python
        if stamp:
            try:  # pip changed something in it since: still usable?
                _write_stamp(target, verified(python), stamp["base"])
                return python
            except EnvError as exc:
                log.write("cglint: cached %s env is broken (%s); rebuilding\n" % (name, exc))
        _build(name, root, log)
        return python


def env_python(root, name):
    return os.path.join(root, name, "bin", "python")


def _fingerprint(target):
    """Changes whenever pip adds or removes anything in the env's site-packages."""
    sites = glob.glob(os.path.join(target, "lib", "python*", "site-packages"))
    return [os.stat(path).st_mtime_ns for path in sorted(sites)]


def _read_stamp(target):
    try:
        with open(os.path.join(target, STAMP)) as handle:
            stamp = json.load(handle)
        return stamp if {"base", "fingerprint"} <= set(stamp) else None
    except (OSError, ValueError):
        return None


def _write_stamp(target, info, base):
    with open(os.path.join(target, STAMP), "w") as handle:
        json.dump(dict(info, base=base, fingerprint=_fingerprint(target)), handle)


def _build(name, root, log):
    base = base_python(name)
    for stale in glob.glob(os.path.join(root, ".%s.build-*" % name)):
        shutil.rmtree(stale, ignore_errors=True)  # left by an interrupted build; we hold the lock
    started = time.time()
    log.write("building %s TF 1.8 env in %s (about a minute)...\n" % (name, os.path.join(root, name)))
    log.flush()
    tmp = tempfile.mkdtemp(prefix=".%s.build-" % name, dir=root)
    build_log = os.path.join(root, name + "-build.log")
    try:
        with open(build_log, "w") as out:
            if name == "py27":
                tool = _virtualenv_tool(base, root, out)
                _step(out, [base, tool, "--no-download", tmp])
            else:
                _step(out, [base, "-m", "venv", tmp])
                _step(out, [os.path.join(tmp, "bin", "python"), "-m", "pip", "install", "-U", "pip<22"])
            _step(out, [os.path.join(tmp, "bin", "python"), "-m", "pip", "install"] + PACKAGES[name])
        _write_stamp(tmp, verified(os.path.join(tmp, "bin", "python")), base)
        target = os.path.join(root, name)
        shutil.rmtree(target, ignore_errors=True)
        os.rename(tmp, target)
    except subprocess.CalledProcessError as exc:
        raise EnvError("building the %s env failed: %s\n%s(full log: %s)"
                       % (name, " ".join(exc.cmd), _tail(build_log), build_log))
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    log.write("%s env ready (%.0f s)\n" % (name, time.time() - started))


def _virtualenv_tool(base, root, out):
    """virtualenv 16 installed with the base 2.7 itself (2.7 has no `venv`)."""
    tool = os.path.join(root, "tools", "virtualenv16")
    if not os.path.exists(os.path.join(tool, "virtualenv.py")):
        for stale in glob.glob(os.path.join(root, ".virtualenv16-*")):
            shutil.rmtree(stale, ignore_errors=True)
        tmp = tempfile.mkdtemp(prefix=".virtualenv16-", dir=root)
        try:
            _step(out, [base, "-m", "pip", "install", "--disable-pip-version-check", "--target", tmp, VIRTUALENV])
            os.makedirs(os.path.dirname(tool), exist_ok=True)
            shutil.rmtree(tool, ignore_errors=True)
            os.rename(tmp, tool)
        finally:
            shutil.rmtree(tmp, ignore_errors=True)
    return os.path.join(tool, "virtualenv.py")


def _step(out, command):
    out.write("$ %s\n" % " ".join(command))
    out.flush()
    full_env = {key: value for key, value in os.environ.items()
                if key not in ("PYTHONPATH", "PYTHONHOME", "VIRTUAL_ENV", "PIP_USER")}
    subprocess.run(command, stdout=out, stderr=subprocess.STDOUT, env=full_env, check=True)


def _tail(path, lines=15):
    with open(path, errors="replace") as handle:
        return "".join(handle.readlines()[-lines:])


def base_python(name):
    """A plain Python 2.7 or 3.6 to build from: pyenv's newest patch release, else PATH."""
    version = VERSIONS[name]
    candidates = []
    for root in _pyenv_roots():
        found = glob.glob(os.path.join(root, "versions", version + ".*", "bin", "python" + version))
        candidates += sorted(found, key=_patch_level, reverse=True)
    on_path = shutil.which("python" + version)
    if on_path:
        candidates.append(on_path)
    for candidate in candidates:
        if _python_version(candidate) == version:
            return candidate
    latest = {"2.7": "2.7.18", "3.6": "3.6.15"}[version]
    raise EnvError("no Python %s found to build the %s TF 1.8 env: install it with "
                   "`pyenv install %s` (or put python%s on PATH, or pass --tf-python PATH)"
                   % (version, name, latest, version))


def _pyenv_roots():
    roots = []
    if shutil.which("pyenv"):
        try:
            roots.append(subprocess.run(["pyenv", "root"], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                                        timeout=30).stdout.decode().strip())
        except (OSError, subprocess.TimeoutExpired):
            pass
    roots += [os.environ.get("PYENV_ROOT", ""), os.path.expanduser("~/.pyenv")]
    unique = []
    for root in roots:
        if root and os.path.isdir(root) and root not in unique:
            unique.append(root)
    return unique


def _patch_level(path):
    match = re.search(r"/versions/\d+\.\d+\.(\d+)/", path)
    return int(match.group(1)) if match else -1


def _python_version(python):
    try:
        proc = subprocess.run([python, "-c", "import sys; print('%d.%d' % sys.version_info[:2])"],
                              stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, timeout=60)
    except (OSError, subprocess.TimeoutExpired):
        return None
    return proc.stdout.decode().strip() if proc.returncode == 0 else None
