"""The progress line: on a terminal only, after a short delay, erased at the end."""
import io

from cglint import progress
from cglint.cli import main


class Terminal(io.StringIO):
    def isatty(self):
        return True


def test_progress_line_on_a_terminal(monkeypatch):
    monkeypatch.setattr(progress, "DELAY", 0)
    monkeypatch.setattr(progress, "INTERVAL", 0)
    stream = Terminal()
    line = progress.Progress(stream, 3, True)
    for _ in range(3):
        line.step()
    line.close()
    assert stream.getvalue() == ("\rcglint: checked 1/3 files\rcglint: checked 2/3 files"
                                 "\rcglint: checked 3/3 files\r\033[K")


def test_no_progress_when_piped_quiet_or_quick(monkeypatch):
    monkeypatch.setattr(progress, "DELAY", 0)
    for stream, enabled in ((io.StringIO(), True), (Terminal(), False)):
        line = progress.Progress(stream, 3, enabled)
        line.step()
        line.close()
        assert stream.getvalue() == ""
    monkeypatch.setattr(progress, "DELAY", 60)
    stream = Terminal()
    line = progress.Progress(stream, 3, True)  # a run quicker than the delay shows nothing
    line.step()
    line.close()
    assert stream.getvalue() == ""


def test_command_line_keeps_progress_off_standard_output(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(progress, "DELAY", 0)
    for number in range(5):
        (tmp_path / ("m%d.py" % number)).write_text("x = 1\n")
    assert main([".", "--no-cache"]) == 0
    out, err = capsys.readouterr()
    assert "\r" not in out and err == ""  # captured stderr is no terminal


def test_the_total_is_counted_before_checking_starts(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(progress, "DELAY", 0)
    monkeypatch.setattr(progress, "INTERVAL", 0)
    for number in range(5):
        (tmp_path / ("m%d.py" % number)).write_text("x = 1\n")
    terminal = Terminal()
    monkeypatch.setattr("sys.stderr", terminal)
    assert main([".", "--no-cache"]) == 0
    drawn = [part for part in terminal.getvalue().split("\r") if part.startswith("cglint")]
    assert drawn == ["cglint: checked %d/5 files" % done for done in range(1, 6)]
