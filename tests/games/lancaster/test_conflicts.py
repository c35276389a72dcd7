"""LA-2.9 conflicts: wins, first and second losses, ransom; end of round."""

from __future__ import annotations

from dataclasses import replace

from domain.games.lancaster import GAME
from domain.games.lancaster.conflicts import enter_conflicts
from domain.games.lancaster.state import State, location
from tests.games.lancaster.helpers import (
    in_castle,
    in_conflict,
    in_county,
    player,
    settle,
    started,
    types,
)
from tests.support.play import act, refused


def resolved(s: State) -> tuple[State, list]:
    return settle(enter_conflicts(s))


def outcomes(events: list) -> list[tuple[int, str, dict]]:
    return [
        (e.data["conflict"], e.data["outcome"], e.data["power"])
        for e in events
        if e.type == "ConflictResolved"
    ]


def test_LA_2_9_win_pays_in_rank_order_and_ties_go_to_the_later_knight() -> None:
    s = replace(started(3), upper=())
    s = in_conflict(s, 4, ("red-3",), ("blue-2a",), ("green-1a",))  # 6 against France's 6
    s = in_conflict(s, 1, ("red-2a",), ("blue-1a", "blue-1b"))  # 2 against 2: blue came later
    s, ev = resolved(s)
    assert outcomes(ev) == [
        (4, "won", {"0": 7, "1": 4, "2": 2}),
        (1, "won", {"1": 5, "0": 3}),
    ]
    assert [p.power for p in s.players] == [10, 9, 2]
    assert all(location(s, k) == "court" for k in ("red-3", "blue-1b", "green-1a"))
    assert types(ev)[-2:] == ["RoundEnded", "RoundStarted"]


def test_LA_2_9_first_loss_skips_the_first_value_and_moves_the_card_down() -> None:
    s = replace(started(3), upper=())
    s = in_conflict(s, 6, ("red-2a",), ("blue-1a",))  # 3 against France's 7
    s = in_conflict(s, 7)  # nobody: lost as well
    s, ev = resolved(s)
    assert outcomes(ev) == [(6, "first_loss", {"0": 4, "1": 2}), (7, "first_loss", {})]
    assert [c.n for c in s.lower] == [6, 7]
    assert s.lower[0].spaces == (("red-2a",), ("blue-1a",))  # knights in order
    assert location(s, "red-2a") == "conflict:6"
    assert len(s.upper) == 2  # the next round's cards


def test_LA_2_9_second_loss_then_ransom_in_player_order() -> None:
    s = replace(started(3), upper=(), start=1)
    s = in_conflict(s, 8, ("red-3",), ("blue-2a", "blue-1a"), row="lower")  # 6 against 8
    s = in_conflict(s, 5, ("green-4", "green-3"))  # upper row: won afterwards
    s = player(s, 0, gold=3)
    s, ev = resolved(s)
    assert outcomes(ev) == [(8, "second_loss", {"1": 5, "0": 3})]  # blue: the later tie
    assert ev[0].data["prisoners"] == ["red-3", "blue-2a", "blue-1a"]
    assert s.prisoners == ("red-3", "blue-2a", "blue-1a") and not s.lower
    assert GAME.to_act(s) == (1,)  # the start player first
    refused(s, 1, {"type": "ransom", "knight": "red-3"}, "LA-2.9")
    s, ev = act(s, 1, {"type": "ransom", "knight": "blue-1a"})
    assert ev[0].data == {"knight": "blue-1a", "gold": 1}
    # blue has 1 gold left, too little for blue-2a, but is asked anyway (gold is hidden)
    assert GAME.to_act(s) == (1,)
    assert GAME.legal_actions(s, 1) == [{"type": "pass"}]
    refused(s, 1, {"type": "ransom", "knight": "blue-2a"}, "LA-2.9")
    s, ev = act(s, 1, {"type": "pass"})
    assert types(ev) == ["PrisonersLost"] and ev[0].data == {"knights": ["blue-2a"]}
    assert GAME.to_act(s) == (0,)
    s, ev = act(s, 0, {"type": "pass"})
    assert ev[0].type == "PrisonersLost" and ev[0].data == {"knights": ["red-3"]}
    assert outcomes(ev) == [(5, "won", {"2": 7})]
    assert location(s, "blue-1a") == "court"
    assert location(s, "blue-2a") == "reserve" and location(s, "red-3") == "reserve"
    assert s.players[1].gold == 1 and s.players[0].gold == 3
    assert all(c.n != 8 for c in (*s.upper, *s.lower))  # the card is removed


def test_LA_2_9_counties_and_castles_return_to_court_at_the_round_end() -> None:
    s = replace(started(3, current=("L1", "L3", "L6"), debate=("L2", "L4", "L5")), upper=())
    s = in_county(s, "C", "red-2a", squires=2)
    s = in_castle(s, "blue-1a", "treasury")
    s, _ev = resolved(s)
    assert location(s, "red-2a") == "court" and location(s, "blue-1a") == "court"
    assert s.counties == {} and s.castle == {}
    assert s.round == 2 and len(s.debate) == 3 and s.phase == "placement"
    assert all(law in ("L7", "L8", "L9") for law in s.debate)  # group 1 next
