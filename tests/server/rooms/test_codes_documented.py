"""Every adjudication, error code and HTTP status the server can produce comes from one list,
``server/rooms/codes.py``, and is in server/PROTOCOL.md, the protocol's schema and the OpenAPI
document. The codes the server can produce are found by reading its source: every code literal
passed to an error's constructor (``Refused``, ``P.error``, ``problem`` …) and every
adjudication literal an Outcome is made with, so a code added without its line in the list
fails here."""

from __future__ import annotations

import ast
import json
import re
from pathlib import Path

import engine
from server.rooms import codes
from server.rooms import protocol as P
from server.web import handshake, httpguard, openapi

SERVER = Path(P.__file__).resolve().parents[1]
ENGINE = Path(engine.__file__).resolve().parent
CODE = re.compile(r"^[a-z]+(-[a-z]+)*$")

# Problem writers whose status is fixed by the function (server/web/sockets.py, handshake.py).
FIXED = {"refuse_upgrade": 403}
PROBLEM_WRITERS = {"problem", "_problem", "_refused", "problem_body", *FIXED}


def _name(call: ast.Call) -> str:
    return getattr(call.func, "id", getattr(call.func, "attr", ""))


def _consts(call: ast.Call) -> list[object]:
    return [a.value if isinstance(a, ast.Constant) else None for a in call.args]


def _scan() -> tuple[set[str], set[tuple[int, str]], set[str]]:
    """(the protocol's error codes, the HTTP (status, code) pairs, the adjudications) the
    server's and the engine's source write as literals."""
    ws, http, adjudications = set(), set(), set()
    for path in [*SERVER.rglob("*.py"), *ENGINE.rglob("*.py")]:
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.FunctionDef) and node.name in ("problem", "clock_refusal"):
                if path.name in ("seeks.py", "ratedness.py"):  # a seek's refusal code
                    for r in ast.walk(node):
                        if isinstance(r, ast.Return) and isinstance(r.value, ast.IfExp):
                            ws.add(r.value.body.value)  # type: ignore[attr-defined]
                        elif isinstance(r, ast.Return) and isinstance(r.value, ast.Constant):
                            if isinstance(r.value.value, str):
                                ws.add(r.value.value)
            if not isinstance(node, ast.Call):
                continue
            name, args = _name(node), _consts(node)
            for kw in node.keywords:
                if kw.arg == "adjudication" and isinstance(kw.value, ast.Constant):
                    if kw.value.value is not None:
                        adjudications.add(kw.value.value)
            is_p_error = name == "error" and getattr(node.func, "value", None) is not None
            is_p_error = is_p_error and getattr(node.func.value, "id", "") == "P"  # type: ignore[attr-defined]
            if name == "Refused" or is_p_error:
                if args and isinstance(args[0], str):
                    ws.add(args[0])
            elif name in PROBLEM_WRITERS:
                if name == "problem_body" and isinstance(args[0], str):
                    http.add((400, args[0]))  # handshake's own: a request it cannot read
                    continue
                if name in FIXED and len(args) > 1 and isinstance(args[1], str):
                    http.add((FIXED[name], args[1]))
                    continue
                for i, a in enumerate(args[:-1]):
                    if isinstance(a, int) and isinstance(args[i + 1], str):
                        http.add((a, args[i + 1]))
                        break
    http |= {(s, c) for s, c in handshake.REFUSED.items()}
    http |= {(s, c) for s, c in httpguard.STARLETTE_CODES.items()}
    return ws, http, adjudications


def test_the_scan_finds_the_codes_it_is_meant_to():
    ws, http, adjudications = _scan()
    assert {"not-your-turn", "room-full", "rated-needs-clock", "no-seek"} <= ws
    assert {(404, "bad-game"), (429, "busy"), (503, "busy"), (403, "too-many-sockets")} <= http
    assert {(400, "bad-http"), (426, "upgrade-required"), (405, "method-not-allowed")} <= http
    assert {"timeout", "aborted", "abandoned", "resignation", "repetition"} <= adjudications


def test_every_code_the_server_writes_is_in_the_one_list():
    ws, http, adjudications = _scan()
    assert ws - set(codes.ERRORS) == set(), "add them to server/rooms/codes.py ERRORS"
    for status, code in sorted(http):
        assert code in codes.HTTP_ERRORS, f"{code} is not in codes.HTTP_ERRORS"
        assert status in codes.HTTP_ERRORS[code][0], f"{code} is written with {status}"
        assert status in codes.HTTP_STATUSES, status
    assert adjudications - set(codes.ADJUDICATIONS) == set()
    for code, (statuses, when) in codes.HTTP_ERRORS.items():
        assert CODE.match(code) and statuses and when, code


def test_protocol_md_has_the_lists_tables():
    doc = (SERVER / "PROTOCOL.md").read_text()
    assert codes.http_table() in doc, "paste codes.http_table() into PROTOCOL.md's HTTP API"
    assert codes.adjudication_table() in doc, "paste codes.adjudication_table() into PROTOCOL.md"
    for code, sentence in codes.ERRORS.items():
        assert f"| `{code}` | {sentence} |" in doc, f"error {code} is not in PROTOCOL.md"
    # and no other row claims to be a code
    rows = re.findall(r"^\| `([a-z-]+)` \| (\d{3}(?:, \d{3})*) \|", doc, re.M)
    assert {c for c, _ in rows} == set(codes.HTTP_ERRORS)


def _adjudication_fields(schemas: dict) -> list[dict]:
    return [
        s["properties"]["adjudication"]
        for s in schemas.values()
        if "adjudication" in s.get("properties", {})
    ]


def test_the_protocol_schema_lists_every_code_adjudication_and_status():
    schema = json.loads((SERVER / P.SCHEMA_FILE).read_text())
    assert schema["errors"] == codes.ERRORS
    assert schema["adjudications"] == codes.ADJUDICATIONS
    assert schema["http"]["errors"] == P.http_errors()
    assert schema["$defs"]["Error"]["properties"]["code"]["enum"] == list(codes.ERRORS)
    fields = _adjudication_fields(schema["$defs"])
    assert {"State", "Outcome", "Moved"} <= {
        n for n, s in schema["$defs"].items() if "adjudication" in s.get("properties", {})
    }
    for field in fields:
        assert set(field["enum"]) - {None} == set(codes.ADJUDICATIONS), field


def test_the_openapi_document_lists_every_code_and_status():
    doc = openapi.document()
    assert openapi.document() == doc  # made afresh each time, nothing shared changed in place
    problem = doc["components"]["schemas"]["Problem"]
    assert problem["properties"]["code"]["enum"] == list(codes.HTTP_ERRORS)
    assert problem["x-codes"] == P.http_errors()
    for field in _adjudication_fields(doc["components"]["schemas"]):
        assert set(field["enum"]) - {None} == set(codes.ADJUDICATIONS), field
    answered = set()
    for path, item in doc["paths"].items():
        for method, op in item.items():
            if method == "parameters":
                continue
            for status, answer in op["responses"].items():
                if int(status) >= 400:
                    assert int(status) in codes.HTTP_STATUSES, (path, method, status)
                    ref = answer["content"]["application/json"]["schema"]
                    assert ref == {"$ref": "#/components/schemas/Problem"}, (path, status)
                    answered.add(int(status))
    # /ws's refusals (426 upgrade-required) and a method a path does not take (405) are in
    # the document's description: they are no operation's
    unlisted = {s for s in codes.HTTP_STATUSES if s not in answered}
    assert unlisted == {405, 426}, unlisted
    for status in unlisted:
        for code in codes.http_codes(status):
            assert f"{status} {code}" in doc["info"]["description"]
