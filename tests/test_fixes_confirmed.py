"""Every fix cglint offers for a bad fixture turns it into a program that runs on TF 1.8
under Python 2.7 (and 3.6): the fixed text is linted clean and confirmed by the oracle."""
import os
import re

import pytest

from cglint import autofix, engine
from cglint.oracle import envs
from cglint.oracle.confirm import confirm_paths
from fixture_files import ROOT

# Bad fixtures whose every finding has a fix (with --unsafe-fixes).
FIXABLE = [
    "CG302/bad_super_without_arguments.py",
    "CG302/bad_print_end.py",
    "CG302/bad_raise_from.py",
    "CG302/bad_metaclass_keyword.py",
    "CG402/bad_math_log_in_grad.py",
    "CG402/bad_compat_v1_session.py",
    "CG402/bad_import_as_through_tf_python.py",
    "CG402/bad_tape_output_gradients_tensor.py",
    "CG403/bad_keepdims_moments.py",
    "CG403/bad_positional_cross_entropy.py",
    "CG403/bad_required_f_of_custom_gradient.py",
]
_HEADER_LINE = re.compile(r"^# (lint|run(\[\w+\])?|mode|target-python):.*\n", re.M)


def _fixed(relative):
    path = os.path.join(ROOT, relative)
    with open(path, encoding="utf-8") as handle:
        text = handle.read()
    fixed = autofix.fix_text(path, text, engine.Options(), unsafe=True)
    return text, fixed


@pytest.mark.parametrize("relative", FIXABLE)
def test_the_fixes_remove_every_finding(relative):
    text, fixed = _fixed(relative)
    assert fixed.text != text
    assert fixed.result.diagnostics == []


def test_every_fixed_fixture_runs_on_tf18(tmp_path):
    interpreters, errors = envs.find_interpreters(tf_pythons=envs.tf_pythons_from_env())
    if errors:
        pytest.fail("TF 1.8 interpreters unavailable (run `cglint confirm --setup`): %s" % errors)
    for relative in FIXABLE:
        _, fixed = _fixed(relative)
        body = _HEADER_LINE.sub("", fixed.text)
        target = tmp_path / relative.replace("/", "_")
        target.write_text("# lint: clean\n# run: ok\n" + body, encoding="utf-8")
    records = confirm_paths([str(tmp_path)], interpreters)
    bad = ["%s [%s]: %s" % (os.path.basename(r.path), r.interpreter,
                            r.error or r.result.describe()) for r in records
           if r.status != "confirmed"]
    assert not bad, "\n".join(bad)
    assert {r.interpreter for r in records} == {"py27", "py36"}
    assert len(records) == 2 * len(FIXABLE)
