"""Fixtures that start real things: a Redis server on a free port (never a mock, never the
machine's shared Redis), the API served over real HTTP, and real RQ worker processes; and the
tiers every test belongs to (``TIERS``, the markers registered in pyproject.toml)."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
import redis

from service.app import create_app
from service.config import Settings
from service.redis_server import RedisServer, free_port
from tests.support.client import Client
from tests.support.server import api_env, served_api, serving

ADMIN_TOKEN = "test-admin-token"
ROOT = Path(__file__).resolve().parent.parent

# The tests' webhook receivers listen on loopback, and a receiver that is down is retried
# within seconds rather than minutes (the in-process API and the worker processes read these).
os.environ.setdefault("CHRONICLE_WEBHOOK_ALLOW_PRIVATE", "1")
os.environ.setdefault("CHRONICLE_WEBHOOK_BACKOFF", "1,1,2,2,3,3")
# A turn's notice is looked at as soon as it is owed, not a minute on (the grace that spares a
# person at the table a mail every turn: tests/e2e/test_notice_grace.py sets its own).
os.environ.setdefault("CHRONICLE_NOTICE_GRACE", "0")


@pytest.fixture(scope="session")
def redis_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    server = RedisServer(tmp_path_factory.mktemp("redis"), port=free_port(), persistent=False)
    url = server.start()
    yield url
    server.stop()


@pytest.fixture
def own_redis_url(tmp_path: Path) -> Iterator[str]:
    """A Redis server of the test's own, for a test that empties or scans what the session
    worker's reconciler (every second) also reads on the session's server."""
    server = RedisServer(tmp_path, port=free_port(), persistent=False)
    yield server.start()
    server.stop()


@pytest.fixture
def redis_client(redis_url: str) -> redis.Redis:
    return redis.Redis.from_url(redis_url)


def settings(url: str) -> Settings:
    return Settings(
        redis_url=url, queue_redis_url=None, admin_token=ADMIN_TOKEN, data_dir=Path("var"), port=0
    )


@pytest.fixture(scope="session")
def server_url(redis_url: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """The API as `chronicle serve` runs it (gunicorn, ``service.serving.Worker``, two
    processes) on the session's Redis, started once for the session: the end-to-end tests see
    what a player sees.  Tests share it, so each makes its own games and empties nothing."""
    folder = tmp_path_factory.mktemp("api")
    with served_api(api_env(redis_url, ADMIN_TOKEN, folder), folder, ROOT) as url:
        yield url


@pytest.fixture
def api(server_url: str) -> Client:
    return Client(server_url)


@pytest.fixture(scope="session")
def inprocess_url(redis_url: str) -> Iterator[str]:
    """The app in this process (threaded werkzeug) on the session's Redis, for the tests that
    look inside it (its log records through ``caplog``, settings changed by ``monkeypatch``)."""
    with serving(create_app(settings(redis_url))) as url:
        yield url


@pytest.fixture
def inprocess_api(inprocess_url: str) -> Client:
    return Client(inprocess_url)


@contextmanager
def running_worker(
    url: str, queue_url: str | None = None, **extra: str
) -> Iterator[subprocess.Popen[bytes]]:
    """A real `chronicle worker` process (reconciling every second) until the block ends;
    ``extra``: more of its environment (an SMTP server, say)."""
    env = {
        **os.environ,
        "REDIS_URL": url,
        "QUEUE_REDIS_URL": queue_url or "",
        "PYTHONPATH": str(ROOT),
        "CHRONICLE_RECONCILE_SECONDS": "1",
        **extra,
    }
    proc = subprocess.Popen([sys.executable, "-m", "chronicle", "worker"], env=env, cwd=ROOT)
    time.sleep(0.5)
    assert proc.poll() is None, "the worker process died at start"
    try:
        yield proc
    finally:
        proc.terminate()
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()


@pytest.fixture(scope="session")
def worker(redis_url: str) -> Iterator[subprocess.Popen[bytes]]:
    """One real RQ worker process for the session (bot turns and final scoring)."""
    with running_worker(redis_url) as proc:
        yield proc


# ---- tiers ----------------------------------------------------------------------------------
# Each test's tier comes from where it lives: the first folder under tests/ (or the module at
# the top).  A new folder must be given a tier here; collection fails until it is.
#   unit      the rules and the service's logic: in memory, or on the session's Redis at most
#   contract  the event store's contract (tests/store), on memory, a Redis and a Redis Cluster
#   e2e       through the served API, real worker processes, whole process trees, a cluster
#   browser   the browser client in Chromium
# ``slow`` is measured, not guessed (``pytest --durations``): the modules in SLOW_MODULES and the
# tests in SLOW_TESTS.  ``fast`` is the fast tier (scripts/test.sh --fast): the unit tests and
# the store contract on the in-memory twin, none of them slow.
TIERS = {
    "domain": "unit",
    "games": "unit",
    "web": "unit",
    "service": "unit",
    "test_architecture.py": "unit",
    "store": "contract",
    "e2e": "e2e",
    "tables": "e2e",
    "reliability": "e2e",
    "cluster": "e2e",
    "scale": "e2e",
    "test_lock.py": "e2e",
    "browser": "browser",
}
# Measured on 2026-12-07 (2 cores, shared): a whole run (`pytest --durations=60 --junitxml`)
# and the fast tier's own; a test is slow from 5 s (all its parameters), a module when all
# its tests are.  Re-measure and edit these when a test becomes slow or fast.
SLOW_MODULES = frozenset(  # every test in them is slow
    {
        "tests/browser/test_play.py",
        "tests/browser/test_play_by_web.py",
        "tests/browser/test_reader_mode.py",
        "tests/e2e/test_bot_fairness.py",
        "tests/e2e/test_generated_client.py",
        "tests/e2e/test_play.py",
        "tests/e2e/test_serve.py",
        "tests/reliability/test_stream.py",
        "tests/scale/test_scale_out.py",
        "tests/service/test_openapi_games.py",
        "tests/web/test_texts.py",
    }
)
SLOW_TESTS = frozenset(  # a test's node id without its parameters
    {
        "tests/browser/test_accessibility.py::test_every_page_of_a_game_at_every_stage",
        "tests/browser/test_accessibility.py::test_lobby_join_page_waiting_table_rules_and_dialog",
        "tests/browser/test_accounts_browser.py::test_sign_in_by_email_menu_games_and_sign_out_at_a_persons_pace",
        "tests/browser/test_accounts_browser.py::test_a_guest_seat_kept_in_the_account_is_played_from_another_device",
        "tests/browser/test_accounts_browser.py::test_the_host_hides_a_line_and_a_signed_in_player_blocks_its_sayer",
        "tests/browser/test_accounts_browser.py::test_a_rated_games_end_screen_shows_each_rating_before_and_after",
        "tests/browser/test_boards_in_words.py::test_kings_and_castles_board_first",
        "tests/browser/test_boards_in_words.py::test_artus_hand_last_move_reduced_motion_and_phone_seats",
        "tests/browser/test_table_live.py::test_a_game_against_a_bot_is_never_stale",
        "tests/browser/test_table_live.py::test_the_page_catches_up_after_429s",
        "tests/e2e/test_backup.py::test_backup_then_restore_gives_back_every_game",
        "tests/e2e/test_push.py::test_loopback_and_plain_http_endpoints_are_refused_without_the_operators_leave",
        "tests/e2e/test_backup.py::test_a_tampered_line_is_refused_with_its_game_named",
        "tests/e2e/test_bots.py::test_humans_and_bots_share_a_game",
        "tests/e2e/test_docs.py::test_the_docs_page_lists_every_operation_offline",
        "tests/e2e/test_kings_and_castles.py::test_KC_8_money_is_private_until_the_end_and_equals_the_tax_paid",
        "tests/e2e/test_walkthrough.py::test_the_client_example_plays_a_game_against_a_bot",
        "tests/games/kings_and_castles/test_playthrough.py::test_KC_10_bots_use_only_the_view",
        "tests/reliability/test_cost_order.py::test_on_the_served_stack_an_unread_import_is_refused_and_the_documents_are_limited",
        "tests/reliability/test_edge.py::test_a_hundred_long_polls_hold_no_thread_and_no_redis_connection",
        "tests/reliability/test_edge.py::test_half_sent_requests_are_closed_after_the_header_timeout",
        "tests/reliability/test_edge.py::test_concurrent_waits_beyond_the_cap_are_refused_429",
        "tests/reliability/test_edge.py::test_a_stream_whose_client_hung_up_gives_its_place_back_at_once",
        "tests/reliability/test_edge.py::test_the_caps_on_waits_hold_across_api_processes",
        "tests/reliability/test_faults.py::test_redis_sigkill_loses_no_acknowledged_append",
        "tests/reliability/test_faults.py::test_api_killed_between_append_and_enqueue_is_reconciled",
        "tests/reliability/test_faults.py::test_redis_unreachable_answers_503_and_everything_recovers",
        "tests/reliability/test_faults.py::test_fifty_clients_race_on_one_game",
        "tests/reliability/test_fuzz.py::test_stateful_links",
        "tests/reliability/test_http1.py::test_a_stream_read_by_its_client_outlives_the_io_timeout",
        "tests/reliability/test_integrity.py::test_random_appends_undos_and_reads_keep_the_log_whole",
        "tests/reliability/test_leaks.py::test_no_response_shows_a_seat_what_it_may_not_see",
        "tests/reliability/test_logs.py::test_no_secret_in_any_log_line",
        "tests/reliability/test_observability.py::test_metrics_add_up_over_processes_and_logs_are_json_lines",
        "tests/reliability/test_supervise.py::test_a_killed_worker_is_restarted_and_nothing_else_stops",
        "tests/reliability/test_supervise.py::test_serve_killed_leaves_no_orphans_and_its_data_folder_is_locked",
        "tests/service/test_chronicle.py::test_a_lost_follow_up_is_found_by_the_reconciler",
        "tests/service/test_waits.py::test_the_lease_of_a_killed_holder_expires_and_a_live_one_is_kept",
        "tests/service/test_waits.py::test_a_long_wait_stays_counted_past_its_lease",
        "tests/test_lock.py::test_an_install_from_the_lock_serves_the_api",
    }
)
MEMORY = "memory"  # the in-memory twin's parameter in the store contract's fixtures


def tier(item: pytest.Item) -> str | None:
    """The tier of a test under tests/ (None for one elsewhere: not this folder's to say)."""
    if not item.path.is_relative_to(ROOT / "tests"):
        return None
    top = item.path.relative_to(ROOT / "tests").parts[0]
    if top not in TIERS:
        raise pytest.UsageError(f"tests/{top} has no tier: add it to TIERS in {__file__}")
    return TIERS[top]


def on_memory(item: pytest.Item) -> bool:
    callspec = getattr(item, "callspec", None)
    return callspec is not None and MEMORY in callspec.params.values()


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        name = tier(item)
        if name is None:
            continue
        item.add_marker(name)
        module = item.nodeid.split("::")[0]
        marked = item.get_closest_marker("slow") is not None
        listed = item.nodeid.split("[")[0] in SLOW_TESTS
        slow = marked or listed or module in SLOW_MODULES
        if slow and not marked:
            item.add_marker("slow")
        if not slow and (name == "unit" or (name == "contract" and on_memory(item))):
            item.add_marker("fast")
