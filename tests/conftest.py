"""Shared fixtures: real local hosts on loopback, checked for leaks at teardown."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from drums_gym.local.host import HostConfig
from drums_gym.local.server import LocalHost

ARTIFACTS = Path(__file__).resolve().parent.parent / "test-artifacts"

#: gates resolve fast in tests; everything else is the host's default
FAST = HostConfig(gate_delay_s=0.05)


def assert_no_leaks(server: LocalHost) -> None:
    counts = server.model.counts()
    assert counts == {"live_desktops": 0, "saved_states": 0}, f"leaked on {server}: {counts}"


@pytest.fixture
def make_host() -> Iterator[Callable[..., LocalHost]]:
    """Start local hosts (``make_host(config=..., faults=..., tokens=...)``); each is checked
    for leaked desktops and saved states, then stopped, when the test ends."""
    started: list[LocalHost] = []

    def make(config: HostConfig | None = None, **kwargs: Any) -> LocalHost:
        server = LocalHost(config or FAST, **kwargs).start()
        started.append(server)
        return server

    yield make
    try:
        for server in started:
            assert_no_leaks(server)
    finally:
        for server in started:
            server.stop()


@pytest.fixture
def local_host(make_host: Callable[..., LocalHost]) -> LocalHost:
    """A healthy local host with fast gates."""
    return make_host()


@pytest.fixture
def artifacts() -> Path:
    """Where tests save screenshots and recordings for people to look at."""
    ARTIFACTS.mkdir(exist_ok=True)
    return ARTIFACTS


@pytest.fixture(scope="session", autouse=True)
def _one_zygote() -> Iterator[None]:
    """One warm desktop zygote for the session's hosts (each host would otherwise start
    its own: a second of imports per test)."""
    from drums_gym.local.workers.pool import zygote

    held = zygote().acquire()
    yield
    held.release()


@pytest.fixture(autouse=True)
def _embedded_host_leak_check() -> Iterator[None]:
    """A test that used the embedded host must leave it with nothing live."""
    yield
    from drums_gym.local.embedded import embedded_host

    server = embedded_host()
    if server is not None:
        assert_no_leaks(server)


# -- the soak: long reliability runs, only on request ------------------------------------------


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("drums-gym")
    group.addoption(
        "--soak", action="store_true", default=False,
        help="run the soak tests (tests/reliability/test_soak.py; minutes, not seconds)",
    )
    group.addoption(
        "--soak-steps", type=int, default=2000, metavar="N",
        help="vector steps of each soak test (default 2000)",
    )


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "soak: a long reliability soak; runs only with --soak")


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    if config.getoption("--soak"):
        return
    skip = pytest.mark.skip(reason="a soak test: run with --soak (and --soak-steps N)")
    for item in items:
        if "soak" in item.keywords:
            item.add_marker(skip)


@pytest.fixture
def soak_steps(request: pytest.FixtureRequest) -> int:
    """How many vector steps a soak test runs (``--soak-steps``)."""
    steps = int(request.config.getoption("--soak-steps"))
    if steps < 100:
        raise pytest.UsageError(f"--soak-steps must be at least 100, got {steps}")
    return steps
