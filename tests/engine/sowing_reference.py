"""Plain, slow restatements of the Kalah and Oware rules, written straight from the rules files.

They are a test oracle only (the engine keeps its one copy of the rules in engine/): written
without the engine's packed boards, tables or masks, so that a differential test between the
two catches an arithmetic or table slip that a hand-made scenario might miss.
Boards here are lists of 12 pit counts, a–f then A–F, as in ``board()``.
"""

from __future__ import annotations


def kalah_moves(pits: list[int], stores: list[int], mover: int) -> list[int]:
    if not any(pits[:6]) or not any(pits[6:]):
        return []
    return [k for k in range(6 * mover, 6 * mover + 6) if pits[k]]


def kalah_play(pits, stores, mover, move, empty_capture):
    """K4–K8 on a 14-place ring: a–f, store0, A–F, store1. Returns (pits, stores, next)."""
    ring = pits[:6] + [stores[0]] + pits[6:] + [stores[1]]
    here = move + (move >= 6)
    mine_store, their_store = (6, 13) if mover == 0 else (13, 6)
    seeds, ring[here] = ring[here], 0
    while seeds:
        here = (here + 1) % 14
        if here != their_store:  # K4: skip the opponent's store, never the origin
            ring[here] += 1
            seeds -= 1
    nxt = 1 - mover
    if here == mine_store:  # K5
        nxt = mover
    elif (here < 6) == (mover == 0) and here != 13 and ring[here] == 1:  # K6
        facing = 12 - here
        if ring[facing] or empty_capture:
            ring[mine_store] += ring[facing] + 1
            ring[facing] = ring[here] = 0
    south, north = ring[:6], ring[7:13]
    if not any(south) or not any(north):  # K8
        ring[6] += sum(south)
        ring[13] += sum(north)
        south, north = [0] * 6, [0] * 6
    return south + north, [ring[6], ring[13]], nxt


def _targets(move: int, seeds: int) -> list[int]:
    """O3/O4: the pits sown from ``move``, skipping the origin every lap."""
    out, here = [], move
    while len(out) < seeds:
        here = (here + 1) % 12
        if here != move:
            out.append(here)
    return out


def oware_moves(pits, scores, mover, over):
    if over:
        return []
    own = [k for k in range(6 * mover, 6 * mover + 6) if pits[k]]
    theirs = range(6 * (1 - mover), 6 * (1 - mover) + 6)
    if not any(pits[k] for k in theirs):  # O8
        feeding = [k for k in own if any(t in theirs for t in _targets(k, pits[k]))]
        if feeding:
            return feeding
    return own


def oware_play(pits, scores, mover, move, seen):
    """O3–O11. ``seen``: positions (pits, scores, mover) since the last capture, the current
    one included; updated. Returns (pits, scores, next, reason or None)."""
    pits, scores = list(pits), list(scores)
    seeds, pits[move] = pits[move], 0
    sown = _targets(move, seeds)
    for t in sown:
        pits[t] += 1
    theirs = range(6 * (1 - mover), 6 * (1 - mover) + 6)
    taken, captured = 0, list(pits)
    here = sown[-1]
    while here in theirs and captured[here] in (2, 3):  # O6
        taken += captured[here]
        captured[here] = 0
        here -= 1
    if taken and any(captured[k] for k in theirs):  # O7 cancels a grand slam
        pits = captured
        scores[mover] += taken
    else:
        taken = 0
    nxt = 1 - mover
    if max(scores) > 24:  # O9
        return pits, scores, nxt, "majority"
    key = (tuple(pits), tuple(scores), nxt)
    reason = None
    if not any(pits[6 * nxt : 6 * nxt + 6]):  # O10
        reason = "no-moves"
    elif not taken and key in seen:  # O11
        reason = "repetition"
    if reason:
        scores = [scores[0] + sum(pits[:6]), scores[1] + sum(pits[6:])]
        return [0] * 12, scores, nxt, reason
    if taken:
        seen.clear()
    seen.add(key)
    return pits, scores, nxt, None
