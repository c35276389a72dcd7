"""The account's locale kept in each of its token records (``Accounts.session``), so that the
language of an answer costs no read of the account (``service.http.languages``): a token made
after a choice carries it, a choice reaches every live token, a token that expired is not
brought back by it, and a record from before kept none (the account is read then)."""

from __future__ import annotations

from typing import Any

import redis

from service.accounts import SESSION, Accounts, digest
from service.http.languages import ACCOUNTS_KEY, language_of
from service.http.sessions import SESSION_KEY
from tests.service.test_notices import account


def environ_for(accounts: Accounts, token: str, **headers: str) -> dict[str, Any]:
    return {SESSION_KEY: accounts.session(token), ACCOUNTS_KEY: accounts, **headers}


def test_each_live_token_keeps_the_accounts_locale(own_redis_url: str) -> None:
    r = redis.Redis.from_url(own_redis_url)
    accounts = Accounts(r)
    kiku = account(accounts, "kiku@example.com")
    _, phone = accounts.issue(kiku, SESSION, "phone")
    session = accounts.session(phone)
    assert session is not None and session.locale == ""  # none chosen: the header decides
    assert language_of(environ_for(accounts, phone, HTTP_ACCEPT_LANGUAGE="ja")) == "ja"
    _, laptop = accounts.issue(kiku, SESSION, "laptop")
    _, gone = accounts.issue(kiku, SESSION, "an old tablet")
    r.delete(f"acct:token:{digest(gone)}")  # expired
    accounts.update(kiku, {"locale": "zh-TW"})
    for token in (phone, laptop):
        found = accounts.session(token)
        assert found is not None and found.locale == "zh-TW", token
        assert language_of(environ_for(accounts, token, HTTP_ACCEPT_LANGUAGE="ja")) == "zh-TW"
    assert not r.exists(f"acct:token:{digest(gone)}"), "an expired token stays gone"
    assert accounts.session(gone) is None
    _, later = accounts.issue(kiku, SESSION, "a new phone")
    made = accounts.session(later)
    assert made is not None and made.locale == "zh-TW"
    # a record from before the locale was kept: the account is read
    r.hdel(f"acct:token:{digest(later)}", "locale")
    old = accounts.session(later)
    assert old is not None and old.locale is None
    assert language_of(environ_for(accounts, later)) == "zh-TW"
