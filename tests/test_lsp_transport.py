"""The language server's message reader alone, on a byte stream (the server itself is
driven over stdio in tests/test_lsp_abuse.py)."""
import io

import pytest

pytest.importorskip("pygls", reason="the language server needs pygls (pip install -e .)")

from cglint.integrations.lsp_transport import MessageReader  # noqa: E402


def test_resynchronises_in_bounded_memory():
    """The reader alone: headers cut between reads, a lying length, a body that runs into
    the next header, and lower-case or LF-only headers."""
    def frame(body, header=b"Content-Length: %d\r\n\r\n"):
        return header % len(body) + body

    warnings = []
    stream = io.BytesIO(b"".join([
        b"garbage" * 10000, frame(b'{"a": 1}'),
        b"Content-Length: 99999999999\r\n\r\n{\"half", frame(b'{"b": 2}'),
        b"Content-Length: 30\r\n\r\n{}", frame(b'{"c": 3}'),
        frame(b'{"d": 4}', b"content-length:%d\n\n"),
        b"Content-Type: x\r\n" + frame(b'{"e": 5}'),
        b"Content-Length: 12\r\n\r\n" + b"x" * 12, frame(b'{"f": 6}'),
    ]))
    reader = MessageReader(stream, max_body=1000, warn=warnings.append)
    reader.CHUNK = 7  # every header is cut between reads somewhere
    bodies = []
    while True:
        body = reader.next_body()
        if body is None:
            break
        bodies.append(body)
        assert len(reader.buffer) < 1100
    assert bodies == [b'{"a": 1}', b'{"b": 2}', b"{}", b'{"c": 3}', b'{"d": 4}', b'{"e": 5}',
                      b"x" * 12, b'{"f": 6}']
    assert [w.split(";")[0] for w in warnings] == [
        "cglint: a message of 99999999999 bytes, over the 0 MiB limit",
        "cglint: a message shorter than its Content-Length"]


def bodies_of(data, max_body=1000, chunk=7):
    warnings = []
    reader = MessageReader(io.BytesIO(data), max_body=max_body, warn=warnings.append)
    reader.CHUNK = chunk
    found = []
    while True:
        body = reader.next_body()
        if body is None:
            return found, warnings
        found.append(body)


def test_an_honest_message_over_the_limit_is_skipped_exactly():
    # Its body even ends in something header-like but incomplete, then the next message.
    big = b'{"x": "' + b"y" * 5000 + b'"}Content-Length'
    data = b"Content-Length: %d\r\n\r\n" % len(big) + big + b'Content-Length: 8\r\n\r\n{"g": 7}'
    for chunk in (7, 64, 1 << 16):
        assert bodies_of(data, chunk=chunk) == ([b'{"g": 7}'], [
            "cglint: a message of %d bytes, over the 0 MiB limit; skipped" % len(big)])


def test_the_end_of_input_ends_the_reading():
    for data in (b"", b"Content-Length: 50\r\n\r\n{", b"Content-Length: 5\r\n", b"garbage"):
        assert bodies_of(data) == ([], [])
