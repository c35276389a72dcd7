"""Large JSON answers come gzip-compressed to a client that accepts it (the OpenAPI document
the browser client reads on its first load, exports); small ones (a move, a view) and
streams come as they are."""

from __future__ import annotations

import gzip
import json

import requests

from tests.support.client import Client
from tests.support.play import new_game

GZIP = {"Accept-Encoding": "gzip"}


def raw(url: str, headers: dict[str, str]) -> requests.Response:
    """The answer with its body as sent (not decoded by requests)."""
    r = requests.get(url, headers=headers, stream=True, timeout=30)
    r.raw.decode_content = False
    r._content = r.raw.read()
    return r


def test_the_openapi_document_is_compressed_and_the_same(api: Client) -> None:
    url = api.base + "/api/v1/openapi.json"
    plain = raw(url, {"Accept-Encoding": "identity"})
    assert "Content-Encoding" not in plain.headers
    packed = raw(url, GZIP)
    assert packed.headers["Content-Encoding"] == "gzip"
    assert "Accept-Encoding" in packed.headers["Vary"]
    assert int(packed.headers["Content-Length"]) == len(packed.content)
    assert len(packed.content) * 4 < len(plain.content)
    assert json.loads(gzip.decompress(packed.content)) == json.loads(plain.content)
    again = raw(url, GZIP)  # compressed once, the same bytes
    assert again.content == packed.content


def test_small_answers_and_streams_are_sent_as_they_are(api: Client) -> None:
    gid, tokens = new_game(api, "artus", {"rules": "basic"}, 2)
    view = raw(
        f"{api.base}/api/v1/games/{gid}/view", {**GZIP, "Authorization": f"Bearer {tokens[0]}"}
    )
    assert view.status_code == 200 and "Content-Encoding" not in view.headers
    stream = requests.get(
        f"{api.base}/api/v1/games/{gid}/stream", headers=GZIP, stream=True, timeout=10
    )
    try:
        assert stream.status_code == 200 and "Content-Encoding" not in stream.headers
    finally:
        stream.close()
