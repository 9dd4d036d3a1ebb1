"""What a logged strength run is (``strength.py``, ``vs_openspiel.py`` with ``--log`` and
``--resume``): each game a JSON line, with the digest of the engine that played it and the
run's settings, so a run can be resumed, in a later session too, without counting games an
other engine or other settings played (``tests/bench/results/README.md``)."""

from __future__ import annotations

import ast
import hashlib
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

FAMILIES = ("kalah", "oware", "bao")


def fingerprint(family: str) -> str:
    """A digest of the engine's code and data that ``family``'s games can depend on (every
    file under ``engine/`` but those named for another family): a bench log's games count
    towards a run only when they were played by the same engine (``--resume``), and a change
    to Oware's search does not void the Kalah and Bao games. Python files count by their
    syntax tree without docstrings (``_code``), so comments and docstrings, where measured
    figures are written down, can change without voiding the runs they quote; and without the
    entries of a dict display keyed by another family's name (``engine.ai.BUDGETS``,
    ``EXPERT_NODES``, ``HINT``, ``engine.search.TREES``), so a change to Oware's budget does not
    void the Kalah games either."""
    root = Path(__file__).resolve().parents[2] / "engine"
    others = [f for f in FAMILIES if f != family]
    digest = hashlib.sha256()
    for path in sorted(p for p in root.rglob("*") if p.is_file() and "__pycache__" not in p.parts):
        if any(other in path.name for other in others):
            continue
        data = _code(path.read_text(), others) if path.suffix == ".py" else path.read_bytes()
        digest.update(str(path.relative_to(root)).encode() + b"\0" + data)
    return digest.hexdigest()[:12]


def _code(source: str, others: list[str]) -> bytes:
    """A Python file's syntax tree without its docstrings and without the entries of dict
    displays keyed by a name in ``others``, as bytes."""
    tree = ast.parse(source)
    for node in ast.walk(tree):
        if isinstance(node, ast.Dict):
            kept = [
                (k, v)
                for k, v in zip(node.keys, node.values, strict=True)
                if not (isinstance(k, ast.Constant) and k.value in others)
            ]
            node.keys = [k for k, _ in kept]
            node.values = [v for _, v in kept]
        body = getattr(node, "body", None)
        if (
            isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef)
            and body
            and isinstance(body[0], ast.Expr)
            and isinstance(body[0].value, ast.Constant)
            and isinstance(body[0].value.value, str)
        ):
            node.body = body[1:] or [ast.Pass()]
    return ast.dump(tree).encode()


def logged(
    path: str | None, run: dict[str, Any], engine_of: Callable[[dict[str, Any]], str | None]
) -> list[dict[str, Any]]:
    """The games of log ``path`` (none without one) played with settings ``run`` by the
    engine ``engine_of`` gives for the game's line, oldest first."""
    if not path or not Path(path).exists():
        return []
    games = [json.loads(line) for line in Path(path).read_text().splitlines()]
    return [g for g in games if g.get("run") == run and g.get("engine") == engine_of(g)]


def append(path: str | None, game: dict[str, Any], engine_id: str, run: dict[str, Any]) -> None:
    """Write a finished game to log ``path`` (nothing without one)."""
    if path:
        with open(path, "a") as f:
            f.write(json.dumps({**game, "engine": engine_id, "run": run}) + "\n")
