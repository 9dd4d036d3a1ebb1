"""The pure part of a room: what an intent does to it, and what it shows.

Owns the wire messages (``protocol``: every WebSocket message declared once, the one
strict decoder, the JSON Schema), display names (``names``), the room record and its
seats (``room``), the answers kept for intent ids (``answers``), what a finished game's archive row holds
(``finished``), the judging of every
intent (``judge``: ``judge(room, intent, context) -> Change``, one dispatch table), the
views drawn from a room (``view``: the ``state`` message, history, record) and the
notices a room's channel carries between nodes (``notice``), game clocks (``clock``, and
``timing``: a clock through every intent) and the lobby's seeks (``seeks``).

May import: ``engine``, msgspec and the standard library — no I/O (no asyncio, no store,
no sockets, no HTTP; import-linter checks it). Everything here is a function of values,
so it is tested without a server.
"""
