"""Numbers are numbers: every game's scores are integers (its rules count points, money or
victory points in whole units), and every endpoint that shows a result shows the same integers
(the summary and the view are dumped through a schema, the events, the audit and the export
are not; a float field in the schema once made 31 into 31.0 in the first two only)."""

from __future__ import annotations

import subprocess

import pytest

from domain.games import GAMES
from tests.conftest import ADMIN_TOKEN
from tests.support.client import Client


def integral(scores: dict[str, object]) -> bool:
    return all(isinstance(v, int) and not isinstance(v, bool) for v in scores.values())


@pytest.mark.parametrize("game", sorted(GAMES))
def test_scores_are_the_same_integers_everywhere(
    api: Client, worker: subprocess.Popen[bytes], game: str
) -> None:
    rules = GAMES[game]
    bots = [{"name": f"b{i}", "bot": "random"} for i in range(rules.min_players)]
    gid = api.create(game, bots)["id"]
    summary = api.wait_status(gid, "finished", timeout=180)
    listed = api.get(  # a table of bots, unlisted: the admin lists it
        "/api/v1/games", ADMIN_TOKEN, game=game, status="finished", per_page=100
    ).json()
    seen = {
        "summary": summary["result"],
        "view": api.view(gid)["result"],
        "list": next(g["result"] for g in listed["games"] if g["id"] == gid),
        "event": api.get(f"/api/v1/games/{gid}/events", after=summary["version"] - 1).json()[
            "events"
        ][-1]["data"],
        "export": api.get(f"/api/v1/games/{gid}/export").json()["events"][-1]["data"],
    }
    for where, result in seen.items():
        assert integral(result["scores"]), (where, result["scores"])
        assert result["scores"] == summary["result"]["scores"], where
    # and in the text itself: "31", never "31.0"
    compact = api.get(f"/api/v1/games/{gid}").text.replace(" ", "")
    for seat, score in summary["result"]["scores"].items():
        assert f'"{seat}":{score}' in compact and f'"{seat}":{score}.0' not in compact
