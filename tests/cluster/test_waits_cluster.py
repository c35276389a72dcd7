"""The caps on concurrent waits on a Redis Cluster: the leases of both scopes share one hash tag,
so one script checks and takes them, and the refresher keeps them alive there too."""

from __future__ import annotations

import time
import uuid

import pytest
from werkzeug.exceptions import TooManyRequests

from service.connections import connect
from service.http.waits import Waits


def test_two_processes_share_the_caps_on_a_cluster(cluster_url: str) -> None:
    env = {
        "CHRONICLE_WAITS_PER_ADDRESS": "1",
        "CHRONICLE_WAITS_PER_TOKEN": "1",
        "CHRONICLE_WAITS_LEASE": "0.6",
    }
    one, two = (Waits(env, defaults=False, client=connect(cluster_url)) for _ in range(2))
    address, token = f"test-{uuid.uuid4().hex[:12]}", f"Bearer {uuid.uuid4()}"
    with one.slot(address, token):
        for _ in range(6):  # 1.8 s: three leases, refreshed on the cluster
            time.sleep(0.3)
            for other_address, other_token in ((address, None), (address + "-b", token)):
                with pytest.raises(TooManyRequests), two.slot(other_address, other_token):
                    pass
    with two.slot(address, token):
        pass
