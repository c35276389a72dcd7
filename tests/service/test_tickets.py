"""Stream tickets (``service.tickets``) live at least the ``expires_in`` they announce."""

from __future__ import annotations

from dataclasses import replace

import pytest

from projections.views import SEAT, Caller
from service import tickets
from service.auth import Unauthorized
from service.meta import GameMeta, Progress

META = GameMeta(
    game="artus", seed="s", seed_commitment="c", tokens=("hash-0", "hash-1"), host="h",
    created_at=0, setup_version=1, options={}, seats=(),
    progress=Progress(status="active", to_act=(0,), follow_ups=(), updated_at=0),
)  # fmt: skip


@pytest.mark.parametrize("issued", [100.0, 100.01, 100.5, 100.99])
def test_a_ticket_lives_its_whole_lifetime_and_no_longer_than_a_second_more(
    issued: float, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CHRONICLE_STREAM_TICKET_SECONDS", "1")
    caller = Caller(SEAT, 1)
    doc = tickets.issue(META, "g1", caller, now=issued)
    assert doc["expires_in"] == 1
    # rounded down, a ticket issued at 100.99 s died 0.01 s later
    assert tickets.redeem(META, "g1", doc["ticket"], now=issued + 0.999) == caller
    with pytest.raises(Unauthorized):
        tickets.redeem(META, "g1", doc["ticket"], now=issued + 2.0)
    with pytest.raises(Unauthorized):  # another game, another seat's hash
        tickets.redeem(replace(META, tokens=("hash-0", "other")), "g1", doc["ticket"], now=issued)
