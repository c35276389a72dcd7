"""What costs a request nothing is checked before what costs it something (issue 33).

- An import's caller and its quota are checked before its body is read, and the 16 MB import
  limit is raised only for a caller allowed to import: anyone else gets 401 (or 429) without
  a byte of the body being read.
- The JSON depth scan keeps a window's worth of memory whatever the body, and agrees with a
  plain state machine on every body it is given.
- The documents the service builds (the OpenAPI document, the Swagger UI page, the catalog,
  the docs pages and Swagger UI's files) are built once and answered from memory with a
  strong ETag; ``If-None-Match`` gets 304.
- No path but the health checks is exempt from the per-address limit: over it, the OpenAPI
  document is 429 like any other path, on the real server stack.
"""

from __future__ import annotations

import gzip
import json
import random
import socket
import tracemalloc
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
import requests
from apispec import APISpec
from flask.testing import FlaskClient
from werkzeug.test import TestResponse

from service.app import MAX_IMPORT_BODY, create_app
from service.http import limits
from service.redis_server import RedisServer
from tests.conftest import ADMIN_TOKEN, settings
from tests.reliability.served import served
from tests.reliability.test_hostile_input import json_of
from tests.support.raw_http import read_answer

IMPORT = "/api/v1/games/import"
JSON = {"Content-Type": "application/json"}


@pytest.fixture(scope="module")
def url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    server = RedisServer(tmp_path_factory.mktemp("cost-order"), persistent=False)
    yield server.start()
    server.stop()


class Untouchable:
    """A request body ``length`` bytes long (as the test client measures it: by seeking) that
    records any read of it (and gives nothing)."""

    def __init__(self, length: int) -> None:
        self.length, self.pos, self.reads = length, 0, 0

    def tell(self) -> int:
        return self.pos

    def seek(self, offset: int, whence: int = 0) -> int:
        self.pos = self.length + offset if whence == 2 else offset
        return self.pos

    def read(self, *args: Any) -> bytes:
        self.reads += 1
        return b""

    readline = read

    def readlines(self, *args: Any) -> list[bytes]:
        self.reads += 1
        return []

    def __iter__(self) -> Iterator[bytes]:
        self.reads += 1
        return iter(())


def big_import(
    c: FlaskClient, token: str | None, length: int = 16 * 1024 * 1024
) -> tuple[TestResponse, int]:
    """POST an import that says it is ``length`` bytes long; (answer, reads of its body)."""
    body = Untouchable(length)
    headers = {**JSON, **({"Authorization": f"Bearer {token}"} if token else {})}
    r = c.post(IMPORT, input_stream=body, headers=headers)
    return r, body.reads


def error(r: TestResponse, status: int, code: str) -> None:
    assert r.status_code == status, (r.status_code, r.get_data(as_text=True)[:300])
    doc = json_of(r)
    assert set(doc) == {"error"} and set(doc["error"]) == {"code", "message", "details"}
    assert doc["error"]["code"] == code


def test_an_import_is_refused_before_its_body_is_read_unless_its_caller_may_import(
    url: str,
) -> None:
    c = create_app(settings(url)).test_client()
    for token in (None, "made-up"):
        r, reads = big_import(c, token)
        error(r, 401, "unauthorized")
        assert reads == 0, "the body of a caller who may not import was read"
    # with Content-Length at the import limit, a caller who may not import is still 401,
    # and one who may is refused over the limit without a read, as before
    r, reads = big_import(c, None, MAX_IMPORT_BODY + 1)
    error(r, 401, "unauthorized")
    assert reads == 0
    r, reads = big_import(c, ADMIN_TOKEN, MAX_IMPORT_BODY + 1)
    error(r, 413, "payload_too_large")
    assert reads == 0
    # the admin's body is read, and refused on its merits
    r = c.post(
        IMPORT, data=b'{"id": "x"}', headers={**JSON, "Authorization": f"Bearer {ADMIN_TOKEN}"}
    )
    error(r, 400, "bad_request")
    # the operator opened imports: anyone may send the import's larger body
    opened = create_app(replace(settings(url), open_import=True)).test_client()
    r = opened.post(IMPORT, data=json.dumps({"id": "x" * 100_000}).encode(), headers=JSON)
    error(r, 400, "bad_request")
    # any other path keeps the small limit, the admin's token or not: 413 unread
    body = Untouchable(100_000)
    r = c.post(
        "/api/v1/games",
        input_stream=body,
        headers={**JSON, "Authorization": f"Bearer {ADMIN_TOKEN}"},
    )
    error(r, 413, "payload_too_large")
    assert body.reads == 0


def test_the_import_quota_counts_before_the_body_is_read_or_scanned(
    url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Fifteen too-deep imports without a token were fifteen 400s (the body scanned first)
    and never a 429: the quota comes first, then who is calling, then the body."""
    monkeypatch.setenv("CHRONICLE_IMPORT_QUOTA", "3/minute")
    c = create_app(settings(url)).test_client()
    c.environ_base["REMOTE_ADDR"] = "192.0.2.33"
    deep = b'{"events": ' + b"[" * 100_000 + b"]" * 100_000 + b"}"
    answers = [c.post(IMPORT, data=deep, headers=JSON) for _ in range(5)]
    assert [r.status_code for r in answers] == [401, 401, 401, 429, 429]
    error(answers[0], 401, "unauthorized")
    error(answers[-1], 429, "rate_limited")
    r, reads = big_import(c, None)
    error(r, 429, "rate_limited")
    assert reads == 0


# ---- the JSON depth scan ---------------------------------------------------------------------


def reference_depth(body: bytes) -> int:
    """A plain state machine over every byte: the depth of brackets outside strings."""
    depth = deepest = 0
    in_string = escaped = False
    for byte in body:
        ch = chr(byte)
        if in_string:
            if escaped:
                escaped = False
            elif ch == "\\":
                escaped = True
            elif ch == '"':
                in_string = False
        elif ch == '"':
            in_string = True
        elif ch in "[{":
            depth += 1
            deepest = max(deepest, depth)
        elif ch in "]}":
            depth -= 1
    return deepest


def random_json_like(rng: random.Random) -> bytes:
    """Brackets, commas and letters outside strings; strings holding brackets, escaped
    quotes and backslashes, ``\\u`` escapes; now and then a string never closed."""
    inner = [b"a", b"[", b"]", b"{", b"}", b'\\"', b"\\\\", b"\\u0041", b",", b"\\["]
    out = []
    for _ in range(rng.randint(0, 40)):
        if rng.random() < 0.25:
            out.append(b'"' + b"".join(rng.choices(inner, k=rng.randint(0, 6))) + b'"')
        else:
            out.append(rng.choice([b"[", b"]", b"{", b"}", b"a", b",", b" "]))
    if rng.random() < 0.1:
        out.append(b'"[[[')
    return b"".join(out)


@pytest.mark.parametrize("window", [5, 7, 64, 1 << 16])
def test_the_depth_scan_agrees_with_a_state_machine(
    window: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(limits, "_WINDOW", window, raising=False)  # windows cut strings
    rng = random.Random(window)
    for _ in range(3000):
        body = random_json_like(rng)
        assert limits.json_depth(body) == reference_depth(body), body
        over = limits.json_depth(body, 2)
        assert (over > 2) == (reference_depth(body) > 2), body


@pytest.mark.parametrize(
    "body",
    [
        b"[" * (2 << 20),  # 2 MB of [: the old scan made a list of two million brackets
        b'"' + b"[" * (2 << 20),  # a string never closed: the old one backtracked over it
        b'"' + b"\\\\" * (1 << 20) + b'"',  # a million escapes in one string
        b"[" + b'"[",[],' * (1 << 18) + b"]",  # brackets in and out of strings, no end to them
    ],
    ids=["brackets", "unclosed-string", "escapes", "mixed"],
)
def test_the_depth_scan_keeps_a_windows_worth_of_memory(body: bytes) -> None:
    tracemalloc.start()
    try:
        limits.json_depth(body)  # the whole scan: no stop at the limit
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < 1024 * 1024, f"{peak} bytes for a body of {len(body)}"


# ---- documents built once ----------------------------------------------------------------------


def test_the_documents_are_built_once_with_an_etag_and_a_304(
    url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    built = []
    to_dict = APISpec.to_dict

    def counted(self: APISpec) -> dict[str, Any]:
        built.append(1)
        return to_dict(self)

    monkeypatch.setattr(APISpec, "to_dict", counted)
    c = create_app(settings(url)).test_client()
    first = c.get("/api/v1/openapi.json")
    assert first.status_code == 200 and json_of(first)["openapi"] == "3.0.3"
    tag = first.headers["ETag"]
    assert tag.startswith('"') and not tag.startswith("W/")  # strong
    assert "no-cache" in first.headers["Cache-Control"]
    for _ in range(3):
        again = c.get("/api/v1/openapi.json")
        assert again.get_data() == first.get_data() and again.headers["ETag"] == tag
    assert len(built) == 1, "the OpenAPI document was built again"
    unchanged = c.get("/api/v1/openapi.json", headers={"If-None-Match": tag})
    assert unchanged.status_code == 304 and unchanged.get_data() == b""
    assert unchanged.headers["ETag"] == tag
    assert c.get("/api/v1/openapi.json", headers={"If-None-Match": '"other"'}).status_code == 200
    # the gzip form: built once too, a tag of its own, and either tag is current
    packed = c.get("/api/v1/openapi.json", headers={"Accept-Encoding": "gzip"})
    assert packed.headers["Content-Encoding"] == "gzip" and packed.headers["ETag"] != tag
    assert "Accept-Encoding" in packed.headers["Vary"]
    assert json.loads(gzip.decompress(packed.get_data())) == first.json
    for known in (tag, packed.headers["ETag"], "*"):
        r = c.get(
            "/api/v1/openapi.json", headers={"If-None-Match": known, "Accept-Encoding": "gzip"}
        )
        assert r.status_code == 304 and r.headers["ETag"] == packed.headers["ETag"]
    assert len(built) == 1

    # the catalog, the Swagger UI page, a docs page and a Swagger UI file: the same way
    for path in (
        "/api/v1/catalog",
        "/api/v1/docs",
        "/api/v1/docs/contract",
        "/api/v1/docs/contract.md",
        "/api/v1/docs/assets/swagger-ui.css",
    ):
        r = c.get(path)
        assert r.status_code == 200 and r.headers.get("ETag"), path
        same = c.get(path, headers={"If-None-Match": r.headers["ETag"]})
        assert same.status_code == 304 and same.get_data() == b"", path
    catalog = json_of(c.get("/api/v1/catalog"))
    assert {g["id"] for g in catalog["games"]} >= {"artus"}


# ---- no path but the health checks is exempt, on the real server stack --------------------------


def test_on_the_served_stack_an_unread_import_is_refused_and_the_documents_are_limited(
    tmp_path: Path,
) -> None:
    with served(tmp_path, CHRONICLE_RATE_LIMIT_ADDRESS="6/minute") as serve:
        # the head of a 16 MB import and ten bytes of it: answered now, not after the body
        # (the server would wait up to its body timeout, 60 s, for the rest)
        with socket.create_connection(("127.0.0.1", serve.port), timeout=10) as s:
            s.sendall(
                b"POST /api/v1/games/import HTTP/1.1\r\nHost: x\r\n"
                b"Content-Type: application/json\r\nContent-Length: 16777216\r\n\r\n"
                b'{"events":'
            )
            status, _, body, _ = read_answer(s)
        assert status == 401, body
        assert json.loads(body)["error"]["code"] == "unauthorized"
        base = serve.base
        statuses = [
            requests.get(f"{base}/api/v1/openapi.json", timeout=10).status_code for _ in range(6)
        ]
        assert statuses == [200] * 5 + [429], statuses  # the import counted as the first
        r = requests.get(f"{base}/api/v1/openapi.json", timeout=10)
        assert r.status_code == 429 and r.json()["error"]["code"] == "rate_limited"
        assert int(r.headers["Retry-After"]) > 0
        for path in ("/healthz", "/readyz"):
            assert requests.get(f"{base}{path}", timeout=10).status_code == 200, path
