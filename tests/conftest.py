"""Shared fixtures: real local hosts on loopback, checked for leaks at teardown."""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

import httpx
import pytest

from drums_gym.local.host import HostConfig
from drums_gym.local.sandbox import DEFAULT_SHELL, SHELL_VARIABLE, backend_from_env
from drums_gym.local.server import LocalHost

ARTIFACTS = Path(__file__).resolve().parent.parent / "test-artifacts"

# Property tests draw the same examples every run (`pytest -q` passes or fails the same way
# on every machine, CI's included); `pytest --hypothesis-profile=explore` draws new ones
# and keeps what fails in .hypothesis/ (replayed first next time), to hunt for bugs.
# (The integrations' venv has no Hypothesis: its tests have no properties.)
try:
    from hypothesis import settings
except ImportError:
    pass
else:
    settings.register_profile("repeatable", derandomize=True, database=None)
    settings.register_profile("explore", derandomize=False)
    settings.load_profile("repeatable")

#: gates resolve fast in tests; the shell backend is DRUMS_LOCAL_SHELL's (unset: ``auto``,
#: which `make_host` resolves per test, `shell_for`); everything else is the host's default
FAST = HostConfig(gate_delay_s=0.05, shell=os.environ.get(SHELL_VARIABLE, "").strip()
                  or DEFAULT_SHELL)
#: the suites that run on the shell backend DRUMS_LOCAL_SHELL chooses (unset: auto, the
#: sandbox where it works); CI runs them again with DRUMS_LOCAL_SHELL=simulated (.ci/run)
SHELL_SUITES = ("tests/solvers/", "tests/local/tasks/")


def shell_for(nodeid: str) -> str:
    """The backend of a host a test makes without choosing one: DRUMS_LOCAL_SHELL's for the
    `SHELL_SUITES` (and for every test when it is set), else the simulated bash: most tests
    are not about the shell, and a sandbox desktop's setup costs ~200 ms (docs/terminal.md).
    Tests about the shell choose theirs (``replace(FAST, shell=...)``)."""
    if nodeid.startswith(SHELL_SUITES) or os.environ.get(SHELL_VARIABLE, "").strip():
        return backend_from_env()
    return "simulated"


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


#: how long a stopped (or orphaned) host's processes may take to end (polled, not slept)
GONE_WITHIN_S = 30.0


def gone(pid: int) -> bool:
    """True once ``pid`` no longer runs (a zombie nobody reaped counts as gone)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except FileNotFoundError:
        return True
    return stat.rsplit(")", 1)[1].split()[0] in ("Z", "X")


def wait_gone(pid: int) -> bool:
    """Whether ``pid`` is `gone` within :data:`GONE_WITHIN_S`."""
    deadline = time.monotonic() + GONE_WITHIN_S
    while time.monotonic() < deadline:
        if gone(pid):
            return True
        time.sleep(0.02)  # polling a condition, with a deadline: no race on the outcome
    return gone(pid)


def assert_no_leaks(server: LocalHost) -> None:
    counts = server.model.counts()
    assert counts == {"live_desktops": 0, "saved_states": 0}, f"leaked on {server}: {counts}"


def usage_at(url: str, http: httpx.Client | None = None) -> dict[str, int]:
    """What a host (an embedded one: a child process) holds, over HTTP: its desktops in all
    workspaces and the default workspace's saved states (through ``http`` if given)."""
    get = http.get if http is not None else httpx.get
    usage = get(f"{url}/v1/host", timeout=30).json()["usage"]
    return {"live_desktops": usage["host_desktops"], "saved_states": usage["saved_states"]}


@pytest.fixture(scope="session")
def _leak_check_http() -> Iterator[httpx.Client]:
    """The leak check's one HTTP client (a client per check cost 20 ms of CPU after every test:
    httpx loads its CA bundle for each)."""
    with httpx.Client() as http:
        yield http


@pytest.fixture
def make_host(request: pytest.FixtureRequest) -> Iterator[Callable[..., LocalHost]]:
    """Start local hosts (``make_host(config=..., faults=..., tokens=...)``); each is checked
    for leaked desktops and saved states, then stopped, when the test ends. A config whose
    shell is the default (``auto``) gets the test's backend (`shell_for`)."""
    started: list[LocalHost] = []

    def make(config: HostConfig | None = None, **kwargs: Any) -> LocalHost:
        config = config or FAST
        if config.shell == DEFAULT_SHELL:
            config = replace(config, shell=shell_for(request.node.nodeid))
        server = LocalHost(config, **kwargs).start()
        started.append(server)
        return server

    yield make
    try:
        for server in started:
            assert_no_leaks(server)
    finally:
        for server in started:
            server.stop()


@pytest.fixture(scope="session")
def _shared_host() -> Iterator[dict[str, LocalHost]]:
    """This process's shared hosts (one per xdist worker and shell backend), each started by
    the first test that asks for :func:`local_host` on its backend; a dict so that a test
    that leaks can have its host replaced."""
    held: dict[str, LocalHost] = {}
    yield held
    for server in held.values():
        server.stop()


@pytest.fixture
def local_host(request: pytest.FixtureRequest,
               _shared_host: dict[str, LocalHost]) -> Iterator[LocalHost]:
    """A healthy local host with fast gates on the test's shell backend (`shell_for`), shared
    by the tests of one process: each test finds it holding nothing and must leave it so
    (checked at teardown; a test that leaks fails, and the next test gets a fresh host).
    Starting and stopping a host per test cost a quarter of a second of waiting each
    (uvicorn's shutdown ticks), over 400 tests. A test that needs a host of its own (another
    config, faults, tokens, a host it stops or whose counters it reads from zero) uses
    :func:`make_host`."""
    backend = shell_for(request.node.nodeid)
    if backend not in _shared_host:
        _shared_host[backend] = LocalHost(replace(FAST, shell=backend)).start()
    server = _shared_host[backend]
    yield server
    counts = server.model.counts()
    if counts != {"live_desktops": 0, "saved_states": 0}:
        del _shared_host[backend]
        server.stop()
        pytest.fail(f"leaked on the shared {server}: {counts}", pytrace=False)


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
def _embedded_host_leak_check(_leak_check_http: httpx.Client) -> Iterator[None]:
    """A test that used the embedded host must leave it with nothing live."""
    yield
    from drums_gym.local.embedded import embedded_host

    server = embedded_host()
    if server is not None and server.alive:
        counts = usage_at(server.url, _leak_check_http)
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
    "tests/envs/test_randomize.py::test_every_solver_scores_one_on_a_second_randomized_desktop": (
        "every solver route on a second randomized desktop (the fast set runs the first)"
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
