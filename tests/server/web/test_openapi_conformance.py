"""The server keeps what ``/api/openapi.json`` promises: Schemathesis with every check
(``--checks all``: status codes, content types, headers, response bodies, schema-valid
requests accepted and invalid ones refused, methods not listed answered 405, links) against
a real server process (``tests/openapikit.py`` says what the run is told, and why)."""

from __future__ import annotations

import json

import httpx
import openapikit
import pytest
from openapi_spec_validator import validate


def test_the_document_is_valid_openapi_3_1(server):
    validate(json.loads(httpx.get(server.url + "/api/openapi.json").content))


@pytest.mark.parametrize("store_kind", ["embedded"], indirect=True, scope="session")
def test_schemathesis_with_every_check_finds_nothing(server, store_kind):
    """50 examples an operation, seed 1 (about 20 s), on the embedded store only (the HTTP
    document does not depend on the store). At the public URL (localhost), where passkeys are
    asked for."""
    public = server.url.replace("127.0.0.1", "localhost")
    status, report = openapikit.run(public, max_examples=50, seed=1)
    assert status == 0, f"{openapikit.failures(report)}\n{report[-8000:]}"


def test_the_document_answers_what_a_strangers_client_asked():
    from server.web import openapi

    doc = openapi.document()
    paths, schemas = doc["paths"], doc["components"]["schemas"]
    # the WebSocket is no HTTP operation: the document points to the protocol instead
    assert "/ws" not in paths and "server/PROTOCOL.md" in doc["info"]["description"]
    for path in ("/api/me/signout", "/api/passkeys/register/options", "/api/passkeys/register"):
        assert "403" in paths[path]["post"]["responses"], path
    assert "403" in paths["/api/passkeys/signin/options"]["post"]["responses"]
    assert "503" in paths["/api/me"]["get"]["responses"]
    busy = paths["/api/analysis"]["post"]["responses"]
    assert "429" in busy and "busy" in busy["429"]["description"]
    params = {p["name"]: p for p in paths["/api/ratings/{game}"]["get"]["parameters"]}
    assert params["players"]["in"] == "query" and "{0,7}" in params["players"]["schema"]["pattern"]
    assert "400" in paths["/api/ratings/{game}"]["get"]["responses"]
    assert "bad-game" in paths["/api/ratings/{game}"]["get"]["responses"]["404"]["description"]
    params = {p["name"]: p for p in paths["/api/players/{id}"]["get"]["parameters"]}
    assert params["page"]["schema"] == {
        "type": "integer",
        "minimum": 0,
        "maximum": 10000,
        "default": 0,
    }
    assert "record" not in schemas["GameRow"]["properties"]
    assert "volatility" in schemas["Standing"]["properties"]
    for kind in ("register", "signin"):
        ok = paths[f"/api/passkeys/{kind}/options"]["post"]["responses"]["200"]
        assert ok["content"]["application/json"]["schema"] == {
            "$ref": "#/components/schemas/PasskeyOptions"
        }
        assert "{" not in ok["description"]
    assert schemas["PasskeyOptions"]["required"] == ["challenge", "options"]
