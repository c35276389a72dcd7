"""Passkeys (WebAuthn) of accounts: register one while signed in, sign in with one later.

The ceremonies themselves (attestation, signature, origin and relying party checks) are
py_webauthn's; this module keeps their state in Redis and decides who a passkey stands for.

Sign-in asks for no user name: the passkeys are discoverable (``residentKey: required``), the
sign-in options name no credential, and the credential the browser answers with says whose
it is.  So every challenge is found by its own value, taken from the ``clientDataJSON`` the
browser signed, and taken once (``GETDEL``): a replayed response finds no challenge.

Keys (prefix ``acct:``; single-key commands only, as ``service.accounts``, so a Redis
Cluster holds them as it holds anything else):

- ``acct:passkey:<credential id>``  hash: player, public_key (COSE, base64url), sign_count,
  created_at, last_used_at (milliseconds; 0 until the first sign-in);
- ``acct:<player>:passkeys``        set: the player's credential ids (listing, exclusion,
  deletion);
- ``acct:challenge:<challenge>``    JSON ``{purpose: "register"|"signin", player?}`` for
  ``CHALLENGE_SECONDS``.

A passkey holds no secret of ours (only its public key), so nothing here is hashed.  Refusals:
``BadAction`` (400) for a body that is not a credential's JSON form, ``Unauthorized`` (401) for
one that does not verify; their messages never repeat what the client sent.
"""

from __future__ import annotations

import json
import logging
import time
from collections.abc import Mapping, Sequence
from typing import Any

import redis
from webauthn import (
    generate_authentication_options,
    generate_registration_options,
    options_to_json,
    verify_authentication_response,
    verify_registration_response,
)
from webauthn.helpers import (
    base64url_to_bytes,
    bytes_to_base64url,
    parse_authentication_credential_json,
    parse_client_data_json,
    parse_registration_credential_json,
)
from webauthn.helpers.exceptions import WebAuthnException
from webauthn.helpers.structs import (
    AuthenticatorSelectionCriteria,
    PublicKeyCredentialDescriptor,
    ResidentKeyRequirement,
    UserVerificationRequirement,
)

from domain.errors import BadAction
from service.errors import Unauthorized

log = logging.getLogger(__name__)

CHALLENGE_SECONDS = 5 * 60
REGISTER, SIGNIN = "register", "signin"

# Creates a passkey's hash only if the credential id is new: a credential id names one
# passkey of one player, and a second registration must not replace its key.
_CREATE = """
if redis.call('EXISTS', KEYS[1]) == 1 then return 0 end
redis.call('HSET', KEYS[1], unpack(ARGV))
return 1
"""

# Moves the sign count only from the count the signature was checked against: two sign-ins
# verified against the same count cannot both pass (one of them is a clone or a replay).
_USED = """
local count = redis.call('HGET', KEYS[1], 'sign_count')
if not count then return -1 end
if count ~= ARGV[1] then return 0 end
redis.call('HSET', KEYS[1], 'sign_count', ARGV[2], 'last_used_at', ARGV[3])
return 1
"""


def _passkey_key(credential_id: str) -> str:
    return f"acct:passkey:{credential_id}"


def _set_key(player: str) -> str:
    return f"acct:{player}:passkeys"


def _challenge_key(challenge: bytes) -> str:
    return f"acct:challenge:{bytes_to_base64url(challenge)}"


def _text(value: Any) -> str:
    return value.decode() if isinstance(value, bytes) else str(value)


def _stored(r: redis.Redis, credential_id: str) -> dict[str, str]:
    return {_text(k): _text(v) for k, v in r.hgetall(_passkey_key(credential_id)).items()}


def _ids(r: redis.Redis, player: str) -> list[str]:
    return sorted(_text(m) for m in r.smembers(_set_key(player)))


def _now_ms() -> int:
    return time.time_ns() // 1_000_000


def _malformed(what: str) -> BadAction:
    return BadAction(f"the body is not a {what}", {"credential": [what]})


def _refused(action: str, exc: Exception | None = None) -> Unauthorized:
    if exc is not None:  # the library's reason: fixed texts, origins and counts, no secrets
        log.info("passkey %s refused: %r", action, str(exc))
    return Unauthorized(f"the passkey {action} was not accepted; start again")


def _take_challenge(r: redis.Redis, client_data_json: bytes, what: str) -> tuple[bytes, dict]:
    """The challenge a response signed and what it was given out for, consumed now (the
    first response that names it takes it, verified or not: a challenge serves once)."""
    try:
        challenge = parse_client_data_json(client_data_json).challenge
    except (WebAuthnException, ValueError, TypeError) as exc:
        raise _malformed(what) from exc
    raw = r.getdel(_challenge_key(challenge))
    if raw is None:
        raise Unauthorized("the challenge is unknown, used or expired; ask for new options")
    return challenge, json.loads(raw)


def registration_options(
    r: redis.Redis, player: str, user_name: str, rp_id: str, rp_name: str
) -> dict[str, Any]:
    """``PublicKeyCredentialCreationOptionsJSON`` for a signed-in player; the challenge waits
    ``CHALLENGE_SECONDS`` for ``register`` by this player."""
    options = generate_registration_options(
        rp_id=rp_id,
        rp_name=rp_name,
        user_name=user_name,
        user_id=player.encode(),
        timeout=CHALLENGE_SECONDS * 1000,
        authenticator_selection=AuthenticatorSelectionCriteria(
            # sign-in names no credential, so a passkey the authenticator cannot find by
            # itself could never be used: better refused at registration
            resident_key=ResidentKeyRequirement.REQUIRED,
            user_verification=UserVerificationRequirement.PREFERRED,
        ),
        exclude_credentials=[
            PublicKeyCredentialDescriptor(id=base64url_to_bytes(c)) for c in _ids(r, player)
        ],
    )
    pending = json.dumps({"purpose": REGISTER, "player": player})
    r.set(_challenge_key(options.challenge), pending, ex=CHALLENGE_SECONDS)
    doc: dict[str, Any] = json.loads(options_to_json(options))
    return doc


def register(
    r: redis.Redis,
    player: str,
    credential: Mapping[str, Any],
    rp_id: str,
    origins: Sequence[str],
    now_ms: int,
) -> str:
    """Verify a ``RegistrationResponseJSON`` against this player's pending challenge and keep
    the passkey; its credential id (base64url)."""
    what = "RegistrationResponseJSON"
    if not isinstance(credential, Mapping):
        raise _malformed(what)
    try:
        parsed = parse_registration_credential_json(dict(credential))
    except (WebAuthnException, ValueError, TypeError) as exc:
        raise _malformed(what) from exc
    challenge, pending = _take_challenge(r, parsed.response.client_data_json, what)
    if pending.get("purpose") != REGISTER or pending.get("player") != player:
        raise _refused("registration")
    try:
        verified = verify_registration_response(
            credential=parsed,
            expected_challenge=challenge,
            expected_rp_id=rp_id,
            expected_origin=list(origins),
        )
    except WebAuthnException as exc:
        raise _refused("registration", exc) from exc
    credential_id = bytes_to_base64url(verified.credential_id)
    # listed first: a crash in between leaves an id without a passkey (skipped), never a
    # passkey that ``forget`` cannot find
    r.sadd(_set_key(player), credential_id)
    fields = {
        "player": player,
        "public_key": bytes_to_base64url(verified.credential_public_key),
        "sign_count": verified.sign_count,
        "created_at": now_ms,
        "last_used_at": 0,
    }
    flat = [str(x) for pair in fields.items() for x in pair]
    if not int(r.eval(_CREATE, 1, _passkey_key(credential_id), *flat)):
        r.srem(_set_key(player), credential_id)
        raise _refused("registration", ValueError("the credential id is already registered"))
    return credential_id


def authentication_options(r: redis.Redis, rp_id: str) -> dict[str, Any]:
    """``PublicKeyCredentialRequestOptionsJSON`` for a sign-in: no ``allowCredentials`` (the
    passkey is discoverable, so nobody says who they are before they prove it)."""
    options = generate_authentication_options(
        rp_id=rp_id,
        timeout=CHALLENGE_SECONDS * 1000,
        user_verification=UserVerificationRequirement.PREFERRED,
    )
    r.set(_challenge_key(options.challenge), json.dumps({"purpose": SIGNIN}), ex=CHALLENGE_SECONDS)
    doc: dict[str, Any] = json.loads(options_to_json(options))
    if not doc.get("allowCredentials"):
        doc.pop("allowCredentials", None)
    return doc


def authenticate(
    r: redis.Redis,
    credential: Mapping[str, Any],
    rp_id: str,
    origins: Sequence[str],
    now_ms: int | None = None,
) -> str:
    """Verify an ``AuthenticationResponseJSON`` against the sign-in challenge it signed and the
    passkey it names; the player the passkey belongs to."""
    what = "AuthenticationResponseJSON"
    if not isinstance(credential, Mapping):
        raise _malformed(what)
    try:
        parsed = parse_authentication_credential_json(dict(credential))
    except (WebAuthnException, ValueError, TypeError) as exc:
        raise _malformed(what) from exc
    challenge, pending = _take_challenge(r, parsed.response.client_data_json, what)
    if pending.get("purpose") != SIGNIN:
        raise _refused("sign-in")
    credential_id = bytes_to_base64url(parsed.raw_id)
    stored = _stored(r, credential_id)
    if not stored.get("player") or not stored.get("public_key"):
        raise _refused("sign-in")
    player = stored["player"]
    handle = parsed.response.user_handle
    if handle is not None and handle != player.encode():  # whose the authenticator says it is
        raise _refused("sign-in")
    count = int(stored.get("sign_count") or 0)
    try:
        verified = verify_authentication_response(
            credential=parsed,
            expected_challenge=challenge,
            expected_rp_id=rp_id,
            expected_origin=list(origins),
            credential_public_key=base64url_to_bytes(stored["public_key"]),
            credential_current_sign_count=count,
        )
    except WebAuthnException as exc:
        raise _refused("sign-in", exc) from exc
    at = _now_ms() if now_ms is None else now_ms
    moved = r.eval(
        _USED, 1, _passkey_key(credential_id), str(count), str(verified.new_sign_count), str(at)
    )
    if int(moved) != 1:  # forgotten, or used by another sign-in meanwhile
        raise _refused("sign-in", ValueError("the sign count moved during the sign-in"))
    return player


def passkeys_of(r: redis.Redis, player: str) -> list[dict[str, Any]]:
    """The player's passkeys, oldest first: ids and dates (milliseconds), never a key."""
    found = []
    for credential_id in _ids(r, player):
        stored = _stored(r, credential_id)
        if stored.get("player") != player:
            continue
        last = int(stored.get("last_used_at") or 0)
        found.append(
            {
                "id": credential_id,
                "created_at": int(stored.get("created_at") or 0),
                "last_used_at": last or None,
            }
        )
    found.sort(key=lambda p: (p["created_at"], p["id"]))
    return found


def forget(r: redis.Redis, player: str) -> None:
    """Delete every passkey of the player (account deletion): none of them signs in again."""
    for credential_id in _ids(r, player):
        # a listed id may be another player's (a registration that lost its race and
        # crashed before unlisting it): only the player's own passkeys go
        if _text(r.hget(_passkey_key(credential_id), "player") or b"") == player:
            r.delete(_passkey_key(credential_id))
    r.delete(_set_key(player))
