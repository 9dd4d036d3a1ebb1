"""A sample of the fuzz campaign (tests/bench/fuzz.py runs the long one):
hostile messages against a real server change nothing and break nothing."""

from __future__ import annotations

import pytest
from fuzzkit import Campaign, messages
from hypothesis import HealthCheck, given, settings
from serverproc import make_server

ALLOWED = {
    "bad-json",
    "bad-message",
    "not-your-turn",
    "stale",
    "state",
    "not-seated",
    "not-joined",
    "wrong-room",
    "bad-token",
    "no-room",
    "no-offer",
    "not-allowed",
    "not-absent",
    "illegal",
    "bad-notation",
    "pong",
    "closed-1009",
    "game-over",
    "welcome",
    "id-reused",  # a fuzzed id that named other content before
}


@pytest.fixture(scope="module")
def campaign(store_kind, tmp_path_factory, key_prefix):
    srv = make_server(
        store_kind,
        tmp_path_factory.mktemp("fuzz"),
        key_prefix + "fuzz:",
        NYUMBA_RATE_MESSAGES="1000000",
        NYUMBA_RATE_PINGS="1000000",
    )
    c = Campaign(srv)
    yield c
    c.close()
    srv.stop()


def test_hostile_messages_are_refused_and_change_nothing(campaign):
    @settings(
        max_examples=300, deadline=None, derandomize=True, suppress_health_check=list(HealthCheck)
    )
    @given(messages(campaign.room, campaign.other_room, campaign.other_token, campaign.version))
    def one(message):
        who, raw = message
        answers = campaign.send(who, raw)
        assert set(answers) <= ALLOWED, (who, raw[:200], answers)

    one()
    campaign.check()
    assert campaign.counts["sent"] >= 300
