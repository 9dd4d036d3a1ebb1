"""Game statistics in ``/metrics``, counted by the server where it sees them: a finished game of
each mode moves its counters once — started, finished (with its winner), its ending, its moves
and length — and a friend room counts its invitation opened and taken. Real server processes
on each store; a scrape before and after."""

from __future__ import annotations

import pytest
from serverproc import make_server
from statskit import computer_game, friend_game, key, local_game, moved, scrape, winner_of
from wsclient import Client, create_room

GAME = "kalah"
MOVE_BUCKETS = (10, 20, 30, 40, 50, 60, 80, 100, 150, 200, 300, 500, 1000)


@pytest.fixture(scope="module")
def server(store_kind, tmp_path_factory, key_prefix):
    """A server of this module's own: nothing else plays on it between two scrapes."""
    srv = make_server(store_kind, tmp_path_factory.mktemp("stats"), key_prefix + "stats:")
    yield srv
    srv.stop()


def counted(mode: str, level: str, state: dict) -> dict:
    """What one finished game of ``mode`` must have moved (counters; histograms' counts)."""
    plies = state["plies"]
    return {
        key("nyumba_games_started_total", game=GAME, mode=mode, level=level): 1,
        key(
            "nyumba_games_finished_total",
            game=GAME,
            mode=mode,
            level=level,
            winner=winner_of(state),
        ): 1,
        key("nyumba_game_endings_total", game=GAME, mode=mode, ending="rules"): 1,
        key("nyumba_game_moves_count", game=GAME, mode=mode): 1,
        key("nyumba_game_moves_sum", game=GAME, mode=mode): plies,
        key("nyumba_game_seconds_count", game=GAME, mode=mode): 1,
        **{
            key("nyumba_game_moves_bucket", game=GAME, mode=mode, le=f"{b:.1f}"): 1
            for b in MOVE_BUCKETS
            if plies <= b
        },
        key("nyumba_game_moves_bucket", game=GAME, mode=mode, le="+Inf"): 1,
    }


def statistics(before, after) -> dict:
    """The game statistics that moved, less what says nothing about a count (when a labelled
    counter was first used; the game's length, checked apart)."""
    return {
        k: v
        for k, v in {
            **moved(before, after, "nyumba_game"),
            **moved(before, after, "nyumba_friend"),
        }.items()
        if not k[0].endswith("_created")
        and not k[0].startswith(("nyumba_game_seconds_bucket", "nyumba_game_seconds_sum"))
    }


def test_a_finished_game_of_each_mode_moves_its_counters_once(server):
    before = scrape(server.url)
    vs_computer = computer_game(server.url, server.ws_url)
    on_one_device = local_game(server.url, server.ws_url)
    south, north = Client(server.ws_url), Client(server.ws_url)
    try:
        with_a_friend = friend_game(server.url, south, north)
    finally:
        south.close()
        north.close()
    after = scrape(server.url)

    expected = {
        **counted("computer", "beginner", vs_computer),
        **counted("local", "none", on_one_device),
        **counted("friend", "none", with_a_friend),
        key("nyumba_friend_invites_total", game=GAME, state="opened"): 1,
        key("nyumba_friend_invites_total", game=GAME, state="taken"): 1,
    }
    assert statistics(before, after) == expected
    for mode in ("computer", "local", "friend"):
        took = moved(before, after, "nyumba_game_seconds_sum")[
            key("nyumba_game_seconds_sum", game=GAME, mode=mode)
        ]
        assert 0 < took < 120, (mode, took)


def test_a_friend_room_nobody_joins_counts_its_invitation_only(server):
    before = scrape(server.url)
    r = create_room(server.url, GAME, mode="friend")
    maker = Client(server.ws_url)
    maker.join(r["room"], r["token"])
    maker.close()
    after = scrape(server.url)
    assert statistics(before, after) == {
        key("nyumba_friend_invites_total", game=GAME, state="opened"): 1
    }


def test_a_page_back_on_a_new_socket_counts_a_reconnection_and_a_reload_does_not(server):
    r = create_room(server.url, GAME, mode="local")
    first = Client(server.ws_url)
    first.join(r["room"], r["token"])
    version = first.state["version"]
    first.close()
    before = scrape(server.url)
    again = Client(server.ws_url)  # the page's socket died; it joins with what it saw
    again.send(t="join", room=r["room"], token=r["token"], version=version)
    again.expect("welcome")
    reload = Client(server.ws_url)  # a reloaded page joins without a version
    reload.join(r["room"], r["token"])
    again.close()
    reload.close()
    after = scrape(server.url)
    reconnections = {
        k: v
        for k, v in moved(before, after, "nyumba_reconnections").items()
        if "_created" not in k[0]
    }
    assert reconnections == {key("nyumba_reconnections_total", game=GAME, mode="local"): 1}
