"""Tables: the creation fields of the v1 additions, and joining, leaving, starting, resigning
and abandoning a game.  The decisions are the domain's (``domain.seating``); this module finds
the seat, hands out and revokes tokens, and appends through ``Chronicle.append_table``.

Invitations are stored as hashes (``meta.invitations``, one per seat open at creation).  An
invitation names its seat: it is refused (409 ``seat_taken``) while someone holds that seat
and valid again after they leave.  A public table takes the lowest open seat and needs no
invitation.

Preconditions, as for actions (``service/preconditions.py``): every command takes ``If-Match``
(412 ``precondition_failed`` unless it names the head the command is decided on; a command
that loses a race is decided again only while the head still matches).  ``start``, ``resign``
and ``abandon`` take an ``Idempotency-Key``: a retry replays the first answer while the log
holds what it appended (422 ``idempotency_key_reused`` after an undo removed it).  ``join``
and ``leave`` take none: a join's answer is the seat's token, shown once and stored only as
a hash, so it cannot be replayed (a retried private join answers 409 ``seat_taken`` naming
the seat); after a leave the token is void, so a retry cannot even say whose it was.
"""

from __future__ import annotations

import hashlib
import hmac
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from domain import seating
from domain import table as tables
from domain.engine import Event
from domain.errors import BadAction, Forbidden, StateConflict
from projections.views import HOST, SEAT, Caller
from service import auth, clocks, time_control
from service.chronicle import Chronicle
from service.errors import VersionConflict
from service.game_config import DEFAULT_UNDO
from service.loading import Current
from service.preconditions import check_if_match

RETRIES = 5  # a join that loses a race reloads and tries again


def table_section(body: Mapping[str, Any]) -> dict[str, Any] | None:
    """The ``table`` section of ``GameCreated`` from a creation request, or None when the
    request uses none of the v1 fields (its log is then exactly as before them)."""
    players = body["players"]
    fields: tuple[str, ...] = ("public", "turn_time", "resign_bot", "timeouts_before_takeover")
    fields += ("rated", "time_control", "timezone")
    open_seats = [i for i, p in enumerate(players) if p.get("open")]
    if not open_seats and all(body.get(f) is None for f in fields):
        return None
    problems: dict[str, list[str]] = {}
    turn_time = body.get("turn_time")
    if turn_time is not None:
        ms = tables.duration_ms(turn_time)
        minimum = clocks.min_turn_time()
        least = tables.duration_ms(minimum) or 1000
        if ms is None:
            problems["turn_time"] = ["an ISO 8601 duration of weeks to seconds, e.g. P3D, PT2M"]
        elif ms < least:
            problems["turn_time"] = [f"at least {minimum}"]
        elif ms > (tables.duration_ms(clocks.MAX_TURN_TIME) or 0):
            problems["turn_time"] = [f"at most {clocks.MAX_TURN_TIME}"]
    turn_time, clock = time_control.checked(body, problems)  # time_control's per_turn
    if problems:
        raise BadAction("invalid table", problems)
    rules = tables.Rules(
        open=tuple(open_seats),
        public=bool(body.get("public")),
        turn_time=turn_time,
        resign_bot=body.get("resign_bot") or tables.DEFAULT_RESIGN_BOT,
        takeover_after=body.get("timeouts_before_takeover") or tables.DEFAULT_TAKEOVER_AFTER,
        rated=bool(body.get("rated")),
    )
    return {**rules.data(), **clock}


RATED_UNDO = ("none", "turn")  # undo policies a rated table may have


def check_rated(body: Mapping[str, Any], signed_in: bool) -> None:
    """A ``rated`` creation (contract: Ratings): the host is signed in, every other seat is a
    bot or open (and open seats are taken only by signed-in players: ``join``), no undo
    beyond one's own last move, and no chosen deal (a seed the host knows is a deal they
    could have looked at).  400 ``bad_request`` naming each problem otherwise."""
    if not body.get("rated"):
        return
    problems: dict[str, list[str]] = {}
    if not signed_in:
        problems["rated"] = ["a rated table is created by a signed-in player"]
    people = [p for p in body["players"] if not p.get("bot") and not p.get("open")]
    if len(people) != 1:
        problems["players"] = ["one person (you) at a rated table; the others are bots or open"]
    undo = (body.get("options") or {}).get("undo", DEFAULT_UNDO)
    if undo not in RATED_UNDO:
        problems["options.undo"] = [f"a rated table's undo is one of: {', '.join(RATED_UNDO)}"]
    if body.get("seed") is not None:
        problems["seed"] = ["a rated table's deal is not chosen"]
    if problems:
        raise BadAction("this table cannot be rated", problems)


def _as_seat(caller: Caller) -> int:
    if caller.role != SEAT or caller.seat is None:
        raise Forbidden("not_a_player", "only a seat's token may do this")
    return caller.seat


def _as_host(caller: Caller) -> None:
    if caller.role != HOST:
        raise Forbidden("not_host", "only the host's token may do this")


def _seat_for(cur: Current, invitation: str | None) -> int:
    table = cur.match.table
    assert table is not None
    if table.status() != tables.WAITING:
        raise StateConflict("game_not_waiting", "the game has started; it takes no more players")
    if table.rules.public:
        free = table.open_seats()
        if not free:  # pragma: no cover - a table with no open seat has started
            raise StateConflict("seat_taken", "every seat is taken")
        return free[0]
    if not invitation:
        raise Forbidden("invitation_required", "this table is private: join with an invitation")
    presented = auth.token_hash(invitation)
    found = None
    for seat, stored in enumerate(cur.meta.invitations):
        if stored and hmac.compare_digest(presented, stored):
            found = seat
    if found is None:
        raise Forbidden("bad_invitation", "the invitation is not valid for this table")
    if not table.is_open(found):
        raise StateConflict("seat_taken", "this invitation's seat is taken", {"seat": found})
    return found


def idem_key(caller: Caller, command: str, key: str | None) -> str | None:
    """The idempotency record of ``command`` by ``caller`` (apart from its actions')."""
    if key is None:
        return None
    who = f"seat{caller.seat}" if caller.role == SEAT else caller.role
    return f"{who}:{command}:{hashlib.sha256(key.encode()).hexdigest()}"


def join(
    ch: Chronicle,
    game_id: str,
    name: str,
    invitation: str | None,
    if_match: str | None = None,
    player: str | None = None,
) -> dict[str, Any]:
    """Take a seat: ``{seat, token}`` (the token is shown this once); ``player``: the
    account joining, which holds the seat from then on (``SeatClaimed`` in the same batch)."""
    for _ in range(RETRIES):
        cur = ch.current(game_id)
        check_if_match(if_match, cur.match.version, cur.head)
        if player is not None and _blocked(ch, cur, player):
            raise Forbidden("blocked", "the host of this table does not take you at it")
        _check_rated_join(cur, player)
        seat = _seat_for(cur, invitation)
        events = seating.join(cur.match, seat, name, player)
        token = auth.new_token()
        hashes = list(cur.meta.tokens)
        hashes[seat] = auth.token_hash(token)
        command = seating.command("join", seat=seat, name=name)
        changes = None
        if player is not None:
            command["player"] = player
            changes = {"players": _held(cur, seat, player)}
            ch.accounts_of().add_game(player, game_id, cur.meta.created_at)
        try:
            ch.append_table(cur, events, seat, command, tokens=hashes, changes=changes)
        except VersionConflict:
            continue
        return {"seat": seat, "token": token}
    raise StateConflict("seat_taken", "the table is busy; try again")


def _check_rated_join(cur: Current, player: str | None) -> None:
    """A rated table's open seats are taken by signed-in players only, one seat each (a
    rating is a person's: a guest has none, and nobody plays against themself)."""
    table = cur.match.table
    if table is None or not table.rules.rated:
        return
    if player is None:
        raise Forbidden("rated_needs_account", "a rated table's seats are taken signed in")
    if player in (cur.meta.players or ()):
        raise Forbidden("rated_one_seat", "you already hold a seat at this rated table")


def _blocked(ch: Chronicle, cur: Current, player: str) -> bool:
    host = cur.meta.host_player
    return host is not None and ch.accounts_of().blocked_by(host, player)


def _held(cur: Current, seat: int, player: str) -> tuple[str | None, ...]:
    players = list(cur.meta.players or (None,) * len(cur.meta.tokens))
    players[seat] = player
    return tuple(players)


def claim(
    ch: Chronicle,
    game_id: str,
    seat: int,
    player: str,
    host: bool = False,
    if_match: str | None = None,
) -> dict[str, Any]:
    """``player``'s account holds ``seat`` from now on (``SeatClaimed``): ``{seat, player,
    version}``.  ``host``: the account also created the table (a signed-in creation), which
    makes it the one whose blocks keep players from joining.  Claiming a seat one already
    holds appends nothing."""

    def command(cur: Current, idem: str | None) -> dict[str, Any]:
        # before the append: a seat never misses its game (adding it again changes nothing)
        ch.accounts_of().add_game(player, game_id, cur.meta.created_at)
        events = seating.claim(cur.match, seat, player)
        if not events:
            return {"seat": seat, "player": player, "version": cur.match.version}
        changes: dict[str, Any] = {"players": _held(cur, seat, player)}
        if host:
            changes["host_player"] = player
        recorded = seating.command("claim", seat=seat, player=player)
        match = ch.append_table(cur, events, seat, recorded, changes=changes)
        return {"seat": seat, "player": player, "version": match.version}

    return _retrying(ch, game_id, command, if_match)


def leave(
    ch: Chronicle, game_id: str, caller: Caller, if_match: str | None = None
) -> dict[str, Any]:
    seat = _as_seat(caller)

    def command(cur: Current, idem: str | None) -> dict[str, Any]:
        events = seating.leave(cur.match, seat)
        hashes = list(cur.meta.tokens)
        hashes[seat] = None  # the token is void; the invitation is valid again
        command = seating.command("leave", seat=seat)
        match = ch.append_table(cur, events, seat, command, tokens=hashes)
        return {"version": match.version, "seat": seat}

    return _retrying(ch, game_id, command, if_match)


def start(
    ch: Chronicle,
    game_id: str,
    caller: Caller,
    fill: str | None,
    if_match: str | None = None,
    idempotency_key: str | None = None,
) -> dict[str, Any]:
    """Fill every open seat with ``fill`` (default: the table's resign bot) and start."""
    _as_host(caller)

    def command(cur: Current, idem: str | None) -> dict[str, Any]:
        table = cur.match.table
        assert table is not None
        bot = fill or table.rules.resign_bot
        events = seating.start(cur.match, bot, cur.game.bots)
        answer = {"version": cur.match.version + len(events), "filled": events[0].data["filled"]}
        _append(ch, cur, events, None, seating.command("start", fill=bot), idem, answer)
        return answer

    idem = idem_key(caller, "start", idempotency_key)
    return _retrying(ch, game_id, command, if_match, idem)


def resign(
    ch: Chronicle,
    game_id: str,
    caller: Caller,
    if_match: str | None = None,
    idempotency_key: str | None = None,
) -> dict[str, Any]:
    seat = _as_seat(caller)

    def command(cur: Current, idem: str | None) -> dict[str, Any]:
        events = seating.resign(cur.match, cur.game, seat)
        version = cur.match.version + len(events)
        answer = {"version": version, "seat": seat, "bot": events[0].data["bot"]}
        _append(ch, cur, events, seat, seating.command("resign", seat=seat), idem, answer)
        return answer

    return _retrying(ch, game_id, command, if_match, idem_key(caller, "resign", idempotency_key))


def abandon(
    ch: Chronicle,
    game_id: str,
    caller: Caller,
    if_match: str | None = None,
    idempotency_key: str | None = None,
) -> dict[str, Any]:
    _as_host(caller)

    def command(cur: Current, idem: str | None) -> dict[str, Any]:
        events = seating.abandon(cur.match, cur.game)
        answer = {"version": cur.match.version + len(events), "status": tables.ABANDONED}
        _append(ch, cur, events, None, seating.command("abandon"), idem, answer)
        return answer

    idem = idem_key(caller, "abandon", idempotency_key)
    return _retrying(ch, game_id, command, if_match, idem)


def _append(
    ch: Chronicle,
    cur: Current,
    events: Sequence[Event],
    actor: int | None,
    command: Mapping[str, Any],
    idem: str | None,
    answer: Mapping[str, Any],
) -> None:
    ch.append_table(cur, events, actor, command, idem=(idem, answer) if idem else None)


def _retrying(
    ch: Chronicle,
    game_id: str,
    command: Callable[[Current, str | None], dict[str, Any]],
    if_match: str | None = None,
    idem: str | None = None,
) -> dict[str, Any]:
    """A table command races moves and bots: on a conflict, decide again on the new state
    (while ``if_match`` still names it); ``idem``: a stored answer is replayed instead."""
    for attempt in range(RETRIES):
        if idem is not None and (stored := ch.idempotent(game_id, idem)) is not None:
            return stored
        cur = ch.current(game_id)
        check_if_match(if_match, cur.match.version, cur.head)
        try:
            return command(cur, idem)
        except VersionConflict:
            if attempt == RETRIES - 1:
                raise
    raise AssertionError("unreachable")  # pragma: no cover
