from cglint.rules.base import Rule


class UnreadableFileRule(Rule):
    """The file cannot be read or decoded.

    What: the path cannot be opened (permissions, a vanished file, a folder loop), its bytes
    are not valid in the encoding its PEP 263 coding line (or UTF-8) declares, or it is
    larger than 20 MB.

    Why it matters: Python cannot import such a file either; cglint reports it with the
    position of the first bad byte and goes on with the other files.

    Fix: make the file readable, or declare its real encoding on line 1 or 2
    (`# -*- coding: latin-1 -*-`).
    """

    code = "CG002"
    name = "unreadable-file"
    needs_tensorflow = False

    def check(self, module):
        return ()  # reported by the engine, which owns reading


RULE = UnreadableFileRule
