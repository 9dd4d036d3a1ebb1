"""The server's HTTP answers that the protocol's schema publishes beside its messages
(``server/rooms/protocol.py`` puts them under ``http`` in the schema; ``server/PROTOCOL.md``).

Cut out of the protocol module, which holds the WebSocket messages: these are answers of
``/api/...`` requests, not messages of a room.
"""

from __future__ import annotations

from typing import Literal

import msgspec

from engine.analysis import Analysis


class AnalysisStatus(msgspec.Struct, frozen=True, omit_defaults=True):
    """The answer of ``POST /api/analysis`` and ``GET``/``DELETE /api/analysis/{key}``
    (``server/computer/analysis.py``): ``running`` with ``done`` of ``total`` jobs (positions, then
    best lines), ``done`` with the ``analysis`` (``engine.analysis.Analysis``), or
    ``cancelled``/``failed`` with a sentence. ``done`` and ``total`` are always there (a
    finished analysis: both its count of jobs). ``cancel_token``: only in the answer of a
    POST that asked for a running analysis, the asker's secret (DELETE it with
    ``Authorization: Bearer <cancel_token>``)."""

    key: str
    status: Literal["running", "done", "cancelled", "failed"]
    done: int
    total: int
    analysis: Analysis | None = None
    message: str | None = None
    cancel_token: str | None = None


_encoder = msgspec.json.Encoder()


def encode_http(answer: msgspec.Struct) -> bytes:
    return _encoder.encode(answer)
