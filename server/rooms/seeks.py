"""The lobby's values: seeks, the messages about them, pools, and who is paired with whom.

Pure. A *seek* is a player's standing offer to play: a game and its options, a clock (or
none), a side preference, rated or not. It lives in the store (``server/store/lobby.py``,
one hash slot) only while its seeker's connection does. A new seek is first offered to the
seeks already waiting in its *pool* (the same game, options, clock and ratedness): the
compatible one whose rating is nearest the newcomer's is paired with it at once, the oldest
first among equals (``nearest``; a seek without a rating counts as ``DEFAULT_RATING``); else it
waits, listed in the lobby. Clicking a listed seek (``accept``) pairs with it. The store's
script decides a pairing atomically; the rules it applies are written here too
(``compatible``, ``sides_of``, ``nearest``), and the tests hold the script to them. Who may
seek at all — the cooldown after a no-show, one pairing in flight per address — is
``server/rooms/cooldowns.py``'s.

The lobby's messages share the protocol's ``t`` tag (``server/rooms/protocol.py`` puts them
in its unions; ``server/PROTOCOL.md``, "The lobby").
"""

from __future__ import annotations

import json
from typing import Annotated, Any, Literal

import msgspec
from msgspec import Meta

from server.rooms import names
from server.rooms.clock import Control

SeekId = Annotated[str, Meta(min_length=1, max_length=32, pattern=r"^[A-Za-z0-9_-]+$")]
Game = Annotated[str, Meta(min_length=1, max_length=40, pattern=r"^[a-z0-9-]+$")]
SidePref = Literal["south", "north", "random"]
_IntentId = Annotated[str, Meta(min_length=1, max_length=64)]
_Name = Annotated[str, Meta(min_length=1, max_length=24)]


class _LobbyIn(msgspec.Struct, frozen=True, forbid_unknown_fields=True, tag_field="t"):
    pass


class _LobbyOut(msgspec.Struct, frozen=True, tag_field="t", gc=False):
    pass


class Watch(_LobbyIn, frozen=True, tag="lobby"):
    """Watch the lobby (``on``, the default) or stop. Answered by a ``lobby`` message (``full``)
    with the open seeks that fit the filters — ``game``, ``clock`` (a control, ``"none"`` or
    ``"any"``), ``rated`` (null: either) — nearest the rating ``near`` first, at most
    ``server/rooms/lobbyview.py``'s ``SHOWN`` of them, and per game a count of those not shown;
    then by an update at most twice a second with all that changed. Send it again to change
    the filters (or to have the list again): five times in ten seconds, else ``lobby-limit``."""

    on: bool = True
    game: Game | None = None
    clock: Control | Literal["any", "none"] = "any"
    rated: bool | None = None
    near: Annotated[int, Meta(ge=0, le=5000)] | None = None


def _check_name(name: str | None) -> None:
    if name is not None:
        why = names.problem(name)
        if why is not None:
            raise ValueError(why)


class Seek(_LobbyIn, frozen=True, tag="seek"):
    """Offer to play: paired at once with the compatible seek of the same pool nearest in
    rating (the oldest among equals), else listed in the lobby until paired, cancelled or the
    connection closes. ``clock`` null: no clock. ``rated`` needs an identified player (the
    page's cookie) and a clock (``problem``). ``name`` as ``join``'s. A connection holds one
    seek at a time; a resend of the same ``id`` is answered the same."""

    game: Game
    options: dict[str, Any] = {}
    clock: Control | None = None
    side: SidePref = "random"
    rated: bool = False
    name: _Name | None = None
    id: _IntentId | None = None

    def __post_init__(self) -> None:
        _check_name(self.name)


class Accept(_LobbyIn, frozen=True, tag="accept"):
    """Play the listed seek ``seek`` (the lobby's click)."""

    seek: SeekId
    name: _Name | None = None
    id: _IntentId | None = None

    def __post_init__(self) -> None:
        _check_name(self.name)


class Cancel(_LobbyIn, frozen=True, tag="cancel"):
    """Withdraw this connection's seek ``seek``."""

    seek: SeekId
    id: _IntentId | None = None


LOBBY = (Watch, Seek, Accept, Cancel)  # the messages the lobby answers, not a room


class SeekView(msgspec.Struct, frozen=True, gc=False):
    """An open seek as the lobby shows it. ``rating``: the seeker's Glicko-2 rating in the
    game (rounded; null: not an identified player, or not rated in it yet); ``provisional``
    while its deviation is high."""

    id: str
    game: str
    options: dict[str, Any]
    clock: Control | None
    side: SidePref
    rated: bool
    name: str | None = None
    player: str | None = None
    rating: int | None = None
    provisional: bool = False
    label: str | None = None  # the clock as players say it (Control.label); null: no clock


class Lobby(_LobbyOut, frozen=True, tag="lobby"):
    """A watcher's list: the seeks ``seeks`` added to it, the ids ``gone`` from it (paired,
    cancelled, their seeker gone, or no longer among the nearest), and ``more``: per game, the
    open seeks it does not show (always the whole count, not a change). ``full``: ``seeks`` is
    the whole list (nearest first): drop what you had."""

    seeks: list[SeekView] = []
    gone: list[str] = []
    more: dict[str, int] = {}
    full: bool = False


class Seeking(_LobbyOut, frozen=True, tag="seeking"):
    """This connection's seek ``seek`` is ``open`` (listed and waiting) or ``cancelled``."""

    seek: str
    status: Literal["open", "cancelled"]
    id: str | None = None


class Paired(_LobbyOut, frozen=True, tag="paired"):
    """A seek was paired: the new room, this player's ``side`` and seat ``token`` (shown once,
    as ``welcome``'s), and what the game is. Join the room with the token."""

    room: str
    url: str
    side: int
    token: str
    seek: str
    game: str
    options: dict[str, Any]
    clock: Control | None
    rated: bool
    opponent: str | None = None  # the other player's name, if given
    id: str | None = None


ERRORS = {
    "rated-needs-clock": "A rated seek needs a clock: choose a time control, or seek unrated.",
    "not-identified": "Only an identified player's seek can be rated: this socket opened "
    "without a player cookie (POST /api/me, then open the socket again), or seek unrated.",
    "cooldown": "You missed a game you were paired for; you may seek again later.",
    "pairing-pending": "A game paired from your address is waiting for its player to join it.",
    "no-seek": "There is no such open seek (it was paired, cancelled, or its player left).",
    "seek-limit": "Too many open seeks from this address or on this server; try again later.",
    "seeking": "This connection already has an open seek; cancel it first.",
    "lobby-limit": "Too many lobby requests on this connection; its updates keep coming.",
    "lobby-busy": "The lobby shows as many different lists as it can; ask without filters.",
}


class SeekRec(msgspec.Struct, frozen=True, gc=False):
    """A seek as the store keeps it (JSON, read by the pairing script): the public view's
    fields, and who and where its seeker is — its connection's node, the hash of the seat
    token its node keeps for it, its address."""

    id: str
    game: str
    options: dict[str, Any]
    clock: Control | None
    side: SidePref
    rated: bool
    pool: str
    node: str
    conn: str
    token_hash: str
    address: str
    name: str | None = None
    player: str | None = None
    rating: int | None = None
    provisional: bool = False


class Pairing(msgspec.Struct, frozen=True, gc=False):
    """What the pairing script decided: the room's id, the two seeks (index = side) and the
    store's time when it did."""

    room: str
    seeks: list[SeekRec]
    at_ms: int


def view(rec: SeekRec) -> SeekView:
    return SeekView(
        rec.id,
        rec.game,
        rec.options,
        rec.clock,
        rec.side,
        rec.rated,
        rec.name,
        rec.player,
        rec.rating,
        rec.provisional,
        None if rec.clock is None else rec.clock.label(),
    )


def pool_of(game: str, options: dict[str, Any], clock: Control | None, rated: bool) -> str:
    """The pool a seek waits in: seeks pair only within one (the same game as played)."""
    timing = None if clock is None else [clock.initial_ms, clock.increment_ms]
    return json.dumps([game, sorted(options.items()), timing, rated], separators=(",", ":"))


DEFAULT_RATING = 1500  # the rating a seek without one counts as when pairing (a new player's)


def problem(seek: Seek) -> str | None:
    """The error code a seek is refused with whoever sends it, or None. A rated game needs a
    clock: without one, the player about to lose could leave and nothing would ever end it."""
    if seek.rated and seek.clock is None:
        return "rated-needs-clock"
    return None


def rating_of(rec: SeekRec) -> int:
    """The rating a seek is paired by: its seeker's, or ``DEFAULT_RATING`` without one."""
    return DEFAULT_RATING if rec.rating is None else rec.rating


def nearest(newcomer: SeekRec, waiting: list[tuple[int, SeekRec]]) -> SeekRec | None:
    """The waiting seek (each with the store's time it was posted) that the newcomer is
    paired with: among the compatible ones, the nearest in rating, then the oldest (then the
    smaller id, for seeks posted in one millisecond)."""
    fits = [(abs(rating_of(w) - rating_of(newcomer)), at, w.id, w) for at, w in waiting]
    fits = [f for f in fits if compatible(newcomer, f[3])]
    return min(fits, key=lambda f: f[:3])[3] if fits else None


def compatible(a: SeekRec, b: SeekRec) -> bool:
    """Whether two seeks of one pool may be paired: not one connection's or one player's,
    and not both asking for the same side."""
    if a.conn == b.conn or (a.player is not None and a.player == b.player):
        return False
    return a.side == "random" or b.side == "random" or a.side != b.side


def sides_of(waiting: SidePref, newcomer: SidePref, coin: int) -> int:
    """The side the waiting seek's player gets (the newcomer the other): by preference, the
    waiting player's first, else ``coin`` (0 or 1, drawn by the store)."""
    if waiting != "random":
        return 0 if waiting == "south" else 1
    if newcomer != "random":
        return 1 if newcomer == "south" else 0
    return coin


def quick_pools(text: str) -> list[tuple[str, dict[str, Any], Control]]:
    """The quick-pairing pools of ``NYUMBA_QUICK_POOLS`` (``kalah:seeds=4@180+2,oware@300+3``:
    game, options, initial seconds + increment seconds), for the start page's buttons."""
    pools = []
    for item in text.split(","):
        spec, timing = item.strip().split("@")
        game, *pairs = spec.split(":")
        options: dict[str, Any] = {}
        for pair in pairs:
            name, value = pair.split("=")
            options[name] = int(value) if value.isdigit() else value in ("true", "on", "yes")
        initial, increment = (int(x) * 1000 for x in timing.split("+"))
        pools.append((game, options, Control(initial, increment)))
    return pools


encode_rec = msgspec.json.Encoder().encode
decode_rec = msgspec.json.Decoder(SeekRec).decode
decode_pairing = msgspec.json.Decoder(Pairing).decode
