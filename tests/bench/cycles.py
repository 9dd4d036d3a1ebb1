"""What a serving node keeps in reference cycles after its connections closed.

    python tests/bench/cycles.py [--joins 2000] [--show TYPE]

Starts a node (this script again, with ``--serve``: ``nyumba serve`` in a process that
answers SIGUSR1 with a census), makes ``--joins`` connections that each join a room and
close, then asks for the census: the types in the collector's middle generation (what
outlived a young pass since the last full one: server/ops/collector.py), and the types a full
pass would free (``gc.DEBUG_SAVEALL``; cycles that a finalizer breaks, a suspended
generator's, are freed without being listed there, so the middle generation is the
better witness). With ``--show TYPE`` it also prints the reference cycles through one
object of that type (its strongly connected part of the middle generation, each edge
labelled with the attribute, key or local that makes it). The cycles broken in
server/web/handshake.py were found this way.
"""

from __future__ import annotations

import argparse
import asyncio
import collections
import gc
import json
import os
import signal
import subprocess
import sys
import tempfile
import time
import types
from pathlib import Path
from typing import Any

import httpx

ROOT = Path(__file__).resolve().parents[2]
sys.path[:0] = [str(ROOT), str(ROOT / "tests")]
from serverproc import free_port  # noqa: E402


def _name(o: Any) -> str:
    t = type(o)
    name = f"{t.__module__}.{t.__qualname__}"
    code = getattr(o, "f_code", None) or getattr(o, "gi_code", None) or getattr(o, "cr_code", None)
    if code is not None:
        name += f"[{code.co_qualname}]"
    elif isinstance(o, types.MethodType):
        name += f"[{o.__func__.__qualname__}]"
    elif isinstance(o, dict):
        name += "{" + ",".join(map(str, list(o)[:3])) + "}"
    return name


def _label(src: Any, dst: Any) -> str:
    """How ``src`` refers to ``dst``: an attribute, a key, an index or a local."""
    if getattr(src, "__dict__", None) is dst:
        return ".__dict__"
    fields = dict(getattr(src, "__dict__", None) or {})
    for cls in type(src).__mro__:
        for slot in getattr(cls, "__slots__", ()):
            fields.setdefault(slot, getattr(src, slot, None))
    if isinstance(src, types.FrameType):
        fields.update(src.f_locals)
    if isinstance(src, types.MethodType):
        fields["__self__"] = src.__self__
    for key, value in fields.items():
        if value is dst:
            return f".{key}"
    if isinstance(src, dict):
        return next((f"[{k!r}]" for k, v in src.items() if v is dst), "")
    if isinstance(src, (list, tuple, collections.deque)):
        return next((f"[{i}]" for i, v in enumerate(src) if v is dst), "")
    return ""


def _cycles_through(root: Any, pool: list[Any]) -> list[str]:
    """The edges among the objects of ``pool`` that reach ``root`` and that it reaches."""
    ids = {id(o): o for o in pool}
    out = {i: [id(r) for r in gc.get_referents(o) if id(r) in ids] for i, o in ids.items()}
    back: dict[int, list[int]] = collections.defaultdict(list)
    for a, bs in out.items():
        for b in bs:
            back[b].append(a)

    def reach(start: int, edges: Any) -> set[int]:
        seen, todo = set(), [start]
        while todo:
            x = todo.pop()
            if x not in seen:
                seen.add(x)
                todo.extend(edges[x])
        return seen

    part = reach(id(root), out) & reach(id(root), back)
    return sorted(
        f"{_name(ids[a])}{_label(ids[a], ids[b])} -> {_name(ids[b])}"
        for a in part
        for b in out[a]
        if b in part
    )


def census(path: str, show: str | None) -> None:
    middle = gc.get_objects(1)
    report: dict[str, Any] = {
        "middle": collections.Counter(_name(o) for o in middle).most_common(15),
    }
    if show:
        picked = [o for o in middle if type(o).__name__ == show][:1]
        report["cycles"] = _cycles_through(picked[0], middle) if picked else []
    del middle
    gc.set_debug(gc.DEBUG_SAVEALL)
    report["full_pass_frees"] = gc.collect()
    report["listed"] = collections.Counter(_name(o) for o in gc.garbage).most_common(15)
    gc.garbage.clear()
    gc.set_debug(0)
    Path(path).write_text(json.dumps(report))


async def _connections(ws_url: str, rooms: list[str], n: int) -> None:
    from websockets.asyncio.client import connect

    async def one(i: int) -> None:
        async with connect(ws_url, open_timeout=30) as ws:
            await ws.send(json.dumps({"t": "join", "room": rooms[i % len(rooms)]}))
            while json.loads(await ws.recv())["t"] not in ("state", "error"):
                pass

    for start in range(0, n, 20):
        await asyncio.gather(*(one(i) for i in range(start, min(n, start + 20))))


def drive(args: argparse.Namespace) -> None:
    tmp = Path(tempfile.mkdtemp(prefix="nyumba-cycles-"))
    port, out = free_port(), tmp / "census.json"
    env = {**os.environ, "NYUMBA_DATA_DIR": str(tmp), "NYUMBA_KEY_PREFIX": f"cycles-{port}:"}
    for budget in ("OPENS", "JOINS", "ROOM_VISITORS"):  # one address joining by the thousand
        env[f"NYUMBA_{budget}_PER_MINUTE"] = "1000000000"
    env["NYUMBA_RATE_MESSAGES_PER_ADDRESS"] = "1000000000"
    env.pop("REDIS_URL", None)
    command = [sys.executable, __file__, "--serve", str(port), "--out", str(out)]
    node = subprocess.Popen(command + (["--show", args.show] if args.show else []), env=env)
    base = f"http://127.0.0.1:{port}"
    try:
        for _ in range(300):
            try:
                if httpx.get(base + "/healthz", timeout=1).status_code == 200:
                    break
            except httpx.HTTPError:
                time.sleep(0.1)
        rooms = [httpx.post(base + "/api/rooms", json={"game": "kalah"}).json()["room"]]
        asyncio.run(_connections(f"ws://127.0.0.1:{port}/ws", rooms, args.joins))
        time.sleep(1)
        node.send_signal(signal.SIGUSR1)
        while not out.exists():
            time.sleep(0.2)
        time.sleep(0.5)
        report = json.loads(out.read_text())
    finally:
        node.terminate()
        node.wait(30)
    print(f"after {args.joins} connections, the middle generation holds:")
    for name, n in report["middle"]:
        print(f"  {n:8d} {name}")
    print(f"a full pass frees {report['full_pass_frees']} objects; of them listed:")
    for name, n in report["listed"]:
        print(f"  {n:8d} {name}")
    for edge in report.get("cycles", []):
        print(f"  cycle: {edge}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--joins", type=int, default=2000)
    ap.add_argument("--show", help="print the cycles through one object of this type")
    ap.add_argument("--serve", type=int, help=argparse.SUPPRESS)  # the node, on this port
    ap.add_argument("--out", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.serve is None:
        drive(args)
        return
    from server.cli import main as nyumba

    signal.signal(signal.SIGUSR1, lambda *_: census(args.out, args.show))
    sys.exit(nyumba(["serve", "--port", str(args.serve)]))


if __name__ == "__main__":
    main()
