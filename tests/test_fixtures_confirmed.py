"""Every fixture behaves under real TensorFlow 1.8 as its `# run:` header says, and every
rule is proven: a bad fixture confirmed failing and a good one confirmed working, on both
interpreters (a rule about Python 2 syntax fails on 2.7 only, by design)."""
import os

import pytest

from cglint import engine
from cglint.oracle import envs
from cglint.oracle.confirm import confirm_paths
from fixture_files import ROOT, fixture_name, fixture_paths, rule_of

# Rules whose hazard is Python syntax: their bad fixtures fail only where that syntax is
# invalid, so they must fail on at least one interpreter, not on both.
SYNTAX_RULES = ("CG301", "CG302")


@pytest.fixture(scope="module")
def records():
    interpreters, errors = envs.find_interpreters(tf_pythons=envs.tf_pythons_from_env())
    if errors:
        pytest.fail("TF 1.8 interpreters unavailable (run `cglint confirm --setup`): %s" % errors)
    return confirm_paths([ROOT], interpreters)


def test_every_fixture_run_is_confirmed(records):
    bad = ["%s [%s]: expected %s, observed %s" % (
        os.path.relpath(r.path, ROOT), r.interpreter, r.expected,
        r.error or r.result.describe()) for r in records if r.status != "confirmed"]
    assert not bad, "\n".join(bad)
    assert {r.path for r in records} == set(fixture_paths())  # none skipped


def test_every_rule_is_proven_by_tf18(records):
    proof = {}  # code -> {"bad": {interpreters that failed}, "good": {interpreters that ran}}
    for record in records:
        code = rule_of(record.path)
        if code is None or record.status != "confirmed":
            continue
        kind = fixture_name(record.path).split("_")[0]
        if (kind == "bad") != record.expected.ok:
            proof.setdefault(code, {"bad": set(), "good": set()})[kind].add(record.interpreter)
    both = {"py27", "py36"}
    unproven = []
    for code in engine.rules():
        if code.startswith("CG00"):
            continue
        seen = proof.get(code, {"bad": set(), "good": set()})
        bad_enough = seen["bad"] if code in SYNTAX_RULES else seen["bad"] == both
        if not bad_enough or seen["good"] != both:
            unproven.append("%s (bad fails on %s, good runs on %s)" % (
                code, sorted(seen["bad"]) or "none", sorted(seen["good"]) or "none"))
    assert not unproven, "rules not proven on TF 1.8: " + ", ".join(unproven)
