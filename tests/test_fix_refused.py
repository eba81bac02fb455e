"""A fix that --fix refuses (the file would not parse after it) is not counted fixable."""
import pytest

from cglint.cli import main
from cglint.rules import cg301_fstring


@pytest.fixture(autouse=True)
def broken_fstring_fix(tmp_path, monkeypatch):
    """Every CG301 fix a SyntaxError, as a cglint bug would make it."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(cg301_fstring, "convert", lambda source, *args: "(")


def run(capsys, *args):
    code = main(["--no-cache", "--isolated", "--target-python", "2.7"] + list(args))
    out, err = capsys.readouterr()
    return code, out, err


def test_a_file_whose_every_fix_is_refused_has_nothing_fixable_left(tmp_path, capsys):
    text = 'a = f"{x}"\n'
    (tmp_path / "a.py").write_text(text)
    # Before --fix, the fix is offered: fixes are tried only when applied, as in ruff.
    assert "[*] 1 fixable with `--fix`." in run(capsys, "a.py")[1]
    code, out, err = run(capsys, "a.py", "--fix")
    assert (tmp_path / "a.py").read_text() == text
    assert "a.py:1:5: not applying the CG301 fix" in err
    assert "CG301 f-string" in out and "[*]" not in out and "fixable" not in out
    _, out, _ = run(capsys, "a.py", "--fix", "--format", "json")
    assert '"fixable": false' in out and '"fixable": true' not in out
