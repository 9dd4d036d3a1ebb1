"""Chaos run: three nodes, many concurrent games between scripted clients that
drop connections at random, resend intents and reconnect; one node SIGKILLed
and restarted; the store (a redis-server of its own, append-only file on) SIGKILLed
and restarted with moves in flight. Then every
room's history is replayed through the engine to its stored position and
every acknowledged intent is looked up in it, and every move acknowledged from
the store's kill on must reach both players within 3 s of the store's return.

    python tests/bench/chaos.py [--games 40] [--seconds 90] [--drop-rate 0.05] [--store-down 2.5]
                                [--think 1.0]

The node is killed at a quarter of ``--seconds`` and the store at half, so games must still be
running then: a player waits up to ``--think`` seconds before each move (an Oware game of about
100 plies then lasts about a minute; at 0.3 s, 40 games were all over before the store's kill,
and the run proved nothing about it).
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from pathlib import Path

# tests/ for the helpers; the repository first, so `engine` is the package, not tests/engine
sys.path[:0] = [str(Path(__file__).resolve().parents[2]), str(Path(__file__).resolve().parents[1])]
from chaoskit import Chaos  # noqa: E402


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--games", type=int, default=40)
    ap.add_argument("--seconds", type=float, default=90)
    ap.add_argument("--drop-rate", type=float, default=0.05)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--store-down", type=float, default=2.5, help="seconds the store stays dead")
    ap.add_argument("--think", type=float, default=1.0, help="a player's longest pause per move")
    ap.add_argument("--json", action="store_true", help="print the report as one JSON line")
    args = ap.parse_args()
    report = Chaos(
        Path(tempfile.mkdtemp(prefix="nyumba-chaos-")),
        games=args.games,
        seconds=args.seconds,
        drop_rate=args.drop_rate,
        seed=args.seed,
        store_down_s=args.store_down,
        think=args.think,
    ).run()
    if args.json:
        print(json.dumps(report))
        sys.exit(0 if report["lost"] + report["duplicated"] + report["mismatched"] == 0 else 1)
    for key, value in report.items():
        print(f"{key:>22} {value}")
    bad = report["lost"] + report["duplicated"] + report["mismatched"]
    print("lost or duplicated moves:", report["lost"] + report["duplicated"])
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
