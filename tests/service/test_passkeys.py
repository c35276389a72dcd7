"""Passkeys (``service.passkeys``) on a real Redis, driven by a software authenticator that
answers the options JSON the service hands out, as a browser would post it."""

from __future__ import annotations

import json
import secrets
from dataclasses import replace
from typing import Any

import pytest
import redis

from domain.errors import BadAction
from service import passkeys
from service.errors import Unauthorized
from tests.support.authenticator import Authenticator, ExcludedCredential, b64url, unb64url

RP_ID = "localhost"
ORIGIN = "http://localhost:8000"
ORIGINS = [ORIGIN, "http://127.0.0.1:8000"]
NOW = 1_700_000_000_000


@pytest.fixture
def player() -> str:
    return "p" + secrets.token_hex(6)


def enrol(r: redis.Redis, player: str, device: Authenticator, now: int = NOW) -> str:
    options = passkeys.registration_options(r, player, f"{player}-name", RP_ID, "Chronicle")
    return passkeys.register(r, player, device.register(options, ORIGIN), RP_ID, ORIGINS, now)


def assertion(r: redis.Redis, device: Authenticator, **how: Any) -> dict[str, Any]:
    return device.sign_in(passkeys.authentication_options(r, RP_ID), ORIGIN, **how)


def test_a_registered_passkey_signs_its_player_in(redis_client: redis.Redis, player: str) -> None:
    device = Authenticator()
    options = passkeys.registration_options(redis_client, player, "Ada", RP_ID, "Chronicle")
    assert options["rp"] == {"id": RP_ID, "name": "Chronicle"}
    assert unb64url(options["user"]["id"]) == player.encode()
    assert options["user"]["name"] == "Ada"
    assert options["authenticatorSelection"]["residentKey"] == "required"
    assert options["authenticatorSelection"]["userVerification"] == "preferred"
    assert options["excludeCredentials"] == []
    assert 0 < redis_client.ttl(f"acct:challenge:{options['challenge']}") <= 300

    response = device.register(options, ORIGIN)
    credential_id = passkeys.register(redis_client, player, response, RP_ID, ORIGINS, NOW)
    assert credential_id == response["id"]
    assert passkeys.passkeys_of(redis_client, player) == [
        {"id": credential_id, "created_at": NOW, "last_used_at": None}
    ]

    sign_in = passkeys.authentication_options(redis_client, RP_ID)
    assert "allowCredentials" not in sign_in
    assert sign_in["rpId"] == RP_ID and sign_in["userVerification"] == "preferred"
    answer = device.sign_in(sign_in, ORIGIN)
    assert passkeys.authenticate(redis_client, answer, RP_ID, ORIGINS, now_ms=NOW + 5) == player
    assert passkeys.passkeys_of(redis_client, player)[0]["last_used_at"] == NOW + 5
    # and again, with a new challenge and a count that moved on
    assert passkeys.authenticate(redis_client, assertion(redis_client, device), RP_ID, ORIGINS)
    assert redis_client.hget(f"acct:passkey:{credential_id}", "sign_count") == b"2"


def test_a_replayed_response_finds_its_challenge_used(
    redis_client: redis.Redis, player: str
) -> None:
    device = Authenticator()
    options = passkeys.registration_options(redis_client, player, "Ada", RP_ID, "Chronicle")
    response = device.register(options, ORIGIN)
    passkeys.register(redis_client, player, response, RP_ID, ORIGINS, NOW)
    with pytest.raises(Unauthorized):
        passkeys.register(redis_client, player, response, RP_ID, ORIGINS, NOW)

    assert not redis_client.exists(f"acct:challenge:{options['challenge']}")

    # a passkey that keeps no count (0 each time): only the used challenge stops the replay
    answer = assertion(redis_client, device, sign_count=0)
    assert passkeys.authenticate(redis_client, answer, RP_ID, ORIGINS) == player
    with pytest.raises(Unauthorized):
        passkeys.authenticate(redis_client, answer, RP_ID, ORIGINS)


def test_a_challenge_serves_one_player_and_one_purpose(
    redis_client: redis.Redis, player: str
) -> None:
    other = player + "x"
    device = Authenticator()
    theirs = passkeys.registration_options(redis_client, other, "Bob", RP_ID, "Chronicle")
    with pytest.raises(Unauthorized):
        passkeys.register(
            redis_client, player, device.register(theirs, ORIGIN), RP_ID, ORIGINS, NOW
        )
    assert passkeys.passkeys_of(redis_client, player) == []
    assert passkeys.passkeys_of(redis_client, other) == []

    # a sign-in challenge does not register, a registration challenge does not sign in
    signin = passkeys.authentication_options(redis_client, RP_ID)
    forged = device.register({**theirs, "challenge": signin["challenge"]}, ORIGIN)
    with pytest.raises(Unauthorized):
        passkeys.register(redis_client, other, forged, RP_ID, ORIGINS, NOW)
    enrol(redis_client, player, device)
    mine = passkeys.registration_options(redis_client, player, "Ada", RP_ID, "Chronicle")
    answer = device.sign_in({"rpId": RP_ID, "challenge": mine["challenge"]}, ORIGIN)
    with pytest.raises(Unauthorized):
        passkeys.authenticate(redis_client, answer, RP_ID, ORIGINS)


@pytest.mark.parametrize(
    ("origin", "rp_id"), [("https://evil.example", None), (ORIGIN, "evil.example")]
)
def test_another_site_is_refused(
    redis_client: redis.Redis, player: str, origin: str, rp_id: str | None
) -> None:
    device = Authenticator()
    options = passkeys.registration_options(redis_client, player, "Ada", RP_ID, "Chronicle")
    phished = device.register(options, origin, rp_id=rp_id)
    with pytest.raises(Unauthorized):
        passkeys.register(redis_client, player, phished, RP_ID, ORIGINS, NOW)
    assert passkeys.passkeys_of(redis_client, player) == []

    device = Authenticator()
    enrol(redis_client, player, device)
    sign_in = passkeys.authentication_options(redis_client, RP_ID)
    if rp_id is not None:  # the passkey of the real site, asked for by another relying party
        device.passkeys[0].rp_id = rp_id
    with pytest.raises(Unauthorized):
        passkeys.authenticate(
            redis_client, device.sign_in(sign_in, origin, rp_id=rp_id), RP_ID, ORIGINS
        )


def test_a_tampered_assertion_is_refused(redis_client: redis.Redis, player: str) -> None:
    device = Authenticator()
    enrol(redis_client, player, device)
    answer = assertion(redis_client, device)
    signature = bytearray(unb64url(answer["response"]["signature"]))
    signature[-1] ^= 0x01  # the last byte of s: still DER, no longer the signature
    answer["response"]["signature"] = b64url(bytes(signature))
    with pytest.raises(Unauthorized):
        passkeys.authenticate(redis_client, answer, RP_ID, ORIGINS)

    answer = assertion(redis_client, device)
    auth_data = bytearray(unb64url(answer["response"]["authenticatorData"]))
    auth_data[-1] += 1  # a higher count than the one signed
    answer["response"]["authenticatorData"] = b64url(bytes(auth_data))
    with pytest.raises(Unauthorized):
        passkeys.authenticate(redis_client, answer, RP_ID, ORIGINS)

    answer = assertion(redis_client, device)
    answer["response"]["userHandle"] = b64url(b"someone-else")
    with pytest.raises(Unauthorized):
        passkeys.authenticate(redis_client, answer, RP_ID, ORIGINS)
    # the untouched answer still works
    assert passkeys.authenticate(redis_client, assertion(redis_client, device), RP_ID, ORIGINS)


def test_a_credential_id_already_registered_keeps_its_passkey(
    redis_client: redis.Redis, player: str
) -> None:
    device = Authenticator()
    credential_id = enrol(redis_client, player, device)
    impostor = Authenticator()
    theirs = passkeys.registration_options(redis_client, player + "x", "Bob", RP_ID, "Chronicle")
    claim = impostor.register(theirs, ORIGIN, credential_id=unb64url(credential_id))
    with pytest.raises(Unauthorized):
        passkeys.register(redis_client, player + "x", claim, RP_ID, ORIGINS, NOW)
    assert passkeys.passkeys_of(redis_client, player + "x") == []
    assert not redis_client.sismember(f"acct:{player}x:passkeys", credential_id)
    with pytest.raises(Unauthorized):  # the impostor's key does not sign for the passkey
        passkeys.authenticate(redis_client, assertion(redis_client, impostor), RP_ID, ORIGINS)
    answer = assertion(redis_client, device)
    assert passkeys.authenticate(redis_client, answer, RP_ID, ORIGINS) == player


def test_an_unknown_passkey_is_refused(redis_client: redis.Redis, player: str) -> None:
    device = Authenticator()  # made a passkey whose registration never reached the service
    device.register(
        passkeys.registration_options(redis_client, player, "Ada", RP_ID, "Chronicle"), ORIGIN
    )
    with pytest.raises(Unauthorized):
        passkeys.authenticate(redis_client, assertion(redis_client, device), RP_ID, ORIGINS)


def test_a_sign_count_that_does_not_grow_is_refused(redis_client: redis.Redis, player: str) -> None:
    device = Authenticator()
    credential_id = enrol(redis_client, player, device)
    answer = assertion(redis_client, device, sign_count=5)
    assert passkeys.authenticate(redis_client, answer, RP_ID, ORIGINS) == player
    for count in (3, 5):  # a clone behind, or level with, the original
        with pytest.raises(Unauthorized):
            passkeys.authenticate(
                redis_client, assertion(redis_client, device, sign_count=count), RP_ID, ORIGINS
            )
    assert redis_client.hget(f"acct:passkey:{credential_id}", "sign_count") == b"5"
    answer = assertion(redis_client, device, sign_count=6)
    assert passkeys.authenticate(redis_client, answer, RP_ID, ORIGINS) == player


def test_of_two_sign_ins_checked_against_one_count_only_the_first_to_store_passes(
    redis_client: redis.Redis, player: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    original, clone = Authenticator(), Authenticator()
    enrol(redis_client, player, original)
    clone.passkeys = [replace(original.passkeys[0])]  # the same key, its own count
    theirs = assertion(redis_client, clone)  # count 1, as the original's next one
    verify = passkeys.verify_authentication_response
    inner: list[str] = []
    calls: list[int] = []

    def interleaved(**kwargs: Any) -> Any:
        verified = verify(**kwargs)
        calls.append(1)
        if len(calls) == 1:  # the clone's sign-in runs, whole, between this check and its store
            inner.append(passkeys.authenticate(redis_client, theirs, RP_ID, ORIGINS))
        return verified

    monkeypatch.setattr(passkeys, "verify_authentication_response", interleaved)
    with pytest.raises(Unauthorized):
        passkeys.authenticate(redis_client, assertion(redis_client, original), RP_ID, ORIGINS)
    assert inner == [player]


def test_a_passkey_that_keeps_no_count_signs_in_again(
    redis_client: redis.Redis, player: str
) -> None:
    device = Authenticator()
    enrol(redis_client, player, device)
    for _ in range(2):
        answer = assertion(redis_client, device, sign_count=0)
        assert passkeys.authenticate(redis_client, answer, RP_ID, ORIGINS) == player


def test_the_exclusion_list_names_the_players_passkeys(
    redis_client: redis.Redis, player: str
) -> None:
    device, other_device = Authenticator(), Authenticator()
    first = enrol(redis_client, player, device)
    second = enrol(redis_client, player, other_device, now=NOW + 1)
    options = passkeys.registration_options(redis_client, player, "Ada", RP_ID, "Chronicle")
    assert sorted(options["excludeCredentials"], key=lambda c: c["id"]) == sorted(
        [{"id": first, "type": "public-key"}, {"id": second, "type": "public-key"}],
        key=lambda c: c["id"],
    )
    with pytest.raises(ExcludedCredential):  # one passkey per authenticator and account
        device.register(options, ORIGIN)
    assert [p["id"] for p in passkeys.passkeys_of(redis_client, player)] == [first, second]
    theirs = passkeys.registration_options(redis_client, player + "x", "Bob", RP_ID, "Chronicle")
    assert theirs["excludeCredentials"] == []


def test_forget_removes_every_passkey_of_the_player(redis_client: redis.Redis, player: str) -> None:
    device, others = Authenticator(), Authenticator()
    credential_id = enrol(redis_client, player, device)
    enrol(redis_client, player, Authenticator())
    enrol(redis_client, player + "x", others)
    passkeys.forget(redis_client, player)
    assert passkeys.passkeys_of(redis_client, player) == []
    assert not redis_client.exists(f"acct:passkey:{credential_id}", f"acct:{player}:passkeys")
    with pytest.raises(Unauthorized):
        passkeys.authenticate(redis_client, assertion(redis_client, device), RP_ID, ORIGINS)
    answer = assertion(redis_client, others)
    assert passkeys.authenticate(redis_client, answer, RP_ID, ORIGINS) == player + "x"


def test_forget_leaves_another_players_passkey_listed_by_mistake(
    redis_client: redis.Redis, player: str
) -> None:
    """A registration that lost the race for a credential id and stopped before unlisting it
    leaves that id in the wrong set: deleting the account must not delete its owner's."""
    theirs = Authenticator()
    credential_id = enrol(redis_client, player + "x", theirs)
    redis_client.sadd(f"acct:{player}:passkeys", credential_id)
    assert passkeys.passkeys_of(redis_client, player) == []
    passkeys.forget(redis_client, player)
    answer = assertion(redis_client, theirs)
    assert passkeys.authenticate(redis_client, answer, RP_ID, ORIGINS) == player + "x"


@pytest.mark.parametrize(
    "body",
    [
        {},
        {"id": "x", "rawId": "x", "type": "public-key"},
        {"id": "x", "rawId": "x", "type": "other", "response": {}},
        {"id": "x", "rawId": "x", "type": "public-key", "response": {"clientDataJSON": "bm90"}},
        [],
    ],
)
def test_a_body_that_is_no_credential_is_a_bad_request(
    redis_client: redis.Redis, player: str, body: Any
) -> None:
    with pytest.raises(BadAction) as refused:
        passkeys.authenticate(redis_client, body, RP_ID, ORIGINS)
    assert refused.value.details == {"credential": ["AuthenticationResponseJSON"]}
    with pytest.raises(BadAction):
        passkeys.register(redis_client, player, body, RP_ID, ORIGINS, NOW)


def test_client_data_that_is_not_json_is_a_bad_request(
    redis_client: redis.Redis, player: str
) -> None:
    device = Authenticator()
    options = passkeys.registration_options(redis_client, player, "Ada", RP_ID, "Chronicle")
    response = device.register(options, ORIGIN)
    response["response"]["clientDataJSON"] = b64url(b"not json")
    with pytest.raises(BadAction):
        passkeys.register(redis_client, player, response, RP_ID, ORIGINS, NOW)
    # the challenge is still there for the real answer
    assert redis_client.exists(f"acct:challenge:{options['challenge']}")
    assert json.loads(redis_client.get(f"acct:challenge:{options['challenge']}") or "{}") == {
        "purpose": "register",
        "player": player,
    }
