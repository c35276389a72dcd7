"""Table chat on the push stream: a ``Source`` of kind ``chat`` for ``service.stream``'s hub.

A line travels once from Redis to a process, whatever the number of its watchers:

    service.chat.post (its script) / hide: PUBLISH chronicle:changes "chat <id> <line>"
      -> ChatSource.notice, in the hub: the new lines and the hidden set, read once, into
         the game's feed (``ChatFeed``, ``feed.extra["chat"]``)
      -> ChatSource.frames, for each watcher: the lines after its mark in the rooms its caller
         may read now (``service.chat.readable_rooms``, the rule of ``GET /chat``), each
         rendered once and shared by every watcher that may read it.

A frame is ``event: chat`` with ``data`` one line exactly as ``GET /chat`` gives it; a hidden
line (and a hide, which repeats the line) comes with ``hidden: true`` and without its text:
the stream never carries a hidden text (only the export does).  A chat frame has no ``id:``:
the stream's ids are game versions, and chat never changes the version.  Its position is the
line id: ``?chat_after=L`` starts the stream with the readable lines after ``L`` (and the
lines up to ``L`` hidden since, again), then goes on live; without it the stream carries
the lines said from then on.  When the game ends the players' room becomes everyone's, and a
watcher that could not read it is sent its lines up to then.

A notice may be lost (a reconnect): the hub's resync compares each watched game's last line id
and number of hidden lines with its feed, as it compares the heads of the log.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from projections.views import revealed
from service import chat
from service.stream import Feed, Hub, Watch, sse

KIND = "chat"
BUFFER = 1024  # recent lines a feed keeps (a watcher further behind reads them from Redis)


@dataclass
class ChatFeed:
    """What this process knows of one game's chat, shared by its watchers (under the feed's
    ``cond``)."""

    last: int  # the last line id heard
    lines: dict[int, dict[str, Any]] = field(default_factory=dict)  # recent lines, stored form
    hidden: set[int] = field(default_factory=set)
    hides: list[int] = field(default_factory=list)  # lines hidden since the feed began, in order


@dataclass(frozen=True)
class Mark:
    """Where one watcher is: the last line it was sent, the hides it was sent, its rooms.
    A value (replaced, never changed): watchers at equal positions share one rendering
    (``Hub.push``), so a position must compare and hash by value."""

    last: int
    hides: int
    rooms: tuple[str, ...]


def public(line_id: int, line: dict[str, Any], hidden: bool) -> dict[str, Any]:
    """A line as readers get it (``GET /chat``): a hidden one without its text."""
    doc = {"id": line_id, **line}
    if hidden:
        doc.pop("text", None)
        doc["hidden"] = True
    return doc


def frame(doc: dict[str, Any]) -> bytes:
    return sse(KIND, None, doc)


class ChatSource:
    kind = KIND

    def __init__(self, client: Any) -> None:
        self.client = client  # the events' Redis (chat is kept beside the log)

    # ---- in the hub -------------------------------------------------------------------------
    def notice(self, hub: Hub, feed: Feed, args: Sequence[str]) -> None:
        self.refresh(feed)

    def resync(self, hub: Hub, feeds: Sequence[Feed]) -> None:
        """Find the lines and hides whose notices were lost: one pipelined read for all."""
        pipe = self.client.pipeline(transaction=False)
        for feed in feeds:
            k = chat.keys(feed.game_id)
            pipe.get(k["n"])
            pipe.hlen(k["hidden"])
        got = pipe.execute()
        for i, feed in enumerate(feeds):
            cf = feed.extra.get(KIND)
            n, hidden = int(got[2 * i] or 0), int(got[2 * i + 1] or 0)
            if cf is not None and (n, hidden) != (cf.last, len(cf.hidden)):
                self.refresh(feed)

    def refresh(self, feed: Feed) -> None:
        """Read what is new since the feed's last line (the first time: where chat is)."""
        k = chat.keys(feed.game_id)
        while True:
            with feed.cond:
                cf: ChatFeed | None = feed.extra.get(KIND)
                last = None if cf is None else cf.last
            pipe = self.client.pipeline(transaction=False)
            if last is None:
                pipe.get(k["n"])
            else:
                pipe.xrange(k["chat"], f"{last + 1}-0", "+", count=chat.PAGE)
            pipe.hkeys(k["hidden"])
            got, hidden_ids = pipe.execute()
            hidden = {int(h) for h in hidden_ids}
            with feed.cond:
                cf = feed.extra.get(KIND)
                if cf is None:
                    if last is None:
                        feed.extra[KIND] = ChatFeed(int(got or 0), hidden=hidden)
                        return
                    continue  # pragma: no cover - a feed's chat state is never dropped
                if cf.last != last:
                    continue  # another reader moved it meanwhile: read again from there
                if last is None:
                    return
                for entry_id, fields in got:
                    line_id = int(_s(entry_id).split("-", 1)[0])
                    cf.lines[line_id] = json.loads(fields[b"l"])
                    cf.last = line_id
                while len(cf.lines) > BUFFER:
                    del cf.lines[next(iter(cf.lines))]
                newly = sorted(hidden - cf.hidden)
                cf.hidden |= hidden
                cf.hides += newly
                if got or newly:
                    feed.changed()
                if len(got) < chat.PAGE:
                    return

    # ---- in each watcher --------------------------------------------------------------------
    def start(self, hub: Hub, watch: Watch, after: int | None) -> list[bytes]:
        """Set the watcher's mark (where chat is now); with ``after``: the readable lines
        after it up to there, and the lines up to it that are hidden (read from Redis)."""
        feed = watch.feed
        self.refresh(feed)
        with feed.cond:
            cf: ChatFeed = feed.extra[KIND]
            rooms = chat.readable_rooms(watch.caller, revealed(feed.head.status))
            mark = watch.marks[KIND] = Mark(cf.last, len(cf.hides), rooms)
        if after is None:
            return []
        r = self.client
        hidden = [i for i in _hidden_ids(r, feed.game_id) if i <= after]
        out = [frame(d) for d in _hidden_lines(r, feed.game_id, hidden, rooms)]
        said = _read(r, feed.game_id, rooms, after, mark.last)
        return out + [frame(chat.screened(d, watch.blocked)) for d in said]

    def frames(self, watch: Watch) -> list[bytes]:
        """What is new in chat for ``watch`` (the caller holds the feed's ``cond``)."""
        feed = watch.feed
        cf: ChatFeed | None = feed.extra.get(KIND)
        mark: Mark | None = watch.marks.get(KIND)
        if cf is None or mark is None:
            return []
        out: list[bytes] = []
        client, gid = self.client, feed.game_id
        rooms = chat.readable_rooms(watch.caller, revealed(feed.head.status))
        if rooms != mark.rooms:  # the game ended: the players' room is everyone's now
            opened = tuple(x for x in rooms if x not in mark.rooms)
            upto = mark.last
            out.append(
                feed.render(
                    (KIND, "opened", opened, upto, len(cf.hides)),
                    lambda: b"".join(frame(d) for d in _read(client, gid, opened, 0, upto)),
                )
                if not watch.blocked
                else b"".join(
                    frame(chat.screened(d, watch.blocked))
                    for d in _read(client, gid, opened, 0, upto)
                )
            )
        # The hides first: each hid a line the watcher was sent before (a new line goes out
        # hidden with the new lines below), and came before any line said after it.
        for line_id in cf.hides[mark.hides :]:
            line = cf.lines.get(line_id)
            if line_id > mark.last:  # a new line: it goes (hidden) with the lines below
                continue
            if line is None:
                out += [frame(d) for d in _hidden_lines(client, gid, [line_id], rooms)]
            elif line["room"] in rooms:
                out.append(_rendered(feed, line_id, line, True))
        if cf.last > mark.last:
            first = next(iter(cf.lines), cf.last + 1)
            if mark.last + 1 < first:  # behind the buffer
                behind = _read(client, gid, rooms, mark.last, first - 1)
                out += [frame(chat.screened(d, watch.blocked)) for d in behind]
            for line_id in range(max(mark.last + 1, first), cf.last + 1):
                line = cf.lines.get(line_id)
                if line is None or line["room"] not in rooms:
                    continue
                if line.get("player") in watch.blocked:
                    doc = public(line_id, line, line_id in cf.hidden)
                    out.append(frame(chat.screened(doc, watch.blocked)))
                    continue
                out.append(_rendered(feed, line_id, line, line_id in cf.hidden))
        watch.marks[KIND] = Mark(cf.last, len(cf.hides), rooms)
        return out


def _rendered(feed: Feed, line_id: int, line: dict[str, Any], hidden: bool) -> bytes:
    """A line's frame, rendered once for every watcher of the game that may read it."""
    return feed.render((KIND, line_id, hidden), lambda: frame(public(line_id, line, hidden)))


def _read(r: Any, game_id: str, rooms: Sequence[str], after: int, upto: int) -> list[dict]:
    """The readable lines in ``(after, upto]`` from Redis, as ``GET /chat`` gives them."""
    out: list[dict[str, Any]] = []
    while after < upto:
        page = chat.lines(r, game_id, rooms, after)
        got = [x for x in page if x["id"] <= upto]
        out += got
        if not page or len(got) < len(page):
            return out
        after = page[-1]["id"]
    return out


def _hidden_ids(r: Any, game_id: str) -> list[int]:
    return sorted(int(h) for h in r.hkeys(chat.keys(game_id)["hidden"]))


def _hidden_lines(r: Any, game_id: str, ids: Sequence[int], rooms: Sequence[str]) -> list[dict]:
    """Hidden lines by id, as readers get them (the hides a watcher may have missed)."""
    if not ids:
        return []
    key = chat.keys(game_id)["chat"]
    pipe = r.pipeline(transaction=False)
    for line_id in ids:
        pipe.xrange(key, f"{line_id}-0", f"{line_id}-0")
    out: list[dict[str, Any]] = []
    for line_id, entries in zip(ids, pipe.execute(), strict=True):
        for _, fields in entries:
            line = json.loads(fields[b"l"])
            if line["room"] in rooms:
                out.append(public(line_id, line, True))
    return out


def _s(v: Any) -> str:
    return v.decode() if isinstance(v, bytes) else str(v)
