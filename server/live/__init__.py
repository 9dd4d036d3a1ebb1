"""A node's sockets: from a frame to the broadcast.

Owns the node (``node``: decodes each message once, the one write path ``Node.change``),
one WebSocket (``connection``: sending that never waits, the message budgets), the messages
with a way of their own (``handlers``: join, hint, undo, ping), forwarding the room
channels (``fanout``), presence and the housekeeping tick (``presence``), what a node
keeps about its rooms (``local``), the computer's seats (``seats``), the socket cap per
address (``addrcap``), how fast sockets and joins may arrive (``arrivals``), the archive
writes when games end (``archiving``), who a socket's player is (``identity``), the lobby's
channel and its seeks (``lobby``) and the clocks' deadline watcher (``flags``). The node
composes the pieces; each piece is handed what it uses and none imports the node.

May import: ``server.computer``, ``server.archive``, ``server.store``, ``server.ops``, ``server.rooms``,
Starlette's WebSocket; not the web app.
"""
