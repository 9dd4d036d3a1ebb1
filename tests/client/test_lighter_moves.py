"""The page joins with states "moves": each move reaches it as a ``moved`` message (what the
move changed, server/PROTOCOL.md "Moves, lighter"), which ``client/moved.js`` turns into the
whole state the page draws — the same board, turn and legal moves the server's state has."""

from __future__ import annotations

import json

import pytest
from clientkit import counts, play_out, start_game, wait_open, wait_settled


def frames(page) -> list[dict]:
    """Every message the page's WebSocket receives, from now on."""
    seen: list[dict] = []
    page.on(
        "websocket",
        lambda ws: ws.on("framereceived", lambda payload: seen.append(json.loads(payload))),
    )
    return seen


def drawn(page) -> dict[str, int]:
    """The board as the page draws it, by the server's names (pits, then stores)."""
    return counts(page)


@pytest.mark.parametrize("game,options", [("kalah", {"seeds": 3}), ("bao-kujifunza", {})])
def test_a_game_played_with_moved_messages_ends_on_the_servers_board(open_page, game, options):
    host = open_page(speed="fast" if game == "kalah" else "off")
    host_frames = frames(host)
    url = start_game(host, game, options, mode="friend", side="south")
    friend = open_page(path=url, speed="off")
    friend_frames = frames(friend)
    wait_open(friend)
    plies = play_out([host, friend])
    assert plies > 4
    for page in (host, friend):
        wait_settled(page)
    # A third page joins now: its first state is the store's, drawn whole.
    watcher = open_page(path=url)
    wait_open(watcher)
    wait_settled(watcher)
    assert counts(host) == counts(friend) == counts(watcher)
    for seen in (host_frames, friend_frames):
        kinds = [m["t"] for m in seen]
        assert kinds.count("moved") >= plies - 2, kinds  # the moves came as moved messages
        # a whole state only for joins, presence and the like: far fewer than the moves
        assert kinds.count("state") < kinds.count("moved")
        # the mover's own moves carry its intent id (its answer): the page's acks still work
        assert any("id" in m for m in seen if m["t"] == "moved")
    assert host.get_attribute("#app", "data-drift") is None  # animations ended on the board


def test_the_page_asks_for_moves_and_still_plays_a_whole_state_client(open_page, live_server):
    """One room, two kinds of connection: the page (moves) against a bot that takes whole
    states (the default); each sees the other's moves."""
    from wsclient import Client

    host = open_page()
    sent: list[dict] = []
    host.on(
        "websocket",
        lambda ws: ws.on("framesent", lambda payload: sent.append(json.loads(payload))),
    )
    url = start_game(host, "oware", mode="friend", side="south")
    room = url.rsplit("/", 1)[1]
    joins = [m for m in sent if m["t"] == "join"]
    bot = Client(live_server.replace("http", "ws") + "/ws")
    bot.join(room)
    for _ in range(3):
        host.wait_for_selector("#app[data-myturn='1']")
        wait_settled(host)
        host.click(".pit.lit >> nth=0")
        st = bot.wait_state(lambda s: s["to_move"] == 1)
        bot.move(st["legal"][0]["move"])
        bot.wait_state(lambda s, v=st["version"]: s["version"] == v + 1)
    host.wait_for_selector(f"#app[data-version='{bot.state['version']}']")
    wait_settled(host)
    board = bot.state["board"]
    expected = {**board["pits"], "store0": board["stores"][0], "store1": board["stores"][1]}
    got = drawn(host)
    assert {k: got[k] for k in expected if k in got} == {
        k: v for k, v in expected.items() if k in got
    }
    assert len([k for k in expected if k in got]) >= 12
    bot.close()
    assert joins or any(m["t"] == "join" for m in sent)
    assert all(m.get("states") == "moves" for m in sent if m["t"] == "join")
