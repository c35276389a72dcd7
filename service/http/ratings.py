"""``/ratings/{game}``: a game kind's leaderboard (contract: v2 additions, Ratings).

The numbers are the live table ``service.ratings`` keeps, which is the fold of the finished
rated games' exports (``chronicle ratings EXPORTS...`` prints the same).  A rater's name is
its account's (a deleted account's seat keeps its rating under its public id, with no name
to show) or the catalog's words for a bot."""

from __future__ import annotations

from typing import Any

from flask.views import MethodView
from marshmallow import Schema, fields, validate

from domain import games
from service import ratings
from service.errors import NotFound
from service.http import schemas as s
from service.http.common import AUTH, blueprint, chronicle

blp = blueprint("ratings", "Ratings: a leaderboard per game, recomputable from the exports")
DELETED = "a former player"  # the name of a rater whose account is gone


class RatingsQuery(Schema):
    limit = fields.Int(load_default=50, validate=validate.Range(min=1, max=500))


class RatingOut(Schema):
    player = fields.Str(
        required=True, metadata={"description": "an account's public id, or `bot:<bot>`"}
    )
    name = fields.Str(required=True)
    mu = fields.Float(required=True)
    sigma = fields.Float(required=True)
    ordinal = fields.Float(required=True, metadata={"description": "mu - 3 sigma: the order"})
    games = fields.Int(required=True, metadata={"description": "rated games counted"})
    provisional = fields.Bool(
        required=True,
        metadata={"description": f"fewer than {ratings.PROVISIONAL_GAMES} rated games"},
    )


class RatingsOut(Schema):
    ratings = fields.List(fields.Nested(RatingOut), required=True)


def live() -> ratings.Ratings:
    return ratings.Ratings(chronicle().accounts_of().r)


def name_of(rater: str) -> str:
    bot = ratings.bot_name(rater)
    if bot is not None:
        return bot
    account = chronicle().accounts_of().get(rater)
    return account.name if account is not None else DELETED


@blp.route("/ratings/<game>")
class RatingsResource(MethodView):
    @blp.doc(operationId="getRatings", security=AUTH)
    @blp.arguments(RatingsQuery, location="query")
    @blp.response(200, RatingsOut)
    @blp.alt_response(404, schema=s.ApiError, description="no such game")
    def get(self, query: dict[str, Any], game: str) -> dict[str, Any]:
        """The game's leaderboard, by `ordinal` (mu - 3 sigma) highest first: accounts and
        bots, each with OpenSkill's mu and sigma and the rated games it played."""
        if games.get(game) is None:
            raise NotFound(f"no game {game!r}")
        rows = ratings.ordered(live().table(game), query["limit"])
        return {
            "ratings": [
                {"player": rater, "name": name_of(rater), **standing.doc()}
                for rater, standing in rows
            ]
        }


class StandingOut(Schema):
    mu = fields.Float(required=True)
    sigma = fields.Float(required=True)
    ordinal = fields.Float(required=True)
    games = fields.Int(required=True)
    provisional = fields.Bool(required=True)


class ChangeOut(Schema):
    player = fields.Str(required=True, metadata={"description": "an account's id or `bot:<bot>`"})
    name = fields.Str(required=True)
    before = fields.Nested(StandingOut, required=True)
    after = fields.Nested(StandingOut, required=True)


class ChangesOut(Schema):
    game = fields.Str(required=True, metadata={"description": "the game kind's table"})
    changes = fields.List(fields.Nested(ChangeOut), required=True)


@blp.route("/games/<game_id:game_id>/ratings")
class GameRatingsResource(MethodView):
    @blp.doc(operationId="getGameRatings", security=AUTH)
    @blp.response(200, ChangesOut)
    @blp.alt_response(404, schema=s.ApiError, description="not a rated game, or not counted yet")
    def get(self, game_id: str) -> dict[str, Any]:
        """What a finished rated game did to each rater's standing (the end screen's "your
        rating"): before and after, by the same fold as the leaderboard."""
        meta = chronicle().current(game_id).meta
        moved = live().change(meta.game, game_id)
        if moved is None:
            raise NotFound("this game is not rated, or its rating is not counted yet")
        rows = sorted(moved.items(), key=lambda kv: -kv[1][1].ordinal)
        return {
            "game": meta.game,
            "changes": [
                {"player": r, "name": name_of(r), "before": b.doc(), "after": a.doc()}
                for r, (b, a) in rows
            ],
        }


def of_player(player: str) -> dict[str, Any]:
    """A profile's ratings: ``{game: {mu, sigma, ordinal, games, provisional}}``."""
    found = live().of(player, sorted(games.GAMES))
    return {game: standing.doc() for game, standing in found.items()}


def with_moves(player: str, docs: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """``/me/games``'s items, each finished game the worker counted for ``player``'s rating
    given ``rating: {before, after}`` (its ordinal before and after that game): one pipelined
    read for the whole list (an unrated game has nothing to read and gets no ``rating``)."""
    finished = [(doc["game"], doc["id"]) for doc in docs if doc["status"] == "finished"]
    moved = live().moves_of(player, finished) if finished else {}
    for doc in docs:
        if doc["id"] in moved:
            before, after = moved[doc["id"]]
            doc["rating"] = {"before": before.ordinal, "after": after.ordinal}
    return docs
