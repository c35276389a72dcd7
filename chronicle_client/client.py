"""``Client``: the contract's calls over HTTP, typed, with the retries a client should make.

- **429 and 503** are retried after the answer's ``Retry-After`` (seconds; capped by
  ``max_wait``), or after a short backoff when it has none, up to ``retries`` times.  A 503 is
  retried only for reads and for POSTs that carry an ``Idempotency-Key`` (``act`` always sends
  one): another POST may or may not have been applied.
- **A dropped connection** (reset, closed before the answer: a kept-alive connection the
  server had just closed as idle, a restart) is retried the same way for those same calls,
  after a short backoff; any other call raises it (``requests.ConnectionError``).
- **409 version_conflict** on ``act``: the client reloads the legal actions; if the action is
  still legal at the new version it is sent again at that version, else the conflict is raised
  (the caller must look at the game again).  ``reload=False`` raises at once.
- ``raw`` is the low-level escape hatch: one attempt, the response as it came (the tests use it
  to assert status codes); every other call goes through it.
- ``stream`` yields the caller's events as they come (long-polls ``/events?wait=``), until the
  game is finished and every event has been seen.
"""

from __future__ import annotations

import time
import uuid
from collections.abc import Callable, Iterator, Mapping
from typing import Any, cast

import requests

from chronicle_client import errors
from chronicle_client.people import PeopleCalls
from chronicle_client.types import (
    Action,
    Actions,
    Created,
    Event,
    Events,
    GameList,
    Joined,
    Summary,
    Undone,
    View,
)

API = "/api/v1"
FINISHED = "GameFinished"  # the event that ends a game (its data is the result)


class Client(PeopleCalls):
    """``language`` (``en``, ``ja``, ``zh-TW``, or any ``Accept-Language`` value) is sent with
    every request: error messages and the catalog's words come in it; codes stay the same."""

    def __init__(
        self,
        base_url: str,
        token: str | None = None,
        *,
        session: requests.Session | None = None,
        timeout: float = 35.0,  # above the longest long-poll (30 s)
        retries: int = 4,
        max_wait: float = 30.0,
        sleep: Callable[[float], None] = time.sleep,
        language: str | None = None,
    ) -> None:
        self.language = language
        self.base_url = base_url.rstrip("/")
        self.token = token
        self.http = session or requests.Session()
        self.timeout = timeout
        self.retries = retries
        self.max_wait = max_wait
        self.sleep = sleep

    def as_token(self, token: str | None) -> Client:
        """The same client (and connection pool) acting with another token (a seat, the host;
        None for a spectator)."""
        return Client(
            self.base_url, token, session=self.http, timeout=self.timeout,
            retries=self.retries, max_wait=self.max_wait, sleep=self.sleep,
            language=self.language,
        )  # fmt: skip

    # ---- transport ------------------------------------------------------------------------
    def raw(
        self,
        method: str,
        path: str,
        *,
        json: Any = None,
        params: Mapping[str, Any] | None = None,
        headers: Mapping[str, str] | None = None,
    ) -> requests.Response:
        """The low-level escape hatch: one attempt, no retry, no error raised, the response as
        it came (for a caller that looks at status codes and headers itself, e.g. tests of
        the contract's refusals).  It sends the client's token unless ``headers`` override
        ``Authorization``."""
        sent = {"Authorization": f"Bearer {self.token}"} if self.token else {}
        if self.language:
            sent["Accept-Language"] = self.language
        sent.update(headers or {})
        return self.http.request(
            method, self.base_url + path, json=json, params=params, headers=sent,
            timeout=self.timeout,
        )  # fmt: skip

    def request(
        self,
        method: str,
        path: str,
        *,
        json: Any = None,
        params: Mapping[str, Any] | None = None,
        headers: Mapping[str, str] | None = None,
    ) -> Any:
        """One call, retried on 429 (and on 503 or a dropped connection where safe); returns
        the decoded JSON body (None for a 204) or raises ``ApiError``."""
        safe = method == "GET" or "Idempotency-Key" in (headers or {})
        for attempt in range(self.retries + 1):
            try:
                r = self.raw(method, path, json=json, params=params, headers=headers)
            except requests.ConnectionError:
                if not safe or attempt == self.retries:
                    raise
                self.sleep(self._wait(None, attempt))
                continue
            if r.status_code < 400:
                return r.json() if r.content else None
            retry = r.status_code == 429 or (r.status_code == 503 and safe)
            if not retry or attempt == self.retries:
                raise errors.from_response(r.status_code, _json(r))
            self.sleep(self._wait(r, attempt))
        raise AssertionError("unreachable")  # pragma: no cover

    def _wait(self, r: requests.Response | None, attempt: int) -> float:
        """The answer's ``Retry-After`` (seconds), else (or with no answer) a backoff; capped
        at ``max_wait``."""
        try:
            after = float((r.headers if r is not None else {}).get("Retry-After", ""))
        except ValueError:
            after = 0.25 * 2**attempt
        return max(0.0, min(after, self.max_wait))

    # ---- the contract's calls -------------------------------------------------------------
    def catalog(self) -> dict[str, Any]:
        return cast(dict[str, Any], self.request("GET", f"{API}/catalog"))

    def create(
        self,
        game: str,
        players: list[dict[str, Any]],
        options: Mapping[str, str] | None = None,
        seed: str | None = None,
        **extra: Any,
    ) -> Created:
        """Create a game; the answer holds each human seat's token and the host token, once.
        ``extra`` passes the other creation fields as they are: ``time_control`` (a
        ``types.TimeControl``) with an IANA ``timezone``, ``turn_time``, ``public``, ``rated``.
        (Not typed parameters: callers spread a ``dict[str, str]`` of fields into them.)"""
        body: dict[str, Any] = {"game": game, "players": players, **extra}
        if options:
            body["options"] = dict(options)
        if seed is not None:
            body["seed"] = seed
        return cast(Created, self.request("POST", f"{API}/games", json=body))

    def join(self, game_id: str, name: str, invitation: str | None = None) -> Joined:
        """Take an open seat (the contract's v1 additions); the answer's token is shown once."""
        body: dict[str, Any] = {"name": name}
        if invitation is not None:
            body["invitation"] = invitation
        return cast(Joined, self.request("POST", f"{API}/games/{game_id}/join", json=body))

    def games(self, **filters: Any) -> GameList:
        return cast(GameList, self.request("GET", f"{API}/games", params=filters))

    def summary(self, game_id: str) -> Summary:
        return cast(Summary, self.request("GET", f"{API}/games/{game_id}"))

    def view(self, game_id: str, version: int | None = None) -> View:
        params = {"version": version} if version is not None else None
        return cast(View, self.request("GET", f"{API}/games/{game_id}/view", params=params))

    def actions(self, game_id: str) -> Actions:
        return cast(Actions, self.request("GET", f"{API}/games/{game_id}/actions"))

    def act(
        self,
        game_id: str,
        action: Action,
        expected_version: int | None = None,
        *,
        idempotency_key: str | None = None,
        reload: bool = True,
    ) -> Events:
        """Post ``action`` at ``expected_version`` (default: the version of the legal actions,
        read first).  A retried request carries the same ``Idempotency-Key``, so it is applied
        once; a conflict reloads and resends while the action stays legal (``reload``)."""
        version = expected_version
        if version is None:
            version = self.actions(game_id)["version"]
        key = idempotency_key or uuid.uuid4().hex
        for attempt in range(self.retries + 1):
            try:
                return cast(
                    Events,
                    self.request(
                        "POST",
                        f"{API}/games/{game_id}/actions",
                        json={"action": action, "expected_version": version},
                        headers={"Idempotency-Key": key},
                    ),
                )
            except errors.VersionConflict:
                if not reload or attempt == self.retries:
                    raise
                listed = self.actions(game_id)
                if action not in listed["actions"]:
                    raise
                version, key = listed["version"], uuid.uuid4().hex  # a new request
        raise AssertionError("unreachable")  # pragma: no cover

    def undo(self, game_id: str, to_version: int | None = None) -> Undone:
        body = {"to_version": to_version} if to_version is not None else {}
        return cast(Undone, self.request("POST", f"{API}/games/{game_id}/undo", json=body))

    def events(self, game_id: str, after: int = 0, limit: int = 100, wait: float = 0) -> Events:
        params = {"after": after, "limit": limit, "wait": wait}
        return cast(Events, self.request("GET", f"{API}/games/{game_id}/events", params=params))

    def stream(self, game_id: str, after: int = 0, wait: float = 25) -> Iterator[Event]:
        """The caller's events after ``after``, as they are appended, until the game is finished
        and all of them were yielded.  After an undo the log is shorter: the stream goes on from
        the new last version (so versions may repeat, each time with the new events)."""
        while True:
            page = self.events(game_id, after=after, wait=wait)
            for event in page["events"]:
                yield event
                after = event["version"]
                if event["type"] == FINISHED:  # the last event a game has
                    return
            if page["events"]:
                continue
            if page["version"] < after:  # truncated by an undo
                after = page["version"]
                continue
            if self.summary(game_id)["status"] == "finished":
                return

    def audit(self, game_id: str) -> dict[str, Any]:
        return cast(dict[str, Any], self.request("GET", f"{API}/games/{game_id}/audit"))

    def export(self, game_id: str) -> dict[str, Any]:
        return cast(dict[str, Any], self.request("GET", f"{API}/games/{game_id}/export"))

    def import_game(self, export: Mapping[str, Any]) -> Created:
        return cast(Created, self.request("POST", f"{API}/games/import", json=dict(export)))


def _json(r: requests.Response) -> Any:
    try:
        return r.json()
    except ValueError:
        return None
