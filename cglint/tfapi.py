"""Which TensorFlow names exist in which release: the API version table.

The data (``cglint/data/tf_api.json`` and ``tf18_argspecs.json``) is generated
by ``tools/gen_tf_api.py`` from the released wheels (TF 1.8 ... 2.15, with the
tensorflow-estimator / keras / tensorboard wheels later releases delegate to)
and from a walk of the live TF 1.8 namespace; it is loaded lazily, once.

Names are dotted paths under the module ``tensorflow`` (``tensorflow.math.log``;
``tf.math.log`` is accepted too).  The public functions:

* ``exists(name, target="1.8")`` -- False only when the name is known to be
  missing from ``target``.  Names under ``tf.contrib`` count (1.8's contrib is
  walked fully; in 1.9-1.15 only contrib's top level is listed and anything
  below it is taken to exist), and so do unknown attributes of non-module
  objects (``tf.Variable.assign``).
* ``missing(name, target="1.8")`` -- None when the name exists, else a
  :class:`Missing` for the *topmost* missing prefix, with the first and last
  release that has that prefix and a spelling that works in ``target``.
* ``accepts_keyword(name, keyword, target="1.8")`` -- True / False / None
  (unknown) from the recorded TF 1.8 argspecs (other targets: None).
  ``signature(name)`` gives the recorded 1.8 parameter names, and
  ``unpassed_required(name, positional, keywords)`` those a call leaves out that
  1.8 requires.
* ``import_fails(module, target="1.8", name=None)`` -- whether ``import
  module`` (or ``from module import name``) raises ImportError in ``target``;
  None when unknown.  1.8 is exact (every module file of the wheel, and what
  the live interpreter imported); later releases come from emulating the
  import system over the wheel (checked against real 1.15, 2.0 and 2.12).
* ``spellings(last, target="1.8")`` -- every name in ``target`` whose last
  segment is ``last``, core names first (``moments`` -> ``tf.nn.moments``).
* ``status`` (EXISTS / MISSING / UNKNOWN), ``history`` (status per release),
  ``children`` (names in a module), ``same_object_versions`` (releases where a
  newer name is the very object of its 1.8 spelling, e.g. tf.print in 1.9),
  ``in_1_7`` (approximate: did 1.7 already export a 1.8 core name),
  ``versions``, ``normalize_version`` (clear ValueError for unknown versions).

Limits: 1.8 is the oldest release in the table (1.7 only through
``in_1_7``); below ``tf.contrib`` only 1.8 is enumerated; argspecs exist for
1.8 only; ``tf.app.flags`` and other non-generated modules are opaque (any
attribute is taken to exist); private names (``_RealValuedColumn``) are not
enumerated, so they are UNKNOWN, never MISSING.  What ``import`` reaches in
1.8 beyond attribute access is ``cglint.tfimports``'s business.

Data layout (tf_api.json): ``tree`` is a trie over paths relative to an *API
root*; each version has three roots (instances): ``tensorflow`` itself (0),
``tensorflow.compat.v1`` (1) and ``tensorflow.compat.v2`` (2), and version
number ``i`` instance ``k`` is bit ``3*i+k`` of the masks (``masks`` holds the
distinct bitmasks, nodes refer to them by index).  A node is either a mask
index (a name that exists where the bit is set) or ``[exists, module, opaque,
children, importable, same_object, aliases]`` (trailing defaults dropped):
``module`` -- an enumerated module there; ``opaque`` -- a module whose
children are not enumerated; ``importable`` -- ``import tensorflow.<path>``
works; ``same_object`` -- and gives the very object reached by attribute
access; ``aliases`` -- ``[[target path, mask]]`` where the node is the same
module as another path.  Reaching ``compat.v1``/``compat.v2`` from any root
switches to that instance.  A node with an ``importable`` bit but no
``exists`` bit is a subpackage that only ``import`` reaches.
``replacements`` maps names absent from 1.8 (relative to ``tensorflow.``) to
``[1.8 spelling, note index, releases where it is that very object]``;
``modules18`` is a trie of every module file the 1.8 wheel can import,
``imports_names18`` lists the names of the importable 1.8 modules that are
not the objects attribute access gives, ``imports_toplevel`` the private
``tensorflow.X`` packages of each release, ``new_in_18`` the 1.8 core names
1.7 did not ``tf_export``, ``counts18`` the name counts of 1.8.
"""
import functools
import json
import os
import re
from dataclasses import dataclass
from typing import Optional

__all__ = ["Missing", "exists", "missing", "accepts_keyword", "signature", "import_fails",
           "status", "history", "versions", "normalize_version", "same_object_versions",
           "in_1_7", "children", "spellings", "EXISTS", "MISSING", "UNKNOWN"]

_DATA_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data")
EXISTS, MISSING, UNKNOWN = "exists", "missing", "unknown"
_ROOT = "tensorflow"


@dataclass(frozen=True)
class Missing:
    """A name absent from the target release.

    ``name`` is the topmost missing prefix of ``qualname`` (the dotted name that
    was asked about); ``first``/``last`` are the first and last releases in the
    table that have ``name`` (None if none does); ``replacement`` is a dotted
    name for the whole ``qualname`` that exists in ``target`` (None if there is
    none); ``note`` explains the replacement or the history; ``unlisted`` are the
    releases where the table does not enumerate ``name``'s parent (contrib below its
    top level after 1.8), so that ``name`` may be there.
    """
    qualname: str
    name: str
    target: str
    first: Optional[str]
    last: Optional[str]
    replacement: Optional[str]
    note: Optional[str]
    unlisted: tuple = ()


class _Table:
    def __init__(self, path):
        with open(path, encoding="utf-8") as f:
            d = json.load(f)
        self.versions = d["versions"]
        self.base = d["base"]
        self.masks = d["masks"]
        self.tree = d["tree"]
        self.replacements = d["replacements"]
        self.notes = d["notes"]
        self.names18 = d["imports_names18"]
        self.toplevel = d["imports_toplevel"]
        self.modules18 = d["modules18"]
        self.counts18 = d["counts18"]
        self.wheels = d["wheels"]
        self.new_in_18 = d["new_in_18"]
        self.new18 = None
        self.index = {v: i for i, v in enumerate(self.versions)}
        self.specs = None
        self.by_last = {}

    # -- the trie walk -------------------------------------------------------
    def node(self, rel_segs, vi):
        """Walk the table for path segments after 'tensorflow' in version vi.

        Returns (code, index, node, instance): code is EXISTS / MISSING /
        UNKNOWN; for MISSING, index is the position (in rel_segs) of the first
        missing segment.  node/instance describe the last node for EXISTS.
        """
        masks = self.masks
        cur = list(rel_segs)
        orig = list(range(len(cur)))
        for _ in range(32):  # alias rewrites
            k = 0
            kids = self.tree
            rel_len = 0
            prev = None
            i = 0
            rewritten = False
            node = None
            while i < len(cur):
                seg = cur[i]
                if seg.startswith("__") and seg.endswith("__"):
                    return UNKNOWN, None, None, k
                node = kids.get(seg) if kids else None
                b = 1 << (3 * vi + k)
                if node is None:
                    return self.missing_or_private(i, k, vi, orig[i], None, seg)
                if isinstance(node, int):
                    e, m, x, kids2, al = masks[node], 0, 0, None, None
                else:
                    e, m, x = masks[node[0]], masks[node[1]], masks[node[2]]
                    kids2 = node[3] if len(node) > 3 and node[3] else None
                    al = node[6] if len(node) > 6 else None
                if not e & b:
                    return self.missing_or_private(i, k, vi, orig[i], node, seg)
                if al:
                    for target, mk in al:
                        if masks[mk] & b:
                            tsegs = target.split(".")[1:]
                            cur = tsegs + cur[i + 1:]
                            orig = [orig[i]] * len(tsegs) + orig[i + 1:]
                            rewritten = True
                            break
                    if rewritten:
                        break
                i += 1
                if i == len(cur):
                    return EXISTS, None, node, k
                if x & b:
                    return UNKNOWN, None, None, k
                if not m & b:
                    return UNKNOWN, None, None, k  # attribute of a non-module object
                if rel_len == 1 and prev == "compat" and seg in ("v1", "v2"):
                    k = 1 if seg == "v1" else 2
                    kids = self.tree
                    rel_len = 0
                    prev = None
                    continue
                rel_len += 1
                prev = seg
                kids = kids2
            if not rewritten:
                return EXISTS, None, node, k
        return UNKNOWN, None, None, 0

    def missing_or_private(self, i, k, vi, j, node, seg):
        """MISSING, except for tensorflow.X subpackages (python, tools, ...)
        that the import system may leave as attributes in releases read from
        wheels only (1.8's live walk is exact), and UNKNOWN for a private name
        (`_RealValuedColumn`): the walks record public names only."""
        if seg.startswith("_"):
            return UNKNOWN, None, None, k
        if i == 0 and k == 0 and vi != self.index[self.base] and j == 0:
            mk = self.toplevel.get(seg)
            if mk is not None and self.masks[mk] >> (3 * vi) & 1:
                return UNKNOWN, None, None, k
        return MISSING, j, node, k

    def load_specs(self):
        if self.specs is None:
            with open(os.path.join(_DATA_DIR, "tf18_argspecs.json"), encoding="utf-8") as f:
                self.specs = json.load(f)
        return self.specs


_TABLE = None


def _table():
    global _TABLE
    if _TABLE is None:
        _TABLE = _Table(os.path.join(_DATA_DIR, "tf_api.json"))
    return _TABLE


def versions():
    """The releases in the table, oldest first ("1.8", "1.9", ..., "2.15")."""
    return list(_table().versions)


def normalize_version(target):
    """'1.8', '1.8.0', 'v2.3.1', (1, 8) -> the table's 'major.minor' label.

    Raises ValueError naming the known versions for anything else.
    """
    if isinstance(target, str):
        return _normalize_text(target)  # asked for every import and API use: cached
    return _normalize(target)


@functools.lru_cache(maxsize=64)
def _normalize_text(target):
    return _normalize(target)


def _normalize(target):
    t = _table()
    if isinstance(target, (tuple, list)):
        target = ".".join(str(x) for x in target)
    s = str(target).strip().lstrip("vV")
    m = re.match(r"^(\d+)\.(\d+)(?:\.\d+)?(?:[.\-]?(?:rc|a|b|dev|post)\d*)?$", s)
    label = "%d.%d" % (int(m.group(1)), int(m.group(2))) if m else None
    if label not in t.index:
        raise ValueError("unknown TensorFlow version %r; the table has %s" % (
            target, ", ".join(t.versions)))
    return label


def _split(qualname):
    q = qualname.strip()
    if q == "tf" or q.startswith("tf."):
        q = _ROOT + q[2:]
    segs = q.split(".")
    if segs[0] != _ROOT or not all(segs):
        raise ValueError("not a dotted name under 'tensorflow': %r" % (qualname,))
    return segs[1:]


def status(qualname, target="1.8"):
    """EXISTS, MISSING or UNKNOWN (below an opaque module or a non-module)."""
    t = _table()
    code, _, _, _ = t.node(_split(qualname), t.index[normalize_version(target)])
    return code


@functools.lru_cache(maxsize=65536)  # a module asks about the same names again and again
def exists(qualname, target="1.8"):
    """False only if ``qualname`` is known to be missing from ``target``."""
    return status(qualname, target) != MISSING


def history(qualname):
    """{version: EXISTS / MISSING / UNKNOWN} over every release in the table."""
    t = _table()
    segs = _split(qualname)
    return {v: t.node(segs, i)[0] for i, v in enumerate(t.versions)}


def children(qualname, target="1.8"):
    """Sorted public names directly inside module ``qualname`` in ``target``.

    Empty when ``qualname`` is not an enumerated module there (missing,
    opaque, or not a module).
    """
    t = _table()
    vi = t.index[normalize_version(target)]
    segs = _split(qualname)
    if t.node(segs, vi)[0] != EXISTS:
        return []
    cands = set()

    def collect(ss, depth):
        code, _, node, _ = t.node(ss, vi)
        if isinstance(node, list):
            if len(node) > 3 and node[3]:
                cands.update(node[3])
            for target_path, mk in (node[6] if len(node) > 6 else ()):
                if t.masks[mk] >> (3 * vi) & 7 and depth < 8:
                    collect(target_path.split(".")[1:], depth + 1)
    collect(segs, 0)
    if not segs or (len(segs) >= 2 and segs[-2] == "compat" and segs[-1] in ("v1", "v2")):
        cands.update(t.tree)
    return sorted(n for n in cands if t.node(segs + [n], vi)[0] == EXISTS)


def _span(t, segs):
    present = [v for i, v in enumerate(t.versions) if t.node(segs, i)[0] == EXISTS]
    maybe = [v for i, v in enumerate(t.versions) if t.node(segs, i)[0] == UNKNOWN]
    return present, maybe


def _dotted(segs):
    return ".".join([_ROOT] + list(segs))


def _replacement(t, segs, vi):
    """A spelling of segs that exists in version vi, and why (or None, note)."""
    segs = list(segs)
    label = t.versions[vi]
    cand = []
    fallback_note = None

    def stored(rel_segs):
        nonlocal fallback_note
        r = t.replacements.get(".".join(rel_segs))
        if r is None:
            return
        if r[0]:
            cand.append((r[0].split("."), t.notes[r[1]]))
        elif fallback_note is None:
            fallback_note = t.notes[r[1]]

    if len(segs) > 2 and segs[0] == "compat" and segs[1] in ("v1", "v2"):
        rest = segs[2:]
        cand.append((rest, "tf.compat.%s.%s is tf.%s in %s" % (
            segs[1], ".".join(rest), ".".join(rest), label)))
        stored(segs)
        stored(rest)
    else:
        stored(segs)
        cand.append((["compat", "v1"] + segs, "removed from the TF 2 root; tf.compat.v1 keeps it"))
    for s, note in cand:
        if s != segs and t.node(s, vi)[0] == EXISTS:
            return _dotted(s), note
    # Below an opaque module (contrib in 1.9-1.15): probably fine, say so.
    for s, note in cand:
        if s != segs and t.node(s, vi)[0] == UNKNOWN and s[0] == "contrib":
            return _dotted(s), note
    return None, fallback_note


@functools.lru_cache(maxsize=65536)  # a module asks about the same names again and again
def missing(qualname, target="1.8"):
    """None if ``qualname`` exists in ``target``, else a :class:`Missing`."""
    t = _table()
    label = normalize_version(target)
    vi = t.index[label]
    segs = _split(qualname)
    code, j, _, _ = t.node(segs, vi)
    if code != MISSING:
        return None
    prefix = segs[:j + 1]
    present, maybe = _span(t, prefix)
    repl, note = _replacement(t, segs, vi)
    name = _dotted(prefix)
    if not present:
        hist = "%s is not in any release from %s to %s" % (_short(name), t.versions[0], t.versions[-1])
        if maybe:
            hist += " (it may exist in %s, where its parent is not enumerated)" % ", ".join(maybe)
        note = hist + ("; " + note if note else "")
    return Missing(qualname=qualname, name=name, target=label,
                   first=present[0] if present else None,
                   last=present[-1] if present else None,
                   replacement=repl, note=note, unlisted=tuple(maybe))


def _short(name):
    return "tf" + name[len(_ROOT):] if name.startswith(_ROOT) else name


def same_object_versions(qualname):
    """Releases in which ``qualname`` (absent from 1.8) is the very object
    that its 1.8 replacement names, e.g. ``tf.print`` in 1.9 is ``tf.Print``."""
    t = _table()
    r = t.replacements.get(".".join(_split(qualname)))
    if not r or len(r) < 3:
        return []
    m = t.masks[r[2]]
    return [v for i, v in enumerate(t.versions) if m >> (3 * i) & 1]


def in_1_7(qualname):
    """Approximately: did TF 1.7 already have this 1.8 core name?

    1.7 wheels have no generated API; the generator scans 1.7's sources for
    ``tf_export`` names and keeps the 1.8 core names that are not among them.
    True / False for non-module, non-contrib names that exist in 1.8; None
    otherwise.
    """
    t = _table()
    segs = _split(qualname)
    code, _, node, _ = t.node(segs, t.index[t.base])
    if code != EXISTS or not segs or segs[0] == "contrib":
        return None
    if isinstance(node, list) and (t.masks[node[1]] | t.masks[node[2]]) & 1:
        return None  # a module
    if t.new18 is None:
        t.new18 = set(t.new_in_18)
    return ".".join(segs) not in t.new18


def spellings(last, target="1.8"):
    """Every name in ``target`` whose last segment is ``last``, core names first, then
    by depth (``moments`` -> ["tensorflow.nn.moments", ...]), aliases not repeated."""
    t = _table()
    vi = t.index[normalize_version(target)]
    if t.by_last.get(vi) is None:
        t.by_last[vi] = _names_by_last(t, vi)
    found = t.by_last[vi].get(last, [])
    return sorted(found, key=lambda name: (".contrib." in name, name.count("."), name))


def _names_by_last(t, vi):
    """{last segment: [dotted names]} of instance 0 of version vi (not through aliases)."""
    bit = 1 << (3 * vi)
    found = {}
    stack = [(t.tree, _ROOT)]
    while stack:
        kids, prefix = stack.pop()
        for seg, node in kids.items():
            if isinstance(node, int):
                exists, module, children = t.masks[node] & bit, 0, None
            else:
                exists, module = t.masks[node[0]] & bit, t.masks[node[1]] & bit
                children = node[3] if len(node) > 3 and node[3] else None
                if len(node) > 6 and node[6] and any(
                        t.masks[mask] & bit for _, mask in node[6]):
                    continue  # in this release an alias of another path, listed there
            if not exists:
                continue
            name = prefix + "." + seg
            found.setdefault(seg, []).append(name)
            if module and children:
                stack.append((children, name))
    return found


def _spec_node(specs, segs):
    d = specs["tree"]
    for seg in segs:
        if not isinstance(d, dict) or seg not in d:
            return None
        d = d[seg]
    return d


def _find_spec(specs, segs, depth=0):
    d = _spec_node(specs, segs)
    if d is not None:
        return d if not isinstance(d, dict) else d.get("")
    if len(segs) < 2 or depth > 8:
        return None
    # A method: look in the public base classes of its class.
    cls = _spec_node(specs, segs[:-1])
    if isinstance(cls, dict):
        for base in cls.get("^", ()):
            r = _find_spec(specs, base.split(".") + [segs[-1]], depth + 1)
            if r is not None:
                return r
    return None


@functools.lru_cache(maxsize=65536)  # a module asks about the same names again and again
def accepts_keyword(qualname, keyword, target="1.8"):
    """True / False if the target's signature does / does not take ``keyword``.

    ``qualname`` names a function, a class (its ``__init__``) or a method of a
    core class (``tensorflow.GradientTape.gradient``).  None when unknown: a
    target other than 1.8, no recorded argspec (C functions, protobuf
    classes, names missing from 1.8), or a keyword not named explicitly by a
    signature that has ``**kwargs``.
    """
    found = signature(qualname, target)
    if found is None:
        return None
    names, varkw = found
    if keyword in names:
        return True
    return None if varkw else False


@functools.lru_cache(maxsize=None)
def _keyword_renames():
    with open(os.path.join(_DATA_DIR, "tf_keyword_renames.json"), encoding="utf-8") as f:
        return json.load(f)["renames"]


def earlier_keyword(qualname, keyword):
    """The name ``keyword`` of ``qualname`` had before TensorFlow renamed it without
    changing its meaning (``tensorflow.nn.moments``, ``keepdims`` -> ``keep_dims``), or
    None. From the 1.x -> 2.0 upgrade script's renames (tools/gen_keyword_renames.py);
    whether a target takes it is ``accepts_keyword``'s question."""
    return _keyword_renames().get(qualname, {}).get(keyword)


def method_missing(owner, name, target="1.8"):
    """True when the class `owner`, whose methods the 1.8 argspecs record, has no public
    method `name` in 1.8, itself or through its public bases; None when unknown (another
    target, a class without recorded methods). Properties are not recorded: ask about
    calls only."""
    t = _table()
    if normalize_version(target) != t.base:
        return None
    specs = t.load_specs()
    segs = _split(owner)
    node = _spec_node(specs, segs)
    if not isinstance(node, dict) or not any(key not in ("", "^") for key in node) and \
            not node.get("^"):
        return None
    return True if _find_spec(specs, segs + [name]) is None else None


def _spec(qualname, target):
    """The 1.8 argspec record ('params|flags') of `qualname`, or None."""
    t = _table()
    if normalize_version(target) != t.base:
        return None
    specs = t.load_specs()
    idx = _find_spec(specs, _split(qualname))
    return None if idx is None else specs["specs"][idx]


def required_positional(qualname, target="1.8"):
    """How many leading parameters of `qualname` have no default in the 1.8 argspecs
    (a class: of its `__init__`, without self), or None when unknown."""
    spec = _spec(qualname, target)
    if spec is None:
        return None
    flags = spec.partition("|")[2].split(",")
    return next((int(flag[1:]) for flag in flags if flag.startswith("!")), 0)


# TF 1.8 wraps the layers of these packages in `add_arg_scope`: under `with
# arg_scope([conv2d], kernel_size=3)` a call may leave out what the scope passes, and the
# scope may be opened in another module. Measured on 1.8: the 113 public names that
# carry an arg scope are all in these packages (slim 75, layers 32, model_pruning 3,
# framework 2, losses 1), and no other package has one.
_ARG_SCOPE_PACKAGES = ("tensorflow.contrib.slim", "tensorflow.contrib.layers",
                       "tensorflow.contrib.framework", "tensorflow.contrib.model_pruning",
                       "tensorflow.contrib.losses")


def unpassed_required(qualname, positional, keywords, target="1.8"):
    """The parameters that the 1.8 signature of `qualname` requires (no default) and a
    call passing `positional` arguments by position and the names `keywords` leaves out:
    a tuple, empty when it passes them all; None when unknown (another target, no
    recorded argspec, a callable object whose recorded `__call__` counts `self`, a
    function whose arguments an `arg_scope` may pass).

    Measured on TF 1.8 (py36 and py27): each of the 3,467 recorded functions, classes and
    partials with a required parameter raises TypeError when called without its last
    one, decorated ones (`deprecated`, `contextmanager`, `should_use_result`) too."""
    if any(qualname == package or qualname.startswith(package + ".")
           for package in _ARG_SCOPE_PACKAGES):
        return None
    found = signature(qualname, target)
    if found is None or found[0][:1] == ("self",):
        return None
    required = found[0][:required_positional(qualname, target)]
    return tuple(name for name in required[positional:] if name not in keywords)


def signature(qualname, target="1.8"):
    """(parameter names, has **kwargs) from the 1.8 argspecs, or None."""
    spec = _spec(qualname, target)
    if spec is None:
        return None
    params, _, flags = spec.partition("|")
    names = tuple(p.rstrip("=") for p in params.split(",") if p)
    varkw = False
    for flag in flags.split(","):
        if flag == "**":
            varkw = True
        elif flag.startswith("**="):  # **kwargs checked against a set (Keras): those only
            names += tuple(flag[3:].split(";"))
    return names, varkw


def _module18(t, segs):
    d = t.modules18
    for seg in segs:
        if seg not in d:
            return False
        d = d[seg]
    return True


@functools.lru_cache(maxsize=65536)  # a module asks about the same names again and again
def import_fails(module, target="1.8", name=None):
    """Does ``import module`` (or ``from module import name``) fail in target?

    True / False, or None when unknown (a module outside the public API of a
    release other than 1.8, or a name inside a private module).
    """
    t = _table()
    label = normalize_version(target)
    vi = t.index[label]
    try:
        segs = _split(module)
    except ValueError:
        return None
    if not segs:
        ok, same = True, True
    elif label == t.base:
        code, _, node, k = t.node(segs, vi)
        ok = _module18(t, segs)
        same = ok and code == EXISTS and isinstance(node, list) and len(node) > 5 \
            and bool(t.masks[node[5]] & (1 << (3 * vi + k)))
    else:
        code, j, node, k = t.node(segs, vi)
        b = 1 << (3 * vi + k)
        if code == EXISTS and isinstance(node, list):
            if not (t.masks[node[1]] | t.masks[node[2]]) & b:
                return True  # a function or class, not a module
            ok = len(node) > 4 and bool(t.masks[node[4]] & b)
            same = ok and len(node) > 5 and bool(t.masks[node[5]] & b)
        elif code == EXISTS:
            return True  # a plain name, never a module
        elif code == UNKNOWN:
            mk = t.toplevel.get(segs[0])
            if mk is not None and t.masks[mk] >> (3 * vi) & 1:
                return False if len(segs) == 1 else None  # tensorflow.python...
            return None
        elif isinstance(node, list) and len(node) > 4 and t.masks[node[4]] & b and j == len(segs) - 1:
            ok, same = True, False  # a subpackage its parent does not import
        elif j == 0:
            return True
        else:
            # Missing below a generated API package (one `import` reaches as
            # the attribute's own object): those hold no other modules.
            code2, _, parent, k2 = t.node(segs[:j], vi)
            b2 = 1 << (3 * vi + k2)
            if code2 == EXISTS and isinstance(parent, list) and len(parent) > 5 \
                    and t.masks[parent[5]] & b2:
                return True
            return None
    if not ok:
        return True
    if name is None:
        return False
    sub = list(segs) + [name]
    if label == t.base and _module18(t, sub):
        return False
    if same:
        code, j, node, k = t.node(sub, vi)
        if code != MISSING:
            return False
        # `from pkg import sub` also imports a subpackage pkg does not import.
        return not (isinstance(node, list) and len(node) > 4 and j == len(sub) - 1
                    and t.masks[node[4]] >> (3 * vi + k) & 1)
    canon = _dotted(segs)
    if label == t.base and canon in t.names18:
        return name not in t.names18[canon]
    return None
