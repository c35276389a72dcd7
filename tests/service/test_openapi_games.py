"""The typed games of the OpenAPI document cannot drift from what the rules produce.

Random play of every game, with its fewest and most players and every option (the
engine's path, as the service runs it): every legal action, every view (each seat's, a
spectator's, the full view after the end or revealed) and every event as each caller sees
it (redacted, and in full) validates against the components the service publishes
(``/api/v1/openapi.json``): ``<Game>Action``, ``<Game>ViewState``, ``<Game>Event`` and the
generic ``View`` and ``Actions`` documents.  The components are made from the engine's
``Field`` specs and the shapes each game declares (``domain/games/<game>/shapes.py``); a
shape that does not say what the rules produce fails here, naming the component and path.
"""

from __future__ import annotations

import itertools
from typing import Any

import pytest

from domain import games
from domain import table as tables
from domain.engine import Config, Game, Player
from domain.simulate import playthrough
from projections.records import Recorded, public
from projections.views import ADMIN, SEAT, SPECTATOR, Caller, view_doc
from service.http.game_schemas import prefix
from tests.support.openapi import Validators, published

DOC = published()
CHECK = Validators(DOC)


def configurations(game: Game) -> list[Config]:
    options = [
        dict(zip(game.options, values, strict=True))
        for values in itertools.product(*game.options.values())
    ] or [{}]
    return [
        Config(game.id, opts, tuple(Player(f"p{i}") for i in range(n)))
        for n in sorted({game.min_players, game.max_players})
        for opts in options
    ]


def test_every_game_has_its_components() -> None:
    schemas = DOC["components"]["schemas"]
    for game in games.GAMES.values():
        p = prefix(game)
        union = schemas[f"{p}Action"]
        assert union["discriminator"]["propertyName"] == "type"
        assert set(union["discriminator"]["mapping"]) == set(game.actions)
        assert f"{p}ViewState" in schemas
        events = schemas[f"{p}Event"]["discriminator"]["mapping"]
        assert {"GameCreated", "GameFinished", *tables.EVENT_DATA, *game.event_data} == set(events)
        # a field of an action is typed as the engine checks it
        for kind, spec in game.actions.items():
            props = schemas[f"{p}Action{kind.title().replace('_', '')}"]["properties"]
            assert set(props) == {"type", *spec}


def test_a_wrong_shape_is_refused_by_the_published_schema() -> None:
    """The check has teeth: extra fields, wrong types and a missing field are caught."""
    with pytest.raises(AssertionError, match="ArtusAction"):
        CHECK.check("ArtusAction", {"type": "draw", "pile": "knight", "extra": 1})
    with pytest.raises(AssertionError):
        CHECK.check("ArtusAction", {"type": "place_knight", "seat": "3"})
    with pytest.raises(AssertionError):
        CHECK.check(
            "LancasterEvent",
            {"version": 2, "type": "RoundEnded", "seat": None, "at": "x", "data": {}},
        )
    CHECK.check("ArtusAction", {"type": "draw", "pile": "knight"})


def _event_doc(version: int, event: Any, data: dict[str, Any]) -> dict[str, Any]:
    rec = Recorded(
        version,
        event.type,
        event.seat,
        1_700_000_000_000 + version,
        None,
        None,
        dict(event.data),
        "0" * 64,
    )
    return public(rec, data)


@pytest.mark.parametrize("game_id", sorted(games.GAMES))
def test_random_play_validates_against_the_published_schema(game_id: str) -> None:
    game = games.GAMES[game_id]
    p = prefix(game)
    counts = {"views": 0, "events": 0, "actions": 0}
    for n_config, config in enumerate(configurations(game)):
        version = 0
        callers = [Caller(SPECTATOR), *(Caller(SEAT, s) for s in range(config.n))]
        for step_no, step in enumerate(playthrough(game, config, f"schema-{n_config}")):
            match = step.match
            for event in step.events:
                version += 1
                for caller in callers:
                    data = game.redact(event, caller.sight, match.config)
                    CHECK.check(f"{p}Event", _event_doc(version, event, data))
                    counts["events"] += 1
                CHECK.check(f"{p}Event", _event_doc(version, event, dict(event.data)))
            if step_no % 5 and match.status(game) == "active":
                continue  # views every fifth step (and at the end): the checks take time
            for caller in [*callers, Caller(ADMIN)]:
                doc = view_doc(game, "g1", match, caller, reveal=False)
                CHECK.check(f"{p}ViewState", doc["state"])
                CHECK.check("View", doc)
                counts["views"] += 1
            for seat in match.to_act(game):
                actions = game.legal_actions(match.state, seat)
                CHECK.check("Actions", {"version": match.version, "actions": actions})
                for action in actions[:20]:
                    CHECK.check(f"{p}Action", action)
                counts["actions"] += len(actions)
    print(f"\nFIGURE openapi {game_id}: {counts} validated")
    assert min(counts.values()) > 0
