"""Helpers for driving nyumba's client in Chromium (the browser tests and the screenshot bench)."""

from __future__ import annotations

import json
import re
import shutil
import time

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
PHONE = {"width": 390, "height": 844}
DESKTOP = {"width": 1100, "height": 900}

# Chromium's virtual authenticator (the DevTools protocol's WebAuthn domain): a device that holds
# passkeys and says yes at once, as a player who touches the sensor would.
AUTHENTICATOR = {
    "protocol": "ctap2",
    "transport": "internal",
    "hasResidentKey": True,
    "hasUserVerification": True,
    "isUserVerified": True,
    "automaticPresenceSimulation": True,
}


def authenticator(context, page) -> tuple[object, str]:
    """A virtual authenticator in ``page``'s browser: its DevTools session and its id."""
    cdp = context.new_cdp_session(page)
    cdp.send("WebAuthn.enable")
    made = cdp.send("WebAuthn.addVirtualAuthenticator", {"options": AUTHENTICATOR})
    return cdp, made["authenticatorId"]


def launch(pw):
    """The system Chromium (never a downloaded one)."""
    return pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)


def start_game(page, game, options=None, mode="friend", side="south", level="beginner", clock=None):
    """Fill the start page and open the room; returns the room URL. ``clock``: a friend
    room's clock as the start page's select gives it ("6000+0"), added to the select when the
    page does not offer it (a test's short clock)."""
    page.wait_for_selector("body[data-ready='1']")
    page.check(f"input[name=game][value='{game}']")
    for name, value in (options or {}).items():
        page.select_option(f"#opt-{name}", json.dumps(value))
    page.check(f"input[name=mode][value='{mode}']")
    if mode != "local":
        page.check(f"input[name=side][value='{side}']")
    if mode == "computer":
        page.select_option("#level", level)
    if clock:
        page.eval_on_selector(
            "#clock",
            "(s, v) => s.querySelector(`option[value='${v}']`) || s.add(new Option(v, v))",
            clock,
        )
        page.select_option("#clock", clock)
    page.click("#go")
    page.wait_for_url(re.compile(r"/r/[A-Za-z0-9_-]+$"))
    wait_open(page)
    return page.url


def wait_open(page, timeout=15_000):
    page.wait_for_selector("#app[data-conn='open'][data-version]", timeout=timeout)


# A page's WebSockets, room sockets (/ws?room=ID: room affinity, deploy/proxy/nginx.conf) and
# the lobby's (/ws) alike, for Playwright's routes
SOCKETS = re.compile(r"/ws(\?[^/]*)?$")


def attr(page, name):
    return page.get_attribute("#app", f"data-{name}")


def wait_settled(page, timeout=15_000):
    """Until the page is connected and has nothing in flight (no animation, no pending move)."""
    page.wait_for_selector("#app[data-conn='open'][data-busy='0']", timeout=timeout)


def counts(page) -> dict[str, int]:
    """Every pit, store, tray and hand count as drawn."""
    return page.eval_on_selector_all(
        "[data-pit]",
        "els => Object.fromEntries(els.map(e => [e.dataset.pit, Number(e.querySelector('.count').textContent)]))",
    )


def pending(page) -> int:
    """Bao: captured seeds not yet sown when the game ended mid-move (B13)."""
    value = page.get_attribute(".board", "data-pending") or "0,0"
    return sum(int(n) for n in value.split(","))


def play_first(page, pick=None):
    """Click the first lit pit (or the pass button) and, if asked, the first choice.
    With ``pick`` (a random.Random), a pit and a choice drawn from it instead."""
    lit = page.locator(".pit.lit")
    if lit.count():
        (lit.nth(pick.randrange(lit.count())) if pick else lit.first).click()
    else:
        page.locator("#passes button").first.click()
    choices = page.locator("#choices:not([hidden]) button.choice")
    if choices.count():
        (choices.nth(pick.randrange(choices.count())) if pick else choices.first).click()


def play_out(pages, max_plies=600, timeout=120.0):
    """Let whichever page may move play its first lit pit until the game is over.
    Returns the number of plies played through the UI."""
    plies = 0
    deadline = time.monotonic() + timeout
    while plies < max_plies:
        assert time.monotonic() < deadline, f"game not over after {plies} plies"
        if any(attr(p, "over") == "1" for p in pages):
            break
        mover = next((p for p in pages if attr(p, "myturn") == "1"), None)
        if mover is None:
            time.sleep(0.02)
            continue
        before = attr(mover, "version")
        play_first(mover)
        mover.wait_for_function(
            "v => { const a = document.querySelector('#app'); return a.dataset.version !== v || a.dataset.over === '1'; }",
            arg=before,
        )
        plies += 1
    for p in pages:
        p.wait_for_selector("#app[data-over='1']")
        wait_settled(p)
    return plies


def moves_each(pages, n=2, timeout=30.0):
    """Whoever may move plays a lit pit until each page's side has made ``n`` moves (an arena
    or rated game with fewer a side is aborted; Kalah's extra turns give one side several
    moves in a row)."""
    made = {id(p): 0 for p in pages}
    deadline = time.monotonic() + timeout
    while min(made.values()) < n:
        assert time.monotonic() < deadline, f"moves made: {made}"
        mover = next((p for p in pages if attr(p, "myturn") == "1"), None)
        if mover is None:
            time.sleep(0.02)
            continue
        before = attr(mover, "version")
        play_first(mover)
        mover.wait_for_function(
            "v => document.querySelector('#app').dataset.version !== v", arg=before
        )
        made[id(mover)] += 1
    for p in pages:
        wait_settled(p)


def play_move(page, move):
    """Play `move` by its notation through the "list of moves" buttons."""
    wait_settled(page)
    page.wait_for_selector("#app[data-myturn='1']")
    if not page.is_visible("#move-buttons"):
        page.click("#move-list summary")
    before = attr(page, "version")
    page.click(f"#move-buttons button[data-move='{move}']")
    page.wait_for_function("v => document.querySelector('#app').dataset.version !== v", arg=before)
    wait_settled(page)


def finish_local_game(page, game="kalah", options=None, moves=()):
    """A local game played to its end: `moves` first, then always the first lit pit (the same
    game every time). Returns the number of plies."""
    start_game(
        page, game, {"seeds": 3} if options is None and game == "kalah" else options, mode="local"
    )
    for move in moves:
        play_move(page, move)
    for _ in range(400):
        page.wait_for_selector("#app[data-myturn='1'], #app[data-over='1']")
        if attr(page, "over") == "1":
            break
        before = attr(page, "version")
        play_first(page)
        page.wait_for_function(
            "v => { const a = document.querySelector('#app'); return a.dataset.version !== v || a.dataset.over === '1'; }",
            arg=before,
        )
    page.wait_for_selector("#app[data-over='1']")
    wait_settled(page)
    return int(attr(page, "plies"))


def open_analysis(page, timeout=240_000):
    """Open the finished game's analysis and wait until it is done."""
    page.click("#analyse-btn")
    try:
        page.wait_for_selector("#analysis[data-state='done']", timeout=timeout)
    except Exception:
        raise AssertionError(page.inner_text("#analysis")) from None
