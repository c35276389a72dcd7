"""The review job (``service.review``): judge a slice of one seat's decisions on the worker's
service, then leave the rest to a follow-up job, so that bot turns never wait a whole review."""

from __future__ import annotations

import os

from service import review
from service.metrics import observed_job
from workers.jobs import chronicle, deadline

SLICE_SECONDS = 2.0  # default of CHRONICLE_REVIEW_SLICE_SECONDS


@observed_job("review")
def run(game_id: str, version: int, seat: int, head: str) -> str:
    """Judge the decisions of ``seat`` not judged yet for the log ending at ``version`` and
    ``head`` (what it did: ``done``, ``continued``, ``stale`` when the log moved on or the
    review is gone)."""
    ch = chronicle()
    meta, records = ch.loader.log(game_id)
    if meta.head != head or meta.version != version or not records:
        return "stale"
    cur = ch.current(game_id)
    if cur.head != head:
        return "stale"
    seconds = float(os.environ.get("CHRONICLE_REVIEW_SLICE_SECONDS") or SLICE_SECONDS)
    slice_over = deadline(seconds)
    return review.reviews_of(ch).run(cur.game, cur, records, seat, lambda: not slice_over())
