"""Configuration from the environment (and the CLI, which sets the same variables)."""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from service.commands import CHOSEN_SEEDS
from service.connections import is_cluster_url


@dataclass(frozen=True)
class Settings:
    redis_url: str | None  # None: `chronicle serve` starts an embedded Redis
    queue_redis_url: str | None  # RQ's Redis; None: the same as redis_url
    admin_token: str | None
    data_dir: Path
    port: int
    bot_max_seconds: float = 2.0  # the operator's cap on one bot move's search (wall clock)
    open_import: bool = False  # CHRONICLE_OPEN_IMPORT=1: imports without the admin token
    # CHRONICLE_CHOSEN_SEEDS: "any" (default) or "solo" (a chosen seed only where every other
    # seat is a bot: the creator of a chosen seed can know every hidden card)
    chosen_seeds: str = "any"

    def __post_init__(self) -> None:
        if is_cluster_url(self.redis_url) and not self.queue_redis_url:
            raise ValueError(
                "REDIS_URL names a Redis Cluster: set QUEUE_REDIS_URL to a plain Redis for RQ "
                "(RQ's keys and commands cannot be spread over cluster slots)"
            )
        if is_cluster_url(self.queue_redis_url):
            raise ValueError("QUEUE_REDIS_URL must be a plain Redis, not a cluster")
        if self.chosen_seeds not in CHOSEN_SEEDS:
            raise ValueError(f"CHRONICLE_CHOSEN_SEEDS must be one of: {', '.join(CHOSEN_SEEDS)}")

    @property
    def queue_url(self) -> str | None:
        """RQ's Redis: ``QUEUE_REDIS_URL``, else the events' Redis (never a cluster)."""
        return self.queue_redis_url or self.redis_url

    @classmethod
    def from_env(cls, env: Mapping[str, str] = os.environ) -> Settings:
        return cls(
            redis_url=env.get("REDIS_URL") or None,
            queue_redis_url=env.get("QUEUE_REDIS_URL") or None,
            admin_token=env.get("ADMIN_TOKEN") or None,
            data_dir=Path(env.get("CHRONICLE_DATA_DIR") or "var"),
            port=int(env.get("PORT") or 8000),
            bot_max_seconds=float(env.get("CHRONICLE_BOT_MAX_SECONDS") or 2.0),
            open_import=(env.get("CHRONICLE_OPEN_IMPORT") or "").strip().lower()
            in ("1", "true", "yes", "on"),
            chosen_seeds=(env.get("CHRONICLE_CHOSEN_SEEDS") or "any").strip().lower(),
        )
