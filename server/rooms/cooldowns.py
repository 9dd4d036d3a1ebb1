"""Who may seek a game in the lobby: the cooldown after a missed pairing, as values.

Pure: no I/O, no clock of its own (every instant is the store's ``TIME``, in ms). The store
applies these rules inside the lobby's pairing script (``server/store/lobby.py``, on the
``{lobby}`` slot, so every node sees one count); they are written here too, and the tests
hold the script to them (``server/PROTOCOL.md``, "Fair play in the lobby").

- **An offence.** A player paired in the lobby who has not joined the room within the join
  deadline (``NYUMBA_JOIN_DEADLINE_MS``, 10 s) has committed one — once per seat, however it
  is noticed. The offence counts against the player (their cookie's player, if any) *and*
  against the address their seek came from: a fresh cookie from the same address does not
  start clean.
- **Or aborted by not moving.** A lobby game aborted because a side did not make its first
  move in time (``NYUMBA_ABORT_MS``; ``no_first_move``) is an offence of that side's player
  and address — the same offence as a seat never joined, counted once.
- **The cooldown.** The ``n``-th offence of a player, or of an address, within ``WINDOW_MS``
  (24 h) bars it from seeking — a new seek or an ``accept`` is refused ``cooldown``, and its
  seeks already listed are passed over by pairings — for ``ladder[n-1]`` (the last step once
  ``n`` runs past the ladder): by default 2, 5, 10, 20, 40 and then 60 minutes
  (``NYUMBA_SEEK_COOLDOWNS_MS``). An offence is forgotten 24 h after it was counted.
- **One pairing in flight.** A pairing is *in flight* for an address from the moment it is made
  until its seat from that address is joined or the join deadline passes. While an address has
  ``NYUMBA_PAIRINGS_PER_ADDRESS`` (1) in flight, its new seeks are refused ``pairing-pending``
  and its listed seeks are passed over: one address can no longer take every pairing of a pool
  by keeping many seeks listed.

Why these numbers: a missed pairing costs the other player a wait and a new seek, so even the
first is not free, but 2 minutes is short enough for a player whose page crashed; a player who
keeps missing pairings waits twice as long each time, as lichess's "playban" does, up to an
hour, which is long enough to make sniping a pool useless and never a day's ban; the count
forgets after a day, so one bad evening is not carried for ever.
"""

from __future__ import annotations

from server.rooms.room import Position, Room

WINDOW_MS = 24 * 3600 * 1000  # offences counted over this long
LADDER_MS = (2, 5, 10, 20, 40, 60)  # minutes, the default ``NYUMBA_SEEK_COOLDOWNS_MS``
DEFAULT_LADDER = ",".join(str(m * 60_000) for m in LADDER_MS)


def ladder_of(text: str) -> tuple[int, ...]:
    """``NYUMBA_SEEK_COOLDOWNS_MS``: comma-separated milliseconds, one per offence."""
    return tuple(int(part) for part in text.split(","))


def cooldown_ms(offences: int, ladder: tuple[int, ...]) -> int:
    """How long the ``offences``-th offence within ``WINDOW_MS`` bars seeking (0 for none)."""
    if offences <= 0 or not ladder:
        return 0
    return ladder[min(offences, len(ladder)) - 1]


def wait_sentence(left_ms: int) -> str:
    """The ``cooldown`` refusal, saying how long is left (rounded up to a second)."""
    seconds = -(-left_ms // 1000)
    minutes, rest = divmod(seconds, 60)
    span = f"{minutes} min {rest} s" if minutes else f"{seconds} s"
    return (
        "You were paired and did not join the game in time, so you may not seek for a while "
        f"({span} left). Missing pairings again makes the wait longer."
    )


def pending_sentence(left_ms: int) -> str:
    """The ``pairing-pending`` refusal: the address's pairing in flight, and its deadline."""
    seconds = -(-left_ms // 1000)
    return (
        "A game was just paired for your address and nobody has joined it yet: join it, "
        f"or seek again once it is joined (at most {seconds} s)."
    )


def no_first_move(room: Room, deadline_ms: int) -> int | None:
    """The side whose missing first move aborted ``room``'s game at ``deadline_ms`` (the end of
    its first-move window), or None: the game was not aborted by its clock then. A clock the
    first-move window stopped stands at that instant (``clock.stopped``); an ``abort`` sent by
    a player stops it at another."""
    outcome, rec = room.outcome, room.clock
    if outcome is None or outcome.adjudication != "aborted" or rec is None:
        return None
    if rec.running >= 0 or rec.since_ms != deadline_ms:
        return None
    return Position(room).to_move
