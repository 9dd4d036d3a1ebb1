"""A node that dies right after a chosen store write: ``CutRelay``, a TCP relay between one node
and its store that passes everything on until the node has sent the first compare-and-set after
``arm()`` — that command included — and nothing the node sends after it (imported by name:
``from relaykit import CutRelay``).

A SIGKILL timed from outside cannot land between two of a node's writes a few microseconds
apart; a relay that reads the node's commands can: what the store receives from the node is
exactly what it would have received from a node killed right after the compare-and-set (the
test then SIGKILLs the real process). The node's code is the product's, with no hook of its own.
"""

from __future__ import annotations

import asyncio
import hashlib
import threading

from server.store.scripts import _CAS


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


def _is_cas(words: list[bytes], sha: str) -> bool:
    name = words[0].upper()
    if name == b"EVALSHA":
        return words[1].decode() == sha
    return name == b"EVAL" and hashlib.sha1(words[1]).hexdigest() == sha


class CutRelay:
    """``relay.arm()``, then the node's next compare-and-set reaches the store and nothing
    after it does (on any of the node's connections); ``relay.cut`` is set once it was sent."""

    def __init__(self, target_port: int, script: str = _CAS):
        self.target = ("127.0.0.1", target_port)
        self.sha = hashlib.sha1(script.encode()).hexdigest()
        self.port = 0
        self.armed = threading.Event()
        self.cut = threading.Event()
        self._shut = False  # nothing more is passed on (set in the relay's loop, before ``cut``)
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
            await asyncio.gather(
                self._commands(reader, up_w), self._replies(up_r, writer), return_exceptions=True
            )

        server = await asyncio.start_server(pipe, "127.0.0.1", 0)
        self.port = server.sockets[0].getsockname()[1]
        self._ready.set()
        await asyncio.Event().wait()  # a daemon thread: ends with the process

    async def _commands(self, src: asyncio.StreamReader, dst: asyncio.StreamWriter) -> None:
        """The node's commands, whole, until the cut."""
        buf = bytearray()
        try:
            while data := await src.read(65536):
                if self._shut:
                    continue  # the node is dead to the store
                buf += data
                pos = 0
                while (parsed := _command(buf, pos)) is not None:
                    pos, words = parsed
                    if self.armed.is_set() and _is_cas(words, self.sha):
                        self._shut = True
                        dst.write(bytes(buf[:pos]))
                        await dst.drain()
                        while dst.transport.get_write_buffer_size():
                            await asyncio.sleep(0.001)  # in the kernel before the node dies
                        self.cut.set()
                        break
                if self._shut:
                    continue
                dst.write(bytes(buf[:pos]))
                del buf[:pos]
                await dst.drain()
        except OSError:
            pass
        finally:
            dst.transport.abort()

    async def _replies(self, src: asyncio.StreamReader, dst: asyncio.StreamWriter) -> None:
        try:
            while data := await src.read(65536):
                dst.write(data)
                await dst.drain()
        except OSError:
            pass
        finally:
            dst.transport.abort()
