"""The linter's findings on every fixture equal the fixture's `# lint:` header."""
import os

import pytest

from cglint import check, engine
from fixture_files import ROOT, fixture_paths, header_of, rule_of

PATHS = fixture_paths()


@pytest.mark.parametrize("path", PATHS, ids=[os.path.relpath(p, ROOT) for p in PATHS])
def test_findings_match_lint_header(path):
    header = header_of(path)
    major, minor = (int(part) for part in header.target_python.split("."))
    with open(path, "rb") as handle:
        data = handle.read()
    result = check.check_bytes(path, data, engine.Options(target_python=(major, minor)))
    assert not result.error
    (result,) = check.finish([result], lambda _: engine.Options(target_python=(major, minor)))
    found = sorted((d.code, d.line, d.col) for d in result.diagnostics)
    assert found == header.findings, "\n".join(d.format_text() for d in result.diagnostics)


@pytest.mark.parametrize("path", PATHS, ids=[os.path.relpath(p, ROOT) for p in PATHS])
def test_bad_fixtures_trigger_their_own_rule_and_good_ones_do_not(path):
    code = rule_of(path)
    if code is None:
        return
    header = header_of(path)
    codes = {finding[0] for finding in header.findings}
    if os.path.basename(path).startswith("bad_"):
        assert code in codes
    else:
        assert os.path.basename(path).startswith("good_") and code not in codes


def test_every_rule_has_a_bad_and_a_good_fixture():
    kinds = {}
    for path in PATHS:
        code = rule_of(path)
        if code:
            kinds.setdefault(code, set()).add(os.path.basename(path).split("_")[0])
    missing = [code for code in engine.rules() if not code.startswith("CG00")
               and kinds.get(code) != {"bad", "good"}]
    assert not missing, "rules without both a bad_ and a good_ fixture: %s" % missing
