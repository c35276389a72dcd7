"""Every operation declares its errors, from the one table, and the document tells the truth.

The table is ``service/http/errors.py`` (``ERRORS``); the error schema's ``code`` is its closed
enum; docs/errors.md is generated from it (regenerate: ``python -m service.http.errors >
docs/errors.md``).  Bad query parameters are declared 400 and answered 400 (the contract),
not 422 (flask-smorest's default).
"""

from __future__ import annotations

from pathlib import Path

from domain.errors import Refused, StateConflict
from service import chat  # noqa: F401  (its refusal is a subclass)
from service import errors as service_errors  # noqa: F401  (its refusals are subclasses)
from service.http.errors import CODES, ERRORS, HTTP_CODES, catalogue
from tests.conftest import ROOT
from tests.support.client import Client
from tests.support.openapi import Validators

METHODS = {"get", "post", "put", "patch", "delete"}


def _subclasses(cls: type[Refused]) -> set[type[Refused]]:
    out: set[type[Refused]] = set()
    for sub in cls.__subclasses__():
        out |= {sub, *_subclasses(sub)}
    return out


def test_the_table_covers_every_code_the_service_answers() -> None:
    assert len(CODES) == len(ERRORS), "a code is listed twice"
    for cls in _subclasses(Refused):
        if cls is StateConflict:  # its code is given per refusal: the three are listed below
            continue
        assert cls.code in CODES, f"{cls.__name__}.code {cls.code!r} is not in ERRORS"
    assert set(HTTP_CODES.values()) <= set(CODES)
    for code in (
        "seat_taken",
        "game_not_waiting",
        "turn_timed_out",
        "idempotency_key_reused",
        "precondition_failed",
        "rate_limited",
        "storage_full",
        "unavailable",
    ):
        assert code in CODES, code


def test_the_error_catalogue_page_is_the_table() -> None:
    page = Path(ROOT, "docs", "errors.md").read_text()
    assert page == catalogue(), "docs/errors.md is stale: python -m service.http.errors"
    for e in ERRORS:
        assert f"| {e.status} | `{e.code}` |" in page


def test_every_operation_declares_its_errors(api: Client) -> None:
    spec = api.get("/api/v1/openapi.json").json()
    enum = spec["components"]["schemas"]["ErrorBody"]["properties"]["code"]["enum"]
    assert enum == [e.code for e in ERRORS]
    statuses = {e.status for e in ERRORS}
    assert {"/healthz", "/readyz"} <= set(spec["paths"])
    for path, ops in spec["paths"].items():
        for method, op in ops.items():
            if method not in METHODS:
                continue
            declared = {int(s) for s in op["responses"] if s.isdigit() and int(s) >= 400}
            where = f"{method.upper()} {path}"
            assert declared <= statuses, where
            assert "422" not in op["responses"] or method == "post", where
            if path != "/healthz":
                assert 503 in declared, where
            if "{game_id}" in path:
                assert {403, 404} <= declared, where
            if any("bearer" in s for s in op.get("security", [])):
                assert {401, 403} <= declared, where
            if op.get("requestBody"):
                assert {400, 413, 507} <= declared, where
            for status in declared:
                text = op["responses"][str(status)]["description"]
                assert all(f"`{c}`" in text for c in CODES if CODES[c].status == status), where
    act = spec["paths"]["/api/v1/games/{game_id}/actions"]["post"]["responses"]
    assert {"400", "401", "403", "404", "409", "413", "422", "429", "503", "507"} <= set(act)
    view = spec["paths"]["/api/v1/games/{game_id}/view"]["get"]["responses"]
    assert "400" in view and "422" not in view


def test_bad_query_parameters_are_declared_and_answered_400(api: Client) -> None:
    spec = api.get("/api/v1/openapi.json").json()
    check = Validators(spec)
    r = api.get("/api/v1/games", per_page=1000)
    assert r.status_code == 400
    assert "400" in spec["paths"]["/api/v1/games"]["get"]["responses"]
    check.check("ApiError", r.json())
    assert r.json()["error"]["code"] == "bad_request" and "per_page" in r.json()["error"]["details"]
    missing = api.get("/api/v1/games/nosuchgame0000/view")
    assert missing.status_code == 404
    check.check("ApiError", missing.json())
