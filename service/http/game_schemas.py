"""Each game's typed OpenAPI components, made from the definitions the service validates with.

Nothing here is written per game: for every registered game (``domain.games.GAMES``),

- its actions come from the engine's ``Field`` specs (``GameRules.actions``, the ones
  ``engine.check_shape`` checks): ``<Game>Action<Type>`` per action type and ``<Game>Action``,
  a ``oneOf`` with a ``discriminator`` on ``type``;
- its view state and its events' data come from the game's declared shapes
  (``GameRules.view_state``, ``GameRules.event_data`` and the engine's own events,
  ``domain/shapes.py``): ``<Game>ViewState``, ``<Game>Event<Type>`` (an event in the contract's
  shape) with ``<Game>Event<Type>Data``, and ``<Game>Event`` (``oneOf`` on ``type``).

``GameAction``, ``GameViewState`` and ``GameEvent`` are the unions over every game, used by the
generic resources (``schemas.py``: a view, legal actions, acting, the events feed).  A test
validates every view and event of random play of every game against these components.
"""

from __future__ import annotations

from typing import Any

from domain import games
from domain import table as tables
from domain.engine import ENGINE_EVENT_DATA, Field, Game
from domain.shapes import Shape, optional

Schema = dict[str, Any]
REF = "#/components/schemas/"

_FIELD_TYPES: dict[str, Schema] = {
    "int": {"type": "integer"},
    "str": {"type": "string"},
    "bool": {"type": "boolean"},
    "list[str]": {"type": "array", "items": {"type": "string"}},
    "list[int]": {"type": "array", "items": {"type": "integer"}},
    "object": {"type": "object", "additionalProperties": {"type": "integer"}},
}


def prefix(game: Game) -> str:
    """``kings-and-castles`` -> ``KingsAndCastles``: the name every component of a game has."""
    return "".join(part.capitalize() for part in game.id.replace("_", "-").split("-"))


def camel(name: str) -> str:
    """``place_knight`` -> ``PlaceKnight`` (action types); event types are CamelCase already."""
    return "".join(part[:1].upper() + part[1:] for part in name.split("_"))


def ref(name: str) -> Schema:
    return {"$ref": REF + name}


def field_schema(f: Field) -> Schema:
    """The JSON Schema of one action field (its kind, choices and doc)."""
    out = dict(_FIELD_TYPES[f.kind])
    if f.choices is not None:
        out["enum"] = list(f.choices)
    if f.doc:
        out["description"] = f.doc
    return out


def _either(a: Shape, b: Shape) -> Shape:
    """Two records under one event name (the table's ``GameStarted`` and Artus's): one record
    of both fields, those of one only optional (an ``anyOf`` of the two would do too, but
    generated clients make a model twice of it)."""
    fa, fb = a["fields"], b["fields"]
    fields = {n: f if n in fa and n in fb else optional(f) for n, f in {**fa, **fb}.items()}
    return {**b, "fields": fields}


def shape_schema(shape: Shape) -> Schema:
    """A ``domain.shapes`` description as an OpenAPI 3.0 schema (nullable as ``nullable``)."""
    kind = shape["kind"]
    out: Schema
    if kind == "int":
        out = {"type": "integer"}
        if "minimum" in shape:
            out["minimum"] = shape["minimum"]
    elif kind == "str":
        out = {"type": "string"}
        if "choices" in shape:
            out["enum"] = list(shape["choices"])
    elif kind == "bool":
        out = {"type": "boolean"}
    elif kind == "list":
        out = {"type": "array", "items": shape_schema(shape["items"])}
    elif kind == "map":
        out = {"type": "object", "additionalProperties": shape_schema(shape["values"])}
        if shape.get("keys"):
            out["x-keys"] = shape["keys"]
    elif kind == "record":
        fields = shape["fields"]
        out = {
            "type": "object",
            "properties": {name: shape_schema(f) for name, f in fields.items()},
            "additionalProperties": False,
        }
        required = [name for name, f in fields.items() if not f.get("optional")]
        if required:
            out["required"] = required
    elif kind == "nullable":
        out = {**shape_schema(shape["of"]), "nullable": True}
    elif kind == "any_of":
        out = {"anyOf": [shape_schema(s) for s in shape["of"]]}
    elif kind == "any":
        out = {}
    else:
        raise ValueError(f"unknown shape kind {kind!r}")
    if shape.get("doc"):
        out["description"] = shape["doc"]
    return out


def _tagged(names_by_tag: dict[str, str], tag: str, doc: str) -> Schema:
    return {
        "oneOf": [ref(n) for n in names_by_tag.values()],
        "discriminator": {
            "propertyName": tag,
            "mapping": {t: REF + n for t, n in names_by_tag.items()},
        },
        "description": doc,
    }


def game_components(game: Game) -> dict[str, Schema]:
    """The components of one game: its actions, its view state, its events."""
    p = prefix(game)
    out: dict[str, Schema] = {}
    actions: dict[str, str] = {}
    for kind, spec in game.actions.items():
        name = f"{p}Action{camel(kind)}"
        actions[kind] = name
        out[name] = {
            "type": "object",
            "properties": {
                "type": {"type": "string", "enum": [kind]},
                **{n: field_schema(f) for n, f in spec.items()},
            },
            "required": ["type", *(n for n, f in spec.items() if f.required)],
            "additionalProperties": False,
            "description": f"{game.name}: the `{kind}` action",
        }
    out[f"{p}Action"] = _tagged(actions, "type", f"an action of {game.name}, by its `type`")
    out[f"{p}ViewState"] = {
        **shape_schema(game.view_state),
        "description": f"the state of a {game.name} view (a seat's, a spectator's or all of it)",
    }
    events: dict[str, str] = {}
    shapes = {**ENGINE_EVENT_DATA, **tables.EVENT_DATA}
    for kind, own in game.event_data.items():  # a game's event of a table event's name
        shapes[kind] = _either(shapes[kind], own) if kind in shapes else own
    for kind, shape in shapes.items():
        name = f"{p}Event{kind}"
        events[kind] = name
        out[f"{name}Data"] = shape_schema(shape)
        out[name] = {
            "type": "object",
            "properties": {
                "version": {"type": "integer", "minimum": 1},
                "type": {"type": "string", "enum": [kind]},
                "seat": {"type": "integer", "nullable": True},
                "at": {"type": "string"},
                "data": ref(f"{name}Data"),
            },
            "required": ["version", "type", "seat", "at", "data"],
            "additionalProperties": False,
            "description": f"{game.name}: a `{kind}` event as the caller may see it",
        }
    out[f"{p}Event"] = _tagged(events, "type", f"an event of {game.name}, by its `type`")
    return out


def components() -> dict[str, Schema]:
    """Every game's components, and the unions over all games."""
    out: dict[str, Schema] = {}
    offered = [games.GAMES[g] for g in sorted(games.GAMES)]
    for game in offered:
        out.update(game_components(game))
    names = [prefix(g) for g in offered]
    out["GameAction"] = {
        "anyOf": [ref(f"{n}Action") for n in names],
        "description": "an action of one of the games (`GET .../actions` lists the legal ones)",
    }
    out["GameViewState"] = {
        "anyOf": [ref(f"{n}ViewState") for n in names],
        "description": "the state of a view of one of the games",
    }
    out["GameEvent"] = {
        "anyOf": [ref(f"{n}Event") for n in names],
        "description": "an event of one of the games",
    }
    return out
