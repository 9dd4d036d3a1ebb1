"""Players: an identity without passwords.

A first visit gets an anonymous player: a public id (``/p/{id}``), a name they may choose,
and a *session* — a long random token that only the browser holds (an HttpOnly cookie,
``server/web/players.py``); the archive keeps its SHA-256, never the token. To carry the
identity to another device, or keep it when the cookie goes, a player adds a passkey
(WebAuthn): the archive keeps the credential's public key and signature counter, nothing
secret. Signing in with the passkey elsewhere opens a new session for the same player. No
password is asked for or stored, ever.

Deleting an identity removes the player, its sessions, passkeys and ratings; its games stay,
with their seats "anonymous" (no player, no name). Retention (``prune``): a session unused
for ``SESSION_DAYS`` goes, and a player left with neither a session nor a passkey goes with
it (nobody can ever sign in as them again); a player never used (``mark_used``: its
session never took a seat, sought a game or made a room) that has no passkey
and no game goes ``UNUSED_MS`` after it was made, with its session — every first visit makes
a player, and one that only looked is not kept for 400 days; a WebAuthn challenge lives
``CHALLENGE_MS``.
"""

from __future__ import annotations

import hashlib
import secrets
from typing import Any

import msgspec
from sqlalchemy import and_, delete, exists, select, update

from server.archive.db import Database
from server.archive.schema import challenges, game_seats, passkeys, players, ratings, sessions

SESSION_DAYS = 400  # as long as a browser keeps a cookie (Chrome's cap)
CHALLENGE_MS = 5 * 60 * 1000
SEEN_EVERY_MS = 3600 * 1000  # a session's last use is written at most this often
DAY_MS = 86_400_000
UNUSED_MS = DAY_MS  # a player never used is kept this long after it was made


class Player(msgspec.Struct):
    id: str
    name: str | None
    created_ms: int
    passkeys: int = 0
    used: bool = True  # ``by_session``: false until a seat, a seek or a room (``mark_used``)


def new_player_id() -> str:
    return secrets.token_urlsafe(9)  # 72 bits: a public name for a page, not a secret


def new_session_token() -> str:
    return secrets.token_urlsafe(32)  # 256 random bits


def hash_session(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


async def create(db: Database, now_ms: int, name: str | None = None) -> tuple[Player, str]:
    """A new anonymous player and its first session's token."""
    player = Player(new_player_id(), name, now_ms)
    token = new_session_token()
    async with db.write() as conn:
        await conn.execute(
            players.insert().values(id=player.id, name=name, created_ms=now_ms, seen_ms=now_ms)
        )
        await _open(conn, player.id, token, now_ms)
    return player, token


async def _open(conn: Any, player: str, token: str, now_ms: int) -> None:
    await conn.execute(
        sessions.insert().values(
            token_hash=hash_session(token), player=player, created_ms=now_ms, seen_ms=now_ms
        )
    )


async def open_session(db: Database, player: str, now_ms: int) -> str:
    """A new session for ``player`` (signed in with a passkey): its token."""
    token = new_session_token()
    async with db.write() as conn:
        await _open(conn, player, token, now_ms)
    return token


async def by_session(db: Database, token: str, now_ms: int) -> Player | None:
    """The player whose session ``token`` is, or None. A player never used stays so (its
    ``seen_ms`` is its ``created_ms``): a page asking who it is is no use (``mark_used``)."""
    h = hash_session(token)
    async with db.read() as conn:
        row = (
            await conn.execute(
                select(players, sessions.c.seen_ms.label("session_seen"))
                .join(sessions, sessions.c.player == players.c.id)
                .where(sessions.c.token_hash == h)
            )
        ).first()
    if row is None:
        return None
    used = row.seen_ms > row.created_ms
    if now_ms - row.session_seen > SEEN_EVERY_MS:  # kept for retention, not on every request
        async with db.write() as conn:
            await conn.execute(
                update(sessions).where(sessions.c.token_hash == h).values(seen_ms=now_ms)
            )
            if used:
                await conn.execute(
                    update(players).where(players.c.id == row.id).values(seen_ms=now_ms)
                )
    return Player(row.id, row.name, row.created_ms, used=used)


async def mark_used(db: Database, player: str, now_ms: int) -> None:
    """``player``'s session took a seat, sought a game or made a room: it is kept past the
    retention of players never used (``prune``)."""
    async with db.write() as conn:
        await conn.execute(
            update(players)
            .where(
                players.c.id == player,
                players.c.seen_ms <= players.c.created_ms,
                players.c.created_ms < now_ms,
            )
            .values(seen_ms=now_ms)
        )


async def get(db: Database, player: str) -> Player | None:
    async with db.read() as conn:
        row = (await conn.execute(select(players).where(players.c.id == player))).first()
        if row is None:
            return None
        keys = await conn.execute(select(passkeys.c.id).where(passkeys.c.player == player))
        return Player(row.id, row.name, row.created_ms, len(keys.all()))


async def is_kept(db: Database, player: str) -> bool:
    async with db.read() as conn:
        return (
            await conn.execute(select(players.c.id).where(players.c.id == player))
        ).first() is not None


async def rename(db: Database, player: str, name: str | None) -> None:
    async with db.write() as conn:
        await conn.execute(update(players).where(players.c.id == player).values(name=name))


async def sign_out(db: Database, token: str) -> None:
    async with db.write() as conn:
        await conn.execute(delete(sessions).where(sessions.c.token_hash == hash_session(token)))


async def delete_player(db: Database, player: str) -> list[str]:
    """The identity goes; its games stay, their seats anonymous. Returns its sessions' hashes
    (for the nodes to refuse them: ``server/live/identity.py``)."""
    async with db.write() as conn:
        ended = await conn.execute(select(sessions.c.token_hash).where(sessions.c.player == player))
        hashes = [r.token_hash for r in ended]
        await conn.execute(
            update(game_seats).where(game_seats.c.player == player).values(player=None, name=None)
        )
        for table in (sessions, passkeys, ratings):
            await conn.execute(delete(table).where(table.c.player == player))
        await conn.execute(delete(challenges).where(challenges.c.player == player))
        await conn.execute(delete(players).where(players.c.id == player))
    return hashes


# -- passkeys ---------------------------------------------------------------------------------


class Passkey(msgspec.Struct):
    id: str  # base64url credential id
    player: str
    public_key: bytes
    sign_count: int
    transports: list[str] | None
    rp_id: str | None = None  # the relying party it was made for (None: made before a002)


async def add_passkey(db: Database, key: Passkey, now_ms: int) -> bool:
    """Keep ``key``; False (nothing written) when a passkey with its credential id is already
    kept — a client's repeat or a copied credential, not an archive fault."""
    async with db.write() as conn:
        added = await conn.execute(
            db.insert(passkeys)
            .values(
                id=key.id,
                player=key.player,
                public_key=key.public_key,
                sign_count=key.sign_count,
                transports=key.transports,
                created_ms=now_ms,
                used_ms=now_ms,
                rp_id=key.rp_id,
            )
            .on_conflict_do_nothing(index_elements=[passkeys.c.id])
        )
    return bool(added.rowcount)


def _passkey(row: Any) -> Passkey:
    return Passkey(row.id, row.player, row.public_key, row.sign_count, row.transports, row.rp_id)


async def passkey(db: Database, credential_id: str) -> Passkey | None:
    async with db.read() as conn:
        row = (await conn.execute(select(passkeys).where(passkeys.c.id == credential_id))).first()
    return None if row is None else _passkey(row)


async def passkeys_of(db: Database, player: str) -> list[Passkey]:
    async with db.read() as conn:
        rows = await conn.execute(select(passkeys).where(passkeys.c.player == player))
        return [_passkey(r) for r in rows]


async def used_passkey(
    db: Database, key: Passkey, sign_count: int, rp_id: str, now_ms: int
) -> bool:
    """Move ``key``'s signature counter to ``sign_count`` by compare-and-set: True if this
    sign-in moved it, False if another got there first with the same or a later count (two
    sign-ins racing with one authenticator's signatures, or a cloned one).

    An authenticator that never counts (many synced passkeys say 0 every time) leaves the
    counter at 0; the write then only checks that it is still 0 (py_webauthn has already
    refused a 0 after a count). What stops a replay of such an assertion is its challenge,
    which ``take_challenge`` hands to one request only. A passkey kept before its relying party
    was (``rp_id`` NULL) gets the one it was just checked against."""
    ahead = passkeys.c.sign_count < sign_count if sign_count > 0 else passkeys.c.sign_count == 0
    async with db.write() as conn:
        moved = await conn.execute(
            update(passkeys)
            .where(and_(passkeys.c.id == key.id, ahead))
            .values(sign_count=sign_count, used_ms=now_ms, rp_id=rp_id)
        )
    return bool(moved.rowcount)


async def put_challenge(db: Database, challenge: bytes, player: str | None, now_ms: int) -> str:
    """Keep a WebAuthn challenge for one answer; its id goes to the browser."""
    cid = secrets.token_urlsafe(16)
    async with db.write() as conn:
        await conn.execute(
            challenges.insert().values(
                id=cid, challenge=challenge, player=player, expires_ms=now_ms + CHALLENGE_MS
            )
        )
    return cid


async def take_challenge(db: Database, cid: str, now_ms: int) -> tuple[bytes, str | None] | None:
    """The challenge ``cid`` and its player, used up; None if unknown, expired, or taken by
    another request. One statement deletes it and says whether this request did: of any number
    of requests racing with one answer, on any node, exactly one gets the challenge (a read then
    a delete let several through on PostgreSQL, where each read saw the row)."""
    async with db.write() as conn:
        row = (
            await conn.execute(
                delete(challenges)
                .where(challenges.c.id == cid)
                .returning(challenges.c.challenge, challenges.c.player, challenges.c.expires_ms)
            )
        ).first()
    if row is None or row.expires_ms < now_ms:
        return None
    return row.challenge, row.player


async def prune(db: Database, now_ms: int) -> int:
    """Retention: expired challenges, sessions unused for ``SESSION_DAYS``, players never used
    ``UNUSED_MS`` after they were made, and the players nobody can sign in as any more.
    Returns the players removed."""
    unused = select(players.c.id).where(
        and_(
            players.c.created_ms < now_ms - UNUSED_MS,
            players.c.seen_ms <= players.c.created_ms,  # never used (``mark_used``)
            ~exists().where(passkeys.c.player == players.c.id),
            ~exists().where(game_seats.c.player == players.c.id),
        )
    )
    async with db.write() as conn:
        await conn.execute(delete(challenges).where(challenges.c.expires_ms < now_ms))
        await conn.execute(
            delete(sessions).where(sessions.c.seen_ms < now_ms - SESSION_DAYS * DAY_MS)
        )
        # Nothing but a session and a challenge can name a player nobody used.
        for table in (sessions, challenges):
            await conn.execute(delete(table).where(table.c.player.in_(unused)))
        never = (await conn.execute(delete(players).where(players.c.id.in_(unused)))).rowcount
        orphans = select(players.c.id).where(
            and_(
                players.c.created_ms < now_ms - DAY_MS,  # a player made a moment ago is kept
                ~exists().where(sessions.c.player == players.c.id),
                ~exists().where(passkeys.c.player == players.c.id),
            )
        )
        gone = [r.id for r in await conn.execute(orphans)]
    for player in gone:
        await delete_player(db, player)
    return never + len(gone)
