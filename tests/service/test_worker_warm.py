"""The worker imports its jobs' modules before it takes a job (``workers.main.warm``): the
first bot turn or score after a worker starts does not pay for importing the service."""

from __future__ import annotations

import subprocess
import sys

from service.jobs import FUNCTIONS
from service.webhooks import DELIVER, FAN_OUT
from workers.main import job_modules

PROBE = """
import sys
import workers.main
before = [m for m in workers.main.job_modules() if m in sys.modules]
workers.main.warm()
after = [m for m in workers.main.job_modules() if m not in sys.modules]
print(before, after)
"""


def test_every_job_function_is_in_a_warmed_module() -> None:
    for path in (*FUNCTIONS.values(), FAN_OUT, DELIVER):
        module, _, name = path.rpartition(".")
        assert module in job_modules()
        assert callable(getattr(__import__(module, fromlist=[name]), name))


def test_warm_imports_what_the_worker_alone_has_not() -> None:
    # A fresh interpreter: importing workers.main does not bring the jobs' modules (so the
    # test sees warm() do it); after warm() every one of them is imported.
    done = subprocess.run(
        [sys.executable, "-c", PROBE], capture_output=True, text=True, check=True, timeout=60
    )
    assert done.stdout.strip() == "[] []", done.stdout + done.stderr
