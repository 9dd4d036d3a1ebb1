"""Running a server: the command line and the process supervisor.

Owns ``nyumba serve`` and ``nyumba replay`` (``cli``: settings checked before anything
starts, the embedded store, uvicorn) and ``--workers`` (``workers``: the supervisor that
shares the port, the store and the computer between node processes).

May import: every other part of the server; nothing imports it.
"""
