"""Sessions that ended (a player deleted, a browser signed out), held in the store for as long
as any node may still remember them, so that every node refuses them on their next use.

    <prefix>revoked:{<session hash>}   a string, set with a lifetime (``keep_ms``)

Each node remembers who a session is for a while (``server/live/identity.py``) and asks the
store, on every use of a remembered session, whether it was revoked meanwhile: one ``EXISTS``.
The key outlives every node's memory of the session, after which the archive, which no longer
has the session, answers. One key per session: on a Cluster each lands on its own slot.
"""

from __future__ import annotations

from server.store.store import Store


def _key(store: Store, session_hash: str) -> str:
    return f"{store.prefix}revoked:{{{session_hash}}}"


async def revoke(store: Store, session_hashes: list[str], keep_ms: int) -> None:
    """Every node refuses these sessions from now on (for ``keep_ms``; the archive after)."""
    if session_hashes:
        await store.link.execute_many(
            [("SET", _key(store, h), 1, "PX", keep_ms) for h in session_hashes]
        )


async def revoked(store: Store, session_hash: str) -> bool:
    return bool(await store.link.execute("EXISTS", _key(store, session_hash)))
