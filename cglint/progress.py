"""A one-line `checked 120/1000 files` counter on standard error, for long runs.

Only on a terminal: a pipe, a CI log or pre-commit's captured output would keep every
redraw. It appears after a short delay, so runs that end quickly never flash it.
"""
import time

DELAY = 0.5  # seconds before the line first appears
INTERVAL = 0.1  # seconds between redraws


class Progress:
    def __init__(self, stream, total, enabled):
        self.stream = stream
        self.total = total
        self.enabled = enabled and _is_terminal(stream)
        self.done = 0
        self.started = time.monotonic()
        self.drawn_at = None
        self.visible = False

    def step(self):
        self.done = min(self.done + 1, self.total)
        if not self.enabled or self.total <= 1:
            return
        now = time.monotonic()
        if now - self.started < DELAY or (self.drawn_at and now - self.drawn_at < INTERVAL):
            return
        self.drawn_at = now
        self.visible = True
        self.stream.write("\rcglint: checked %d/%d files" % (self.done, self.total))
        self.stream.flush()

    def clear(self):
        """Erase the line before other output (findings printed as files are done); the
        next step past the redraw interval draws it again, under that output."""
        if self.visible:
            self.stream.write("\r\033[K")
            self.stream.flush()
            self.visible = False

    def close(self):
        self.clear()  # so the findings after the run start clean


def _is_terminal(stream):
    try:
        return stream.isatty()
    except (AttributeError, ValueError):
        return False
