"""LA-2.4 secret votes, LA-2.5 laws taking effect, LA-2.6 vote markers not carried over."""

from __future__ import annotations

from dataclasses import replace

from domain.games.lancaster import GAME
from domain.games.lancaster.state import State, location
from tests.games.lancaster.helpers import in_conflict, in_county, player, started, types
from tests.support.play import act, refused


def voting(s: State, **changes) -> State:
    return replace(s, phase="vote", turn=None, votes={}, **changes)


def vote(law: str, tile: str, markers: int = 0) -> dict:
    return {"type": "vote", "law": law, "tile": tile, "markers": markers}


def test_LA_2_4_votes_are_secret_and_simultaneous() -> None:
    s = voting(player(started(3), 1, markers=2))
    assert GAME.to_act(s) == (0, 1, 2)
    s, ev = act(s, 1, vote("L4", "no", 2))
    assert types(ev) == ["VoteCommitted"] and not GAME.reveals(ev[0])
    assert GAME.to_act(s) == (0, 2)
    assert s.players[1].markers == 2  # markers leave only at the reveal
    refused(s, 1, vote("L4", "yes"), "LA-2.4")  # committed already
    refused(s, 0, vote("L2", "yes"), "LA-2.4")  # L4 is being voted
    refused(s, 0, vote("L4", "yes", 2), "LA-2.4")  # seat 0 has 1 marker
    s, _ = act(s, 0, vote("L4", "yes", 1))
    s, ev = act(s, 2, vote("L4", "yes"))
    assert types(ev) == ["VoteCommitted", "VotesRevealed"]
    reveal = ev[1]
    assert GAME.reveals(reveal)
    assert reveal.data["votes"] == {
        "0": {"tile": "yes", "markers": 1},
        "1": {"tile": "no", "markers": 2},
        "2": {"tile": "yes", "markers": 0},
    }
    assert (reveal.data["yes"], reveal.data["no"]) == (3, 3)
    assert [p.markers for p in s.players] == [0, 0, 1]
    assert GAME.to_act(s) == (0, 1, 2) and s.debate == ("L2", "L5")


def test_LA_2_4_a_tie_vote_approves_and_the_leftmost_law_is_pushed_out() -> None:
    s = voting(started(3))  # current L3 L11 L13; debate L4 L2 L5
    s, _ = act(s, 0, vote("L4", "yes", 1))
    s, _ = act(s, 1, vote("L4", "no"))
    s, ev = act(s, 2, vote("L4", "no"))
    assert ev[-1].data["approved"] is True and ev[-1].data["dropped"] == "L3"
    assert s.current == ("L11", "L13", "L4")


def test_LA_2_4_a_rejected_law_is_discarded() -> None:
    s = voting(started(3))
    for seat in (0, 1):
        s, _ = act(s, seat, vote("L4", "no"))
    s, ev = act(s, 2, vote("L4", "yes"))
    assert ev[-1].data["approved"] is False and ev[-1].data["dropped"] is None
    assert s.current == ("L3", "L11", "L13") and s.debate == ("L2", "L5")
    assert all("L4" not in group for group in s.law_deck)


def test_LA_2_5_laws_take_effect_left_to_right_with_purchases_in_player_order() -> None:
    s = voting(started(3, current=("L3", "L12", "L16"), debate=("L7",)), start=1)
    s = in_county(in_county(s, "F", "red-1a"), "G", "red-1b")  # two counties for red
    s = in_conflict(s, 1, ("green-2a",), ("red-2a",))
    s = player(s, 1, gold=3)
    for seat in (1, 2, 0):
        s, ev = act(s, seat, vote("L7", "no"))
    assert types(ev) == [
        "VoteCommitted",
        "VotesRevealed",
        "LawTookEffect",
        "LawTookEffect",
        "LawOpened",
    ]
    assert ev[2].data == {"law": "L3", "effects": {"0": {"power": 3}}}
    assert ev[3].data == {"law": "L12", "effects": {"2": {"power": 3}, "0": {"power": 3}}}
    assert ev[4].data == {"law": "L16", "seats": [1, 2, 0]}  # from the start player
    assert GAME.to_act(s) == (1,)
    refused(s, 1, {"type": "buy", "count": 4}, "LA-2.5")
    s, ev = act(s, 1, {"type": "buy", "count": 3})
    assert ev[0].data["gains"] == {"gold": -3, "power": 3}
    assert GAME.to_act(s) == (2,)
    s, _ = act(s, 2, {"type": "pass"})
    s, _ = act(s, 0, {"type": "buy", "count": 1})
    assert [p.power for p in s.players] == [7, 3, 3]
    assert s.phase == "counties"


def test_LA_2_5_most_laws_reward_every_tied_player_and_upgrades_are_chosen() -> None:
    s = voting(started(3, current=("L2", "L1", "L6"), debate=("L7",)))
    s = player(player(player(s, 0, squires=3, gold=4), 1, squires=1, gold=4), 2, squires=3)
    s = in_county(s, "C", "red-2a")
    s = in_conflict(s, 1, ("green-1a",))
    s = in_conflict(s, 4, ("green-2a",))
    for seat in range(3):
        s, ev = act(s, seat, vote("L7", "no"))
    assert ev[2].data == {
        "law": "L2",
        "effects": {"0": {"recruit": ["red-1b"]}, "2": {"recruit": ["green-1b"]}},
    }
    # L1: seats 0 and 1 tie for the most gold; only seat 0 has a deployed knight to upgrade
    assert ev[3].data == {"law": "L1", "seats": [0]}
    refused(s, 0, {"type": "upgrade", "knight": "red-1b"}, "LA-2.5")  # at court
    s, ev = act(s, 0, {"type": "upgrade", "knight": "red-2a"})
    assert s.counties["C"].knight == "red-3" and location(s, "red-2a") == "reserve"
    # L6: one extension per 2 conflicts, drawn from green's pile and recorded
    l6 = ev[-1]
    assert l6.type == "LawTookEffect" and list(l6.data["effects"]) == ["2"]
    (space,) = l6.data["effects"]["2"]["build"]
    assert GAME.reveals(l6)
    assert s.players[2].built == {"chapel", space}


def test_LA_2_6_vote_markers_return_to_the_supply_after_the_parliament() -> None:
    s = voting(started(3, current=("L3", "L4", "L13"), debate=("L7", "L9")))
    s = player(player(s, 0, markers=3, gold=5), 1, markers=2)
    for seat in range(3):
        s, _ = act(s, seat, vote("L7", "yes", 1 if seat == 0 else 0))
    assert [p.markers for p in s.players] == [2, 2, 1]  # seat 0 spent one
    for seat in range(3):
        s, _ev = act(s, seat, vote("L9", "no"))
    assert [p.markers for p in s.players] == [0, 0, 0]
    # markers bought under L4 (after the votes) are kept for the next parliament
    assert s.current == ("L4", "L13", "L7") and GAME.to_act(s) == (0,)
    s, _ = act(s, 0, {"type": "buy", "count": 2})
    assert s.players[0].markers == 2 and s.players[0].gold == 3
