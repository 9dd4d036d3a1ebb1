"""A lean WebSocket client for the load benchmark.

The benchmark shares this machine's two cores with the server and its store,
so every microsecond the load generator spends on a frame is one the server
does not get. This client is an ``asyncio.Protocol`` with the RFC 6455 framing
written out: masked text frames out, unmasked frames in, decoded with msgspec
into only the fields the benchmark reads. It is for benchmarks; the tests use
the ``websockets`` package.
"""

from __future__ import annotations

import asyncio
import base64
import os
import struct
from collections.abc import Callable
from typing import Any
from urllib.parse import urlsplit

import msgspec


class Legal(msgspec.Struct):
    move: str


class Msg(msgspec.Struct):
    """The fields of a server message the benchmark looks at (others are skipped)."""

    t: str
    version: int = -1
    to_move: int | None = None
    # a state's legal moves are objects; a ``moved``'s are strings or [move, pit, choice]
    legal: list[Legal | str | list] = []
    outcome: Any = None
    last: Any = None
    code: str | None = None
    move: str | None = None  # hint
    id: str | None = None  # moved


def move_of(legal: Legal | str | list) -> str:
    """A legal move's notation, whichever form it came in."""
    if isinstance(legal, Legal):
        return legal.move
    return legal if isinstance(legal, str) else legal[0]


_decode = msgspec.json.Decoder(Msg).decode
_encode = msgspec.json.Encoder().encode


def _mask(payload: bytes, key: bytes) -> bytes:
    n = len(payload)
    if n == 0:
        return payload
    stream = (key * (n // 4 + 1))[:n]
    return (int.from_bytes(payload, "little") ^ int.from_bytes(stream, "little")).to_bytes(
        n, "little"
    )


def frame(payload: bytes, opcode: int = 0x1) -> bytes:
    """One final, masked client frame."""
    key = os.urandom(4)
    n = len(payload)
    if n < 126:
        head = struct.pack("!BB", 0x80 | opcode, 0x80 | n)
    elif n < 65536:
        head = struct.pack("!BBH", 0x80 | opcode, 0x80 | 126, n)
    else:
        head = struct.pack("!BBQ", 0x80 | opcode, 0x80 | 127, n)
    return head + key + _mask(payload, key)


class _Proto(asyncio.Protocol):
    def __init__(self, on_message: Callable[[Any], None], decode: Callable[[bytes], Any]):
        self.on_message = on_message
        self.decode = decode
        self.buf = bytearray()
        self.handshaken: asyncio.Future = asyncio.get_running_loop().create_future()
        self.closed: asyncio.Future = asyncio.get_running_loop().create_future()
        self.transport: asyncio.Transport | None = None
        self.close_code: int | None = None

    def connection_made(self, transport):
        self.transport = transport

    def data_received(self, data: bytes) -> None:
        buf = self.buf
        buf += data
        if not self.handshaken.done():
            end = buf.find(b"\r\n\r\n")
            if end < 0:
                return
            status = bytes(buf[: buf.find(b"\r\n")])
            del buf[: end + 4]
            if b" 101 " not in status:
                self.handshaken.set_exception(ConnectionError(status.decode(errors="replace")))
                return
            self.handshaken.set_result(None)
        pos, size = 0, len(buf)
        while size - pos >= 2:
            b0, b1 = buf[pos], buf[pos + 1]
            n, head = b1 & 0x7F, 2
            if n == 126:
                if size - pos < 4:
                    break
                n, head = (buf[pos + 2] << 8) | buf[pos + 3], 4
            elif n == 127:
                if size - pos < 10:
                    break
                n, head = struct.unpack_from("!Q", buf, pos + 2)[0], 10
            if size - pos < head + n:
                break
            opcode = b0 & 0x0F
            start = pos + head
            pos = start + n
            if opcode == 0x1 or opcode == 0x2:
                self.on_message(self.decode(buf[start:pos]))
            elif opcode == 0x9:  # ping
                self.transport.write(frame(bytes(buf[start:pos]), 0xA))
            elif opcode == 0x8:
                if n >= 2:
                    self.close_code = (buf[start] << 8) | buf[start + 1]
                self.transport.close()
        if pos:
            del buf[:pos]

    def connection_lost(self, exc):
        if not self.handshaken.done():
            self.handshaken.set_exception(exc or ConnectionError("closed"))
        if not self.closed.done():
            self.closed.set_result(None)


class RawSocket:
    """``await RawSocket.connect(url, on_message)``; ``send(obj)``; ``await close()``."""

    def __init__(self, proto: _Proto):
        self._proto = proto

    @classmethod
    async def connect(
        cls,
        url: str,
        on_message: Callable[[Msg], None],
        headers: dict[str, str] | None = None,
        local_addr: tuple[str, int] | None = None,
        decode: Callable[[bytes], Any] = _decode,  # another bench's fields (arena.py)
    ) -> RawSocket:
        parts = urlsplit(url)
        loop = asyncio.get_running_loop()
        _, proto = await loop.create_connection(
            lambda: _Proto(on_message, decode),
            parts.hostname,
            parts.port or 80,
            local_addr=local_addr,
        )
        key = base64.b64encode(os.urandom(16)).decode()
        extra = "".join(f"{k}: {v}\r\n" for k, v in (headers or {}).items())
        proto.transport.write(
            f"GET {parts.path or '/'} HTTP/1.1\r\nHost: {parts.netloc}\r\n"
            f"Upgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: {key}\r\n"
            f"Sec-WebSocket-Version: 13\r\n{extra}\r\n".encode()
        )
        await proto.handshaken
        return cls(proto)

    def send(self, message: dict) -> None:
        self._proto.transport.write(frame(_encode(message)))

    def send_raw(self, data: bytes) -> None:
        """Already framed bytes (for floods)."""
        self._proto.transport.write(data)

    @property
    def closed(self) -> bool:
        return self._proto.closed.done()

    @property
    def close_code(self) -> int | None:
        return self._proto.close_code

    async def close(self) -> None:
        t = self._proto.transport
        if t is not None and not t.is_closing():
            t.write(frame(struct.pack("!H", 1000), 0x8))
            t.close()
        await self._proto.closed
