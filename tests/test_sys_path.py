"""Imports reach a project's modules the ways its programs run: through the folders a
script adds to sys.path (cglint.sys_path), and from the project's top, where an installed
project's packages are. A file checked alone must see them as its whole tree does."""
import ast
import os
import textwrap

import pytest

from cglint import project, sys_path
from cglint.cli import main


def changes(tmp_path, code, folders=("lib", "ops", "a/b")):
    for folder in folders:
        (tmp_path / folder).mkdir(parents=True, exist_ok=True)
    path = str(tmp_path / "a" / "train.py")
    code = textwrap.dedent(code)
    found = sys_path.path_changes(ast.parse(code), code, path,
                                  project.working_directories(path))
    return [os.path.relpath(folder, str(tmp_path)) for folder in found.folders], found.unknown


@pytest.mark.parametrize("code, expected", [
    ('import os, sys\nsys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "lib"))',
     ["lib"]),
    ('import os, sys\nsys.path.append(os.path.dirname(os.path.dirname('
     'os.path.abspath(__file__))) + "/ops")', ["ops"]),
    ('import os.path as osp, sys\nROOT = osp.realpath(osp.join(osp.dirname(__file__), ".."))\n'
     'sys.path.extend([ROOT, osp.join(ROOT, "lib")])', [".", "lib"]),
    ('import sys\nfrom pathlib import Path\nsys.path.insert(0, str(Path(__file__).resolve()'
     '.parent.parent / "lib"))', ["lib"]),
    ('import sys\nfrom pathlib import Path\nsys.path.append(str(Path(__file__).parents[1]))',
     ["."]),
    ('import sys\nsys.path += ["../ops"]', ["ops"]),
    ('import sys\nsys.path = ["b"] + sys.path', ["a/b"]),
    ('import site\nsite.addsitedir("../lib")', ["lib"]),
    ('import sys\nsys.path[0:0] = ["../lib"]', ["lib"]),
    ('import sys, os\nsys.path.append(os.getcwd())', ["a"]),
])
def test_folders_added_to_sys_path_are_worked_out(tmp_path, code, expected):
    assert changes(tmp_path, code) == (expected, False)


@pytest.mark.parametrize("code", [
    'import os, sys\nsys.path.insert(0, os.environ["LIB"])',  # the environment's
    'import sys\nsys.path.append("/home/someone/caffe/python")',  # another machine's
    'import sys\nsys.path.append("../no_such_folder")',
    'import sys\nsys.path.append("~/lib")',
    'import sys\nfor p in PATHS:\n    sys.path.append(p)',
])
def test_a_change_cglint_cannot_follow_is_unknown(tmp_path, code):
    assert changes(tmp_path, code) == ([], True)


def test_text_without_sys_path_is_not_walked(tmp_path):
    assert changes(tmp_path, "import os\npath = os.path.join('a', 'b')\n") == ([], False)
    # reading sys.path, or removing from it, adds nothing
    assert changes(tmp_path, "import sys\nprint(sys.path)\nsys.path.remove('x')\n") == (
        [], False)


REGISTERS = textwrap.dedent("""\
    import tensorflow as tf


    @tf.RegisterGradient("MyIdentityGrad")
    def _my_grad(op, grad):
        return grad
""")
USES = textwrap.dedent("""\
    import tensorflow as tf
    {imports}

    x = tf.constant([1.0, -2.0])
    with tf.get_default_graph().gradient_override_map({{"Sign": "{name}"}}):
        y = tf.sign(x)
    print(tf.Session().run(tf.gradients(y, x)))
""")


def write(root, files):
    for name, text in files.items():
        path = os.path.join(str(root), name)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w") as handle:
            handle.write(text)


def cg202(paths, capsys):
    code = main(["--select", "CG202", "--no-cache", "-q"] + [str(p) for p in paths])
    out = capsys.readouterr()[0]
    assert code in (0, 1), out
    return [line for line in out.splitlines() if "CG202" in line]


@pytest.mark.parametrize("name, found", [("MyIdentityGrad", False), ("MyIdentityGrd", True)])
def test_a_script_importing_its_projects_package_is_judged_alike_alone_and_whole(
        tmp_path, capsys, name, found):
    # scripts/ is no package: `import mypkg.grads` works once the project is installed
    # or run from its top, where setup.py is.
    write(tmp_path, {"setup.py": "", "mypkg/__init__.py": "", "mypkg/grads.py": REGISTERS,
                     "scripts/train.py": USES.format(imports="import mypkg.grads", name=name)})
    alone = cg202([tmp_path / "scripts" / "train.py"], capsys)
    whole = cg202([tmp_path], capsys)
    assert bool(alone) == bool(whole) == found
    if found:
        assert "did you mean `MyIdentityGrad`" in alone[0]


@pytest.mark.parametrize("name, found", [("MyIdentityGrad", False), ("MyIdentityGrd", True)])
def test_a_module_found_through_sys_path_is_judged_alike_alone_and_whole(
        tmp_path, capsys, name, found):
    imports = ("import os\nimport sys\nsys.path.insert(0, os.path.join("
               "os.path.dirname(__file__), '..', 'lib'))\nimport grads")
    write(tmp_path, {"lib/grads.py": REGISTERS,
                     "scripts/train.py": USES.format(imports=imports, name=name)})
    alone = cg202([tmp_path / "scripts" / "train.py"], capsys)
    whole = cg202([tmp_path], capsys)
    assert bool(alone) == bool(whole) == found


def test_an_unknown_sys_path_change_leaves_any_name_possible(tmp_path, capsys):
    imports = "import os\nimport sys\nsys.path.insert(0, os.environ['GRADS'])\nimport grads"
    write(tmp_path, {"scripts/train.py": USES.format(imports=imports, name="Anything")})
    assert cg202([tmp_path / "scripts" / "train.py"], capsys) == []
    # and without the change, the missing registration is found
    write(tmp_path, {"scripts/train.py": USES.format(imports="import grads", name="Anything")})
    assert len(cg202([tmp_path / "scripts" / "train.py"], capsys)) == 1


def test_search_roots_end_with_the_project_top(tmp_path):
    write(tmp_path, {"setup.cfg": "", "scripts/tools/run.py": "", "pkg/__init__.py": "",
                     "pkg/sub/__init__.py": "", "pkg/sub/m.py": ""})
    top = str(tmp_path)
    assert project.search_roots(os.path.join(top, "scripts", "tools", "run.py")) == (
        os.path.join(top, "scripts", "tools"), top)
    assert project.search_roots(os.path.join(top, "pkg", "sub", "m.py")) == (
        os.path.join(top, "pkg", "sub"), top)


SCALE = textwrap.dedent("""\
    import tensorflow as tf


    @tf.custom_gradient
    def scale(x):
        def grad(dy):
            return dy * 2.0
        return x * 2.0, grad
""")


@pytest.mark.parametrize("order", [("a.py", "b.py"), ("b.py", "a.py")])
def test_a_files_own_sys_path_is_never_lent_to_its_folder(tmp_path, capsys, order):
    # a.py puts lib/ on sys.path and b.py, beside it, does not: only a.py's `ops` is the
    # custom-gradient module, whichever file is checked first (TF 1.8: ValueError for a.py)
    path_change = ("import os\nimport sys\n"
                   "sys.path.insert(0, os.path.join(os.path.dirname(__file__), '..', 'lib'))\n")
    call = "import tensorflow as tf\nfrom ops import scale\n\ny = scale(x=tf.constant(1.0))\n"
    write(tmp_path, {"lib/ops.py": SCALE, "scripts/a.py": path_change + call,
                     "scripts/b.py": call})
    code = main(["--select", "CG105", "--no-cache", "--jobs", "1", "-q"] +
                [str(tmp_path / "scripts" / name) for name in order])
    out = capsys.readouterr()[0]
    assert code == 1
    assert [line.split(":")[0].rsplit(os.sep, 1)[-1] for line in out.splitlines()
            if "CG105" in line] == ["a.py"]


def test_a_src_layouts_packages_are_found_from_its_scripts(tmp_path, capsys):
    write(tmp_path, {"pyproject.toml": "", "src/mypkg/__init__.py": "",
                     "src/mypkg/grads.py": REGISTERS,
                     "scripts/train.py": USES.format(imports="import mypkg.grads",
                                                     name="MyIdentityGrad")})
    assert cg202([tmp_path / "scripts" / "train.py"], capsys) == []
    assert project.search_roots(str(tmp_path / "scripts" / "train.py"))[-1] == str(
        tmp_path / "src")


def test_hostile_path_expressions_end_as_unknown(tmp_path):
    # names bound to each other, a sum of 500 strings: no hang, no RecursionError
    cycle = "import sys\nA = B\nB = A\nsys.path.append(A)\n"
    chain = "import sys\nsys.path.append(" + " + ".join(['"a"'] * 500) + ")\n"
    for code in (cycle, chain):
        assert changes(tmp_path, code) == ([], True)
