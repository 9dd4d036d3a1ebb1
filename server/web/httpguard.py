"""What every HTTP request passes before an endpoint does work for it.

* Bodies are read against a cap *while they stream in*: a declared
  ``Content-Length`` over the cap is refused before a byte is read, and a
  chunked body is cut off at the first chunk that crosses it. (Reading the
  whole body first let one 50 MiB upload raise a node to 293 MiB and stall
  every room's moves for 3.5 s.)
* Cross-site form posts are refused. A page on another site can make a
  visitor's browser send a "simple" POST (``text/plain``, form encodings)
  without asking first; it would create rooms on the visitor's quota. Browsers
  name the page's origin on every POST: it must be ours (or in the allow
  list), and the form encodings are never ours anyway.
* A body is JSON, and says so: ``Content-Type: application/json`` (any
  parameters), else 415 ``bad-content-type`` before a byte is read, so the
  OpenAPI document's one media type is the whole truth.
* Failures never echo the input beyond a short excerpt, and every failure —
  a JSON document nested too deep to decode (RecursionError), or any bug —
  becomes a problem document with the security headers (Starlette's own 500
  page is written outside the middleware that adds them), as do Starlette's
  own refusals: no route (404 ``not-found``) and a method a route does not
  take (405 ``method-not-allowed``, with ``Allow``).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Iterable, Mapping

from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import JSONResponse, Response

log = logging.getLogger("nyumba.http")

BODY_TIMEOUT_S = 15.0  # a body must arrive within this (a trickle holds a worker of the loop)
EXCERPT = 80  # characters of a client's input an error message may quote
MESSAGE = 300  # characters an error message may have in all

# A body cut off: the rest is not read, so the connection ends after the answer (in a
# lingering close, server/web/handshake.py), and the client is told so.
CLOSE = {"connection": "close"}

# What a cross-site page can POST without a CORS preflight (the "CORS-safelisted" types).
FORM_TYPES = ("text/plain", "application/x-www-form-urlencoded", "multipart/form-data")


class NotJson(Exception):
    """A body declared as something other than JSON (or not declared)."""


class TooSlow(Exception):
    pass


class TooLarge(Exception):
    def __init__(self, limit: int):
        super().__init__(limit)
        self.limit = limit


def excerpt(text: object, limit: int = EXCERPT) -> str:
    """``text`` shortened for quoting back to a client."""
    s = str(text)
    return s if len(s) <= limit else s[: limit - 1] + "…"


def problem(
    status: int, code: str, message: str, headers: Mapping[str, str] | None = None
) -> JSONResponse:
    """The one shape of an HTTP error: ``{code, message}``, the message clipped."""
    return JSONResponse(
        {"code": code, "message": excerpt(message, MESSAGE)}, status_code=status, headers=headers
    )


def is_json(content_type: str | None) -> bool:
    """``application/json``, with or without parameters (``; charset=utf-8``)."""
    return (content_type or "").split(";", 1)[0].strip().lower() == "application/json"


async def read_body(request: Request, limit: int) -> bytes:
    """The request's JSON body, refused (``TooLarge``) as soon as it passes ``limit``
    bytes, and (``NotJson``) unread when it is not declared ``application/json``."""
    if not is_json(request.headers.get("content-type")):
        raise NotJson()
    declared = request.headers.get("content-length")
    if declared is not None:
        try:
            if int(declared) > limit:
                raise TooLarge(limit)
        except ValueError:
            pass  # the server's HTTP parser has already refused a malformed length
    chunks: list[bytes] = []
    size = 0
    try:
        async with asyncio.timeout(BODY_TIMEOUT_S):
            async for chunk in request.stream():
                size += len(chunk)
                if size > limit:
                    raise TooLarge(limit)
                chunks.append(chunk)
    except TimeoutError:
        raise TooSlow() from None
    return b"".join(chunks)


def cross_site(request: Request, allowed_origins: Iterable[str]) -> bool:
    """True for a POST a page on another site made a browser send."""
    ctype = request.headers.get("content-type", "").split(";", 1)[0].strip().lower()
    if ctype in FORM_TYPES:
        return True
    if request.headers.get("sec-fetch-site") == "cross-site":
        return True
    origin = request.headers.get("origin")
    if origin is None:  # not a browser (curl, a bot, a test): nothing to forge
        return False
    origin = origin.rstrip("/")
    allowed = tuple(allowed_origins)
    if allowed:
        return origin not in allowed
    return origin.split("://", 1)[-1] != request.headers.get("host", "")


# Starlette's refusals by status (any other: bad-request).
STARLETTE_CODES = {404: "not-found", 405: "method-not-allowed"}


async def http_error(request: Request, exc: Exception) -> Response:
    """Starlette's own refusals (no route, no such static file, a method the route does
    not take) as problem documents, their headers (``Allow``) kept."""
    assert isinstance(exc, HTTPException)
    path = excerpt(request.url.path)
    if exc.status_code == 405:
        allowed = {k.lower(): v for k, v in (exc.headers or {}).items()}.get("allow", "")
        message = f"{request.method} is not allowed on {path}; it takes {allowed}."
    elif exc.status_code == 404:
        message = f"There is nothing at {path}."
    else:
        message = str(exc.detail)
    code = STARLETTE_CODES.get(exc.status_code, "bad-request")
    return problem(exc.status_code, code, message, headers=exc.headers)


class Problems:
    """ASGI middleware, inside the security headers: an exception an endpoint
    did not handle becomes a problem document instead of Starlette's bare
    500 page (which carries none of the headers)."""

    def __init__(self, app):
        self.app = app

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        started = False

        async def tracking_send(message):
            nonlocal started
            if message["type"] == "http.response.start":
                started = True
            await send(message)

        try:
            await self.app(scope, receive, tracking_send)
        except RecursionError:
            if started:
                raise
            response = problem(400, "bad-json", "The document is nested too deeply.")
            await response(scope, receive, send)
        except TooLarge as exc:
            if started:
                raise
            response = problem(
                413, "too-large", f"The body may be at most {exc.limit} bytes.", CLOSE
            )
            await response(scope, receive, send)
        except NotJson:
            if started:
                raise
            response = problem(
                415,
                "bad-content-type",
                "Send the body as JSON, with Content-Type: application/json.",
                {**CLOSE, "accept-post": "application/json"},
            )
            await response(scope, receive, send)
        except TooSlow:
            if started:
                raise
            response = problem(
                408, "too-slow", f"The body took over {BODY_TIMEOUT_S:.0f} s.", CLOSE
            )
            await response(scope, receive, send)
        except Exception:
            if started:
                raise
            log.exception("%s %s failed", scope.get("method"), scope.get("path"))
            response = problem(500, "internal", "The server could not answer that.")
            await response(scope, receive, send)
