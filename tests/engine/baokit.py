"""Helpers the Bao scenario tests share: boards drawn as text, moves by notation."""

from __future__ import annotations


def text(drawing: str, tail: str) -> str:
    """A position text from four drawn rows (b8..b1 / a8..a1 / A1..A8 / B1..B8) and its tail."""
    rows = [",".join(line.split("#")[0].split()) for line in drawing.strip().splitlines()]
    return "/".join(rows) + " " + tail


def at(game, drawing: str, tail: str):
    return game.position(text(drawing, tail))


def play(game, state, *moves: str):
    for move in moves:
        state = game.play(state, game.parse(state, move))
    return state


def legal(game, state) -> list[str]:
    return [game.notation(m) for m in game.legal_moves(state)]
