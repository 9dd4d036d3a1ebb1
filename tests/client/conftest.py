"""Browser tests: the client in the system's Chromium, driven by Playwright, against a real
``nyumba serve`` process (the shared ``live_server`` fixture).

Every page opened through ``open_page`` records console errors, uncaught exceptions and CSP
violations (Chromium logs those as console errors); a test fails if any appear. A test may
allow a named browser message, such as Chromium's own log line for a request it expects to be
refused.
"""

from __future__ import annotations

import os
import re
import shutil
from dataclasses import dataclass, field

import pytest
from clientkit import CHROMIUM, DESKTOP, launch


# Per module, not per session: sync Playwright keeps an event loop running in the main thread
# while it is open, and tests elsewhere in the same run that call asyncio.run() must not find
# one (they fail with "asyncio.run() cannot be called from a running event loop").
@pytest.fixture(scope="module")
def browser():
    if os.environ.get("CI"):  # CI installs both (.ci/run): missing is a failure there
        import playwright.sync_api as sync_api

        assert shutil.which(CHROMIUM), "the system Chromium is missing: .ci/apt-packages has it"
    else:
        sync_api = pytest.importorskip("playwright.sync_api")
        if not shutil.which(CHROMIUM):
            pytest.skip("the system Chromium is not installed (apt-get install chromium)")
    with sync_api.sync_playwright() as pw:
        b = launch(pw)
        yield b
        b.close()


@dataclass
class Watched:
    """A page and the problems it logged."""

    page: object
    problems: list[str] = field(default_factory=list)


@pytest.fixture
def open_page(browser, live_server):
    """open_page(context=None, speed="off", lang="en", viewport=DESKTOP, path="/") -> Page.

    ``open_page.context(..., has_touch=True, is_mobile=True)`` passes further options to
    Playwright's ``new_context`` (a phone with a touch screen).

    Without a context a new one (a new browser profile: its own localStorage, so its own seat
    tokens) is made. ``allow(pattern)`` marks browser console messages a test expects."""
    contexts = []
    watched: list[Watched] = []
    allowed: list[re.Pattern] = []

    def new_context(speed="off", lang="en", viewport=DESKTOP, **extra):
        ctx = browser.new_context(
            **extra,
            viewport=viewport,
            locale="ja-JP" if lang == "ja" else "en-US",
            base_url=live_server,
            accept_downloads=True,
        )
        ctx.add_init_script(
            f"localStorage.getItem('nyumba:speed') || localStorage.setItem('nyumba:speed', '{speed}');"
        )  # the language is left to the browser's locale
        contexts.append(ctx)
        return ctx

    def open_(context=None, path="/", **kw):
        ctx = context or new_context(**kw)
        page = ctx.new_page()
        w = Watched(page)
        page.on("console", lambda m: m.type == "error" and w.problems.append(f"console: {m.text}"))
        page.on("pageerror", lambda e: w.problems.append(f"exception: {e}"))
        watched.append(w)
        if path:
            page.goto(path)
        return page

    open_.context = new_context
    open_.allow = lambda pattern: allowed.append(re.compile(pattern))
    yield open_
    problems = [p for w in watched for p in w.problems if not any(a.search(p) for a in allowed)]
    for ctx in contexts:
        ctx.close()
    assert not problems, "the pages logged errors:\n" + "\n".join(problems)
