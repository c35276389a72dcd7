"""``GameMeta.moved`` is ``dataclasses.replace`` of version, head and progress (every move
makes one; ``replace`` inspects all the fields)."""

from __future__ import annotations

import dataclasses

import pytest

from service.meta import GameMeta, Progress

BEFORE = Progress(status="active", to_act=(0,), follow_ups=(("bot", 1),), updated_at=1)
AFTER = Progress(status="finished", to_act=(), follow_ups=(), updated_at=2, result={"w": [0]})
META = GameMeta(
    game="artus", seed="s", seed_commitment="c", tokens=("t0", None), host="h", created_at=0,
    setup_version=1, options={"o": "1"}, seats=({"seat": 0},), progress=BEFORE, version=4,
    head="h4", table={"public": True}, invitations=("i",), hooks=True,
)  # fmt: skip


def test_moved_is_replace_of_three_fields_and_leaves_the_original_alone() -> None:
    moved = META.moved(9, "h9", AFTER)
    assert moved == dataclasses.replace(META, version=9, head="h9", progress=AFTER)
    assert (META.version, META.head, META.progress) == (4, "h4", BEFORE)
    assert moved.public and moved.hooks and moved.jobs("g") == []
    with pytest.raises(dataclasses.FrozenInstanceError):
        moved.version = 10  # type: ignore[misc]
