"""``POST /api/analysis``, ``GET`` and ``DELETE /api/analysis/{key}``: the HTTP face of the
post-game analyses that ``server/computer/analysis.py`` runs (what each answer means is said
there and in PROTOCOL.md)."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from server.computer.analysis import (
    BUSY,
    NONE,
    NOT_OWNER,
    RETRY_S,
    AddressBusy,
    Analyses,
    BadRecord,
    NotOwner,
)
from server.computer.pool import Busy, WorkerFailed
from server.rooms import protocol as P
from server.rooms.httpanswers import encode_http
from server.web import httpguard
from server.web.httpguard import problem

MAX_RECORD = 64 * 1024  # as POST /api/replay
KEY = r"^[0-9a-f]{32}$"


def bearer(request: Request) -> str | None:
    """The token of ``Authorization: Bearer <token>`` (a header: never in an access log)."""
    scheme, _, token = request.headers.get("authorization", "").partition(" ")
    if scheme.lower() != "bearer":
        return None
    return token.strip() or None


def routes(analyses: Callable[[], Analyses], allowed_origins: Any) -> list[Route]:
    """``POST /api/analysis``, ``GET`` and ``DELETE /api/analysis/{key}``."""

    def answer(status: P.AnalysisStatus, running: int = 202) -> Response:
        code = running if status.status == "running" else 200
        return Response(encode_http(status), code, media_type="application/json")

    async def post(request: Request) -> Response:
        if httpguard.cross_site(request, allowed_origins):
            return problem(403, "cross-site", "Analyses are asked for from nyumba's own pages.")
        body = await httpguard.read_body(request, MAX_RECORD)
        address = request.client.host if request.client else "unknown"
        try:
            return answer(await analyses().request(address, body))
        except AddressBusy as exc:  # this address's own bound: a client's error
            return problem(429, "busy", str(exc), headers={"retry-after": str(RETRY_S)})
        except Busy as exc:  # the node's
            return problem(503, "busy", str(exc) or BUSY, headers={"retry-after": str(RETRY_S)})
        except BadRecord as exc:
            return problem(400, "bad-record", str(exc))
        except WorkerFailed as exc:
            retry = {"retry-after": str(RETRY_S)}
            return problem(503, "busy", f"The analysis could not start ({exc}); try again.", retry)

    async def one(request: Request) -> Response:
        key = request.path_params["key"]
        if not re.match(KEY, key):
            return problem(404, "no-analysis", NONE)
        if request.method == "DELETE":
            if httpguard.cross_site(request, allowed_origins):
                return problem(403, "cross-site", "Analyses are cancelled from nyumba's own pages.")
            try:
                status = await analyses().cancel(key, bearer(request))
            except NotOwner:
                return problem(403, "not-owner", NOT_OWNER)
            if status is None:
                return problem(404, "no-analysis", NONE)
            return answer(status, running=200)  # your wish is withdrawn; others' run on
        status = await analyses().status(key)
        if status is None:
            return problem(404, "no-analysis", NONE)
        return answer(status)

    return [
        Route("/api/analysis", post, methods=["POST"]),
        Route("/api/analysis/{key}", one, methods=["GET", "DELETE"]),
    ]
