"""What a seat may not see, computed from the FULL state, one function per game; and the check
that a response document shows none of it.

Each game's rules digest (``docs/digests/*.md``) names its hidden information:

- Artus (AR-8): other seats' hands, every pile's cards (and a draw's card, to the others).
- Kings and Castles (KC-8): each colour's exact money, to every seat but its owner, until the
  final taxation reveals all.
- Lancaster (LA-5): gold and squires behind the screens (3+ players), committed votes (tile
  and markers) until the reveal, the law and conflict decks' contents in order.

``hidden(game, state, seat)`` lists those secrets for ``seat`` (None: a spectator or the host,
who may see only the public view) at ``state``; ``problems(...)`` walks a response document and
reports every place where one of them shows: by value where values identify a secret (a card
id, an exact amount keyed by its colour) and by structure where they do not (which keys a
view, an event or a vote may carry).  The check is not a search for strings: it compares the
document's structure and values against the full state of the game at that version.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from domain.engine import Match
from domain.games.kings_and_castles.setup import seating


@dataclass(frozen=True)
class Hidden:
    """The secrets of one seat at one state."""

    values: frozenset[str] = frozenset()  # string values that must appear nowhere
    money: dict[str, int] = field(default_factory=dict)  # KC: colour -> exact money, hidden
    screens: bool = False  # Lancaster: other seats' gold and squires are hidden
    votes: dict[int, dict[str, Any]] = field(default_factory=dict)  # Lancaster: others' votes


def leaves(doc: Any, path: str = "") -> Iterator[tuple[str, Any]]:
    """(path, value) of every leaf, and every dict key as a leaf of its own."""
    if isinstance(doc, dict):
        for k, v in doc.items():
            yield f"{path}.{k}#key", k
            yield from leaves(v, f"{path}.{k}")
    elif isinstance(doc, list):
        for i, v in enumerate(doc):
            yield from leaves(v, f"{path}[{i}]")
    else:
        yield path, doc


def dicts(doc: Any, path: str = "") -> Iterator[tuple[str, dict]]:
    if isinstance(doc, dict):
        yield path, doc
        for k, v in doc.items():
            yield from dicts(v, f"{path}.{k}")
    elif isinstance(doc, list):
        for i, v in enumerate(doc):
            yield from dicts(v, f"{path}[{i}]")


# ---- the secrets of each game ---------------------------------------------------------------
def hidden(game: str, match: Match, seat: int | None) -> Hidden:
    state = match.state
    if game == "artus":
        others = [c for t, hand in enumerate(state.hands) if t != seat for c in hand]
        piles = [c for own in state.piles for cards in own.values() for c in cards]
        return Hidden(values=frozenset(others + piles))
    if game == "kings-and-castles":
        if state.phase == "over":  # KC-8: the final taxation reveals all money
            return Hidden()
        return Hidden(money={c: m for c, m in state.money.items() if state.owners[c] != seat})
    if game == "lancaster":
        votes = {
            t: {"tile": v.tile, "markers": v.markers} for t, v in state.votes.items() if t != seat
        }
        return Hidden(screens=state.n >= 3, votes=votes)
    raise AssertionError(f"no secrecy rules for {game}")


# ---- the checks -----------------------------------------------------------------------------
def problems(
    game: str,
    kind: str,
    doc: Any,
    match: Match,
    seat: int | None,
    echo: frozenset[str] = frozenset(),
) -> list[str]:
    """Leaks of ``seat``'s secrets at ``match`` in ``doc``.

    ``kind``: ``view`` (a view document at ``match``'s version), ``event`` (one event, at its
    own version), ``actions`` (the legal actions now) or ``error`` (an error body; ``echo`` are
    the strings the caller itself sent, which an error may repeat)."""
    h = hidden(game, match, seat)
    out: list[str] = []
    for path, value in leaves(doc):
        if isinstance(value, str) and value in h.values and value not in echo:
            out.append(f"{kind}{path}: hidden value {value!r}")
    for path, d in dicts(doc):
        for colour, amount in h.money.items():
            # an exact amount keyed by its colour (the last digit alone is public)
            if d.get(colour) == amount and amount >= 10 and not path.endswith("money_digit"):
                out.append(f"{kind}{path}: {colour}'s money {amount}")
        if h.votes and {"tile", "markers"} <= set(d) and kind == "view":
            mine = path.endswith(".vote.mine")
            if not mine:
                out.append(f"{kind}{path}: a vote that is not the caller's: {d}")
    if kind == "view":
        out += _view(game, doc["state"], match, seat, h)
    elif kind == "event":
        out += _event(game, doc, seat, h, match)
    return out


def _view(game: str, view: dict, match: Match, seat: int | None, h: Hidden) -> list[str]:
    state = match.state
    out: list[str] = []
    if game == "artus":
        out += [f"view.state.{k}: shown" for k in ("hands", "pile_cards") if k in view]
        own = list(state.hands[seat]) if seat is not None else None
        if view.get("hand") != own:
            out.append(f"view.state.hand is {view.get('hand')}, the seat holds {own}")
    elif game == "kings-and-castles":
        shown = set(view.get("money", {}))
        if shown & set(h.money):
            out.append(f"view.state.money shows {sorted(shown & set(h.money))}")
    elif game == "lancaster":
        for i, row in enumerate(view["players"]):
            if h.screens and i != seat and ({"gold", "squires"} & set(row)):
                out.append(f"view.state.players[{i}]: gold/squires behind a screen")
        vote = view.get("vote") or {}
        if "votes" in vote:
            out.append("view.state.vote.votes: every committed vote shown")
        if "mine" in vote and (seat is None or seat not in state.votes):
            out.append("view.state.vote.mine: a vote of nobody's")
        out += [
            f"view.state.{part}.deck_cards: a deck's cards shown"
            for part in ("conflicts", "laws")
            if "deck_cards" in view.get(part, {})
        ]
    return out


def _event(game: str, event: dict, seat: int | None, h: Hidden, match: Match) -> list[str]:
    kind, data, about = event["type"], event["data"], event["seat"]
    out: list[str] = []
    if "command" in event:
        out.append(f"event {event['version']}: carries its command")
    if game == "artus":
        if kind == "GameStarted" and "hands" in data:  # the set-up, not the table's start
            for t, hand in enumerate(data["hands"]):
                if t != seat and hand is not None:
                    out.append(f"GameStarted: seat {t}'s hand shown")
        if kind == "CardDrawn" and about != seat and set(data) != {"pile"}:
            out.append(f"CardDrawn {event['version']}: shows {data}")
    elif game == "kings-and-castles":
        if kind == "TaxCollected":
            # rules version 1 recorded the colours' seats; version 2 derives them from the count
            owners = data.get("seats") or seating(match.config.n)[1]
            foreign = [c for c in data["amounts"] if owners[c] != seat]
            if foreign:
                out.append(f"TaxCollected {event['version']}: amounts of {foreign}")
    elif game == "lancaster":
        if kind == "VoteCommitted" and about != seat and set(data) != {"law"}:
            out.append(f"VoteCommitted {event['version']}: shows {data}")
        split = {"gold", "squires"} & set(data.get("gains", {}))
        if kind == "FavourTaken" and about != seat and h.screens and split:
            out.append(f"FavourTaken {event['version']}: the goods split shown")
    return out
