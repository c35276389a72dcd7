"""A game against a bot with the client: the example of the package docstring, run by the tests.

``python -m chronicle_client.example http://127.0.0.1:8000`` plays one (a worker must run: the
bot's turns are jobs).
"""

from __future__ import annotations

import random
import sys

from chronicle_client.client import Client
from chronicle_client.types import Result


def play_against_bot(
    base_url: str, game: str = "artus", bot: str = "greedy", seed: int = 0
) -> tuple[str, Result]:
    """Ann (seat 0) plays random legal actions against a bot until the end; returns the game's
    id and its result."""
    rng = random.Random(seed)
    api = Client(base_url)
    created = api.create(game, [{"name": "Ann"}, {"name": "Bot", "bot": bot}])
    gid = created["id"]
    ann = api.as_token(created["seats"][0]["token"])
    while True:
        summary = ann.summary(gid)
        if summary["status"] == "finished":
            return gid, summary["result"]
        if 0 in summary["to_act"]:
            listed = ann.actions(gid)
            ann.act(gid, rng.choice(listed["actions"]), listed["version"])
        else:  # the bot (or the scoring) is next: wait for its event
            ann.events(gid, after=summary["version"], wait=5)


if __name__ == "__main__":  # pragma: no cover
    gid, result = play_against_bot(sys.argv[1] if len(sys.argv) > 1 else "http://127.0.0.1:8000")
    print(gid, result["scores"], "winners:", result["winners"])
