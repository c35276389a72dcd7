"""A software passkey authenticator and the browser around it, at the level of the API: it
reads the options JSON the service answered and answers what ``navigator.credentials`` would
post back (``RegistrationResponseJSON``, ``AuthenticationResponseJSON``).

Each passkey is an ES256 (P-256) key made by ``cryptography``; registration attests "none" with
packed authenticator data (flags UP|UV|AT, attested credential data with the COSE key, CBOR by
``cbor2``), sign-in signs ``authData || sha256(clientDataJSON)``.  Passkeys are discoverable:
sign-in options without ``allowCredentials`` are answered with the newest passkey of the relying
party.  Arguments a real authenticator would never take (another relying party id, a chosen
credential id or sign count) let tests play a phishing site, a cloned key or a replay.
"""

from __future__ import annotations

import base64
import hashlib
import json
import secrets
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import cbor2
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec

UP, UV, AT = 0x01, 0x04, 0x40
ES256 = -7
AAGUID = bytes(16)  # what authenticators that attest "none" announce


def b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).decode().rstrip("=")


def unb64url(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


@dataclass
class Passkey:
    id: bytes
    key: ec.EllipticCurvePrivateKey
    rp_id: str
    user_handle: bytes
    sign_count: int = 0

    def cose_key(self) -> bytes:
        numbers = self.key.public_key().public_numbers()
        return cbor2.dumps(
            {
                1: 2,  # kty: EC2
                3: ES256,  # alg
                -1: 1,  # crv: P-256
                -2: numbers.x.to_bytes(32, "big"),
                -3: numbers.y.to_bytes(32, "big"),
            }
        )


def client_data(kind: str, challenge: str, origin: str) -> bytes:
    doc = {"type": kind, "challenge": challenge, "origin": origin, "crossOrigin": False}
    return json.dumps(doc, separators=(",", ":")).encode()


class ExcludedCredential(Exception):
    """The options exclude a passkey this authenticator holds (the browser's
    ``InvalidStateError``): one authenticator keeps one passkey per account."""


class Authenticator:
    def __init__(self) -> None:
        self.passkeys: list[Passkey] = []

    def register(
        self,
        options: Mapping[str, Any],
        origin: str,
        rp_id: str | None = None,
        credential_id: bytes | None = None,
    ) -> dict[str, Any]:
        """A new passkey for ``PublicKeyCredentialCreationOptionsJSON``; ``rp_id`` other than the
        options' is a page of another site asking for it, ``credential_id`` one already taken
        is a device that claims another's passkey."""
        rp = rp_id or options["rp"]["id"]
        excluded = {c["id"] for c in options.get("excludeCredentials") or []}
        if any(b64url(p.id) in excluded and p.rp_id == rp for p in self.passkeys):
            raise ExcludedCredential("this authenticator already holds a passkey of the account")
        passkey = Passkey(
            id=credential_id or secrets.token_bytes(32),
            key=ec.generate_private_key(ec.SECP256R1()),
            rp_id=rp,
            user_handle=unb64url(options["user"]["id"]),
        )
        self.passkeys.append(passkey)
        auth_data = (
            hashlib.sha256(rp.encode()).digest()
            + bytes([UP | UV | AT])
            + passkey.sign_count.to_bytes(4, "big")
            + AAGUID
            + len(passkey.id).to_bytes(2, "big")
            + passkey.id
            + passkey.cose_key()
        )
        attestation = cbor2.dumps({"fmt": "none", "attStmt": {}, "authData": auth_data})
        public_key = passkey.key.public_key().public_bytes(
            serialization.Encoding.DER, serialization.PublicFormat.SubjectPublicKeyInfo
        )
        return {
            "id": b64url(passkey.id),
            "rawId": b64url(passkey.id),
            "type": "public-key",
            "authenticatorAttachment": "platform",
            "clientExtensionResults": {},
            "response": {
                "clientDataJSON": b64url(
                    client_data("webauthn.create", options["challenge"], origin)
                ),
                "attestationObject": b64url(attestation),
                "authenticatorData": b64url(auth_data),
                "publicKey": b64url(public_key),
                "publicKeyAlgorithm": ES256,
                "transports": ["internal"],
            },
        }

    def find(self, options: Mapping[str, Any], rp_id: str) -> Passkey:
        """The passkey a sign-in uses: the newest of the relying party's, among the allowed
        ones if the options name any."""
        allowed = {c["id"] for c in options.get("allowCredentials") or []}
        for passkey in reversed(self.passkeys):
            if passkey.rp_id == rp_id and (not allowed or b64url(passkey.id) in allowed):
                return passkey
        raise LookupError("no passkey for this relying party")

    def sign_in(
        self,
        options: Mapping[str, Any],
        origin: str,
        rp_id: str | None = None,
        sign_count: int | None = None,
    ) -> dict[str, Any]:
        """An assertion for ``PublicKeyCredentialRequestOptionsJSON``; the passkey's count moves
        on by one unless ``sign_count`` says what to send (0: an authenticator that keeps no
        count, as synced passkeys do)."""
        rp = rp_id or options["rpId"]
        passkey = self.find(options, rp)
        passkey.sign_count = passkey.sign_count + 1 if sign_count is None else sign_count
        auth_data = (
            hashlib.sha256(rp.encode()).digest()
            + bytes([UP | UV])
            + passkey.sign_count.to_bytes(4, "big")
        )
        data = client_data("webauthn.get", options["challenge"], origin)
        signature = passkey.key.sign(
            auth_data + hashlib.sha256(data).digest(), ec.ECDSA(hashes.SHA256())
        )
        return {
            "id": b64url(passkey.id),
            "rawId": b64url(passkey.id),
            "type": "public-key",
            "authenticatorAttachment": "platform",
            "clientExtensionResults": {},
            "response": {
                "clientDataJSON": b64url(data),
                "authenticatorData": b64url(auth_data),
                "signature": b64url(signature),
                "userHandle": b64url(passkey.user_handle),
            },
        }
