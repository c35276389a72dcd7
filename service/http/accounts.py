"""Accounts (contract: v2 additions, Accounts): sign-in by email link or passkey, sessions and
tokens, ``/me``, my games, profiles and blocks.

The credential of every request here is checked at the edge (``service.http.sessions``: the
cookie, CSRF, scopes); these resources only ask who it stands for (``signed_in``).  The email
address leaves the service only in ``GET /me`` and in the sign-in mail itself.
"""

from __future__ import annotations

import os
from typing import Any
from urllib.parse import urlsplit

from flask import Response, make_response, request
from flask.views import MethodView

from domain.errors import BadAction
from projections.records import iso
from service import notices, passkeys
from service.accounts import API, SESSION, Account, Accounts, Session, csrf_of
from service.errors import NotFound, Unauthorized
from service.http import account_schemas as a
from service.http import ratings as rating_tables
from service.http import schemas as s
from service.http.common import AUTH, blueprint, chronicle
from service.http.middleware import client_address, current_request
from service.http.sessions import (
    COOKIE_KEY,
    clear_cookie,
    is_secure,
    session_of,
    set_cookie,
)

blp = blueprint("accounts", "Accounts: sign-in, sessions, my games, profiles and blocks")
SIGNED_IN: list[dict[str, list[str]]] = [{"bearer": []}]
FINISHED_STATUSES = {"finished", "abandoned"}
ACTIVE_STATUSES = {"active", "scoring"}


def accounts() -> Accounts:
    return chronicle().accounts_of()


def signed_in() -> Session:
    """The account session the request's credential stands for (401 if none)."""
    session = session_of(current_request().environ)
    if session is None:
        header = request.headers.get("Authorization")
        raise Unauthorized(
            "sign in first (an account token or the browser's session)"
            if header is None
            else "the token is not an account's live token"
        )
    return session


def blocked_here() -> frozenset[str]:
    """The players the request's account blocked (none for a guest)."""
    session = session_of(current_request().environ)
    if session is None:
        return frozenset()
    return frozenset(accounts().blocks(session.player))


def player_here() -> str | None:
    session = session_of(current_request().environ)
    return session.player if session is not None else None


def public_url() -> str:
    """``CHRONICLE_PUBLIC_URL``, else the address this request reached."""
    return notices.public_url() or request.host_url.rstrip("/")


def relying_party() -> tuple[str, list[str]]:
    """The passkeys' relying party id and the origins they are accepted from."""
    public = public_url()
    rp_id = os.environ.get("CHRONICLE_RP_ID") or urlsplit(public).hostname or "localhost"
    parts = urlsplit(public)
    return rp_id, [f"{parts.scheme}://{parts.netloc}"]


def _signed_in_answer(account: Account, status: int = 200) -> Response:
    """The answer of a sign-in: the token for API clients, or (``?session=cookie``) the
    browser's HttpOnly cookie and its CSRF value."""
    cookie = request.args.get("session") == "cookie"
    if request.args.get("session") not in (None, "cookie"):
        raise BadAction("invalid session", {"session": ["'cookie' or absent"]})
    _, token = accounts().issue(account.id, SESSION, "sign-in")
    body: dict[str, Any] = {"player": account.public()}
    if cookie:
        body["csrf"] = csrf_of(token)
    else:
        body["token"] = token
    answer = make_response(a.SignedIn().dump(body), status)
    if cookie:
        answer.headers.add("Set-Cookie", set_cookie(token, is_secure(request.environ)))
    return answer


@blp.route("/auth/email")
class EmailResource(MethodView):
    @blp.doc(operationId="signInByEmail")
    @blp.arguments(a.EmailIn, example={"email": "ann@example.com"})
    @blp.response(202, a.Accepted)
    @blp.alt_response(429, schema=s.ApiError, description="rate_limited (per address, client)")
    def post(self, body: dict[str, Any]) -> dict[str, Any]:
        """Mail a one-time sign-in link (15 minutes) to the address: 202 whether or not an
        account has it, so the answer tells nobody who has an account."""
        pending = accounts().ask_code(body["email"], client_address())
        if pending is not None:
            link = f"{public_url()}/signin#code={pending.code}"
            text = (
                "Sign in to Chronicle with this link (it works once, for 15 minutes):\n\n"
                f"{link}\n\nIf you did not ask for it, ignore this message.\n"
            )
            outbox = chronicle().outbox
            if outbox is None:
                raise Unauthorized("this service sends no mail: sign in with a passkey")
            outbox.send(pending.email, "Sign in to Chronicle", text)
        return {"accepted": True}


@blp.route("/auth/email/verify")
class EmailVerifyResource(MethodView):
    @blp.doc(operationId="verifyEmailCode")
    @blp.arguments(a.VerifyIn, example={"code": "<code from the link>"})
    @blp.arguments(a.SessionQuery, location="query")
    @blp.response(200, a.SignedIn)
    @blp.alt_response(401, schema=s.ApiError, description="a wrong, used or expired code")
    @blp.alt_response(429, schema=s.ApiError, description="rate_limited")
    def post(self, body: dict[str, Any], query: dict[str, Any]) -> Response:
        """Sign in with a mailed code (the first one of an address makes its account)."""
        account = accounts().verify_code(body["code"], client_address(), body.get("name"))
        return _signed_in_answer(account)


@blp.route("/auth/signout")
class SignOutResource(MethodView):
    @blp.doc(operationId="signOut", security=SIGNED_IN)
    @blp.response(204)
    def post(self) -> Response:
        """End this session (or revoke the token sent); the browser's cookie is cleared."""
        session = signed_in()
        accounts().revoke(session.player, session.token_id)
        answer = make_response("", 204)
        answer.headers.add("Set-Cookie", clear_cookie(is_secure(request.environ)))
        return answer


def _raw_body() -> dict[str, Any]:
    body = request.get_json(silent=True)
    if not isinstance(body, dict):
        raise BadAction("the body must be a JSON object (the credential's JSON form)", {})
    return body


@blp.route("/auth/passkey/register-options")
class PasskeyRegisterOptions(MethodView):
    @blp.doc(operationId="passkeyRegisterOptions", security=SIGNED_IN)
    @blp.response(200, description="PublicKeyCredentialCreationOptionsJSON")
    def post(self) -> dict[str, Any]:
        """The options to create a passkey for the signed-in account."""
        account = accounts().require(signed_in().player)
        rp_id, _ = relying_party()
        return passkeys.registration_options(
            accounts().r, account.id, account.name, rp_id, "Chronicle"
        )


@blp.route("/auth/passkey/register")
class PasskeyRegister(MethodView):
    @blp.doc(operationId="passkeyRegister", security=SIGNED_IN)
    @blp.response(201, a.PasskeyMade)
    @blp.alt_response(401, schema=s.ApiError, description="the credential does not verify")
    def post(self) -> dict[str, Any]:
        """Add the passkey created from the options (the body: RegistrationResponseJSON)."""
        player = signed_in().player
        rp_id, origins = relying_party()
        found = passkeys.register(
            accounts().r, player, _raw_body(), rp_id, origins, chronicle().clock()
        )
        return {"id": found}


@blp.route("/auth/passkey/options")
class PasskeyOptions(MethodView):
    @blp.doc(operationId="passkeyOptions")
    @blp.response(200, description="PublicKeyCredentialRequestOptionsJSON")
    def post(self) -> dict[str, Any]:
        """The options to sign in with a passkey (no user name: passkeys are discoverable)."""
        rp_id, _ = relying_party()
        return passkeys.authentication_options(accounts().r, rp_id)


@blp.route("/auth/passkey/verify")
class PasskeyVerify(MethodView):
    @blp.doc(operationId="passkeyVerify")
    @blp.arguments(a.SessionQuery, location="query")
    @blp.response(200, a.SignedIn)
    @blp.alt_response(401, schema=s.ApiError, description="the credential does not verify")
    def post(self, query: dict[str, Any]) -> Response:
        """Sign in with a passkey (the body: AuthenticationResponseJSON)."""
        rp_id, origins = relying_party()
        r, body = accounts().r, _raw_body()
        player = passkeys.authenticate(r, body, rp_id, origins, now_ms=chronicle().clock())
        return _signed_in_answer(accounts().require(player))


@blp.route("/me")
class MeResource(MethodView):
    @blp.doc(operationId="getMe", security=SIGNED_IN)
    @blp.response(200, a.Me)
    def get(self) -> dict[str, Any]:
        """Your account (the only answer that holds your email)."""
        return _me(accounts().require(signed_in().player))

    @blp.doc(operationId="updateMe", security=SIGNED_IN)
    @blp.arguments(a.MeIn, example={"name": "Ann", "locale": "ja"})
    @blp.response(200, a.Me)
    def patch(self, body: dict[str, Any]) -> dict[str, Any]:
        """Change your name, language, time zone or notice settings."""
        return _me(accounts().update(signed_in().player, body))

    @blp.doc(operationId="deleteMe", security=SIGNED_IN)
    @blp.response(204)
    def delete(self) -> Response:
        """Delete your account: its email, tokens, passkeys and blocks.  The games keep the
        seat's name in their logs, never the email."""
        player = signed_in().player
        passkeys.forget(accounts().r, player)
        accounts().delete(player)
        answer = make_response("", 204)
        answer.headers.add("Set-Cookie", clear_cookie(is_secure(request.environ)))
        return answer


def _me(account: Account) -> dict[str, Any]:
    doc = account.me()
    environ = current_request().environ
    if environ.get(COOKIE_KEY):
        token = (request.headers.get("Authorization") or "").partition(" ")[2]
        doc["csrf"] = csrf_of(token)
    return doc


@blp.route("/me/tokens")
class TokensResource(MethodView):
    @blp.doc(operationId="createToken", security=SIGNED_IN)
    @blp.arguments(a.TokenIn, example={"name": "my bot", "scopes": ["play"]})
    @blp.response(201, a.TokenMade)
    def post(self, body: dict[str, Any]) -> dict[str, Any]:
        """A token for an API client (shown once): `play` acts for your seats, `read` reads."""
        token_id, token = accounts().issue(signed_in().player, API, body["name"], body["scopes"])
        return {"id": token_id, "token": token}

    @blp.doc(operationId="listTokens", security=SIGNED_IN)
    @blp.response(200, a.Tokens)
    def get(self) -> dict[str, Any]:
        """Your API tokens, without their secrets."""
        return {"tokens": accounts().tokens(signed_in().player)}


@blp.route("/me/tokens/<token_id>")
class TokenResource(MethodView):
    @blp.doc(operationId="revokeToken", security=SIGNED_IN)
    @blp.response(204)
    def delete(self, token_id: str) -> Response:
        """Revoke one of your tokens."""
        if not accounts().revoke(signed_in().player, token_id):
            raise NotFound(f"no token {token_id!r}")
        return make_response("", 204)


@blp.route("/me/passkeys")
class PasskeysResource(MethodView):
    @blp.doc(operationId="listPasskeys", security=SIGNED_IN)
    @blp.response(200, a.Passkeys)
    def get(self) -> dict[str, Any]:
        """Your passkeys (their ids and dates; no key material)."""
        return {"passkeys": passkeys.passkeys_of(accounts().r, signed_in().player)}


@blp.route("/me/games")
class MyGamesResource(MethodView):
    @blp.doc(operationId="myGames", security=SIGNED_IN)
    @blp.arguments(a.GamesQuery, location="query")
    @blp.response(200, a.MyGames)
    def get(self, query: dict[str, Any]) -> dict[str, Any]:
        """Your games on every device: those where it is your turn first, then by deadline,
        then the latest moved."""
        player = signed_in().player
        return {"games": my_games(player, query.get("status"))}


def my_games(player: str, status: str | None) -> list[dict[str, Any]]:
    ch = chronicle()
    ids = accounts().games(player)
    out = []
    for game_id, meta in zip(ids, ch.store.metas(ids), strict=True):
        seats = meta.seats_of(player) if meta is not None else []
        if meta is None or not seats:
            continue
        now = meta.progress.status
        if status == "finished" and now not in FINISHED_STATUSES:
            continue
        if status == "active" and now not in ACTIVE_STATUSES:
            continue
        if status == "waiting" and now != "waiting":
            continue
        acting = [seat for seat in seats if seat in meta.progress.to_act]
        seat = (acting or seats)[0]
        doc: dict[str, Any] = {
            "id": game_id,
            "game": meta.game,
            "seat": seat,
            "status": now,
            "your_turn": bool(acting) and now == "active",
            "version": meta.version,
            "updated_at": iso(meta.progress.updated_at),
        }
        deadline = (meta.progress.deadlines or {}).get(str(seat))
        if deadline is not None:
            doc["deadline"] = iso(int(deadline))
        order = (not doc["your_turn"], deadline is None, deadline or 0, -meta.progress.updated_at)
        out.append((order, doc))
    out.sort(key=lambda row: row[0])
    return rating_tables.with_moves(player, [doc for _, doc in out])


@blp.route("/me/blocks")
class BlocksResource(MethodView):
    @blp.doc(operationId="listBlocks", security=SIGNED_IN)
    @blp.response(200, a.Blocks)
    def get(self) -> dict[str, Any]:
        """The players you blocked."""
        found = []
        for other in sorted(accounts().blocks(signed_in().player)):
            account = accounts().get(other)
            found.append(account.public() if account else {"id": other, "name": ""})
        return {"blocks": found}


@blp.route("/me/blocks/<player>")
class BlockResource(MethodView):
    @blp.doc(operationId="block", security=SIGNED_IN)
    @blp.response(204)
    def put(self, player: str) -> Response:
        """Block a player: their chat lines are hidden for you, and they cannot join your
        tables."""
        accounts().block(signed_in().player, player)
        return make_response("", 204)

    @blp.doc(operationId="unblock", security=SIGNED_IN)
    @blp.response(204)
    def delete(self, player: str) -> Response:
        accounts().unblock(signed_in().player, player)
        return make_response("", 204)


@blp.route("/players/<player>")
class PlayerResource(MethodView):
    @blp.doc(operationId="getPlayer", security=AUTH)
    @blp.response(200, a.Profile)
    def get(self, player: str) -> dict[str, Any]:
        """A player's public profile: name, games played, and a rating per game kind they
        played rated games of (`{game: {mu, sigma, ordinal, games, provisional}}`)."""
        account = accounts().get(player)
        if account is None:
            raise NotFound(f"no player {player!r}")
        games = accounts().count_games(player)
        return {**account.public(), "games": games, "ratings": rating_tables.of_player(player)}
