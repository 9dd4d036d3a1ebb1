"""A short sample of the chaos run (tests/bench/chaos.py runs the long one).

It runs as its own process: the chaos clients abandon sockets mid-handshake by
design, and their clean-up belongs to that process, not to this test session.
"""

import json
import subprocess
import sys
from pathlib import Path

BENCH = Path(__file__).resolve().parents[2] / "bench" / "chaos.py"


def test_chaos_sample_loses_and_duplicates_nothing():
    run = subprocess.run(
        [
            sys.executable,
            str(BENCH),
            "--games",
            "6",
            "--seconds",
            "25",
            "--drop-rate",
            "0.08",
            "--seed",
            "1",
            "--json",
        ],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert run.returncode == 0, run.stdout[-2000:] + run.stderr[-4000:]
    report = json.loads(run.stdout.strip().splitlines()[-1])
    assert report["node-kills"] == 1 and report["store-restarts"] == 1
    assert report["moves"] > 50 and report["drops"] > 0
    assert report["lost"] == 0, report
    assert report["duplicated"] == 0, report
    assert report["mismatched"] == 0, report
    # Moves acknowledged across the store's restart reach both players within 3 s of its return.
    assert report["acked-after-store-kill"] > 10, report
    assert report["late-after-store-return"] == 0, report
