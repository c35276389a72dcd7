"""``python -m tests.store.pipeline_probe URL SCENARIO [N]``: script calls from many greenlets of
a gevent-patched process, as an API process makes them, with what each caller got printed as
one JSON line (``test_auto_pipeline`` runs it; the test's process itself is not patched).

Each caller is a greenlet that calls ``connections.script`` of ``COUNT`` on a client made by
``connect``, and records ``["ok", reply]`` or ``["error", class name, seconds it waited]``.
"""

from __future__ import annotations

from gevent import monkey

monkey.patch_all()

import json  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402
from typing import Any  # noqa: E402

import gevent  # noqa: E402
from redis.cluster import RedisCluster  # noqa: E402

from service import connections, pipelining  # noqa: E402

COUNT = """
if ARGV[1] == 'fail' then return redis.error_reply('ERR refused ' .. ARGV[2]) end
return {redis.call('INCR', KEYS[1]), ARGV[2]}
"""


def call(script: Any, *args: Any) -> list[Any]:
    start = time.monotonic()
    try:
        reply = script(keys=["n"], args=list(args))
    except Exception as error:
        return ["error", type(error).__name__, str(error), round(time.monotonic() - start, 3)]
    return ["ok", [reply[0], reply[1].decode()]]


def say(doc: dict[str, Any]) -> None:
    sys.stdout.write(json.dumps(doc) + "\n")
    sys.stdout.flush()


def main(url: str, scenario: str, n: int) -> dict[str, Any]:
    client = connections.connect(url)
    script = connections.script(client, COUNT)
    out: dict[str, Any] = {"lean": type(script).__name__}
    if scenario == "burst":  # n greenlets at once, every third call refused by the script
        calls = [
            gevent.spawn(call, script, "fail" if i % 3 == 0 else "ok", str(i)) for i in range(n)
        ]
        gevent.joinall(calls)
        out["results"] = [g.value for g in calls]
    elif scenario == "rounds":  # n greenlets, each 20 calls in turn

        def rounds(i: int) -> list[list[Any]]:
            return [call(script, "ok", f"{i}.{j}") for j in range(20)]

        calls = [gevent.spawn(rounds, i) for i in range(n)]
        gevent.joinall(calls)
        out["results"] = [r for g in calls for r in g.value]
    elif scenario == "flushed":  # the server lost its scripts while the calls were made
        first = call(script, "ok", "first")
        client.script_flush()
        calls = [gevent.spawn(call, script, "ok", str(i)) for i in range(n)]
        gevent.joinall(calls)
        out["results"] = [first] + [g.value for g in calls]
    elif scenario == "harmed":  # a call; the test harms Redis; a burst; the test mends; a call
        out["first"] = call(script, "ok", "first")
        for key in ("burst", "later"):
            say({"ready": key})
            sys.stdin.readline()
            # spread over 0.8 s: most arrive while the first of them is on its way
            calls = [gevent.spawn_later(0.05 * i, call, script, "ok", str(i)) for i in range(n)]
            gevent.joinall(calls)
            out[key] = [g.value for g in calls]
    elif scenario == "moved":  # a call; the test moves the key's slot to another master; calls
        out["first"] = call(script, "ok", "first")
        out["before"] = node_of(client)
        say({"ready": "move"})
        sys.stdin.readline()
        for key in ("burst", "later"):
            calls = [gevent.spawn(call, script, "ok", str(i)) for i in range(n)]
            gevent.joinall(calls)
            out[key] = [g.value for g in calls]
        out["after"] = node_of(client)
    if isinstance(client, RedisCluster):  # the pipelines of the nodes' pools
        pipes = [
            (node.name, pipelining.for_pool(node.redis_connection.connection_pool))
            for node in client.get_primaries()
        ]
        out["nodes"] = {name: [pipe.batches, pipe.calls] for name, pipe in pipes}
        out["batches"] = sum(pipe.batches for _, pipe in pipes)
        out["calls"] = sum(pipe.calls for _, pipe in pipes)
        return out
    pipe = pipelining.for_pool(client.connection_pool)
    out["batches"], out["calls"] = pipe.batches, pipe.calls
    gevent.sleep(pipelining.IDLE + 0.3)  # the writer gives its connection back after IDLE
    pool = client.connection_pool
    out["free"], out["slots"] = pool.pool.qsize(), pool.max_connections
    return out


def node_of(client: Any) -> str:
    """The master that serves the key ``n``, in the client's own slot map."""
    return str(client.nodes_manager.get_node_from_slot(client.keyslot("n")).name)


if __name__ == "__main__":
    url, scenario = sys.argv[1], sys.argv[2]
    n = int(sys.argv[3]) if len(sys.argv) > 3 else 16
    say(main(url, scenario, n))
