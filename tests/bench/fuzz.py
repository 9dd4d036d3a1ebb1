"""The long fuzz campaign: ≥ 100k hostile messages against a real server.

    python tests/bench/fuzz.py [--messages 100000] [--redis-url URL]

Random bytes, valid JSON of wrong shapes, boundary values, oversize frames,
out-of-turn and stale moves, other rooms' and forged tokens (see
tests/fuzzkit.py). Prints the count of each answer; then checks that the
server logged no error, answered no message with ``internal``, and that the
room is exactly as it was.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

# tests/ for the helpers; the repository first, so `engine` is the package, not tests/engine
sys.path[:0] = [str(Path(__file__).resolve().parents[2]), str(Path(__file__).resolve().parents[1])]
from fuzzkit import Campaign, messages  # noqa: E402
from serverproc import ServerProcess  # noqa: E402


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--messages", type=int, default=100_000)
    ap.add_argument("--redis-url", default=os.environ.get("REDIS_URL"))
    args = ap.parse_args()
    tmp = Path(tempfile.mkdtemp(prefix="nyumba-fuzz-"))
    srv = ServerProcess(
        redis_url=args.redis_url,
        data_dir=tmp,
        env={
            "NYUMBA_KEY_PREFIX": f"nyumba-fuzz-{os.getpid()}:",
            "NYUMBA_RATE_MESSAGES": "100000000",
            "NYUMBA_RATE_PINGS": "100000000",
        },
    ).start()
    batch = 50
    try:
        c = Campaign(srv)
        t0 = time.perf_counter()

        @settings(
            max_examples=(args.messages + batch - 1) // batch,
            deadline=None,
            suppress_health_check=list(HealthCheck),
            database=None,
        )
        @given(
            st.lists(
                messages(c.room, c.other_room, c.other_token, c.version),
                min_size=batch,
                max_size=batch,
            )
        )
        def run(batch_of):
            for who, raw in batch_of:
                c.send(who, raw)

        run()
        elapsed = time.perf_counter() - t0
        for answer, n in sorted(c.counts.items(), key=lambda kv: -kv[1]):
            print(f"{answer:>16} {n}")
        print(
            f"messages: {c.counts['sent']} in {elapsed:.0f} s ({c.counts['sent'] / elapsed:.0f}/s)"
        )
        c.check()
        print("server errors: 0; internal answers: 0; room unchanged: yes")
        c.close()
    finally:
        srv.stop()


if __name__ == "__main__":
    main()
