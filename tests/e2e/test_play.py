"""Every game, every variant and player count, played to the end through HTTP; replay of every
version equals what was served live; export and import give the same game."""

from __future__ import annotations

import random

import pytest

from chronicle_client.types import View
from tests.conftest import ADMIN_TOKEN
from tests.support.client import Client
from tests.support.play import new_game, play_random, variant_id, variants

VARIANTS = list(variants())


@pytest.mark.parametrize("variant", VARIANTS, ids=[variant_id(v) for v in VARIANTS])
def test_random_play_to_the_end_with_replay_and_export(api: Client, worker, variant) -> None:
    game, options, n = variant
    gid, tokens = new_game(api, game, options, n)
    viewers: list[str | None] = [None, *tokens.values()]
    live: dict[tuple[int, str | None], View] = {}

    def record(_: int) -> None:
        for token in viewers:
            view = api.view(gid, token)
            live[(view["version"], token)] = view

    play_random(api, gid, tokens, random.Random(variant_id(variant)), on_version=record)
    final = api.wait_status(gid, "finished")
    assert final["result"]["winners"], "a finished game names its winners"
    assert set(final["result"]["scores"]) == {str(s) for s in range(n)}
    record(final["version"])

    # Replay: the view at every version equals the view that was served live then.  Each
    # version is replayed for one viewer in turn, and every viewer at the first and the last
    # version: every version and every viewer is covered, and each viewer at every
    # (n + 1)-th version.  (A replay folds the log from its start; replaying every pair was
    # two thirds of this test's time, about 12 s for Lancaster with 5 players.)
    served_at: dict[int, dict[str | None, View]] = {}
    for (version, token), served in live.items():
        served_at.setdefault(version, {})[token] = served
    for i, (version, views) in enumerate(sorted(served_at.items())):
        seen = list(views)  # the viewers served at this version (the worker may score between)
        for token in seen if i in (0, len(served_at) - 1) else [seen[i % len(seen)]]:
            assert api.view(gid, token, version=version) == views[token], (version, token)

    # Finished: everything is revealed to everyone, and the export replays to the same game.
    exported = api.get(f"/api/v1/games/{gid}/export", tokens[0])
    assert exported.status_code == 200, exported.text
    doc = exported.json()
    assert doc["seed"] and doc["events"][-1]["type"] == "GameFinished"
    imported = api.post("/api/v1/games/import", doc, ADMIN_TOKEN)
    assert imported.status_code == 201, imported.text
    new_id = imported.json()["id"]
    assert api.view(new_id)["state"] == api.view(gid)["state"]
    assert api.summary(new_id)["result"] == final["result"]
