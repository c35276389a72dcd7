"""``service.pipelining``: under gevent the script calls of all greenlets go to Redis together,
through redis-py's public pipeline, and each caller gets its own reply or its own error; a
Redis that lost its scripts gets them again.  Run in a process of its own, patched by gevent as
an API process is."""

from __future__ import annotations

import json
import subprocess
import sys

from tests.conftest import ROOT

PROBE = r"""
from gevent import monkey; monkey.patch_all()
import json, sys, gevent, redis
from service import connections, pipelining
sends = []
send = pipelining.AutoPipeline._send
pipelining.AutoPipeline._send = lambda self, batch: (sends.append(len(batch)), send(self, batch))
client = connections.connect(sys.argv[1])
count = connections.script(client, "return redis.call('INCR', KEYS[1])")
fail = connections.script(client, "return redis.error_reply('ERR refused: ' .. KEYS[1])")
count(keys=["warm"]), gevent.spawn(fail, keys=["warm"]).join()  # both loaded
sends.clear()
def one(i):
    if i % 5 == 4:
        try:
            fail(keys=[f"f{i}"])
        except redis.ResponseError as error:
            return str(error)
    return count(keys=[f"probe:{i}"])
callers = [gevent.spawn(one, i) for i in range(40)]
gevent.joinall(callers)
got, batches = [g.value for g in callers], list(sends)
client.script_flush()
again = count(keys=["probe:0"])
print(json.dumps({"got": got, "sends": batches,
                  "pipelined": count.pipe is not None, "again": again}))
"""


def test_greenlets_calls_go_together_each_with_its_own_answer(own_redis_url: str) -> None:
    out = subprocess.run(
        [sys.executable, "-c", PROBE, own_redis_url],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert out.returncode == 0, out.stderr
    report = json.loads(out.stdout)
    assert report["pipelined"]
    assert report["got"] == [f"refused: f{i}" if i % 5 == 4 else 1 for i in range(40)], (
        "each caller its own reply, the script's error to its caller only"
    )
    assert sum(report["sends"]) == 40 and len(report["sends"]) < 10, report["sends"]
    assert report["again"] == 2, "NOSCRIPT: loaded again, called once"
