"""Logging: text for people, one JSON object a line for log collectors.

``NYUMBA_LOG_FORMAT=json`` writes ``{"ts", "level", "logger", "msg", ...}``
(plus ``exc`` with the traceback, and any ``extra=`` fields); the default is
one text line. ``NYUMBA_LOG_LEVEL`` sets the level for nyumba's and uvicorn's
loggers alike; ``NYUMBA_ACCESS_LOG`` turns uvicorn's access log on (a line
per HTTP request and WebSocket handshake). uvicorn's own logging
configuration is replaced by this one so every line has one format.
"""

from __future__ import annotations

import json
import logging
import sys
import time
from typing import Any

# attributes every LogRecord has; anything else came from ``extra=`` and is written out
_STANDARD = set(logging.makeLogRecord({}).__dict__) | {"message", "asctime", "color_message"}


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
        if record.exc_info:
            out["exc"] = self.formatException(record.exc_info)
        return json.dumps(out, default=str, ensure_ascii=False)


TEXT_FORMAT = "%(asctime)s %(levelname)s %(name)s: %(message)s"


def setup(level: str = "info", fmt: str = "text", access_log: bool = False) -> None:
    """One handler on the root logger, on standard error; uvicorn's loggers propagate to it."""
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(JsonFormatter() if fmt == "json" else logging.Formatter(TEXT_FORMAT))
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


def uvicorn_config() -> dict[str, Any]:
    """A ``log_config`` for uvicorn that leaves the handlers set by ``setup`` alone."""
    return {"version": 1, "disable_existing_loggers": False}
