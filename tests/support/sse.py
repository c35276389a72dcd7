"""A Server-Sent Events reader for the tests: one HTTP response read as it arrives, parsed into
events (``event``, ``id``, ``data`` as JSON) and comments (heartbeats)."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import requests


@dataclass(frozen=True)
class Frame:
    kind: str  # the event's name, or "comment"
    id: str | None
    data: Any
    at: float  # time.monotonic() when it was read


class Stream:
    def __init__(
        self,
        url: str,
        headers: dict[str, str] | None = None,
        params: dict[str, Any] | None = None,
        timeout: float = 10,
    ) -> None:
        self.response = requests.get(
            url, headers=headers or {}, params=params, stream=True, timeout=timeout
        )
        self.status = self.response.status_code
        self._frames = self._parse() if self.status == 200 else iter(())

    def _parse(self) -> Iterator[Frame]:
        buf = b""
        for chunk in self.response.iter_content(chunk_size=None):
            buf += chunk
            while b"\n\n" in buf:
                block, buf = buf.split(b"\n\n", 1)
                yield _frame(block.decode())

    def next(self) -> Frame:
        """The next frame (a read timeout of the request raises)."""
        return next(self._frames)

    def until(self, kind: str, limit: int = 1000) -> tuple[Frame, list[Frame]]:
        """Frames up to and including the next of ``kind``; (that frame, all read)."""
        seen: list[Frame] = []
        for _ in range(limit):
            frame = self.next()
            seen.append(frame)
            if frame.kind == kind:
                return frame, seen
        raise AssertionError(f"no {kind} frame in {limit}")

    def close(self) -> None:
        self.response.close()

    def __enter__(self) -> Stream:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()


def _frame(block: str) -> Frame:
    kind, ident, data = "message", None, []
    lines = block.split("\n")
    if all(line.startswith(":") for line in lines if line):
        return Frame("comment", None, "\n".join(lines), time.monotonic())
    for line in lines:
        if line.startswith(":"):
            continue
        name, _, value = line.partition(":")
        value = value[1:] if value.startswith(" ") else value
        if name == "event":
            kind = value
        elif name == "id":
            ident = value
        elif name == "data":
            data.append(value)
        elif name == "retry":
            kind = "retry" if kind == "message" and not data else kind
    text = "\n".join(data)
    return Frame(kind, ident, json.loads(text) if text else None, time.monotonic())
