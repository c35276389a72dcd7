"""LA-6 actions: declared fields, and legal_actions agreeing exactly with decide."""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from domain import engine
from domain.errors import BadAction, IllegalAction
from domain.games.lancaster import GAME
from domain.games.lancaster.data import FAVOURS, LAWS, LETTERS, SPACE_IDS, knights_of
from domain.rng import Rng
from domain.simulate import playthrough
from tests.games.lancaster.helpers import config, started

DIGEST_ACTIONS = {
    "build_start_extension": {"space"},
    "place_county": {"knight", "county", "squires"},
    "place_castle": {"knight", "space"},
    "place_conflict": {"knight", "conflict"},
    "take_favour": {"tile"},
    "vote": {"law", "tile", "markers"},
    "upgrade": {"knight"},
    "buy": {"count"},
    "pass": set(),
    "county_reward": {"county", "take"},
    "choose_start_player": {"seat"},
    "castle_reward": {"source"},
    "ransom": {"knight"},
}
KINDS = {"int", "str", "bool", "list[str]", "list[int]", "object"}


def test_LA_6_every_digest_action_is_declared_with_its_fields() -> None:
    assert set(GAME.actions) == set(DIGEST_ACTIONS)
    for kind, fields in DIGEST_ACTIONS.items():
        assert fields <= set(GAME.actions[kind])
        for f in GAME.actions[kind].values():
            assert f.kind in KINDS and f.doc
    assert (GAME.id, GAME.name, GAME.min_players, GAME.max_players) == (
        "lancaster",
        "Lancaster",
        2,
        5,
    )
    assert dict(GAME.options) == {}


def test_LA_6_shape_is_checked_by_the_engine() -> None:
    match = engine.Match(config(3), started(3), 5)
    bad = {"type": "place_county", "knight": "red-1a", "county": "Z"}
    try:
        engine.decide(GAME, match, 0, bad, Rng.at("x", 6))
    except BadAction as e:
        assert "action.county" in e.details
    else:
        raise AssertionError("county Z passed the shape check")


_STRS = [
    *knights_of("red"),
    *knights_of("blue"),
    *knights_of("green"),
    *knights_of("yellow"),
    *LETTERS,
    *SPACE_IDS,
    *sorted(FAVOURS),
    *LAWS,
    "yes",
    "no",
    "noble",
    "reward",
    "both",
]


def _perturbed(action: dict[str, Any], draw: Any) -> dict[str, Any]:
    """One field changed (a value, a type, an extra field): usually no longer legal."""
    a = dict(action)
    fields = [k for k in a if k != "type"]
    how = draw(st.sampled_from(["value", "extra", "type"] if fields else ["extra", "type"]))
    if how == "type":
        a["type"] = draw(st.sampled_from(sorted(GAME.actions)))
    elif how == "extra":
        spec = GAME.actions[a["type"]]
        missing = [k for k in spec if k not in a]
        if not missing:
            return a
        name = draw(st.sampled_from(missing))
        a[name] = _value(spec[name].kind, draw)
    else:
        name = draw(st.sampled_from(fields))
        value = a[name]
        if isinstance(value, bool):
            a[name] = not value
        elif isinstance(value, int):
            a[name] = value + draw(st.sampled_from([-2, -1, 1, 2, 7]))
        elif isinstance(value, dict):
            a[name] = {k: v + draw(st.sampled_from([-1, 1])) for k, v in value.items()}
        else:
            a[name] = draw(st.sampled_from(_STRS))
    return a


def _value(kind: str, draw: Any) -> Any:
    if kind == "int":
        return draw(st.integers(-1, 12))
    if kind == "object":
        return {"gold": draw(st.integers(0, 2)), "squires": draw(st.integers(0, 2))}
    return draw(st.sampled_from(_STRS))


@settings(max_examples=25, deadline=None)
@given(
    n=st.integers(2, 5),
    seed=st.text("xyz0123", min_size=1, max_size=5),
    stop=st.integers(0, 160),
    data=st.data(),
)
def test_LA_6_legal_actions_accepted_and_perturbed_ones_refused(
    n: int, seed: str, stop: int, data: st.DataObject
) -> None:
    match = None
    for i, step in enumerate(playthrough(GAME, config(n), seed)):
        match = step.match
        if i >= stop or match.status(GAME) != engine.ACTIVE:
            break
    assert match is not None
    if match.status(GAME) != engine.ACTIVE:
        return
    for seat in GAME.to_act(match.state):
        legal = GAME.legal_actions(match.state, seat)
        assert legal, f"seat {seat} is to act with nothing legal"
        rng = Rng.at(seed, match.version + 1)
        sample = legal if len(legal) <= 8 else [data.draw(st.sampled_from(legal)) for _ in range(8)]
        for action in sample:
            events = engine.decide(GAME, match, seat, action, rng)
            assert events and engine.fold(GAME, events, match)
        for _ in range(8):
            wrong = _perturbed(data.draw(st.sampled_from(legal)), data.draw)
            if wrong in legal:
                continue
            try:
                engine.decide(GAME, match, seat, wrong, rng)
            except (IllegalAction, BadAction):
                continue
            raise AssertionError(f"{wrong} is not listed but was accepted")
    for seat in range(n):
        if seat not in GAME.to_act(match.state):
            assert GAME.legal_actions(match.state, seat) == []
