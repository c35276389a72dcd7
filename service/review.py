"""Reviews of a finished game from one seat (contract: v2 additions, Review; issue 42).

**What is judged.**  ``decisions`` walks the log batch by batch.  A *decision* of the seat is
a batch whose command is that seat's game action, posted while the seat was to act, with more
than one legal action (a forced move is no decision; a table command such as a resign is
not a game action).  Its ``version`` is the version the seat decided at (the move made the
next one): the replay viewer shows that position.  The judge (``domain.search.review``) gets
the seat's redacted view at that version (``game.view(state, seat)``, what the seat's own
``GET .../view`` showed then), the legal actions and the action played: never the state.

**The projection.**  A review is kept in Redis, under the game's hash tag, keyed by the log's
head when it was asked, so a log that changed since (re-imported, undone) makes it stale:

- ``review:{<game>}:<seat>``           the head of the latest review asked (a string);
- ``review:{<game>}:<seat>:<head>``    hash: ``status`` (``queued``, ``running``, ``done``),
  ``total`` (decisions to judge, once known), ``d:<version>`` (a judged decision, JSON) and
  ``incomplete`` (a review whose job kept failing, ended with what it had judged).

Asking (``ask``) creates the hash with ``HSETNX status queued``: only the first ask of a head
enqueues a job, so asking again while it is queued, running or done queues nothing.  A ``GET``
that finds the latest review made for another head asks again (the review is recomputed for
the log as it is now).

**The job** (``workers.review.run``) judges the decisions not judged yet, in order, for a slice
of ``CHRONICLE_REVIEW_SLICE_SECONDS`` (default 2), then enqueues the rest as a new job: the
worker takes its queues in priority order, so a person's bot turn waits at most one slice,
never a whole review.  Each decision's judgement depends only on its inputs and its own
``Rng`` (the game's seed, revealed at the end, at the version, labelled ``review:<seat>``),
so the slices, a retry or a second run give the same numbers.  The iterations per decision
are the operator's: ``CHRONICLE_REVIEW_ITERATIONS`` (default: the game's ``mcts:hard``).
"""

from __future__ import annotations

import json
import logging
import os
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

import redis
from rq import Queue, Retry
from rq.exceptions import NoSuchJobError
from rq.job import Job, JobStatus
from rq.serializers import JSONSerializer

from domain.engine import FINISHED, Game, Match
from domain.errors import BadAction, Forbidden, StateConflict
from domain.rng import Rng
from domain.search.ismcts import Adapter, Budget
from domain.search.review import judge
from projections.fold import fold
from projections.records import Recorded
from projections.views import ADMIN, SEAT
from service import auth
from service.accounts import is_account_token
from service.errors import NotFound, Unauthorized
from service.loading import Current

if TYPE_CHECKING:
    from service.chronicle import Chronicle

QUEUE = "review"
RUN = "workers.review.run"  # the job (workers/review.py: the worker's service)
log = logging.getLogger(__name__)
QUEUED, RUNNING, DONE = "queued", "running", "done"
REVIVALS = 3  # a review whose job was lost or failed is queued again at most this often
LEVEL = "mcts:hard"  # the bot whose search and budget a review uses by default


@dataclass(frozen=True)
class Decision:
    """One decision of the reviewed seat: what its view showed and what it played."""

    version: int
    view: dict[str, Any]
    actions: list[dict[str, Any]]
    played: dict[str, Any]


def decisions(game: Game, records: Sequence[Recorded], seat: int) -> Iterator[Decision]:
    """The seat's decisions in the log, in order, each with its redacted view then."""
    match: Match | None = None
    start = 0
    for i in range(1, len(records) + 1):
        if i < len(records) and records[i].command is None:
            continue
        batch = records[start:i]
        start = i
        first = batch[0]
        if match is not None and first.actor == seat and isinstance(first.command, dict):
            found = _decision(game, match, seat, first.command)
            if found is not None:
                yield found
        match = fold(game, batch, match)


def _decision(game: Game, match: Match, seat: int, command: dict[str, Any]) -> Decision | None:
    if command.get("type") not in game.actions or seat not in match.to_act(game):
        return None
    actions = game.legal_actions(match.state, seat)
    if len(actions) < 2:
        return None
    return Decision(match.version, game.view(match.state, seat), actions, dict(command))


def adapter_budget(game: Game, iterations: int | None = None) -> tuple[Adapter, Budget] | None:
    """The search a review of ``game`` uses: its ``mcts:hard`` bot's, with ``iterations``
    (``CHRONICLE_REVIEW_ITERATIONS``) instead of the bot's when given.  None: the game has
    no searching bot."""
    bot = game.bots.get(LEVEL)
    adapter, budget = getattr(bot, "adapter", None), getattr(bot, "budget", None)
    if not isinstance(adapter, Adapter) or not isinstance(budget, Budget):
        return None
    if iterations is None:
        iterations = int(os.environ.get("CHRONICLE_REVIEW_ITERATIONS") or budget.iterations)
    return adapter, replace(budget, iterations=max(1, iterations))


def rng_of(seed: str, version: int, seat: int) -> Rng:
    """The search's randomness for one decision (the seed is public once the game is over)."""
    return Rng.at(seed, version, f"review:{seat}")


def judged(
    game: Game, seed: str, seat: int, d: Decision, iterations: int | None = None
) -> dict[str, Any]:
    """One decision judged, in the answer's shape (``version`` first)."""
    search = adapter_budget(game, iterations)
    assert search is not None, "a review is offered only for games with a searching bot"
    verdict = judge(
        search[0], d.view, d.actions, d.played, rng_of(seed, d.version, seat), search[1]
    )
    return {"version": d.version, **verdict}


# ---- who may ask -----------------------------------------------------------------------------
def check_caller(ch: Chronicle, cur: Current, authorization: str | None, seat: int) -> None:
    """That seat's token, an account holding that seat, or the admin: anyone else 403."""
    if not 0 <= seat < cur.match.config.n:
        raise BadAction(f"the game has no seat {seat}", {"seat": [f"0..{cur.match.config.n - 1}"]})
    token = auth.bearer(authorization)
    if is_account_token(token):
        session = ch.accounts_of().session(token)
        if session is None:
            raise Unauthorized("the token is not valid (signed out, revoked or expired)")
        if seat in cur.meta.seats_of(session.player):
            return
    else:
        caller = auth.resolve(cur.meta, token, ch.admin_token)
        if caller.role == ADMIN or (caller.role == SEAT and caller.seat == seat):
            return
    raise Forbidden("not_your_seat", f"only seat {seat}'s player or the admin may review it")


# ---- the projection --------------------------------------------------------------------------
def latest_key(game_id: str, seat: int) -> str:
    return f"review:{{{game_id}}}:{seat}"


def review_key(game_id: str, seat: int, head: str) -> str:
    return f"review:{{{game_id}}}:{seat}:{head}"


def job_id(game_id: str, seat: int, head: str, done: int) -> str:
    return f"review-{game_id}-{seat}-{head[:16]}-{done}"


class Reviews:
    """The reviews kept in Redis and the queue their jobs go to."""

    def __init__(self, r: redis.Redis, queue: Queue) -> None:
        self.r = r
        self.queue = queue

    def ask(self, cur: Current, seat: int) -> str:
        """Queue the review of ``seat`` for the log as it is now, once: the status."""
        if cur.match.status(cur.game) != FINISHED:
            raise StateConflict("game_not_finished", "a review is offered for a finished game")
        if adapter_budget(cur.game, 1) is None:  # (1: no need to read the operator's budget)
            raise StateConflict("game_not_finished", f"{cur.game.id} has no search to review")
        key = review_key(cur.game_id, seat, cur.head)
        if not self.r.hsetnx(key, "status", QUEUED):
            return _text(self.r.hget(key, "status")) or QUEUED
        old = _text(self.r.getset(latest_key(cur.game_id, seat), cur.head))
        if old is not None and old != cur.head:
            self.r.delete(review_key(cur.game_id, seat, old))
        self.enqueue(cur.game_id, cur.match.version, seat, cur.head, 0)
        return QUEUED

    def enqueue(
        self, game_id: str, version: int, seat: int, head: str, done: int, again: int = 0
    ) -> None:
        jid = job_id(game_id, seat, head, done) + (f"-again{again}" if again else "")
        self.queue.enqueue(
            RUN,
            game_id,
            version,
            seat,
            head,
            job_id=jid,
            retry=Retry(max=3, interval=[1, 2, 4]),
            job_timeout=600,
            result_ttl=600,
            failure_ttl=86400,
        )
        # named once it exists: a read in between still finds the job before it (the one
        # running now, which queues this one), never a job not made yet that looks lost
        self.r.hset(review_key(game_id, seat, head), "job", jid)

    def read(self, cur: Current, seat: int) -> dict[str, Any]:
        """``{status, decisions}`` of the review of the log as it is now (asked again if the
        latest one was made for another head); 404 if none was ever asked."""
        key = review_key(cur.game_id, seat, cur.head)
        stored = {_text(k): _text(v) for k, v in self.r.hgetall(key).items()}
        if not stored:
            if self.r.get(latest_key(cur.game_id, seat)) is None:
                raise NotFound(f"no review of seat {seat} was asked for game {cur.game_id}")
            return {"status": self.ask(cur, seat), "decisions": []}
        docs = [json.loads(v) for k, v in stored.items() if k and v and k.startswith("d:")]
        docs.sort(key=lambda d: int(d["version"]))
        status = stored.get("status") or QUEUED
        incomplete = bool(stored.get("incomplete"))
        if status != DONE and self._revive(cur, seat, stored.get("job"), len(docs)):
            status, incomplete = DONE, True
        out: dict[str, Any] = {"status": status, "decisions": docs}
        if incomplete:
            out["incomplete"] = True
        return out

    def _revive(self, cur: Current, seat: int, jid: str | None, done: int) -> bool:
        """A review whose job is gone (a worker killed mid-slice) or failed its retries is
        queued again from where it stopped, at most ``REVIVALS`` times: without it the review
        would say ``running`` for ever.  One that fails that often ends: ``done`` with the
        decisions judged so far and ``incomplete`` (True: it ended so; its job's failure is
        in RQ's failed registry for the operator)."""
        if jid is not None:
            try:
                state = Job.fetch(jid, connection=self.queue.connection).get_status()
            except NoSuchJobError:
                state = None
            if state not in (None, JobStatus.FAILED, JobStatus.STOPPED, JobStatus.CANCELED):
                return False
        key = review_key(cur.game_id, seat, cur.head)
        again = int(self.r.hincrby(key, "again", 1))
        if again <= REVIVALS:
            self.enqueue(cur.game_id, cur.match.version, seat, cur.head, done, again)
            return False
        self.r.hset(key, mapping={"status": DONE, "incomplete": "1"})
        log.warning("review: %s seat %s ended incomplete after %d tries", cur.game_id, seat, again)
        return True

    def run(
        self,
        game: Game,
        cur: Current,
        records: Sequence[Recorded],
        seat: int,
        more: Callable[[], bool],
    ) -> str:
        """Judge the decisions not judged yet while ``more()``; then either ``done`` or a
        follow-up job for the rest (``continued``).  A head that moved on: ``stale``."""
        key = review_key(cur.game_id, seat, cur.head)
        status = _text(self.r.hget(key, "status"))
        if status is None or status == DONE:
            return "stale" if status is None else DONE
        stored = {_text(k) for k in self.r.hkeys(key)}
        todo = [d for d in decisions(game, records, seat) if f"d:{d.version}" not in stored]
        had = sum(1 for k in stored if k and k.startswith("d:"))
        self.r.hset(key, mapping={"status": RUNNING, "total": len(todo) + had})
        for i, d in enumerate(todo):
            if i and not more():
                self.enqueue(cur.game_id, cur.match.version, seat, cur.head, had + i)
                return "continued"
            doc = judged(game, cur.seed, seat, d)
            if not self.r.hexists(key, "status"):  # asked again for a newer log meanwhile
                return "stale"
            self.r.hset(key, f"d:{d.version}", json.dumps(doc, separators=(",", ":")))
        self.r.hset(key, "status", DONE)
        return DONE


def _text(value: bytes | str | None) -> str | None:
    return value.decode() if isinstance(value, bytes) else value


def reviews_of(ch: Chronicle) -> Reviews:
    """The reviews beside the game's store, their jobs on the queue's Redis."""
    r = getattr(ch.store, "r", None)
    if r is None:
        raise NotFound("reviews need the Redis event store")
    queue = getattr(ch.jobs, "queue", None)
    connection = queue.connection if queue is not None else r
    return Reviews(r, Queue(QUEUE, connection=connection, serializer=JSONSerializer))
