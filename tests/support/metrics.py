"""Reading ``/metrics`` in tests: the Prometheus text parsed by prometheus-client's own parser."""

from __future__ import annotations

import requests
from prometheus_client.parser import text_string_to_metric_families


def scrape(base: str) -> str:
    r = requests.get(f"{base}/metrics", timeout=10)
    assert r.status_code == 200, r.text
    assert r.headers["Content-Type"].startswith("text/plain"), r.headers
    return r.text


def value(text: str, sample: str, **labels: str) -> float:
    """The sum of the samples named ``sample`` whose labels include ``labels`` (0 if none)."""
    total = 0.0
    for family in text_string_to_metric_families(text):
        for s in family.samples:
            if s.name == sample and all(s.labels.get(k) == v for k, v in labels.items()):
                total += s.value
    return total
