"""The lobby in the store: open seeks and their pairing, every key in one hash slot.

Every key carries the ``{lobby}`` hash tag, so on a Cluster the whole lobby lives in one
slot and each script below runs atomically on one master::

    <prefix>lobby:{lobby}:seeks          hash: seek id -> the seek (``SeekRec``, JSON)
    <prefix>lobby:{lobby}:alive          sorted set: seek id -> alive until (store ms)
    <prefix>lobby:{lobby}:pool:<pool>    sorted set: the pool's seek ids -> when posted
    <prefix>lobby:{lobby}:near:<pool>:<side>  sorted set: "<posted, 15 digits><id>" -> rating,
                                         the pool's seeks asking for that side, by rating
    <prefix>lobby:{lobby}:addr:<addr>    sorted set: an address's seek ids -> alive until
    <prefix>lobby:{lobby}:paired         hash: seek id -> its pairing (JSON), for 60 s
    <prefix>lobby:{lobby}:paired_at      sorted set: seek id -> when paired
    <prefix>lobby:{lobby}:flight         hash: "<room>/<side>" -> its seeker {player, address}
    <prefix>lobby:{lobby}:flights        sorted set: "<room>/<side>" -> join deadline
    <prefix>lobby:{lobby}:flying:<addr>  sorted set: an address's seats in flight -> deadline
    <prefix>lobby:{lobby}:strikes:p|a:<who>  sorted set: a player's or address's offences
                                         ("<room>/<side>") -> when counted; lapses in 24 h
    <prefix>lobby:{lobby}:cool:p|a:<who> string, lapsing when its cooldown ends
    <prefix>lobby:{lobby}:seats:<room>   string: a lobby room's seekers [{player, address}] for
                                         its first moves' time (an abort's offence)
    channel <prefix>lobby:{lobby}        the lobby's news (JSON): open, gone, paired

Pairing is one script (``SEEK``): it refuses a newcomer whose player or address is cooling
down or has a pairing in flight (``server/rooms/cooldowns.py``); it reads the pool's seeks
asking for a side compatible with the newcomer's nearest in rating first (the oldest among
equals, ``server/rooms/seeks.py`` ``nearest``), drops every stale seek it meets (its seeker's
node stopped refreshing it), passes over those cooling down or in flight, pairs the first
compatible one with the newcomer, records the pairing under both seek ids and both seats as
in flight, removes the paired seek and publishes it — or lists the newcomer. A seat in
flight is joined (``JOINED``, from the node the player joins on) or, past its deadline,
counted as an offence by the next script that looks (``settle``: a seek's, or a sweep's). Two nodes cannot pair one seek twice, and a pairing whose news a
node missed is found by its next refresh (``refresh``). Times are the store's (``TIME``).
"""

from __future__ import annotations

import json
from typing import Any

from server.store.lobbyscripts import CANCEL, JOINED, LIST, REFRESH, SEEK, STRUCK, SWEEP


def seek_rules(
    lease_ms: int,
    address_cap: int,
    room_id: str,
    coin: int,
    target: str = "",
    scan: int = 64,
    rating: int = 1500,
    join_ms: int = 10_000,
    flights: int = 1,
    keep_ms: int = 120_000,
    window_ms: int = 24 * 3600 * 1000,
    ladder: tuple[int, ...] = (),
) -> dict[str, Any]:
    """What ``SEEK`` is told: the seek's lease, the address's cap of open seeks, the room a
    pairing makes, the coin for sides, the listed seek ``target`` (an ``accept``), how many
    seeks to look at, the seek's rating to pair by, the join deadline, the pairings in flight an
    address may have, how long a pairing's seekers are kept (for an abort's offence) and the
    cooldowns' window and ladder (server/rooms/cooldowns.py)."""
    return {
        "lease": lease_ms, "cap": address_cap, "room": room_id, "coin": coin, "target": target,
        "scan": scan, "rating": rating, "join": join_ms, "flights": flights, "keep": keep_ms,
        "window": window_ms, "ladder": list(ladder),
    }  # fmt: skip


class LobbyStore:
    """The lobby's scripts over a store's multiplexed connection (``link``)."""

    def __init__(self, link: Any, prefix: str, sharded: bool):
        self.keys = f"{prefix}lobby:{{lobby}}:"
        self.channel = f"{prefix}lobby:{{lobby}}"
        self.link = link

        def script(text: str) -> Any:
            return link.script(text.replace("'PUBLISH'", "'SPUBLISH'") if sharded else text)

        self._seek = script(SEEK)
        self._cancel = script(CANCEL)
        self._refresh = script(REFRESH)
        self._sweep = script(SWEEP)
        self._joined = script(JOINED)
        self._struck = script(STRUCK)
        self._list = script(LIST)

    def _slot_keys(self) -> list[str]:
        # The one key that routes each script to the lobby's slot (the others share it).
        return [self.keys + "seeks"]

    async def seek(
        self, seek_id: str, rec: bytes, rules: dict[str, Any]
    ) -> tuple[str, bytes | None]:
        """Pair the seek with the pool's nearest compatible seek (or ``rules["target"]``), else
        list it. ``("paired", pairing)``, ``("open", None)``, ``("limit", None)``, ``("none",
        None)``, or ``("cooldown" | "pending", ms left)`` (the left as text)."""
        args = [self.keys, self.channel, seek_id, rec, json.dumps(rules)]
        return _answer(await self._seek(keys=self._slot_keys(), args=args))

    async def joined(self, room_id: str, sides: list[int]) -> None:
        """A paired room's seats ``sides`` were joined: their pairing is no longer in flight."""
        await self._joined(keys=self._slot_keys(), args=[self.keys, self.channel, room_id, *sides])

    async def struck(self, room_id: str, side: int, rules: dict[str, Any]) -> None:
        """The lobby game ``room_id`` was aborted by ``side``'s missing first move."""
        args = [self.keys, self.channel, room_id, side, json.dumps(rules)]
        await self._struck(keys=self._slot_keys(), args=args)

    async def cancel(self, seek_id: str) -> tuple[str, bytes | None]:
        out = await self._cancel(keys=self._slot_keys(), args=[self.keys, self.channel, seek_id])
        return _answer(out)

    async def refresh(self, seek_ids: list[str], lease_ms: int) -> list[bytes]:
        if not seek_ids:
            return []
        args = [self.keys, self.channel, lease_ms, *seek_ids]
        return [_bytes(x) for x in await self._refresh(keys=self._slot_keys(), args=args)]

    async def sweep(
        self, rules: dict[str, Any], limit: int = 500, keep_paired_ms: int = 60_000
    ) -> int:
        args = [self.keys, self.channel, limit, keep_paired_ms, json.dumps(rules)]
        return int(await self._sweep(keys=self._slot_keys(), args=args))

    async def open_seeks(self) -> list[bytes]:
        return [_bytes(x) for x in await self._list(keys=self._slot_keys(), args=[self.keys])]


def _bytes(value: Any) -> bytes:
    return value if isinstance(value, bytes) else str(value).encode()


def _answer(out: list[Any]) -> tuple[str, bytes | None]:
    kind = _bytes(out[0]).decode()
    return kind, _bytes(out[1]) if len(out) > 1 else None
