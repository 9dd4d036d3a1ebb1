"""Running a coroutine from a synchronous test (imported by name: ``from asynckit import run``).

The browser tests' sync Playwright leaves an event loop running in the main thread for the rest
of the session, and ``asyncio.run`` refuses to start inside a running loop: a test that runs
after them must give its coroutine a thread (and so a loop) of its own.
"""

from __future__ import annotations

import asyncio
from collections.abc import Coroutine
from concurrent.futures import ThreadPoolExecutor
from typing import Any, TypeVar

T = TypeVar("T")


def run(coro: Coroutine[Any, Any, T]) -> T:
    """``asyncio.run(coro)`` on a thread of its own; returns its result or raises its error."""
    with ThreadPoolExecutor(1) as pool:
        return pool.submit(asyncio.run, coro).result()
