"""Logging: text for people, one JSON object a line for log collectors.

``NYUMBA_LOG_FORMAT=json`` writes ``{"ts", "level", "logger", "msg", ...}``
(plus ``exc`` with the traceback, and any ``extra=`` fields); the default is
one text line. ``NYUMBA_LOG_LEVEL`` sets the level for nyumba's and uvicorn's
loggers alike; ``NYUMBA_ACCESS_LOG`` turns uvicorn's access log on (a line
per HTTP request and WebSocket handshake). uvicorn's own logging
configuration is replaced by this one so every line has one format.

No line carries any part of a seat token, at any level: one filter on the one
handler (``Redact``) replaces every token's value with "…" — in WebSocket
frames that uvicorn logs at debug (rewritten before the frame is shortened
for the log, which would otherwise keep most of a token: 21 of its 22
characters were seen), in structs' reprs, in JSON text, in query strings, in
tracebacks and in ``extra=`` fields.
"""

from __future__ import annotations

import dataclasses
import json
import logging
import re
import sys
import time
from typing import Any

from websockets.frames import Frame, Opcode

# attributes every LogRecord has; anything else came from ``extra=`` and is written out
_STANDARD = set(logging.makeLogRecord({}).__dict__) | {"message", "asctime", "color_message"}


HIDDEN = "…"

# a token's value wherever the text names it: "token": "…" in JSON (also when cut short),
# token='…' in a struct's repr, token=… in a query string or a header
_NAMED = re.compile(
    r"""(?P<key>\btoken["']?\s*[:=]\s*)"""
    r"""(?!null\b|None\b)(?P<value>"(?:[^"\\]|\\.)*"?|'(?:[^'\\]|\\.)*'?|[^\s&;,"'}\])]+)""",
    re.IGNORECASE,
)


def _hide(m: re.Match[str]) -> str:
    quote = m["value"][0] if m["value"][0] in "\"'" else ""
    return f"{m['key']}{quote}{HIDDEN}{quote}"


def redact(text: str) -> str:
    """``text`` with the value of anything named ``token`` replaced by "…"."""
    return _NAMED.sub(_hide, text)


def _scrub(value: Any) -> Any:
    if isinstance(value, dict):
        return {
            k: HIDDEN if k.lower() == "token" and v is not None else _scrub(v)
            for k, v in value.items()
        }
    if isinstance(value, list):
        return [_scrub(v) for v in value]
    return value


_DATA = (Opcode.TEXT, Opcode.BINARY, Opcode.CONT)


class _Shown:
    """A frame as websockets shows it, with its payload replaced and its true length."""

    def __init__(self, frame: Frame, shown: str):
        self.frame, self.shown = frame, shown

    def __str__(self) -> str:
        text = str(dataclasses.replace(self.frame, data=self.shown.encode()))
        n = len(self.frame.data)
        more = "" if self.frame.fin else ", continued"
        return f"{text[: text.rindex(' [')]} [{n} byte{'' if n == 1 else 's'}{more}]"


def _frame(frame: Frame) -> Frame | _Shown:
    """The frame with its token hidden. A JSON message is read and written again (a key
    spelled with escapes is still a key); a fragment is hidden whole, since a token may
    straddle two fragments where neither shows its name."""
    if frame.opcode not in _DATA:
        return frame
    if frame.opcode is Opcode.CONT or not frame.fin:
        return _Shown(frame, HIDDEN)
    text = bytes(frame.data).decode("utf-8", "replace")
    try:
        clean = json.dumps(_scrub(json.loads(text)), ensure_ascii=False, separators=(",", ":"))
    except ValueError:
        clean = redact(text)
    return frame if clean == text else _Shown(frame, clean)


class Redact(logging.Filter):
    """Hides seat tokens in every record that reaches the handler (see the module's text).
    The message is formatted here, once, and kept formatted."""

    def filter(self, record: logging.LogRecord) -> bool:
        if isinstance(record.args, tuple) and any(isinstance(a, Frame) for a in record.args):
            record.args = tuple(_frame(a) if isinstance(a, Frame) else a for a in record.args)
        record.msg, record.args = redact(record.getMessage()), None
        if record.exc_info and not record.exc_text:
            record.exc_text = redact(logging.Formatter().formatException(record.exc_info))
        for key, value in list(record.__dict__.items()):
            if key not in _STANDARD and not key.startswith("_"):
                if key.lower() == "token":
                    setattr(record, key, HIDDEN)
                elif isinstance(value, str):
                    setattr(record, key, redact(value))
        return True


class JsonFormatter(logging.Formatter):
    def format(self, record: logging.LogRecord) -> str:
        out: dict[str, Any] = {
            "ts": time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(record.created))
            + f".{int(record.msecs):03d}Z",
            "level": record.levelname.lower(),
            "logger": record.name,
            "msg": record.getMessage(),
        }
        for key, value in record.__dict__.items():
            if key not in _STANDARD and not key.startswith("_"):
                out[key] = value
        if record.exc_info:  # as Redact left it
            out["exc"] = record.exc_text or self.formatException(record.exc_info)
        return json.dumps(out, default=str, ensure_ascii=False)


TEXT_FORMAT = "%(asctime)s %(levelname)s %(name)s: %(message)s"


def setup(level: str = "info", fmt: str = "text", access_log: bool = False) -> None:
    """One handler on the root logger, on standard error; uvicorn's loggers propagate to it."""
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(JsonFormatter() if fmt == "json" else logging.Formatter(TEXT_FORMAT))
    handler.addFilter(Redact())
    root = logging.getLogger()
    root.handlers[:] = [handler]
    root.setLevel(level.upper())
    for name in ("uvicorn", "uvicorn.error", "uvicorn.access"):
        logger = logging.getLogger(name)
        logger.handlers[:] = []
        logger.propagate = True
        logger.setLevel(level.upper())
    # uvicorn says "connection open" and "[accepted]" for every WebSocket at info: that is
    # access logging, so it follows the access-log switch (the start line is nyumba's own)
    if not access_log and logging.getLevelName(level.upper()) < logging.WARNING:
        logging.getLogger("uvicorn.error").setLevel(logging.WARNING)
    logging.getLogger("uvicorn.access").disabled = not access_log
    # Alembic tells every plugin and migration step at info; nyumba says "archive ready" itself
    logging.getLogger("alembic").setLevel(max(logging.WARNING, root.level))


def uvicorn_config() -> dict[str, Any]:
    """A ``log_config`` for uvicorn that leaves the handlers set by ``setup`` alone."""
    return {"version": 1, "disable_existing_loggers": False}
