"""A socket's answers to its intent ids, kept for their resends (``server/PROTOCOL.md``, "Intent
ids" and "Arenas").

An intent that needs no room (``arena-join`` …) is judged on the node its socket is on, so its
answers are kept there, with the socket: every message that answered the id so far, in order
(``arena-joined``, then the ``arena-paired`` its waiting ended in), or its refusal. A resend
of the id on that socket is answered with them again and judges nothing. A socket keeps its
latest ``KEPT`` ids; the answers go with it when it closes.
"""

from __future__ import annotations

from dataclasses import dataclass

import msgspec

from server.live.connection import Conn
from server.rooms.room import Refused

KEPT = 16  # intent ids a socket's answers are kept for
NOT_KEPT = frozenset({"busy", "internal", "rate-limited"})  # judged nothing: asked again


@dataclass(frozen=True, slots=True)
class Refusal:
    """A kept refusal (raised again for a resend)."""

    code: str
    message: str

    def again(self) -> Refused:
        return Refused(self.code, self.message)


Answer = msgspec.Struct | Refusal


class Answers:
    def __init__(self, kept: int = KEPT):
        self.kept = kept
        self._of: dict[Conn, dict[str, list[Answer]]] = {}

    def of(self, conn: Conn, intent_id: str | None) -> list[Answer] | None:
        """What answered the socket's ``intent_id`` so far (None: a new id, or none)."""
        return self._of.get(conn, {}).get(intent_id) if intent_id else None

    def keep(self, conn: Conn, intent_id: str | None, answer: Answer) -> None:
        """The id's first answer: kept as the socket's latest id (the oldest beyond ``kept``
        forgotten)."""
        if not intent_id:
            return
        kept = self._of.setdefault(conn, {})
        kept.pop(intent_id, None)
        kept[intent_id] = [answer]
        while len(kept) > self.kept:
            del kept[next(iter(kept))]

    def add(self, conn: Conn, intent_id: str | None, answer: Answer) -> None:
        """A later answer to the id (``arena-paired`` after ``arena-joined``), if still kept."""
        answers = self.of(conn, intent_id)
        if answers is not None:
            answers.append(answer)

    def refused(self, conn: Conn, intent_id: str | None, refused: Refused) -> None:
        """The id was refused: a resend is refused the same way (but for a refusal that judged
        nothing, ``NOT_KEPT``: asked again, it is judged)."""
        if refused.code not in NOT_KEPT:
            self.keep(conn, intent_id, Refusal(refused.code, refused.message))

    def drop(self, conn: Conn) -> None:
        self._of.pop(conn, None)
