"""Garbage collection for a long-running node.

CPython frees almost everything by reference counting; the cycle collector is
for the rest. Its full (oldest-generation) pass walks every tracked object,
and a node holding a few thousand sockets tracks hundreds of thousands (each
connection is a stack of ASGI coroutines, a transport, a protocol, queues):
measured at 2,000 rooms × 2 sockets, 600,000 objects and 430–460 ms per full
pass, which CPython started on its own every 10–15 s while rooms came and
went. Every move in flight waits out such a pause.

So a node:

* freezes what it has loaded at start (modules, functions, classes: never
  garbage) out of the collector's sight;
* collects the young generation every 50 ms as well as on CPython's own
  trigger. That trigger counts allocations minus deallocations, and in a busy
  node old objects die as fast as new ones are made (each message replaces
  its socket's waiting coroutines), so the young generation grew unnoticed
  to tens of thousands of objects and single passes took 10-60 ms; on a
  timer a pass sees 50 ms of survivors (well under a millisecond). Survivors
  move to the middle generation, which has no automatic pass;
* makes the full pass on a timer instead of on allocation counts, logging how
  long it took. At those sizes the full passes found 0–80 objects each: what
  waits between them is a few objects of cyclic garbage, not a leak.
"""

from __future__ import annotations

import asyncio
import gc
import logging
import time

log = logging.getLogger("nyumba.gc")

_NEVER = 2**31 - 1  # gen-1 passes before an automatic full pass: none
YOUNG_EVERY_S = 0.05


def configure() -> None:
    """Once the app is loaded: freeze it, and take full passes off the allocation trigger."""
    gc.collect()
    gc.freeze()
    young0, _, _ = gc.get_threshold()
    gc.set_threshold(young0, _NEVER, _NEVER)


def full_pass() -> tuple[int, float]:
    """One full pass now: (objects collected, milliseconds)."""
    t0 = time.perf_counter()
    found = gc.collect()
    return found, (time.perf_counter() - t0) * 1000


async def run_young_passes(every_s: float = YOUNG_EVERY_S) -> None:
    while True:
        await asyncio.sleep(every_s)
        gc.collect(0)


async def run_full_passes(every_s: float) -> None:
    while True:
        await asyncio.sleep(every_s)
        found, ms = full_pass()
        log.info(
            "full collection: %d objects in %.0f ms (%d tracked)", found, ms, len(gc.get_objects())
        )
