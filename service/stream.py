"""Push: one reader of the log's changes per process, shared by every watcher it serves.

A change travels once from Redis to a process, whatever the number of its watchers:

    append.lua, truncate.lua: PUBLISH chronicle:changes "append <id> <from> <to>\n<records>" /
                              "undo <id> <to>"
      -> the Hub of each API process (one subscription: one connection, one greenlet/thread)
      -> the Feed of that game, if this process has watchers of it: an append's notice carries
         its packed events and the meta's status, to act, result and clocks after it, so the feed
         takes them without a read (an undo, or a notice without them, is read back in one
         round trip), once for every watcher of the game together
      -> the hub writes the change to every watcher of the game that waits on its socket
         (``push``); watchers at the same position (a thousand spectators) share one working
         out and one rendering of the change; a long-poll's waiter wakes (a condition).

Watchers (SSE streams, long-polls) hold no Redis connection while they wait: only the hub's
subscription does.  On a Redis Cluster a ``PUBLISH`` is broadcast to every node, so the one
subscription hears the games of every shard; each script publishes from the shard that owns
the game, in the same atomic call as the write it announces.

Publish/subscribe may drop a message (a reconnect).  So the hub also compares the head of
every watched game (version and head hash, one pipelined read for all) with its feed after a
(re)subscription and every ``RESYNC_SECONDS``; a missed append or undo is found there and
delivered the same way.

**More kinds.**  A notice is ``<kind> <game id> <args...>``.  The game log is the built-in kind
(``append``, ``undo``).  Another part of the service adds a kind (chat lines, turn notices) by
publishing ``<kind> <game id> ...`` on ``CHANNEL`` after its write and registering a ``Source``
with the hub: ``notice`` runs in the hub (read what is new, once, into ``feed.extra``, then
``feed.changed()``), ``start`` in a new watcher (its mark, and what came after the position
its client resumes from, ``follow``'s ``resume``), ``frames`` in each watcher (what is new for
its caller since its mark), ``resync`` in the hub's resync (notices it may have lost).

Table chat is such a kind (``service.chat_stream``): ``event: chat``, one line each, only in
the rooms the watcher's caller may read; resumed by the line id (``?chat_after=``).
"""

from __future__ import annotations

import json
import logging
import random
import socket
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager, suppress
from dataclasses import dataclass, field
from typing import Any, Protocol

import redis

from domain import engine, jsontext
from domain.engine import Config, Game
from projections.records import Recorded
from projections.views import Caller, events_for
from service import clocks
from service.redis_store import FIELD, decode_entry, keys
from service.store import EventStore

log = logging.getLogger(__name__)

CHANNEL = "chronicle:changes"
BUFFER = 512  # recent records a feed keeps for its watchers (older ones: read from the store)
CHUNK = 500  # records per ``events`` frame when a stream catches up from the store
RESYNC_SECONDS = 5.0
RENDERED = 64  # renderings a feed keeps (one per batch and distinct caller)


def revealed(status: str) -> bool:
    """Once a game is finished every event is shown to everyone (as ``/events`` does)."""
    return status == engine.FINISHED


def sse(kind: str, ident: int | None, data: Any) -> bytes:
    """One Server-Sent Event (``id:`` is the game version it brings the watcher to)."""
    head = f"id: {ident}\n" if ident is not None else ""
    body = jsontext.compact(data)
    return f"{head}event: {kind}\ndata: {body}\n\n".encode()


HEARTBEAT = b": heartbeat\n\n"
JITTER = 0.25  # a heartbeat comes after (1 - JITTER .. 1) x the interval without a frame


def beat(interval: float) -> float:
    """The wait before a watcher's next heartbeat.  Watchers that connected together (a
    reconnect wave after a restart) would otherwise beat together every interval, for as long
    as they stay: a burst of thousands of writes that the moves of that moment wait behind.
    A random share off each wait spreads them out within a few intervals."""
    return interval * (1.0 - JITTER * random.random())


@dataclass(frozen=True)
class Head:
    """A game's head as a reader saw it: what a new feed starts from."""

    version: int
    hash: str
    status: str
    to_act: tuple[int, ...]
    result: Any = None
    clocks: Any = None  # each person's clock on a clocked table (``service.clocks.state_of``)


@dataclass
class Feed:
    """What this process knows of one game's log, shared by its watchers.  The hub changes
    it (holding ``cond``) and replaces ``records`` rather than mutating it, so a watcher may
    use a list it took under the lock after releasing it."""

    game_id: str
    head: Head
    cond: threading.Condition = field(default_factory=threading.Condition)
    records: list[Recorded] = field(default_factory=list)  # contiguous, ending at head
    epoch: int = 0  # undos heard
    undos: list[tuple[int, int]] = field(default_factory=list)  # (epoch, cut to version)
    seq: int = 0  # changes of any kind: watchers wait for it to move
    watchers: int = 0
    direct: set[Watch] = field(default_factory=set)
    rendered: OrderedDict[Any, bytes] = field(default_factory=OrderedDict)
    extra: dict[str, Any] = field(default_factory=dict)  # other sources' state

    @property
    def version(self) -> int:
        return self.head.version

    def since(self, version: int) -> list[Recorded] | None:
        """The buffered records after ``version`` (None: they are not all buffered)."""
        if version >= self.version:
            return []
        if not self.records or self.records[0].version > version + 1:
            return None
        return self.records[version + 1 - self.records[0].version :]

    def cut_since(self, epoch: int) -> int | None:
        """The lowest version the log was cut to after ``epoch`` (None: no undo since)."""
        cuts = [to for e, to in self.undos if e > epoch]
        return min(cuts) if cuts else None

    def render(self, key: Any, make: Callable[[], bytes]) -> bytes:
        """One rendering per key (a batch for one kind of caller), shared by its watchers."""
        got = self.rendered.get(key)
        if got is None:
            got = self.rendered[key] = make()
            while len(self.rendered) > RENDERED:
                self.rendered.popitem(last=False)
        return got

    def changed(self) -> None:
        """Wake every watcher (the caller holds ``cond``)."""
        self.seq += 1
        self.cond.notify_all()


@dataclass(eq=False)
class Watch:
    """One watcher: what it has been sent, and whom it is rendered for.  A *direct* watcher
    (``sock`` set) is written to by the hub itself; ``busy`` while its own greenlet writes."""

    feed: Feed
    game: Game
    config: Config  # the game's configuration (redaction may depend on it)
    caller: Caller
    version: int
    epoch: int
    seq: int
    status: tuple[str, tuple[int, ...]]
    marks: dict[str, Any] = field(default_factory=dict)  # other sources' positions
    sock: Any = None
    wake: threading.Event | None = None
    busy: bool = False
    dead: bool = False
    pending: bytes = b""  # framed bytes the hub could not send at once
    todo: list[Any] = field(default_factory=list)  # frames the hub left to the watcher
    blocked: frozenset[str] = frozenset()  # players whose chat lines are hidden for it
    clocks: Any = None  # the clocks it was sent last: a change is a status frame too

    @property
    def raw(self) -> Any:
        """The socket under gevent's wrapper (non-blocking already): ``push`` sends on it
        without the wrapper's wait machinery, which it never needs."""
        return getattr(self.sock, "_sock", self.sock)

    def position(self) -> tuple[Any, ...]:
        """What decides the bytes a change brings this watcher (see ``Hub.push``)."""
        return (self.version, self.epoch, self.status, self.caller, tuple(self.marks.items()))

    def follow(self, leader: Watch) -> None:
        """Take the position ``leader`` reached from the same one (the marks are values)."""
        self.seq, self.version, self.epoch = leader.seq, leader.version, leader.epoch
        self.status, self.marks = leader.status, dict(leader.marks)


class Source(Protocol):
    """One more kind of thing a stream carries (see the module's docstring)."""

    kind: str

    def notice(self, hub: Hub, feed: Feed, args: Sequence[str]) -> None: ...

    def resync(self, hub: Hub, feeds: Sequence[Feed]) -> None: ...

    def start(self, hub: Hub, watch: Watch, after: Any) -> list[bytes]: ...

    def frames(self, watch: Watch) -> list[bytes]: ...


def status_doc(head: Head, table: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """A ``status`` frame's data; ``table``: the game's table section, for its ``clocks``
    (at the moment the frame is rendered, as a summary's)."""
    doc: dict[str, Any] = {"version": head.version, "status": head.status, "to_act": head.to_act}
    if head.result is not None:
        doc["result"] = head.result
    if head.clocks is not None and table:
        doc["clocks"] = clocks.clocks_doc(table, head.clocks, time.time_ns() // 10**6)
    return doc


class Hub:
    """The process's one subscription to ``CHANNEL`` and the feeds of the games it serves."""

    def __init__(
        self, store: EventStore, client: Any, resync_seconds: float = RESYNC_SECONDS
    ) -> None:
        self.store = store
        self.client = client  # the events' Redis (plain or cluster): subscription, heads
        self.resync_seconds = resync_seconds
        self.feeds: dict[str, Feed] = {}
        self.sources: dict[str, Source] = {}
        self.notices = 0
        self.subscribed = threading.Event()
        self._lock = threading.Lock()
        self._thread: threading.Thread | None = None

    def register(self, source: Source) -> None:
        self.sources[source.kind] = source

    # ---- watchers ---------------------------------------------------------------------------
    @contextmanager
    def watching(self, game_id: str, loaded: Head) -> Iterator[Feed]:
        """The game's feed while the block runs (``loaded``: the head the caller just read,
        used only if this process had no feed of the game yet)."""
        self._start()
        with self._lock:
            feed = self.feeds.get(game_id)
            if feed is None:
                feed = self.feeds[game_id] = Feed(game_id, loaded)
            feed.watchers += 1
        try:
            yield feed
        finally:
            with self._lock:
                feed.watchers -= 1
                if feed.watchers == 0 and self.feeds.get(game_id) is feed:
                    del self.feeds[game_id]

    def _start(self) -> None:
        if self._thread is None:
            with self._lock:
                if self._thread is None:
                    self._thread = threading.Thread(target=self._run, name="hub", daemon=True)
                    self._thread.start()
        self.subscribed.wait(2.0)  # a change made once this returns is heard

    # ---- the reader -------------------------------------------------------------------------
    def _run(self) -> None:
        backoff = 0.1
        while True:
            pubsub = None
            try:
                pubsub = self.client.pubsub(ignore_subscribe_messages=True)
                pubsub.subscribe(CHANNEL)
                self.subscribed.set()
                self.resync()
                backoff = 0.1
                next_resync = time.monotonic() + self.resync_seconds
                while True:
                    msg = pubsub.get_message(timeout=1.0)
                    if msg is not None and msg.get("type") == "message":
                        self.dispatch(msg["data"])
                    if time.monotonic() >= next_resync:
                        self.resync()
                        next_resync = time.monotonic() + self.resync_seconds
            except redis.RedisError as exc:
                log.warning("stream hub: Redis unavailable (%s); resubscribing", type(exc).__name__)
            except Exception:  # a bug must not end push for the whole process
                log.exception("stream hub: unexpected error; resubscribing")
            finally:
                if pubsub is not None:
                    with suppress(Exception):
                        pubsub.close()
            time.sleep(backoff)
            backoff = min(backoff * 2, 5.0)

    def dispatch(self, data: bytes | str) -> None:
        """One notice: ``<kind> <game id> <args...>``, an append's with its records after a
        newline (``append.lua``)."""
        self.notices += 1
        raw = data.encode() if isinstance(data, str) else data
        line, _, payload = raw.partition(b"\n")
        kind, _, rest = line.decode().partition(" ")
        game_id, _, args = rest.partition(" ")
        feed = self.feeds.get(game_id)
        if feed is None:
            return
        if kind == "append":
            first, _, last = args.partition(" ")
            if int(first) != feed.version + 1:  # it does not follow the feed: compare heads
                self._check(feed)
            elif (heard := _appended(payload, int(first), int(last or first))) is not None:
                self._take(feed, *heard)
            else:  # a notice without its records (an older writer): read them
                self._catch_up(feed)
        elif kind == "undo":
            self._cut(feed, int(args.split()[0]))
            self._catch_up(feed)
        elif (source := self.sources.get(kind)) is not None:
            source.notice(self, feed, args.split())
        self.push(feed)

    def _cut(self, feed: Feed, to: int) -> None:
        """The log was cut to ``to``: watchers past it are told (even if the feed is not)."""
        with feed.cond:
            feed.epoch += 1
            feed.undos = [*feed.undos[-15:], (feed.epoch, to)]
            if to < feed.version:
                feed.records = [r for r in feed.records if r.version <= to]
                last = feed.records[-1].hash if feed.records else ""
                feed.head = Head(to, last, feed.head.status, feed.head.to_act)
            feed.rendered.clear()
            feed.changed()

    def _catch_up(self, feed: Feed) -> None:
        """Read the log after the feed's version and the game's meta: one round trip."""
        k = keys(feed.game_id)
        pipe = self.client.pipeline(transaction=False)
        pipe.hmget(k["meta"], "version", "head", "status", "to_act", "result", "clocks")
        pipe.xrange(k["log"], f"{feed.version + 1}-0", "+", count=BUFFER)
        (version, head, status, to_act, result, clock), entries = pipe.execute()
        if version is None:
            return
        new = [decode_entry(i, f) for i, f in entries]
        loaded = _head(int(version), _s(head), status, to_act, result, clock)
        self._take(feed, new, loaded)
        if new and new[-1].version < loaded.version:  # more than a buffer behind
            self._catch_up(feed)

    def _take(self, feed: Feed, new: list[Recorded], loaded: Head) -> None:
        """Records after the feed's version and the meta's head with them, into the feed."""
        with feed.cond:
            if new and new[0].version == feed.version + 1:
                feed.records = (feed.records + new)[-BUFFER:]
            elif new:  # not contiguous (the feed moved meanwhile): keep the newest only
                feed.records = new
            if new or loaded != feed.head:
                last = feed.records[-1] if feed.records else None
                version = last.version if last else loaded.version
                hash_ = last.hash if last else loaded.hash
                feed.head = Head(
                    version, hash_, loaded.status, loaded.to_act, loaded.result, loaded.clocks
                )
                feed.changed()

    def _check(self, feed: Feed, version: int | None = None, head: str | None = None) -> None:
        """Bring a feed whose head may be stale back to the log (cut, then catch up)."""
        if version is None:
            got = self.client.hmget(keys(feed.game_id)["meta"], "version", "head")
            if got[0] is None:
                return
            version, head = int(got[0]), _s(got[1])
        if (version, head) == (feed.version, feed.head.hash):
            return
        if version < feed.version or not self._extends(feed):
            self._cut(feed, self._common(feed))
        self._catch_up(feed)

    def resync(self) -> None:
        """Compare every watched game's head with its feed's: a change whose notice was lost
        is delivered as if it had been heard."""
        feeds = list(self.feeds.values())
        if not feeds:
            return
        pipe = self.client.pipeline(transaction=False)
        for feed in feeds:
            pipe.hmget(keys(feed.game_id)["meta"], "version", "head")
        for feed, (version, head) in zip(feeds, pipe.execute(), strict=True):
            if version is not None:
                self._check(feed, int(version), _s(head))
        for source in self.sources.values():
            source.resync(self, feeds)
        for feed in feeds:
            self.push(feed)

    def _extends(self, feed: Feed) -> bool:
        """Is the feed's head still in the log at its version (nothing was undone)?"""
        if feed.version == 0:
            return True
        got = self.store.read(feed.game_id, feed.version - 1, 1)
        return bool(got) and got[0].version == feed.version and got[0].hash == feed.head.hash

    def _common(self, feed: Feed) -> int:
        """The last buffered version the log still holds unchanged (before the buffer: 0)."""
        if not feed.records:
            return 0
        first = feed.records[0].version
        stored = {r.version: r.hash for r in self.store.read(feed.game_id, first - 1, BUFFER)}
        for rec in reversed(feed.records):
            if stored.get(rec.version) == rec.hash:
                return rec.version
        return 0

    def push(self, feed: Feed) -> None:
        """Write what changed to every direct watcher of ``feed`` that is not writing: one
        non-blocking send each, from the shared renderings (no greenlet wakes for it).  What
        cannot go at once (a full socket buffer, a catch-up from the store) is left to the
        watcher's own greenlet.

        Watchers at the same position (version, undos heard, status, caller, the other
        sources' marks) get the same bytes, so the changes are worked out once per position
        and the others only take the leader's new position: a change to a thousand spectators
        costs a thousand ``send`` calls and little else."""
        if not feed.direct:
            return
        with feed.cond:
            done: dict[tuple[Any, ...], tuple[Watch, list[Any], bytes]] = {}
            for watch in list(feed.direct):
                if watch.busy or watch.dead or feed.seq == watch.seq:
                    continue
                at = watch.position()
                got = done.get(at)
                if got is None:
                    frames = self._changes(watch)
                    # nothing for this watcher (a chat line of a room it may not read): no
                    # bytes at all, since an empty chunk would end its stream
                    data = b"" if _FROM_STORE in frames or not frames else chunk(b"".join(frames))
                    done[at] = (watch, frames, data)
                else:
                    leader, frames, data = got
                    watch.follow(leader)
                if not data:
                    if frames:  # a catch-up from the store: the watcher's greenlet reads it
                        watch.todo, watch.busy = list(frames), True
                        assert watch.wake is not None
                        watch.wake.set()
                    continue
                try:
                    sent = watch.raw.send(data)  # the socket is non-blocking: never waits
                except BlockingIOError:
                    sent = 0
                except OSError:
                    watch.dead, sent = True, len(data)
                if sent < len(data):
                    watch.pending, watch.busy = data[sent:], True
                if watch.busy or watch.dead:
                    assert watch.wake is not None
                    watch.wake.set()

    def _direct(self, watch: Watch, heartbeat: float, deadline: float) -> None:
        """A direct watcher's own greenlet: it writes only what the hub left to it, and the
        heartbeats, straight to the socket in chunked framing (gunicorn sent the headers and
        will end the body when the stream's generator returns)."""
        feed, sock = watch.feed, watch.sock
        watch.wake = threading.Event()
        hangup = _on_hangup(watch)
        with feed.cond:
            feed.direct.add(watch)
        try:
            while not watch.dead and (left := deadline - time.monotonic()) > 0:
                with feed.cond:
                    watch.busy = True
                    pending, watch.pending = watch.pending, b""
                    todo, watch.todo = watch.todo, []
                    if not todo and feed.seq != watch.seq:
                        todo = self._changes(watch)
                if pending:
                    sock.sendall(pending)
                for frame in todo:
                    if frame is _FROM_STORE:
                        for part in self._from_store(watch, feed.version, feed.head.status):
                            sock.sendall(chunk(part))
                    else:
                        sock.sendall(chunk(frame))
                watch.busy = False
                if feed.seq != watch.seq or watch.pending or watch.todo:
                    continue
                watch.wake.clear()
                if not watch.wake.wait(min(beat(heartbeat), left)) and not watch.busy:
                    watch.busy = True
                    sock.sendall(chunk(HEARTBEAT))
                    watch.busy = False
        except OSError:
            watch.dead = True
        finally:
            hangup.stop()
            hangup.close()
            with feed.cond:
                feed.direct.discard(watch)

    # ---- what watchers do -------------------------------------------------------------------
    def follow(
        self,
        game_id: str,
        game: Game,
        config: Config,
        caller: Caller,
        loaded: Head,
        after: int | None,
        heartbeat: float,
        lifetime: float,
        sock: Any = None,
        resume: Mapping[str, Any] | None = None,
        blocked: frozenset[str] = frozenset(),
    ) -> Iterator[bytes]:
        """A stream's frames: a status (or what came after ``after``), then every change as it
        comes, a heartbeat comment when ``heartbeat`` seconds pass without one; it ends after
        ``lifetime`` seconds (the client reconnects with ``Last-Event-ID``).

        With ``sock`` (gunicorn's gevent worker, HTTP/1.1: a chunked body), the frames after
        the first ones are written by the hub straight to the socket (``push``): a change
        reaches a thousand watchers without waking a thousand greenlets.  ``resume``: the
        position of each other kind the client resumes from (``Source.start``); ``blocked``:
        the players the watcher's account blocked (``service.chat.screened``)."""
        yield b"retry: 2000\n\n"
        with self.watching(game_id, loaded) as feed:
            with feed.cond:
                watch = Watch(
                    feed, game, config, caller, loaded.version, feed.epoch, feed.seq, ("", ())
                )
            watch.status, watch.clocks = (loaded.status, loaded.to_act), loaded.clocks
            watch.blocked = blocked
            if after is None:
                yield sse("status", loaded.version, status_doc(loaded, config.table))
            elif after > loaded.version:  # the log was cut below what the client holds
                yield sse("undo", loaded.version, {"version": loaded.version})
            else:
                watch.version = after
                yield from self._from_store(watch, loaded.version, loaded.status)
            for source in self.sources.values():
                yield from source.start(self, watch, (resume or {}).get(source.kind))
            deadline = time.monotonic() + lifetime
            if sock is not None:
                watch.sock = sock
                self._direct(watch, heartbeat, deadline)
                return
            while (left := deadline - time.monotonic()) > 0:
                with feed.cond:
                    if feed.seq == watch.seq:
                        feed.cond.wait(min(beat(heartbeat), left))
                    frames = None if feed.seq == watch.seq else self._changes(watch)
                if frames is None:
                    yield HEARTBEAT
                    continue
                for frame in frames:
                    if frame is _FROM_STORE:
                        yield from self._from_store(watch, feed.version, feed.head.status)
                    else:
                        yield frame

    def _changes(self, watch: Watch) -> list[Any]:
        """What is new for ``watch`` in its feed (the caller holds the feed's ``cond``)."""
        feed, out = watch.feed, list[Any]()
        watch.seq = feed.seq
        cut = feed.cut_since(watch.epoch)
        watch.epoch = feed.epoch
        if cut is not None and cut < watch.version:
            watch.version = cut
            out.append(feed.render(("undo", cut), lambda: sse("undo", cut, {"version": cut})))
        records = feed.since(watch.version)
        if records is None:
            out.append(_FROM_STORE)
        elif records:
            out.append(self._events(watch, records, feed.head.status))
        head = feed.head
        if (head.status, head.to_act) != watch.status or head.clocks != watch.clocks:
            watch.status, watch.clocks = (head.status, head.to_act), head.clocks
            key = ("status", head.version, head.hash, head.status, head.to_act)
            table = watch.config.table
            out.append(
                feed.render(key, lambda: sse("status", head.version, status_doc(head, table)))
            )
        for source in self.sources.values():  # other kinds (chat, turn notices), in order
            out += source.frames(watch)
        return out

    def _events(self, watch: Watch, records: list[Recorded], status: str) -> bytes:
        reveal = revealed(status)
        first, last = records[0], records[-1]
        key = (first.version, last.version, last.hash, watch.caller, reveal)
        watch.version = last.version

        def make() -> bytes:
            events = events_for(
                watch.game, records, watch.caller, reveal=reveal, config=watch.config
            )
            return sse("events", last.version, {"version": last.version, "events": events})

        return watch.feed.render(key, make)

    def _from_store(self, watch: Watch, upto: int, status: str) -> Iterator[bytes]:
        """Catch a watcher up from the store (a resume, or a watcher behind the buffer)."""
        while watch.version < upto:
            records = self.store.read(watch.feed.game_id, watch.version, min(CHUNK, BUFFER))
            if not records:
                return
            yield self._events(watch, records, status)

    def poll(
        self, game_id: str, loaded: Head, after: int, limit: int, timeout: float
    ) -> tuple[list[Recorded], Head] | None:
        """A long-poll: wait up to ``timeout`` s for records after ``after``, holding no
        Redis connection; (records, the head they came with), or None if none came."""
        deadline = time.monotonic() + timeout
        with self.watching(game_id, loaded) as feed, feed.cond:
            while True:
                records = feed.since(after)
                if records is None:  # more than the buffer holds: read them
                    break
                if records:
                    return records[:limit], feed.head
                left = deadline - time.monotonic()
                if left <= 0:
                    return None
                feed.cond.wait(left)
            head = feed.head
        return self.store.read(game_id, after, limit), head


_FROM_STORE = object()


def _on_hangup(watch: Watch) -> Any:
    """A watcher of the socket that ends ``watch`` when its client hangs up.  The stream only
    writes, so a closed connection would otherwise go unnoticed until the next heartbeat
    fails, up to an interval later: its greenlet, its buffers and its place under the caps on
    waits (a reload would count twice) are given back at once instead.  Bytes the client
    sends (it should send none) are left unread, and the watch stops looking."""
    from gevent import get_hub

    io = get_hub().loop.io(watch.raw.fileno(), 1)  # 1: readable

    def readable() -> None:
        try:
            gone = watch.raw.recv(1, socket.MSG_PEEK) == b""
        except BlockingIOError:
            return
        except OSError:
            gone = True
        io.stop()
        if gone:
            watch.dead = True
            assert watch.wake is not None
            watch.wake.set()

    io.start(readable)
    return io


def _head(
    version: int, hash_: str, status: Any, to_act: Any, result: Any, clock: Any = None
) -> Head:
    """A head from the meta's fields as Redis holds them (bytes; None or empty for none)."""
    return Head(
        version,
        hash_,
        _s(status),
        tuple(json.loads(to_act or b"[]")),
        json.loads(result) if result else None,
        json.loads(clock) if clock else None,
    )


def _appended(payload: bytes, first: int, last: int) -> tuple[list[Recorded], Head] | None:
    """An append notice's records and the head after it (``append.lua``: netstrings of the
    packed events, then the meta's status, to_act, result and clocks: an older script sent no
    clocks); None if it has none."""
    parts: list[bytes] = []
    i = 0
    try:
        while i < len(payload):
            colon = payload.index(b":", i)
            end = colon + 1 + int(payload[i:colon])
            parts.append(payload[colon + 1 : end])
            i = end
    except ValueError:
        return None
    count = last - first + 1
    if count < 1 or i != len(payload) or len(parts) not in (count + 3, count + 4):
        return None
    new = [decode_entry(f"{first + k}-0", [FIELD, e]) for k, e in enumerate(parts[:count])]
    return new, _head(last, new[-1].hash, *parts[count:])


def chunk(data: bytes) -> bytes:
    """One chunk of a chunked HTTP/1.1 body."""
    return b"%X\r\n%s\r\n" % (len(data), data)


def _s(v: Any) -> str:
    return v.decode() if isinstance(v, bytes) else ("" if v is None else str(v))
