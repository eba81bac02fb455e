"""Parsing never gives up: Python 2 syntax, broken files, odd bytes."""
import pytest

from cglint import files
from cglint.parse import parse


@pytest.mark.parametrize("code", [
    'print "hello"\n',
    "try:\n    pass\nexcept ValueError, e:\n    pass\n",
    "x = `1`\n",
    'exec "x = 1"\n',
    "x = 0777\n",
    "s = ur'abc'\n",
    "if 1 <> 2:\n    pass\n",
    "raise ValueError, 'bad'\n",
    "x = 10L\n",
    "def f():\n\tif x:\n\t\treturn 1\n        return 2\n",
])
def test_python2_only_syntax_is_parsed(code):
    parsed = parse(code)
    assert parsed.tree is not None
    assert parsed.python2_syntax
    assert parsed.error is None


def test_python2_syntax_is_an_error_when_targeting_python3():
    parsed = parse('print "hello"\n', target_python=(3, 6))
    assert parsed.tree is not None
    line, col, message = parsed.error
    assert line == 1 and "Python 2 only syntax" in message and "3.6" in message


@pytest.mark.parametrize("code, line", [
    ("def f(:\n    pass\n", 1),
    ("x = 1\ny = (\n", 2),
    ("x = 1\n  y = 2\n", 2),
    ("a = 1\0\n", 1),
])
def test_syntax_errors_have_positions(code, line):
    parsed = parse(code)
    assert parsed.tree is None
    assert parsed.error[0] == line


def test_too_deep_nesting_is_an_error_not_a_crash():
    parsed = parse("x = " + "[" * 5000 + "]" * 5000 + "\n")
    assert parsed.tree is None and parsed.error


def test_empty_file_parses():
    assert parse("").tree is not None


@pytest.mark.parametrize("data, encoding", [
    (b"# -*- coding: latin-1 -*-\nx = '\xe9'\n", "iso-8859-1"),
    (b"\xef\xbb\xbfx = 1\n", "utf-8-sig"),
    (b"x = 1\r\ny = 2\r\n", "utf-8"),
])
def test_decoding_honours_coding_lines_boms_and_crlf(data, encoding):
    source = files.decode("a.py", data)
    assert isinstance(source, files.Source)
    assert source.encoding == encoding
    assert "\r" not in source.text and "\ufeff" not in source.text


def test_crlf_is_remembered():
    assert files.decode("a.py", b"x = 1\r\n").newline == "\r\n"


def test_undecodable_bytes_point_at_the_first_bad_byte():
    problem = files.decode("a.py", b"x = 1\ny = '\xff'\n")
    assert isinstance(problem, files.Unreadable)
    assert (problem.line, problem.col) == (2, 6)
    assert "0xff" in problem.message


def test_unknown_coding_line():
    problem = files.decode("a.py", b"# coding: klingon\nx = 1\n")
    assert isinstance(problem, files.Unreadable)


def test_huge_file_is_refused_without_reading_it_all(tmp_path, monkeypatch):
    monkeypatch.setattr(files, "MAX_BYTES", 100)
    path = tmp_path / "big.py"
    path.write_bytes(b"x = 1\n" * 100)
    problem = files.load(str(path))
    assert isinstance(problem, files.Unreadable) and "larger than" in problem.message


def test_async_and_await_as_names_parse_like_python_36_did():
    code = "def set_async(ctx, async):\n    ctx.async = async\n    f(async=True, await=1)\n"
    parsed = parse(code)
    assert parsed.tree is not None and parsed.error is None and not parsed.python2_syntax
    assert parsed.original_col(2, 4) == 4  # columns unchanged


def test_real_async_functions_still_parse():
    assert parse("async def f():\n    await g()\n").tree is not None
