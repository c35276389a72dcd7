"""A small typed Python client of Chronicle's HTTP API (``docs/contract.md``).

It talks HTTP only (``requests``) and imports nothing of the server.  A game against a bot::

    from chronicle_client import Client

    api = Client("http://127.0.0.1:8000")
    game = api.create("artus", [{"name": "Ann"}, {"name": "Bot", "bot": "greedy"}])
    ann = api.as_token(game["seats"][0]["token"])
    while (summary := ann.summary(game["id"]))["status"] != "finished":
        if 0 in summary["to_act"]:
            listed = ann.actions(game["id"])
            ann.act(game["id"], listed["actions"][0], listed["version"])
        else:  # wait for the bot's move (long-poll)
            ann.events(game["id"], after=summary["version"], wait=5)
    print(summary["result"])

    for event in api.stream(game_id):  # a spectator's events as they come, to the end
        print(event["version"], event["type"])

``chronicle_client.example.play_against_bot`` is that game, tested against a live server.
"""

from chronicle_client.client import Client
from chronicle_client.errors import (
    ApiError,
    IllegalAction,
    RateLimited,
    Unavailable,
    VersionConflict,
)

__all__ = ["ApiError", "Client", "IllegalAction", "RateLimited", "Unavailable", "VersionConflict"]
