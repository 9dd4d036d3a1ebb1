"""The server keeps what ``/api/openapi.json`` promises: Schemathesis with every check
(``--checks all``: status codes, content types, headers, response bodies, schema-valid
requests accepted and invalid ones refused, methods not listed answered 405, links) against
a real server process (``tests/openapikit.py`` says what the run is told, and why)."""

from __future__ import annotations

import json

import httpx
import openapikit
from openapi_spec_validator import validate


def test_the_document_is_valid_openapi_3_1(server):
    validate(json.loads(httpx.get(server.url + "/api/openapi.json").content))


def test_schemathesis_with_every_check_finds_nothing(server):
    status, report = openapikit.run(server.url, max_examples=30, seed=1)
    assert status == 0, f"{openapikit.failures(report)}\n{report[-8000:]}"
