"""``GET /api/openapi.json``: the HTTP API as OpenAPI 3.1, made from its declarations.

Bodies come from the Structs of ``server/web/api.py`` and ``server/rooms/protocol.py``
(``msgspec.json.schema_components``), game names and option values from the engine's
registry, record shapes from ``engine.records.schema()``: a request the document allows is
one the server's checks let through, except what no schema can say (a record whose moves do
not replay: 400 ``bad-record``). Every operation lists every status it can answer; every
error is a ``Problem``. ``tests/server/web/test_openapi_conformance.py`` holds the server to
it with Schemathesis (``--checks all``).
"""

from __future__ import annotations

import copy
from typing import Any

import msgspec

import engine
from engine import records
from server.rooms import protocol as P
from server.rooms.codes import HTTP_STATUSES, http_codes
from server.web.api import CreateRoom, Health, History, PageReport, Problem, RoomCreated
from server.web.archivedoc import openapi_paths
from server.web.arenas import WS_NOTE as ARENAS_NOTE
from server.web.arenas import with_arenas
from server.web.lobby import WS_NOTE, with_lobby
from server.web.shapes import PASSKEY_OPTIONS, REPLAY_VIEW, create_room_schema

JSON = "application/json"


def _meaning(status: int) -> str:
    """What a status means across the API: its heading and the codes it can carry (from
    ``server/rooms/codes.py``)."""
    return f"{HTTP_STATUSES[status]}: {', '.join(http_codes(status))}"


STATUS = {status: _meaning(status) for status in HTTP_STATUSES}
BODY = (400, 403, 408, 413, 415, 500, 503)  # what any request with a body may be answered


# GET /ws is a WebSocket, not an HTTP operation: what an HTTP client needs of it.
SOCKET = (
    "The WebSocket at `GET /ws` (rooms, moves, clocks, the lobby) is not an operation of this "
    "document: an HTTP client cannot speak it. Its messages are in server/PROTOCOL.md and their "
    "JSON Schema at `GET /api/protocol.json`. An upgrade it refuses is answered with a Problem: "
    "400 bad-upgrade, 403 cross-site, forbidden or too-many-sockets, 429 rate-limited (with "
    "Retry-After), and `GET /ws` without an upgrade 426 upgrade-required. Every code a Problem "
    "can carry, with its statuses, is the Problem schema's `x-codes`; a method a path does not "
    "take is answered 405 method-not-allowed (with Allow)." + WS_NOTE + ARENAS_NOTE
)


def _ref(name: str) -> dict[str, str]:
    return {"$ref": f"#/components/schemas/{name}"}


def _json(schema: dict[str, Any], description: str, **more: Any) -> dict[str, Any]:
    return {"description": description, "content": {JSON: {"schema": schema, **more}}}


def problems(*statuses: int, **meaning: str) -> dict[str, Any]:
    """The error answers ``statuses`` (and 500), each a Problem; ``meaning`` says more of one
    (``s404="…"``)."""
    out = {}
    for s in sorted({*statuses, 500}):
        out[str(s)] = _json(_ref("Problem"), meaning.get(f"s{s}", STATUS[s]))
    return out


def _body(schema: dict[str, Any], example: Any = None) -> dict[str, Any]:
    media: dict[str, Any] = {"schema": schema}
    if example is not None:
        media["example"] = example
    return {"required": True, "content": {JSON: media}}


def _example_record() -> dict[str, Any]:
    return records.dump(engine.load("kalah"), ["c", "f", "B"])


def document(version: str = "1") -> dict[str, Any]:
    """The HTTP API as an OpenAPI 3.1 document."""
    # players, archive, lobby, arenas
    archive_paths, archive_types = with_arenas(with_lobby(openapi_paths(problems)))
    (*_, report), components = msgspec.json.schema_components(
        [CreateRoom, RoomCreated, Problem, History, Health, list[engine.Profile]]
        + archive_types
        + [P.AnalysisStatus, PageReport],
        ref_template="#/components/schemas/{name}",
    )
    components["PageReport"] = report
    components["Problem"]["x-codes"] = P.http_errors()
    components["CreateRoom"] = create_room_schema(components["CreateRoom"])
    components["Record"] = records.schema()
    components["ReplayView"] = copy.deepcopy(REPLAY_VIEW)  # made enums below: not in place
    components["PasskeyOptions"] = PASSKEY_OPTIONS
    P.enum_adjudications(components)
    room = [{"name": "room", "in": "path", "required": True, "schema": {"type": "string"}}]
    key = {"type": "string", "pattern": "^[0-9a-f]{32}$"}
    ok = _json({"type": "object", "properties": {"ok": {"const": True}}}, '{"ok": true}')
    paths: dict[str, Any] = {
        "/api/games": {
            "get": {
                "operationId": "games",
                "summary": "The game profiles and their options",
                "description": (
                    "Each option as POST /api/rooms takes it: `options[name]` is one of "
                    "`choices`, `default` when left out."
                ),
                "responses": {
                    "200": _json({"type": "array", "items": _ref("Profile")}, "Every profile"),
                    **problems(),
                },
            }
        },
        "/api/rooms": {
            "post": {
                "operationId": "createRoom",
                "summary": "Create a room",
                "requestBody": _body(_ref("CreateRoom"), {"game": "kalah", "mode": "computer"}),
                "responses": {
                    "201": {
                        **_json(_ref("RoomCreated"), "The room and the creator's seat token"),
                        "links": {
                            "history": {
                                "operationId": "roomHistory",
                                "parameters": {"room": "$response.body#/room"},
                            },
                            "record": {
                                "operationId": "roomRecord",
                                "parameters": {"room": "$response.body#/room"},
                            },
                        },
                    },
                    **problems(*BODY, 409, 429),
                },
            }
        },
        "/api/rooms/{room}/history": {
            "get": {
                "operationId": "roomHistory",
                "summary": "The room's moves with their sides and intent ids",
                "parameters": room,
                "responses": {
                    "200": _json(_ref("History"), "The room's history"),
                    **problems(404, 503, s404="No such room: no-room"),
                },
            }
        },
        "/api/rooms/{room}/record": {
            "get": {
                "operationId": "roomRecord",
                "summary": "The current game's record (engine/RECORDS.md), as a download",
                "parameters": room,
                "responses": {
                    "200": _json(_ref("Record"), "A game record"),
                    **problems(404, 503, s404="No such room: no-room"),
                },
            }
        },
        "/api/replay": {
            "post": {
                "operationId": "replay",
                "summary": "Every position of a game record, for a replay view",
                "requestBody": _body(_ref("Record"), _example_record()),
                "responses": {
                    "200": _json(_ref("ReplayView"), "Every position of the game"),
                    **problems(
                        *BODY,
                        s400="The record does not load (bad-record: its first bad ply or "
                        "field), though it may match the schema: moves are checked by "
                        "replaying them",
                    ),
                },
            }
        },
        "/api/analysis": {
            "post": {
                "operationId": "analyse",
                "summary": "Start (or find) the computer's analysis of a game record",
                "description": (
                    "A running analysis's answer carries cancel_token, this asker's alone: "
                    "DELETE needs it. 429 busy: this address has an analysis running here; "
                    "503 busy: the node runs as many as it takes "
                    "(server/computer/analysis.py). Both with Retry-After."
                ),
                "requestBody": _body(_ref("Record"), _example_record()),
                "responses": {
                    "200": _json(_ref("AnalysisStatus"), "Done (kept from before)"),
                    "202": {
                        **_json(_ref("AnalysisStatus"), "Running: ask again with GET"),
                        "links": {
                            "status": {
                                "operationId": "analysis",
                                "parameters": {"key": "$response.body#/key"},
                            }
                        },
                    },
                    **problems(
                        *BODY,
                        429,
                        s400="The record does not load (bad-record)",
                        s429="busy: this address's analysis is still running here",
                        s503="busy: the node runs as many analyses as it takes; or store-down",
                    ),
                },
            }
        },
        "/api/analysis/{key}": {
            "parameters": [{"name": "key", "in": "path", "required": True, "schema": key}],
            "get": {
                "operationId": "analysis",
                "summary": "How far an analysis is (ask at least every 20 s, or it is cancelled)",
                "responses": {
                    "200": _json(_ref("AnalysisStatus"), "Done, cancelled or failed"),
                    "202": _json(_ref("AnalysisStatus"), "Running"),
                    **problems(
                        404,
                        503,
                        s404="No analysis of that key is running or kept (no-analysis), "
                        "or the key is not 32 hex digits",
                    ),
                },
            },
            "delete": {
                "operationId": "cancelAnalysis",
                "summary": "Withdraw your wish for an analysis (it stops when nobody wants it)",
                "description": (
                    "Authorization: Bearer <cancel_token from the POST>. The answer is what a "
                    "GET answers from then on: cancelled (yours was the last wish), running "
                    "with a sentence (others still want it). An analysis not running any "
                    "more needs no token: its status, as GET answers (done stays done). "
                    "Without a token of a running analysis: 403 not-owner, nothing changes."
                ),
                "security": [{"cancelToken": []}, {}],
                "responses": {
                    "200": _json(_ref("AnalysisStatus"), "Cancelled, running on, or ended"),
                    **problems(
                        403,
                        404,
                        503,
                        s403="Not yours to cancel (not-owner), or cross-site",
                        s404="No analysis of that key is running or kept (no-analysis)",
                    ),
                },
            },
        },
        "/api/reports": {
            "post": {
                "operationId": "report",
                "summary": "What only the page sees, unless the player turned it off",
                "description": "One report (512 bytes at most), counted a day, kept 30 days; "
                "no address, id or user agent is kept (server/web/reports.py)",
                "requestBody": _body(_ref("PageReport")),
                "responses": {"204": {"description": "Counted"}, **problems(*BODY, 429)},
            }
        },
        "/api/protocol.json": {
            "get": {
                "operationId": "protocolSchema",
                "summary": "The WebSocket protocol's JSON Schema (server/PROTOCOL.md)",
                "responses": {"200": _json({"type": "object"}, "A JSON Schema"), **problems()},
            }
        },
        "/api/openapi.json": {
            "get": {
                "operationId": "openapi",
                "summary": "This document",
                "responses": {"200": _json({"type": "object"}, "OpenAPI 3.1"), **problems()},
            }
        },
        "/healthz": {
            "get": {
                "operationId": "health",
                "summary": "The store answers (200), or not (503)",
                "responses": {"200": _json(_ref("Health"), "Healthy"), **problems(503)},
            }
        },
        "/livez": {
            "get": {
                "operationId": "live",
                "summary": "The process answers (never asks the store): for liveness probes",
                "responses": {"200": ok, **problems()},
            }
        },
        "/readyz": {
            "get": {
                "operationId": "ready",
                "summary": "The store answers within 1 s and the node is not draining",
                "responses": {
                    "200": ok,
                    **problems(503, s503="store-down, or draining after SIGTERM"),
                },
            }
        },
        "/metrics": {
            "get": {
                "operationId": "metrics",
                "summary": "Prometheus text exposition (server/ops/metrics.py)",
                "responses": {
                    "200": {
                        "description": "Prometheus text format 0.0.4",
                        "content": {"text/plain": {"schema": {"type": "string"}}},
                    },
                    **problems(),
                },
            }
        },
    }
    paths.update(archive_paths)
    return {
        "openapi": "3.1.0",
        "info": {"title": "nyumba", "version": version, "description": SOCKET},
        "paths": paths,
        "components": {
            "schemas": components,
            "securitySchemes": {
                "cancelToken": {
                    "type": "http",
                    "scheme": "bearer",
                    "description": "An analysis's cancel_token (POST /api/analysis)",
                }
            },
        },
    }
