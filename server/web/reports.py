"""``POST /api/reports``: what only the page can see, sent by the page unless its player turned
the reports off (client/reports.js).

The Kalah site nyumba re-creates sends its own server whether a friend game connected and a
bracket of the device, and says so on its pages, with a switch to stop it. nyumba's pages send
the part of that list the server cannot see for itself (the rest it counts from the games,
``server/rooms/tally.py``): a friend's link that could not connect, a socket that kept failing,
and the kind of device — a phone or not, memory and cores in brackets, the browser's and the
system's family (``server/web/api.py`` ``PageReport``: closed lists, nothing free-form).

What is kept is counts only: one more in the day's hash in the store (``reports:YYYY-MM-DD``,
one field per report as its kind and values read, e.g. ``device phone=no memory=8+ cores=5-8
browser=firefox os=linux``; gone 30 days after the day ends) and the counters in ``/metrics``.
Never the address, an id, a time finer than the day, or the user agent: the page sends the
families it read from it, and this module reads no header but the ones that guard it.

Refused, and counted in ``nyumba_page_reports_refused_total``: a post from another site's page
(403), over the rate (429: ``NYUMBA_REPORTS_PER_MINUTE`` from one address, ``PER_NODE`` in
all, per node and minute), a body over ``MAX_REPORT`` bytes (413), anything that is not one report as
declared (400). The rate is counted in this process's memory, so no address is written
anywhere; that is why it is hand-written rather than a store-backed limiter (``limits`` would
be a new dependency for a dict of counters, at most ``MAX_ADDRESSES`` entries, about 1 MB).
"""

from __future__ import annotations

import datetime
import time
from collections.abc import Callable

import msgspec
from starlette.requests import Request
from starlette.responses import Response

from server.ops import metrics
from server.web import httpguard
from server.web.api import DeviceReport, FriendLinkReport, PageReport, SocketFailingReport
from server.web.httpguard import problem

MAX_REPORT = 512  # bytes: a device report is about 110
PER_NODE = 1200  # reports a minute in all, on one node
WINDOW_S = 60.0
MAX_ADDRESSES = 10_000
KEEP_DAYS = 30

decode = msgspec.json.Decoder(PageReport).decode


class Rate:
    """Reports admitted this window, per address and in all, in memory only."""

    def __init__(
        self,
        per_address: int,  # NYUMBA_REPORTS_PER_MINUTE (a page sends at most three)
        per_node: int = PER_NODE,
        clock: Callable[[], float] = time.monotonic,
    ):
        self.per_address, self.per_node, self.clock = per_address, per_node, clock
        self.window = clock()
        self.counts: dict[str, int] = {}
        self.total = 0

    def admit(self, address: str) -> bool:
        now = self.clock()
        if now - self.window >= WINDOW_S:
            self.window, self.total = now, 0
            self.counts.clear()
        seen = self.counts.get(address, 0)
        if self.total >= self.per_node or seen >= self.per_address:
            return False
        if not seen and len(self.counts) >= MAX_ADDRESSES:
            return False  # a flood of addresses: the rest wait for the next window
        self.counts[address] = seen + 1
        self.total += 1
        return True


def field(report: PageReport) -> str:
    """The report as one field of the day's counts: its kind, then its values in order."""
    values = " ".join(
        f"{name}={_word(value)}" for name, value in msgspec.structs.asdict(report).items()
    )
    kind = str(type(report).__struct_config__.tag)
    return f"{kind} {values}" if values else kind


def _word(value: object) -> str:
    return ("no", "yes")[value] if isinstance(value, bool) else str(value)


def day_of(now_ms: int) -> tuple[str, int]:
    """The day's key (UTC) and when its counts expire: ``KEEP_DAYS`` after the day ends."""
    day = datetime.datetime.fromtimestamp(now_ms / 1000, datetime.UTC).date()
    end = datetime.datetime.combine(day, datetime.time(), datetime.UTC) + datetime.timedelta(1)
    return day.isoformat(), int((end + datetime.timedelta(KEEP_DAYS)).timestamp())


def _count(report: PageReport) -> None:
    match report:
        case FriendLinkReport(reason):
            metrics.PAGE_REPORTS.labels("friend-link", reason).inc()
        case SocketFailingReport():
            metrics.PAGE_REPORTS.labels("socket-failing", "none").inc()
        case DeviceReport():
            metrics.PAGE_REPORTS.labels("device", "none").inc()
            for trait, value in msgspec.structs.asdict(report).items():
                metrics.PAGE_DEVICES.labels(trait, _word(value)).inc()


def _refused(why: str, status: int, code: str, message: str) -> Response:
    metrics.REPORTS_REFUSED.labels(why).inc()
    return problem(status, code, message)


async def receive(request: Request) -> Response:
    app = request.app.state
    if httpguard.cross_site(request, app.settings.allowed_origins):
        return _refused("cross-site", 403, "cross-site", "Reports come from nyumba's own pages.")
    if not app.report_rate.admit(request.client.host if request.client else "unknown"):
        limit = app.report_rate.per_address
        return _refused(
            "over-rate", 429, "rate-limited", f"At most {limit} reports a minute, please."
        )
    try:
        body = await httpguard.read_body(request, MAX_REPORT)
    except httpguard.TooLarge:
        metrics.REPORTS_REFUSED.labels("too-large").inc()
        raise  # answered 413 by httpguard.Problems
    try:
        report = decode(body)
    except msgspec.ValidationError as exc:
        return _refused("malformed", 400, "bad-message", f"The report is not valid: {exc}.")
    except (msgspec.DecodeError, RecursionError):
        return _refused("malformed", 400, "bad-json", "The report is not valid JSON.")
    day, expire_at = day_of(app.node.now())
    await app.node.store.count_report(f"reports:{day}", field(report), expire_at)
    _count(report)
    return Response(status_code=204)
