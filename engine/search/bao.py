"""Bao's game tree for the search (any profile of ``engine.bao``), on the Bao core's lists.

``engine.bao_core.expand`` simulates every move of a node and ``finish`` applies takasia and
the profile's ``after_move`` hook, so a new profile (a ``Rules`` value) is searched unchanged.
A node is ``(board, hands, owned, player to move, takasia'd ring index or -1)``.

Move ordering: winning moves first, then by the evaluation of the child. Evaluation: seeds owned
(board and hand) weigh 4, front-row seeds weigh 1. A move ending the game is worth ``WIN`` for
its winner (no margin: Bao keeps no score) and 0 after a safety stop (N8); a player with no
legal move loses (B14, K6). UCT with random playouts was measured against this search at about
the same CPU time a move and lost in every profile (``engine.ai`` docstring).
``BaoExpertTree`` (the expert level and the hint) adds front-row contact and mobility.
"""

from __future__ import annotations

from collections.abc import Hashable

from engine import bao as B
from engine import bao_board as BB
from engine import bao_core as core
from engine.search.alphabeta import WIN
from engine.search.tree import Kid, Plain

Node = tuple[list[int], list[int], list[bool], int, int]


class BaoTree(Plain):
    keyed = True
    clock = 63  # a Bao node costs about as much as 50 sowing-game nodes

    def __init__(self, game: B.Bao, state: BB.State) -> None:
        self.rules, self.takasia = game.rules, game.takasia
        self.illegal = game.rules.endless == "illegal"
        self.root: Node = (
            list(state.pits),
            list(state.hands),
            list(state.nyumba),
            state.to_move,
            game.takasia_ring(state),
        )

    def children(self, node: Node) -> list[Kid]:
        b, hands, owned, p, block = node
        rules = self.rules
        namua = bool(hands[0] or hands[1])
        out: list[Kid] = []
        for kind, r, d, safari, b2, hands2, owned2, summary in core.expand(
            rules, b, hands, owned, p, block
        ):
            move = BB.move_of(kind, r, d, safari, p, namua)
            if summary.status == core.ENDLESS:
                if not self.illegal:
                    out.append((0, move, None, 0, False))  # N8: a safety stop, no winner
                continue  # K6: not a legal move
            t = core.finish(rules, self.takasia, b2, hands2, owned2, p, summary)
            if b2[0:8] == core.EMPTY_ROW:  # B13/B14, in the order the game checks them
                value = WIN if p else -WIN
                out.append((10 * value, move, None, value, False))
            elif b2[16:24] == core.EMPTY_ROW:
                value = -WIN if p else WIN
                out.append((10 * value, move, None, value, False))
            else:
                child = (b2, hands2, owned2, 1 - p, t)
                out.append((-self.evaluate(child), move, child, None, False))
        out.sort(key=lambda kid: kid[0], reverse=True)
        return out

    def evaluate(self, node: Node) -> int:
        b, hands, _, p, _ = node
        mine = p << 4
        theirs = mine ^ 16
        own = sum(b[mine : mine + 16]) + hands[p]
        other = sum(b[theirs : theirs + 16]) + hands[1 - p]
        front = sum(b[mine : mine + 8])
        ofront = sum(b[theirs : theirs + 8])
        return 4 * (own - other) + (front - ofront)

    def key(self, node: Node) -> Hashable:
        b, hands, owned, p, block = node
        return (tuple(b), hands[0], hands[1], owned[0], owned[1], p, block)


# The expert evaluation's weights, added to ``BaoTree``'s: in the front rows, the seeds the
# mover faces with a non-empty pit of its own (what a capture could take) and the mover's seeds
# so faced, the largest of each; then pits holding two or more seeds (those a move in the mtaji
# stage may start from), each side's. Set by judgement, not tuned by matches (no CPU was left).
WEIGHTS = (1, 1, 1)


class BaoExpertTree(BaoTree):
    """Bao for the expert level and the hint: the basic evaluation plus contact between the
    front rows and mobility (``WEIGHTS``)."""

    def evaluate(self, node: Node) -> int:
        b, _, _, p, _ = node
        mine = p << 4
        theirs = mine ^ 16
        front, ofront = b[mine : mine + 8], b[theirs : theirs + 8]
        take = risk = 0
        for k in range(8):  # front pit k faces the opponent's front pit 7 - k
            m, t = front[k], ofront[7 - k]
            if m and t:
                take = max(take, t)
                risk = max(risk, m)
        movable = sum(1 for v in b[mine : mine + 16] if v > 1)
        movable -= sum(1 for v in b[theirs : theirs + 16] if v > 1)
        w = WEIGHTS
        return super().evaluate(node) + w[0] * take - w[1] * risk + w[2] * movable
