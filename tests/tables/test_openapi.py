"""The OpenAPI document describes the resources of the v1 additions (generated from the same
marshmallow schemas that check the requests)."""

from __future__ import annotations

from tests.support.client import Client


def test_the_openapi_document_has_the_table_webhook_and_chat_resources(api: Client) -> None:
    doc = api.get("/api/v1/openapi.json").json()
    ops = {
        (path.removeprefix("/api/v1"), method): op["operationId"]
        for path, item in doc["paths"].items()
        for method, op in item.items()
        if isinstance(op, dict) and "operationId" in op
    }
    for path, method, op in [
        ("/games/{game_id}/join", "post", "join"),
        ("/games/{game_id}/leave", "post", "leave"),
        ("/games/{game_id}/start", "post", "start"),
        ("/games/{game_id}/resign", "post", "resign"),
        ("/games/{game_id}/abandon", "post", "abandon"),
        ("/games/{game_id}/webhook", "put", "setWebhook"),
        ("/games/{game_id}/webhook", "delete", "deleteWebhook"),
        ("/games/{game_id}/chat", "post", "say"),
        ("/games/{game_id}/chat", "get", "readChat"),
        ("/games/{game_id}/chat/{line_id}/hide", "post", "hideLine"),
    ]:
        assert ops.get((path, method)) == op, (path, method)
    schemas = doc["components"]["schemas"]
    for variant in schemas["CreateGame"]["oneOf"]:  # one per game
        create = schemas[variant["$ref"].rsplit("/", 1)[1]]["properties"]
        assert {"public", "turn_time", "resign_bot", "timeouts_before_takeover"} <= set(create)
    assert {v["$ref"].rsplit("/", 1)[1] for v in schemas["PlayerIn"]["oneOf"]} == {
        "NamedSeat",
        "OpenSeat",
    }
    assert schemas["OpenSeat"]["properties"]["open"]["enum"] == [True]
    assert schemas["NamedSeat"]["required"] == ["name"]
    assert "invitations" in schemas["Created"]["properties"]
    assert "deadlines" in schemas["Summary"]["properties"]
    assert "deadlines" in schemas["View"]["properties"]
    assert "waiting" in schemas["Summary"]["properties"]["status"]["enum"]
    assert {"name", "invitation"} <= set(schemas["JoinIn"]["properties"])
