"""A Hypothesis property runs while another thread moves the global ``random``, as an open
WebSocket client's keepalive does (websockets draws its ping payloads from it): the warning
Hypothesis gives then is about that thread, not the strategy, and pyproject.toml lets it pass."""

from __future__ import annotations

import random
import threading
import time

from hypothesis import given
from hypothesis import strategies as st


def test_a_property_runs_while_another_thread_draws_from_random() -> None:
    stop = threading.Event()

    def keepalive() -> None:
        while not stop.is_set():
            random.getrandbits(32)
            time.sleep(0.0005)

    @given(
        st.builds(lambda a, b: (a, b), st.floats(0, 1), st.floats(0, 1)), st.sampled_from([0, 1])
    )
    def prop(pair: tuple[float, float], pick: int) -> None:
        assert 0 <= pair[0] <= 1 and pick in (0, 1)

    pinging = threading.Thread(target=keepalive, daemon=True)
    pinging.start()
    try:
        prop()
    finally:
        stop.set()
        pinging.join()
