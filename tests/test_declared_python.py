"""The target Python a project declares (cglint.declared_python), used where no
target-python is set, as ruff uses requires-python."""
import pytest

from cglint import config
from cglint.declared_python import DeclaredPython, target_for


@pytest.mark.parametrize("specifier, target", [
    (">=3.5", "3.5"),
    (">=3.6", "3.6"),
    (">=3.7", "3.6"),  # TF 1.8 has no wheel past 3.6: its newest target
    ("~=3.4", "3.5"),
    (">=2.7, !=3.0.*, !=3.1.*", "2.7"),
    (">2.7", "2.7"),
    (">3.5", "3.5"),  # 3.5.1
    (">=3.5.3, !=3.5.*", "3.6"),
    ("<4, >=3.6", "3.6"),
    ("==3.6.*", "3.6"),
    ("!=3.0.*", None),  # no lower bound
    ("", None),
])
def test_target_for(specifier, target):
    assert target_for(specifier) == target


def _write(folder, name, text):
    folder.mkdir(parents=True, exist_ok=True)
    (folder / name).write_text(text)


def test_each_project_file_and_the_closest_project_wins(tmp_path):
    _write(tmp_path / "a", "setup.py", 'setup(name="a", python_requires=(\n    ">=3.6"))\n')
    _write(tmp_path / "b", "setup.cfg", "[options]\npython_requires = >=3.5\n")
    _write(tmp_path / "c", "pyproject.toml", '[project]\nname = "c"\nrequires-python = ">=2.7"\n')
    _write(tmp_path / "d", "setup.py", "setup(name='d')\n")  # a project, nothing declared
    _write(tmp_path / "d" / "sub" / "pkg", "m.py", "")
    _write(tmp_path, "setup.py", 'setup(python_requires=">=3.6")\n')  # above d: not d's
    declared = DeclaredPython()
    assert declared.of(str(tmp_path / "a"))[0] == "3.6"
    assert declared.of(str(tmp_path / "b"))[0] == "3.5"
    assert declared.of(str(tmp_path / "c"))[0] == "2.7"
    assert declared.of(str(tmp_path / "d" / "sub" / "pkg")) == (None, "")


def test_a_set_target_wins_over_the_declared_one(tmp_path):
    _write(tmp_path, "setup.py", 'setup(python_requires=">=3.6")\n')
    _write(tmp_path / "pkg", "m.py", "")
    path = str(tmp_path / "pkg" / "m.py")
    assert config.Resolver().settings_for(path).options.target_python == (3, 6)
    command_line = config.Config(target_python="2.7")
    assert config.Resolver(command_line).settings_for(path).options.target_python == (2, 7)
    _write(tmp_path, "setup.cfg", "[cglint]\ntarget-python = 3.5\n")
    assert config.Resolver().settings_for(path).options.target_python == (3, 5)


def test_odd_or_hostile_project_files_declare_nothing(tmp_path):
    _write(tmp_path / "a", "pyproject.toml", 'project = "demo"\nrequires-python = ">=3.6"\n')
    _write(tmp_path / "b", "pyproject.toml",
           "requires-python = 1\nx = " + "[" * 5000 + "]" * 5000 + "\n")
    _write(tmp_path / "c", "setup.cfg", "[options\npython_requires = >=3.6\n")
    declared = DeclaredPython()
    for name in "abc":
        assert declared.of(str(tmp_path / name))[0] is None


def test_isolated_and_a_named_config_do_not_infer(tmp_path):
    _write(tmp_path, "setup.py", 'setup(python_requires=">=3.6")\n')
    _write(tmp_path / "pkg", "m.py", "")
    path = str(tmp_path / "pkg" / "m.py")
    assert config.Resolver(fixed=config.Config()).settings_for(path).options.target_python \
        == (2, 7)


CLASSIFIERS = """setup(name="x", classifiers=[
    "Programming Language :: Python :: Implementation :: CPython",
%s])
"""


@pytest.mark.parametrize("versions, target", [
    (["3.5", "3.6"], "3.5"),
    (["3", "3.6"], "3.6"),
    (["3 :: Only"], "3.5"),  # no minor: TF 1.8's oldest Python 3 target
    (["2", "2.7", "3", "3.6"], "2.7"),
    (["2.7"], "2.7"),
    ([], None),  # only an implementation classifier: nothing declared
])
def test_classifiers_declare_when_no_specifier_does(tmp_path, versions, target):
    listed = "".join('    "Programming Language :: Python :: %s",\n' % v for v in versions)
    _write(tmp_path, "setup.py", CLASSIFIERS % listed)
    assert DeclaredPython().of(str(tmp_path))[0] == target


def test_a_specifier_in_any_project_file_comes_before_classifiers(tmp_path):
    _write(tmp_path, "setup.py", CLASSIFIERS % '    "Programming Language :: Python :: 3.6",\n')
    _write(tmp_path, "setup.cfg", "[options]\npython_requires = >=2.7\n")
    assert DeclaredPython().of(str(tmp_path)) == ("2.7", str(tmp_path / "setup.cfg"))
    _write(tmp_path / "cfg", "setup.cfg",
           "[metadata]\nclassifiers =\n    Programming Language :: Python :: 3.5\n")
    assert DeclaredPython().of(str(tmp_path / "cfg"))[0] == "3.5"


def test_sdist_pkg_info_and_an_unpacked_wheel(tmp_path):
    _write(tmp_path / "sdist", "PKG-INFO", "Metadata-Version: 1.1\nRequires-Python: >=3.6\n")
    _write(tmp_path / "wheel" / "demo-1.0.dist-info", "METADATA",
           "Metadata-Version: 2.1\nClassifier: Programming Language :: Python :: 3.5\n")
    _write(tmp_path / "wheel" / "demo", "m.py", "")
    _write(tmp_path / "py3wheel" / "demo-1.0.dist-info", "METADATA", "Name: demo\n")
    _write(tmp_path / "py3wheel" / "demo-1.0.dist-info", "WHEEL", "Tag: py3-none-any\n")
    _write(tmp_path / "both" / "demo-1.0.dist-info", "WHEEL",
           "Tag: py2-none-any\nTag: py3-none-any\n")
    # site-packages: many wheels side by side, none of them says which file is whose
    _write(tmp_path / "site" / "a-1.0.dist-info", "METADATA",
           "Classifier: Programming Language :: Python :: 3.6\n")
    _write(tmp_path / "site" / "b-1.0.dist-info", "METADATA", "Name: b\n")
    declared = DeclaredPython()
    assert declared.of(str(tmp_path / "sdist"))[0] == "3.6"
    assert declared.of(str(tmp_path / "wheel" / "demo"))[0] == "3.5"
    assert declared.of(str(tmp_path / "py3wheel"))[0] == "3.5"
    assert declared.of(str(tmp_path / "both"))[0] is None
    assert declared.of(str(tmp_path / "site"))[0] is None


@pytest.mark.parametrize("check, target", [
    ("if sys.version_info.major != 3:\n    print('This Python is only compatible with "
     "Python 3, but you are running Python {}.'.format(sys.version_info.major))\n", "3.5"),
    ("if sys.version_info < (3, 6):\n    sys.exit('Python>=3.6 is required.')\n", "3.6"),
    ("if sys.version_info[:2] < (3, 5):\n    raise RuntimeError('needs 3.5')\n", "3.5"),
    # near-misses: a test that picks dependencies, a check that refuses nothing, broken text
    ("if sys.version_info < (3, 4):\n    requires.append('enum34')\n", None),
    ("if sys.version_info < (3, 0):\n    print('building the Python 2 wheel')\n", None),
    ("if sys.version_info >= (3, 0):\n    sys.exit(1)\n", None),
    ("if sys.version_info < (3, 5:\n    sys.exit(1)\n", None),
])
def test_setup_py_refusing_older_pythons(tmp_path, check, target):
    _write(tmp_path, "setup.py", "import sys\n" + check + "setup(name='x')\n")
    assert DeclaredPython().of(str(tmp_path))[0] == target


def test_a_version_test_that_adds_a_dependency_and_says_so_declares_nothing(tmp_path):
    _write(tmp_path, "setup.py", "import sys\ninstall_requires = []\n"
           "if sys.version_info < (3, 4):\n    install_requires.append('enum34')\n"
           "    print('enum34 is required on Python < 3.4; adding it')\nsetup(name='x')\n")
    assert DeclaredPython().of(str(tmp_path))[0] is None
    _write(tmp_path / "note", "setup.py", "import sys\nif sys.version_info < (3, 5):\n"
           "    print('note: Python 2 builds are slower')\nsetup(name='x')\n")
    assert DeclaredPython().of(str(tmp_path / "note"))[0] is None
