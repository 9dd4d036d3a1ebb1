"""Passkeys against real servers on a real SQLite file and a real PostgreSQL: one assertion
opens one session however many times it is sent at once; the relying party is the configured
one, never the request's ``Host``; a credential id already kept is the client's 409, and the
archive stays up (``nyumba_archive_up`` 1)."""

from __future__ import annotations

import asyncio
import re

import httpx
import pytest
from passkeykit import Authenticator, Browser
from pgkit import own_schema, postgres_url, sqlite_url
from serverproc import ServerProcess, free_port, make_server

REPLAYS = 20


@pytest.fixture(scope="module", params=["sqlite", "postgresql"])
def node(request, tmp_path_factory, key_prefix):
    """A server with its archive on SQLite or PostgreSQL (its own schema), public URL unset:
    passkeys at http://localhost:PORT."""
    tmp = tmp_path_factory.mktemp(f"passkeys-{request.param}")
    if request.param == "sqlite":
        srv = make_server("embedded", tmp, key_prefix, DATABASE_URL=sqlite_url(tmp))
        yield srv
        srv.stop()
        return
    with postgres_url(tmp) as url, own_schema(url) as schema_url:
        srv = make_server("embedded", tmp, key_prefix, DATABASE_URL=schema_url)
        yield srv
        srv.stop()


def archive_up(base: str) -> float:
    text = httpx.get(base + "/metrics", timeout=5).text
    return float(re.search(r"^nyumba_archive_up(?:\{[^}]*\})? (\S+)$", text, re.M)[1])


async def _send_at_once(base: str, host: str, answer: dict, n: int) -> list[httpx.Response]:
    async with httpx.AsyncClient(timeout=20, limits=httpx.Limits(max_connections=n)) as http:
        return await asyncio.gather(
            *(
                http.post(base + "/api/passkeys/signin", json=answer, headers={"host": host})
                for _ in range(n)
            )
        )


@pytest.mark.parametrize("counting", [True, False], ids=["counting", "always-zero"])
def test_one_assertion_sent_twenty_times_at_once_opens_one_session(node, counting):
    """An authenticator that counts, and one that always says 0 (whose counter cannot tell a
    replay): either way the challenge is handed to one request, and one session opens."""
    owner, key = Browser(node.url), Authenticator(counting=counting)
    me = owner.be_someone()
    assert owner.add_passkey(key).status_code == 201
    stranger = Browser(node.url)  # a fresh browser: no cookie
    answer = stranger.assertion(key)

    answers = asyncio.run(_send_at_once(node.url, stranger.host, answer, REPLAYS))

    signed_in = [r for r in answers if r.status_code == 200]
    assert len(signed_in) == 1, [(r.status_code, r.text) for r in answers]
    assert signed_in[0].json()["player"] == me and "nyumba_player" in signed_in[0].cookies
    refused = {(r.status_code, r.json()["code"]) for r in answers if r.status_code != 200}
    assert refused <= {(400, "bad-challenge"), (403, "passkey-counter")}, refused
    # The same passkey still signs in, with a new challenge.
    again = stranger.post("/api/passkeys/signin", stranger.assertion(key))
    assert again.status_code == 200 and again.json()["player"] == me


def test_a_credential_id_already_kept_is_409_and_the_archive_stays_up(node):
    first, key = Browser(node.url), Authenticator()
    first.be_someone()
    assert first.add_passkey(key).status_code == 201
    assert archive_up(node.url) == 1

    copy = Authenticator(credential_id=key.credential_id)  # another key, the same id
    other = Browser(node.url)
    other.be_someone()
    for browser, authenticator in ((other, copy), (first, key)):
        r = browser.add_passkey(authenticator)
        assert (r.status_code, r.json()["code"]) == (409, "passkey-taken"), r.text
    assert archive_up(node.url) == 1
    me = first.post("/api/me")
    assert me.status_code == 200 and me.json()["passkeys"] == 1
    assert other.post("/api/me").json()["passkeys"] == 0
    assert "archive down" not in node.log()


def test_a_ceremony_under_another_host_is_refused(node):
    """The issue's attack: ``Host: evil.example`` made evil.example the relying party."""
    evil = Browser(node.url, host="evil.example")
    evil.be_someone()  # /api/me is not a ceremony
    key = Authenticator()
    for path in ("/api/passkeys/register/options", "/api/passkeys/signin/options"):
        r = evil.post(path)
        assert (r.status_code, r.json()["code"]) == (400, "wrong-address"), r.text
        assert f"http://localhost:{node.port}/" in r.json()["message"]
    # An answer signed for evil.example is refused before it is looked at.
    own = Browser(node.url)
    asked = own.post("/api/passkeys/signin/options").json()
    forged = {
        "challenge": asked["challenge"],
        "credential": key.get({**asked["options"], "rpId": "evil.example"}, "http://evil.example"),
    }
    r = evil.post("/api/passkeys/signin", forged)
    assert (r.status_code, r.json()["code"]) == (400, "wrong-address"), r.text


def test_a_passkey_made_for_another_relying_party_is_refused(tmp_path, key_prefix):
    """Two servers on one archive: one whose public URL is http://evil.example:PORT, one
    with the default (localhost). A passkey made on the first does not sign in on the second,
    whatever the request says its host is."""
    archive = {"DATABASE_URL": sqlite_url(tmp_path)}
    port = free_port()
    elsewhere = ServerProcess(
        redis_url=None,
        data_dir=tmp_path / "evil",
        port=port,
        env={"NYUMBA_KEY_PREFIX": key_prefix, "NYUMBA_PUBLIC_URL": f"http://evil.example:{port}"},
    )
    elsewhere.extra_env.update(archive)
    here = make_server("embedded", tmp_path / "here", key_prefix, **archive)
    try:
        elsewhere.start()
        evil = Browser(elsewhere.url, host=f"evil.example:{port}")
        me = evil.be_someone()
        key = Authenticator()
        assert evil.add_passkey(key).status_code == 201

        own = Browser(here.url)
        refusals = {own.host: (403, "other-relying-party"), evil.host: (400, "wrong-address")}
        for host, refusal in refusals.items():
            asked = own.post("/api/passkeys/signin/options").json()
            options = {**asked["options"], "rpId": "evil.example"}
            answer = {"challenge": asked["challenge"], "credential": key.get(options, evil.origin)}
            r = httpx.post(here.url + "/api/passkeys/signin", json=answer, headers={"host": host})
            assert (r.status_code, r.json()["code"]) == refusal, r.text
            assert "nyumba_player" not in r.cookies
        # On its own site the passkey still works.
        back = Browser(elsewhere.url, host=evil.host)
        r = back.post("/api/passkeys/signin", back.assertion(key))
        assert r.status_code == 200 and r.json()["player"] == me
    finally:
        elsewhere.stop()
        here.stop()
