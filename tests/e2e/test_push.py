"""Notices to people by Web Push (contract: v2 additions, Notices to people) through the served
API, a real worker and a real push service on loopback (``tests.support.push_receiver``) that
checks the VAPID JWT's signature and decrypts the payload with the browser's keys: a your-turn
notice arrives with the right title and link and nothing the seat may not see; an endpoint that
answers 410 is dropped; loopback endpoints are refused unless the operator allows them."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import redis
import requests
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec
from rq.job import Job
from rq.serializers import JSONSerializer

from service import push
from tests.e2e.test_notices import Table, bearer, hand_said, job_result, me, patch_me, sign_in
from tests.support.accounts import Stack, accounts_stack
from tests.support.push_receiver import PushService, push_service, unb64

API = "/api/v1"


@pytest.fixture(scope="module")
def receiver() -> Iterator[PushService]:
    with push_service() as service:
        yield service


@pytest.fixture(scope="module")
def stack(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Stack]:
    folder = tmp_path_factory.mktemp("push")
    with accounts_stack(folder, CHRONICLE_PUSH_ALLOW_PRIVATE="1") as found:
        yield found


def subscribe(stack: Stack, token: str, subscription: dict[str, Any]) -> requests.Response:
    return requests.post(
        stack.base + API + "/me/push",
        json={"subscription": subscription},
        headers=bearer(token),
        timeout=10,
    )


def listed(stack: Stack, token: str) -> list[dict[str, Any]]:
    r = requests.get(stack.base + API + "/me/push", headers=bearer(token), timeout=10)
    assert r.status_code == 200, r.text
    return list(r.json()["subscriptions"])


def push_result(stack: Stack, mark: str, sid: str) -> Any:
    """What a push delivery job answered, once it has run."""
    connection = redis.Redis.from_url(stack.redis_url)
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline:
        try:
            job = Job.fetch(f"push-{mark}-{sid}", connection=connection, serializer=JSONSerializer)
        except Exception:  # not enqueued yet
            job = None
        if job is not None and job.is_finished:
            return job.return_value()
        time.sleep(0.05)
    raise AssertionError("the push job did not run")


def test_the_key_is_a_p256_point_kept_across_asks(stack: Stack) -> None:
    first = requests.get(stack.base + API + "/push/key", timeout=10)
    assert first.status_code == 200, first.text
    key = first.json()["public_key"]
    point = unb64(key)
    assert len(point) == 65 and point[0] == 4 and "=" not in key
    ec.EllipticCurvePublicKey.from_encoded_point(ec.SECP256R1(), point)  # a point on the curve
    assert requests.get(stack.base + API + "/push/key", timeout=10).json()["public_key"] == key
    kept = redis.Redis.from_url(stack.redis_url, decode_responses=True).hget(
        push.VAPID_KEY, "public"
    )
    assert kept == key


def test_a_turn_is_pushed_encrypted_signed_and_shows_only_the_seats_own(
    stack: Stack, receiver: PushService
) -> None:
    ann = sign_in(stack, "ann-push@example.com", "Ann")
    token = ann["token"]
    key = requests.get(stack.base + API + "/push/key", timeout=10).json()["public_key"]
    subscription = receiver.subscription()
    made = subscribe(stack, token, subscription)
    assert made.status_code == 201, made.text
    sid = made.json()["id"]
    again = subscribe(stack, token, subscription)  # the same browser subscribing again
    assert again.status_code == 201 and again.json()["id"] == sid
    assert [(s["id"], s["host"]) for s in listed(stack, token)] == [(sid, "127.0.0.1")]
    assert "/push/" not in str(listed(stack, token)), "the endpoint's path is not shown"
    assert patch_me(stack, token, {"notifications": {"push": True}}).status_code == 200
    assert me(stack, token)["notifications"]["email"] is False  # push alone

    table = Table(stack, token, seed=11)
    marker = table.to_turn()
    assert marker is not None
    [got] = receiver.wait_for(subscription["endpoint"], 1)
    assert job_result(stack, table.id, 1, "your_turn", marker) == "sent"
    mark = f"acct-notice-{table.id}-1-your_turn-{marker}"
    assert push_result(stack, mark, sid) == "pushed"
    # RFC 8292: signed by the key the browser subscribed with, for this push service
    assert got.claims["k"] == key and got.claims["aud"] == receiver.origin
    assert got.claims["sub"].startswith("mailto:") or got.claims["sub"] == stack.public
    assert int(got.headers["ttl"]) > 0
    payload = got.payload
    assert set(payload) == {"title", "body", "url"}
    assert payload["title"] == "Your turn in Artus"
    assert payload["url"] == f"{stack.public}/play/{table.id}"
    assert f"version {marker}" in payload["body"] and "Bob" in payload["body"]
    mine, his = table.view(1)["state"]["hand"], table.view(0)["state"]["hand"]
    assert mine and hand_said(mine) in payload["body"]  # named as the page names them
    text = str(payload) + str(got.headers)
    assert his and not any(card in text for card in mine + his), "no card ids"
    assert hand_said(his) == hand_said(mine) or hand_said(his) not in text
    assert "ann-push@" not in text and "acct_" not in text
    assert not any(seat_token in text for seat_token in table.tokens.values())
    assert len(stack.inbox.to("ann-push@example.com")) == 1, "email is off: the sign-in only"
    # her turn goes on over several appends: still one push for it
    while 1 in table.view(0)["to_act"]:
        table.move(1)
    time.sleep(0.5)
    assert len(receiver.to(subscription["endpoint"])) == 1


def test_an_endpoint_that_answers_410_is_dropped(stack: Stack, receiver: PushService) -> None:
    cy = sign_in(stack, "cy-push@example.com", "Cy")
    token = cy["token"]
    kept, gone = receiver.subscription(), receiver.subscription()
    ids = {}
    for sub in (kept, gone):
        r = subscribe(stack, token, sub)
        assert r.status_code == 201, r.text
        ids[sub["endpoint"]] = r.json()["id"]
    receiver.answer(gone["endpoint"], 410)
    patch_me(stack, token, {"notifications": {"push": True}}).raise_for_status()
    table = Table(stack, token, seed=12)
    marker = table.to_turn()
    assert marker is not None
    receiver.wait_for(kept["endpoint"], 1)
    mark = f"acct-notice-{table.id}-1-your_turn-{marker}"
    assert push_result(stack, mark, ids[gone["endpoint"]]) == "gone"
    assert [s["id"] for s in listed(stack, token)] == [ids[kept["endpoint"]]]
    assert receiver.to(gone["endpoint"]) == []
    # and one may stop a device by hand
    r = requests.delete(
        f"{stack.base}{API}/me/push/{ids[kept['endpoint']]}", headers=bearer(token), timeout=10
    )
    assert r.status_code == 204
    assert listed(stack, token) == []
    again = requests.delete(
        f"{stack.base}{API}/me/push/{ids[kept['endpoint']]}", headers=bearer(token), timeout=10
    )
    assert again.status_code == 404


def test_subscriptions_are_checked(stack: Stack, receiver: PushService) -> None:
    dee = sign_in(stack, "dee-push@example.com", "Dee")
    token = dee["token"]
    good = receiver.subscription()
    bad_key = {**good, "keys": {**good["keys"], "p256dh": good["keys"]["auth"]}}
    for bad in (
        {"endpoint": good["endpoint"]},
        {**good, "endpoint": "ftp://127.0.0.1/push/x"},
        bad_key,
        {**good, "keys": {**good["keys"], "auth": "AAAA"}},
    ):
        r = subscribe(stack, token, bad)
        assert r.status_code == 400, (bad, r.text)
    assert listed(stack, token) == []
    anonymous = requests.post(
        stack.base + API + "/me/push", json={"subscription": good}, timeout=10
    )
    assert anonymous.status_code == 401


def test_loopback_and_plain_http_endpoints_are_refused_without_the_operators_leave(
    tmp_path: Path, receiver: PushService
) -> None:
    with accounts_stack(tmp_path) as strict:
        eve = sign_in(strict, "eve-push@example.com", "Eve")
        sub = receiver.subscription()
        r = subscribe(strict, eve["token"], sub)  # http on 127.0.0.1
        assert r.status_code == 400 and r.json()["error"]["code"] == "bad_request"
        loopback = {**sub, "endpoint": sub["endpoint"].replace("http://", "https://")}
        r = subscribe(strict, eve["token"], loopback)
        assert r.status_code == 400, r.text
        assert "private" in r.text and "127.0.0.1" not in r.text
        assert listed(strict, eve["token"]) == []


def test_the_receiver_refuses_what_a_push_service_would(
    stack: Stack, receiver: PushService
) -> None:
    """The receiver's checks are real: a request signed by another key, for another
    audience, or encrypted for another browser is refused."""
    sub, other = receiver.subscription(), receiver.subscription()
    notice = {"title": "t", "body": "b", "url": "/play/x"}
    r = redis.Redis.from_url(stack.redis_url)
    body, headers = push.request(r, sub, notice)
    lower = {k.lower(): v for k, v in headers.items()}
    sid, other_sid = sub["endpoint"].rsplit("/", 1)[1], other["endpoint"].rsplit("/", 1)[1]
    assert receiver.take(sid, lower, body) == 201  # as sent: taken
    before = len(receiver.refused)
    stranger = ec.generate_private_key(ec.SECP256R1())
    forged = lower["authorization"].replace(
        lower["authorization"].split("k=", 1)[1],
        push.b64(
            stranger.public_key().public_bytes(
                serialization.Encoding.X962, serialization.PublicFormat.UncompressedPoint
            )
        ),
    )
    assert receiver.take(sid, {**lower, "authorization": forged}, body) == 400
    assert receiver.take(other_sid, lower, body) == 400  # encrypted for another browser
    elsewhere = {**sub, "endpoint": "http://127.0.0.2:1/push/" + sid}
    _, for_elsewhere = push.request(r, elsewhere, notice)
    moved = {**lower, "authorization": for_elsewhere["Authorization"]}
    assert receiver.take(sid, moved, body) == 400  # aud is another origin
    assert receiver.take(sid, {**lower, "content-encoding": "aesgcm"}, body) == 400
    assert len(receiver.refused) == before + 4, receiver.refused
