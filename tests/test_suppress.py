"""`# noqa` comments: what they silence, where they count, and the unused-code report."""
import textwrap
from dataclasses import replace

import pytest

from cglint import check, engine, suppress
from cglint.cli import main
from cglint.fix import apply_edits

BAD = textwrap.dedent("""\
    import tensorflow as tf

    @tf.custom_gradient
    def f(x):
        return x, lambda dy: (dy, dy){noqa}
    """)
OPTIONS = engine.Options()


def codes_of(text, report_unused=False, options=OPTIONS):
    result = check.check_text("m.py", text, replace(options, report_unused_noqa=report_unused))
    return [(d.code, d.line) for d in result.diagnostics]


def test_unsilenced_finding_is_reported():
    assert codes_of(BAD.format(noqa="")) == [("CG103", 5)]


@pytest.mark.parametrize("comment", [
    "  # noqa", "  # noqa: CG103", "  #noqa:CG103", "  # NOQA: cg103", "  # noqa: CG1",
    "  # noqa: E501, CG103", "  # noqa:E501 CG103", "  # type: ignore  # noqa: CG103",
    "  # noqa: CG103 the count is checked at run time",
])
def test_noqa_on_the_reported_line(comment):
    assert codes_of(BAD.format(noqa=comment)) == []


@pytest.mark.parametrize("comment", ["  # noqa: CG101", "  # noqa: E501", "  # noqa:CG2",
                                     "  # no qa", "  # noqa-ish: CG104"])
def test_noqa_for_other_codes_does_not_silence(comment):
    assert codes_of(BAD.format(noqa=comment)) == [("CG103", 5)]


@pytest.mark.parametrize("line, comment", [(3, "  # noqa: CG103"), (4, "  # noqa")])
def test_noqa_on_the_decorator_or_def_line_of_the_function(line, comment):
    lines = BAD.format(noqa="").splitlines(True)
    lines[line - 1] = lines[line - 1].rstrip("\n") + comment + "\n"
    assert codes_of("".join(lines)) == []


def test_noqa_inside_a_string_is_not_a_directive():
    text = BAD.format(noqa="").replace("(dy, dy)", '(dy, dy) if "# noqa" else dy')
    assert suppress.scan(text).inline == {}
    text = BAD.format(noqa="").replace("return", 'return "#noqa: CG103" and')
    assert suppress.scan(text).inline == {}


def test_file_directive_alone_on_its_line_skips_the_file():
    assert codes_of("# cglint: noqa\n" + BAD.format(noqa="")) == []
    assert codes_of(BAD.format(noqa="") + "    # CGLINT:NOQA\n") == []
    assert codes_of("x = 1  # cglint: noqa\n" + BAD.format(noqa="")) == [("CG103", 6)]
    assert codes_of('"""\n# cglint: noqa\n"""\n' + BAD.format(noqa="")) == [("CG103", 8)]


def test_file_directive_with_codes_skips_only_those():
    text = BAD.format(noqa="")
    assert codes_of("# cglint: noqa: CG103\n" + text) == []
    assert codes_of("# cglint: noqa: CG101\n" + text) == [("CG103", 6)]
    assert codes_of("# cglint: noqa: CG101\n# cglint: noqa: CG1\n" + text) == []
    assert suppress.scan("# cglint: noqa\n# cglint: noqa: CG101\n").skip_file


def test_directives_before_a_tokenize_error_still_count():
    text = BAD.format(noqa="  # noqa: CG103") + "s = '''never closed\n"
    directives = suppress.scan(text)
    assert directives.inline[5].codes == ("CG103",)


def test_python2_source_directives_are_read():
    text = BAD.format(noqa="  # noqa: CG103") + 'print "done"  # noqa: CG001\n'
    assert sorted(suppress.scan(text).inline) == [5, 6]
    assert codes_of(text) == []


def test_unused_codes_are_reported_only_when_asked():
    text = BAD.format(noqa="  # noqa: CG103, CG101, E501")
    assert codes_of(text) == []
    result = check.check_text("m.py", text, replace(OPTIONS, report_unused_noqa=True))
    [finding] = result.diagnostics
    assert (finding.code, finding.line, finding.col) == ("CG003", 5, 36)
    assert finding.message == "unused `noqa` code: CG101"


def test_bare_noqa_other_tools_codes_and_disabled_rules_are_not_judged():
    for comment in ("  # noqa", "  # noqa: CG103"):
        assert codes_of(BAD.format(noqa=comment), report_unused=True) == []
    assert codes_of(BAD.format(noqa="  # noqa: E501"), report_unused=True) == [("CG103", 5)]
    only_cg1 = engine.Options(select=("CG1",))
    text = BAD.format(noqa="  # noqa: CG103, CG301")
    assert codes_of(text, True, only_cg1) == []  # CG301 did not run: it may be needed
    assert codes_of(text, True) == [("CG003", 5)]
    ignoring = engine.Options(ignore=("CG003",))
    assert codes_of(text, True, ignoring) == []


@pytest.mark.parametrize("comment, fixed", [
    ("  # noqa: CG103, CG101", "  # noqa: CG103"),
    ("  # noqa: CG101, E501", "  # noqa: E501"),
    ("  # noqa: CG101", ""),
    ("\t# noqa:CG101 the reason", "\t# the reason"),
    ("  # type: ignore  # noqa: CG101", "  # type: ignore"),
    ("  # noqa: CG101  # keep this note", "  # keep this note"),  # not four blanks
])
def test_unused_code_fix(comment, fixed):
    text = BAD.format(noqa=comment)
    result = check.check_text("m.py", text, replace(OPTIONS, report_unused_noqa=True))
    [(diagnostic, edits)] = result.fixes
    assert diagnostic.code == "CG003"
    assert apply_edits(text, edits) == BAD.format(noqa=fixed)


@pytest.mark.parametrize("text, fixed", [
    # A directive alone on its line goes with the line, whatever ends it.
    ("def f():\n    # noqa: CG101\n    return 1\n", "def f():\n    return 1\n"),
    ("def f():\r\n    # noqa: CG101\r\n    return 1\r\n", "def f():\r\n    return 1\r\n"),
    # With no line break after it, the line is left empty (the file keeps its last line).
    ("x = 1\n# noqa: CG101", "x = 1\n"),
    # Another comment or code on the line keeps the line.
    ("x = 1\n# why  # noqa: CG101\ny = 2\n", "x = 1\n# why\ny = 2\n"),
    ("x = 1\n# noqa: CG101  # why\ny = 2\n", "x = 1\n# why\ny = 2\n"),
    # ... indented as the directive was.
    ("if x:\n    # noqa: CG101  # why\n    y = 2\n", "if x:\n    # why\n    y = 2\n"),
    ("if x:\n    # noqa: CG101 why\n    y = 2\n", "if x:\n    # why\n    y = 2\n"),
])
def test_unused_directive_alone_on_its_line_is_removed_with_the_line(text, fixed):
    result = check.check_text("m.py", text, replace(OPTIONS, report_unused_noqa=True))
    [(diagnostic, edits)] = result.fixes
    assert diagnostic.code == "CG003"
    assert apply_edits(text, edits) == fixed


def test_command_line_reports_and_fixes_unused_noqa(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    path = tmp_path / "m.py"
    path.write_text(BAD.format(noqa="  # noqa: CG103, CG101"))
    assert main(["m.py"]) == 0
    assert main(["m.py", "--report-unused-noqa"]) == 1
    assert "m.py:5:36: CG003 [*] unused `noqa` code: CG101" in capsys.readouterr().out
    assert main(["m.py", "--report-unused-noqa", "--fix"]) == 0
    assert path.read_text() == BAD.format(noqa="  # noqa: CG103")


def test_directives_are_read_up_to_the_last_noqa_line_only():
    # The tokenizer stops after the last line holding `noqa`: what comes later (even
    # text it cannot tokenize) changes nothing, and a string that starts before that
    # line is still a string.
    text = 'x = """\n# noqa\n"""\ny = 1  # noqa: CG101\nz = 2  # other\n'
    directives = suppress.scan(text)
    assert sorted(directives.inline) == [4]
    assert directives.inline[4].codes == ("CG101",)
    broken = suppress.scan(text + 'w = """never closed\n')
    assert broken.inline == directives.inline
