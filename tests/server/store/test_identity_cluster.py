"""Identity on a Valkey Cluster: two nodes, each told a different cluster node, one archive.
A deleted player's sessions are refused by the other node at once (each session's revocation
key lands on its own slot), and one address's identity budget is one count for both nodes."""

from __future__ import annotations

import httpx
import pytest
from archivekit import Player, refused_within, seated_as
from clusterkit import ValkeyCluster
from pgkit import sqlite_url
from serverproc import ServerProcess

LIMIT = 6


@pytest.fixture(scope="module")
def nodes(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("identity-cluster")
    cluster = ValkeyCluster(tmp / "cluster").start()
    env = {
        "NYUMBA_KEY_PREFIX": "idcl:",
        "DATABASE_URL": sqlite_url(tmp),
        "NYUMBA_IDENTITIES_PER_MINUTE": str(LIMIT),
    }
    started = []
    try:
        for i in range(2):
            url = f"redis://127.0.0.1:{cluster.servers[i].port}/0"
            started.append(ServerProcess(redis_url=url, data_dir=tmp / f"n{i}", env=env).start())
        yield cluster, started
    finally:
        for s in started:
            s.stop()
        cluster.stop()


def test_a_deleted_players_cookie_is_refused_on_the_other_node_at_once(nodes):
    _, (a, b) = nodes
    amina = Player(a.url)
    assert seated_as(b, amina) == (amina.id, amina.id)
    assert amina.request("DELETE", "/api/me").status_code == 204
    waited, seen = refused_within(b, amina, 1.0)
    assert seen == (None, None), f"b still seats the deleted player after {waited:.2f} s"


def counts(cluster: ValkeyCluster) -> dict[str, int]:
    """The identity budget's count per minute key, on every master."""
    out = {}
    for server in cluster.masters():
        c = server.client()
        for key in c.scan_iter(match="idcl:quota:identities:*"):
            out[key] = int(c.get(key))
    return out


def test_the_identity_budget_is_one_count_for_both_nodes(nodes):
    cluster, started = nodes
    before = counts(cluster)
    # 3 × the budget from one address, on both nodes in turn.
    codes = [httpx.post(started[i % 2].url + "/api/me", timeout=10) for i in range(3 * LIMIT)]
    made = sum(r.status_code == 201 for r in codes)
    refused = [r for r in codes if r.status_code == 429]
    assert made + len(refused) == len(codes)
    # What the minutes the flood touched still allowed (one minute, or two if it crossed one),
    # counted once for both nodes.
    after = counts(cluster)
    assert sum(after.values()) - sum(before.values()) == len(codes)
    allowed = sum(min(n, LIMIT) - min(before.get(k, 0), LIMIT) for k, n in after.items())
    assert made == allowed <= 2 * LIMIT
    assert refused[0].json()["code"] == "rate-limited" and refused[0].headers["retry-after"]
