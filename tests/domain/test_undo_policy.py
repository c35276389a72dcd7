"""The undo policies as one pure decision (contract: Undo)."""

from __future__ import annotations

import pytest

from domain.engine import Event
from domain.errors import UndoRefused
from domain.games import GAMES
from domain.undo import HOST, Logged, undo_target

GAME = GAMES["artus"]
SETUP = [Logged(1, None, 1, Event("GameCreated")), Logged(2, None, 1, Event("GameStarted"))]


def log(*entries: tuple[int | None, str]) -> list[Logged]:
    """Each entry is one command's single event: (actor, event type)."""
    out = list(SETUP)
    for actor, kind in entries:
        v = out[-1].version + 1
        out.append(Logged(v, actor, v, Event(kind, actor, {})))
    return out


def reason(**kw) -> str:
    with pytest.raises(UndoRefused) as refused:
        undo_target(GAME, **{"to_version": None, "setup_version": 2, "finished": False, **kw})
    return refused.value.reason


def test_a_seat_undoes_its_own_last_command() -> None:
    entries = log((1, "KnightPlaced"), (0, "KnightPlaced"))
    assert undo_target(GAME, "turn", 0, entries, None, 2, False) == 3


def test_several_own_commands_back_to_a_named_version() -> None:
    entries = log((1, "KnightPlaced"), (0, "CardPlayed"), (0, "CardPlayed"))
    assert undo_target(GAME, "turn", 0, entries, 3, 2, False) == 3
    assert reason(policy="turn", requester=0, log=entries, to_version=2) == "other_seat_acted"


def test_refusals_name_their_reason() -> None:
    entries = log((1, "KnightPlaced"), (0, "CardPlayed"), (0, "CardDrawn"))
    assert reason(policy="turn", requester=0, log=entries) == "hidden_information_revealed"
    assert reason(policy="turn", requester=1, log=entries) == "other_seat_acted"
    assert reason(policy="none", requester=0, log=entries) == "undo_disabled"
    assert reason(policy="turn", requester=0, log=log()) == "nothing_to_undo"
    assert reason(policy="turn", requester=0, log=entries, finished=True) == "game_finished"
    assert reason(policy="turn", requester=HOST, log=entries, to_version=3) == "not_allowed"


def test_host_truncates_anywhere_after_the_setup() -> None:
    entries = log((1, "KnightPlaced"), (0, "CardPlayed"), (0, "CardDrawn"))
    assert undo_target(GAME, "host", HOST, entries, 2, 2, False) == 2
    assert reason(policy="host", requester=HOST, log=entries, to_version=1) == "bad_version"
    assert reason(policy="host", requester=HOST, log=entries, to_version=5) == "bad_version"
    assert reason(policy="host", requester=HOST, log=entries) == "to_version_required"
    # under "host" players keep their own turn undo
    assert undo_target(GAME, "host", 0, log((0, "CardPlayed")), None, 2, False) == 2


def test_undo_never_cuts_one_command_in_two() -> None:
    entries = [
        *log((1, "KnightPlaced")),
        Logged(4, 0, 4, Event("CardPlayed", 0)),
        Logged(5, None, 4, Event("RoundEnded")),  # the same command's second event
        Logged(6, 1, 6, Event("CardPlayed", 1)),
    ]
    assert undo_target(GAME, "host", HOST, entries, 5, 2, False) == 5
    assert undo_target(GAME, "host", HOST, entries, 3, 2, False) == 3
    assert reason(policy="host", requester=HOST, log=entries, to_version=4) == "bad_version"
