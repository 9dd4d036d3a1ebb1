"""A master SIGKILLed under play, on a Valkey Cluster (3 masters + 3 replicas)
and behind Sentinel (1 master, 1 replica, 3 Sentinels): its replica is
promoted, play goes on, and with NYUMBA_ACK_REPLICAS=1 every acknowledged
intent is in the history exactly once (tests/bench/failover.py, the chaos
clients of tests/chaoskit.py).

Each run is a process of its own: the chaos clients abandon sockets by design.
"""

import json
import subprocess
import sys
from pathlib import Path

import pytest

BENCH = Path(__file__).resolve().parents[2] / "bench" / "failover.py"


@pytest.mark.parametrize("store", ["cluster", "sentinel"])
def test_master_failover_loses_nothing_acknowledged(store):
    run = subprocess.run(
        [
            sys.executable,
            str(BENCH),
            "--store",
            store,
            "--games",
            "8",
            "--seconds",
            "24",
            "--ack-replicas",
            "1",
            "--json",
        ],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert run.returncode in (0, 1), run.stdout[-2000:] + run.stderr[-4000:]
    report = json.loads(run.stdout.strip().splitlines()[-1])
    assert report["master-kills"] == 1, report
    assert report["lost"] == 0, report
    assert report["duplicated"] == 0, report
    assert report["mismatched"] == 0, report
    # Play went on after the failover, on the promoted replica.
    assert report["acked"] > report["acked-at-failover"] + 20, report
    assert run.returncode == 0, report
