"""Turn notifications by webhook, through HTTP with the real worker: a receiver on loopback
gets every change its seat can see, signed, exactly as the seat itself may see it; killed and
restarted, it still gets every notice (retries with backoff), each once by delivery id."""

from __future__ import annotations

import hashlib
import hmac
import json
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from service.redis_server import free_port
from tests.conftest import ADMIN_TOKEN
from tests.support.client import Client


class Receiver:
    """A webhook receiver on a fixed loopback port that can be stopped and started again."""

    def __init__(self, port: int) -> None:
        self.port = port
        self.got: list[tuple[dict[str, str], bytes]] = []
        self.server: ThreadingHTTPServer | None = None

    def start(self) -> None:
        got = self.got

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                body = self.rfile.read(int(self.headers["Content-Length"]))
                got.append((dict(self.headers), body))
                self.send_response(204)
                self.end_headers()

            def log_message(self, *args: Any) -> None:
                return None

        self.server = ThreadingHTTPServer(("127.0.0.1", self.port), Handler)
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def stop(self) -> None:
        assert self.server is not None
        self.server.shutdown()
        self.server.server_close()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/hook"


def valid(secret: str, headers: dict[str, str], body: bytes) -> bool:
    parts = dict(p.split("=", 1) for p in headers["Chronicle-Signature"].split(","))
    mac = hmac.new(secret.encode(), parts["t"].encode() + b"." + body, hashlib.sha256)
    fresh = abs(time.time() - int(parts["t"])) < 300
    return fresh and hmac.compare_digest(mac.hexdigest(), parts["v1"])


def play_turns(api: Client, gid: str, token: str, turns: int) -> None:
    """Seat 0 plays its first legal action ``turns`` times (the bot plays in between)."""
    played = 0
    deadline = time.monotonic() + 60
    while played < turns and time.monotonic() < deadline:
        s = api.summary(gid)
        if s["status"] != "active":
            return
        if 0 not in s["to_act"]:
            time.sleep(0.05)
            continue
        listed = api.actions(gid, token)
        r = api.act(gid, token, listed["actions"][0], listed["version"])
        played += r.status_code == 201


def test_a_receiver_gets_every_notice_signed_redacted_and_once_by_id(api: Client, worker) -> None:
    receiver = Receiver(free_port())
    receiver.start()
    created = api.create("artus", [{"name": "Ann"}, {"open": True}], options={"rules": "basic"})
    gid, host = created["id"], created["host_token"]
    token = created["seats"][0]["token"]
    # refused: a spectator, a non-URL
    r = api.http.put(f"{api.base}/api/v1/games/{gid}/webhook", json={"url": receiver.url})
    assert r.status_code == 403
    r = api.http.put(
        f"{api.base}/api/v1/games/{gid}/webhook", json={"url": "ftp://x.example/"},
        headers={"Authorization": f"Bearer {token}"},
    )  # fmt: skip
    assert r.status_code == 400
    r = api.http.put(
        f"{api.base}/api/v1/games/{gid}/webhook", json={"url": receiver.url},
        headers={"Authorization": f"Bearer {token}"},
    )  # fmt: skip
    assert r.status_code == 200, r.text
    secret = r.json()["secret"]
    registered_at = api.summary(gid)["version"]

    assert api.post(f"/api/v1/games/{gid}/start", {"fill": "greedy"}, host).status_code == 200
    play_turns(api, gid, token, 4)
    r = api.post(f"/api/v1/games/{gid}/chat", {"text": "hello", "name": "Zed"})  # a spectator
    assert r.status_code == 201, r.text
    line_id = r.json()["id"]

    receiver.stop()  # the receiver goes away; its notices are retried
    down_from = api.summary(gid)["version"]
    play_turns(api, gid, token, 3)
    time.sleep(2)
    down_to = api.summary(gid)["version"]
    receiver.start()
    play_turns(api, gid, token, 1)
    final_version = api.summary(gid)["version"]

    # every batch after the registration is a change seat 0 can see
    audit = api.get(f"/api/v1/games/{gid}/audit", ADMIN_TOKEN).json()["events"]
    starts = [e["version"] for e in audit if e["command"] is not None] + [final_version + 1]
    batches = {b - 1 for b in starts[1:] if registered_at < b - 1 <= final_version}
    expected = len(batches) + 1  # and the chat line

    by_id: dict[str, dict[str, Any]] = {}
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        for headers, body in list(receiver.got):
            assert valid(secret, headers, body), "every notice is signed with the seat's secret"
            doc = json.loads(body)
            assert headers["Chronicle-Delivery"] == doc["delivery"]
            if doc["delivery"] in by_id:
                assert by_id[doc["delivery"]] == doc, "a repeat is the same notice"
            by_id[doc["delivery"]] = doc
        notices = [d for d in by_id.values() if d["version"] <= final_version]
        if len(notices) >= expected:
            break
        time.sleep(0.2)
    notices = [d for d in by_id.values() if d["version"] <= final_version]
    chats = [d for d in notices if "chat" in d]
    changes = [d for d in notices if "chat" not in d]
    assert len(chats) == 1 and chats[0]["chat"][0]["id"] == line_id
    assert chats[0]["chat"][0]["text"] == "hello" and chats[0]["events"] == []
    assert sorted(d["version"] for d in changes) == sorted(batches), "every change, once by id"
    missed = [d for d in changes if down_from < d["version"] <= down_to]
    assert missed, "changes made while the receiver was down arrived later: retried"

    # each notice is exactly the seat's own view of the change
    previous = sorted([registered_at, *batches])
    for d in changes:
        assert d["game"] == gid and d["seat"] == 0 and d["status"] == "active"
        after = max(v for v in previous if v < d["version"])
        seen = api.get(
            f"/api/v1/games/{gid}/events", token, after=after, limit=d["version"] - after
        ).json()["events"]
        assert d["events"] == seen
        assert d["to_act"] == api.view(gid, token, version=d["version"])["to_act"]
    assert api.post(f"/api/v1/games/{gid}/abandon", {}, host).status_code == 200
    r = api.http.delete(
        f"{api.base}/api/v1/games/{gid}/webhook", headers={"Authorization": f"Bearer {token}"}
    )
    assert r.status_code == 200
    receiver.stop()


def test_private_targets_are_refused_unless_allowed(inprocess_api: Client, monkeypatch) -> None:
    api = inprocess_api  # the app in this process reads the setting monkeypatched below
    created = api.create("artus", [{"name": "Ann"}, {"name": "Bob"}])
    gid, token = created["id"], created["seats"][0]["token"]
    monkeypatch.setenv("CHRONICLE_WEBHOOK_ALLOW_PRIVATE", "0")
    urls = (
        "http://127.0.0.1:9/x",
        "http://10.1.2.3/x",
        "http://[::1]/x",
        "http://169.254.169.254/",
    )
    for url in urls:
        r = api.http.put(
            f"{api.base}/api/v1/games/{gid}/webhook", json={"url": url},
            headers={"Authorization": f"Bearer {token}"},
        )  # fmt: skip
        assert r.status_code == 400, (url, r.text)
