"""Account credentials at the edge, before any other layer reads the request: a browser's
session cookie becomes the request's bearer token, and what an account token may do is checked.

- **The cookie.** A browser signed in holds ``chronicle_session`` (HttpOnly, SameSite=Lax,
  Secure behind https).  A request to ``/api/`` that sends no ``Authorization`` header and
  a live session cookie is handled as if it sent ``Authorization: Bearer <session token>``:
  the rate limits, the move path and every resource then see one kind of credential.  A
  cookie that stands for nothing (signed out elsewhere, the account deleted) is ignored, so a
  stale cookie never turns a page into a 401, and the answer clears it.
- **CSRF.** A write (any method but GET, HEAD, OPTIONS) carried by the cookie must send
  ``X-CSRF-Token`` with the session's CSRF value (``service.accounts.csrf_of``, answered at
  sign-in and by ``GET /me``): 403 ``csrf_failed`` otherwise.  SameSite=Lax already keeps
  the cookie off other sites' POSTs; the header is the second lock.
- **Scopes.** An account token without the ``play`` scope may only read: 403
  ``insufficient_scope`` on a write.
- The sign-in endpoints and the one-click unsubscribe (``OPEN``) never take the cookie:
  signing in again with a stale one must work, and a mail program's POST sends no CSRF header.

Only requests that carry an account credential cost a lookup (one Redis read); seat tokens
(and requests with no credential) pass through untouched.
"""

from __future__ import annotations

import hmac
import json
from collections.abc import Callable, Iterable
from http.cookies import CookieError, SimpleCookie
from typing import Any

from service import auth
from service.accounts import SESSION_SECONDS, Accounts, Session, csrf_of, is_account_token

COOKIE = "chronicle_session"
CSRF_HEADER = "X-CSRF-Token"
SESSION_KEY = "chronicle.session"  # environ: the Session the credential stands for
COOKIE_KEY = "chronicle.by_cookie"  # environ: the credential came from the cookie
STALE_KEY = "chronicle.stale_cookie"  # environ: a cookie that stands for nothing (cleared)
SAFE = frozenset({"GET", "HEAD", "OPTIONS"})
OPEN = frozenset(
    {
        "/api/v1/auth/email",
        "/api/v1/auth/email/verify",
        "/api/v1/auth/passkey/options",
        "/api/v1/auth/passkey/verify",
        "/api/v1/unsubscribe",  # a mail's one-click link: its token is the credential
    }
)


def cookie_token(environ: dict[str, Any]) -> str | None:
    raw = environ.get("HTTP_COOKIE")
    if not raw or COOKIE not in raw:
        return None
    try:
        jar: SimpleCookie = SimpleCookie(raw)
    except CookieError:
        return None
    morsel = jar.get(COOKIE)
    return morsel.value if morsel is not None and is_account_token(morsel.value) else None


def set_cookie(token: str, secure: bool) -> str:
    flags = "; Secure" if secure else ""
    return f"{COOKIE}={token}; Max-Age={SESSION_SECONDS}; Path=/; HttpOnly; SameSite=Lax{flags}"


def clear_cookie(secure: bool) -> str:
    flags = "; Secure" if secure else ""
    return f"{COOKIE}=; Max-Age=0; Path=/; HttpOnly; SameSite=Lax{flags}"


def is_secure(environ: dict[str, Any]) -> bool:
    scheme = environ.get("HTTP_X_FORWARDED_PROTO") or environ.get("wsgi.url_scheme")
    return scheme == "https"


# (environ, code, English message) -> the message in the caller's language
Translate = Callable[[dict[str, Any], str, str], str]


def _english(environ: dict[str, Any], code: str, message: str) -> str:
    return message


def _refusal(
    environ: dict[str, Any],
    status: str,
    code: str,
    message: str,
    extra: list[tuple[str, str]],
    translate: Translate = _english,
) -> Any:
    message = translate(environ, code, message)  # the caller's language
    body = json.dumps({"error": {"code": code, "message": message, "details": {}}}).encode()
    headers = [("Content-Type", "application/json"), ("Content-Length", str(len(body)))]
    return status, headers + extra, body


class CookieSessions:
    """The WSGI layer (between ``edge.EdgeLimits`` and the move path)."""

    def __init__(
        self,
        app: Callable[..., Iterable[bytes]],
        accounts: Accounts | None,
        translate: Translate = _english,
    ) -> None:
        """``translate``: a refusal's message in the caller's language (the app gives
        ``refusal_words.translated_for``; English without it)."""
        self.app = app
        self.accounts = accounts
        self.translate = translate

    def __call__(self, environ: dict[str, Any], start_response: Callable[..., Any]) -> Any:
        path = environ.get("PATH_INFO", "")
        if self.accounts is None or not path.startswith("/api/"):
            return self.app(environ, start_response)
        refused = self._check(environ, path)
        if refused is None and environ.get(STALE_KEY):
            secure = is_secure(environ)

            def clearing(status: str, headers: list[Any], *exc: Any) -> Any:
                return start_response(
                    status, [*headers, ("Set-Cookie", clear_cookie(secure))], *exc
                )

            return self.app(environ, clearing)
        if refused is None:
            return self.app(environ, start_response)
        status, headers, body = refused
        start_response(status, headers)
        return [body]

    def _check(self, environ: dict[str, Any], path: str) -> Any:
        assert self.accounts is not None
        header = environ.get("HTTP_AUTHORIZATION")
        write = environ.get("REQUEST_METHOD", "GET") not in SAFE
        if header is None:
            token = None if path in OPEN else cookie_token(environ)
            if token is None:
                return None
            session = self.accounts.session(token)
            if session is None:  # stale: as if there were none, and the answer clears it
                environ[STALE_KEY] = True
                return None
            sent = environ.get("HTTP_X_CSRF_TOKEN") or ""
            if write and not hmac.compare_digest(sent.encode(), csrf_of(token).encode()):
                return _refusal(
                    environ,
                    "403 Forbidden",
                    "csrf_failed",
                    f"a write signed in by the session cookie needs the {CSRF_HEADER} header",
                    [],
                    self.translate,
                )
            environ["HTTP_AUTHORIZATION"] = f"Bearer {token}"
            environ[COOKIE_KEY] = True
        else:
            token = auth.presented(header)
            if not is_account_token(token):
                return None
            session = self.accounts.session(token)
            if session is None:
                return None  # the resource answers 401 for a token that stands for nothing
        environ[SESSION_KEY] = session
        if write and not session.may_write():
            return _refusal(
                environ,
                "403 Forbidden",
                "insufficient_scope",
                "this token may only read (scope 'read'); writes need the 'play' scope",
                [],
                self.translate,
            )
        return None


def session_of(environ: dict[str, Any]) -> Session | None:
    found = environ.get(SESSION_KEY)
    return found if isinstance(found, Session) else None
