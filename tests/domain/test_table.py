"""The table around every game (``domain.table``, ``domain.seating``): durations, the clock
kept from the batches' recorded times, timeouts in a row, and the undo floor."""

from __future__ import annotations

import pytest

from domain import engine, seating
from domain import table as tables
from domain.engine import Config, Player
from domain.errors import Forbidden, StateConflict
from domain.games import GAMES
from domain.rng import Rng


@pytest.mark.parametrize(
    ("text", "ms"),
    [("P3D", 3 * 86_400_000), ("PT2M", 120_000), ("PT1S", 1000), ("PT1.5S", 1500),
     ("P1W", 7 * 86_400_000), ("P1DT1H", 90_000_000), ("P1Y", None), ("P2M", None),
     ("PT", None), ("P", None), ("3D", None), ("PT1H30", None)],
)  # fmt: skip
def test_turn_times_are_iso_8601_durations_of_weeks_to_seconds(text: str, ms: int | None) -> None:
    assert tables.duration_ms(text) == ms


def started(turn_time: str = "PT1M", takeover: int = 2) -> engine.Match:
    game = GAMES["artus"]
    rules = tables.Rules(turn_time=turn_time, takeover_after=takeover).data()
    config = Config(
        "artus", {"rules": "basic", "undo": "turn"}, (Player("a"), Player("b")), table=rules
    )
    match = engine.fold(game, engine.create(game, config, Rng.at("t", 1)))
    return engine.settle(game, match, 1_000)


def table(match: engine.Match) -> tables.Table:
    """The match's table: every match these tests make has one."""
    assert match.table is not None
    return match.table


def play(match: engine.Match, seat: int, at: int) -> engine.Match:
    game = GAMES["artus"]
    action = game.legal_actions(match.state, seat)[0]
    events = engine.decide(game, match, seat, action, Rng.at("t", match.version + 1))
    return engine.settle(game, engine.fold(game, events, match), at)


def time_out(match: engine.Match, seat: int, at: int) -> engine.Match:
    game = GAMES["artus"]
    events = seating.time_out(match, game, seat, at)
    return engine.settle(game, engine.fold(game, events, match), at)


def test_deadlines_run_from_the_turns_start_and_timeouts_count_in_a_row() -> None:
    game = GAMES["artus"]
    m = started()
    seat = m.to_act(game)[0]
    assert table(m).deadlines() == {seat: 61_000}
    with pytest.raises(Forbidden):
        seating.time_out(m, game, seat, 60_999)
    m = time_out(m, seat, 61_000)
    assert table(m).deadlines() == {} and m.bot(seat) == "greedy" and table(m).timeouts[seat] == 1
    floor = table(m).floor
    assert floor == m.version
    with pytest.raises(StateConflict):
        seating.check_person(m, seat)
    while seat in m.to_act(game):  # the bot plays the rest of the turn
        m = play(m, seat, 62_000)
    assert table(m).floor == m.version > floor, "undo cannot reach into the bot's turn"
    assert m.bot(seat) is None
    other = m.to_act(game)[0]
    assert table(m).deadlines() == {other: 62_000 + 60_000}
    while other in m.to_act(game):
        m = play(m, other, 63_000)
    # the person plays its next turn itself: the count starts again
    assert table(m).timeouts[seat] == 1
    while seat in m.to_act(game):
        m = play(m, seat, 64_000)
    assert table(m).timeouts[seat] == 0


def test_the_set_number_of_timeouts_in_a_row_hands_the_seat_to_the_bot() -> None:
    game = GAMES["artus"]
    m = started(takeover=2)
    seat = m.to_act(game)[0]
    kinds = []
    for _ in range(2):
        while seat not in m.to_act(game):
            acting = m.to_act(game)[0]
            began = table(m).since[acting]
            assert began is not None
            m = play(m, acting, began + 1)
        deadline = table(m).deadlines()[seat]
        events = seating.time_out(m, game, seat, deadline)
        kinds.append([e.type for e in events])
        m = engine.settle(game, engine.fold(game, events, m), deadline)
        while seat in m.to_act(game):
            m = play(m, seat, deadline + 1)
    assert kinds == [["TurnTimedOut"], ["TurnTimedOut", "SeatTakenOver"]]
    assert table(m).bots[seat] == "greedy" and m.bot(seat) == "greedy"


def test_a_table_waits_until_its_open_seats_are_taken() -> None:
    game = GAMES["lancaster"]
    rules = tables.Rules(open=(1, 2)).data()
    players = (Player("a"), Player(None), Player(None))
    config = Config("lancaster", {"undo": "turn"}, players, table=rules)
    m = engine.fold(game, engine.create(game, config, Rng.at("w", 1)))
    assert m.status(game) == tables.WAITING and m.to_act(game) == ()
    m = engine.fold(game, seating.join(m, 2, "Cid"), m)
    with pytest.raises(StateConflict) as taken:
        seating.join(m, 2, "Eve")
    assert taken.value.code == "seat_taken"
    events = seating.join(m, 1, "Bea")
    assert [e.type for e in events] == ["SeatJoined", "GameStarted"]
    m = engine.fold(game, events, m)
    assert m.status(game) == engine.ACTIVE and m.to_act(game)
    with pytest.raises(StateConflict) as started_:
        seating.join(m, 1, "Late")
    assert started_.value.code == "game_not_waiting"
    assert [s.get("name") for s in table(m).seats()] == ["a", "Bea", "Cid"]
