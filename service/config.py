"""Configuration from the environment (and the CLI, which sets the same variables)."""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class Settings:
    redis_url: str | None  # None: `chronicle serve` starts an embedded Redis
    queue_redis_url: str | None  # RQ's Redis; None: the same as redis_url
    admin_token: str | None
    data_dir: Path
    port: int

    @classmethod
    def from_env(cls, env: Mapping[str, str] = os.environ) -> Settings:
        return cls(
            redis_url=env.get("REDIS_URL") or None,
            queue_redis_url=env.get("QUEUE_REDIS_URL") or None,
            admin_token=env.get("ADMIN_TOKEN") or None,
            data_dir=Path(env.get("CHRONICLE_DATA_DIR") or "var"),
            port=int(env.get("PORT") or 8000),
        )
