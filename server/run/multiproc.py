"""One metrics directory for a ``--workers`` server, so one scrape sees the whole machine.

prometheus-client's multiprocess mode: every process that has ``PROMETHEUS_MULTIPROC_DIR`` in
its environment *when it imports the library* keeps its values in files there, and any of them
answers ``/metrics`` with the sum of all the files (``server/ops/metrics.py``). The supervisor
sets it before it imports anything that imports the library (its shared computer counts into
the same files), and its workers inherit it.

The directory is one per run: a new temporary one, removed at exit; or, when the operator names
one in ``PROMETHEUS_MULTIPROC_DIR``, that one, emptied of the last run's files at start (old
files would add a dead run's counts to this one's).
"""

from __future__ import annotations

import contextlib
import os
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path

VARIABLE = "PROMETHEUS_MULTIPROC_DIR"


@contextlib.contextmanager
def metrics_dir() -> Iterator[Path]:
    """Set ``PROMETHEUS_MULTIPROC_DIR`` for this process and its children, for the run."""
    named = os.environ.get(VARIABLE)
    if named:
        path = Path(named)
        path.mkdir(parents=True, exist_ok=True)
        for old in path.glob("*.db"):
            old.unlink(missing_ok=True)
        yield path
        return
    path = Path(tempfile.mkdtemp(prefix="nyumba-metrics-"))
    os.environ[VARIABLE] = str(path)
    try:
        yield path
    finally:
        del os.environ[VARIABLE]
        shutil.rmtree(path, ignore_errors=True)


def process_gone(pid: int) -> None:
    """A worker exited: its live gauges (sockets, rooms, the store's state) stop counting. Its
    counters and histograms stay in the sum, as a scrape expects of counters."""
    from prometheus_client import multiprocess

    multiprocess.mark_process_dead(pid)
