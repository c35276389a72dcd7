"""The request's language at the HTTP edge (contract: v2 additions, Languages).

- ``Languages`` is a WSGI layer inside the cookie sessions (so it knows the signed-in account)
  and outside everything else, the move path included: every answer under ``/api/`` gets a
  ``Content-Language`` (unless the handler set one, as the docs pages do for the language they
  served) and ``Vary: Accept-Language``.  A layer, not a Flask hook, so the plain move path
  (``service.http.move_path``) is covered without a hook of its own.
- The language is worked out once per request, when first asked, and kept in the WSGI
  environ: the account's ``locale`` (kept in its token's record, so read with the session:
  no read of its own; guests cost nothing), else ``Accept-Language``, else English
  (``service.i18n.chosen``).
- An error body's ``message`` in that language: ``service.http.refusal_words``.
- flask-babel is configured with the same choice (``locale_selector``), so ``flask_babel``'s
  ``gettext`` and ``format_*`` work in any request.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

import redis
from flask import Flask
from flask_babel import Babel  # type: ignore[import-untyped]  # no py.typed marker

from service import i18n
from service.accounts import Accounts
from service.http.middleware import current_request
from service.http.sessions import session_of

ENVIRON_KEY = "chronicle.language"
ACCOUNTS_KEY = "chronicle.language.accounts"


def language_of(environ: dict[str, Any]) -> str:
    """The language of the request whose environ this is (worked out once)."""
    found = environ.get(ENVIRON_KEY)
    if isinstance(found, str):
        return found
    locale = None
    session = session_of(environ)
    accounts: Accounts | None = environ.get(ACCOUNTS_KEY)
    if session is not None and session.locale is not None:
        locale = session.locale or None  # kept in the token's record: no read
    elif session is not None and accounts is not None:  # a token from before it was kept
        try:
            account = accounts.get(session.player)
        except redis.RedisError:  # the store is down: this answer (a 503) by the header
            account = None
        locale = account.locale if account is not None else None
    lang = environ[ENVIRON_KEY] = i18n.chosen(locale, environ.get("HTTP_ACCEPT_LANGUAGE"))
    return lang


def language() -> str:
    """The language of the request being handled (English outside a request)."""
    try:
        return language_of(current_request().environ)
    except LookupError:
        return i18n.DEFAULT


class Languages:
    """The WSGI layer: the accounts to read a locale from, and ``Content-Language``."""

    def __init__(self, app: Callable[..., Iterable[bytes]], accounts: Accounts | None) -> None:
        self.app = app
        self.accounts = accounts

    def __call__(self, environ: dict[str, Any], start_response: Callable[..., Any]) -> Any:
        if self.accounts is not None:
            environ[ACCOUNTS_KEY] = self.accounts
        if not environ.get("PATH_INFO", "").startswith("/api/"):
            return self.app(environ, start_response)

        def start(status: str, headers: list[tuple[str, str]], exc_info: Any = None) -> Any:
            names = {k.lower(): i for i, (k, _) in enumerate(headers)}
            if "content-language" not in names:
                headers.append(("Content-Language", language_of(environ)))
            if "vary" in names:
                i = names["vary"]
                if "accept-language" not in headers[i][1].lower():
                    headers[i] = (headers[i][0], f"{headers[i][1]}, Accept-Language")
            else:
                headers.append(("Vary", "Accept-Language"))
            return start_response(status, headers, exc_info)

        return self.app(environ, start)


def install(app: Flask) -> None:
    """flask-babel with the request's language and our catalogues."""
    Babel(
        app,
        locale_selector=lambda: i18n.gettext_name(language()),
        default_translation_directories=str(i18n.TRANSLATIONS),
        configure_jinja=False,
    )
