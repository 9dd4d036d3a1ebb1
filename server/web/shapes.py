"""Schemas of ``GET /api/openapi.json`` that no Struct declares (``server/web/openapi.py``
puts them in the document): ``POST /api/rooms``'s body as the server checks it, one shape per
game profile and its options; ``POST /api/replay``'s answer."""

from __future__ import annotations

from typing import Any

import engine

RATED = {"rated": {"const": True}, "mode": {"const": "friend"}}
STRICT = {"type": "object", "additionalProperties": False}


def create_room_schema(generated: dict[str, Any]) -> dict[str, Any]:
    """``CreateRoom`` as the server checks it: one shape per game, each option one of the
    values its profile allows (``engine.load`` refuses others: 400 bad-game)."""
    variants = []
    for profile in engine.profiles():
        options = {
            o.name: {"enum": list(o.choices), "default": o.default, "description": o.title}
            for o in profile.options
        }
        properties = {
            **generated["properties"],
            "game": {"const": profile.name, "description": profile.title},
            "options": {"type": "object", "properties": options, "additionalProperties": False},
        }
        # Only games between people are rated: ``rated: true`` takes a friend room, and a clock
        # (server/rooms/ratedness.py; without one: 400 rated-needs-clock).
        control = next(c for c in generated["properties"]["clock"]["anyOf"] if "$ref" in c)
        rated = {**RATED, "clock": control}
        for kind, more in (("", {"rated": {"const": False}}), (" rated", rated)):
            shape = {"title": profile.name + kind, "properties": {**properties, **more}}
            required = [*generated["required"], *(["rated", "clock"] if kind else [])]
            variants.append({**shape, **STRICT, "required": required})
    return {"description": generated.get("description", ""), "oneOf": variants}


# POST /api/replay's answer (engine.records.replay_view).
REPLAY_VIEW = {
    "type": "object",
    "properties": {
        "game": {"type": "string"},
        "options": {"type": "object"},
        "states": {
            "type": "array",
            "items": {
                "type": "object",
                "properties": {
                    "position": {"type": "string"},
                    "board": {"type": "object"},
                    "to_move": {"type": ["integer", "null"]},
                    "last": {"type": ["object", "null"]},
                },
                "required": ["position", "board", "to_move", "last"],
            },
        },
        "outcome": {"type": ["object", "null"]},
        "adjudication": {"type": ["string", "null"]},
    },
    "required": ["game", "options", "states", "outcome", "adjudication"],
}


# The answer of POST /api/passkeys/register/options and /signin/options (server/web/players.py).
PASSKEY_OPTIONS = {
    "type": "object",
    "properties": {
        "challenge": {
            "type": "string",
            "description": "The ceremony's id: send it back with the credential made",
        },
        "options": {
            "type": "object",
            "description": (
                "The WebAuthn options as JSON (PublicKeyCredentialCreationOptionsJSON to "
                "register, PublicKeyCredentialRequestOptionsJSON to sign in): decode its "
                "base64url fields and pass it to navigator.credentials.create or .get"
            ),
            "properties": {"challenge": {"type": "string"}, "rpId": {"type": "string"}},
        },
    },
    "required": ["challenge", "options"],
}
