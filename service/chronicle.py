"""``Chronicle``: the service's front door, one object for HTTP handlers, workers and tools.

It owns nothing itself; each method is one line to the module that holds the thing:

- ``service/commands.py``   the write commands (create, act, finish, undo, import);
- ``service/loading.py``    loading a game (cache, snapshot + tail);
- ``service/documents.py``  summaries, the game list, audit and export;
- ``service/listing.py``    who sees which game in the list;
- ``service/reads.py``      a caller's view, legal actions, the events feed (long-poll);
- ``service/catalog.py``    the games offered;
- ``service/auth.py``       who a token stands for.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from domain.engine import Event, Match
from domain.errors import Refused
from projections.records import Recorded
from projections.views import Caller
from service import auth, listing
from service.accounts import Accounts, is_account_token
from service.admission import Admission
from service.budget import WRITE
from service.catalog import catalog
from service.commands import ANY_SEED, Commands
from service.documents import Documents, summary_doc
from service.errors import Unauthorized
from service.hooks import Hooks, NoHooks
from service.jobs import JobQueue
from service.loading import Current, Loader
from service.mail import Outbox
from service.meta import GameMeta
from service.reads import Reads, Waiter
from service.store import EventStore


def now_ms() -> int:
    return time.time_ns() // 1_000_000


class Chronicle:
    def __init__(
        self,
        store: EventStore,
        jobs: JobQueue,
        admin_token: str | None = None,
        clock: Callable[[], int] = now_ms,
        hooks: Hooks | None = None,
        open_import: bool = False,
        chosen_seeds: str = ANY_SEED,
        accounts: Accounts | None = None,
        outbox: Outbox | None = None,
    ) -> None:
        self.store = store
        self.accounts = accounts  # None: a store without Redis (the in-memory twin)
        self.outbox = outbox  # mail to people (``service.mail``)
        self.jobs = jobs
        self.admin_token = admin_token
        self.clock = clock
        self.hooks: Hooks = hooks or NoHooks()  # clocks and notifications (service.hooks)
        self.open_import = open_import  # CHRONICLE_OPEN_IMPORT: anyone may import
        self.loader = Loader(store)
        self.commands = Commands(
            store, jobs, self.loader, clock, self.hooks, chosen_seeds=chosen_seeds
        )
        self.documents = Documents(store, self.loader)
        self.reads = Reads(store, self.loader)

    # ---- identity -------------------------------------------------------------------------
    def caller(self, meta: GameMeta, authorization: str | None) -> Caller:
        token = auth.bearer(authorization)
        if is_account_token(token):
            return self.account_caller(meta, token)
        return auth.resolve(meta, token, self.admin_token)

    def accounts_of(self) -> Accounts:
        if self.accounts is None:
            raise Unauthorized("this service keeps no accounts")
        return self.accounts

    def account_caller(self, meta: GameMeta, token: str | None) -> Caller:
        """The seat an account token acts for in this game: one it holds (the one to act
        when it holds several), else it watches as a spectator does."""
        session = self.accounts_of().session(token)
        if session is None:
            raise Unauthorized("the token is not valid (signed out, revoked or expired)")
        return auth.account_seat(meta, session.player)

    def opened(self, game_id: str, authorization: str | None) -> tuple[Current, Caller]:
        """The game now and who is calling (every request about one game starts here)."""
        cur = self.loader.current(game_id)
        return cur, self.caller(cur.meta, authorization)

    # ---- loading --------------------------------------------------------------------------
    def current(self, game_id: str) -> Current:
        return self.loader.current(game_id)

    def at(self, game_id: str, version: int) -> tuple[Current, list[Recorded]]:
        return self.loader.at(game_id, version)

    # ---- what a caller sees now -----------------------------------------------------------
    def catalog(self, lang: str = "en") -> dict[str, Any]:
        return catalog(lang)

    def view(
        self, cur: Current, caller: Caller, version: int | None, reveal: bool
    ) -> dict[str, Any]:
        return self.reads.view(cur, caller, version, reveal)

    def actions(self, cur: Current, caller: Caller) -> dict[str, Any]:
        return self.reads.actions(cur, caller)

    def events(
        self,
        cur: Current,
        caller: Caller,
        after: int,
        limit: int,
        wait: float,
        waiter: Waiter | None = None,
    ) -> dict[str, Any]:
        return self.reads.events(cur, caller, after, limit, wait, waiter)

    # ---- documents ------------------------------------------------------------------------
    def summary(self, cur: Current) -> dict[str, Any]:
        return summary_doc(cur.game_id, cur.meta)

    def list_games(
        self,
        game: str | None,
        status: str | None,
        page: int,
        per_page: int,
        authorization: str | None = None,
    ) -> dict[str, Any]:
        token = auth.bearer(authorization)
        if is_account_token(token):
            session = self.accounts_of().session(token)
            games = self.accounts_of().games(session.player) if session else []
            who = listing.of_account(self.store, session.player if session else "", games)
        else:
            who = listing.viewer(self.store, token, self.admin_token)
        return self.documents.list_games(who, game, status, page, per_page)

    def audit(self, game_id: str, caller: Caller) -> dict[str, Any]:
        return self.documents.audit(game_id, caller)

    def export(self, game_id: str, caller: Caller) -> dict[str, Any]:
        return self.documents.export(game_id, caller)

    # ---- writes ---------------------------------------------------------------------------
    def create(
        self,
        game_id: str | None,
        game_name: str,
        players: Sequence[Mapping[str, Any]],
        options: Mapping[str, str] | None,
        seed: str | None,
        table: Mapping[str, Any] | None = None,
    ) -> dict[str, Any]:
        return self.commands.create(game_id, game_name, players, options, seed, table)

    def act(
        self,
        game_id: str,
        caller: Caller,
        action: Mapping[str, Any],
        expected_version: int,
        idempotency_key: str | None = None,
        loaded: Current | None = None,
        by_bot: bool = False,
        if_match: str | None = None,
    ) -> dict[str, Any]:
        return self.commands.act(
            game_id, caller, action, expected_version, idempotency_key, loaded, by_bot, if_match
        )

    def act_as(
        self,
        game_id: str,
        authorization: str | None,
        action: Mapping[str, Any],
        expected_version: int,
        idempotency_key: str | None = None,
        if_match: str | None = None,
        admit: Admission | None = None,
    ) -> dict[str, Any]:
        """A move by whoever ``authorization`` stands for (the API's ``POST .../actions``).

        Decided first on the game as this process last saw it (no read: the conditional
        append checks it is still current, so one Redis round trip in all); any refusal on
        that path (a conflict, a token it does not know yet, ...) is decided again on the game
        read afresh, so a stale cache changes nothing but the cost.  ``admit``: the request's
        rate-limit counters, counted by the first append tried (``service.admission``); one
        over its amount raises ``OverLimit``, which is not a refusal to decide again."""
        cached = self.loader.cached(game_id)
        if cached is not None:
            try:
                caller = self.caller(cached.meta, authorization)
                return self.commands.act(
                    game_id, caller, action, expected_version, idempotency_key, cached,
                    if_match=if_match, admit=admit,
                )  # fmt: skip
            except Refused:
                pass
        cur, caller = self.opened(game_id, authorization)
        return self.commands.act(
            game_id, caller, action, expected_version, idempotency_key, cur, if_match=if_match,
            admit=admit,
        )  # fmt: skip

    def append_table(
        self,
        cur: Current,
        events: Sequence[Event],
        actor: int | None,
        command: Mapping[str, Any],
        tokens: Sequence[str | None] | None = None,
        at: int | None = None,
        idem: tuple[str, Mapping[str, Any]] | None = None,
        changes: Mapping[str, Any] | None = None,
    ) -> Match:
        return self.commands.append_table(cur, events, actor, command, tokens, at, idem, changes)

    def idempotent(self, game_id: str, idem: str) -> dict[str, Any] | None:
        return self.commands.idempotent(game_id, idem)

    def check_storage(self) -> None:
        """507 ``storage_full`` past the write mark (for writes beside the log: chat, hooks)."""
        self.commands.budget.check(WRITE)

    def finish(self, game_id: str, expected_version: int) -> bool:
        return self.commands.finish(game_id, expected_version)

    def undo(
        self, game_id: str, caller: Caller, to_version: int | None, if_match: str | None = None
    ) -> dict[str, Any]:
        return self.commands.undo(game_id, caller, to_version, if_match)

    def import_log(
        self, doc: Mapping[str, Any], authorization: str | None = None
    ) -> dict[str, Any]:
        if not self.open_import:
            auth.require_admin(authorization, self.admin_token)
        return self.commands.import_log(doc)
