"""One computer for all the workers of a machine (``nyumba serve --workers N``).

With N workers each keeping its own ``Computer`` (``server/computer/pool.py``), a
machine would run N seat pools and N hint workers: on two cores, four search
processes contending with the two nodes, and fairness between askers only
within a worker. Instead the supervisor (``server/run/workers.py``) keeps the one
``Computer`` — ``NYUMBA_COMPUTER_WORKERS`` seat processes and one hint
process for the whole machine — and serves it to each worker over a socket
pair it hands down (no path on disk, nobody else can connect). The worker's
node talks to it through ``RemoteComputer``, which has ``Computer``'s
interface, so the node does not know which one it has.

Frames are msgpack arrays after a 4-byte big-endian length, as to the thinker:

    request  [id, "choose", owner, game, options, state, level, seed]
             [id, "hint", owner, room, version, game, options, state, seed]
             [id, "analyse", key, "", {"first": move}, record, kind, index]
             [id, "warm", seats, hints]                         (no answer)
    answer   [id, move (an analysis job's msgpack bytes), null, null]
             or [id, null, "busy" | "failed", text]

The hop costs a round trip on a local socket (tens of microseconds) against a
search of tens to hundreds of milliseconds. One hint per room at a time now
holds across workers too: two sockets of a room on different workers share it.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import logging
import socket
import struct
from typing import Any

import msgspec

from server.computer.pool import Busy, Computer, WorkerFailed

log = logging.getLogger("nyumba.computer")

_encode = msgspec.msgpack.Encoder().encode
_decode = msgspec.msgpack.Decoder().decode


def _frame(message: list[Any]) -> bytes:
    body = _encode(message)
    return struct.pack(">I", len(body)) + body


async def _read_frame(reader: asyncio.StreamReader) -> list[Any]:
    head = await reader.readexactly(4)
    return _decode(await reader.readexactly(struct.unpack(">I", head)[0]))  # type: ignore[no-any-return]


async def serve(computer: Computer, sock: socket.socket) -> None:
    """Answer one worker's requests on ``sock`` until it closes (the supervisor's side)."""
    reader, writer = await asyncio.open_connection(sock=sock)
    running: set[asyncio.Task] = set()

    async def answer(request_id: int, work: Any) -> None:
        try:
            reply = [request_id, await work, None, None]
        except Busy:
            reply = [request_id, None, "busy", ""]
        except Exception as exc:  # WorkerFailed, or a bad request: the asker hears why
            reply = [request_id, None, "failed", f"{type(exc).__name__}: {exc}"]
        if not writer.is_closing():
            writer.write(_frame(reply))

    try:
        while True:
            request = await _read_frame(reader)
            request_id, op = request[0], request[1]
            args = request[2:]
            if op == "warm":
                computer.warm(seats=args[0], hints=args[1])
                continue
            if op in ("choose", "hint", "analyse"):
                if isinstance(args[-1], list):
                    args[-1] = tuple(args[-1])  # an owner that was a tuple: hashable again
                work = getattr(computer, op)(*args)
            else:
                log.warning("unknown computer request %r", op)
                continue
            task = asyncio.create_task(answer(request_id, work))
            running.add(task)
            task.add_done_callback(running.discard)
    except (asyncio.IncompleteReadError, ConnectionError):
        pass  # the worker ended
    finally:
        for task in running:
            task.cancel()
        writer.close()


class RemoteComputer:
    """``Computer``'s interface, answered by the supervisor's computer (a worker's side)."""

    def __init__(self, fd: int):
        self.fd = fd
        self.waiting: dict[int, asyncio.Future] = {}
        self.ids = itertools.count()
        self.writer: asyncio.StreamWriter | None = None
        self.reader: asyncio.Task | None = None
        self._connecting: asyncio.Task | None = None
        self._warming: asyncio.Task | None = None  # held until it has run

    async def _link(self) -> asyncio.StreamWriter:
        if self.writer is None:
            if self._connecting is None:
                self._connecting = asyncio.create_task(self._connect())
            await asyncio.shield(self._connecting)
        if self.writer is None or self.writer.is_closing():
            raise WorkerFailed("the shared computer is gone")
        return self.writer

    async def _connect(self) -> None:
        reader, self.writer = await asyncio.open_connection(sock=socket.socket(fileno=self.fd))
        self.reader = asyncio.create_task(self._read(reader))

    async def _read(self, reader: asyncio.StreamReader) -> None:
        try:
            while True:
                request_id, move, error, text = await _read_frame(reader)
                fut = self.waiting.pop(request_id, None)
                if fut is None or fut.done():
                    continue
                if error is None:
                    fut.set_result(move)
                elif error == "busy":
                    fut.set_exception(Busy())
                else:
                    fut.set_exception(WorkerFailed(text))
        except (asyncio.IncompleteReadError, ConnectionError):
            log.error("the supervisor's computer closed its link")
        finally:
            if self.writer is not None:
                self.writer.close()
            for fut in self.waiting.values():
                if not fut.done():
                    fut.set_exception(WorkerFailed("the shared computer is gone"))
            self.waiting.clear()

    async def _ask(self, *request: Any) -> str:
        writer = await self._link()
        request_id = next(self.ids)
        fut = asyncio.get_running_loop().create_future()
        self.waiting[request_id] = fut
        writer.write(_frame([request_id, *request]))
        try:
            return await fut  # type: ignore[no-any-return]
        finally:
            self.waiting.pop(request_id, None)

    # The same arguments as ``Computer.choose`` and ``Computer.hint``, in the same order: the
    # supervisor's ``serve`` passes them on as they came.
    async def choose(self, *args: Any) -> str:
        return await self._ask("choose", *args)

    async def hint(self, *args: Any) -> str:
        return await self._ask("hint", *args)

    async def analyse(self, *args: Any) -> Any:
        return await self._ask("analyse", *args)

    def warm(self, seats: bool, hints: bool) -> None:
        async def send() -> None:
            with contextlib.suppress(Exception):
                (await self._link()).write(_frame([0, "warm", seats, hints]))

        self._warming = asyncio.get_running_loop().create_task(send())

    def close(self) -> None:
        if self.reader is not None:
            self.reader.cancel()
        if self.writer is not None:
            self.writer.close()
