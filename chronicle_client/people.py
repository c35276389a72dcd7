"""The calls of the contract's "v2 additions: people" (accounts, time controls, invitations,
ratings, review), mixed into ``Client``; each is one ``request``, so they share its retries,
its token (an account token ``acct_...`` for the account's calls, a seat's or the host's for
a game's) and its ``Accept-Language``."""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from typing import Any, cast

from chronicle_client.people_types import (
    Claimed,
    GameRatings,
    Invited,
    Me,
    MyGame,
    Player,
    Profile,
    Rating,
    Review,
    ReviewAsked,
    SignedIn,
    TokenInfo,
    TokenMade,
    Vacation,
)

API = "/api/v1"


class PeopleCalls:
    """Needs only ``request`` and ``sleep`` (``Client`` has them)."""

    sleep: Callable[[float], None] = staticmethod(time.sleep)

    def request(
        self,
        method: str,
        path: str,
        *,
        json: Any = None,
        params: Mapping[str, Any] | None = None,
        headers: Mapping[str, str] | None = None,
    ) -> Any:
        raise NotImplementedError  # pragma: no cover

    # ---- sign-in by an emailed code (a client for bots and tools) --------------------------
    def ask_email_code(self, email: str) -> None:
        """Ask for a sign-in mail; the answer is the same whether the address is known or not."""
        self.request("POST", f"{API}/auth/email", json={"email": email})

    def verify_email_code(self, code: str, name: str | None = None) -> SignedIn:
        """Trade the mailed code (the link's ``#code=`` part) for an account token; ``name``
        names the account if this sign-in creates it.  ``as_token(answer["token"])`` uses it."""
        body = {"code": code, **({"name": name} if name is not None else {})}
        return cast(SignedIn, self.request("POST", f"{API}/auth/email/verify", json=body))

    # ---- the account (an account token) ----------------------------------------------------
    def me(self) -> Me:
        return cast(Me, self.request("GET", f"{API}/me"))

    def update_me(self, **changes: Any) -> Me:
        """``name``, ``locale`` (``en``, ``ja``, ``zh-TW`` or None), ``timezone`` or
        ``notifications`` (a subset, merged with the rest)."""
        return cast(Me, self.request("PATCH", f"{API}/me", json=changes))

    def my_games(self, status: str | None = None) -> list[MyGame]:
        """The account's games (``active``, ``waiting``, ``finished``; all when None), the ones
        where it is your turn first."""
        params = {"status": status} if status is not None else None
        return cast(list[MyGame], self.request("GET", f"{API}/me/games", params=params)["games"])

    def claim(self, game_id: str, seat_token: str) -> Claimed:
        """Bind a guest seat (its token) to the account; again is the same answer."""
        body = {"seat_token": seat_token}
        return cast(Claimed, self.request("POST", f"{API}/games/{game_id}/claim", json=body))

    def player(self, player_id: str) -> Profile:
        return cast(Profile, self.request("GET", f"{API}/players/{player_id}"))

    def block(self, player: str) -> None:
        self.request("PUT", f"{API}/me/blocks/{player}")

    def unblock(self, player: str) -> None:
        self.request("DELETE", f"{API}/me/blocks/{player}")

    def blocks(self) -> list[Player]:
        return cast(list[Player], self.request("GET", f"{API}/me/blocks")["blocks"])

    def tokens(self) -> list[TokenInfo]:
        """The account's tokens, without their secrets."""
        return cast(list[TokenInfo], self.request("GET", f"{API}/me/tokens")["tokens"])

    def new_token(self, name: str, scopes: list[str]) -> TokenMade:
        """A token with ``scopes`` (``play``, ``read``); its secret is in this answer only."""
        body = {"name": name, "scopes": scopes}
        return cast(TokenMade, self.request("POST", f"{API}/me/tokens", json=body))

    def revoke_token(self, token_id: str) -> None:
        self.request("DELETE", f"{API}/me/tokens/{token_id}")

    # ---- time controls (the seat's token or its account) -----------------------------------
    def vacation(self, game_id: str, days: int) -> Vacation:
        """Stop the seat's clock for ``days`` whole days (from its allowance)."""
        body = {"days": days}
        return cast(Vacation, self.request("POST", f"{API}/games/{game_id}/vacation", json=body))

    def end_vacation(self, game_id: str) -> Vacation:
        """Back early: the clock runs again, the unused days are given back."""
        return cast(Vacation, self.request("DELETE", f"{API}/games/{game_id}/vacation"))

    # ---- invitations (the host token of a table made signed in) ----------------------------
    def invite(self, game_id: str, seat: int, player: str) -> Invited:
        """Invite an account (its public id) to an open seat; the seat's old link stops working."""
        body = {"seat": seat, "player": player}
        path = f"{API}/games/{game_id}/invitations"
        return cast(Invited, self.request("POST", path, json=body))

    # ---- ratings (no sign-in) --------------------------------------------------------------
    def ratings(self, game: str, limit: int | None = None) -> list[Rating]:
        """A game kind's leaderboard, best ordinal first (the service's default: 50 rows)."""
        params = {"limit": limit} if limit is not None else None
        found = self.request("GET", f"{API}/ratings/{game}", params=params)
        return cast(list[Rating], found["ratings"])

    def game_ratings(self, game_id: str) -> GameRatings:
        """Each rater's standing before and after a counted rated game (404 until counted)."""
        return cast(GameRatings, self.request("GET", f"{API}/games/{game_id}/ratings"))

    # ---- review (the seat's token, its account, or the admin) ------------------------------
    def ask_review(self, game_id: str, seat: int) -> ReviewAsked:
        """Queue the review of a finished game's seat (once; asked again: its status)."""
        path = f"{API}/games/{game_id}/review"
        return cast(ReviewAsked, self.request("POST", path, json={"seat": seat}))

    def review(self, game_id: str, seat: int) -> Review:
        """The review so far: its status and the decisions judged yet."""
        path = f"{API}/games/{game_id}/review"
        return cast(Review, self.request("GET", path, params={"seat": seat}))

    def wait_review(
        self, game_id: str, seat: int, timeout: float = 120.0, every: float = 0.5
    ) -> Review:
        """Ask for the review, then poll it every ``every`` seconds until it is ``done``;
        ``TimeoutError`` after ``timeout`` seconds."""
        self.ask_review(game_id, seat)
        deadline = time.monotonic() + timeout
        while (found := self.review(game_id, seat))["status"] != "done":
            if time.monotonic() >= deadline:
                raise TimeoutError(f"review of {game_id} seat {seat}: {found['status']}")
            self.sleep(every)
        return found
