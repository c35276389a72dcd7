"""The log in words (issue 34): every event type of every game, and every kind of legal
action, is described by its renderer (``describeEvent``, ``describeAction`` in
service/web/static/) without an internal id a player would read: no ``yellow-k1``, no
``men_at_arms``, no empty parentheses, no JSON.  The events and actions come from whole
games played in memory by the engine (``domain.simulate``); the renderers run in node."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

from domain import simulate
from domain.engine import Config, Player
from domain.games import GAMES
from tests.support.play import variants

ROOT = Path(__file__).resolve().parents[2]
STATIC = ROOT / "service" / "web" / "static"
NODE = shutil.which("node")
ID_LIKE = re.compile(r"\b[a-z]+-[a-z0-9]+\b|_|\(\s*\)|\(\s+\w|[{}]|\bundefined\b|\bnull\b|NaN")
MODULES = {
    "artus": "artus.js",
    "kings-and-castles": "kings_and_castles.js",
    "lancaster": "lancaster.js",
}
SERVICE_EVENTS = {"GameCreated", "GameFinished"}

RUN = """
import fs from "fs";
const [dir, file] = process.argv.slice(2);
const samples = JSON.parse(fs.readFileSync(file));
const out = [];
for (const [game, mod] of Object.entries(samples.modules)) {
  const r = (await import(dir + "/" + mod)).default;
  const names = ["Alice", "Bot (greedy)", "Carol"];
  for (const s of samples.games[game].events) {
    const c = { names, you: s.you, view: { version: s.event.version, state: s.state } };
    out.push([game, "event " + s.event.type, String(r.describeEvent(s.event, c))]);
  }
  for (const s of samples.games[game].actions) {
    const c = { names, you: s.you, view: { state: s.state }, actions: [] };
    out.push([game, "action " + s.action.type, String(r.describeAction(s.action, c))]);
  }
}
console.log(JSON.stringify(out));
"""


def event_types(game_id: str) -> set[str]:
    """Every event name a game's ``events`` module declares (CamelCase constants)."""
    module = __import__(f"domain.games.{game_id.replace('-', '_')}.events", fromlist=["x"])
    return {v for v in vars(module).values() if isinstance(v, str) and re.fullmatch(r"[A-Z]\w+", v)}


def samples(game_id: str) -> dict[str, Any]:
    """Up to two of each event type (as seat 0 and a spectator see it) and of each action."""
    game = GAMES[game_id]
    events: list[dict[str, Any]] = []
    actions: list[dict[str, Any]] = []
    seen: dict[str, int] = {}
    for gid, options, n in variants():
        if gid != game_id or n > 3:
            continue
        cfg = Config(gid, {**options, "undo": "turn"}, tuple(Player(f"p{i}") for i in range(n)))
        for step in simulate.playthrough(game, cfg, f"words-{gid}-{n}"):
            match = step.match
            for e in step.events:
                for seat in (0, None):
                    key = f"e:{e.type}:{seat}"
                    if seen.get(key, 0) < 2:
                        seen[key] = seen.get(key, 0) + 1
                        data = game.redact(e, seat, match.config)
                        doc = {"type": e.type, "seat": e.seat, "data": data, "version": 0}
                        events.append(
                            {"event": doc, "you": seat, "state": game.view(match.state, seat)}
                        )
            if match.status(game) != "active":
                continue
            for seat in match.to_act(game):
                for a in game.legal_actions(match.state, seat):
                    key = f"a:{a['type']}"
                    if seen.get(key, 0) < 3:
                        seen[key] = seen.get(key, 0) + 1
                        actions.append(
                            {"action": a, "you": seat, "state": game.view(match.state, seat)}
                        )
    return {"events": events, "actions": actions}


@pytest.mark.skipif(NODE is None, reason="node is not installed")
def test_every_event_and_action_in_words(tmp_path: Path) -> None:
    for f in STATIC.glob("*.js"):
        shutil.copy(f, tmp_path / f.name)
    (tmp_path / "package.json").write_text('{"type": "module"}')
    games = {g: samples(g) for g in MODULES}
    data = {"modules": MODULES, "games": games}
    for g, s in games.items():  # every declared event type and action was played
        played = {x["event"]["type"] for x in s["events"]}
        assert event_types(g) <= played, event_types(g) - played
        assert set(GAMES[g].actions) <= {x["action"]["type"] for x in s["actions"]}
        assert played >= SERVICE_EVENTS
    (tmp_path / "samples.json").write_text(json.dumps(data))
    (tmp_path / "run.mjs").write_text(RUN)
    assert NODE is not None
    out = subprocess.run(
        [NODE, str(tmp_path / "run.mjs"), str(tmp_path), str(tmp_path / "samples.json")],
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    texts = json.loads(out.stdout)
    assert len(texts) > 100
    bad = [(g, what, text) for g, what, text in texts if ID_LIKE.search(text)]
    assert not bad, "\n".join(f"{g} {what}: {text}" for g, what, text in bad[:30])
