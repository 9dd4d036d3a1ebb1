"""The player's identity over HTTP: the session cookie, the name, passkeys, and deletion.

    GET    /api/me                        who this browser is (``player`` null: nobody yet)
    POST   /api/me                        be someone: a new anonymous player (the cookie is set),
                                          or the one the cookie already names
    PATCH  /api/me                        {"name": "…"|null}: the name (checked as seat names are)
    DELETE /api/me                        delete the identity: sessions, passkeys, ratings go;
                                          the games stay, their seats anonymous
    POST   /api/me/signout                this browser's session ends (the cookie is cleared)
    POST   /api/passkeys/register/options the options for navigator.credentials.create
    POST   /api/passkeys/register         {challenge, credential}: the passkey is added
    POST   /api/passkeys/signin/options   the options for navigator.credentials.get
    POST   /api/passkeys/signin           {challenge, credential}: a session for its player

The cookie (``COOKIE``) holds the session's token: HttpOnly (no script reads it), SameSite=Lax
(no other site's request carries it), Secure when the page came over HTTPS, for
``players.SESSION_DAYS``. The WebSocket upgrade carries it, so the seats its player takes are
linked to them (``server/live/identity.py``). Passkeys are checked by py_webauthn against
the configuration, never the request: the relying party is ``NYUMBA_PUBLIC_URL``'s host
(``http://localhost:PORT`` by default), the origin that URL's (or one of
``NYUMBA_ALLOWED_ORIGINS``). A ceremony asked under another host name is refused (400
``wrong-address``), and a passkey is kept with the relying party it was made for, so one made
for another is refused (403 ``other-relying-party``).

Replays: a challenge is kept in the archive and handed to one answer only (one ``DELETE …
RETURNING``), and the signature counter only moves forward by compare-and-set
(``players.used_passkey``), so one assertion opens at most one session however many nodes it is
sent to at once. The archive refusing a row (a credential id already kept, a player deleted
meanwhile) is the request's problem, 409, not an outage: only a database that does not answer
is ``archive-down``.

New players and challenges are what a flood would pile up: one client address makes at most
``NYUMBA_IDENTITIES_PER_MINUTE`` of them a minute, all nodes together (``server/web/quota.py``);
past it, 429 ``rate-limited`` and nothing is written. A session that ends (deleted, signed
out, replaced by a sign-in) is refused by every node at once (``server/live/identity.py``).
"""

from __future__ import annotations

from typing import Any

import msgspec
import webauthn
from sqlalchemy.exc import IntegrityError
from starlette.requests import HTTPConnection, Request
from starlette.responses import Response
from starlette.routing import Route
from webauthn.helpers import base64url_to_bytes, bytes_to_base64url
from webauthn.helpers.exceptions import InvalidAuthenticationResponse, InvalidRegistrationResponse
from webauthn.helpers.structs import (
    AuthenticatorSelectionCriteria,
    PublicKeyCredentialDescriptor,
    ResidentKeyRequirement,
    UserVerificationRequirement,
)

from server.archive import players
from server.archive.db import DOWN, Database
from server.live.identity import Identities
from server.live.local import now_ms
from server.ops.config import Settings
from server.rooms import names
from server.web import httpguard, quota
from server.web.httpguard import problem

COOKIE = "nyumba_player"
MAX_BODY = 16 * 1024  # a passkey's answer is a few hundred bytes to a few kilobytes
RP_NAME = "nyumba"


class Me(msgspec.Struct):
    """``GET /api/me``: this browser's player (``player`` null: none yet)."""

    player: str | None
    name: str | None
    passkeys: int


class NameChange(msgspec.Struct, forbid_unknown_fields=True):
    name: str | None


class Answer(msgspec.Struct, forbid_unknown_fields=True):
    """A passkey ceremony's answer: the challenge's id and the browser's credential (JSON)."""

    challenge: str
    credential: dict[str, Any]


def archive_down(db: Database, exc: BaseException) -> Response:
    """The answer of every archive route while the database does not answer (told once)."""
    db.failed(exc)
    return problem(503, "archive-down", "The archive does not answer; try again soon.")


def refused() -> Response:
    """The archive answered and refused the change (a key taken, a row gone meanwhile): the
    request's problem, not an outage (``archive_down``), so nothing is marked down."""
    return problem(409, "conflict", "That change clashes with another one made meanwhile.")


def _json(body: Any, status: int = 200) -> Response:
    return Response(msgspec.json.encode(body), status, media_type="application/json")


def session_of(request: HTTPConnection) -> str | None:
    token = request.cookies.get(COOKIE)
    return token if token and len(token) <= 128 else None


def set_cookie(request: Request, response: Response, token: str) -> None:
    response.set_cookie(
        COOKIE,
        token,
        max_age=players.SESSION_DAYS * 86_400,
        path="/",
        httponly=True,
        samesite="lax",
        secure=request.url.scheme == "https",
    )


def clear_cookie(request: Request, response: Response) -> None:
    response.delete_cookie(
        COOKIE, path="/", httponly=True, samesite="lax", secure=request.url.scheme == "https"
    )


def check_name(name: str | None) -> str | None:
    """Why ``name`` cannot be a player's name, or None."""
    if name is None:
        return None
    if not 1 <= len(name) <= 24:
        return "A name has 1 to 24 characters."
    return names.problem(name)


def routes(db: Database, identities: Identities, settings: Settings) -> list[Route]:
    origins = settings.allowed_origins

    async def over_quota(request: Request) -> Response | None:
        """A new player or challenge past this address's budget: its 429."""
        limit = settings.identities_per_minute
        return await quota.over(
            request,
            "identities",
            limit,
            f"At most {limit} new players and passkey ceremonies a minute from one address; "
            "play goes on meanwhile, try again in a minute.",
        )

    async def current(request: Request) -> players.Player | None:
        token = session_of(request)
        if token is None:
            return None
        return await players.by_session(db, token, now_ms())

    def no_player() -> Response:
        return problem(404, "no-player", "This browser has no player yet: POST /api/me.")

    async def me(request: Request) -> Response:
        if request.method != "GET" and httpguard.cross_site(request, origins):
            return problem(403, "cross-site", "Players are changed from nyumba's own pages.")
        try:
            return await _me(request)
        except IntegrityError:
            return refused()
        except DOWN as exc:
            return archive_down(db, exc)

    async def _me(request: Request) -> Response:
        player = await current(request)
        if request.method == "GET":
            if player is None:  # not an error: a page asks before it makes one
                return _json(Me(None, None, 0))
            return _json(await _shown(player.id))
        if request.method == "POST":
            if player is not None:
                return _json(await _shown(player.id))
            limited = await over_quota(request)
            if limited is not None:
                return limited
            player, token = await players.create(db, now_ms())
            identities.remember(token, player.id, used=False)  # its first seat marks it used
            response = _json(Me(player.id, None, 0), 201)
            set_cookie(request, response, token)
            return response
        if player is None:
            return no_player()
        if request.method == "PATCH":
            body = await httpguard.read_body(request, MAX_BODY)
            try:
                change = msgspec.json.decode(body, type=NameChange)
            except (msgspec.DecodeError, msgspec.ValidationError) as exc:
                return problem(400, "bad-message", f"The change is not valid: {exc}.")
            why = check_name(change.name)
            if why is not None:
                return problem(400, "bad-name", why)
            await players.rename(db, player.id, change.name)
            identities.renamed(session_of(request) or "", player.id, change.name)
            return _json(await _shown(player.id))
        # DELETE: the identity goes, its games stay anonymous; every node refuses its sessions
        await identities.revoke(await players.delete_player(db, player.id))
        response = Response(status_code=204)
        clear_cookie(request, response)
        return response

    async def _shown(player_id: str) -> Me:
        p = await players.get(db, player_id)
        assert p is not None
        return Me(p.id, p.name, p.passkeys)

    async def sign_out(request: Request) -> Response:
        if httpguard.cross_site(request, origins):
            return problem(403, "cross-site", "Sign out from nyumba's own pages.")
        token = session_of(request)
        try:
            if token:
                await players.sign_out(db, token)
                await identities.revoke([players.hash_session(token)])
        except DOWN as exc:  # the session stands: the browser is not told it has ended
            return archive_down(db, exc)
        response = Response(status_code=204)
        clear_cookie(request, response)
        return response

    rp_id = settings.relying_party
    expected = [settings.public_origin, *origins]  # where a browser's answer may come from

    async def ceremony(request: Request, handler: Any) -> Response:
        if httpguard.cross_site(request, origins):
            return problem(403, "cross-site", "Passkeys are used from nyumba's own pages.")
        host = (request.url.hostname or "").lower()
        if host != rp_id:  # behind a proxy: the Host it forwards (deploy/nginx.conf)
            return problem(
                400,
                "wrong-address",
                f"Passkeys work at {settings.public_origin}/ only, not at {host or 'this address'}"
                f": open nyumba there.",
            )
        try:
            return await handler(request)
        except IntegrityError:
            return refused()
        except DOWN as exc:
            return archive_down(db, exc)

    async def register_options(request: Request) -> Response:
        player = await current(request)
        if player is None:
            return no_player()
        limited = await over_quota(request)
        if limited is not None:
            return limited
        known = await players.passkeys_of(db, player.id)
        options = webauthn.generate_registration_options(
            rp_id=rp_id,
            rp_name=RP_NAME,
            user_id=player.id.encode(),
            user_name=player.name or f"player {player.id[:6]}",
            user_display_name=player.name or "",
            authenticator_selection=AuthenticatorSelectionCriteria(
                resident_key=ResidentKeyRequirement.REQUIRED,
                user_verification=UserVerificationRequirement.PREFERRED,
            ),
            exclude_credentials=[
                PublicKeyCredentialDescriptor(id=base64url_to_bytes(k.id)) for k in known
            ],
        )
        cid = await players.put_challenge(db, options.challenge, player.id, now_ms())
        return _options(cid, options)

    async def register(request: Request) -> Response:
        player = await current(request)
        if player is None:
            return no_player()
        answer = await _answer(request)
        if isinstance(answer, Response):
            return answer
        taken = await players.take_challenge(db, answer.challenge, now_ms())
        if taken is None or taken[1] != player.id:
            return problem(400, "bad-challenge", "That challenge is unknown, used or expired.")
        try:
            verified = webauthn.verify_registration_response(
                credential=answer.credential,
                expected_challenge=taken[0],
                expected_rp_id=rp_id,
                expected_origin=expected,
            )
        except (InvalidRegistrationResponse, ValueError, KeyError, TypeError) as exc:
            return problem(400, "bad-passkey", f"The passkey was not accepted: {exc}.")
        transports = answer.credential.get("response", {}).get("transports")
        key = players.Passkey(
            bytes_to_base64url(verified.credential_id),
            player.id,
            verified.credential_public_key,
            verified.sign_count,
            transports if isinstance(transports, list) else None,
            rp_id,
        )
        if not await players.add_passkey(db, key, now_ms()):
            return problem(409, "passkey-taken", "That passkey is already added to a player here.")
        return _json(await _shown(player.id), 201)

    async def signin_options(request: Request) -> Response:
        limited = await over_quota(request)
        if limited is not None:
            return limited
        options = webauthn.generate_authentication_options(
            rp_id=rp_id, user_verification=UserVerificationRequirement.PREFERRED
        )
        cid = await players.put_challenge(db, options.challenge, None, now_ms())
        return _options(cid, options)

    async def signin(request: Request) -> Response:
        answer = await _answer(request)
        if isinstance(answer, Response):
            return answer
        taken = await players.take_challenge(db, answer.challenge, now_ms())
        if taken is None or taken[1] is not None:
            return problem(400, "bad-challenge", "That challenge is unknown, used or expired.")
        raw_id = answer.credential.get("id")
        key = await players.passkey(db, raw_id) if isinstance(raw_id, str) else None
        if key is None:
            return problem(403, "unknown-passkey", "That passkey belongs to no player here.")
        if key.rp_id is not None and key.rp_id != rp_id:
            return problem(
                403,
                "other-relying-party",
                f"That passkey was made for {key.rp_id}, not for {rp_id}.",
            )
        try:
            verified = webauthn.verify_authentication_response(
                credential=answer.credential,
                expected_challenge=taken[0],
                expected_rp_id=rp_id,
                expected_origin=expected,
                credential_public_key=key.public_key,
                credential_current_sign_count=key.sign_count,
            )
        except (InvalidAuthenticationResponse, ValueError, KeyError, TypeError) as exc:
            return problem(403, "bad-passkey", f"The passkey was not accepted: {exc}.")
        if not await players.used_passkey(db, key, verified.new_sign_count, rp_id, now_ms()):
            return problem(
                403,
                "passkey-counter",
                "The passkey's signature counter did not move forward: another sign-in used "
                "it at the same moment, or it was copied.",
            )
        previous = session_of(request)
        if previous:  # this browser's earlier session (an anonymous player, say) ends here
            await players.sign_out(db, previous)
            await identities.revoke([players.hash_session(previous)])
        token = await players.open_session(db, key.player, now_ms())
        identities.remember(token, key.player)
        response = _json(await _shown(key.player))
        set_cookie(request, response, token)
        return response

    async def _answer(request: Request) -> Answer | Response:
        body = await httpguard.read_body(request, MAX_BODY)
        try:
            return msgspec.json.decode(body, type=Answer)
        except (msgspec.DecodeError, msgspec.ValidationError) as exc:
            return problem(400, "bad-message", f"The answer is not valid: {exc}.")

    def _options(cid: str, options: Any) -> Response:
        body = b'{"challenge":"%s","options":%s}' % (
            cid.encode(),
            webauthn.options_to_json(options).encode(),
        )
        return Response(body, media_type="application/json")

    def post(path: str, handler: Any) -> Route:
        async def endpoint(request: Request) -> Response:
            return await ceremony(request, handler)

        return Route(path, endpoint, methods=["POST"])

    return [
        Route("/api/me", me, methods=["GET", "POST", "PATCH", "DELETE"]),
        Route("/api/me/signout", sign_out, methods=["POST"]),
        post("/api/passkeys/register/options", register_options),
        post("/api/passkeys/register", register),
        post("/api/passkeys/signin/options", signin_options),
        post("/api/passkeys/signin", signin),
    ]
