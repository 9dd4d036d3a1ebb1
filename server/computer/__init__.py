"""The computer's processes: thinking and replaying off the event loop.

Owns the pool of thinking processes for computer seats and hints (``pool``) and the link
to the supervisor's pool under ``--workers`` (``link``), the thinking program itself
(``thinker``), the replay pool for records and undos (``replays``) and post-game analyses
(``analysis``: the lane, its fairness, its bookkeeping in the store).

May import: ``engine``, ``server.store``, ``server.ops``, ``server.rooms``; not the sockets
or the web.
"""
