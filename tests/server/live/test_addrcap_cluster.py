"""The socket cap's leases on a real Valkey Cluster (3 masters, started here): a node renews
the leases of its sockets whichever master holds their address's set. The renewal's script
was loaded on one master only, so on the others every round failed with NOSCRIPT and the
sockets' entries lapsed after one lease (the cap then undercounted them)."""

from __future__ import annotations

import asyncio
import contextlib

from asynckit import run
from clusterkit import ValkeyCluster

from server.live.addrcap import AddressCap
from server.store.cluster import slot_of
from server.store.store import Store


def test_socket_leases_are_renewed_on_every_master(tmp_path) -> None:
    cluster = ValkeyCluster(tmp_path).start()

    async def scenario() -> dict[str, float | None]:
        store = Store(cluster.url, "acap:")
        await store.start()
        cap = AddressCap(store, cap=2, lease_ms=600)
        by_master: dict[int, str] = {}  # an address whose set each master holds
        for i in range(1, 255):
            address = f"198.51.100.{i}"
            by_master.setdefault(cluster.master_of_slot(slot_of(cap.key(address))).port, address)
        assert len(by_master) == 3
        for address in by_master.values():
            assert await cap.admit(address, "socket-1")
        renewing = asyncio.create_task(cap.renew_forever())
        try:
            await asyncio.sleep(1.5)  # two and a half leases: only renewals keep them
            return {
                a: await store.link.execute("ZSCORE", cap.key(a), "socket-1")
                for a in by_master.values()
            }
        finally:
            renewing.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await renewing
            await store.close()

    try:
        scores = run(scenario())
    finally:
        cluster.stop()
    assert all(score is not None for score in scores.values()), scores
