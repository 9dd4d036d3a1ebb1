"""The computer's queues (issue 16, item 6): askers served round robin, bounded,
one hint per room at a time. The scheduling is tested with stand-in workers
that answer when told to (the real worker processes are tested elsewhere)."""

from __future__ import annotations

import asyncio

import pytest
from asynckit import run

from server.computer.pool import Busy, Computer, _Lane


class Stand:
    """A worker whose answers the test releases one at a time, in order of asking."""

    def __init__(self, log: list) -> None:
        self.log = log
        self.release: asyncio.Queue = asyncio.Queue()
        self.ended = False

    async def ask(self, *request):
        self.log.append(request[0])
        await self.release.get()
        return f"move-{request[0]}"

    def close(self) -> None:
        pass


def _lane(per_owner: int, limit: int) -> tuple[_Lane, Stand, list]:
    lane = _Lane(1, per_owner=per_owner, limit=limit)
    log: list = []
    stand = Stand(log)
    lane.workers = [stand]  # type: ignore[list-item]
    lane.free = [stand]  # type: ignore[list-item]
    return lane, stand, log


async def _settle() -> None:
    for _ in range(5):
        await asyncio.sleep(0)


def test_a_busy_owner_does_not_make_another_wait_for_all_its_requests():
    async def scenario():
        lane, stand, served = _lane(per_owner=4, limit=100)
        mine = [asyncio.ensure_future(lane.run("attacker", f"a{i}")) for i in range(5)]
        await _settle()
        theirs = asyncio.ensure_future(lane.run("victim", "v"))
        await _settle()
        assert served == ["a0"]
        stand.release.put_nowait(None)  # a0 done: the victim's turn comes next
        await _settle()
        assert served == ["a0", "v"]
        for _ in range(5):
            stand.release.put_nowait(None)
        assert await theirs == "move-v"
        assert [await m for m in mine] == [f"move-a{i}" for i in range(5)]
        assert served == ["a0", "v", "a1", "a2", "a3", "a4"]

    run(scenario())


def test_the_queues_are_bounded_per_owner_and_in_all():
    async def scenario():
        lane, stand, _ = _lane(per_owner=2, limit=3)
        running = asyncio.ensure_future(lane.run("a", "a0"))
        queued = [asyncio.ensure_future(lane.run("a", f"a{i}")) for i in (1, 2)]
        await _settle()
        with pytest.raises(Busy):  # "a" has two waiting
            await lane.run("a", "a3")
        other = asyncio.ensure_future(lane.run("b", "b0"))
        await _settle()
        with pytest.raises(Busy):  # three wait in all
            await lane.run("c", "c0")
        for _ in range(4):
            stand.release.put_nowait(None)
        await asyncio.gather(running, other, *queued)

    run(scenario())


def test_a_room_has_one_hint_in_the_works_shared_by_its_askers():
    async def scenario():
        computer = Computer()
        lane, stand, served = _lane(per_owner=2, limit=32)
        computer._hints = lane
        asks = [
            asyncio.ensure_future(computer.hint("room", 7, f"g{i}", {}, b"", 1, "x"))
            for i in range(8)
        ]
        await _settle()
        with pytest.raises(Busy):  # another position while one is in the works
            await computer.hint("room", 8, "g", {}, b"", 1, "x")
        stand.release.put_nowait(None)
        answers = await asyncio.gather(*asks)
        assert answers == ["move-g0"] * 8 and served == ["g0"]
        again = asyncio.ensure_future(computer.hint("room", 8, "h", {}, b"", 1, "x"))
        await _settle()
        stand.release.put_nowait(None)
        assert await again == "move-h"

    run(scenario())
