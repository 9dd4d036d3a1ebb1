"""What one client address may make a minute, counted in the store so that every node spends
the same budget: rooms (``NYUMBA_ROOMS_PER_MINUTE``, server/web/app.py), new players and
passkey challenges (``NYUMBA_IDENTITIES_PER_MINUTE``, server/web/players.py). A minute is the
store's clock's minute (``Node.now``); past the budget the answer is 429 ``rate-limited`` with
``Retry-After``: the seconds until the next minute."""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import Response

from server.web.httpguard import problem


def address(request: Request) -> str:
    """The client's address (the proxy's ``X-Forwarded-For`` when the proxy is believed)."""
    return request.client.host if request.client else "unknown"


async def over(request: Request, what: str, limit: int, sentence: str) -> Response | None:
    """Count one more ``what`` from this address; its 429 answer if that is past ``limit``."""
    node = request.app.state.node
    now = node.now()
    count = await node.store.count_in_minute(what, address(request), now // 60_000)
    if count <= limit:
        return None
    retry = 60 - (now // 1000) % 60
    return problem(429, "rate-limited", sentence, headers={"retry-after": str(retry)})
