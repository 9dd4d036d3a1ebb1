"""A clocked room on a phone (390x844, Japanese, a touch screen) opposite a desktop (1280x800,
English): the board's pits, the player's own store, both clocks, the "tap again" hint and,
after the game, Rematch all lie on the first screen; and every ending is said in plain words
to whoever reads it — "You lost on time", "You resigned", "Your opponent resigned", "Game
aborted — nobody moved in time" — with nothing to replay, analyse or play again after a game
nobody moved in."""

from __future__ import annotations

import pytest
from clientkit import PHONE, attr, start_game, wait_open, wait_settled
from serverproc import ServerProcess

WIDE = {"width": 1280, "height": 800}
FLAG = "8000+0"  # each side's clock: it falls within a test once both have moved twice
ABORT_MS = 6000  # the first moves' window: a game nobody moves in ends within a test


@pytest.fixture(scope="module")
def clocked_server(tmp_path_factory, key_prefix):
    """A server whose first moves' window is short, shared by this module's rooms."""
    tmp = tmp_path_factory.mktemp("clocked-phone")
    env = {"NYUMBA_KEY_PREFIX": key_prefix + "clocked-phone:", "NYUMBA_ABORT_MS": str(ABORT_MS)}
    server = ServerProcess(redis_url=None, data_dir=tmp, env=env).start()
    yield server
    server.stop()


def _pair(open_page, base: str, clock: str | None):
    """A Kalah friend room opened by a phone in Japanese (South) and taken by a desktop in
    English (North)."""
    phone_ctx = open_page.context(lang="ja", viewport=PHONE, has_touch=True, is_mobile=True)
    phone = open_page(phone_ctx, path=base + "/")
    url = start_game(phone, "kalah", {"seeds": 4}, mode="friend", clock=clock)
    desk = open_page(path=url, viewport=WIDE)
    wait_open(desk)
    phone.wait_for_selector("#share-wait", state="hidden")
    return phone, desk


def _off_screen(page, selectors: list[str]) -> list[str]:
    """The selectors of those elements (every match) not wholly inside the first screen."""
    out = []
    for sel in selectors:
        boxes = page.locator(sel)
        assert boxes.count(), sel
        for i in range(boxes.count()):
            b = boxes.nth(i).bounding_box()  # relative to the top of the first screen
            if b is None or b["y"] < 0 or b["y"] + b["height"] > PHONE["height"]:
                out.append(f"{sel}#{i}: {b}")
    return out


BOARD = ["#board-wrap .pit", "[data-pit='store0']", "#clocks .clock[data-side='0']",
         "#clocks .clock[data-side='1']"]  # fmt: skip


def _move(page, other, tap: bool) -> None:
    """The first lit pit: tapped twice on the phone (select, then play; the hint on screen
    in between), clicked on the desktop; both pages then at the new version."""
    wait_settled(page)
    before = attr(page, "version")
    pit = page.locator(".pit.lit").first
    if tap:
        pit.tap()
        page.wait_for_selector("#tap-hint:not([hidden])")
        assert _off_screen(page, ["#tap-hint"]) == []
        pit.tap()
    else:
        pit.click()
    for p in (page, other):
        p.wait_for_function(
            "v => Number(document.querySelector('#app').dataset.version) > v", arg=int(before)
        )


def test_a_clocked_room_fits_the_phone_and_the_flag_is_said_to_each(open_page, clocked_server):
    phone, desk = _pair(open_page, clocked_server.url, FLAG)
    wait_settled(phone)
    phone.wait_for_selector("#app[data-myturn='1']")
    assert _off_screen(phone, BOARD + ["#abort"]) == []  # the pits to tap, and the abort
    made = {0: 0, 1: 0}  # each side's moves: two each before a flag counts (fair play)
    while min(made.values()) < 2:
        wait_settled(phone)
        side = 0 if attr(phone, "myturn") == "1" else 1
        mover = phone if side == 0 else desk
        mover.wait_for_selector("#app[data-myturn='1']")
        _move(mover, desk if side == 0 else phone, tap=side == 0)
        made[side] += 1
    wait_settled(phone)
    loser = 0 if attr(phone, "myturn") == "1" else 1  # nobody moves again: the mover's flag
    for page in (phone, desk):
        page.wait_for_selector("#app[data-over='1']", timeout=20_000)
        wait_settled(page)
    phone_said, desk_said = phone.inner_text("#result"), desk.inner_text("#result")
    lost, won = "時間切れで負けました。", "時間切れで勝ちました。"
    assert (phone_said, desk_said) == (
        (lost, "You won on time.") if loser == 0 else (won, "You lost on time.")
    )
    assert _off_screen(phone, BOARD + ["#result", "#rematch"]) == []  # the next action: Rematch
    assert phone.locator(".clock.out").count() == 1  # the fallen flag, marked
    assert phone.get_attribute(".clock.out", "data-side") == str(loser)
    phone.select_option("#lang", "en")  # the phone's first screen in English too
    phone.wait_for_selector("#rematch:has-text('Rematch')")
    assert phone.inner_text("#result") == (
        "You lost on time." if loser == 0 else "You won on time."
    )
    assert _off_screen(phone, BOARD + ["#result", "#rematch"]) == []
    assert desk.is_visible("#rematch") and desk.is_visible("#replay-btn")


def test_a_game_nobody_moved_in_is_aborted_in_words_with_nothing_to_replay(
    open_page, clocked_server
):
    phone, desk = _pair(open_page, clocked_server.url, FLAG)
    for page in (phone, desk):
        page.wait_for_selector("#app[data-over='1']", timeout=ABORT_MS + 10_000)
        wait_settled(page)
    assert desk.inner_text("#result") == "Game aborted — nobody moved in time."
    assert phone.inner_text("#result") == "対局は中止されました。誰も時間内に指しませんでした。"
    for page in (phone, desk):
        for button in ("#replay-btn", "#analyse-btn", "#rematch", "#download"):
            assert not page.is_visible(button), button
        assert page.is_visible("#lobby-link")  # another opponent, instead
    assert _off_screen(phone, BOARD + ["#result", "#lobby-link"]) == []


def test_a_resignation_is_said_to_the_one_who_resigned_the_other_and_a_watcher(
    open_page, clocked_server
):
    """Without a clock a friend game has its result from the first move (no window)."""
    phone, desk = _pair(open_page, clocked_server.url, None)
    watcher = open_page(path=phone.url, viewport=WIDE)
    wait_open(watcher)
    phone.wait_for_selector("#app[data-myturn='1']")
    phone.click("#resign")
    phone.click("#resign")  # the second click confirms
    for page in (phone, desk, watcher):
        page.wait_for_selector("#app[data-over='1']")
    assert phone.inner_text("#result") == "投了しました。相手の勝ちです。"
    assert desk.inner_text("#result") == "Your opponent resigned: you win!"
    assert watcher.inner_text("#result") == "South resigned: North wins."


def test_every_ending_is_said_in_plain_words_to_its_reader(open_page, clocked_server):
    """The endings a test cannot cheaply reach by play, through the page's own words.js: the
    reader as South's player, North's, a watcher, and both players on one device."""
    page = open_page(path=clocked_server.url + "/")
    page.wait_for_selector("body[data-ready='1']")
    said = page.evaluate("""async () => {
        const w = await import('/static/words.js');
        const i18n = await import('/static/i18n.js');
        const side = (n) => i18n.t(`side.${n}`);
        const cases = {
            flagSpectator: [{winner: 0, reason: "timeout", adjudication: "timeout"}, []],
            resignLocal: [{winner: 1, reason: "resignation", adjudication: "resignation"}, [0, 1]],
            abortedByMe: [{winner: null, reason: "abort", adjudication: "aborted"}, [1], 1, 1],
            abortedByThem: [{winner: null, reason: "abort", adjudication: "aborted"}, [0], 1, 1],
            slowOpponent: [{winner: null, reason: "first-move", adjudication: "aborted"}, [0], 1, 1],
            earlyResign: [{winner: null, reason: "resignation", adjudication: "aborted"}, [0], 0, 2],
            earlyFlag: [{winner: null, reason: "timeout", adjudication: "aborted"}, [], 1, 3],
            leftWon: [{winner: 0, reason: "abandoned", adjudication: "abandoned"}, [0], 1, 9],
            leftDrawn: [{winner: null, reason: "abandoned", adjudication: "abandoned"}, [0], 1, 9],
            repetition: [{winner: 0, reason: "repetition", score: [25, 23], adjudication: "repetition"}, [1]],
        };
        const out = {};
        for (const lang of ["en", "ja"]) {
            i18n.setLang(lang);
            for (const [name, [outcome, sides, by, plies]] of Object.entries(cases)) {
                out[`${name}.${lang}`] = w.resultText({outcome, ended_by: by, plies: plies ?? 9}, sides, side);
            }
        }
        i18n.setLang("en");
        return out;
    }""")
    assert said["flagSpectator.en"] == "North ran out of time: South wins."
    assert said["resignLocal.en"] == "South resigned: North wins."
    assert said["abortedByMe.en"] == "You aborted the game: no result."
    assert said["abortedByThem.en"] == "Your opponent aborted the game: no result."
    assert said["slowOpponent.en"] == (
        "Game aborted — your opponent did not make a first move in time."
    )
    assert said["earlyResign.en"].startswith("Game aborted — you resigned before each side")
    assert said["earlyFlag.en"].startswith("Game aborted — North's clock ran out before")
    assert said["leftWon.en"] == "Your opponent left: you claimed the win."
    assert said["leftDrawn.en"] == "Your opponent left: you claimed a draw."
    assert said["repetition.en"] == (
        "You lose. Score 25–23. The position repeated: each side keeps the seeds on its side."
    )
    assert said["flagSpectator.ja"] == "北の持ち時間がなくなりました。南の勝ちです。"
    assert said["abortedByThem.ja"] == "相手が対局を中止しました（結果なし）。"
    assert said["earlyResign.ja"].startswith(
        "対局は中止されました。双方が2手ずつ指す前にあなたが投了"
    )
    for text in said.values():
        assert "Adjudication" not in text and "裁定" not in text, text
