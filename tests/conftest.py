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


def process_tree(root: int) -> list[int]:
    """``root`` and every live process below it (read from /proc)."""
    children: dict[int, list[int]] = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                ppid = int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1])
            except (OSError, IndexError, ValueError):
                continue
            children.setdefault(ppid, []).append(int(entry.name))
    out, todo = [], [root]
    while todo:
        pid = todo.pop()
        out.append(pid)
        todo.extend(children.get(pid, ()))
    return out


def assert_no_leaks(server: LocalHost) -> None:
    counts = server.model.counts()
    assert counts == {"live_desktops": 0, "saved_states": 0}, f"leaked on {server}: {counts}"


def usage_at(url: str) -> dict[str, int]:
    """What a host (an embedded one: a child process) holds, over HTTP: its desktops in all
    workspaces and the default workspace's saved states."""
    import httpx

    usage = httpx.get(f"{url}/v1/host", timeout=30).json()["usage"]
    return {"live_desktops": usage["host_desktops"], "saved_states": usage["saved_states"]}


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
    if server is not None and server.alive:
        counts = usage_at(server.url)
        assert counts == {"live_desktops": 0, "saved_states": 0}, f"leaked on {server}: {counts}"


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


#: The slow end-to-end set (node id prefixes, with why each is slow): marked ``slow``, left
#: out of the README's test command (pyproject's addopts: ``-m "not slow"``) and run by
#: ``.ci/run`` as ``pytest -m slow``. Nothing here is a duplicate: each runs in CI.
SLOW = {
    "tests/solutions/test_corpus.py": "the corpus: every entry on each shell backend",
    "tests/reliability/test_attack_bench.py": "runs the attack benchmark",
    "tests/reliability/test_hostile_http.py": "every attack class against a serve process",
    "tests/reliability/test_sandbox_escape.py": "escape attempts from sandboxed terminals",
    "tests/reliability/test_fuzz.py::test_every_endpoint_survives_schemathesis": "schemathesis",
    "tests/structure/test_layers_planted.py": "each plant re-checks a copy of the package",
    "tests/docs/test_docs_pages.py": "every docs block, a fresh interpreter per page",
    "tests/loops/test_suite.py::test_a_suite_killed_mid_run_and_resumed_counts_each_episode_once": (
        "kills and resumes a suite"
    ),
}


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "soak: a long reliability soak; runs only with --soak")
    config.addinivalue_line("markers", "slow: the slow end-to-end set (SLOW in conftest.py)")


def is_slow(nodeid: str) -> bool:
    """Whether a test is in the slow end-to-end set (:data:`SLOW`)."""
    return any(nodeid == key or nodeid.startswith((key + "::", key + "[")) for key in SLOW)


@pytest.hookimpl(tryfirst=True)  # before ``-m`` deselects by marker
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    for item in items:
        if is_slow(item.nodeid):
            item.add_marker(pytest.mark.slow)
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
