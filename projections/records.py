"""A recorded event: the domain event plus what the log adds (version, time, actor, hash).

``command`` is set on the first event of every batch: the action a seat posted (secret to
others: a vote, say, so it is shown only in exports and to the operator), or ``"create"`` /
``"finish"`` for the batches the system writes.  Replaying the commands through the rules must
give back exactly the recorded events; that is how an imported log is checked.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from domain import jsontext
from domain.engine import Event

CREATE, FINISH = "create", "finish"


@dataclass(frozen=True)
class Recorded:
    version: int
    type: str
    seat: int | None
    at: int  # server time, milliseconds since the epoch
    actor: int | None  # seat whose command produced the event; None for the system
    command: Any  # the command on a batch's first event (dict, "create" or "finish"), else None
    data: dict[str, Any]
    hash: str

    @property
    def event(self) -> Event:
        return Event(self.type, self.seat, self.data)

    def body(self) -> dict[str, Any]:
        """The hashed content (everything but the hash itself)."""
        return {
            "v": self.version,
            "t": self.type,
            "s": self.seat,
            "a": self.at,
            "c": self.actor,
            "x": self.command,
            "d": self.data,
        }


_second: tuple[int, str] = (0, "1970-01-01T00:00:00")  # the last second ``iso`` wrote


def iso(ms: int) -> str:
    """``ms`` since the epoch as ISO 8601 in UTC, to the millisecond (``...T05:11:39.037Z``).
    The text of the last second written is kept: the events of a move, and of a page of the
    log, mostly fall in one second, and a ``datetime`` costs more than the rest."""
    global _second
    second, milli = divmod(ms, 1000)
    kept = _second
    if kept[0] != second:
        kept = _second = (second, datetime.fromtimestamp(second, UTC).isoformat()[:19])
    return f"{kept[1]}.{milli:03d}Z"


def public(rec: Recorded, data: dict[str, Any]) -> dict[str, Any]:
    """The contract's event shape with the data a caller may see."""
    return {
        "version": rec.version,
        "type": rec.type,
        "seat": rec.seat,
        "at": iso(rec.at),
        "data": data,
    }


def full(rec: Recorded) -> dict[str, Any]:
    """Everything recorded, for exports and the operator's audit."""
    out = public(rec, rec.data)
    out.update(actor=rec.actor, command=rec.command, hash=rec.hash)
    return out


def from_full(doc: dict[str, Any]) -> Recorded:
    """Inverse of ``full`` (for imports); ``at`` is parsed from ISO 8601."""
    at = datetime.fromisoformat(doc["at"].replace("Z", "+00:00"))
    return Recorded(
        version=doc["version"],
        type=doc["type"],
        seat=doc["seat"],
        at=round(at.timestamp() * 1000),
        actor=doc.get("actor"),
        command=doc.get("command"),
        data=doc["data"],
        hash=doc.get("hash", ""),
    )


def dumps(value: Any) -> str:
    """The canonical JSON used for hashing and storage: sorted keys, no spaces, UTF-8."""
    return jsontext.canonical(value)  # json.dumps(value, sort_keys=True, separators=(",", ":"),
    # ensure_ascii=False), from an encoder built once
