"""Columns count characters everywhere: multibyte text earlier on a line moves every
finding, and every fix, by exactly the characters inserted, whatever rule made it (a
rule over the tree, over the text, a whole-run rule, `noqa`), and in Python 2 files too."""
import os
import textwrap

import pytest

from cglint import check, engine
from cglint.parse import parse
from fixture_files import ROOT, fixture_paths, header_of

# A statement of its own, with characters of 2, 2 and 3 UTF-8 bytes.
PREFIX = '_mb = "éü中"; '
PATHS = fixture_paths()


def options_for(header):
    major, minor = (int(part) for part in header.target_python.split("."))
    return engine.Options(target_python=(major, minor))


def positions(path, text, options):
    """(code, line, col, end line, end col) of each finding, and of each fix's edits."""
    result = check.check_alone(path, text, options)
    assert not result.error, result.error
    # The prefix is non-ASCII: on 2.7 it needs a coding line, which the fixtures need not.
    result.diagnostics = [d for d in result.diagnostics if not d.message.startswith(
        "non-ASCII text without a coding declaration")]
    found = sorted((d.code, d.line, d.col, d.end_line, d.end_col) for d in result.diagnostics)
    # An edit that inserts whole lines before a line (an import, a decorator) stays at
    # column 1 whatever the line holds: it is left out of the columns compared.
    edits = sorted((d.code,) + tuple(edit.span) for d, fix in result.fixes for edit in fix
                   if not _inserts_lines(edit))
    return found, edits


def _inserts_lines(edit):
    line, col, end_line, end_col = edit.span
    return (line, col) == (end_line, end_col) and col == 1 and edit.text.endswith("\n")


def parses_alike(text, original, target):
    before, after = parse(original, target), parse(text, target)
    return (after.tree is not None and after.error == before.error
            and after.python2_syntax == before.python2_syntax)


def with_prefix(text, lines, target):
    """`text` with PREFIX before the statement on each of `lines` where that keeps the
    code valid (not on a continuation line, nor before `def`, `with` and the like), and
    {line: the 1-based column it was inserted at}."""
    source = text.split("\n")
    inserted = {}
    for line in sorted(lines):
        body = source[line - 1]
        indent = len(body) - len(body.lstrip())
        candidate = body[:indent] + PREFIX + body[indent:]
        trial = source[:line - 1] + [candidate] + source[line:]
        if parses_alike("\n".join(trial), text, target):
            source = trial
            inserted[line] = indent + 1
    return "\n".join(source), inserted


def shifted(line, col, inserted):
    return col + len(PREFIX) if line in inserted and col >= inserted[line] else col


def expected_after(found, inserted):
    return sorted((code, line, shifted(line, col, inserted), end_line,
                   shifted(end_line, end_col, inserted))
                  for code, line, col, end_line, end_col in found)


@pytest.mark.parametrize("path", PATHS, ids=[os.path.relpath(p, ROOT) for p in PATHS])
def test_multibyte_text_before_a_finding_moves_it_by_characters(path):
    with open(path, encoding="utf-8") as handle:
        text = handle.read()
    options = options_for(header_of(path))
    found, edits = positions(path, text, options)
    lines = {line for _, line, *_ in found} | {line for _, line, *_ in edits}
    moved_text, inserted = with_prefix(text, lines, options.target_python)
    moved, moved_edits = positions(path, moved_text, options)
    assert moved == expected_after(found, inserted)
    assert moved_edits == expected_after(edits, inserted)


def test_every_family_of_rules_is_moved_somewhere():
    """The prefix fits before findings of nearly every rule, so the test above proves
    character columns for rules over the tree, over the text and over the API. CG201 to
    CG203 report in dict displays and decorators, where no statement fits: their
    columns are proven by fixtures/CG202/bad_accent_dropped.py, which has non-ASCII text
    before its finding, and by test_whole_run_findings_count_characters below."""
    moved = set()
    for path in PATHS:
        with open(path, encoding="utf-8") as handle:
            text = handle.read()
        options = options_for(header_of(path))
        found, _ = positions(path, text, options)
        _, inserted = with_prefix(text, {line for _, line, *_ in found}, options.target_python)
        moved |= {code for code, line, *_ in found if line in inserted}
    rules = set(engine.rules()) - {"CG001", "CG002", "CG003", "CG201", "CG202", "CG203"}
    assert rules - moved == set()


TWO_MODULES = {
    "pkg/grads.py": '''
        import tensorflow as tf

        NOTE = "dérivée"; NAME = "ClipGrad"

        @tf.RegisterGradient("ClipGrad")
        def _clip(op, grad):
            note = "梯度"; return grad, grad
    ''',
    "pkg/model.py": '''
        import tensorflow as tf
        from pkg import grads

        g = tf.get_default_graph()
        title = "modèle"; tf.RegisterGradient("ClipGrad")(lambda op, grad: grad)
        with g.gradient_override_map({"Relu": "ClipGrad", "Sign": "Mîssing"}):
            y = tf.nn.relu(tf.constant([1.0]))
    ''',
}


def test_whole_run_findings_count_characters():
    results = check.check_texts(
        {path: textwrap.dedent(code) for path, code in TWO_MODULES.items()}, engine.Options())
    found = sorted((d.path, d.code, d.line, d.col, d.end_col) for result in results
                   for d in result.diagnostics if d.code.startswith("CG2"))
    assert found == [
        # `return` after 4 blanks and `note = "梯度"; ` (13 characters, 17 bytes)
        ("pkg/grads.py", "CG204", 8, 18, 35),
        # `"Mîssing"`: 58 ASCII characters before it, its end after the 2-byte `î`...
        ("pkg/model.py", "CG202", 7, 59, 68),
        # ...and the registration after `title = "modèle"; ` (18 characters, 19 bytes)
        ("pkg/model.py", "CG203", 6, 19, 50),
    ]
