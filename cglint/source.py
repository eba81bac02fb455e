"""Positions in source text: one index of a text's lines, and the one Span cglint reports.

`ast` counts columns in UTF-8 bytes from 0; people, editors, SARIF (`unicodeCodePoints`)
and fixes count characters from 1. Every position cglint reports or edits is a Span in
characters of the original text, and every conversion goes through a LineIndex, so a
multibyte character earlier on a line moves a column by one, never by its byte count.
Lines end at `\\r\\n`, `\\r` or `\\n`, as Python's tokenizer (and so `ast`) has it.
"""
import bisect
import itertools
import operator
import re
from typing import NamedTuple

_NEWLINE = re.compile(r"\r\n|\r|\n")


class Span(NamedTuple):
    """A stretch of the original text: 1-based lines, 1-based character columns (a tab
    counts 1), the end exclusive. A tuple, so whole-run summaries can carry it as data."""

    line: int
    col: int
    end_line: int
    end_col: int


class LineIndex:
    """Where each line of a text starts; built on first use, and only for non-ASCII text
    when converting columns (an ASCII line has as many bytes as characters)."""

    def __init__(self, text):
        self.text = text
        self._starts = None
        self._ascii = None

    @property
    def starts(self):
        """Character offset of the start of each line."""
        if self._starts is None:
            text = self.text
            if "\r" in text:
                self._starts = [0] + [match.end() for match in _NEWLINE.finditer(text)]
            else:  # the usual case, several times faster: all in C
                lengths = map(len, text.split("\n"))
                self._starts = list(map(operator.add, itertools.accumulate(lengths, initial=0),
                                        itertools.count()))[:-1]
        return self._starts

    def line(self, number):
        """Line `number` (1-based) with its line ending; "" past the end."""
        starts = self.starts
        if not 1 <= number <= len(starts):
            return ""
        end = starts[number] if number < len(starts) else len(self.text)
        return self.text[starts[number - 1]:end]

    def char_col(self, line, byte_col):
        """The 0-based character column of an `ast` column (0-based UTF-8 bytes)."""
        if self._ascii is None:
            self._ascii = self.text.isascii()
        if self._ascii:
            return byte_col
        text = self.line(line)
        if text.isascii():
            return byte_col
        return len(text.encode("utf-8")[:byte_col].decode("utf-8", "ignore"))

    def offset(self, line, col):
        """The character offset of a 0-based character column on a 1-based line."""
        return self.starts[line - 1] + col

    def segment(self, node):
        """The text of an `ast` node, as ast.get_source_segment gives it (None without a
        position), without splitting the whole text again for each node."""
        try:
            start = self.ast_offset(node.lineno, node.col_offset)
            end = self.ast_offset(node.end_lineno, node.end_col_offset)
        except (AttributeError, TypeError, IndexError):
            return None
        return self.text[start:end]

    def ast_offset(self, line, byte_col):
        """The character offset of an `ast` position."""
        return self.offset(line, self.char_col(line, byte_col))

    def position(self, offset):
        """(1-based line, 0-based character column) of a character offset."""
        starts = self.starts
        index = bisect.bisect_right(starts, offset) - 1
        return index + 1, offset - starts[index]

    def span_of(self, start, end):
        """The Span between two character offsets."""
        line, col = self.position(start)
        end_line, end_col = self.position(end)
        return Span(line, col + 1, end_line, end_col + 1)

    def checked_offset(self, line, col):
        """The character offset of a 1-based (line, column), which may stand at most just
        past the line's end; ValueError for a position outside the text."""
        starts = self.starts
        if not 1 <= line <= len(starts):
            raise ValueError("line %d is outside the text (1..%d)" % (line, len(starts)))
        line_end = starts[line] if line < len(starts) else len(self.text)
        offset = starts[line - 1] + col - 1
        if not starts[line - 1] <= offset <= line_end:
            raise ValueError("column %d is outside line %d" % (col, line))
        return offset
