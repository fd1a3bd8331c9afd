"""Retries and limits, end to end against real local hosts (and a few handler functions
where a host cannot be made to misbehave on cue):

- 429 bursts with Retry-After are waited out, within a bound, and then succeed;
- 403 quota and the other 4xx are never retried;
- a retried create or branch never allocates twice (idempotency keys), and a create or
  branch whose every reply was lost is settled when the client closes;
- every wait is finite: each httpx call has a timeout, a hung host times out, wait_valid
  has a deadline, close() does not hang on a host that is gone.
"""

from __future__ import annotations

import ast
import logging
import socket
import threading
import time
from collections.abc import Callable
from pathlib import Path

import httpx
import pytest

import drums_gym
from drums_gym import client as drums
from drums_gym.client import connect
from drums_gym.envs import DrumsDesktopEnv
from drums_gym.local.host import HostConfig
from drums_gym.local.server import LocalHost

SCREEN = (640, 480)
PACKAGE = Path(drums_gym.__file__).resolve().parent


class Wire(httpx.BaseTransport):
    """The network, counting requests; the replies to the first ``drop`` requests that
    ``match`` are lost after the host processed them (a connection dropped mid-reply)."""

    def __init__(self, match: Callable[[httpx.Request], bool] = lambda r: False,
                 drop: int = 0) -> None:
        self._inner = httpx.HTTPTransport()
        self._match = match
        self._drop = drop
        self.requests: list[httpx.Request] = []
        self._lock = threading.Lock()

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        response = self._inner.handle_request(request)
        with self._lock:
            self.requests.append(request)
            lose = self._drop > 0 and self._match(request)
            self._drop -= lose
        if lose:
            response.read()
            response.close()
            raise httpx.ReadError("connection lost mid-reply", request=request)
        return response

    def close(self) -> None:
        self._inner.close()

    def sent(self, method: str, path_end: str) -> list[httpx.Request]:
        return [r for r in self.requests
                if r.method == method and r.url.path.endswith(path_end)]


def record_sleeps(client: drums.Client) -> list[float]:
    """The client's retry waits, recorded as they are slept (seconds asked for)."""
    slept: list[float] = []
    http = client._session.http
    real = http._sleep

    def sleep(seconds: float) -> None:
        slept.append(seconds)
        real(seconds)

    http._sleep = sleep
    return slept


def overloaded(times: int, retry_after_ms: int, header: str = "1"):
    """A handler: ``times`` 429 replies, then a task list."""
    calls = []

    def handler(request: httpx.Request) -> httpx.Response:
        calls.append(time.monotonic())
        if len(calls) <= times:
            body = {"error": {"code": "overloaded", "message": "busy",
                              "details": {"retry_after_ms": retry_after_ms}}}
            return httpx.Response(429, json=body, headers={"Retry-After": header})
        return httpx.Response(200, json={"tasks": []})

    return handler, calls


# -- 429 --------------------------------------------------------------------------------------


def test_429_bursts_are_waited_out_then_a_rollout_succeeds(make_host, caplog):
    caplog.set_level(logging.INFO, logger="drums_gym.client")
    server = make_host(HostConfig(gate_delay_s=0.05), faults="overload=0.6,retry_after_ms=5",
                       seed=1)
    with connect(url=server.url, max_retries=25) as client:
        env = DrumsDesktopEnv("e0df059f", client=client, max_steps=4, screen=SCREEN)
        try:
            _, info = env.reset(seed=0)
            assert info["valid"]
            for _ in range(3):
                _, _, terminated, truncated, info = env.step("pyautogui.moveTo(7, 7)")
                assert info["valid"] and "error" not in info
            _, reward, terminated, _, info = env.step("DONE")
            assert terminated and info["valid"] and reward == 0.0
        finally:
            env.close()
    retries = caplog.text.count("429 overloaded; retry")
    assert retries >= 3, "the host shed load and the client waited it out"


def test_the_hosts_hint_is_honoured_and_bounded():
    handler, calls = overloaded(times=3, retry_after_ms=60, header="1")
    with connect("http://drums.test", transport=httpx.MockTransport(handler)) as client:
        slept = record_sleeps(client)
        assert client.tasks() == []
    assert len(calls) == 4 and len(slept) == 3, "each 429 was waited out"
    # retry_after_ms (60 ms) wins over the coarser Retry-After (1 s), a little jitter on top
    assert all(0.06 <= s <= 0.066 for s in slept), slept


def test_a_wait_beyond_the_budget_is_not_slept():
    handler, calls = overloaded(times=100, retry_after_ms=3_600_000, header="3600")
    with connect("http://drums.test", transport=httpx.MockTransport(handler)) as client:
        slept = record_sleeps(client)
        with pytest.raises(drums.Overloaded) as info:
            client.tasks()
        assert slept == [] and len(calls) == 1
    assert info.value.retry_after == 3600.0, "the caller learns how long the host asked for"


def test_total_retry_sleep_is_bounded_by_the_budget():
    handler, calls = overloaded(times=100, retry_after_ms=100)
    with connect("http://drums.test", transport=httpx.MockTransport(handler),
                 max_retries=100, retry_budget=0.35) as client:
        slept = record_sleeps(client)
        with pytest.raises(drums.Overloaded):
            client.tasks()
    # three waits of 100 ms (+ up to 10% jitter) fit the 0.35 s budget, a fourth does not
    assert len(slept) == 3 and sum(slept) <= 0.35 and len(calls) == 4


# -- never retried ----------------------------------------------------------------------------


def test_quota_and_other_4xx_are_never_retried(make_host):
    server = make_host(HostConfig(gate_delay_s=0.05, live_desktops=1), tokens=["T"])
    wire = Wire()
    with connect(url=server.url, token="T", transport=wire) as client:
        slot = client.create(task="e0df059f", screen=SCREEN)
        slot.wait_valid()
        calls: list[tuple[Callable[[], object], type[Exception], str, str]] = [
            (lambda: client.create(task="e0df059f"), drums.QuotaExceeded, "POST", "/v1/slots"),
            (lambda: slot.fork(1), drums.QuotaExceeded, "POST", "/branch"),
            (lambda: client.task("nope0000"), drums.NotFound, "GET", "/nope0000"),
            (lambda: slot.step("pyautogui.click("), drums.ActionError, "POST", "/actions"),
            (lambda: slot.fork(99), drums.InvalidRequest, "POST", "/branch"),
        ]
        for call, error, method, path in calls:
            before = len(wire.sent(method, path))
            with pytest.raises(error):
                call()
            assert len(wire.sent(method, path)) == before + 1, f"{error.__name__} was retried"
        slot.delete()
        with pytest.raises(drums.Conflict):
            slot._http.json("POST", f"/v1/slots/{slot.id}/verify", json={"strict": True})
        assert len(wire.sent("POST", "/verify")) == 1
    with connect(url=server.url, token="wrong", transport=wire) as client:
        with pytest.raises(drums.Unauthorized):
            client.tasks()
        assert len(wire.sent("GET", "/v1/tasks")) == 1


# -- idempotency ------------------------------------------------------------------------------


def test_a_create_whose_reply_was_lost_is_not_allocated_twice(make_host):
    server = make_host()
    wire = Wire(lambda r: r.method == "POST" and r.url.path == "/v1/slots", drop=1)
    with connect(url=server.url, transport=wire) as client:
        slot = client.create(task="e0df059f", screen=SCREEN)
        sent = wire.sent("POST", "/v1/slots")
        assert len(sent) == 2, "the lost reply was retried"
        assert sent[0].headers["Idempotency-Key"] == sent[1].headers["Idempotency-Key"]
        assert server.model.counts()["live_desktops"] == 1, "one desktop, not two"
        assert [s.id for s in client.slots()] == [slot.id]
    assert server.model.counts() == {"live_desktops": 0, "saved_states": 0}


def test_a_branch_whose_reply_was_lost_is_not_allocated_twice(make_host):
    server = make_host()
    wire = Wire(lambda r: r.url.path.endswith("/branch"), drop=2)
    with connect(url=server.url, transport=wire) as client:
        parent = client.create(task="e0df059f", screen=SCREEN)
        parent.wait_valid()
        with parent.fork(3) as group:
            sent = wire.sent("POST", "/branch")
            assert len(sent) == 3 and len({r.headers["Idempotency-Key"] for r in sent}) == 1
            assert len(group) == 3
            assert server.model.counts() == {"live_desktops": 4, "saved_states": 1}
        assert server.model.counts() == {"live_desktops": 1, "saved_states": 0}


def test_an_action_whose_reply_was_lost_is_not_replayed(make_host):
    server = make_host()
    wire = Wire(lambda r: r.url.path.endswith("/actions") and r.method == "POST", drop=1)
    with connect(url=server.url, transport=wire) as client:
        slot = client.create(task="e0df059f", screen=SCREEN)
        slot.wait_valid()
        with pytest.raises(drums.TransportError):
            slot.step("pyautogui.press('a')")
        assert len(wire.sent("POST", "/actions")) == 1, "an action is never sent twice"
        log = slot._http.json("GET", f"/v1/slots/{slot.id}/actions")
        assert len(log["actions"]) == 1


def test_a_create_whose_every_reply_was_lost_is_settled_on_close(make_host):
    server = make_host()
    wire = Wire(lambda r: r.method == "POST" and r.url.path == "/v1/slots", drop=100)
    client = connect(url=server.url, transport=wire, max_retries=2)
    with pytest.raises(drums.TransportError):
        client.create(task="e0df059f", screen=SCREEN)
    assert len(wire.sent("POST", "/v1/slots")) == 3
    assert server.model.counts()["live_desktops"] == 1, "made once, whatever the retries"
    wire._drop = 0  # the network heals
    client.close()
    assert server.model.counts() == {"live_desktops": 0, "saved_states": 0}


def test_a_refused_create_is_not_replayed_on_close(make_host):
    server = make_host(HostConfig(gate_delay_s=0.05, live_desktops=1))
    wire = Wire()
    with connect(url=server.url, transport=wire) as client:
        client.create(task="e0df059f", screen=SCREEN)
        with pytest.raises(drums.QuotaExceeded):
            client.create(task="e0df059f", screen=SCREEN)
    assert len(wire.sent("POST", "/v1/slots")) == 2, "a refusal made nothing to settle"


# -- timeouts are finite ------------------------------------------------------------------------


def _httpx_calls(tree: ast.AST) -> list[tuple[int, bool]]:
    """``(line, has a timeout)`` for each ``httpx.<client or request function>(...)`` call
    (``timeout=None`` is no timeout)."""
    constructors = {"Client", "AsyncClient", "get", "post", "put", "patch", "delete",
                    "head", "options", "request", "stream"}
    calls = []
    for node in ast.walk(tree):
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and isinstance(node.func.value, ast.Name)
            and node.func.value.id == "httpx"
            and node.func.attr in constructors
        ):
            timed = any(
                k.arg == "timeout"
                and not (isinstance(k.value, ast.Constant) and k.value.value is None)
                for k in node.keywords
            )
            calls.append((node.lineno, timed))
    return calls


def test_every_httpx_client_and_call_has_a_timeout():
    found, missing = 0, {}
    for path in sorted(PACKAGE.rglob("*.py")):
        calls = _httpx_calls(ast.parse(path.read_text(), str(path)))
        found += len(calls)
        untimed = [line for line, timed in calls if not timed]
        if untimed:
            missing[str(path.relative_to(PACKAGE.parent))] = untimed
    assert found >= 1, "the scan sees the client's httpx.Client"
    assert not missing, f"httpx calls without a timeout: {missing}"
    # and the client refuses to be built without a finite one
    for bad in (0, -1, float("inf"), float("nan"), None, True):
        with pytest.raises(ValueError, match="timeout"):
            connect("http://drums.test", timeout=bad)
    with pytest.raises(ValueError, match="retry_budget"):
        connect("http://drums.test", retry_budget=float("inf"))


def test_a_hung_host_times_out():
    listener = socket.create_server(("127.0.0.1", 0))  # accepts, never answers
    port = listener.getsockname()[1]
    try:
        with connect(f"http://127.0.0.1:{port}", timeout=0.3, max_retries=1) as client, \
                pytest.raises(drums.DrumsTimeout):
            client.tasks()  # how soon: benchmarks/timing.py
    finally:
        listener.close()


def test_waits_for_gates_have_a_deadline(make_host):
    server = make_host(HostConfig(gate_delay_s=30))
    with connect(url=server.url) as client:
        slot = client.create(task="e0df059f", screen=SCREEN)
        with pytest.raises(drums.DrumsTimeout):
            slot.wait_valid(timeout=0.3)  # how soon: benchmarks/timing.py
        with pytest.raises(ValueError, match="timeout"):
            slot.wait_valid(timeout=float("nan"))
        slot.delete()
        env = DrumsDesktopEnv("e0df059f", client=client, wait_timeout=0.3, screen=SCREEN)
        try:
            _, info = env.reset()
            assert info["valid"] is False and "DrumsTimeout" in info["invalid_reason"]
        finally:
            env.close()


def test_close_does_not_hang_when_the_host_is_gone():
    server = LocalHost(HostConfig(gate_delay_s=0.05)).start()
    client = connect(url=server.url)
    client.create(task="e0df059f", screen=SCREEN)
    server.stop()
    client.close()  # logs the failure, never raises; the lease bounds what is left
    assert client.closed  # how soon: benchmarks/timing.py (and tests/envs/test_seams.py)
