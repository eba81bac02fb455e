"""cglint.project's lookups on disk are cached in memos that forget when full, so that a
process checking a tree of any size stays flat in memory, and answer the same."""
import os

from cglint import project


def test_a_memo_forgets_everything_when_full_and_keeps_the_new_entry():
    memo = project._Memo(3)
    for key in "abc":
        memo[key] = key.upper()
    assert len(memo) == 3
    memo["d"] = "D"
    assert dict(memo) == {"d": "D"}
    found = memo["e"] = "E"  # a chained assignment, as the project code writes them
    assert found == "E" and memo["e"] == "E"


def _project_tree(root, modules):
    os.makedirs(os.path.join(root, "pkg"))
    open(os.path.join(root, "pkg", "__init__.py"), "w").close()
    with open(os.path.join(root, "pkg", "ops.py"), "w") as handle:
        handle.write("import tensorflow as tf\n\n@tf.custom_gradient\ndef scale(x):\n"
                     "    return x, lambda dy: dy\n")
    for index in range(modules):
        with open(os.path.join(root, "pkg", "m%d.py" % index), "w") as handle:
            handle.write("from pkg.ops import scale\nfrom pkg import m%d\n" % index)


def test_project_answers_the_same_when_its_memos_are_tiny(tmp_path, monkeypatch):
    _project_tree(str(tmp_path), 40)
    files = [str(tmp_path / "pkg" / ("m%d.py" % index)) for index in range(40)]

    def answers(where):
        found = []
        for path in files:
            found.append(where.offers_sites(path, "pkg.ops")[0])
            site, _ = where.imported_site(path, "pkg.ops", "scale")
            found.append(site is not None and site.name)
            found.append(where.module_path(path, "pkg.m3"))
        return found

    roomy = answers(project.Project())
    monkeypatch.setattr(project, "MEMO_SUMMARIES", 2)
    monkeypatch.setattr(project, "MEMO_LOOKUPS", 3)
    tiny = project.Project()
    assert answers(tiny) == roomy
    assert roomy[:3] == [True, "scale", str(tmp_path / "pkg" / "m3.py")]
    assert all(len(memo) <= 3 for memo in (tiny._paths, tiny._offers, tiny._files,
                                           tiny._holding, tiny._tops, tiny._this_run,
                                           tiny._summaries))


def test_offers_are_kept_per_importing_folder_and_never_carried_to_another(tmp_path):
    # Two packages, each with an `ops` module: only a's defines a custom gradient. The
    # same relative and top-level imports, asked from a, b, then a again, answer by folder.
    for name, body in (("a", "import tensorflow as tf\n\n@tf.custom_gradient\n"
                             "def scale(x):\n    return x, lambda dy: dy\n"),
                       ("b", "def scale(x):\n    return x\n")):
        folder = tmp_path / name
        folder.mkdir()
        (folder / "ops.py").write_text(body)
        (folder / "main.py").write_text("from .ops import scale\n")
    where = project.Project()
    asked = []
    for name in "aba":
        importer = str(tmp_path / name / "main.py")
        asked.append((where.offers_sites(importer, "ops", 1)[0],
                      where.offers_sites(importer, "ops")[0]))
    assert asked == [(True, True), (False, False), (True, True)]


def test_imports_of_tensorflow_modules_are_never_looked_up_in_the_project(tmp_path):
    # Checking TensorFlow's own sources: its modules are the API tables' business, and a
    # file importing twenty of them does not read twenty summaries.
    from cglint import check, engine

    ops = tmp_path / "tensorflow" / "python" / "ops"
    ops.mkdir(parents=True)
    for folder in (tmp_path / "tensorflow", tmp_path / "tensorflow" / "python", ops):
        (folder / "__init__.py").write_text("")
    (ops / "scaled.py").write_text("import tensorflow as tf\n\n@tf.custom_gradient\n"
                                   "def scale(x):\n    return x, lambda dy: dy\n")
    (tmp_path / "pkg.py").write_text("import tensorflow as tf\n\n@tf.custom_gradient\n"
                                     "def twice(x):\n    return x, lambda dy: dy\n")
    user = tmp_path / "user.py"
    user.write_text("import tensorflow as tf\nfrom tensorflow.python.ops.scaled import scale\n"
                    "from pkg import twice\n\nscale(tf.constant(1.0))\n")
    result = check.check_alone(str(user), user.read_text(), engine.Options())
    depended = {os.path.basename(dependency.path) for dependency in result.dependencies}
    assert "pkg.py" in depended and "scaled.py" not in depended


def test_eager_execution_turned_on_by_an_imported_project_module(tmp_path):
    from cglint import check, engine

    setup = tmp_path / "eager_setup.py"
    setup.write_text("import tensorflow as tf\ntf.enable_eager_execution()\n")
    (tmp_path / "later.py").write_text("import tensorflow as tf\n\ndef main():\n"
                                       "    tf.enable_eager_execution()\n")
    main = tmp_path / "main.py"
    code = ("import {module}\nimport tensorflow as tf\n\n@tf.custom_gradient\n"
            "def f(x, a=1.0):\n    return x, lambda dy: dy\n\ny = f(tf.ones([1]), a=2.0)\n")

    def found(module):
        main.write_text(code.format(module=module))
        result = check.check_alone(str(main), main.read_text(), engine.Options())
        # (files that must stay absent aside, and the searches for main.py's importers,
        # which may turn eager execution on too)
        return ([d.code for d in result.diagnostics],
                sorted(os.path.basename(d.path) for d in result.dependencies
                       if d.digest and d.kind == project.FILE))

    assert found("eager_setup") == ([], ["eager_setup.py"])
    # A switch inside a function runs only when it is called: graph mode at import. (And
    # eager_setup.py, which turns it on, does not import main.py: it is read to know so.)
    assert found("later") == (["CG105"], ["eager_setup.py", "later.py"])
    setup.write_text("import tensorflow as tf\n")
    assert found("eager_setup")[0] == ["CG105"]


def test_a_name_a_top_level_import_stores_on_tensorflow_is_not_missing(tmp_path):
    from cglint import check, engine

    compat = tmp_path / "compat.py"
    compat.write_text("import tensorflow as tf\n\ndef backport():\n"
                      "    from tensorflow.python.framework.tensor_spec import TensorSpec\n"
                      "    tf.TensorSpec = TensorSpec\n\nbackport()\n")
    main = tmp_path / "main.py"

    def found(code):
        main.write_text(code)
        result = check.check_alone(str(main), code, engine.Options())
        return [d.code for d in result.diagnostics]

    assert found("import tensorflow as tf\nimport compat\ns = tf.TensorSpec([2])\n") == []
    # Imported inside a function: it may not have run yet.
    assert found("import tensorflow as tf\ndef f():\n    import compat\n"
                 "s = tf.TensorSpec([2])\n") == ["CG402"]
    # Another name than the one it stores.
    assert found("import tensorflow as tf\nimport compat\ns = tf.math.log\n") == ["CG402"]
    compat.write_text("import tensorflow as tf\n")
    assert found("import tensorflow as tf\nimport compat\ns = tf.TensorSpec([2])\n") == \
        ["CG402"]


def test_a_file_that_never_names_tensorflow_still_calls_the_projects_custom_gradients(tmp_path):
    from cglint import check, engine

    package = tmp_path / "pkg"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "ops.py").write_text("import tensorflow as tf\n\n@tf.custom_gradient\n"
                                    "def halve(x):\n    return x, lambda dy: 0.5 * dy\n")
    model = package / "model.py"
    model.write_text("from .ops import halve\n\ndef head(x):\n    return halve(x=x)\n")
    result = check.check_alone(str(model), model.read_text(), engine.Options())
    assert [(d.code, d.line) for d in result.diagnostics] == [("CG105", 4)]


def test_a_package_init_that_turns_eager_on_runs_before_its_modules(tmp_path):
    from cglint import check, engine

    package = tmp_path / "pkg"
    package.mkdir()
    (package / "__init__.py").write_text("import tensorflow as tf\ntf.enable_eager_execution()\n")
    (package / "ops.py").write_text("import tensorflow as tf\n\n@tf.custom_gradient\n"
                                    "def halve(x):\n    return x, lambda dy: 0.5 * dy\n"
                                    "\ny = halve(x=tf.ones([1]))\n")
    train = tmp_path / "train.py"
    train.write_text("import tensorflow as tf\nfrom pkg.ops import halve\n\n"
                     "y = halve(x=tf.ones([1]))\n")
    for path in (package / "ops.py", train):
        result = check.check_alone(str(path), path.read_text(), engine.Options())
        assert result.diagnostics == [], path


def test_finding_the_importers_of_many_modules_reads_each_file_once_per_run(tmp_path,
                                                                            monkeypatch):
    # 30 modules that register a gradient each ask who imports them (CG203, CG204):
    # the package is listed once and each file's import words read once
    from cglint import check, engine, files as files_module

    root = tmp_path / "pkg"
    root.mkdir()
    (root / "__init__.py").write_text("")
    for index in range(30):
        (root / ("g%d.py" % index)).write_text(
            "import tensorflow as tf\n\n@tf.RegisterGradient('G%d')\n"
            "def _g(op, grad):\n    return grad\n" % index)
    for index in range(60):
        (root / ("plain%d.py" % index)).write_text("import os\nx = %d\n" % index)
    reads = {}
    real = files_module.read_bytes

    def counted(path, *args, **kwargs):
        reads[path] = reads.get(path, 0) + 1
        return real(path, *args, **kwargs)

    monkeypatch.setattr(files_module, "read_bytes", counted)
    texts = {str(path): path.read_text() for path in sorted(root.iterdir())}
    check.check_texts(texts, engine.Options(select=("CG203", "CG204")))
    # a few reads each (summary, import words), not one per asking module (30)
    assert reads and max(reads.values()) <= 3, max(reads.items(), key=lambda kv: kv[1])


def test_a_kept_answer_still_hands_on_the_files_it_looked_for_in_vain(tmp_path):
    # (review) importers() of a second module reused the hub's resolved imports and lost
    # the files their lookups had not found, which a later file's appearing must change
    (tmp_path / "a.py").write_text("x = 1\n")
    (tmp_path / "b.py").write_text("y = 1\n")
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "__init__.py").write_text("")
    (tmp_path / "pkg" / "hub.py").write_text("import a\nimport b\n")
    where = project.Project()
    where.absent_lookups()
    where.importers(str(tmp_path / "a.py"))
    first = {d.path for d in where.absent_lookups()}
    where.importers(str(tmp_path / "b.py"))
    second = {d.path for d in where.absent_lookups()}
    assert str(tmp_path / "pkg" / "a.py") in first
    assert second == first


def test_importers_of_a_module_in_a_namespace_package_are_looked_for_above_it(tmp_path):
    # `pkg/` without __init__.py (Python 3): `main.py` beside it imports `pkg.use`. The
    # `.py` files right in the folder above are read too, for a Python 3 target only,
    # and the module's own folder first (a big sibling folder cannot crowd it out).
    root = tmp_path / "proj"
    (root / "pkg").mkdir(parents=True)
    (root / "pkg" / "use.py").write_text("x = 1\n")
    (root / "pkg" / "train.py").write_text("from use import x\n")
    (root / "main.py").write_text("from pkg.use import x\n")
    (root / "big").mkdir()
    for index in range(project.MAX_SCANNED_FILES + 10):
        (root / "big" / ("m%d.py" % index)).write_text("")
    use = str(root / "pkg" / "use.py")
    assert project.namespace_parent(use) == str(root)
    names = lambda found: sorted(os.path.basename(p) for p in found)  # noqa: E731
    assert names(project.Project().importers(use, namespaces=True)) == ["main.py", "train.py"]
    assert names(project.Project().importers(use)) == ["train.py"]  # Python 2.7: none
    (root / "pkg" / "setup.py").write_text("")  # pkg/ is a project's top: not above it
    assert project.namespace_parent(use) is None
    (root / "pkg" / "setup.py").unlink()
    (root / "pkg" / "__init__.py").write_text("")  # a package: its root, as before
    assert project.namespace_parent(use) is None
    assert project.namespace_parent("/x.py") is None and project.namespace_parent("/a/x.py") is None


def test_another_project_file_is_shown_as_the_checked_file_was_given(tmp_path, monkeypatch):
    # (probe Z2) run from `/` on an absolute path, a message named the other file
    # `tmp/...`: it now follows the checked file's own form
    other = str(tmp_path / "pkg" / "grads.py")
    monkeypatch.chdir("/")
    assert project.shown_path(other, like=str(tmp_path / "main.py")) == other
    assert project.shown_path(other) == other.lstrip("/")
    monkeypatch.chdir(str(tmp_path))
    assert project.shown_path(other, like="main.py") == os.path.join("pkg", "grads.py")
