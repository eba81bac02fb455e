"""A file's project on disk: the project modules it imports, and what they define.

pre-commit, flake8 and editors check one file at a time. So that such a file gets the
findings a whole-tree run gives it, its imports of project modules are resolved on disk the
way Python would from the project's root (as pylint and mypy do), and each imported module
is summarized (its custom-gradient functions, the gradient names it registers) by parsing
it, never by importing it. Summaries are kept per process, keyed by the file's identity and
stat, so a module imported by many files is read once and an edited one is read again.
"""
import ast
import functools
import hashlib
import os
import re
import stat
import sys
from dataclasses import dataclass, field
from typing import Optional

from cglint import files, sys_path

# Bounds, so one file's check never reads a whole disk: imports followed through
# re-exporting `__init__` modules, and the import closure searched for registrations.
MAX_REEXPORT_DEPTH = 3
MAX_IMPORT_DEPTH = 6
MAX_IMPORTED_MODULES = 500
MAX_SCANNED_FILES = 2000  # files read to find the modules that import a file
MAX_EAGER_PROGRAMS = 8  # modules turning eager execution on, read for a file's importers
# Words without which a module defines no custom gradient and registers no gradient.
_CUSTOM_GRADIENT_WORD = "custom_gradient"
_CUSTOM_GRADIENT_WORD_BYTES = _CUSTOM_GRADIENT_WORD.encode()
_EAGER_WORD = "enable_eager_execution"
# `tf.TensorSpec = TensorSpec`: a module that gives TF a name it lacks (a backport), in
# its bytes; (word, pattern) pairs for _found.
_STORES_ON_TF = tuple((name, re.compile(name + rb"(?:\.\w+)+[ \t]*=(?!=)"))
                      for name in (b"tf", b"tensorflow"))
_REGISTRATION_WORDS = ("RegisterGradient", "NotDifferentiable", "NoGradient")
_OVERRIDE_MAP_WORD = "gradient_override_map"
LOAD_OPS_WORD = "load_op_library"  # the call that brings op types of a project's own
# Words a few files hold, told by one read (Project._marks).
_MARK_WORDS = ("sys.path", "addsitedir", _EAGER_WORD)
# An import statement, at a line's start or after `;` or `:` (`if x: import y`), with its
# parenthesized or continued names: every module an import may load is named in one.
_IMPORT_STATEMENT = re.compile(
    rb"(?:^|[;:])[ \t]*(?:from[ \t]+([\w.]+)[ \t]+)?import[ \t]+"
    rb"(\([^)]*\)|[^\n#;\\]*(?:\\\r?\n[^\n#;\\]*)*)", re.MULTILINE)
_WORD = re.compile(rb"\w+")
# Calls that import a module by its dotted name at run time: one given as a literal is
# followed like an import statement (`importlib.import_module("plugins.guided")`).
_IMPORTING_CALLS = frozenset(("import_module", "__import__"))
# Calls that run code whose module cglint cannot name: a file's path (`imp.load_source`,
# `importlib.util.spec_from_file_location`, `runpy.run_path`) or a string (`exec`).
_LOADING_CALLS = frozenset((
    "load_source", "load_module", "load_compiled", "load_dynamic", "spec_from_file_location",
    "SourceFileLoader", "run_path", "run_module", "exec", "execfile", "exec_"))
_EXECUTING_CALLS = frozenset(("exec", "exec_"))  # of a string: readable when a literal
_DYNAMIC_WORDS = tuple(sorted(_IMPORTING_CALLS | _LOADING_CALLS))
# A call of one of them, and one of them imported under another name (`from importlib
# import import_module as load`): (word, pattern) pairs for _found.
_CALLED = tuple((word, re.compile(re.escape(word) + r"[ \t]*\(")) for word in _DYNAMIC_WORDS)
_ALIASED = tuple((word, re.compile(re.escape(word) + r"[ \t]+as[ \t]+\w"))
                 for word in _DYNAMIC_WORDS)
# A literal module name in an importing call, for the words of a file's imports.
_IMPORTING_CALL = re.compile(rb"(?:import_module|__import__)\([ \t]*[\'\"]([\w.]+)[\'\"]")


@dataclass(frozen=True)
class DynamicImports:
    """The modules a file loads by calls rather than import statements."""

    modules: tuple = ()  # dotted names given as literals: followed like `import name`
    unknown: bool = False  # it loads modules or runs code whose names cglint cannot know


_NO_DYNAMIC_IMPORTS = DynamicImports()


def dynamic_imports(tree, text):
    """DynamicImports of a parsed file. Calls are told by their name alone (importlib's,
    imp's or runpy's, however imported): a call of another object's `import_module` only
    makes one more module loaded, or the file's registrations unknown, never a finding."""
    if _found(_ALIASED, text):
        # `from importlib import import_module as load`: its calls go by another name
        return DynamicImports(unknown=True)
    if not _found(_CALLED, text):
        return _NO_DYNAMIC_IMPORTS  # most files
    from cglint.statements import marked_index, statement_index

    modules, unknown = [], False
    index = marked_index(tree, statement_index(tree), text, _DYNAMIC_WORDS)
    for call in sorted(index.get(ast.Call, ()), key=lambda node: (node.lineno, node.col_offset)):
        func = call.func
        name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", None)
        if name in _IMPORTING_CALLS:
            module = _literal_string(call.args[0]) if call.args else None
            if module is not None and all(part.isidentifier() for part in module.split(".")):
                modules.append(module)
            else:
                unknown = True  # a computed or relative name
        elif name in _EXECUTING_CALLS:
            code = _literal_string(call.args[0]) if call.args else None
            unknown = unknown or code is None or "import" in code or any(
                word in code for word in _REGISTRATION_WORDS)
        elif name in _LOADING_CALLS:
            unknown = True
    return DynamicImports(tuple(dict.fromkeys(modules)), unknown)


def _found(patterns, text):
    """Whether one of the (word, pattern) `patterns` matches `text` (str or bytes, as the
    patterns are) at the start of a word. Each pattern starts with its word: a pattern
    that starts with `\b` or an alternation is tried at every position of the text, ten
    times slower; the character before is checked here instead."""
    for word, pattern in patterns:
        if word in text:
            for match in pattern.finditer(text):
                before = text[match.start() - 1:match.start()]
                if not before or not (before.isalnum() or before in ("_", b"_")):
                    return True
    return False


def imported_by_calls(tree, text):
    """The dotted names a file imports by `importlib.import_module("name")` or
    `__import__("name")` (DynamicImports.modules): most texts hold neither word, and
    are passed over by two searches."""
    if "import_module" not in text and "__import__" not in text:
        return ()
    return dynamic_imports(tree, text).modules


def _literal_string(expr):
    return expr.value if isinstance(expr, ast.Constant) and isinstance(expr.value, str) else None


@dataclass(frozen=True)
class ImportedSite:
    """A custom-gradient function another project module defines, as its callers see it."""

    name: str
    path: str  # the defining module's file
    line: int
    positional: tuple  # positional parameter names
    required: int  # positional parameters without a default
    vararg: bool
    gradient_counts: frozenset  # the known gradient counts its gradient function returns
    # ((slot, gradient text), ...): slots whose gradient keeps the upstream gradient's
    # shape, wrong for a scalar input (CG111)
    unreduced: tuple = ()


@dataclass
class ModuleSummary:
    path: str
    digest: str  # sha256 of the bytes the summary was made from
    sites: dict = field(default_factory=dict)  # name -> ImportedSite
    reexports: dict = field(default_factory=dict)  # name -> (module, level, name) imported
    imports: Optional[tuple] = None  # (module, level) of every import, when asked for
    # the imports among them made inside a `try` whose handler catches KeyError
    imports_catching_key_error: frozenset = frozenset()
    # the imports among them that run when the module is imported (not in a def or class)
    top_imports: tuple = ()
    registered: dict = field(default_factory=dict)  # known registered name -> first line
    registered_patterns: tuple = ()  # names built at run time, as regular expressions
    registers_any: bool = False  # some registered name comes from a caller
    # it loads modules or runs code cglint cannot name (DynamicImports.unknown): any name
    # may be registered there
    loads_unknown: bool = False
    # Folders it adds to sys.path (cglint.sys_path), where its imports are looked for too;
    # and whether some change of sys.path cannot be worked out: it may import anything.
    path_folders: tuple = ()
    path_unknown: bool = False
    # Names its registrations give when they run (op types' own names left out): name ->
    # whether one of them runs outside `try: ... except KeyError` (CG203)
    registered_runs: dict = field(default_factory=dict)
    # (registered name, op type, line) of each entry of its gradient_override_map calls
    override_uses: tuple = ()
    loads_ops: bool = False  # it calls tf.load_op_library: op types of its own exist
    enables_eager: bool = False  # its top level turns eager execution on when imported
    switches_eager: bool = False  # it turns eager execution on somewhere (main, a def)
    tf_stores: frozenset = frozenset()  # TensorFlow names it assigns (`tf.TensorSpec = ...`)


# What a Dependency's digest is of.
FILE = "file"  # the file's bytes
IMPORTERS = "importers"  # which project files import it (Project.importers)
NAMESPACE_IMPORTERS = "namespace importers"  # the same, namespace packages included
# which files under its package root name the eager switch (Project.eager_programs)
EAGER_PROGRAMS = "eager programs"
DEPENDENCY_KINDS = (FILE, IMPORTERS, NAMESPACE_IMPORTERS, EAGER_PROGRAMS)


@dataclass(frozen=True)
class Dependency:
    """What a finding depends on besides its own file (the cache keeps it only while the
    digest stays). Of a project file (FILE): its content's digest, or None for a file that
    an import looked for and did not find, which must stay absent. Of the search for a
    file's importers (IMPORTERS): the digest of the list of files found, so that a new
    importer (a `main.py` importing both `grads` and `model`) is a change too."""

    path: str
    digest: Optional[str]
    kind: str = FILE


# Modules whose absence from the project is not recorded for the cache: every file
# imports some, and a project file named like one (`random.py` beside a script shadows
# the standard library's) is rare enough that its appearing later leaving cached
# results stale is the price (Python 3.10+ lists them).
_STANDARD_MODULES = frozenset(getattr(sys, "stdlib_module_names", ()))


def package_root(path):
    """The folder from which `path`'s top package is imported: above the highest
    consecutive folder holding an `__init__.py`."""
    folder = os.path.dirname(os.path.abspath(path))
    while os.path.isfile(os.path.join(folder, "__init__.py")):
        parent = os.path.dirname(folder)
        if parent == folder:
            break
        folder = parent
    return folder


# What marks a folder as a project's top: importers are not looked for above it.
_PROJECT_TOPS = (".git", "setup.py", "setup.cfg", "pyproject.toml")


def namespace_parent(path):
    """For a module in a folder without `__init__.py` that could be a Python 3 namespace
    package (`pkg/use.py`, imported as `pkg.use` by a `main.py` beside `pkg/`): the
    folder above, whose own `.py` files may import it. None for a module in a package,
    in a folder named like no package, or in a project's top (`.git`, `setup.py`, ...),
    or right under the file system's root."""
    folder = os.path.dirname(os.path.abspath(path))
    if package_root(path) != folder or not os.path.basename(folder).isidentifier() or any(
            os.path.exists(os.path.join(folder, top)) for top in _PROJECT_TOPS):
        return None
    parent = os.path.dirname(folder)
    return parent if os.path.dirname(parent) != parent else None


def search_roots(path):
    """Where `import x` looks for project modules of `path`: its own folder (a script's
    folder comes first on sys.path), its package root, then the project's top (and its
    `src` folder), whose packages a `scripts/train.py` or `tests/test_ops.py` imports
    once the project is installed (`pip install -e .`) or run from its top."""
    roots = [os.path.dirname(os.path.abspath(path)), package_root(path)]
    top = project_top(roots[0])
    if top is not None:
        roots.append(top)
        if os.path.isdir(os.path.join(top, "src")):  # the `src` layout's packages
            roots.append(os.path.join(top, "src"))
    return tuple(dict.fromkeys(roots))


def working_directories(path):
    """Where a program importing `path` may be run from, for the relative folders it adds
    to sys.path: `path`'s own folder, then its project's top."""
    folder = os.path.dirname(os.path.abspath(path))
    return tuple(dict.fromkeys(f for f in (folder, project_top(folder)) if f is not None))


# How far above a file its project's top is looked for.
_TOP_SEARCH_DEPTH = 8


def project_top(folder):
    """The nearest folder at or above `folder` that marks a project's top (_PROJECT_TOPS),
    within _TOP_SEARCH_DEPTH folders; None without one."""
    for _ in range(_TOP_SEARCH_DEPTH):
        if _marks_top(folder):
            return folder
        parent = os.path.dirname(folder)
        if parent == folder:
            return None
        folder = parent
    return None


@functools.lru_cache(maxsize=4096)
def _marks_top(folder):
    """Whether `folder` holds a mark of a project's top: looked at once per run (the
    folders of a tree share their parents; Project.new_run forgets them)."""
    return any(os.path.exists(os.path.join(folder, top)) for top in _PROJECT_TOPS)


def module_file(roots, dotted):
    """The file a dotted module name imports from the first root that has it, or None."""
    parts = dotted.split(".")
    if not all(part.isidentifier() for part in parts):
        return None
    return next((candidate for candidate in candidate_files(roots, parts)
                 if _is_regular_file(candidate)), None)


def candidate_files(roots, parts):
    """The files a module of dotted `parts` may be, in the order a lookup tries them
    (a package folder's `__init__.py` alone when `parts` is empty). Python's path finder
    tries the package before the module: `pkg/__init__.py` shadows a `pkg.py` beside it."""
    for root in roots:
        base = os.path.join(root, *parts)
        yield os.path.join(base, "__init__.py")
        if parts:
            yield base + ".py"


def relative_base(path, level, module):
    """The dotted-name-free folder and module parts of `from ..pkg import x` in `path`."""
    folder = os.path.dirname(os.path.abspath(path))
    for _ in range(level - 1):
        folder = os.path.dirname(folder)
    return folder, module or ""


class _Memo(dict):
    """A dict that forgets everything when it is full: what a cache of lookups on disk
    needs to keep memory flat on a tree of any size (a miss only costs the lookup)."""

    __slots__ = ("limit",)

    def __init__(self, limit):
        super().__init__()
        self.limit = limit

    def __setitem__(self, key, value):
        if len(self) >= self.limit:
            self.clear()
        super().__setitem__(key, value)


# Parsed project modules kept, for the functions a custom-gradient function calls in them.
MEMO_MODULES = 8
# Entries each memo keeps at most. One run over the bench corpus (TF 1.8's own 1,822 files
# and two projects) makes about 1,700 summaries and at most 4,100 entries in any lookup
# memo: a tree of that size is never forgotten, and on a larger one they stay small.
MEMO_SUMMARIES = 4096
MEMO_LOOKUPS = 8192


class Project:
    """Summaries of project modules on disk, made on demand and kept while unchanged."""

    def __init__(self):
        self._summaries = _Memo(MEMO_SUMMARIES)  # path -> (stat signature, ModuleSummary or None)
        self._modules = _Memo(MEMO_MODULES)  # path -> (stat signature, ModuleFacts or None)
        # path -> (stat signature, names a star import of it brings or None, Dependency)
        self._stars = _Memo(MEMO_LOOKUPS)
        # path -> (stat signature, the words of its import statements)
        self._mentioned = _Memo(MEMO_LOOKUPS)
        self.new_run()

    def new_run(self):
        """Forget what was looked up on disk (summaries are kept, checked by their stat):
        a run sees the files as they are when it starts, and within a run each import
        of a folder is looked up once, however many files there import it."""
        self._paths = _Memo(MEMO_LOOKUPS)  # ((folder,), relative module) -> file or None
        self._roots = _Memo(MEMO_LOOKUPS)  # importing folder -> search_roots()
        self._last_folder = (None, None)  # (importing file, its absolute folder)
        self._folder_offers = (None, {})  # (folder, {(module, level): offers_sites()})
        self._offers = _Memo(MEMO_LOOKUPS)  # module file -> offers_sites()
        self._holding = _Memo(MEMO_LOOKUPS)  # (importing folder, top package) -> roots
        self._tops = _Memo(MEMO_LOOKUPS)  # (root, top package name) -> whether it holds it
        # (roots holding the top package, dotted module) -> file or None
        self._files = _Memo(MEMO_LOOKUPS)
        self._this_run = _Memo(MEMO_SUMMARIES)  # path -> its summary, stat'ed once this run
        self._listings = _Memo(MEMO_MODULES)  # package root -> the files importers() reads
        self._words_this_run = _Memo(MEMO_LOOKUPS)  # path -> _import_words, stat'ed once
        self._candidates = _Memo(MEMO_LOOKUPS)  # (folder, level, module) -> files it would be
        self._path_folders = _Memo(MEMO_LOOKUPS)  # importer -> path_folders()
        self._marks_this_run = _Memo(MEMO_LOOKUPS)  # path -> _marks()
        self._checking = (None, "")  # (path, text) of the file being checked
        _marks_top.cache_clear()  # (a setup.py may have appeared since the last run)
        # (what the disk resolves to, as the lookups above: per run)
        self._imports_resolved = _Memo(MEMO_SUMMARIES)  # (importer, digest) -> real paths
        self._real = _Memo(MEMO_LOOKUPS)  # path -> os.path.realpath(path)
        # The files the lookups since the last absent_lookups() looked for and did not
        # find: a result drawn from their absence holds only while they stay absent.
        self._absent = set()

    def checking(self, path, text):
        """Say which file the engine checks now, with its text: its own marks (_marks)
        are read from that text, not from disk."""
        self._checking = (path, text)

    def absent_lookups(self):
        """[Dependency] on each file an import looked for in vain since the last call (the
        engine asks before and after each file it checks)."""
        found = [Dependency(path, None) for path in sorted(self._absent)]
        self._absent = set()
        return found

    def summary(self, path, with_imports=False):
        """ModuleSummary of a project file, or None when it cannot be read. Its imports
        are listed only `with_imports` (it costs a parse of modules that define nothing)."""
        known = self._this_run.get(path)
        if known is not None and (not with_imports or known.imports is not None):
            return known  # stat once per run
        signature = _signature(path)
        if signature is None:
            return None
        cached = self._summaries.get(path)
        if (cached is None or cached[0] != signature
                or (with_imports and cached[1] is not None and cached[1].imports is None)):
            cached = (signature, _summarize(path, with_imports))
            self._summaries[path] = cached
        if cached[1] is not None:
            self._this_run[path] = cached[1]
        return cached[1]

    def imported_site(self, importer, module, name, level=0, depth=0):
        """(ImportedSite, [Dependency]) for `name` imported from `module` by the file
        `importer`, following re-exports through `__init__` modules; (None, deps) else."""
        path = self.module_path(importer, module, level)
        if path is None:
            head, _, owner = module.rpartition(".")
            if (head or level) and "." not in name and depth < MAX_REEXPORT_DEPTH:
                # `ops.Ops.grl(x)` / `from ops import Ops; Ops.grl(x)`: no module
                # `ops.Ops`, so the staticmethod `Ops.grl` of the module `ops`
                return self.imported_site(importer, head, owner + "." + name, level,
                                          depth + 1)
            return None, []
        summary = self.summary(path)
        if summary is None:
            return None, []
        dependencies = [Dependency(summary.path, summary.digest)]
        if name in summary.sites:
            return summary.sites[name], dependencies
        # `Ops.grl`: the class `Ops` re-exported; `make()`: the factory `make`
        made = "()" if name.endswith("()") else ""
        first, dot, rest = name[:len(name) - len(made)].partition(".")
        if first in summary.reexports and depth < MAX_REEXPORT_DEPTH:
            source, source_level, source_name = summary.reexports[first]
            site, more = self.imported_site(path, source, source_name + dot + rest + made,
                                            source_level, depth + 1)
            return site, dependencies + more
        return None, dependencies

    def imported_function(self, importer, module, name, level=0):
        """(ModuleFacts of the project module, the plain def `name` it defines once at its
        top level, Dependency) for `from module import name` in `importer`; else None."""
        found = self._top_level_binding(importer, module, name, level, "def")
        if found is None or found[1].decorator_list:
            return None
        return found

    def top_level_value(self, importer, module, name, level=0):
        """(ModuleFacts, the value, Dependency) when the project module binds `name` once,
        at its top level, by a plain assignment (`W = tf.get_variable(...)`); else None."""
        found = self._top_level_binding(importer, module, name, level, "assign")
        return None if found is None or found[1] is None else found

    def _top_level_binding(self, importer, module, name, level, kind):
        """(ModuleFacts, the node `name`'s one top-level binding of `kind` binds, Dependency)
        in the project module `importer` imports as `module`, or None."""
        path = self.module_path(importer, module, level)
        facts = None if path is None else self._facts_of(path)
        if facts is None:
            return None
        bindings = facts.names.module.bindings.get(name, [])
        if len(bindings) != 1 or bindings[0].kind != kind:
            return None
        return facts, bindings[0].node, Dependency(path, facts.digest)

    def _facts_of(self, path):
        """The ModuleFacts of a project file, kept while its signature stays."""
        signature = _signature(path)
        cached = self._modules.get(path)
        if cached is None or cached[0] != signature:
            cached = self._modules[path] = (signature, _module_facts(path))
        return cached[1]

    def star_names(self, importer, module, level=0):
        """(the names `from module import *` brings: its `__all__`, else its top-level
        names not starting with `_`; the Dependency on it), or (None, None) when it is no
        project module or its `__all__` is not a literal list: unknown."""
        path = self.module_path(importer, module, level)
        if path is None:
            return None, None
        signature = _signature(path)
        cached = self._stars.get(path)
        if cached is None or cached[0] != signature:
            facts = _module_facts(path)  # (not kept: only its names are wanted again)
            names = None if facts is None else _star_names(facts)
            dependency = None if facts is None else Dependency(path, facts.digest)
            cached = self._stars[path] = (signature, names, dependency)
        return cached[1], cached[2]

    def offers_sites(self, importer, module, level=0):
        """(whether importing `module` may bring a custom-gradient function: it defines
        one, or is a package `__init__` that re-exports one or imports a submodule that
        does; the Dependencies the answer rests on: the module, and the modules its
        re-exports and submodules were looked up in)."""
        # The answer depends on the importing folder only, and a run checks a folder's
        # files one after another, which import much the same modules: kept per folder
        # (a memo of every folder's would grow with the tree).
        if self.path_folders(importer):  # its own sys.path: not its folder's answer
            answer, absent = self._recording(self._offers_from, importer, module, level)
            self._absent.update(absent)
            return answer
        folder = self._folder(importer)
        if self._folder_offers[0] != folder:
            self._folder_offers = (folder, {})
        answers = self._folder_offers[1]
        key = (module, level)
        found = answers.get(key)
        if found is None:
            found = answers[key] = self._recording(self._offers_from, importer, module, level)
        answer, absent = found
        self._absent.update(absent)  # a kept answer still rests on what was not found
        return answer

    def _offers_from(self, importer, module, level):
        path = self.module_path(importer, module, level)
        if path is None:
            return False, ()
        found = self._offers.get(path)
        if found is None:
            # (packages importing each other: a cycle asks again before the answer is in)
            self._offers[path] = ((False, ()), frozenset())
            found = self._offers[path] = self._recording(self._offers_sites, path)
        answer, absent = found
        self._absent.update(absent)
        return answer

    def _offers_sites(self, path):
        summary = self.summary(path)
        if summary is None:
            return False, ()
        # Worked out once per run (its re-exports are looked up on disk, as it is now).
        # A "no" rests on every module looked in: `grl` of the module a re-export names
        # may become a custom gradient without the `__init__` changing.
        dependencies = [Dependency(summary.path, summary.digest)]
        offers = bool(summary.sites)
        for source, source_level, name in summary.reexports.values():
            if offers:
                break
            offers, more = self._reexport_offers(path, source, name, source_level)
            dependencies += more
        if not offers and os.path.basename(path) == "__init__.py":
            # `from . import layers` in a package's `__init__`: `import lib` then
            # `lib.layers.grl(...)` calls what the submodule defines
            for source, source_level, name in summary.reexports.values():
                if offers or not source_level:
                    continue
                offers, more = self._offers_from(
                    path, "%s.%s" % (source, name) if source else name, source_level)
                dependencies += more
        return offers, tuple(dependencies)

    def _reexport_offers(self, path, source, name, level):
        """(whether `from source import name` in `path` brings a custom-gradient function,
        or a class or factory that makes one reachable (`Ops` for `Ops.grl`, `make` for
        `make()`); the Dependencies on the modules looked in)."""
        site, dependencies = self.imported_site(path, source, name, level, 1)
        if site is not None:
            return True, dependencies
        found = self.module_path(path, source, level)
        summary = None if found is None else self.summary(found)
        if summary is None:
            return False, dependencies
        return any(key.startswith((name + ".", name + "(")) for key in summary.sites), \
            dependencies + [Dependency(summary.path, summary.digest)]

    def _recording(self, compute, *arguments):
        """(compute(*arguments), the files its lookups looked for in vain): a memo keeps
        both, and hands the files on to every file that asks again."""
        outer, self._absent = self._absent, set()
        try:
            answer = compute(*arguments)
            absent = frozenset(self._absent)
        finally:
            outer.update(self._absent)
            self._absent = outer
        return answer, absent

    def _folder(self, importer):
        # A file asks about each of its imports in turn: its folder is kept until the next
        # file asks (a memo of every file's would grow with the tree).
        if self._last_folder[0] != importer:
            self._last_folder = (importer, os.path.dirname(os.path.abspath(importer)))
        return self._last_folder[1]

    def module_path(self, importer, module, level=0):
        found = self._module_path(importer, module, level)
        if found is None and not level:
            added = self.path_folders(importer)
            if added:
                found = module_file(added, module)
        if level or module.partition(".")[0] not in _STANDARD_MODULES:
            candidates = self._looked_for(importer, module, level)
            if found is None:
                self._absent.update(candidates)
            elif found in candidates:  # those before it would shadow it if they appeared
                self._absent.update(candidates[:candidates.index(found)])
        return found

    def _looked_for(self, importer, module, level):
        """The files that would be `module` for `importer`, in the order the lookup tries
        them: any of them appearing changes what the import finds."""
        folder = self._folder(importer)
        key = (folder, level, module)
        found = self._candidates.get(key)
        if found is None:
            if level:
                base, rest = relative_base(importer, level, module)
                roots, parts = (base,), rest.split(".") if rest else []
            else:
                roots = self._roots.get(folder) or search_roots(importer)
                parts = module.split(".")
            found = tuple(candidate_files(roots, parts))
            self._candidates[key] = found
        if not level:
            added = self.path_folders(importer)
            if added:  # the importer's own, not its folder's
                found += tuple(candidate_files(added, module.split(".")))
        return found

    def path_folders(self, importer):
        """The folders `importer` adds to sys.path (ModuleSummary.path_folders): most
        files name no `sys.path`, which their marks tell (_marks)."""
        known = self._path_folders.get(importer)
        if known is None:
            known = self._path_folders[importer] = ()  # (its summary looks up imports)
            if any(word in self._marks(importer) for word in sys_path.WORDS):
                summary = self.summary(importer, with_imports=True)
                known = summary.path_folders if summary is not None else ()
            self._path_folders[importer] = known
        return known

    def _module_path(self, importer, module, level):
        if level:
            base, rest = relative_base(importer, level, module)
            key = ((base,), rest)
            if key not in self._paths:
                self._paths[key] = (module_file(key[0], rest) if rest else
                                    _package_init(base))
            return self._paths[key]
        # The roots that have the module's top package decide, not the importing folder:
        # every folder of a package finds `import pkg.x` in the same file, looked up once.
        # A root without it (most folders, for most imports) is skipped with one look.
        folder = self._folder(importer)
        top = module.partition(".")[0]
        holding = self._holding.get((folder, top))
        if holding is None:
            roots = self._roots.get(folder)
            if roots is None:
                roots = self._roots[folder] = search_roots(importer)
            holding = self._holding[folder, top] = tuple(
                root for root in roots if self._holds_top(root, top))
        if not holding:
            return None
        found = self._files.get((holding, module), False)
        if found is False:
            found = self._files[holding, module] = module_file(holding, module)
        return found

    def _holds_top(self, root, top):
        """Whether `root` has a `top` package folder or a `top.py` (cached per run)."""
        key = (root, top)
        found = self._tops.get(key)
        if found is None:
            base = os.path.join(root, top)
            found = self._tops[key] = os.path.isdir(base) or os.path.isfile(base + ".py")
        return found

    def registrations(self, path, namespaces=False):
        """The gradient registrations that run in a process that imports `path` (see
        loaded_with). ({name: (file, line)}, patterns, any name, [Dependency])."""
        names, patterns, any_name = {}, [], False
        summaries, dependencies = self.loaded_with(path, namespaces=namespaces)
        for summary in summaries:
            for name, line in summary.registered.items():
                names.setdefault(name, (summary.path, line))
            patterns += summary.registered_patterns
            any_name = any_name or summary.registers_any or summary.loads_unknown or \
                summary.path_unknown
        own = self.summary(path, with_imports=True) if path != "-" else None
        any_name = any_name or (own is not None and own.path_unknown)
        return names, patterns, any_name, dependencies

    def loaded_with(self, path, namespaces=False):
        """([ModuleSummary], [Dependency]) of the project modules loaded in a process that
        imports `path`: those it imports, directly or through other project modules, and
        the modules that import it (a `main.py` importing both `grads` and `model`) with
        what they import; bounded, nearest first. Every one is a dependency: one that
        registers nothing today may later."""
        importers, search = self.importer_search(path, namespaces)
        summaries, dependencies = [], [search]
        seen = {self._realpath(path)}
        queue = [(path, 0)] + [(importer, 1) for importer in importers]
        seen.update(self._realpath(importer) for importer, _ in queue[1:])
        while queue and len(seen) <= MAX_IMPORTED_MODULES:
            importer, depth = queue.pop(0)
            summary = self.summary(importer, with_imports=True)
            if summary is None:
                continue
            if depth:
                dependencies.append(Dependency(summary.path, summary.digest))
                summaries.append(summary)
            if depth >= MAX_IMPORT_DEPTH:
                continue
            # Importing a module runs its packages' `__init__` first (`import pkg.layers`
            # runs pkg/__init__.py, which may import the module that registers); one
            # appearing in the folder above the last would run too.
            found = list(enclosing_package_inits(importer, self._absent))
            found += [self.module_path(importer, module, level)
                      for module, level in summary.imports or ()]
            for module_file in found:
                if module_file is not None and self._realpath(module_file) not in seen:
                    seen.add(self._realpath(module_file))
                    queue.append((module_file, depth + 1))
        return summaries, dependencies

    def imports_all_catch_key_error(self, path, namespaces=False):
        """(whether `path` has importers in the project and every one imports it inside a
        `try` that catches KeyError, [Dependency] on them)."""
        target = self._realpath(path)
        importers, search = self.importer_search(path, namespaces)
        dependencies = [search]
        for importer in importers:
            summary = self.summary(importer, with_imports=True)
            if summary is None:
                return False, dependencies
            dependencies.append(Dependency(summary.path, summary.digest))
            for module, level in summary.imports or ():
                found = self.module_path(importer, module, level)
                if found is not None and self._realpath(found) == target and \
                        (module, level) not in summary.imports_catching_key_error:
                    return False, dependencies
        return bool(importers), dependencies

    def imported_by_eager_program(self, path):
        """(whether a project module that turns eager execution on anywhere (an entry
        script's main block) imports `path`, directly or through one project module;
        [Dependency] on that search and those modules). What `path` defines may then run
        eagerly. The search starts from the few files under the package root that name
        the switch, never from every importer."""
        switching = self.eager_programs(path)
        dependencies = [Dependency(path, listing_digest(switching), EAGER_PROGRAMS)]
        target, stem = self._realpath(path), _module_word(path)
        for program in switching:
            if self._realpath(program) == target:
                continue
            summary = self.summary(program, with_imports=True)
            if summary is None:
                continue
            dependencies.append(Dependency(summary.path, summary.digest))
            if not summary.switches_eager:
                continue
            imported = self._imported_files(program, summary)
            if target in imported:
                return True, dependencies
            for between in sorted(imported):
                if stem not in self._import_words(between):
                    continue  # it cannot import `path` without naming it
                middle = self.summary(between, with_imports=True)
                if middle is None:
                    continue
                dependencies.append(Dependency(middle.path, middle.digest))
                if target in self._imported_files(between, middle):
                    return True, dependencies
        return False, dependencies

    def eager_programs(self, path):
        """The files under `path`'s package root (as importers() reads them) whose text
        names the eager switch: the MAX_EAGER_PROGRAMS nearest to `path` (a tree full of
        eager tests, as TensorFlow's own, is not parsed whole for each file)."""
        found = [candidate for candidate in self._scanned(package_root(path))
                 if _EAGER_WORD in self._marks(candidate)]
        if len(found) > MAX_EAGER_PROGRAMS:
            folder = os.path.dirname(os.path.abspath(path))
            found = sorted(found, key=lambda candidate: (
                -len(os.path.commonpath([folder, os.path.abspath(candidate)])), candidate))
            found = sorted(found[:MAX_EAGER_PROGRAMS])
        return found

    def importer_search(self, path, namespaces=False):
        """(importers(path, namespaces), the Dependency on that search): what a finding
        drawn from a file's importers depends on, besides each importer's content."""
        found = self.importers(path, namespaces)
        kind = NAMESPACE_IMPORTERS if namespaces else IMPORTERS
        return found, Dependency(path, listing_digest(found), kind)

    def importers_digest(self, path, namespaces=False):
        """The digest an importer search for `path` has now (see importer_search)."""
        return listing_digest(self.importers(path, namespaces))

    def importers(self, path, namespaces=False):
        """Project files that import `path`: those under its package root (at most
        MAX_SCANNED_FILES) whose text names its module and whose imports resolve to it;
        with `namespaces` (a Python 3 target), also the `.py` files right in the folder
        above a folder without `__init__.py` (namespace_parent)."""
        target = self._realpath(path)
        word = _module_word(path)
        found = []
        candidates = self._scanned(package_root(path))
        parent = namespace_parent(path) if namespaces else None
        if parent is not None:
            candidates = candidates + self._beside(parent)
        for candidate in candidates:
            # A file cannot import it without naming it in an import statement: that is
            # asked first (and kept while the file is unchanged), the real path only of
            # the few that do.
            if word not in self._import_words(candidate) or \
                    self._realpath(candidate) == target:
                continue
            summary = self.summary(candidate, with_imports=True)
            if summary is not None and target in self._imported_files(candidate, summary):
                found.append(candidate)
        return found

    def _scanned(self, root):
        """The files under a package root that importers() reads (at most
        MAX_SCANNED_FILES), listed once per run however many files ask."""
        listed = self._listings.get(root)
        if listed is None:
            listed = []
            try:
                for index, (candidate, problem) in enumerate(files.discover([root])):
                    if index >= MAX_SCANNED_FILES:
                        break
                    if problem is None:
                        listed.append(candidate)
            except OSError:
                pass  # a tree changing under the scan: what was listed (the run goes on)
            self._listings[root] = listed
        return listed

    def _beside(self, folder):
        """The `.py` files right in `folder` (not below it: a few), listed once per run."""
        key = ("beside", folder)
        listed = self._listings.get(key)
        if listed is None:
            try:
                names = sorted(os.listdir(folder))[:MAX_SCANNED_FILES]
            except OSError:
                names = []
            listed = [os.path.join(folder, name) for name in names if name.endswith(".py")
                      and os.path.isfile(os.path.join(folder, name))]
            self._listings[key] = listed
        return listed

    def _import_words(self, path):
        """The words of the file's import statements (`grads`, `pkg`, `ops` of `from
        pkg.ops import grads`) and of literal names it imports by calls
        (`importlib.import_module("pkg.grads")`), kept while the file is unchanged: one read per file,
        however many modules ask who imports them."""
        known = self._words_this_run.get(path)
        if known is not None:
            return known  # stat once per run
        signature = _signature(path)
        if signature is None:
            return frozenset()
        cached = self._mentioned.get(path)
        if cached is None or cached[0] != signature:
            try:
                data = files.read_bytes(path)
            except OSError:
                return frozenset()
            words = frozenset(word for match in _IMPORT_STATEMENT.finditer(data)
                              for part in match.groups() if part
                              for word in _WORD.findall(part))
            if b"import_module" in data or b"__import__" in data:
                words |= frozenset(word for match in _IMPORTING_CALL.finditer(data)
                                   for word in _WORD.findall(match.group(1)))
            cached = self._mentioned[path] = (signature, words)
        self._words_this_run[path] = cached[1]
        return cached[1]

    def _marks(self, path):
        """Which of _MARK_WORDS the file's bytes hold, read once per run: a few files
        change sys.path or turn eager execution on, and one `in` test tells."""
        known = self._marks_this_run.get(path)
        if known is None:
            if path == self._checking[0]:
                text = self._checking[1]
                known = frozenset(word for word in _MARK_WORDS if word in text)
            else:
                try:
                    data = files.read_bytes(path)
                except OSError:
                    data = b""
                known = frozenset(word for word in _MARK_WORDS if word.encode() in data)
            self._marks_this_run[path] = known
        return known

    def _realpath(self, path):
        """os.path.realpath, once per path in a run (a hub's imports are asked by every
        module it imports)."""
        found = self._real.get(path)
        if found is None:
            found = self._real[path] = os.path.realpath(path)
        return found

    def _imported_files(self, importer, summary):
        """Real paths of the project files an importer's imports resolve to: worked out
        once per importer's content (a hub importing 500 modules is asked by each)."""
        key = (importer, summary.digest)
        found = self._imports_resolved.get(key)
        if found is None:
            found = self._imports_resolved[key] = self._recording(
                self._resolve_imports, importer, summary)
        answer, absent = found
        self._absent.update(absent)  # a kept answer still rests on what was not found
        return answer

    def _resolve_imports(self, importer, summary):
        paths = (self.module_path(importer, module, level)
                 for module, level in summary.imports or ())
        return frozenset(self._realpath(path) for path in paths if path is not None)


def _star_names(facts):
    """The names `from m import *` binds from a module's facts, or None when unknown."""
    bindings = facts.names.module.bindings
    declared = bindings.get("__all__")
    if declared is None:
        from cglint.facts import star_imports

        if star_imports(facts.tree):
            return None  # it passes on another module's names too: not followed
        return frozenset(name for name in bindings if not name.startswith("_"))
    if len(declared) != 1 or declared[0].kind != "assign" or not isinstance(
            declared[0].node, (ast.List, ast.Tuple)) or not all(
            isinstance(element, ast.Constant) and isinstance(element.value, str)
            for element in declared[0].node.elts):
        return None  # built, extended or assigned twice: not followed
    return frozenset(element.value for element in declared[0].node.elts)


def enclosing_package_inits(path, absent=None):
    """The `__init__.py` of each package a module file is in, innermost first (itself
    excepted): they run before it does. The first one missing is added to the set
    `absent` when given (its appearing would make one more package)."""
    folder = os.path.dirname(os.path.abspath(path))
    own = os.path.abspath(path)
    while True:
        init = os.path.join(folder, "__init__.py")
        if not os.path.isfile(init):
            if absent is not None:
                absent.add(init)
            return
        if init != own:
            yield init
        parent = os.path.dirname(folder)
        if parent == folder:
            return
        folder = parent


def shown_path(path, like=None):
    """A project file as a run would show it: relative to the working folder if inside;
    absolute when the checked file it is named for (`like`) was given so, as it is then
    shown (the same message from any working folder)."""
    if like is not None and os.path.isabs(like):
        return os.path.abspath(path)
    relative = os.path.relpath(path)
    return path if relative.startswith(os.pardir + os.sep) else relative


def digest_of(path):
    """The sha256 of a regular file's bytes now, or None. The path may come from a planted
    cache entry: anything but a regular file (a device, a FIFO) is never opened."""
    if not _is_regular_file(path):
        return None
    try:
        return hashlib.sha256(files.read_bytes(path)).hexdigest()
    except OSError:
        return None


def _module_word(path):
    """The word an import of the module at `path` must hold, as bytes: its file's stem,
    or its package's name for an `__init__.py` (a name that is no UTF-8 keeps its
    bytes)."""
    stem = os.path.splitext(os.path.basename(path))[0]
    if stem == "__init__":
        stem = os.path.basename(os.path.dirname(os.path.realpath(path)))
    return os.fsencode(stem)


def listing_digest(paths):
    """The sha256 of a list of paths, in order."""
    return hashlib.sha256(b"\0".join(os.fsencode(path) for path in paths)).hexdigest()


def digest_now(dependency):
    """The digest a Dependency has on disk now: a cached finding holds while it is the
    one recorded."""
    if dependency.kind == FILE:
        return digest_of(dependency.path)
    if dependency.kind == EAGER_PROGRAMS:
        return listing_digest(current().eager_programs(dependency.path))
    return current().importers_digest(dependency.path,
                                      namespaces=dependency.kind == NAMESPACE_IMPORTERS)


def _signature(path):
    """What tells a file's content changed without reading it (None: cannot be stat'ed)."""
    try:
        info = os.stat(path)
    except OSError:
        return None
    return info.st_dev, info.st_ino, info.st_size, info.st_mtime_ns


def _package_init(folder):
    candidate = os.path.join(folder, "__init__.py")
    return candidate if _is_regular_file(candidate) else None


def _is_regular_file(path):
    try:
        return stat.S_ISREG(os.stat(path).st_mode)
    except OSError:
        return False


def _module_facts(path):
    """ModuleFacts of a project module read from disk (its `digest` set), or None."""
    try:
        data = files.read_bytes(path)
    except OSError:
        return None
    source = files.decode(path, data)
    if isinstance(source, files.Unreadable) or files.too_many_lines(source.text):
        return None
    from cglint.facts import ModuleFacts
    from cglint.parse import parse

    parsed = parse(source.text)
    if parsed.tree is None:
        return None
    facts = ModuleFacts(path, source.text, parsed)
    facts.digest = hashlib.sha256(data).hexdigest()
    return facts


def _summarize(path, with_imports):
    try:
        data = files.read_bytes(path)
    except OSError:
        return None
    hub = os.path.basename(path) == "__init__.py"  # re-exports what its package defines
    if (not (hub or with_imports) and data.isascii() and _CUSTOM_GRADIENT_WORD_BYTES not in data
            and _EAGER_WORD.encode() not in data and not _found(_STORES_ON_TF, data)
            and data.count(b"\n") <= files.MAX_LINES):
        # Most modules: plain text that defines nothing an importer could use.
        return ModuleSummary(path, hashlib.sha256(data).hexdigest(),
                             loads_ops=LOAD_OPS_WORD.encode() in data)
    source = files.decode(path, data)
    if isinstance(source, files.Unreadable) or files.too_many_lines(source.text):
        return None
    summary = ModuleSummary(path, hashlib.sha256(data).hexdigest())
    text = source.text
    summary.loads_ops = LOAD_OPS_WORD in text
    defines = _CUSTOM_GRADIENT_WORD in text
    registers = any(word in text for word in _REGISTRATION_WORDS)
    # Registrations and override maps matter to import closures only.
    registers = registers and with_imports
    maps = with_imports and _OVERRIDE_MAP_WORD in text
    eager = _EAGER_WORD in text
    stores = _found(_STORES_ON_TF, data)
    if not (defines or registers or hub or with_imports or eager or stores):
        return summary  # nothing an importer could use: no parse
    # Imported here: project summaries are made from the facts the linter itself builds.
    from cglint.parse import parse
    parsed = parse(text)
    if parsed.tree is None:
        return summary
    summary.reexports = _reexports(parsed.tree)
    if with_imports:
        dynamic = dynamic_imports(parsed.tree, text)
        summary.imports = tuple(_imports(parsed.tree)) + tuple(
            (module, 0) for module in dynamic.modules)
        summary.loads_unknown = dynamic.unknown
        changes = sys_path.path_changes(parsed.tree, text, path, working_directories(path))
        summary.path_folders, summary.path_unknown = changes.folders, changes.unknown
        summary.top_imports = tuple(_imports(ast.Module(
            body=top_level_import_statements(parsed.tree), type_ignores=[])))
        summary.imports_catching_key_error = frozenset(_imports_catching_key_error(
            parsed.tree)) if _may_catch_key_error(text) else frozenset()
    if not (defines or registers or maps or eager or stores):
        return summary
    from cglint.facts import ModuleFacts
    module = ModuleFacts(path, text, parsed)
    summary.enables_eager = eager and module.enables_eager_on_import
    summary.switches_eager = eager and bool(module.eager_switches)
    summary.tf_stores = frozenset(module.stored_tf_names) if stores else frozenset()
    for site in module.sites:
        if module.names.scope_of(site.func) is module.names.module:  # importable ones
            _add_site(summary, module, site, site.name)
    for alias, site in _module_level_wraps(module):
        _add_site(summary, module, site, alias)
    for name in list(summary.sites):
        # `f = wrap(f)` after the def, or a def per branch: importers may get another f
        if len(module.names.module.bindings.get(name, ())) != 1:
            del summary.sites[name]
    for name, site in _static_sites(module):
        _add_site(summary, module, site, name)
    for name, site in _factory_sites(module):
        _add_site(summary, module, site, name, site.name)
    if registers or maps:
        from cglint import overrides
        facts = module.overrides
        found = overrides.registered_names(facts)
        summary.registered = found.names
        summary.registered_patterns = tuple(found.patterns)
        summary.registers_any = found.any_name
        summary.registered_runs = overrides.registered_runs(facts)
        if not module.eager:  # maps are ignored under eager execution
            summary.override_uses = tuple(overrides.override_uses(facts))
    return summary


def _add_site(summary, module, site, name, shown=None):
    """List `site` under `name` (what importers call: `f`, `Cls.f`, `make()`), shown in
    messages as `shown` (default: the name)."""
    from cglint.facts import gradient_counts
    # The rule's own reading of gradient shapes, so an importer judges its calls alike.
    from cglint.rules.cg111_unreduced_scalar_gradient import unreduced_slots

    counts, _ = gradient_counts(module, site)
    summary.sites[name] = ImportedSite(
        shown or name, summary.path, site.func.lineno, tuple(site.params.names), site.params.required,
        site.params.vararg is not None, frozenset(counts), unreduced_slots(module, site))


def _static_sites(module):
    """("Cls.f", site) for each staticmethod stacked over the decorator in a class the
    module binds once at its top level, bound once in the class and set on no instance:
    importers call `Cls.f(x)` or `Cls().f(x)`."""
    if "staticmethod" not in module.text:
        return
    from cglint.facts import static_first
    top = module.names.module
    for site in module.sites:
        scope = module.names.scope_of(site.func)
        if scope.kind != "class" or scope.parent is not top or not static_first(site.func):
            continue
        owner = scope.node.name
        classes = top.bindings.get(owner, ())
        if len(classes) != 1 or classes[0].node is not scope.node or len(
                scope.bindings.get(site.func.name, ())) != 1:
            continue
        if any(attr == site.func.name for attr, _, _ in module._class_attribute_stores(scope)):
            continue  # `self.f = ...` hides it on instances
        yield "%s.%s" % (owner, site.func.name), site


def _factory_sites(module):
    """("make()", site) for each top-level def `make`, bound once and undecorated, every
    `return` of which hands back the one custom-gradient def it decorates inside:
    importers call `make(...)(x)`, or `clip = make(...)` then `clip(x)`."""
    from cglint.facts import CUSTOM_GRADIENT, own_nodes

    top = module.names.module
    for site in module.sites:
        function = site.func
        if not isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef)):
            continue
        scope = module.names.scope_of(function)
        if scope.kind != "function" or scope.parent is not top or not any(
                module.names.resolve(d, scope) in CUSTOM_GRADIENT
                for d in function.decorator_list):
            continue
        factory = scope.node
        if not isinstance(factory, (ast.FunctionDef, ast.AsyncFunctionDef)) or \
                factory.decorator_list or len(top.bindings.get(factory.name, ())) != 1:
            continue
        values = [node.value for node in own_nodes(factory) if isinstance(node, ast.Return)]
        if values and all(isinstance(value, ast.Name) and [
                binding.node for binding in module.names.lookup(value.id, scope)] == [function]
                          for value in values):
            yield factory.name + "()", site


def _module_level_wraps(module):
    """(name, site) for module-level `h = tf.custom_gradient(f)`: importers call `h`."""
    by_func = {id(site.func): site for site in module.sites}
    for node in module.tree.body:
        if (isinstance(node, ast.Assign) and len(node.targets) == 1
                and isinstance(node.targets[0], ast.Name) and isinstance(node.value, ast.Call)
                and node.value.args and isinstance(node.value.args[0], ast.Name)):
            binding = module.names.definitions(node.value.args[0], module.names.module)
            if binding is not None and id(binding.node) in by_func:
                from cglint.facts import CUSTOM_GRADIENT
                if module.resolve(node.value.func) in CUSTOM_GRADIENT:
                    yield node.targets[0].id, by_func[id(binding.node)]


def _imports(tree):
    """(module, level) of every module an import statement may load, anywhere in it: for
    `from pkg import name`, both `pkg` and `pkg.name` (name may be a submodule)."""
    from cglint.statements import statement_index

    index = statement_index(tree)
    imports = sorted(index[ast.Import] + index[ast.ImportFrom],
                     key=lambda node: (node.lineno, node.col_offset))
    for node in imports:
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield alias.name, 0
        elif isinstance(node, ast.ImportFrom):
            yield node.module or "", node.level
            for alias in node.names:
                if alias.name != "*":
                    yield ("%s.%s" % (node.module, alias.name) if node.module
                           else alias.name), node.level


def top_level_import_statements(tree):
    """The import statements that run when the module is imported: at its top level and
    in its top-level `if`, `try`, `with` and loop bodies, not in a def or class."""
    found, pending = [], list(tree.body)
    while pending:
        node = pending.pop()
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            found.append(node)
        elif isinstance(node, (ast.If, ast.For, ast.While, ast.With, ast.Try)):
            for name in ("body", "orelse", "finalbody"):
                pending += getattr(node, name, [])
            for handler in getattr(node, "handlers", []):
                pending += handler.body
    return found


# What a handler that catches KeyError names (catches_key_error), or a bare `except:`.
_CATCHES_KEY_ERROR = re.compile(
    r"KeyError|LookupError|Exception|StandardError|except[ \t]*:")


def _may_catch_key_error(text):
    """Whether the text may hold a handler that catches KeyError: without one of its words
    no tree walk is needed (most modules of a large import closure)."""
    return "import" in text and _CATCHES_KEY_ERROR.search(text) is not None


def _imports_catching_key_error(tree):
    """(module, level) of the imports inside the body of a `try` one of whose handlers
    catches KeyError (`try: import special_grads / except KeyError:`, for a module that
    registers a gradient TF may already have)."""
    for node in ast.walk(tree):
        if isinstance(node, ast.Try) and any(catches_key_error(h.type) for h in node.handlers):
            for statement in node.body:
                yield from _imports(ast.Module(body=[statement], type_ignores=[]))


def catches_key_error(expr):
    """Whether an `except` of this type expression (None: a bare `except:`) catches a
    KeyError: it, a base of it (Python 2's StandardError too), or a tuple holding one."""
    if expr is None:
        return True  # a bare except
    if isinstance(expr, ast.Tuple):
        return any(catches_key_error(element) for element in expr.elts)
    name = expr.attr if isinstance(expr, ast.Attribute) else getattr(expr, "id", None)
    return name in ("KeyError", "LookupError", "Exception", "BaseException", "StandardError")


def _reexports(tree):
    """name -> (module, level, original name) for module-level from-imports."""
    found = {}
    for node in tree.body:
        if isinstance(node, ast.ImportFrom):
            for alias in node.names:
                if alias.name != "*":
                    found[alias.asname or alias.name] = (node.module or "", node.level, alias.name)
    return found


_PROJECT: Optional[Project] = None


def current():
    """The process's Project (one per process: the pool's workers each keep their own)."""
    global _PROJECT
    if _PROJECT is None:
        _PROJECT = Project()
    return _PROJECT


def new_run():
    """Called as a run starts (a command line's paths, an editor's check, a file checked
    alone): see the project on disk as it is now."""
    if _PROJECT is not None:
        _PROJECT.new_run()
