"""Ratings as a projection (``service.ratings``): the entry a log gives, the fold over the
exports of real bot games played in memory, and the live table in Redis, which is the fold
whatever order the games' results reach it in."""

from __future__ import annotations

import random
from typing import Any

import pytest
import redis

from domain import bots
from domain import table as tables
from domain.engine import GAME_CREATED, GAME_FINISHED
from projections.records import Recorded
from projections.views import ADMIN, SEAT, Caller
from service import ratings
from service.chronicle import Chronicle
from service.commands import verify_export
from service.jobs import NoJobs
from service.memory_store import MemoryEventStore

# quick bots, so that twenty games take a moment; a searching bot at a table of three twice
LINEUPS = [["random", "greedy"], ["greedy", "random"]]
SEARCHING = ["greedy", "mcts:easy", "random"]


def bot_game(ch: Chronicle, lineup: list[str], seed: str, rated: bool = True) -> dict[str, Any]:
    """A finished Artus game among ``lineup``'s bots, played as the worker plays them (each
    bot decides from its seat's view); its export."""
    players = [{"name": f"{bot} bot", "bot": bot} for bot in lineup]
    table = tables.Rules(rated=rated).data()
    gid = ch.create(None, "artus", players, {"rules": "basic"}, seed, table=table)["id"]
    for _ in range(2000):
        cur = ch.current(gid)
        to_act = cur.match.to_act(cur.game)
        if not to_act:
            break
        seat, version = to_act[0], cur.match.version
        rng = bots.bot_rng(cur.seed, version + 1, seat)
        action = bots.decide(cur.game, cur.match, seat, rng)
        ch.act(gid, Caller(SEAT, seat), action, version, by_bot=True)
    assert ch.finish(gid, ch.current(gid).match.version)
    return ch.export(gid, Caller(ADMIN))


@pytest.fixture(scope="module")
def exports() -> list[dict[str, Any]]:
    ch = Chronicle(MemoryEventStore(), NoJobs(), admin_token="admin")
    lineups = [SEARCHING if i % 10 == 9 else LINEUPS[i % 2] for i in range(20)]
    return [bot_game(ch, lineup, f"ladder-{i}") for i, lineup in enumerate(lineups)]


def entry_of(doc: dict[str, Any], everything: bool = False) -> ratings.Rated | None:
    _, records, _ = verify_export(doc)
    return ratings.rated_game(doc["id"], records, everything)


def entries(docs: list[dict[str, Any]]) -> list[ratings.Rated]:
    found = [entry_of(doc) for doc in docs]
    assert all(e is not None for e in found)
    return [e for e in found if e is not None]


def test_the_fold_of_bot_games_does_not_depend_on_the_order_of_the_files(
    exports: list[dict[str, Any]],
) -> None:
    first = ratings.fold(entries(exports))
    shuffled = list(exports)
    random.Random(7).shuffle(shuffled)
    assert ratings.fold(entries(shuffled)) == first
    assert ratings.fold(entries(list(reversed(exports)))) == first
    # a file given twice counts once
    assert ratings.fold(entries([*exports, exports[3]])) == first
    # the order is the finishing time then the id, not the order given
    in_order = sorted(entries(exports), key=ratings.Rated.key)
    table: dict[str, ratings.Standing] = {}
    for entry in in_order:
        table.update(ratings.apply(table, entry))
    assert first == {"artus": table}


def test_bots_are_rated_under_their_level(exports: list[dict[str, Any]]) -> None:
    table = ratings.fold(entries(exports))["artus"]
    assert set(table) == {"bot:random", "bot:greedy", "bot:mcts:easy"}
    played = sum(len(e.raters) for e in entries(exports))
    assert sum(s.games for s in table.values()) == played
    assert table["bot:random"].games == 20  # in every line-up
    assert table["bot:mcts:easy"].games == 2
    assert table["bot:mcts:easy"].provisional and not table["bot:random"].provisional
    for standing in table.values():
        assert standing.sigma < ratings.MODEL.sigma  # every game taught something
    rows = ratings.ordered(table)
    assert [s.ordinal for _, s in rows] == sorted((s.ordinal for s in table.values()), reverse=True)
    # these seeds' games: greedy beats random far more often than not
    assert table["bot:greedy"].ordinal > table["bot:random"].ordinal
    assert ratings.bot_name("bot:mcts:hard") == "Thinker, hard (bot)"
    assert ratings.bot_name("a1b2") is None


def test_a_game_created_without_rated_counts_only_when_asked() -> None:
    ch = Chronicle(MemoryEventStore(), NoJobs(), admin_token="admin")
    doc = bot_game(ch, ["random", "greedy"], "unrated", rated=False)
    assert entry_of(doc) is None
    entry = entry_of(doc, everything=True)
    assert entry is not None and entry.raters == ("bot:random", "bot:greedy")


# ---- entries from hand-made logs ---------------------------------------------------------
def record(version: int, kind: str, data: dict[str, Any], seat: int | None = None) -> Recorded:
    return Recorded(version, kind, seat, 1000 * version, None, None, data, f"h{version}")


def created(players: list[dict[str, Any]], **table: Any) -> Recorded:
    section = {**tables.Rules(rated=True).data(), **table}
    return record(
        1, GAME_CREATED, {"game": "artus", "options": {}, "players": players, "table": section}
    )


def finished(version: int, scores: dict[str, int], ranking: list[int], **details: Any) -> Recorded:
    data = {"scores": scores, "winners": ranking[:1], "ranking": ranking, "details": details}
    return record(version, GAME_FINISHED, data)


ANN_VS_BOT: list[dict[str, Any]] = [
    {"name": "Ann", "bot": None},
    {"name": "greedy bot", "bot": "greedy"},
]


def claimed(version: int, seat: int, player: str) -> Recorded:
    return record(version, tables.SEAT_CLAIMED, {"seat": seat, "player": player}, seat)


def test_an_entry_names_the_account_and_the_bot_and_ranks_from_the_result() -> None:
    log = [created(ANN_VS_BOT), claimed(2, 0, "ann1"), finished(3, {"0": 5, "1": 9}, [1, 0])]
    entry = ratings.rated_game("g1", log)
    assert entry == ratings.Rated("g1", "artus", 3000, ("ann1", "bot:greedy"), (2, 1))


def test_equal_scores_tie() -> None:
    three: list[dict[str, Any]] = [*ANN_VS_BOT, {"name": "r", "bot": "random"}]
    log = [created(three), claimed(2, 0, "ann1"), finished(3, {"0": 4, "1": 7, "2": 7}, [1, 2, 0])]
    entry = ratings.rated_game("g2", log)
    assert entry is not None and entry.ranks == (3, 1, 1)
    table = ratings.fold([entry])["artus"]
    assert table["bot:greedy"] == table["bot:random"]  # tied from equal ratings: equal after
    assert table["bot:greedy"].mu > ratings.MODEL.mu > table["ann1"].mu


def test_a_resigned_seat_ranks_last_whatever_its_score() -> None:
    three: list[dict[str, Any]] = [*ANN_VS_BOT, {"name": "r", "bot": "random"}]
    resign = record(3, tables.SEAT_RESIGNED, {"seat": 0, "bot": "greedy"}, 0)
    log = [
        created(three),
        claimed(2, 0, "ann1"),
        resign,
        finished(4, {"0": 30, "1": 7, "2": 2}, [0, 1, 2], resigned=[0]),
    ]
    entry = ratings.rated_game("g3", log)
    assert entry is not None and entry.ranks == (3, 1, 2)
    # the log's SeatResigned alone is enough (a result without details.resigned)
    assert ratings.ranks_of({"scores": {"0": 30, "1": 7}, "ranking": [0, 1]}, 2, [0]) == (2, 1)


def test_abandoned_unfinished_and_unnamed_games_are_not_rated() -> None:
    done = finished(4, {"0": 1, "1": 0}, [0, 1])
    abandoned = [created(ANN_VS_BOT), claimed(2, 0, "ann1"), record(3, "GameAbandoned", {})]
    assert ratings.rated_game("a", abandoned) is None
    assert ratings.rated_game("b", [created(ANN_VS_BOT), claimed(2, 0, "ann1")]) is None
    assert ratings.rated_game("c", [created(ANN_VS_BOT), done]) is None  # a guest's seat
    twice: list[dict[str, Any]] = [{"name": "Ann", "bot": None}, {"name": "Ann", "bot": None}]
    same = [created(twice), claimed(2, 0, "ann1"), claimed(3, 1, "ann1"), done]
    assert ratings.rated_game("d", same) is None  # one rater at two seats
    unrated = [created(ANN_VS_BOT, rated=False), claimed(2, 0, "ann1"), done]
    assert ratings.rated_game("e", unrated) is None


def test_open_seats_given_to_bots_at_the_start_are_rated_as_those_bots() -> None:
    players: list[dict[str, Any]] = [{"name": "Ann", "bot": None}, {"name": None, "bot": None}]
    start = record(3, tables.GAME_STARTED, {"filled": {"1": "mcts"}})
    log = [created(players, open=[1]), claimed(2, 0, "ann1"), start, finished(4, {}, [1, 0])]
    entry = ratings.rated_game("f", log)
    assert entry is not None and entry.raters == ("ann1", "bot:mcts:normal")


# ---- the live table ------------------------------------------------------------------------
def test_the_live_table_is_the_fold_whatever_order_results_arrive_in(
    exports: list[dict[str, Any]], own_redis_url: str
) -> None:
    r = redis.Redis.from_url(own_redis_url)
    live = ratings.Ratings(r)
    found = entries(exports)
    ordered = sorted(found, key=ratings.Rated.key)
    late = ordered[5]  # its result reaches the worker after the later games'
    outcomes = [live.add(e) for e in ordered if e is not late]
    assert set(outcomes) == {"counted"}
    assert live.add(late) == "refolded"
    assert live.add(late) == "done"  # a job run twice counts the game once
    assert live.table("artus") == ratings.fold(found)["artus"]
    assert live.add(ordered[-1]) == "done"
    assert live.of("bot:greedy", ["artus", "lancaster"]) == {
        "artus": ratings.fold(found)["artus"]["bot:greedy"]
    }
    # what each game did, as its end screen shows it: the fold just before it and just after,
    # the late one too (recorded when it refolded the table)
    for entry in (ordered[2], late, ordered[-1]):
        moved = live.change("artus", entry.id)
        assert moved is not None
        before = ratings.fold([e for e in ordered if ratings.Rated.key(e) < entry.key()])
        after = ratings.fold([e for e in ordered if ratings.Rated.key(e) <= entry.key()])
        for rater, (was, now) in moved.items():
            assert was == before.get("artus", {}).get(rater, ratings.initial())
            assert now == after["artus"][rater]
    assert live.change("artus", "no-such-game") is None
    # one rater's moves over many games at once (the lobby's "my games"): each counted game
    # it played, as ``change`` has it; a game it did not play or not counted is left out
    asked = [("artus", e.id) for e in ordered] + [("artus", "no-such-game")]
    moves = live.moves_of("bot:mcts:easy", asked)
    played = [e.id for e in ordered if "bot:mcts:easy" in e.raters]
    assert sorted(moves) == sorted(played) and len(played) == 2
    for game_id, move in moves.items():
        assert move == (live.change("artus", game_id) or {})["bot:mcts:easy"]
