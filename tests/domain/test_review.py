"""Reviews (issue 42): each decision judged by search from the deciding seat's view only.

The honest-by-construction tests change a finished Artus log where the reviewed seat could
not see (an opponent's hand against that opponent's own pile) and show the review unchanged
for the same seed; the control changes the reviewed seat's own hand the same way and shows
the review changed, so the first test could fail."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import Any

import pytest

from domain import bots
from domain.games import GAMES
from domain.games.artus.data import player_cards
from domain.games.artus.events import CARD_DRAWN, CARD_PLAYED, GAME_STARTED
from domain.rng import Rng
from domain.search.ismcts import SearchBot
from domain.search.review import judge
from projections.fold import fold
from projections.records import Recorded
from projections.views import SEAT, Caller
from service import review
from service.chronicle import Chronicle
from service.jobs import NoJobs
from service.memory_store import MemoryEventStore

ITERATIONS = 40  # per decision: enough to tell positions apart, quick enough for a unit test
OPTIONS = {"artus": {"rules": "basic"}, "kings-and-castles": {"length": "short"}}


def finished_log(game: str, n: int, seed: str) -> tuple[str, list[Recorded]]:
    """A game of random bots played to its end in memory: its seed and its records."""
    ch = Chronicle(MemoryEventStore(), NoJobs(), admin_token="admin")
    players = [{"name": f"p{i}", "bot": "random"} for i in range(n)]
    gid = ch.create(None, game, players, OPTIONS.get(game, {}), seed)["id"]
    while to_act := (cur := ch.current(gid)).match.to_act(cur.game):
        seat, version = to_act[0], cur.match.version
        action = bots.decide(cur.game, cur.match, seat, bots.bot_rng(cur.seed, version + 1, seat))
        ch.act(gid, Caller(SEAT, seat), action, version, by_bot=True)
    assert ch.finish(gid, ch.current(gid).match.version)
    return ch.current(gid).seed, ch.loader.log(gid)[1]


def reviewed(game: str, seed: str, records: Sequence[Recorded], seat: int) -> list[dict[str, Any]]:
    rules = GAMES[game]
    return [
        review.judged(rules, seed, seat, d, ITERATIONS)
        for d in review.decisions(rules, records, seat)
    ]


@pytest.mark.parametrize("game", sorted(GAMES))
def test_every_decision_values_every_legal_action_deterministically(game: str) -> None:
    seed, records = finished_log(game, 2, f"review-{game}")
    rules = GAMES[game]
    found = list(review.decisions(rules, records, 0))[:4]
    assert found, "the seat decided something"
    bot = rules.bots["mcts"]
    assert isinstance(bot, SearchBot)
    for d in found:
        assert len(d.actions) > 1 and d.played in d.actions
        first = judge(bot.adapter, d.view, d.actions, d.played, Rng.at(seed, d.version), bot.budget)
        again = judge(bot.adapter, d.view, d.actions, d.played, Rng.at(seed, d.version), bot.budget)
        assert first == again
        judged = [first["played"]] + [a["action"] for a in first["alternatives"]]
        assert sorted(map(str, judged)) == sorted(map(str, d.actions))
        assert first["best"] in d.actions
        values = [first["value_played"]] + [a["value"] for a in first["alternatives"]]
        assert all(0.0 <= v <= 1.0 for v in values)
        assert first["swing"] == round(max(0.0, first["value_best"] - first["value_played"]), 4)
        alternatives = [a["value"] for a in first["alternatives"]]
        assert alternatives == sorted(alternatives, reverse=True)


def test_a_decision_is_a_game_action_of_the_seat_with_a_choice() -> None:
    """Versions of the walk are those before the seat's own commands, and the view given is
    the seat's own (a hand, never the others' hands)."""
    _, records = finished_log("artus", 2, "walk")
    game = GAMES["artus"]
    found = list(review.decisions(game, records, 1))
    commands = {r.version - 1 for r in records if r.actor == 1 and isinstance(r.command, dict)}
    assert found and {d.version for d in found} <= commands
    for d in found:
        match = fold(game, [r for r in records if r.version <= d.version])
        assert d.view == game.view(match.state, 1) and "hands" not in d.view
        assert d.actions == game.legal_actions(match.state, 1)


# ---- honest by construction ----------------------------------------------------------------
def swapped_deal(records: Sequence[Recorded], owner: int) -> tuple[list[Recorded], int]:
    """The log with one card of ``owner``'s dealt hand exchanged for a card that stayed in
    ``owner``'s own pile of the same kind, cut before the first record that would show the
    difference (``owner`` playing the first card or drawing the second), as late as any such
    pair allows: the records before the cut stay a valid log of the rules."""
    start = next(r for r in records if r.type == GAME_STARTED)
    hand = start.data["hands"][owner]
    piles = player_cards(owner, start.data["rules"])
    best: tuple[int, str, str] | None = None
    for pile_cards in piles.values():
        for x in (c for c in hand if c in pile_cards):
            for y in (c for c in pile_cards if c not in hand):
                cut = next(
                    r.version
                    for r in records
                    if r.seat == owner
                    and (
                        (r.type == CARD_PLAYED and r.data["card"] == x)
                        or (r.type == CARD_DRAWN and r.data["card"] == y)
                    )
                )
                if best is None or cut > best[0]:
                    best = (cut, x, y)
    assert best is not None
    cut, x, y = best
    hands = [list(h) for h in start.data["hands"]]
    hands[owner] = sorted(y if c == x else c for c in hands[owner])
    changed = replace(start, data={**start.data, "hands": hands})
    batch = max(r.version for r in records if r.version <= cut and r.command is not None)
    kept = [changed if r is start else r for r in records if r.version < batch]
    return kept, batch


def test_the_review_of_a_seat_ignores_what_that_seat_could_not_see() -> None:
    """Seat 1 holds another card of its own in its hand (and the first one stays in its
    pile).  Seat 0 sees of seat 1 only its hand size, its pile sizes and the cards it played,
    all the same in both logs until the cut, so every view of seat 0 before the cut is equal
    and so must every judgement be, though the states searched from differ."""
    seed, records = finished_log("artus", 2, "honest-1")
    game = GAMES["artus"]
    changed, cut = swapped_deal(records, owner=1)
    original = [r for r in records if r.version < cut]
    a = list(review.decisions(game, original, 0))
    b = list(review.decisions(game, changed, 0))
    assert len(a) == len(b) >= 3
    assert [d.view for d in a] == [d.view for d in b]  # the change is consistent with the view
    assert fold(game, original).state != fold(game, changed).state  # ... and a real change
    assert reviewed("artus", seed, original, 0) == reviewed("artus", seed, changed, 0)


def test_the_review_changes_when_the_seats_own_view_changes() -> None:
    """The control: the same kind of change in the reviewed seat's own hand changes what it
    saw, and the review follows."""
    seed, records = finished_log("artus", 2, "honest-1")
    changed, cut = swapped_deal(records, owner=0)
    original = [r for r in records if r.version < cut]
    game = GAMES["artus"]
    assert [d.view for d in review.decisions(game, original, 0)] != [
        d.view for d in review.decisions(game, changed, 0)
    ]
    assert reviewed("artus", seed, original, 0) != reviewed("artus", seed, changed, 0)
