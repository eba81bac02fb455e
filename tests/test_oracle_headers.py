"""Fixture headers (fixtures/README.md) and how an observed outcome matches one."""
import pytest

from cglint.oracle.headers import HeaderError, Outcome, parse_header, read_header


def test_full_header():
    header = parse_header(
        "# -*- coding: utf-8 -*-\n"
        "# lint: CG103 14:9\n"
        "# lint: CG101 9:9\n"
        "# run: ValueError: Num gradients\n"
        "# run[py27]: SyntaxError\n"
        "# mode: eager\n"
        "# target-python: 3.6\n"
        "import tensorflow as tf\n"
        "# run: ok\n"  # after the header block: not read
    )
    assert header.findings == [("CG101", 9, 9), ("CG103", 14, 9)]
    assert not header.clean
    assert header.runs == {"py27": Outcome("SyntaxError"), "py36": Outcome("ValueError", "Num gradients")}
    assert header.mode == "eager"
    assert header.target_python == "3.6"


def test_clean_and_defaults():
    header = parse_header("# lint: clean\n# run: ok\n\nx = 1\n")
    assert header.clean and header.findings == []
    assert header.runs == {"py27": Outcome("ok"), "py36": Outcome("ok")}
    assert header.mode == "graph" and header.target_python == "2.7"


def test_one_interpreter_only():
    header = parse_header("# lint: CG301 2:7\n# run[py36]: ok\n")
    assert header.runs == {"py36": Outcome("ok")}


def test_interpreter_list():
    header = parse_header("# lint: clean\n# run[py27,py36]: TypeError: takes\n")
    assert header.runs == {"py27": Outcome("TypeError", "takes"), "py36": Outcome("TypeError", "takes")}


def test_fragment_keeps_colons():
    header = parse_header("# lint: clean\n# run: ValueError: Variable w already exists, disallowed: x\n")
    assert header.runs["py36"].fragment == "Variable w already exists, disallowed: x"


@pytest.mark.parametrize("text, problem", [
    ("# run: ok\n", "no `# lint:`"),
    ("# lint: clean\n", "no `# run:`"),
    ("# lint: clean\n# lint: CG101 1:1\n# run: ok\n", "together"),
    ("# lint: CG1 1:1\n# run: ok\n", "bad lint"),
    ("# lint: clean\n# run: not an outcome!\n", "bad outcome"),
    ("# lint: clean\n# run[py35]: ok\n", "unknown interpreter"),
    ("# lint: clean\n# run: ok\n# mode: lazy\n", "bad mode"),
])
def test_bad_headers(text, problem):
    with pytest.raises(HeaderError, match=problem):
        parse_header(text)


def test_read_header_with_bom_and_latin1_body(tmp_path):
    path = tmp_path / "f.py"
    path.write_bytes(b"\xef\xbb\xbf# lint: clean\n# run: ok\ns = '\xe9'\n")
    assert read_header(str(path)).runs["py27"] == Outcome("ok")


@pytest.mark.parametrize("expected, exception, message, matches", [
    (Outcome("ok"), "ok", "", True),
    (Outcome("ok"), "ValueError", "boom", False),
    (Outcome("ValueError"), "ValueError", "anything", True),
    (Outcome("ValueError"), "ok", "", False),
    (Outcome("ValueError", "Num gradients"), "ValueError", "Num gradients 3 generated", True),
    (Outcome("ValueError", "Num gradients"), "ValueError", "num gradients", False),  # case matters
    (Outcome("ValueError", "Num gradients"), "TypeError", "Num gradients", False),
    (Outcome("ValueError"), "InvalidArgumentError", "", False),  # no subclass matching: names only
    (Outcome("KeyError", "x"), "KeyError", None, False),
])
def test_outcome_matches(expected, exception, message, matches):
    assert expected.matches(exception, message) is matches


def test_outcome_text():
    assert str(Outcome("ok")) == "ok"
    assert str(Outcome("SyntaxError")) == "SyntaxError"
    assert str(Outcome("ValueError", "Num gradients")) == "ValueError: Num gradients"
