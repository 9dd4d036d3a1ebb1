"""A node killed outright leaves no processes of its own behind.

The replay pool's workers (``server/computer/replays.py``) wait on a queue only their node feeds; with
the node SIGKILLed they used to wait forever (262 such processes were found on a test machine).
Each now ends itself once its parent is gone. The computer's thinkers end on their pipe's EOF.
"""

from __future__ import annotations

import time

from serverproc import make_server
from test_workers import alive, children, command


def test_a_killed_node_leaves_no_replay_or_computer_processes(tmp_path, key_prefix):
    server = make_server("embedded", tmp_path, key_prefix + "orph:")
    pid = server.proc.pid
    deadline = time.monotonic() + 30
    spawned: set[int] = set()
    while time.monotonic() < deadline:  # the pool is warmed at start
        spawned = {c for c in children(pid) if "multiprocessing" in command(c)}
        if spawned:
            break
        time.sleep(0.2)
    assert spawned, "the replay pool's workers were not started"
    server.stop(kill=True)
    deadline = time.monotonic() + 15
    while time.monotonic() < deadline and any(alive(p) for p in spawned):
        time.sleep(0.2)
    left = [command(p) for p in spawned if alive(p)]
    assert not left, left
