"""Ratings through the served API (contract: v2 additions, Ratings): who may create a rated
table, who may join one, and a rated game of a signed-in person against a bot played to the
end, after which the worker's scoring job has updated the leaderboard and the profile, and
``chronicle ratings`` over the game's export prints the same numbers."""

from __future__ import annotations

import json
import random
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import requests

from tests.conftest import ROOT
from tests.e2e.test_accounts import sign_in
from tests.support.accounts import Stack, accounts_stack

API = "/api/v1"
BOT = "bot:greedy"


@pytest.fixture(scope="module")
def stack(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Stack]:
    with accounts_stack(tmp_path_factory.mktemp("ratings")) as found:
        yield found


def bearer(token: str | None) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"} if token else {}


def post_game(stack: Stack, token: str | None, body: dict[str, Any]) -> requests.Response:
    return requests.post(stack.base + API + "/games", json=body, headers=bearer(token), timeout=10)


def rated(players: list[dict[str, Any]], **extra: Any) -> dict[str, Any]:
    return {
        "game": "artus",
        "players": players,
        "options": {"rules": "basic"},
        "rated": True,
        **extra,
    }


def problems(r: requests.Response) -> dict[str, Any]:
    assert r.status_code == 400, r.text
    return dict(r.json()["error"]["details"])


def test_a_rated_table_needs_a_signed_in_host_bots_or_open_seats_and_no_host_undo(
    stack: Stack,
) -> None:
    ann = sign_in(stack, "ann@example.com", "Ann")["token"]
    vs_bot = [{"name": "Ann"}, {"name": "g", "bot": "greedy"}]
    assert "rated" in problems(post_game(stack, None, rated(vs_bot)))  # a guest
    two = [{"name": "Ann"}, {"name": "Bob"}]
    assert "players" in problems(post_game(stack, ann, rated(two)))  # a second person's seat
    host_undo = rated(vs_bot, options={"rules": "basic", "undo": "host"})
    assert "options.undo" in problems(post_game(stack, ann, host_undo))
    assert "seed" in problems(post_game(stack, ann, rated(vs_bot, seed="known")))
    no_undo = rated(vs_bot, options={"rules": "basic", "undo": "none"})
    assert post_game(stack, ann, no_undo).status_code == 201
    unrated = post_game(stack, None, {**rated(two), "rated": False})
    assert unrated.status_code == 201, unrated.text


def test_the_open_seats_of_a_rated_table_are_taken_signed_in_once(stack: Stack) -> None:
    host = sign_in(stack, "host@example.com", "Host")["token"]
    r = post_game(stack, host, rated([{"name": "Host"}, {"open": True}], public=True))
    assert r.status_code == 201, r.text
    gid = r.json()["id"]
    created = requests.get(stack.base + f"{API}/games/{gid}/events", timeout=10).json()["events"][0]
    assert created["data"]["table"]["rated"] is True  # in the log: an export carries it
    join = stack.base + f"{API}/games/{gid}/join"
    guest = requests.post(join, json={"name": "Guest"}, timeout=10)
    assert guest.status_code == 403
    assert guest.json()["error"]["details"]["reason"] == "rated_needs_account"
    again = requests.post(join, json={"name": "Host"}, headers=bearer(host), timeout=10)
    assert again.status_code == 403
    assert again.json()["error"]["details"]["reason"] == "rated_one_seat"
    cal = sign_in(stack, "cal@example.com", "Cal")["token"]
    joined = requests.post(join, json={"name": "Cal"}, headers=bearer(cal), timeout=10)
    assert joined.status_code == 201, joined.text


def play_to_the_end(stack: Stack, gid: str, token: str, seat: int, seed: int) -> None:
    """Random legal moves for the person's seat; the worker plays the bot's."""
    rng = random.Random(seed)
    game = stack.base + f"{API}/games/{gid}"
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        summary = requests.get(game, timeout=10).json()
        if summary["status"] == "finished":
            return
        if seat not in summary.get("to_act", []):
            time.sleep(0.05)
            continue
        listed = requests.get(game + "/actions", headers=bearer(token), timeout=10).json()
        if not listed["actions"]:
            continue
        body = {"action": rng.choice(listed["actions"]), "expected_version": listed["version"]}
        r = requests.post(game + "/actions", json=body, headers=bearer(token), timeout=10)
        assert r.status_code in (201, 409), r.text  # 409: the bot moved first
    raise AssertionError("the game did not end")


def leaderboard(stack: Stack, counted: int) -> list[dict[str, Any]]:
    """The leaderboard once the worker counted ``counted`` games (it counts after the
    result's append, so the summary says finished a moment before)."""
    deadline = time.monotonic() + 30
    while True:
        r = requests.get(stack.base + f"{API}/ratings/artus", timeout=10)
        assert r.status_code == 200, r.text
        rows = list(r.json()["ratings"])
        if any(row["player"] == BOT and row["games"] == counted for row in rows):
            return rows
        assert time.monotonic() < deadline, rows
        time.sleep(0.2)


def test_a_rated_game_updates_the_leaderboard_and_the_profile_as_its_export_recomputes(
    stack: Stack, tmp_path: Path
) -> None:
    signed = sign_in(stack, "dee@example.com", "Dee")
    me, token = signed["player"]["id"], signed["token"]
    files, gids = [], []
    for n in (1, 2):
        created = post_game(stack, token, rated([{"name": "Dee"}, {"name": "g", "bot": "greedy"}]))
        assert created.status_code == 201, created.text
        gid = created.json()["id"]
        gids.append(gid)
        play_to_the_end(stack, gid, created.json()["seats"][0]["token"], 0, seed=n)
        rows = leaderboard(stack, n)
        export = requests.get(stack.base + f"{API}/games/{gid}/export", timeout=10)
        assert export.status_code == 200, export.text
        files.append(tmp_path / f"{gid}.json")
        files[-1].write_text(export.text)
    by_player = {row["player"]: row for row in rows}
    dee, bot = by_player[me], by_player[BOT]
    assert dee["name"] == "Dee" and bot["name"] == "Greedy (bot)"
    assert dee["games"] == 2 and dee["provisional"] is True
    assert dee["sigma"] < 25 / 3 and dee["mu"] != 25  # two games moved it
    ordinals = [row["ordinal"] for row in rows]
    assert ordinals == sorted(ordinals, reverse=True)
    limited = requests.get(stack.base + f"{API}/ratings/artus?limit=1", timeout=10).json()
    assert limited["ratings"] == rows[:1]
    assert requests.get(stack.base + f"{API}/ratings/chess", timeout=10).status_code == 404
    profile = requests.get(stack.base + f"{API}/players/{me}", timeout=10).json()
    assert profile["ratings"] == {
        "artus": {k: dee[k] for k in ("mu", "sigma", "ordinal", "games", "provisional")}
    }
    # each game's change, as the end screen shows it: the second game ends where the table is
    first, second = (
        requests.get(stack.base + f"{API}/games/{g}/ratings", timeout=10).json() for g in gids
    )
    mine = {c["player"]: c for c in second["changes"]}
    assert second["game"] == "artus" and set(mine) == {me, BOT}
    assert mine[me]["after"] == {
        k: dee[k] for k in ("mu", "sigma", "ordinal", "games", "provisional")
    }
    assert mine[me]["before"] == {c["player"]: c for c in first["changes"]}[me]["after"]
    assert {c["player"]: c for c in first["changes"]}[me]["before"]["games"] == 0
    # the lobby's "my games": each finished rated game with the ordinal before and after it
    listed = requests.get(stack.base + f"{API}/me/games", headers=bearer(token), timeout=10)
    assert listed.status_code == 200, listed.text
    moves = {g["id"]: g.get("rating") for g in listed.json()["games"]}
    for gid, doc in zip(gids, (first, second), strict=True):
        change = {c["player"]: c for c in doc["changes"]}[me]
        assert moves[gid] == {
            "before": change["before"]["ordinal"],
            "after": change["after"]["ordinal"],
        }
    unrated = post_game(
        stack,
        token,
        {"game": "artus", "players": [{"name": "Dee"}, {"name": "g", "bot": "greedy"}]},
    )
    missing = requests.get(stack.base + f"{API}/games/{unrated.json()['id']}/ratings", timeout=10)
    assert missing.status_code == 404
    # the exports, folded offline in any order, give the service's numbers
    command = [sys.executable, "-m", "chronicle", "ratings", "--json", *map(str, reversed(files))]
    out = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    folded = json.loads(out.stdout)["artus"]
    assert folded == [{k: v for k, v in row.items() if k != "name"} for row in rows]
