"""The client's files: versioned names cached for a year, and the pages that name them.

The client is ES modules without a build step, so a file's name cannot carry its own hash
(every module that imports it would have to be rewritten). The whole client has one
version instead: the first 12 hex digits of a SHA-256 over every file's name and bytes.
Its files are served under ``/static/v/<version>/`` as well as ``/static/``; a page
(``/``, ``/r/{room}``, ``/static/rules.html``) names its scripts and style sheet under the
versioned path, and the modules' relative imports (``./board.js``) stay under it, so one
substitution in each page versions every file the page loads.

Cache policy (``Cache-Control``):

- ``/static/v/<current version>/…``: ``public, max-age=31536000, immutable`` — a release
  changes the version, so the pages name new URLs and nothing stale is ever used;
- ``/static/v/<another version>/…`` (a page from a node of another release, during a
  rolling one): the current file, ``no-cache``, never kept as that version's;
- ``/static/…`` unversioned, and the pages: ``no-cache`` (kept, but asked about again each
  time: an ETag answers 304); every other answer of the app is ``no-store``
  (``server/web/app.py``).

The version is worked out again when a file's size or modification time changes (the
files are looked at at most once a second), so a developer's edit shows on the next reload.
"""

from __future__ import annotations

import hashlib
import re
import time
from pathlib import Path
from typing import Any

from starlette.requests import Request
from starlette.responses import Response
from starlette.staticfiles import StaticFiles

from server.web.httpguard import problem

IMMUTABLE = b"public, max-age=31536000, immutable"
REVALIDATE = b"no-cache"
PREFIX = "/static/v"
LOOK_EVERY_S = 1.0

# A page's references to the client's scripts and style sheets (pages stay unversioned:
# they are asked about again anyway, and a link to one keeps working across releases).
_REFERENCE = re.compile(r"""(["'])/static/([\w./-]+\.(?:js|css|mjs))""")


class Client:
    """The client directory: its version, and its pages with versioned references."""

    def __init__(self, directory: Path) -> None:
        self.directory = directory
        self._signature: tuple[tuple[str, int, int], ...] | None = None
        self._version = ""
        self._looked = -1.0  # time.monotonic() when the files were last looked at

    def _files(self) -> list[Path]:
        if not self.directory.is_dir():
            return []
        return sorted(
            p
            for p in self.directory.rglob("*")
            if p.is_file() and not any(part.startswith(".") for part in p.parts)
        )

    def version(self) -> str:
        """The content hash of every file, recomputed when one's size or mtime changed."""
        if time.monotonic() - self._looked < LOOK_EVERY_S:
            return self._version
        self._looked = time.monotonic()
        files = self._files()
        signature = tuple(
            (str(p.relative_to(self.directory)), s.st_size, s.st_mtime_ns)
            for p, s in ((p, p.stat()) for p in files)
        )
        if signature != self._signature:
            digest = hashlib.sha256()
            for path, (name, *_rest) in zip(files, signature):
                digest.update(name.encode() + b"\0" + path.read_bytes() + b"\0")
            self._signature, self._version = signature, digest.hexdigest()[:12]
        return self._version

    def page(self, name: str) -> bytes | None:
        """The page ``name`` naming the current version's files, or None if there is none."""
        path = self.directory / name
        if not path.is_file():
            return None
        prefix = f"{PREFIX}/{self.version()}/"
        return _REFERENCE.sub(lambda m: m[1] + prefix + m[2], path.read_text()).encode()


def page(client: Client, name: str, status: int = 200) -> Any:
    """An endpoint answering the page ``name`` with ``status`` (404: a page saying that an
    address names nothing)."""

    async def serve(request: Request) -> Response:
        body = client.page(name)
        if body is None:
            return problem(404, "not-found", f"The client page {name} is not built yet.")
        return Response(
            body, status, media_type="text/html", headers={"cache-control": REVALIDATE.decode()}
        )

    return serve


class Files:
    """The client's files under ``/static/`` or ``/static/v/{version}/``, each answer with
    its ``Cache-Control`` (see the module's docstring)."""

    def __init__(self, client: Client) -> None:
        self.client = client
        self.files = StaticFiles(directory=client.directory, check_dir=False)

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        asked = scope.get("path_params", {}).get("version")
        current = asked is not None and asked == self.client.version()

        async def send_with_policy(message: Any) -> None:
            if message["type"] == "http.response.start" and message["status"] in (200, 304):
                policy = IMMUTABLE if current else REVALIDATE
                headers = [h for h in message.get("headers", []) if h[0] != b"cache-control"]
                message = {**message, "headers": [*headers, (b"cache-control", policy)]}
            await send(message)

        await self.files(scope, receive, send_with_policy)
