"""The one loader of a game's component data: the ``data.json`` shipped inside its package.

Read once, at import, from the package's own files (``importlib.resources``), so the data
travels with the code and the rules never touch the file system again.
"""

from __future__ import annotations

import json
from importlib import resources
from typing import Any


def load(package: str, name: str = "data.json") -> dict[str, Any]:
    """The JSON object in ``name`` of ``package`` (e.g. ``load(__package__)`` in ``data.py``)."""
    data: dict[str, Any] = json.loads(
        resources.files(package).joinpath(name).read_text(encoding="utf-8")
    )
    return data
