"""What every part of a node runs with: settings, metrics, logs, health, memory.

Owns the settings and their variables (``config``, one annotated field each; ``variables``
reads them from the environment and flags), the store URL's grammar (``urls``), the
Prometheus metrics (``metrics``), log lines and their redaction (``logs``), store outage
episodes (``health``) and the garbage-collection schedule (``collector``).

May import: ``server.rooms`` and outside packages; nothing of the store, the computer,
the sockets or the web (every layer above uses these).
"""
