"""The lobby's limits across real nodes: one seek per socket, a cap per address counted on
every node, and a cancel answered the same however often it is sent."""

from __future__ import annotations

from lobbykit import Watching, seek
from wsclient import Client


def test_one_seek_per_socket_a_cap_per_address_and_a_cancel_that_empties_the_lobby(lobby_nodes):
    a, b = lobby_nodes(2, NYUMBA_SEEKS_PER_ADDRESS="2")
    watcher = Watching(Client(b.ws_url))
    first = Client(a.ws_url)
    mine = seek(first, side="north")["seek"]
    first.send(t="seek", game="kalah", options={"seeds": 4}, id="twice")
    refused = first.expect("error")
    assert refused["code"] == "seeking" and refused["id"] == "twice"
    second = Client(b.ws_url)
    seek(second, side="north")  # the same side: not paired with the first
    third = Client(a.ws_url)
    third.send(t="seek", game="kalah", options={"seeds": 4}, side="north")
    assert third.expect("error")["code"] == "seek-limit"  # two open from this address
    assert len(watcher.until(lambda w: len(w.seeks) == 2).seeks) == 2
    first.send(t="cancel", seek=mine, id="c1")
    assert first.expect("seeking") == {
        "t": "seeking",
        "seek": mine,
        "status": "cancelled",
        "id": "c1",
    }
    watcher.until(lambda w: mine not in w.seeks and len(w.seeks) == 1)
    first.send(t="cancel", seek=mine, id="c1")  # a resend: the same answer
    assert first.expect("seeking")["status"] == "cancelled"
    second.send(t="cancel", seek=mine)  # not its seek
    assert second.expect("error")["code"] == "no-seek"
    third.send(t="seek", game="kalah", options={"seeds": 4}, side="north")
    assert third.expect("seeking")["status"] == "open"  # room under the cap again


def test_a_nodes_own_cap_on_open_seeks_refuses_there_and_nowhere_else(lobby_nodes):
    """``NYUMBA_SEEKS_PER_NODE``: what one node holds open (its memory, its sweeps), counted by
    that node: its next seek is refused with ``seek-limit`` while another node takes one, and a
    cancel there makes room again."""
    a = lobby_nodes(1, NYUMBA_SEEKS_PER_NODE="2")[-1]
    b = lobby_nodes(1)[-1]  # the same store and prefix, the default cap
    held = [Client(a.ws_url) for _ in range(2)]
    seeks = [seek(c, side="north")["seek"] for c in held]  # one side: nobody is paired
    over = Client(a.ws_url)
    over.send(t="seek", game="kalah", options={"seeds": 4}, side="north", id="s3")
    refused = over.expect("error")
    assert refused["code"] == "seek-limit" and refused["id"] == "s3" and refused["message"]
    elsewhere = Client(b.ws_url)
    assert seek(elsewhere, side="north")["status"] == "open"
    held[0].send(t="cancel", seek=seeks[0])
    assert held[0].expect("seeking")["status"] == "cancelled"
    over.send(t="seek", game="kalah", options={"seeds": 4}, side="north", id="s4")
    assert over.expect("seeking")["status"] == "open"
