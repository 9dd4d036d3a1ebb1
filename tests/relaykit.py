"""A node that dies right after a chosen store write: ``CutRelay``, a TCP relay between one node
and its store that, once armed, lets the node's next *written* compare-and-set reach the store
and nothing the node sends after it (imported by name: ``from relaykit import CutRelay``).

A SIGKILL timed from outside cannot land between two of a node's writes a few microseconds
apart; a relay that reads the node's commands can: what the store receives from the node is
exactly what it would have received from a node killed right after the compare-and-set (the
test then SIGKILLs the real process). The node's code is the product's, with no hook of its own.

From the armed compare-and-set on, whatever else the node sends is held until the store answers
it: ``0`` (written) and the node is cut off for good, held commands dropped; any other answer (a
copy of the room that was behind: the node reads the room again and judges anew) and the held
commands go on, and the relay waits for the next compare-and-set.
"""

from __future__ import annotations

import asyncio
import hashlib
import threading

from server.store.scripts import _CAS

_LINE = frozenset(b"+-:_,#(")  # RESP types that end with their line
_BULK = frozenset(b"$!=")  # a length, then that many bytes
_AGGREGATE = frozenset(b"*~>")  # a count, then that many replies (maps and attributes: twice)


def _command(buf: bytearray, pos: int) -> tuple[int, list[bytes]] | None:
    """The command (a RESP array of bulk strings, as clients send them) that starts at ``pos``:
    where it ends and its first two words; None while it has not all arrived."""
    if pos >= len(buf):
        return None
    assert buf[pos : pos + 1] == b"*", f"not a RESP array: {bytes(buf[pos : pos + 20])!r}"
    nl = buf.find(b"\r\n", pos)
    if nl < 0:
        return None
    count, p, words = int(buf[pos + 1 : nl]), nl + 2, []
    for _ in range(count):
        nl = buf.find(b"\r\n", p)
        if nl < 0:
            return None
        start = nl + 2
        end = start + int(buf[p + 1 : nl])
        if end + 2 > len(buf):
            return None
        if len(words) < 2:
            words.append(bytes(buf[start:end]))
        p = end + 2
    return p, words


def _reply_end(buf: bytearray, pos: int) -> int | None:
    """Where the reply that starts at ``pos`` ends; None while it has not all arrived."""
    nl = buf.find(b"\r\n", pos)
    if pos >= len(buf) or nl < 0:
        return None
    kind = buf[pos]
    if kind in _LINE:
        return nl + 2
    n = int(buf[pos + 1 : nl])
    if n < 0:
        return nl + 2
    if kind in _BULK:
        end = nl + 2 + n + 2
        return end if end <= len(buf) else None
    p: int | None = nl + 2
    for _ in range(n if kind in _AGGREGATE else 2 * n):
        p = _reply_end(buf, p) if p is not None else None
    return p


def _is_cas(words: list[bytes], sha: str) -> bool:
    name = words[0].upper()
    if name == b"EVALSHA":
        return words[1].decode() == sha
    return name == b"EVAL" and hashlib.sha1(words[1]).hexdigest() == sha


class _Pipe:
    """One of the node's connections: its commands sent and replies seen, in order."""

    def __init__(self, up: asyncio.StreamWriter):
        self.up = up
        self.sent = 0
        self.replied = 0
        self.watch: int | None = None  # the number of the armed compare-and-set's reply
        self.held: list[tuple[bytes, list[bytes]]] = []


class CutRelay:
    """``relay.arm()``, then the node's next compare-and-set that writes reaches the store and
    nothing after it does (on any of the node's connections); ``relay.cut`` is set once the
    store has answered that it wrote."""

    def __init__(self, target_port: int, script: str = _CAS):
        self.target = ("127.0.0.1", target_port)
        self.sha = hashlib.sha1(script.encode()).hexdigest()
        self.port = 0
        self.armed = threading.Event()
        self.cut = threading.Event()
        self._holding = False  # an armed compare-and-set awaits its answer
        self._shut = False  # nothing more is passed on
        self._pipes: list[_Pipe] = []
        self._ready = threading.Event()
        self._thread = threading.Thread(target=lambda: asyncio.run(self._main()), daemon=True)

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def start(self) -> CutRelay:
        self._thread.start()
        assert self._ready.wait(10)
        return self

    def arm(self) -> None:
        self.armed.set()

    async def _main(self) -> None:
        async def pipe(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
            try:
                up_r, up_w = await asyncio.open_connection(*self.target)
            except OSError:
                writer.transport.abort()
                return
            p = _Pipe(up_w)
            self._pipes.append(p)
            await asyncio.gather(
                self._commands(reader, p), self._replies(up_r, writer, p), return_exceptions=True
            )

        server = await asyncio.start_server(pipe, "127.0.0.1", 0)
        self.port = server.sockets[0].getsockname()[1]
        self._ready.set()
        await asyncio.Event().wait()  # a daemon thread: ends with the process

    def _pass(self, p: _Pipe, command: bytes, words: list[bytes]) -> None:
        if self._shut:
            return
        if self._holding:
            p.held.append((command, words))
            return
        if self.armed.is_set() and _is_cas(words, self.sha):
            p.watch, self._holding = p.sent, True
        p.up.write(command)
        p.sent += 1

    async def _commands(self, src: asyncio.StreamReader, p: _Pipe) -> None:
        buf = bytearray()
        try:
            while data := await src.read(65536):
                buf += data
                pos = 0
                while (parsed := _command(buf, pos)) is not None:
                    end, words = parsed
                    self._pass(p, bytes(buf[pos:end]), words)
                    pos = end
                del buf[:pos]
        except OSError:
            pass
        finally:
            p.up.transport.abort()

    async def _replies(self, src: asyncio.StreamReader, dst: asyncio.StreamWriter, p: _Pipe):
        buf = bytearray()
        try:
            while data := await src.read(65536):
                dst.write(data)
                buf += data
                pos = 0
                while (end := _reply_end(buf, pos)) is not None:
                    if p.watch == p.replied:
                        self._answered(p, bytes(buf[pos:end]))
                    p.replied += 1
                    pos = end
                del buf[:pos]
        except OSError:
            pass
        finally:
            dst.transport.abort()

    def _answered(self, p: _Pipe, reply: bytes) -> None:
        """The armed compare-and-set's answer: written (cut), or not (go on, still armed)."""
        p.watch, self._holding = None, False
        if reply == b":0\r\n":
            self._shut = True
            self.cut.set()
            return
        for q in self._pipes:
            held, q.held = q.held, []
            for command, words in held:
                self._pass(q, command, words)
