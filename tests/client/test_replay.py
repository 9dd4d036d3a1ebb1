"""Replay of a finished game, and the record's download/upload round trip.

The replay view draws what ``POST /api/replay`` returns for a record. Where a server lacks that
endpoint, the test answers it in the browser's network layer with the same shape, computed by
the engine, so the client's side is still exercised."""

from __future__ import annotations

import json

import httpx
import msgspec
from clientkit import counts, play_first, play_out, start_game, wait_settled

import engine


def replay_states(record: dict) -> dict:
    """What the server's /api/replay answers: every position of the game, with its steps
    (``engine.records.replay_view`` once the records module reads the record)."""
    try:
        from engine import records

        return records.replay_view(record)
    except (ImportError, ValueError):
        pass
    game = engine.load(record["game"], **record.get("options", {}))
    state = game.start()

    def entry(state, last):
        return {
            "position": game.describe(state),
            "board": game.board(state),
            "to_move": None if game.outcome(state) else game.to_move(state),
            "last": last,
        }

    states = [entry(state, None)]
    for text in record["moves"]:
        move = game.parse(state, text)
        side = game.to_move(state)
        steps = msgspec.to_builtins(game.steps(state, move))
        state = game.play(state, move)
        states.append(entry(state, {"move": text, "side": side, "steps": steps}))
    outcome = record.get("outcome") or msgspec.to_builtins(game.outcome(state))
    return {
        "game": record["game"],
        "options": game.options,
        "states": states,
        "outcome": outcome,
        "adjudication": (outcome or {}).get("adjudication"),
    }


def serve_replay_if_missing(context, base_url):
    probe = httpx.post(base_url + "/api/replay", json={})
    if probe.status_code not in (404, 405):
        return False

    def answer(route):
        record = json.loads(route.request.post_data)
        route.fulfill(
            status=200, content_type="application/json", body=json.dumps(replay_states(record))
        )

    context.route("**/api/replay", answer)
    return True


def test_replay_and_record_round_trip(open_page, live_server, tmp_path):
    ctx = open_page.context(speed="fast")
    serve_replay_if_missing(ctx, live_server)
    page = open_page(ctx)
    start_game(page, "kalah", {"seeds": 3}, mode="local")
    plies = play_out([page])
    final = counts(page)

    # Download the record through the page's link.
    with page.expect_download() as download:
        page.click("#download")
    path = tmp_path / "record.json"
    download.value.save_as(path)
    record = json.loads(path.read_text())
    assert record["game"] == "kalah" and len(record.get("moves") or record["history"]) == plies

    # Replay this game: start, one step forward (animated), the end.
    page.click("#replay-btn")
    box = page.locator("#replay")
    box.wait_for()
    assert box.get_attribute("data-count") == str(plies + 1)
    start = counts_in(page, "#replay")
    assert all(start[p] == 3 for p in "abcdefABCDEF") and start["store0"] == start["store1"] == 0
    box.locator(".replay-next").click()
    page.wait_for_selector("#replay[data-index='1']")
    assert "Move 1 of" in box.inner_text()
    box.locator(".replay-last").click()
    page.wait_for_selector(f"#replay[data-index='{plies}']")
    page.wait_for_timeout(100)
    assert counts_in(page, "#replay") == final
    assert (
        "wins" in box.locator(".result").inner_text()
        or "Draw" in box.locator(".result").inner_text()
    )
    box.locator(".replay-close").click()
    assert not page.is_visible("#replay")

    # Upload the downloaded file on the start page and replay it there, in Japanese.
    page.goto("/")
    page.select_option("#lang", "ja")
    page.set_input_files("#record-file", str(path))
    box = page.locator("#replay")
    box.wait_for()
    assert "再生" in box.inner_text()
    box.locator(".replay-last").click()
    page.wait_for_selector(f"#replay[data-index='{plies}']")
    page.wait_for_timeout(100)
    assert counts_in(page, "#replay") == final
    # Keyboard: ← steps back.
    box.locator(".replay-prev").focus()
    page.keyboard.press("ArrowLeft")
    page.wait_for_selector(f"#replay[data-index='{plies - 1}']")


def counts_in(page, root):
    return page.eval_on_selector_all(
        f"{root} [data-pit]",
        "els => Object.fromEntries(els.map(e => [e.dataset.pit, Number(e.querySelector('.count').textContent)]))",
    )


def test_bad_record_upload_is_refused_in_words(open_page, live_server, tmp_path):
    ctx = open_page.context()
    if serve_replay_if_missing(ctx, live_server):
        ctx.unroute("**/api/replay")
        ctx.route(
            "**/api/replay",
            lambda route: route.fulfill(
                status=400,
                content_type="application/json",
                body=json.dumps({"code": "bad-record", "message": "That is not a game record."}),
            ),
        )
    # The browser logs a failed (4xx) request as a console error by itself.
    open_page.allow(r"Failed to load resource: the server responded with a status of 4\d\d")
    page = open_page(ctx)
    page.wait_for_selector("body[data-ready='1']")
    bad = tmp_path / "bad.json"
    bad.write_text('{"not": "a record"}')
    page.set_input_files("#record-file", str(bad))
    page.wait_for_selector("#replay-error:not([hidden])")
    assert "Could not replay that record" in page.inner_text("#replay-error")
    assert not page.is_visible("#replay")


def test_unfinished_nakakamado_record_round_trip(open_page, live_server, tmp_path):
    """Bao Nakakamado's record is the trial app's own file (N9); it too goes down and back up."""
    ctx = open_page.context()
    serve_replay_if_missing(ctx, live_server)
    page = open_page(ctx)
    start_game(page, "bao-nakakamado-a", mode="local")
    for _ in range(6):
        before = page.get_attribute("#app", "data-version")
        play_first(page)
        page.wait_for_function(
            "v => document.querySelector('#app').dataset.version !== v", arg=before
        )
        wait_settled(page)
    board = counts(page)
    with page.expect_download() as download:
        page.click("#download")
    path = tmp_path / "nakakamado.json"
    download.value.save_as(path)
    page.goto("/")
    page.set_input_files("#record-file", str(path))
    box = page.locator("#replay")
    box.wait_for()
    assert box.get_attribute("data-count") == "7"
    box.locator(".replay-last").click()
    page.wait_for_selector("#replay[data-index='6']")
    assert counts_in(page, "#replay") == board
