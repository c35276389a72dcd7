"""Deal Lancaster's hidden information at random, consistent with one seat's view (for the
``mcts`` bot).

Hidden from a seat (LA-5): the gold and squires behind other seats' screens (with 3-5 players),
the tiles and markers of votes others committed on the law being voted, and the contents of the
law deck's groups and of the conflict deck (the view shows only their sizes; the orders exist
nowhere).  The sampler deals them:

- a hidden screen: gold and squires near the seat's own (everybody starts alike and earns at a
  similar pace), one up or down at random; while law L1 asks the seats with the most gold, those
  seats get the most;
- a committed vote of another seat: a tile and a number of its markers, uniformly;
- each law group: as many laws as the view counts, drawn from the group's laws not in sight
  (current or under debate); the conflict deck likewise from the cards in play not on the board.
  The view does not list the laws and conflicts already discarded, so these may deal one that is
  gone: consistent with the view, a little looser than the full public log.

Everything else, including where each phase stands, is read off the view (``pending``).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from domain.frozen import replace
from domain.games.lancaster.data import CONFLICTS, LAW_GROUPS, LETTERS
from domain.games.lancaster.setup import removed_conflicts
from domain.games.lancaster.state import Conflict, Occupant, Player, State, Vote
from domain.search.ismcts import FastRng

TILES = ("yes", "no")


def _near(value: int, rng: FastRng) -> int:
    return max(0, value + rng.below(3) - 1)


def _players(view: Mapping[str, Any], rng: FastRng) -> tuple[Player, ...]:
    rows = view["players"]
    mine = rows[view["you"]] if view["you"] is not None else rows[0]
    out = []
    for row in rows:
        shown = "gold" in row
        out.append(
            Player(
                colour=row["colour"],
                ally=row["ally"],
                gold=row["gold"] if shown else _near(mine.get("gold", 0), rng),
                squires=row["squires"] if shown else _near(mine.get("squires", 0), rng),
                markers=row["markers"],
                power=row["power"],
                nobles=tuple(row["nobles"]),
                built=frozenset(row["extensions"]),
            )
        )
    return tuple(out)


def _most_gold(
    view: Mapping[str, Any], players: tuple[Player, ...], queue: list[int]
) -> tuple[Player, ...]:
    """L1 asks only the seats with the most gold, so its queue is a public fact about the
    screens: those seats get the most gold, nobody hidden gets more."""
    shown = [s for s, row in enumerate(view["players"]) if "gold" in row]
    known = [players[s].gold for s in queue if s in shown]
    top = max(known) if known else max(p.gold for p in players)
    out = []
    for s, p in enumerate(players):
        if s not in shown:
            p = replace(p, gold=top if s in queue else min(p.gold, top))
        out.append(p)
    return tuple(out)


def _card(data: Mapping[str, Any]) -> Conflict:
    return Conflict(data["n"], tuple(tuple(stack) for stack in data["spaces"]))


def sample(view: Mapping[str, Any], rng: FastRng) -> State:
    """A full state whose ``view(state, seat)`` is ``view``; hidden parts dealt by ``rng``."""
    n = len(view["players"])
    players = _players(view, rng)
    court: set[str] = set()
    reserve: set[str] = set()
    for row in view["players"]:
        for part in ("knights", "ally_knights"):
            if part in row:
                court.update(row[part]["court"])
                reserve.update(row[part]["reserve"])
    counties = {
        L: Occupant(c["occupant"]["knight"], c["occupant"]["squires"])
        for L, c in view["counties"].items()
        if c["occupant"] is not None
    }
    castle = {k: sp for spaces in view["castles"].values() for sp, k in spaces.items()}
    upper = tuple(_card(c) for c in view["conflicts"]["upper"])
    lower = tuple(_card(c) for c in view["conflicts"]["lower"])
    laws = view["laws"]
    seen = set(laws["current"]) | set(laws["debate"])
    law_deck = tuple(
        tuple(sorted(rng.sample([x for x in group if x not in seen], size)))
        for group, size in zip(LAW_GROUPS, laws["deck"], strict=True)
    )
    on_board = {c.n for c in (*upper, *lower)}
    unseen = [c for c in sorted(CONFLICTS) if c not in on_board and c not in removed_conflicts(n)]
    conflict_deck = tuple(sorted(rng.sample(unseen, view["conflicts"]["deck"])))
    phase, pending = view["phase"], view["pending"] or {}
    kind = pending.get("kind")
    votes: dict[int, Vote] = {}
    if phase == "vote":
        for s in view["vote"]["committed"]:
            if s == view["you"]:
                mine = view["vote"]["mine"]
                votes[s] = Vote(mine["tile"], mine["markers"])
            else:
                votes[s] = Vote(TILES[rng.below(2)], rng.below(players[s].markers + 1))
    if kind == "law" and pending["law"] == "L1":
        players = _most_gold(view, players, pending["seats"])
    order = view["order"]
    return State(
        n=n,
        players=players,
        round=view["round"],
        phase=phase,
        start=view["start"],
        court=frozenset(court),
        reserve=frozenset(reserve),
        prisoners=tuple(view["prisoners"]),
        counties=counties,
        castle=castle,
        upper=upper,
        lower=lower,
        conflict_deck=conflict_deck,
        noble_stock={L: view["counties"][L]["nobles_left"] for L in LETTERS},
        favour_up=frozenset(view["favour"]["face_up"]),
        conflict_knights=view["favour"]["conflict_knights"],
        favour_due=pending["knight"] if kind == "favour" else None,
        law_deck=law_deck,
        current=tuple(laws["current"]),
        debate=tuple(laws["debate"]),
        votes=votes,
        turn=pending["seat"] if kind == "place" else None,
        law_pos=laws["current"].index(pending["law"]) if kind == "law" else 0,
        law_queue=tuple(pending["seats"]) if kind == "law" else None,
        county_pos=LETTERS.index(pending["county"]) if kind == "county" else 0,
        surrey=pending["seat"] if kind == "start_player" else None,
        castle_pos=order.index(pending["seat"]) if kind == "castle" else 0,
        castle_taken=frozenset(pending["taken"]) if kind == "castle" else frozenset(),
        castle_passed=False,
        conflict_queue=tuple(c.n for c in (*lower, *upper)) if phase == "conflicts" else (),
    )
