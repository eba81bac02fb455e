"""files.decode answers what Python's own reading of a source file answers: the encoding
tokenize.detect_encoding finds (its Python-level reading is skipped for the common
first lines), the text with every line ending made `\\n`, and the newline kept."""
import io
import itertools
import tokenize

import pytest

from cglint import files

FIRST_LINES = [b"", b"\n", b"x = 1\n", b"#!/usr/bin/env python\n", b"# -*- coding: latin-1 -*-\n",
               b"# vim: set fileencoding=cp1252 :\n", b"# coding=utf-8\n", b"# coding: nonsense\n",
               b"# caf\xc3\xa9\n", b"# caf\xe9\n", b"\xef\xbb\xbf# coding: utf-8\n", b"\xef\xbb\xbfx\n",
               b"x = 1\r\n", b"x = 1\r", b"  \n", b"'''coding: latin-1'''\n", b"# a\rb coding: latin-1\n"]
REST = [b"", b"y = '\xc3\xa9'\n", b"y = '\xe9'\n", b"z = 2\r\nw = 3\r\n"]


def _reference(data):
    try:
        encoding, _ = tokenize.detect_encoding(io.BytesIO(data).readline)
    except SyntaxError as error:
        return "cannot decode: %s" % error
    try:
        text = data.decode(encoding)
    except (UnicodeDecodeError, LookupError, ValueError):
        return "cannot decode"
    if data.startswith(b"\xef\xbb\xbf"):
        text = text.lstrip("\ufeff")
    newline = "\r\n" if "\r\n" in text else "\n"
    return encoding, text.replace("\r\n", "\n").replace("\r", "\n"), newline


@pytest.mark.parametrize("first,second,rest", list(itertools.product(FIRST_LINES, FIRST_LINES[:8], REST)))
def test_decode_agrees_with_detect_encoding(first, second, rest):
    data = first + second + rest
    found = files.decode("m.py", data)
    expected = _reference(data)
    if isinstance(expected, str):
        assert isinstance(found, files.Unreadable) and found.message.startswith(expected)
    else:
        assert (found.encoding, found.text, found.newline) == expected


def test_read_file_reads_all_of_a_file_that_grew_since_its_stat(tmp_path, monkeypatch):
    # The read is sized by fstat(): a file appended to in between is still read whole,
    # and one past the limit still reads one byte over it (so it is told too large).
    import os as _os
    from cglint import files as files_module

    path = tmp_path / "grown.py"
    path.write_bytes(b"x = 1\n" * 100)
    real_fstat = _os.fstat

    class Shrunk:
        def __init__(self, info):
            self._info = info
            self.st_size = 6

        def __getattr__(self, name):
            return getattr(self._info, name)

    monkeypatch.setattr(files_module.os, "fstat", lambda fd: Shrunk(real_fstat(fd)))
    data, _ = files_module.read_file(str(path))
    assert data == b"x = 1\n" * 100
    monkeypatch.setattr(files_module, "MAX_BYTES", 50)
    data, _ = files_module.read_file(str(path))
    assert len(data) == 51
