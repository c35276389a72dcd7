"""Table chat: short lines from the seats (room ``players``) and from anyone (``spectators``).

Chat is kept with the game but outside its rules log: a line never changes the game's version
and no rule ever sees it.  Keys (hash-tagged like the game's, so they share its slot):

- ``{g:ID}:chat``         a stream, one entry per line, id ``<line>-0`` (line ids count from
                          1), one field ``l``: the JSON ``{room, seat, name, at, text}``;
- ``{g:ID}:chat:n``       the last line id;
- ``{g:ID}:chat:hidden``  hash: line id -> JSON ``{by, at}`` of the host's hiding it (the line is
                          kept; readers get it without its text, the export with it);
- ``{g:ID}:chat:rate:*``  per-sender counters of the rate limit.

Each line and each hide is announced on the stream's channel (``chat <game id> <line id>``,
a line in the same atomic call that adds it): the push stream (``service.chat_stream``) shows
each line only to callers who may read its room (``readable_rooms``), a hidden one without
its text.

The players' room is readable by the seats (and the operator) until the game is over, then by
everyone; the spectators' room by everyone.  Limits: ``MAX_TEXT`` characters a line, and
``CHRONICLE_CHAT_RATE`` lines per sender per window (``<lines>/<seconds>``, default
``5/10``); over it, 429 ``rate_limited`` with ``Retry-After``.  A line or a spectator's name
holding an invisible or reordering character (``service.invisible``) is refused.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import redis

from domain.errors import BadAction, Forbidden
from projections.records import iso
from projections.views import ADMIN, HOST, SEAT, Caller
from service import invisible
from service.errors import RateLimited
from service.stream import CHANNEL

PLAYERS, SPECTATORS = "players", "spectators"
ROOMS = (PLAYERS, SPECTATORS)
MAX_TEXT = 500
PAGE = 500
MAX_LINE = 1_000_000_000  # line ids are stream ids: larger ones are no line at all
DEFAULT_RATE = "5/10"

_ADD = """
local n = redis.call('INCR', KEYS[2])
redis.call('XADD', KEYS[1], n .. '-0', 'l', ARGV[1])
redis.call('PUBLISH', ARGV[2], 'chat ' .. ARGV[3] .. ' ' .. n)
return n
"""


def redis_of(store: Any) -> redis.Redis:
    """The Redis client beside the event store: chat lines and webhooks are kept with the
    game, under its hash tag, but outside its log (``RedisEventStore.r``)."""
    client = getattr(store, "r", None)
    if client is None:  # pragma: no cover - every store that serves HTTP is a Redis one
        raise RuntimeError("chat and webhooks need the Redis event store")
    return client


def export_of(store: Any, game_id: str) -> list[dict[str, Any]]:
    """The game's chat for its export; a store with no Redis beside it (the in-memory twin of
    the tests) keeps no chat, so it has none to export."""
    client = getattr(store, "r", None)
    return export_lines(client, game_id) if client is not None else []


def restore_into(store: Any, game_id: str, lines: Sequence[Mapping[str, Any]]) -> None:
    """An imported game's chat, kept beside the store (none to keep: nothing is needed)."""
    if lines:
        restore(redis_of(store), game_id, lines)


def keys(game_id: str) -> dict[str, str]:
    tag = f"{{g:{game_id}}}"
    return {
        "chat": f"{tag}:chat",
        "n": f"{tag}:chat:n",
        "hidden": f"{tag}:chat:hidden",
        "rate": f"{tag}:chat:rate:",
    }


def rate(env: Mapping[str, str] = os.environ) -> tuple[int, int]:
    lines, _, seconds = (env.get("CHRONICLE_CHAT_RATE") or DEFAULT_RATE).partition("/")
    return int(lines), int(seconds or 10)


def readable_rooms(caller: Caller, over: bool) -> tuple[str, ...]:
    """The rooms ``caller`` may read (``over``: the game is finished or abandoned)."""
    if over or caller.role in (SEAT, ADMIN):
        return ROOMS
    return (SPECTATORS,)


def post(
    r: redis.Redis,
    game_id: str,
    caller: Caller,
    seat_names: Sequence[str | None],
    text: str,
    room: str | None,
    name: str | None,
    sender: str,
    at: int,
    player: str | None = None,
) -> dict[str, Any]:
    """Append a line; ``sender`` keys the rate limit (a seat, or a spectator's address);
    ``player``: the account saying it (kept with the line, so that readers who blocked it
    can have it hidden)."""
    room = room or (PLAYERS if caller.role == SEAT else SPECTATORS)
    if room not in ROOMS:
        raise BadAction(f"unknown room {room!r}", {"room": [f"one of: {', '.join(ROOMS)}"]})
    if not 1 <= len(text) <= MAX_TEXT:
        raise BadAction(f"a line is 1 to {MAX_TEXT} characters", {"text": ["length"]})
    why = invisible.problem(text, line=True)
    if why is not None:
        raise BadAction(f"text: {why}", {"text": [why]})
    seat = caller.seat if caller.role == SEAT else None
    if room == PLAYERS and seat is None:
        raise Forbidden("not_a_player", "only the seats speak in the players' room")
    if seat is not None:
        name = seat_names[seat] or f"seat {seat}"
    elif not name:
        what = "the host" if caller.role == HOST else "a spectator"
        raise BadAction(f"{what} speaks with a name", {"name": ["missing"]})
    elif why := invisible.problem(name):
        raise BadAction(f"name: {why}", {"name": [why]})
    limit, window = rate()
    counter = keys(game_id)["rate"] + (f"seat:{seat}" if seat is not None else sender)
    pipe = r.pipeline(transaction=False)
    pipe.set(counter, 0, ex=window, nx=True)  # a fixed window, opened by its first line
    pipe.incr(counter)
    _, count = pipe.execute()
    if int(count) > limit:
        ttl = max(1, int(r.ttl(counter) or window))
        raise RateLimited(
            f"at most {limit} lines every {window} s; wait {ttl} s",
            {"limit": f"{limit}/{window}s", "retry_after": ttl},
        )
    line = {"room": room, "seat": seat, "name": name, "at": iso(at), "text": text}
    if player is not None:
        line["player"] = player
    k = keys(game_id)
    body = json.dumps(line, ensure_ascii=False)
    n = int(r.eval(_ADD, 2, k["chat"], k["n"], body, CHANNEL, game_id))
    return {"id": n, **line}


def screened(doc: dict[str, Any], blocked: frozenset[str]) -> dict[str, Any]:
    """A line as a reader who blocked its sender gets it: without its text, ``blocked``."""
    if not blocked or doc.get("player") not in blocked:
        return doc
    out = {k: v for k, v in doc.items() if k != "text"}
    out["blocked"] = True
    return out


def lines(
    r: redis.Redis,
    game_id: str,
    rooms: Iterable[str],
    after: int,
    with_hidden_text: bool = False,
    blocked: frozenset[str] = frozenset(),
) -> list[dict[str, Any]]:
    """Lines after ``after`` in ``rooms``; a hidden line without its text (unless asked), a
    line of a player in ``blocked`` without it too (``screened``)."""
    wanted = set(rooms)
    k = keys(game_id)
    entries: list[Any] = r.xrange(k["chat"], f"{after + 1}-0", "+", count=PAGE) or []
    hidden = {int(i): json.loads(v) for i, v in r.hgetall(k["hidden"]).items()}
    out: list[dict[str, Any]] = []
    for entry_id, fields in entries:
        line_id = int(_s(entry_id).split("-", 1)[0])
        line = json.loads(fields[b"l"])
        if line["room"] not in wanted:
            continue
        doc = {"id": line_id, **line}
        if line_id in hidden:
            doc["hidden"] = True
            if with_hidden_text:
                doc["hidden_by"] = hidden[line_id]
            else:
                doc.pop("text")
        out.append(screened(doc, blocked))
    return out


def hide(r: redis.Redis, game_id: str, line_id: int, at: int) -> bool:
    """Hide a line (the host): recorded, never erased.  False if there is no such line."""
    k = keys(game_id)
    if not r.xrange(k["chat"], f"{line_id}-0", f"{line_id}-0"):
        return False
    r.hset(k["hidden"], str(line_id), json.dumps({"by": "host", "at": iso(at)}))
    r.publish(CHANNEL, f"chat {game_id} {line_id} hidden")
    return True


def export_lines(r: redis.Redis, game_id: str) -> list[dict[str, Any]]:
    """Every line of every room, hidden ones with their text and who hid them."""
    out: list[dict[str, Any]] = []
    after = 0
    while True:
        page = lines(r, game_id, ROOMS, after, with_hidden_text=True)
        if not page:
            return out
        out += page
        after = page[-1]["id"]


def restore(r: redis.Redis, game_id: str, doc_lines: Sequence[Mapping[str, Any]]) -> None:
    """An imported game's chat, as exported (ids kept)."""
    k = keys(game_id)
    last = 0
    for line in doc_lines:
        try:
            line_id = int(line["id"])
            body = {f: line[f] for f in ("room", "seat", "name", "at", "text")}
        except (KeyError, TypeError, ValueError):
            continue
        if line_id <= last:
            continue
        r.xadd(k["chat"], {"l": json.dumps(body, ensure_ascii=False)}, id=f"{line_id}-0")
        if line.get("hidden_by"):
            r.hset(k["hidden"], str(line_id), json.dumps(line["hidden_by"]))
        last = line_id
    if last:
        r.set(k["n"], last)


def _s(v: Any) -> str:
    return v.decode() if isinstance(v, bytes) else str(v)
