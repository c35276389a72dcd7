"""A client generated from the published OpenAPI document plays a game and type-checks.

``openapi-python-client`` (a test extra; it runs offline) generates a package from
``/api/v1/openapi.json`` of a live test server into ``tmp_path``.  A small script then uses
only the generated package: it creates an Artus game, reads the view of the seat to act (typed as
``ArtusViewState``), lists the legal actions and posts the first one back, and reads the typed
events it produced.  The script runs against the server, and mypy checks the script together
with the generated package: the document is typed enough for a client to know the games.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import requests

BIN = Path(sys.executable).parent

SCRIPT = '''
"""Play one action of Artus through the generated client (argv: the server's base URL)."""

import sys

from chronicle_api import AuthenticatedClient, Client
from chronicle_api.api.actions import act, list_actions
from chronicle_api.api.games import create_game
from chronicle_api.api.views import get_view
from chronicle_api.models import (
    ActIn,
    ActionsDocument,
    ArtusEventKnightPlaced,
    ArtusViewState,
    CreateArtusGame,
    CreateArtusGameGame,
    CreateArtusGameOptions,
    Created,
    EventsDocument,
    NamedSeat,
    View,
)


def main(base: str) -> None:
    options = CreateArtusGameOptions.from_dict({"rules": "basic"})
    body = CreateArtusGame(
        game=CreateArtusGameGame.ARTUS,
        players=[NamedSeat(name="Ann"), NamedSeat(name="Bob")],
        options=options,
        seed="generated-client",
    )
    created = create_game.sync(client=Client(base_url=base), body=body)
    assert isinstance(created, Created), created
    first = created.seats[0].token
    assert isinstance(first, str)
    before = get_view.sync(created.id, client=AuthenticatedClient(base_url=base, token=first))
    assert isinstance(before, View), before
    token = created.seats[before.to_act[0]].token  # the seat to act (the deal decides)
    assert isinstance(token, str)
    seat = AuthenticatedClient(base_url=base, token=token)

    view = get_view.sync(created.id, client=seat)
    assert isinstance(view, View), view
    state = view.state
    assert isinstance(state, ArtusViewState), type(state)
    hand: list[str] = state.hand if isinstance(state.hand, list) else []
    print("phase", state.phase, "to_act", view.to_act, "hand", len(hand))

    legal = list_actions.sync(created.id, client=seat)
    assert isinstance(legal, ActionsDocument), legal
    action = legal.actions[0]
    posted = act.sync(
        created.id, client=seat, body=ActIn(action=action, expected_version=legal.version)
    )
    assert isinstance(posted, EventsDocument), posted
    event = posted.events[0]
    assert isinstance(event, ArtusEventKnightPlaced), type(event)
    placed: str = event.data.knight  # the event's data is typed too
    print("acted", type(action).__name__, "->", event.type_.value, "at version", posted.version)
    print("placed", placed, "on board seat", event.data.seat)


if __name__ == "__main__":
    main(sys.argv[1])
'''


def _snake(name: str) -> str:
    return re.sub(r"(?<!^)(?=[A-Z])", "_", name).lower()


def generator_config(spec: dict[str, Any]) -> str:
    """openapi-python-client's configuration: no post hooks (no formatter needed), and a
    class name for each model that has a property of its own name (``Actions.actions``,
    ``Events.events``), whose generated ``from_dict`` would reuse one variable for both."""
    lines = [
        "post_hooks: []",
        "project_name_override: chronicle_api",
        "package_name_override: chronicle_api",
        "class_overrides:",
    ]
    for name, schema in spec["components"]["schemas"].items():
        if _snake(name) in schema.get("properties", {}):
            lines += [
                f"  {name}:",
                f"    class_name: {name}Document",
                f"    module_name: {_snake(name)}_document",
            ]
    return "\n".join(lines) + "\n"


def test_a_generated_client_plays_and_type_checks(server_url: str, tmp_path: Path) -> None:
    spec = requests.get(f"{server_url}/api/v1/openapi.json", timeout=10).json()
    # The SSE stream is documented one event at a time (as schemathesis reads it), which
    # OpenAPI 3.0 generators take for a JSON body; a client follows it with an SSE reader
    # (chronicle_client.stream), so the generated package leaves it out.
    del spec["paths"]["/api/v1/games/{game_id}/stream"]
    (tmp_path / "openapi.json").write_text(json.dumps(spec))
    (tmp_path / "config.yaml").write_text(generator_config(spec))
    gen = subprocess.run(
        [
            str(BIN / "openapi-python-client"),
            "generate",
            "--path",
            "openapi.json",
            "--config",
            "config.yaml",
            "--meta",
            "none",
            "--output-path",
            "chronicle_api",
        ],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert gen.returncode == 0, gen.stdout + gen.stderr
    assert "Warning" not in gen.stdout + gen.stderr, gen.stdout + gen.stderr
    models = tmp_path / "chronicle_api" / "models"
    for name in ("artus_action.py", "artus_view_state.py", "lancaster_event_vote_committed.py"):
        assert (models / name).exists() or any(models.glob(name.replace(".py", "*.py"))), name
    (tmp_path / "play.py").write_text(SCRIPT)

    run = subprocess.run(
        [sys.executable, "play.py", server_url],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert run.returncode == 0, run.stdout + run.stderr
    assert "acted ArtusActionPlaceKnight -> KnightPlaced at version 3" in run.stdout, run.stdout

    check = subprocess.run(
        [
            sys.executable,
            "-m",
            "mypy",
            "--config-file",
            "/dev/null",
            "--strict",
            "--no-incremental",
            "play.py",
            "chronicle_api",
        ],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert check.returncode == 0, check.stdout + check.stderr
    print(f"\nFIGURE generated client: {check.stdout.strip()}")
