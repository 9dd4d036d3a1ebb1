"""The computer levels the server offers are the engine's, in the same order."""

from __future__ import annotations

from typing import get_args

from engine import ai
from server.rooms import room
from server.web import api


def test_the_server_offers_every_engine_level():
    assert room.LEVELS == ai.LEVELS == get_args(api.Level)
    assert ai.LEVELS[-1] == "expert"
