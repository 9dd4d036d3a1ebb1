"""The protocol's docs and schema come from the declarations."""

import json
from pathlib import Path

from server.rooms import protocol as P

SERVER = Path(P.__file__).parent.parent


def test_generated_schema_file_is_current():
    on_disk = json.loads((SERVER / P.SCHEMA_FILE).read_text())
    assert on_disk == json.loads(json.dumps(P.schema())), "run: python -m server.rooms.protocol"


def test_every_message_and_error_code_is_documented():
    doc = (SERVER / "PROTOCOL.md").read_text()
    for struct in P.ClientMessage.__args__ + P.ServerMessage.__args__:
        tag = struct.__struct_config__.tag
        assert f"| `{tag}` |" in doc, f"message {tag} is not in PROTOCOL.md"
    for code, sentence in P.ERRORS.items():
        assert f"| `{code}` | {sentence} |" in doc, f"error {code} is not in PROTOCOL.md"


def test_decoder_refuses_unknown_fields_and_bad_ranges():
    import msgspec
    import pytest

    for raw in (
        {"t": "move", "room": "r", "version": -1, "move": "a", "id": "x"},
        {"t": "move", "room": "r" * 65, "version": 0, "move": "a", "id": "x"},
        {"t": "join", "room": "bad room!"},
        {"t": "offer", "room": "r", "kind": "cake"},
        {"t": "ping", "n": 1, "x": 2},
        {"room": "r"},
    ):
        with pytest.raises(msgspec.ValidationError):
            P.decode(json.dumps(raw))
