"""The attacks of the abuse bench (tests/bench/abuse.py), one coroutine each: it runs against
a live node until ``stop`` is set and returns what the attacker got, in a line."""

from __future__ import annotations

import asyncio
import collections
import json
import random
import sys
import time
from pathlib import Path

import httpx

sys.path[:0] = [str(Path(__file__).resolve().parents[2]), str(Path(__file__).resolve().parents[1])]
from rawws import Msg, RawSocket, frame  # noqa: E402
from victims import ATTACKER, EVIL, TAG, Seat, open_room, rss_kb  # noqa: E402


async def ping_flood(node, stop: asyncio.Event) -> str:
    pongs = [0]
    batch = b"".join(frame(b'{"t":"ping","n":%d}' % i) for i in range(500))

    def counted(msg: Msg) -> None:
        pongs[0] += msg.t == "pong"

    socks = [await RawSocket.connect(node.ws_url, counted, EVIL) for _ in range(2)]
    t0 = time.perf_counter()
    while not stop.is_set() and not all(s.closed for s in socks):
        for s in socks:
            if not s.closed and s._proto.transport.get_write_buffer_size() < 1 << 20:
                s.send_raw(batch)
        await asyncio.sleep(0.001)
    took = time.perf_counter() - t0
    codes = [s.close_code for s in socks]
    for s in socks:
        await s.close()
    return f"{pongs[0]} pongs in all; closed with {codes} after {took * 1000:.0f} ms"


def _record(rng: random.Random, size: int = 28_000) -> bytes:
    import engine
    from engine import records

    game = engine.load("bao-nakakamado-a") if False else engine.load("oware")
    while True:
        state, moves = game.start(), []
        while game.outcome(state) is None and len(moves) < 400:
            m = rng.choice(list(game.legal_moves(state)))
            moves.append(m)
            state = game.play(state, m)
        text = records.dumps(game, moves)
        if len(text) >= size * 0.5:
            return text.encode()


async def replay_spam(node, stop: asyncio.Event) -> str:
    base = json.loads(_record(random.Random(5)))
    codes: dict[int, int] = {}

    async def spam(i: int) -> None:
        n = 0
        async with httpx.AsyncClient(timeout=60) as http:
            while not stop.is_set():
                n += 1
                base["players"] = [f"a{i}-{n}", "b"]  # a new body each time: no cache hits
                r = await http.post(
                    node.url + "/api/replay",
                    content=json.dumps(base),
                    headers={**EVIL, "Content-Type": "application/json"},
                )
                codes[r.status_code] = codes.get(r.status_code, 0) + 1
                if r.status_code == 503:
                    await asyncio.sleep(
                        float(r.headers.get("retry-after", "0")) * 0
                    )  # it does not wait

    t0 = time.perf_counter()
    await asyncio.gather(*(spam(i) for i in range(4)))
    took = time.perf_counter() - t0
    return (
        f"{len(json.dumps(base))} B record; answers {dict(sorted(codes.items()))} in {took:.0f} s"
    )


async def socket_flood(node, stop: asyncio.Event) -> str:
    held, refused = [], 0

    async def one() -> None:
        nonlocal refused
        try:
            # From an address of its own (127.0.0.2), not the trusted proxy's: a directly
            # exposed node closes connections over its per-peer cap at accept.
            connecting = RawSocket.connect(node.ws_url, lambda m: None, None, ("127.0.0.2", 0))
            held.append(await asyncio.wait_for(connecting, 20))
        except Exception:
            refused += 1

    for _start in range(0, 3000, 250):
        if stop.is_set():
            break
        await asyncio.gather(*(one() for _ in range(250)))
    async with httpx.AsyncClient(timeout=10) as http:
        t0 = time.perf_counter()
        health = (await http.get(node.url + "/healthz", headers=TAG)).status_code
        health_ms = (time.perf_counter() - t0) * 1000
    await stop.wait()
    alive = sum(not s.closed for s in held)
    for s in held:
        if not s.closed:
            s._proto.transport.abort()
    return (
        f"3000 tried: {len(held)} accepted, {refused} refused; {alive} still open at the end; "
        f"a new visitor's /healthz {health} in {health_ms:.0f} ms"
    )


async def hint_spam(node, stop: asyncio.Event) -> str:
    async with httpx.AsyncClient(timeout=60) as http:
        r, (first,) = await open_room(http, node, EVIL, mode="local")
    seats = [first]
    for _ in range(7):
        s = Seat()
        s.ws = await RawSocket.connect(node.ws_url, s.on_message, EVIL)
        s.ws.send({"t": "join", "room": r["room"], "token": r["token"]})
        seats.append(s)
    got: dict[str, int] = {}

    async def spam(s: Seat, i: int) -> None:
        n = 0
        while not stop.is_set() and not s.ws.closed:
            n += 1
            s.ws.send({"t": "hint", "room": r["room"], "id": f"{i}-{n}"})
            try:
                m = await asyncio.wait_for(s.inbox.get(), 30)
            except TimeoutError:
                continue
            key = m.t if m.t != "error" else f"error:{m.code}"
            got[key] = got.get(key, 0) + 1

    await asyncio.gather(*(spam(s, i) for i, s in enumerate(seats)))
    closed = sum(s.ws.closed for s in seats)
    for s in seats:
        await s.ws.close()
    return f"8 sockets: {dict(sorted(got.items()))}; {closed} closed"


async def computer_rooms(node, stop: asyncio.Event) -> str:
    moves, refused = [0], [0]

    async def room() -> None:
        async with httpx.AsyncClient(timeout=60) as http:
            while not stop.is_set():
                try:
                    r, (seat,) = await open_room(
                        http, node, EVIL, mode="computer", side="south", level="advanced"
                    )
                except Exception:
                    refused[0] += 1
                    await asyncio.sleep(1)
                    continue
                while not stop.is_set() and seat.state.outcome is None and not seat.ws.closed:
                    st = seat.state
                    if st.to_move == 0:
                        seat.ws.send(
                            {
                                "t": "move",
                                "room": r["room"],
                                "version": st.version,
                                "move": st.legal[0].move,
                                "id": f"x{st.version}",
                            }
                        )
                    try:
                        await asyncio.wait_for(seat.wait_version(st.version + 1), 2)
                    except TimeoutError:
                        continue
                    moves[0] += st.to_move == 1
                await seat.ws.close()

    await asyncio.gather(*(room() for _ in range(30)))
    return f"30 rooms: {moves[0]} computer moves; {refused[0]} refusals"


async def big_bodies(node, stop: asyncio.Event) -> str:
    before = rss_kb(node.proc.pid)
    peak = [before]
    results: list[tuple[str, int]] = []  # (status or "no answer", MiB sent)

    async def post(path: str) -> None:
        reader, writer = await asyncio.open_connection("127.0.0.1", node.port)
        size = 50 * 1024 * 1024
        writer.write(
            f"POST {path} HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
            f"X-Forwarded-For: {ATTACKER}\r\nContent-Length: {size}\r\n\r\n".encode()
        )
        chunk, sent = b" " * (1 << 20), [0]

        async def send() -> None:
            while sent[0] < size:
                writer.write(chunk)
                await writer.drain()
                sent[0] += len(chunk)

        # Read while sending and stop once answered, as browsers and curl do (a sender that
        # reads only at the end sees no answer whatever the node does: asyncio's stream
        # raises the reset that ends it before the answer it has buffered).
        answer = asyncio.ensure_future(reader.readline())
        sending = asyncio.ensure_future(send())
        await asyncio.wait([answer, sending], timeout=30, return_when=asyncio.FIRST_COMPLETED)
        sending.cancel()
        await asyncio.gather(sending, return_exceptions=True)
        try:
            status = (await asyncio.wait_for(answer, 30)).decode().split(" ")[1]
        except Exception:
            status = "no answer"
        results.append((status, sent[0] >> 20))
        writer.close()

    async def watch() -> None:
        while not stop.is_set():
            peak[0] = max(peak[0], rss_kb(node.proc.pid))
            await asyncio.sleep(0.05)

    watcher = asyncio.create_task(watch())
    while not stop.is_set():
        await asyncio.gather(*(post(p) for p in ("/api/rooms", "/api/replay") * 2))
        await asyncio.sleep(0.5)
    watcher.cancel()
    return (
        f"node RSS {before >> 10} -> peak {peak[0] >> 10} MiB; {len(results)} posts: "
        f"{dict(collections.Counter(s for s, _ in results))}, "
        f"at most {max((m for _, m in results), default=0)} MiB sent"
    )


ATTACKS = {
    "ping": ping_flood,
    "replay": replay_spam,
    "sockets": socket_flood,
    "hints": hint_spam,
    "computer": computer_rooms,
    "bodies": big_bodies,
}
