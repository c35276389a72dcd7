"""The leak sweep: random games of every game, played to the end through the HTTP app; at every
version, every response each seat (and a spectator, and the host) can obtain is checked
against what that caller may not see, computed from the full state (``secrets.py``):

- the view now, and at the end the view at every version (``?version=N``);
- the legal actions;
- the events (as they arrive, by ``after``, some by long-poll) and the responses of its own
  actions and undos, each event against the state at its own version;
- the push stream (``/stream``: its status, its catch-up after ``after``, its undo notices, its
  chat lines after ``chat_after``), read as each caller would, the seats half of the time with
  a stream ticket; a chat frame must be of a room the caller may read, and a line the host hid
  must come without its text;
- the audit (events and the undo trail, each undone event against the history it was in);
- errors: a stale version, acting out of turn, and (Artus) playing a card one does not hold,
  which must not tell a card in another hand from a card in a pile.

Every game is played at a table whose seats were taken by invitation (``join``, whose answer
must hold only the joiner's own seat and token), with chat in both rooms, and at every change
each seat's webhook notice (``service.webhooks.bodies``, what a delivery POSTs) is checked as
that seat's events are; chat reads are checked by room.

Every response text is also searched for the seed, the chain key, the invitations and the
tokens of others.  Once a game is finished everything is revealed, so only the responses
before are checked (and the replayed views of earlier versions, which stay as each caller saw
them).
"""

from __future__ import annotations

import json
import random
from collections.abc import Iterator
from typing import Any

import pytest
import redis
from flask.testing import FlaskClient

from domain import engine
from domain.games import GAMES
from projections import chain
from projections.fold import fold
from projections.views import ADMIN, Caller
from service import webhooks
from service.app import create_app
from service.chronicle import Chronicle
from service.jobs import NoJobs
from service.redis_server import RedisServer
from service.redis_store import RedisEventStore
from tests.conftest import ADMIN_TOKEN, settings
from tests.reliability.secrets import problems
from tests.reliability.test_hostile_input import json_of

# (game, options, players, undo policy, seed of the random play)
GAMES_PLAYED = [
    ("artus", {"rules": "basic"}, 2, "turn", 11),
    ("artus", {"rules": "advanced"}, 3, "host", 12),
    ("kings-and-castles", {"length": "short"}, 2, "turn", 13),
    ("kings-and-castles", {"length": "short"}, 3, "host", 14),
    ("lancaster", {}, 2, "turn", 15),
    ("lancaster", {}, 3, "host", 16),
]
FIGURES = {"responses": 0, "games": 0, "frames": 0, "chat": 0}


@pytest.fixture(scope="module")
def env(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[FlaskClient, Chronicle]]:
    server = RedisServer(tmp_path_factory.mktemp("leaks"), persistent=False)
    url = server.start()
    ch = Chronicle(RedisEventStore(redis.Redis.from_url(url)), NoJobs(), ADMIN_TOKEN)
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("CHRONICLE_CHAT_RATE", "1000/10")  # the sweep talks faster than people
        yield create_app(settings(url)).test_client(), ch
    server.stop()
    print(
        f"\nFIGURE leak sweep: {FIGURES['games']} games, {FIGURES['responses']} responses "
        f"(of them {FIGURES['frames']} stream frames, {FIGURES['chat']} of chat) "
        "checked, 0 leaks"
    )


class Sweep:
    def __init__(
        self,
        c: FlaskClient,
        ch: Chronicle,
        game: str,
        options: dict,
        n: int,
        undo: str,
        seed: int,
    ) -> None:
        self.c, self.ch, self.game, self.rng = c, ch, game, random.Random(seed)
        players = [{"open": True} for _ in range(n)]
        options = {**options, "undo": undo}
        body = {"game": game, "players": players, "options": options, "seed": f"leaks-{seed}"}
        body["turn_time"] = "P1D"  # views and summaries carry deadlines
        r = c.post("/api/v1/games", json=body)
        assert r.status_code == 201, r.json
        created = json_of(r)
        self.gid = created["id"]
        self.host = created["host_token"]
        self.codes = [i["code"] for i in created["invitations"]]
        self.tokens: dict[int, str] = {}
        for i in created["invitations"]:
            r = c.post(
                f"/api/v1/games/{self.gid}/join",
                json={"name": f"p{i['seat']}", "invitation": i["code"]},
            )
            assert r.status_code == 201, r.json
            joined = json_of(r)
            assert set(joined) == {"seat", "token"} and joined["seat"] == i["seat"]
            self.tokens[i["seat"]] = joined["token"]
        self.line = 0  # chat lines said
        self.said: list[tuple[int, str]] = []  # (line id, room) of every line said
        self.hidden: dict[int, str] = {}  # line id -> text, of the lines the host hid
        self.texts: dict[int, str] = {}  # line id -> text
        # callers: each seat, a spectator and the host (the host has powers, not sight)
        self.callers: dict[str, tuple[str | None, int | None]] = {
            **{f"seat{s}": (t, s) for s, t in self.tokens.items()},
            "spectator": (None, None),
            "host": (self.host, None),
        }
        meta = ch.store.meta(self.gid)
        assert meta is not None
        # never in any response to anyone: the seed, the chain key, tokens and their hashes
        self.forbidden = [
            meta.seed,
            chain.chain_key(meta.seed).hex(),
            self.host,
            *self.tokens.values(),
            *meta.tokens,
            meta.host,
            *self.codes,
            *meta.invitations,
        ]
        self.matches: list[Any] = [None]  # index = version
        self.seen = dict.fromkeys(self.callers, 0)  # last event version each caller read
        self.streamed = dict.fromkeys(self.callers, 0)  # the same, by the stream
        self.chatted = dict.fromkeys(self.callers, 0)  # the last chat line each one streamed
        self.undone_history: list[dict[int, Any]] = []  # per undo: version -> match removed
        self.sync()

    # ---- the full state, kept by the test from the log ------------------------------------
    def sync(self, undone: bool = False) -> None:
        """Fold the log's new events (after an undo: drop the removed history first)."""
        meta = self.ch.store.meta(self.gid)
        assert meta is not None
        version = meta.version
        if undone:
            removed = {v: self.matches[v] for v in range(version + 1, len(self.matches))}
            self.undone_history.append(removed)
            del self.matches[version + 1 :]
            self.seen = {k: min(v, version) for k, v in self.seen.items()}
            # self.streamed stays: the stream must say itself that the log was cut
        game = GAMES[self.game]
        for rec in self.ch.store.read(self.gid, len(self.matches) - 1, 10_000):
            prev = self.matches[-1]
            self.matches.append(fold(game, [rec], prev) if prev is not None else fold(game, [rec]))
        assert self.version == version

    @property
    def version(self) -> int:
        return len(self.matches) - 1

    @property
    def status(self) -> str:
        return self.matches[-1].status(GAMES[self.game])

    # ---- requests, each checked -----------------------------------------------------------
    def get(self, caller: str, path: str, **query: Any) -> Any:
        token = self.callers[caller][0]
        headers = {"Authorization": f"Bearer {token}"} if token else {}
        r = self.c.get(f"/api/v1/games/{self.gid}{path}", query_string=query, headers=headers)
        self.text(caller, r.get_data(as_text=True))
        return r

    def post(self, caller: str, path: str, body: Any) -> Any:
        token = self.callers[caller][0]
        headers = {"Authorization": f"Bearer {token}"} if token else {}
        r = self.c.post(f"/api/v1/games/{self.gid}{path}", json=body, headers=headers)
        self.text(caller, r.get_data(as_text=True))
        return r

    def text(self, caller: str, text: str) -> None:
        FIGURES["responses"] += 1
        for secret in self.forbidden:
            assert not secret or secret not in text, f"{caller} was shown a secret: {text[:300]}"

    def check(self, caller: str, kind: str, doc: Any, match: Any, echo: frozenset = frozenset()):
        seat = self.callers[caller][1]
        found = problems(self.game, kind, doc, match, seat, echo)
        assert not found, f"{self.game} v{match.version} {caller} {kind}: {found[:5]}"

    def check_events(self, caller: str, events: list[dict], history: dict | None = None) -> None:
        for e in events:
            match = (history or {}).get(e["version"]) or self.matches[e["version"]]
            if match.status(GAMES[self.game]) != engine.FINISHED:
                self.check(caller, "event", e, match)

    # ---- one step: every caller reads everything ------------------------------------------
    def read_all(self, step: int) -> None:
        if self.status == engine.FINISHED:
            return
        now = self.matches[-1]
        for caller, (_, seat) in self.callers.items():
            # the host's sight is the spectator's: it is read as often only now and then
            if caller == "host" and step % 4:
                continue
            view = self.get(caller, "/view").get_json()
            assert view["version"] == self.version
            self.check(caller, "view", view, now)
            if seat is not None or step % 5 == 0:
                self.check(caller, "actions", self.get(caller, "/actions").get_json(), now)
            wait = {"wait": 1} if step % 7 == 0 else {}  # a long poll (answered at once)
            events = self.get(caller, "/events", after=self.seen[caller], **wait).get_json()
            self.check_events(caller, events["events"])
            self.seen[caller] = events["version"]
            if step % 2 == 0:
                self.stream(caller, ticket=step % 4 == 0)
            if step % 6 == 0:
                self.chat(caller, step)
            if step % 15 == 0:
                self.audit(caller)
                r = self.get(caller, "/view", reveal="true")
                assert r.status_code == 400, "reveal before the end"
            if step % 8 == 0:
                self.errors(caller)

    def stream(self, caller: str, ticket: bool) -> None:
        """Read the caller's stream from where it last was up to now (its status first when
        it starts at 0; the chat lines it may read after its last one), check every frame, and
        close it."""
        token, seat = self.callers[caller]
        after, chat_at = self.streamed[caller], self.chatted[caller]
        rooms = ("players", "spectators") if seat is not None else ("spectators",)
        want = max((i for i, room in self.said if room in rooms), default=0)
        if after == self.version and chat_at >= want:
            return
        headers = {"Authorization": f"Bearer {token}"} if token else {}
        query: dict[str, Any] = {} if after == 0 else {"after": after}
        query["chat_after"] = chat_at
        if ticket and seat is not None:
            r = self.post(caller, "/stream-ticket", {})
            assert r.status_code == 200, r.get_json()
            query["ticket"], headers = r.get_json()["ticket"], {}
        r = self.c.get(
            f"/api/v1/games/{self.gid}/stream", query_string=query, headers=headers, buffered=False
        )
        assert r.status_code == 200, r.get_data(as_text=True)
        buf, at = "", after
        try:
            chunks = iter(r.response)
            while at != self.version or chat_at < want:
                chunk = next(chunks)
                assert isinstance(chunk, bytes)  # a streamed body: the WSGI app's bytes
                buf += chunk.decode()
                while "\n\n" in buf and (at != self.version or chat_at < want):
                    block, buf = buf.split("\n\n", 1)
                    at, chat_at = self.frame(caller, block, at, chat_at)
        finally:
            r.close()
        self.streamed[caller], self.chatted[caller] = at, chat_at

    def frame(self, caller: str, block: str, at: int, chat_at: int) -> tuple[int, int]:
        """Check one stream frame; the version and chat line the caller is at after it."""
        self.text(caller, block)
        FIGURES["frames"] += 1
        fields = dict(line.split(": ", 1) for line in block.split("\n") if ": " in line)
        if "data" not in fields:
            return at, chat_at
        data = json.loads(fields["data"])
        if fields["event"] == "chat":
            seat = self.callers[caller][1]
            FIGURES["chat"] += 1
            assert "id" not in fields, "a chat frame does not move the version"
            assert seat is not None or data["room"] == "spectators", f"{caller} streamed {data}"
            if data["id"] in self.hidden:
                assert data.get("hidden") is True and "text" not in data, data
                assert self.hidden[data["id"]] not in block, f"{caller} streamed a hidden text"
            self.check(caller, "chat", data, self.matches[-1])
            return at, max(chat_at, data["id"])
        if fields["event"] == "events":
            self.check_events(caller, data["events"])
            assert [e["version"] for e in data["events"]] == list(
                range(at + 1, data["version"] + 1)
            )
        elif fields["event"] == "undo":
            assert data["version"] < at
        elif fields["event"] == "status":
            assert set(data) <= {"version", "status", "to_act", "result", "clocks"}, data
        return int(fields["id"]), chat_at

    def chat(self, caller: str, step: int) -> None:
        """Say a line now and then; read the chat: the players' room only for the seats."""
        seat = self.callers[caller][1]
        if seat is not None and step % 12 == 0:
            room = "players" if step % 24 == 0 else "spectators"
            text = f"line {self.line} by {caller} in {room}"
            r = self.post(caller, "/chat", {"text": text, "room": room})
            assert r.status_code == 201, r.get_json()
            self.line += 1
            self.said.append((r.get_json()["id"], room))
            self.texts[r.get_json()["id"]] = text
        if caller == "host" and step % 12 == 0 and self.said:
            line = self.said[step % len(self.said)][0]  # (not the play's random numbers)
            assert self.post(caller, f"/chat/{line}/hide", {}).status_code == 200
            self.hidden[line] = self.texts[line]
        lines = self.get(caller, "/chat").get_json()["lines"]
        rooms = {x["room"] for x in lines}
        assert seat is not None or rooms <= {"spectators"}, f"{caller} read the players' room"
        for line in lines:
            assert line["id"] not in self.hidden or "text" not in line, line
            self.check(caller, "chat", line, self.matches[-1])

    def notices(self, kind: str, after: int) -> None:
        """Each seat's webhook notice of the change is that seat's own redacted view."""
        head = self.ch.current(self.gid).head
        docs = webhooks.bodies(
            self.ch, self.gid, kind, after, self.version, head, sorted(self.tokens)
        )
        assert set(docs) == set(self.tokens)
        for seat, doc in docs.items():
            caller = f"seat{seat}"
            self.text(caller, json.dumps(doc))
            assert doc["seat"] == seat and doc["version"] == self.version
            self.check_events(caller, doc["events"])

    def audit(self, caller: str) -> None:
        doc = self.get(caller, "/audit").get_json()
        self.check_events(caller, doc["events"])
        assert len(doc["undone"]) == len(self.undone_history)
        for record, history in zip(doc["undone"], self.undone_history, strict=True):
            self.check_events(caller, record["events"], history)

    def errors(self, caller: str) -> None:
        game, now = GAMES[self.game], self.matches[-1]
        to_act = now.to_act(game)
        seat = self.callers[caller][1]
        if not to_act:
            return
        actor = to_act[0]
        action = game.legal_actions(now.state, actor)[0]
        attempts = [{"action": action, "expected_version": self.version - 1}]  # stale: 409
        if seat is None or seat not in to_act:
            attempts.append({"action": action, "expected_version": self.version})  # 403
        for body in attempts:
            r = self.post(caller, "/actions", body)
            assert 400 <= r.status_code < 500, r.get_json()
            self.check(caller, "error", r.get_json(), now, _strings(body))
        if self.game == "artus" and seat == actor and now.state.phase == "play":
            self.artus_oracle(caller, action)
        meta = self.ch.store.meta(self.gid)
        assert meta is not None and meta.version == self.version

    def artus_oracle(self, caller: str, action: dict) -> None:
        """Playing a card one does not hold: the answer must not say where the card is."""
        state, seat = self.matches[-1].state, self.callers[caller][1]
        elsewhere = {
            "another hand": [c for t, h in enumerate(state.hands) if t != seat for c in h],
            "a pile": [c for own in state.piles for cs in own.values() for c in cs],
            "the table": list(state.played),
        }
        answers = {}
        for where, cards in elsewhere.items():
            if not cards:
                continue
            card = self.rng.choice(cards)
            body = {"action": {**action, "card": card}, "expected_version": self.version}
            r = self.post(caller, "/actions", body)
            doc = r.get_json()
            self.check(caller, "error", doc, self.matches[-1], _strings(body))
            answers[where] = (r.status_code, json.dumps(doc).replace(card, "<card>"))
        assert len(set(answers.values())) == 1, answers

    # ---- writes ---------------------------------------------------------------------------
    def act(self, step: int) -> None:
        game = GAMES[self.game]
        now = self.matches[-1]
        if self.status == engine.SCORING:  # what the worker's scoring job does
            assert self.ch.finish(self.gid, self.version)
            self.sync()
            return
        assert now.to_act(game), (self.status, now.version, now.state)
        seat = self.rng.choice(now.to_act(game))
        caller = f"seat{seat}"
        listed = self.get(caller, "/actions").get_json()
        action = self.rng.choice(listed["actions"])
        r = self.post(caller, "/actions", {"action": action, "expected_version": self.version})
        assert r.status_code == 201, r.get_json()
        before = self.version
        self.sync()
        assert r.get_json()["version"] == self.version > before
        self.check_events(caller, r.get_json()["events"])
        if self.status != engine.FINISHED:
            self.notices("events", before)
        if self.rng.random() < 0.08:
            self.undo(caller)

    def undo(self, caller: str) -> None:
        options = self.matches[-1].config.options
        if options.get("undo") == "host" and self.version > 10:
            caller, body = (
                "host",
                {"to_version": self.rng.randrange(self.version - 6, self.version)},
            )
        else:
            body = {}
        history = dict(enumerate(self.matches))
        r = self.post(caller, "/undo", body)
        if r.status_code == 409:
            assert r.get_json()["error"]["code"] == "undo_refused"
            self.check(caller, "error", r.get_json(), self.matches[-1])
            return
        assert r.status_code == 200, r.get_json()
        self.sync(undone=True)
        self.check_events(caller, r.get_json()["undone"], history)
        self.notices("undo", self.version)

    def views_at_every_version(self) -> None:
        game = GAMES[self.game]
        for caller in self.callers:
            if caller == "host":  # sees what a spectator sees, checked above
                continue
            for v in range(1, self.version + 1):
                if self.matches[v].status(game) == engine.FINISHED:
                    continue
                view = self.get(caller, "/view", version=v).get_json()
                assert view["version"] == v
                self.check(caller, "view", view, self.matches[v])
        # and reveal is refused to nobody once finished, but only then (checked before)


def _strings(doc: Any) -> frozenset[str]:
    out: set[str] = set()

    def walk(x: Any) -> None:
        if isinstance(x, str):
            out.add(x)
        elif isinstance(x, dict):
            for k, v in x.items():
                out.add(str(k))
                walk(v)
        elif isinstance(x, list):
            for v in x:
                walk(v)

    walk(doc)
    return frozenset(out)


@pytest.mark.parametrize(
    ("game", "options", "n", "undo", "seed"),
    GAMES_PLAYED,
    ids=[f"{g}-{'-'.join(o.values()) or 'std'}-{n}p-undo_{u}" for g, o, n, u, _ in GAMES_PLAYED],
)
def test_no_response_shows_a_seat_what_it_may_not_see(
    env: tuple[FlaskClient, Chronicle], game: str, options: dict, n: int, undo: str, seed: int
) -> None:
    c, ch = env
    sweep = Sweep(c, ch, game, options, n, undo, seed)
    for step in range(5000):
        sweep.read_all(step)
        if sweep.status == engine.FINISHED:
            break
        sweep.act(step)
    else:
        raise AssertionError("the game did not end")
    assert sweep.undone_history or undo == "none"
    # before the end, reveal is refused; after it, views of earlier versions stay redacted
    sweep.views_at_every_version()
    final = sweep.ch.export(sweep.gid, Caller(ADMIN))
    assert final["events"][-1]["type"] == engine.GAME_FINISHED
    FIGURES["games"] += 1


BOTS_SWEPT = ("random", "greedy", "mcts:easy")
SEARCHES_SWEPT = 8  # positions per game where the (slower) search bot is asked


@pytest.mark.parametrize(
    ("game", "options", "n", "undo", "seed"),
    GAMES_PLAYED,
    ids=[f"{g}-{'-'.join(o.values()) or 'std'}-{n}p" for g, o, n, u, _ in GAMES_PLAYED],
)
def test_no_bot_choice_depends_on_what_its_seat_cannot_see(
    game: str, options: dict, n: int, undo: str, seed: int
) -> None:
    """The bots are swept too: at positions of a random game, the real state's hidden
    information is swapped (the game's sampler deals other hands, decks, money or votes that
    keep the seat's view identical), and every bot, asked through the worker's own decision
    function, must make the same move in both states."""
    from dataclasses import replace

    from domain import bots, simulate
    from domain.engine import Config, Match, Player
    from domain.rng import Rng
    from domain.search.ismcts import FastRng, SearchBot
    from workers.jobs import deadline

    def choose(match: Match, state: Any, seat: int, name: str, rng: Rng) -> dict[str, Any]:
        """The worker's own decision (``bots.decide``) with bot ``name`` in ``seat``."""
        players = list(match.config.players)
        players[seat] = Player(players[seat].name, name)
        # without its table, the match's bots are the configuration's (a table's seats
        # would name the bots they were created with: ``random`` here)
        config = replace(match.config, players=tuple(players))
        asked = replace(match, state=state, config=config, table=None)
        assert asked.bot(seat) == name
        return bots.decide(g, asked, seat, rng, stop=deadline(600.0))

    g = GAMES[game]
    mcts = g.bots["mcts"]
    assert isinstance(mcts, SearchBot)
    sample = mcts.adapter.sample
    config = Config(game, dict(options), tuple(Player(f"p{i}", "random") for i in range(n)))
    swapped = asked = searched = 0
    for k, step in enumerate(simulate.playthrough(g, config, f"bot-leaks-{seed}")):
        state = step.match.state
        if k % 5 or step.match.status(g) != engine.ACTIVE:
            continue
        for seat in g.to_act(state):
            other = sample(g.view(state, seat), FastRng(seed * 1000 + k))
            assert g.view(other, seat) == g.view(state, seat)
            swapped += other != state
            for name in BOTS_SWEPT:
                if name.startswith("mcts"):
                    if searched >= SEARCHES_SWEPT or len(g.legal_actions(state, seat)) < 2:
                        continue
                    searched += 1
                label = f"bot:{seat}"
                a = choose(step.match, state, seat, name, Rng.at(f"s{seed}", k, label))
                b = choose(step.match, other, seat, name, Rng.at(f"s{seed}", k, label))
                assert a == b, f"{name} at step {k}, seat {seat}: {a} != {b}"
                asked += 1
    assert swapped > 0 and asked > 30 and searched == SEARCHES_SWEPT
