"""Ratings: a projection of the finished rated games' logs (contract: v2 additions, Ratings).

**The fold.**  Each finished game becomes one ``Rated`` entry, read from its log alone
(``rated_game``): the game id, the time of its ``GameFinished`` record, and per seat the
*rater* and its rank.  The rater is the account that holds the seat (its last ``SeatClaimed``)
or, for a seat a bot played from the start, ``bot:<bot>`` (``bot:mcts`` is named
``bot:mcts:normal``: it is that level).  The rank follows ``result.ranking``; seats of equal
score tie; every resigned seat ranks last (tied with the other resigned seats).  A game is not
rated when it was abandoned, never finished, was not created ``rated`` (unless the caller asks
for every game: the bots' ladder), has a seat nobody can be named for (a guest), or one rater
at two seats.  ``fold`` sorts the entries by finishing time then id and applies OpenSkill's
Plackett-Luce model with its default parameters to each in turn, one game kind apart from
another: so the same exports, in any order, give the same table, and ``chronicle ratings``
prints the numbers the service keeps.

**The live table** (``Ratings``) is that fold kept in Redis, updated by the scoring job once a
game's result is appended (never inside the append).  Keys, under one hash tag per game kind
so that a write of several is one transaction, on a Redis Cluster as well:

- ``ratings:{<game>}``         hash: rater -> JSON ``{mu, sigma, games}``;
- ``ratings:{<game>}:done``    set: the games already counted (a job run twice counts once);
- ``ratings:{<game>}:games``   hash: game id -> its entry (JSON), the fold's input;
- ``ratings:{<game>}:last``    the (finishing time, id) of the latest entry counted;
- ``ratings:{<game>}:lock``    held while one game is counted.

A game that finished after the latest one counted is applied to the stored ratings of its
raters alone; one whose result reached the worker late (it sorts before the latest) makes the
whole table folded again from the stored entries, so the live table is always the fold.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import redis
from openskill.models import PlackettLuce

from domain import engine
from domain import table as tables
from projections.records import Recorded

if TYPE_CHECKING:
    from service.chronicle import Chronicle

PROVISIONAL_GAMES = 5  # fewer rated games than this: the rating is provisional
BOT = "bot:"
BOT_ALIASES = {"mcts": "mcts:normal"}  # the catalog's words: "the same as the normal level"
MODEL = PlackettLuce()  # default parameters: mu 25, sigma 25/3, beta 25/6, tau 25/300
LOCK_SECONDS = 30


@dataclass(frozen=True)
class Rated:
    """One finished game as the fold reads it."""

    id: str
    game: str  # the game kind (``artus``): each kind has its own table
    finished_at: int  # the ``GameFinished`` record's time, ms since the epoch
    raters: tuple[str, ...]  # per seat: an account's public id or ``bot:<bot>``
    ranks: tuple[int, ...]  # per seat: 1 is first; equal numbers tie

    def key(self) -> tuple[int, str]:
        return (self.finished_at, self.id)

    def doc(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "game": self.game,
            "finished_at": self.finished_at,
            "raters": list(self.raters),
            "ranks": list(self.ranks),
        }

    @staticmethod
    def of(doc: Mapping[str, Any]) -> Rated:
        return Rated(
            str(doc["id"]),
            str(doc["game"]),
            int(doc["finished_at"]),
            tuple(str(r) for r in doc["raters"]),
            tuple(int(r) for r in doc["ranks"]),
        )


@dataclass(frozen=True)
class Standing:
    """A rater's rating in one game kind."""

    mu: float
    sigma: float
    games: int = 0

    @property
    def ordinal(self) -> float:
        """The conservative figure the tables are sorted by (mu - 3 sigma)."""
        return float(MODEL.rating(mu=self.mu, sigma=self.sigma).ordinal())

    @property
    def provisional(self) -> bool:
        return self.games < PROVISIONAL_GAMES

    def doc(self) -> dict[str, Any]:
        return {
            "mu": self.mu,
            "sigma": self.sigma,
            "ordinal": self.ordinal,
            "games": self.games,
            "provisional": self.provisional,
        }

    def stored(self) -> str:
        """JSON keeps a float exactly (its shortest repr), so a stored rating folds on as the
        one in memory would."""
        return json.dumps({"mu": self.mu, "sigma": self.sigma, "games": self.games})

    @staticmethod
    def of(text: str | bytes) -> Standing:
        doc = json.loads(text)
        return Standing(float(doc["mu"]), float(doc["sigma"]), int(doc["games"]))


def initial() -> Standing:
    return Standing(MODEL.mu, MODEL.sigma, 0)


def bot_rater(bot: str) -> str:
    return BOT + BOT_ALIASES.get(bot, bot)


def rated_game(game_id: str, records: Sequence[Recorded], everything: bool = False) -> Rated | None:
    """The fold's entry of a game's log, or None when the game is not rated (see the module's
    doc); ``everything``: rate a game created without ``rated`` too (the bots' ladder)."""
    if not records or records[0].type != engine.GAME_CREATED:
        return None
    created = records[0].data
    if not everything and not (created.get("table") or {}).get("rated"):
        return None
    bots: list[str | None] = [p.get("bot") for p in created["players"]]
    held: list[str | None] = [None] * len(bots)
    resigned: set[int] = set()
    finished: Recorded | None = None
    for rec in records[1:]:
        if rec.type == engine.GAME_FINISHED:
            finished = rec
        elif not tables.is_event(rec.type, rec.data):
            continue
        elif rec.type == tables.GAME_ABANDONED:
            return None
        elif rec.type == tables.GAME_STARTED:  # open seats the host gave to bots
            for seat, bot in (rec.data.get("filled") or {}).items():
                bots[int(seat)] = str(bot)
        elif rec.type == tables.SEAT_CLAIMED and rec.seat is not None:
            held[rec.seat] = str(rec.data["player"])
        elif rec.type == tables.SEAT_RESIGNED and rec.seat is not None:
            resigned.add(rec.seat)
    if finished is None:
        return None
    raters = [
        player or (bot_rater(bot) if bot else None) for player, bot in zip(held, bots, strict=True)
    ]
    if any(r is None for r in raters) or len(set(raters)) != len(raters):
        return None  # a guest's seat, or one rater at two seats
    return Rated(
        game_id,
        str(created["game"]),
        finished.at,
        tuple(r for r in raters if r is not None),
        ranks_of(finished.data, len(raters), resigned),
    )


def ranks_of(result: Mapping[str, Any], n: int, resigned: Iterable[int] = ()) -> tuple[int, ...]:
    """Each seat's rank from ``result.ranking`` (best first): a seat whose score equals the
    one before it shares its rank; resigned seats (``resigned``, and ``details.resigned``)
    all rank last."""
    gone = set(resigned) | set((result.get("details") or {}).get("resigned") or ())
    scores = {int(k): v for k, v in (result.get("scores") or {}).items()}
    ranking = [int(s) for s in result.get("ranking") or range(n)]
    ranks = [0] * n
    place = 0
    previous: Any = object()
    for position, seat in enumerate(s for s in ranking if s not in gone):
        score = scores.get(seat)
        if position == 0 or score is None or score != previous:
            place = position + 1
        previous = score
        ranks[seat] = place
    last = place + 1
    for seat in range(n):
        if seat in gone or ranks[seat] == 0:
            ranks[seat] = last
    return tuple(ranks)


def apply(table: Mapping[str, Standing], entry: Rated) -> dict[str, Standing]:
    """The new standings of ``entry``'s raters (the others do not change)."""
    before = [table.get(r) or initial() for r in entry.raters]
    teams = [[MODEL.rating(mu=s.mu, sigma=s.sigma)] for s in before]
    after = MODEL.rate(teams, ranks=[float(r) for r in entry.ranks])
    return {
        rater: Standing(float(team[0].mu), float(team[0].sigma), old.games + 1)
        for rater, team, old in zip(entry.raters, after, before, strict=True)
    }


Moved = dict[str, tuple[Standing, Standing]]  # rater -> its standing before and after a game


def changes(entries: Iterable[Rated], since: tuple[int, str]) -> dict[str, Moved]:
    """What each game from ``since`` on (by the fold's order) did to its raters' standings:
    what the end screen shows.  A result that arrives late changes every later game's."""
    unique = {e.id: e for e in entries}
    tables: dict[str, dict[str, Standing]] = {}
    out: dict[str, Moved] = {}
    for entry in sorted(unique.values(), key=Rated.key):
        table = tables.setdefault(entry.game, {})
        after = apply(table, entry)
        if entry.key() >= since:
            out[entry.id] = {r: (table.get(r) or initial(), s) for r, s in after.items()}
        table.update(after)
    return out


def fold(entries: Iterable[Rated]) -> dict[str, dict[str, Standing]]:
    """Every game kind's table: the entries in order of finishing time then id (a game given
    twice counts once)."""
    unique = {e.id: e for e in entries}
    out: dict[str, dict[str, Standing]] = {}
    for entry in sorted(unique.values(), key=Rated.key):
        table = out.setdefault(entry.game, {})
        table.update(apply(table, entry))
    return out


def ordered(table: Mapping[str, Standing], limit: int | None = None) -> list[tuple[str, Standing]]:
    """By ordinal, highest first (the rater's id breaks a tie, so the order is one)."""
    rows = sorted(table.items(), key=lambda item: (-item[1].ordinal, item[0]))
    return rows if limit is None else rows[:limit]


def bot_name(rater: str) -> str | None:
    """The catalog's words for a bot rater (``Thinker, hard (bot)``); None for an account."""
    if not rater.startswith(BOT):
        return None
    from service.catalog import words  # the catalog's words, read when a name is asked

    bot = rater[len(BOT) :]
    label = (words().get("bots") or {}).get(bot, {}).get("label") or bot
    return f"{label} (bot)"


# ---- the live table ----------------------------------------------------------------------
def keys(game: str) -> dict[str, str]:
    tag = f"ratings:{{{game}}}"
    return {
        "table": tag,
        "done": f"{tag}:done",
        "games": f"{tag}:games",
        "last": f"{tag}:last",
        "lock": f"{tag}:lock",
        "changes": f"{tag}:changes",  # game id -> {rater: [before, after]} (stored standings)
    }


class Ratings:
    """The live tables in Redis (the events' Redis, beside the accounts)."""

    def __init__(self, r: redis.Redis) -> None:
        self.r = r

    def add(self, entry: Rated) -> str:
        """Count one finished game (once): ``counted``, ``refolded`` (it sorted before the
        latest counted, so the table was folded again) or ``done`` (counted before)."""
        k = keys(entry.game)
        with self.r.lock(k["lock"], timeout=LOCK_SECONDS, blocking_timeout=LOCK_SECONDS):
            if self.r.sismember(k["done"], entry.id):
                return "done"
            last = self.r.get(k["last"])
            in_order = last is None or entry.key() > tuple(json.loads(last))
            pipe = self.r.pipeline(transaction=True)
            pipe.hset(k["games"], entry.id, json.dumps(entry.doc()))
            pipe.sadd(k["done"], entry.id)
            if in_order:
                stored = self.r.hmget(k["table"], list(entry.raters))
                table = {r: Standing.of(s) for r, s in zip(entry.raters, stored, strict=True) if s}
                changed = apply(table, entry)
                moved = {entry.id: {r: (table.get(r) or initial(), s) for r, s in changed.items()}}
                pipe.set(k["last"], json.dumps(list(entry.key())))
            else:
                entries = [Rated.of(json.loads(v)) for v in self.r.hvals(k["games"])]
                changed = fold([*entries, entry]).get(entry.game, {})
                moved = changes([*entries, entry], entry.key())
                pipe.delete(k["table"])
            records: dict[Any, Any] = {
                gid: json.dumps({r: [b.stored(), a.stored()] for r, (b, a) in game.items()})
                for gid, game in moved.items()
            }
            pipe.hset(k["changes"], mapping=records)
            pipe.hset(k["table"], mapping={r: s.stored() for r, s in changed.items()})
            pipe.execute()
            return "counted" if in_order else "refolded"

    def change(self, game: str, game_id: str) -> Moved | None:
        """What one counted game did to its raters' standings (None: not counted)."""
        stored = self.r.hget(keys(game)["changes"], game_id)
        if stored is None:
            return None
        doc = json.loads(stored)
        return {r: (Standing.of(b), Standing.of(a)) for r, (b, a) in doc.items()}

    def moves_of(self, rater: str, counted: Sequence[tuple[str, str]]) -> Moved:
        """``rater``'s standing before and after each of ``counted`` ((game kind, game id)
        pairs), keyed by game id, for those counted with it: one pipelined read (the lobby's
        "my games" shows the change of every finished rated game at once)."""
        pipe = self.r.pipeline(transaction=False)
        for game, game_id in counted:
            pipe.hget(keys(game)["changes"], game_id)
        out: Moved = {}
        for (_, game_id), stored in zip(counted, pipe.execute(), strict=True):
            pair = json.loads(stored).get(rater) if stored is not None else None
            if pair is not None:
                out[game_id] = (Standing.of(pair[0]), Standing.of(pair[1]))
        return out

    def table(self, game: str) -> dict[str, Standing]:
        stored = self.r.hgetall(keys(game)["table"])
        return {_text(r): Standing.of(s) for r, s in stored.items()}

    def of(self, rater: str, game_kinds: Iterable[str]) -> dict[str, Standing]:
        """One rater's standing in each game kind it has played rated games of."""
        out = {}
        for game in game_kinds:
            stored = self.r.hget(keys(game)["table"], rater)
            if stored:
                out[game] = Standing.of(stored)
        return out


def settle(ch: Chronicle, game_id: str) -> str:
    """After the scoring job: count the game if it is finished and rated (idempotent; a retry
    of a job whose append went through still counts it).  A game imported from elsewhere is
    not counted: the service rates the games it ran."""
    if ch.accounts is None:
        return "no accounts"
    cur = ch.current(game_id)
    table = cur.match.table
    if cur.match.status(cur.game) != engine.FINISHED or table is None or not table.rules.rated:
        return "not rated"
    if cur.meta.imported_from is not None:
        return "imported"
    _, records = ch.loader.log(game_id)
    entry = rated_game(game_id, records)
    if entry is None:
        return "not rated"
    return Ratings(ch.accounts.r).add(entry)


def _text(value: Any) -> str:
    return value.decode() if isinstance(value, bytes) else str(value)
