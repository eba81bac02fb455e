"""Calls of a custom-gradient function reached through a package's relative imports:
`from . import f` / `from .. import f` of a function the package's `__init__.py` defines
(Python takes the package's attribute when it has no submodule `f`), `from . import *`, and
`import lib; lib.layers.f(...)` where `lib/__init__.py` does `from . import layers`. The
call-site rules see them whether a file is checked alone or with its tree."""
import textwrap

from cglint import check, engine

GRL = """
import tensorflow as tf


@tf.custom_gradient
def grl(x, lam=1.0):
    def grad(dy):
        return -lam * dy
    return tf.identity(x), grad
"""


def write(root, files):
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text))


def findings(root, files, select=("CG103", "CG105", "CG108", "CG111")):
    """{relative path: [(code, line)]} linted whole, after checking each file alone gives
    the same."""
    write(root, files)
    options = engine.Options(select=tuple(select), target_python=(2, 7))
    paths = sorted(str(root / name) for name in files)

    def run(group):
        results = check.check_texts({p: open(p).read() for p in group}, options)
        return {r.path: sorted((d.code, d.line) for d in r.diagnostics) for r in results}

    whole = run(paths)
    for path in paths:
        assert run([path]) == {path: whole[path]}, path
    return {name: whole[str(root / name)] for name in files if whole[str(root / name)]}


def test_from_dot_import_a_function_of_the_package_init(tmp_path):
    files = {"pkg/__init__.py": GRL,
             "pkg/heads.py": "from . import grl\n\ndef f(h):\n    return grl(h, lam=0.1)\n",
             "pkg/nets/__init__.py": "",
             "pkg/nets/adv.py": "from .. import grl\n\ndef f(h):\n    return grl(h, 0.5)\n"}
    assert findings(tmp_path, files) == {"pkg/heads.py": [("CG105", 4)],
                                         "pkg/nets/adv.py": [("CG103", 4)]}


def test_star_import_of_the_own_package(tmp_path):
    files = {"pkg/__init__.py": GRL,
             "pkg/heads.py": "from . import *\n\ndef f(h):\n    return grl(h, 'hard')\n"}
    assert findings(tmp_path, files) == {"pkg/heads.py": [("CG103", 4), ("CG108", 4)]}


def test_a_submodule_the_package_init_imports(tmp_path):
    files = {"lib/__init__.py": "from . import layers\n",
             "lib/layers.py": GRL,
             "main.py": "import lib\nimport tensorflow as tf\nx = tf.ones([2])\n"
                        "y = lib.layers.grl(x, lam=0.1)\n"}
    assert findings(tmp_path, files) == {"main.py": [("CG105", 4)]}


def test_packages_importing_each_other_are_no_loop(tmp_path):
    files = {"a/__init__.py": "from b import layers\nfrom . import sub\n",
             "a/sub.py": "x = 1\n",
             "b/__init__.py": "from a import sub\nfrom . import layers\n",
             "b/layers.py": GRL,
             "main.py": "import a\nimport tensorflow as tf\n"
                        "y = a.layers.grl(tf.ones([2]), lam=0.1)\n"}
    # `a.layers` is `b.layers` (not followed: reported nowhere, and no endless lookup)
    assert findings(tmp_path, files) == {}


def test_positional_tensor_calls_stay_clean(tmp_path):
    files = {"pkg/__init__.py": GRL + "\n\ndef weight(x, scale=1.0):\n    return x * scale\n",
             "pkg/helpers.py": "def total(x, factor=1.0):\n    return x * factor\n",
             "pkg/heads.py": "from . import grl, helpers, weight\n\n"
                             "def f(h):\n    return helpers.total(weight(grl(h), scale=2.0),"
                             " factor=0.5)\n",
             "pkg/star.py": "from . import *\n\ndef f(h):\n    return grl(grl(h))\n"}
    assert findings(tmp_path, files) == {}


def test_a_cached_clean_result_is_dropped_when_a_reexported_module_changes(
        tmp_path, monkeypatch, capsys, recorded_caches):
    # main.py is clean while `grl` is plain; the package `__init__`s only name the modules
    # where it lives, so the answer "no custom gradient here" rests on those modules too.
    from cglint.cli import main

    monkeypatch.chdir(tmp_path)
    plain = "def grl(x, lam=1.0):\n    return x\n"
    write(tmp_path, {"pkg/__init__.py": "from .ops import grl\n", "pkg/ops.py": plain,
                     "lib/__init__.py": "from . import layers\n", "lib/layers.py": plain,
                     "main.py": "import tensorflow as tf\nfrom pkg import grl\nimport lib\n"
                                "x = tf.ones([2])\na = grl(x, lam=0.1)\n"
                                "b = lib.layers.grl(x, lam=0.1)\n"})
    assert main(["-q", "--isolated", "main.py"]) == 0
    capsys.readouterr()
    for name in ("pkg/ops.py", "lib/layers.py"):
        (tmp_path / name).write_text(textwrap.dedent(GRL))
    assert main(["-q", "--isolated", "main.py"]) == 1
    out = capsys.readouterr().out
    assert "main.py:5:5: CG105" in out and "main.py:6:5: CG105" in out
    assert recorded_caches[1].hits == 0
