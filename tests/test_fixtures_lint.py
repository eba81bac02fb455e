"""The linter's findings on every fixture equal the fixture's `# lint:` headers; a project
fixture gives each of its modules the same findings linted whole and file by file."""
import os

import pytest

from cglint import check, engine
from fixture_files import (ROOT, fixture_name, fixture_paths, header_of, is_project,
                           project_files, rule_of)

PATHS = fixture_paths()
PROJECTS = [path for path in PATHS if is_project(path)]


def _options(path):
    header = header_of(path)
    major, minor = (int(part) for part in header.target_python.split("."))
    return engine.Options(target_python=(major, minor))


def _lint_run(paths, options):
    """{path: sorted (code, line, col)} of one run over `paths`, whole-run findings too."""
    results = []
    for path in paths:
        with open(path, "rb") as handle:
            results.append(check.check_bytes(path, handle.read(), options))
    assert not any(result.error for result in results)
    check.finish(results, lambda _: options)
    diagnostics = [d for r in results for d in r.diagnostics]
    found = {path: [] for path in paths}
    for d in diagnostics:
        found[d.path].append((d.code, d.line, d.col))
    return {path: sorted(codes) for path, codes in found.items()}, diagnostics


def _expected(path, entry):
    return header_of(path, entry).findings


@pytest.mark.parametrize("path", PATHS, ids=[os.path.relpath(p, ROOT) for p in PATHS])
def test_findings_match_lint_header(path):
    modules = project_files(path) if is_project(path) else [path]
    found, diagnostics = _lint_run(modules, _options(path))
    expected = {module: _expected(module, module == path) for module in modules}
    assert found == expected, "\n".join(d.format_text() for d in diagnostics)


@pytest.mark.parametrize("path", PROJECTS, ids=[os.path.relpath(p, ROOT) for p in PROJECTS])
def test_project_fixture_modules_alone_get_the_findings_of_the_whole_project(path):
    options = _options(path)
    whole, _ = _lint_run(project_files(path), options)
    for module in project_files(path):
        alone, diagnostics = _lint_run([module], options)
        assert alone[module] == whole[module], "\n".join(d.format_text() for d in diagnostics)


@pytest.mark.parametrize("path", PATHS, ids=[os.path.relpath(p, ROOT) for p in PATHS])
def test_bad_fixtures_trigger_their_own_rule_and_good_ones_do_not(path):
    code = rule_of(path)
    if code is None:
        return
    modules = project_files(path) if is_project(path) else [path]
    codes = {finding[0] for module in modules for finding in _expected(module, module == path)}
    if fixture_name(path).startswith("bad_"):
        assert code in codes
    else:
        assert fixture_name(path).startswith("good_") and code not in codes


def test_every_rule_has_a_bad_and_a_good_fixture():
    kinds = {}
    for path in PATHS:
        code = rule_of(path)
        if code:
            kinds.setdefault(code, set()).add(fixture_name(path).split("_")[0])
    missing = [code for code in engine.rules() if not code.startswith("CG00")
               and kinds.get(code) != {"bad", "good"}]
    assert not missing, "rules without both a bad_ and a good_ fixture: %s" % missing


def test_project_fixtures_exist():
    assert PROJECTS, "no project fixture (a folder with a main.py) under fixtures/"
