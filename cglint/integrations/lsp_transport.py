"""The language server's side of the LSP base protocol on a byte stream: framed messages in,
bounded in size, resynchronised after any damage.

pygls's own reader trusts each `Content-Length`: `Content-Length: 100000000000` makes it
allocate that much at once (the server dies), and a wrong length loses the following
messages. This reader keeps at most one message (up to MAX_BODY bytes) in memory, skips a
longer one with a warning, and after a damaged frame starts again at the next header.
"""
import asyncio
import json
import logging
import os
import re

from pygls.exceptions import JsonRpcException

from cglint import interrupts

log = logging.getLogger("cglint.lsp")

# The largest body read: a 20 MB file (files.MAX_BYTES) opened in the editor, with room for
# the JSON escapes of its text.
MAX_BODY = 64 << 20
_HEADER = re.compile(rb"content-length:", re.IGNORECASE)
_LENGTH = re.compile(rb"content-length:[ \t]*(\d+)[ \t]*\r?\n", re.IGNORECASE)
_BLANK_LINE = re.compile(rb"\r?\n\r?\n")
# A complete header line. Valid JSON never contains one (a string holds no raw line break,
# and these words cannot stand outside a string), so inside a body it marks where the next
# message starts: the body's length was wrong.
_NEXT_HEADER = re.compile(rb"content-length:[ \t]*\d+[ \t]*\r?\n", re.IGNORECASE)


class MessageReader:
    """Message bodies from a binary stream, one at a time (blocking)."""

    CHUNK = 1 << 16
    MAX_HEADER = 1 << 16  # a header block longer than this is garbage
    _TAIL = 64  # bytes kept while skipping, so a header cut between two reads is still seen

    def __init__(self, stream, max_body=MAX_BODY, warn=log.warning):
        self.stream = stream
        self.max_body = max_body
        self.warn = warn
        self.buffer = bytearray()
        self.eof = False
        try:  # straight from the file descriptor: a daemon thread blocked in a buffered
            # read holds the buffer's lock, and interpreter exit then aborts on that lock
            fileno = stream.fileno()
            self._read = lambda size: os.read(fileno, size)
        except (AttributeError, OSError, ValueError):  # io.UnsupportedOperation included
            self._read = getattr(stream, "read1", stream.read)

    def next_body(self):
        """The next message's body (bytes), or None at the end of the stream."""
        while True:
            if not self._find_header():
                return None
            end = self._header_end()
            if end is None:
                return None
            if end < 0:
                self.warn("cglint: a header longer than %d bytes; skipped" % self.MAX_HEADER)
                del self.buffer[:1]
                continue
            later = _HEADER.search(self.buffer, 1, end)
            if later:  # a header cut short by another one: the later one is the message
                del self.buffer[:later.start()]
                continue
            header = bytes(self.buffer[:end])
            del self.buffer[:end]
            match = _LENGTH.match(header)
            length = int(match.group(1)) if match else 0
            if not length:
                self.warn("cglint: a message without a usable Content-Length (%r); skipped"
                          % header[:80])
                continue
            if length > self.max_body:
                self.warn("cglint: a message of %d bytes, over the %d MiB limit; skipped"
                          % (length, self.max_body >> 20))
                self._skip(length)
                continue
            return self._take(length)

    def _fill(self):
        if self.eof:
            return False
        chunk = self._read(self.CHUNK)
        if not chunk:
            self.eof = True
            return False
        self.buffer += chunk
        return True

    def _find_header(self):
        """Drop everything before the next `Content-Length:`; False at the end of input."""
        while True:
            match = _HEADER.search(self.buffer)
            if match:
                del self.buffer[:match.start()]
                return True
            keep = len(_HEADER.pattern) - 1  # the start of a header cut between two reads
            del self.buffer[:max(0, len(self.buffer) - keep)]
            if not self._fill():
                return False

    def _header_end(self):
        """Where the header block at the buffer's start ends (after its blank line); -1 when
        it is too long, None at the end of input."""
        while True:
            match = _BLANK_LINE.search(self.buffer)
            if match and match.start() <= self.MAX_HEADER:
                return match.end()
            if len(self.buffer) > self.MAX_HEADER:
                return -1
            if not self._fill():
                return None

    def _take(self, length):
        while len(self.buffer) < length:
            if not self._fill():
                return None
        body = bytes(self.buffer[:length])
        del self.buffer[:length]
        spoiled = _NEXT_HEADER.search(body)
        if spoiled:  # the length was too long: give the next message back its start
            self.warn("cglint: a message shorter than its Content-Length; skipped")
            self.buffer[0:0] = body[spoiled.start():]
            body = body[:spoiled.start()] or b" "
        return body

    def _skip(self, length):
        """Drop a body of `length` bytes without holding it, or up to the next header when
        one comes first (the length was a lie)."""
        remaining = length
        while True:
            match = _NEXT_HEADER.search(self.buffer)
            if match and match.start() < remaining:
                del self.buffer[:match.start()]
                return
            if len(self.buffer) >= remaining:
                del self.buffer[:remaining]
                return
            dropped = max(0, len(self.buffer) - self._TAIL)
            del self.buffer[:dropped]
            remaining -= dropped
            if not self._fill():
                self.buffer.clear()
                return


async def serve(reader, protocol, stop_event, on_warning):
    """Hand each message from `reader` to the pygls `protocol` until the input ends.

    Reading blocks, so it runs in a thread of its own, one message ahead of the handlers;
    `on_warning(text)` is called on the event loop for each message the reader skipped.
    """
    loop = asyncio.get_running_loop()
    bodies = asyncio.Queue(maxsize=1)  # one message read ahead: memory stays bounded

    def warn(text):
        loop.call_soon_threadsafe(on_warning, text)

    def pump():
        reader.warn = warn
        while True:
            body = reader.next_body()
            try:
                asyncio.run_coroutine_threadsafe(bodies.put(body), loop).result()
            except RuntimeError:  # the loop has closed: the server is exiting
                return
            if body is None:
                return

    # A daemon thread: a read blocked on an idle client must not hold the process at exit.
    interrupts.start_thread(pump, name="cglint-lsp-reader")
    while not stop_event.is_set():
        body = await bodies.get()
        if body is None:
            return
        handle(protocol, body)


def handle(protocol, body):
    try:
        message = json.loads(body, object_hook=protocol.structure_message)
    except JsonRpcException as error:  # pygls has logged it (and answered a request)
        log.warning("cglint: a message whose params do not fit the LSP: %s", error)
        return
    except ValueError as error:  # not JSON, or not UTF-8
        log.warning("cglint: a message that is not JSON (%s); skipped", error)
        return
    except RecursionError:  # arrays or objects nested deeper than json.loads recurses
        log.warning("cglint: a message nested too deeply to read; skipped")
        return
    if not hasattr(message, "jsonrpc"):
        log.warning("cglint: a JSON value that is not a JSON-RPC message; skipped")
        return
    try:
        protocol.handle_message(message)
    except Exception:  # one bad message must not end the session
        log.exception("cglint: cannot handle a %s message", getattr(message, "method", "?"))
