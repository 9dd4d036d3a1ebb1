"""A software passkey for the server's tests (imported by name: ``from passkeykit import
Authenticator, Browser``): what a browser and its authenticator send in the WebAuthn ceremonies,
made here so that a test can keep an assertion and send it as often, and to as many nodes at
once, as it likes (Chromium's virtual authenticator, tests/client/test_passkeys.py, signs each
answer once and sends it once).

``Authenticator`` holds one ES256 key pair (P-256, as most platform authenticators) and answers
``navigator.credentials.create`` with "none" attestation and ``.get`` with a signed assertion,
for the relying party and origin it is given. ``counting=False`` makes one that always says 0,
as many synced passkeys do. ``Browser`` is a player's browser on one server: its cookie, the
``Host`` it names (``localhost:PORT`` by default, the address the README tells a newcomer to
open), and the ceremonies' two steps each."""

from __future__ import annotations

import base64
import hashlib
import json
import secrets
import struct
from typing import Any

import cbor2
import httpx
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric import ec

UP, UV, AT = 0x01, 0x04, 0x40  # authenticator data flags: user present, verified, key attached


def b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def unb64(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


class Authenticator:
    def __init__(self, counting: bool = True, credential_id: bytes | None = None) -> None:
        self.key = ec.generate_private_key(ec.SECP256R1())
        self.credential_id = credential_id or secrets.token_bytes(16)
        self.counting = counting
        self.count = 0
        self.user_handle = b""

    def _cose_key(self) -> bytes:
        numbers = self.key.public_key().public_numbers()
        x, y = numbers.x.to_bytes(32, "big"), numbers.y.to_bytes(32, "big")
        return cbor2.dumps({1: 2, 3: -7, -1: 1, -2: x, -3: y})  # EC2, ES256, P-256

    def _auth_data(self, rp_id: str, flags: int, extra: bytes = b"") -> bytes:
        if self.counting:
            self.count += 1
        rp_hash = hashlib.sha256(rp_id.encode()).digest()
        return rp_hash + bytes([flags]) + struct.pack(">I", self.count) + extra

    @staticmethod
    def _client_data(kind: str, challenge: str, origin: str) -> bytes:
        return json.dumps(
            {"type": kind, "challenge": challenge, "origin": origin, "crossOrigin": False}
        ).encode()

    def create(self, options: dict[str, Any], origin: str) -> dict[str, Any]:
        """The credential (as JSON) for ``navigator.credentials.create`` with ``options``."""
        self.user_handle = unb64(options["user"]["id"])
        cid = self.credential_id
        attested = bytes(16) + struct.pack(">H", len(cid)) + cid + self._cose_key()
        auth_data = self._auth_data(options["rp"]["id"], UP | UV | AT, attested)
        attestation = cbor2.dumps({"fmt": "none", "attStmt": {}, "authData": auth_data})
        client_data = self._client_data("webauthn.create", options["challenge"], origin)
        return {
            "id": b64(cid),
            "rawId": b64(cid),
            "type": "public-key",
            "response": {
                "clientDataJSON": b64(client_data),
                "attestationObject": b64(attestation),
                "transports": ["internal"],
            },
            "clientExtensionResults": {},
        }

    def get(self, options: dict[str, Any], origin: str) -> dict[str, Any]:
        """The assertion (as JSON) for ``navigator.credentials.get`` with ``options``."""
        auth_data = self._auth_data(options["rpId"], UP | UV)
        client_data = self._client_data("webauthn.get", options["challenge"], origin)
        signed = auth_data + hashlib.sha256(client_data).digest()
        signature = self.key.sign(signed, ec.ECDSA(hashes.SHA256()))
        return {
            "id": b64(self.credential_id),
            "rawId": b64(self.credential_id),
            "type": "public-key",
            "response": {
                "clientDataJSON": b64(client_data),
                "authenticatorData": b64(auth_data),
                "signature": b64(signature),
                "userHandle": b64(self.user_handle),
            },
            "clientExtensionResults": {},
        }


class Browser:
    """A browser on the server at ``base`` (http://127.0.0.1:PORT), its pages opened at
    ``http://{host}`` (``localhost:PORT`` unless told): every request names that ``Host``."""

    def __init__(self, base: str, host: str | None = None) -> None:
        self.base = base
        self.host = host or "localhost:" + base.rsplit(":", 1)[1]
        self.origin = f"http://{self.host}"
        self.cookies: dict[str, str] = {}

    def post(self, path: str, body: Any = None) -> httpx.Response:
        r = httpx.post(
            self.base + path,
            json={} if body is None else body,
            headers={"host": self.host},
            cookies=self.cookies,
            timeout=10,
        )
        if "nyumba_player" in r.cookies:
            self.cookies = {"nyumba_player": r.cookies["nyumba_player"]}
        return r

    def be_someone(self) -> str:
        r = self.post("/api/me")
        assert r.status_code in (200, 201), r.text
        return r.json()["player"]

    def add_passkey(self, authenticator: Authenticator) -> httpx.Response:
        r = self.post("/api/passkeys/register/options")
        assert r.status_code == 200, r.text
        asked = r.json()
        credential = authenticator.create(asked["options"], self.origin)
        return self.post(
            "/api/passkeys/register", {"challenge": asked["challenge"], "credential": credential}
        )

    def assertion(self, authenticator: Authenticator) -> dict[str, Any]:
        """A sign-in's answer, signed and not yet sent: ``{challenge, credential}``."""
        r = self.post("/api/passkeys/signin/options")
        assert r.status_code == 200, r.text
        asked = r.json()
        return {
            "challenge": asked["challenge"],
            "credential": authenticator.get(asked["options"], self.origin),
        }
