"""The interface a game family gives the search (``engine.search.alphabeta``).

A ``Tree`` is built afresh for each search from a game and a live state; it may keep state
along the line searched (Oware's boards since the last capture, for O11). Its nodes are
whatever its family computes fastest on (a packed int for Kalah and Oware, the Bao core's
lists for Bao); its moves are the family's fast-path moves until ``public`` turns one into
the game's own.

A *kid* is ``(order key, move, child node, value, same)``: ``value`` is set (and ``child`` may
be anything) when the move ends the game, from the mover's side; ``same`` says the mover moves
again from the child (Kalah K5). ``children`` returns the kids best-looking first: the search
tries them in that order, after the transposition table's move.
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable
from typing import Any, Protocol

Kid = tuple[int, Any, Any, int | None, bool]
Noisy = tuple[Any, int | None, bool]  # (child, value, same), as in a kid


class Tree(Protocol):
    root: Any  # the node searched from
    keyed: bool  # False: a node is its own transposition-table key; True: ``key`` gives it
    line: bool  # True: ``enter``/``leave`` are called around each child searched
    quiesce: int  # plies of noisy children followed past the horizon (0: none)
    clock: int  # ``expired`` is asked when ``count & clock == 0`` (a mask: 511, 63 …)

    def children(self, node: Any) -> list[Kid]:
        """Every legal move of a live ``node``, as kids, best-looking first."""
        ...

    def evaluate(self, node: Any) -> int:
        """The static value of a live ``node`` for its player to move, in quarter seeds."""
        ...

    def settled(self, node: Any) -> int | None:
        """The value of a node the search need not expand (Kalah: a store holds more than
        half the seeds), or None."""
        ...

    def noisy(self, node: Any) -> Iterable[Noisy]:
        """The children a quiescence search follows (only asked when ``quiesce > 0``)."""
        ...

    def key(self, node: Any) -> Hashable:
        """The transposition-table key of ``node`` (only asked when ``keyed``)."""
        ...

    def enter(self, node: Any, child: Any) -> None:
        """The search goes from ``node`` into ``child`` (only called when ``line``)."""
        ...

    def leave(self, node: Any, child: Any) -> None:
        """The search comes back from ``child`` to ``node`` (only called when ``line``)."""
        ...

    def public(self, move: Any) -> Any:
        """A kid's move as the game's own move (``game.legal_moves``)."""
        ...


class Plain:
    """Defaults for the optional parts of a ``Tree``: no quiescence, no line, its own key."""

    keyed = False
    line = False
    quiesce = 0

    def settled(self, node: Any) -> int | None:
        return None

    def noisy(self, node: Any) -> Iterable[Noisy]:
        return ()

    def key(self, node: Any) -> Hashable:
        return node  # type: ignore[no-any-return]

    def enter(self, node: Any, child: Any) -> None:
        pass

    def leave(self, node: Any, child: Any) -> None:
        pass

    def public(self, move: Any) -> Any:
        return move
