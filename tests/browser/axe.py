"""axe-core in the browser tests: the engine (a test-only file that ``scripts/setup.sh`` fetches
with npm, pinned and integrity-checked, into ``.cache/axe-core/``) is evaluated in the page
through the DevTools protocol, which the pages' strict CSP (``script-src 'self'``) does not
govern, then run over the whole document with the WCAG 2.0-2.2 A/AA and best-practice rules.

Also the WCAG contrast ratio of two colours, for the tests that check a palette directly."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[2]
AXE = ROOT / ".cache" / "axe-core" / "axe.min.js"
VERSION = "4.14.1"  # scripts/setup.sh pins the same
TAGS = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "wcag22aa", "best-practice"]
SERIOUS = {"serious", "critical"}

RUN_JS = """async (tags) => {
  const r = await axe.run(document, {
    runOnly: { type: "tag", values: tags },
    resultTypes: ["violations"],
  });
  return r.violations.map((v) => ({
    id: v.id,
    impact: v.impact,
    help: v.help,
    nodes: v.nodes.map((n) => ({
      impact: n.impact,
      target: n.target.map(String).join(" "),
      html: n.html.slice(0, 160),
      message: n.failureSummary || "",
    })),
  }));
}"""


def source() -> str:
    """The engine's text, or a skip when the set-up did not fetch it (no npm)."""
    if not AXE.exists():
        pytest.skip(f"no axe-core at {AXE} (scripts/setup.sh fetches it with npm)")
    text = AXE.read_text(encoding="utf-8")
    assert f"axe v{VERSION}" in text[:200], "scripts/setup.sh pins another axe-core"
    return text


def violations(page: Any) -> list[dict[str, Any]]:
    """Every violation axe finds on the page as it is now (each with its nodes)."""
    if not page.evaluate("() => typeof window.axe === 'object'"):
        page.evaluate(source())
    result: list[dict[str, Any]] = page.evaluate(RUN_JS, TAGS)
    return result


def serious(found: list[dict[str, Any]], impacts: set[str] = SERIOUS) -> list[str]:
    """One line per serious or critical node (or of ``impacts``): the rule, the node's target
    and axe's message."""
    lines = []
    for v in found:
        for n in v["nodes"]:
            if (n["impact"] or v["impact"]) in impacts:
                why = " ".join(n["message"].split())
                lines.append(f"{v['id']} ({n['impact']}) {n['target']}: {why} [{n['html']}]")
    return lines


def counts(found: list[dict[str, Any]]) -> dict[str, int]:
    """Nodes per rule and impact ("color-contrast/serious": 12), for a report."""
    out: dict[str, int] = {}
    for v in found:
        for n in v["nodes"]:
            key = f"{v['id']}/{n['impact'] or v['impact']}"
            out[key] = out.get(key, 0) + 1
    return out


def _channel(c: int) -> float:
    x = c / 255
    return x / 12.92 if x <= 0.04045 else ((x + 0.055) / 1.055) ** 2.4


def luminance(hex_colour: str) -> float:
    h = hex_colour.lstrip("#")
    if len(h) == 3:
        h = "".join(ch * 2 for ch in h)
    r, g, b = (int(h[i : i + 2], 16) for i in (0, 2, 4))
    return 0.2126 * _channel(r) + 0.7152 * _channel(g) + 0.0722 * _channel(b)


def contrast(a: str, b: str) -> float:
    """WCAG 2 contrast ratio of two colours ("#2f8f4e", "#fff"): 1 to 21."""
    la, lb = sorted((luminance(a), luminance(b)), reverse=True)
    return (la + 0.05) / (lb + 0.05)
