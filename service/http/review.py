"""``/games/{id}/review``: a finished game judged from one seat (contract: v2 additions,
Review).  The work is a worker's (``service.review``); these handlers ask for it and read it."""

from __future__ import annotations

from typing import Any

from flask import request
from flask.views import MethodView
from marshmallow import Schema, fields, validate

from service import review
from service.http import schemas as s
from service.http.common import AUTH, blueprint, chronicle

blp = blueprint("review", "Review: a finished game's decisions judged from one seat's view")
STATUSES = (review.QUEUED, review.RUNNING, review.DONE)
VALUE = "the seat's expected final rank-score in [0, 1] (docs/play/review.md)"


class ReviewIn(Schema):
    seat = fields.Int(required=True, validate=validate.Range(min=0, max=99))


class ReviewQuery(Schema):
    seat = fields.Int(required=True, validate=validate.Range(min=0, max=99))


class ReviewAsked(Schema):
    status = fields.Str(required=True, validate=validate.OneOf(STATUSES))


class Alternative(Schema):
    action = fields.Dict(required=True, metadata={"description": "a legal action then"})
    value = fields.Float(required=True, metadata={"description": VALUE})


class Judged(Schema):
    version = fields.Int(required=True, metadata={"description": "the version the seat decided at"})
    played = fields.Dict(required=True)
    best = fields.Dict(required=True, metadata={"description": "the move search preferred"})
    value_played = fields.Float(required=True, metadata={"description": VALUE})
    value_best = fields.Float(required=True, metadata={"description": VALUE})
    swing = fields.Float(
        required=True, metadata={"description": "value_best - value_played, at least 0"}
    )
    alternatives = fields.List(
        fields.Nested(Alternative),
        required=True,
        metadata={"description": "every other legal action, highest value first"},
    )


class ReviewOut(Schema):
    status = fields.Str(required=True, validate=validate.OneOf(STATUSES))
    decisions = fields.List(
        fields.Nested(Judged),
        required=True,
        metadata={"description": "the decisions judged so far, by version"},
    )
    incomplete = fields.Bool(
        metadata={
            "description": "present (true) on a review that ended before judging every "
            "decision: its job failed again and again; `decisions` are those judged"
        }
    )


def _checked(game_id: str, seat: int) -> tuple[review.Reviews, Any]:
    ch = chronicle()
    cur = ch.current(game_id)
    review.check_caller(ch, cur, request.headers.get("Authorization"), seat)
    return review.reviews_of(ch), cur


@blp.route("/games/<game_id:game_id>/review")
class ReviewResource(MethodView):
    @blp.doc(operationId="askReview", security=AUTH)
    @blp.arguments(ReviewIn)
    @blp.response(202, ReviewAsked)
    @blp.alt_response(403, schema=s.ApiError, description="not that seat's player nor the admin")
    @blp.alt_response(404, schema=s.ApiError, description="no such game")
    @blp.alt_response(409, schema=s.ApiError, description="game_not_finished")
    def post(self, body: dict[str, Any], game_id: str) -> dict[str, Any]:
        """Ask for the review of one seat's decisions (a finished game; that seat's token or
        account, or the admin).  Asked again, nothing is queued twice: the answer is the
        review's status."""
        reviews, cur = _checked(game_id, body["seat"])
        return {"status": reviews.ask(cur, body["seat"])}

    @blp.doc(operationId="getReview", security=AUTH)
    @blp.arguments(ReviewQuery, location="query")
    @blp.response(200, ReviewOut)
    @blp.alt_response(403, schema=s.ApiError, description="not that seat's player nor the admin")
    @blp.alt_response(404, schema=s.ApiError, description="no such game, or no review asked")
    @blp.alt_response(409, schema=s.ApiError, description="game_not_finished (asked again)")
    def get(self, query: dict[str, Any], game_id: str) -> dict[str, Any]:
        """The review of one seat: its status and each decision judged so far, valued from
        what that seat's view showed then only."""
        reviews, cur = _checked(game_id, query["seat"])
        return reviews.read(cur, query["seat"])
