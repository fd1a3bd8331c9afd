"""Interruptions leave nothing behind: an exception or a KeyboardInterrupt in the middle of a
rollout, a vector step or a fork; a process killed hard (its leases bound what it left,
and the host reclaims it when they end). Closing twice is harmless.

"Nothing" is checked on the host (no desktops, no saved states) and in this process (no
thread left running but the host's own).
"""

from __future__ import annotations

import itertools
import os
import select
import signal
import subprocess
import sys
import textwrap
import threading
import time
from collections.abc import Callable

import httpx
import pytest
from reliability import assert_threads_back, client_threads, wait_until

from drums_gym.cli.policies import PolicyError
from drums_gym.cli.rollout import run_groups
from drums_gym.client import Slot, connect
from drums_gym.envs import DrumsDesktopEnv
from drums_gym.local.host import HostConfig

SCREEN = (640, 480)
NOTHING = {"live_desktops": 0, "saved_states": 0}


class InterruptAfterReply(httpx.BaseTransport):
    """The network, except that once the host has answered a request that ``match``es,
    ``exc`` is raised instead of the reply (a Ctrl-C while the reply was on its way)."""

    def __init__(self, match: Callable[[httpx.Request], bool], exc: type[BaseException]):
        self._inner = httpx.HTTPTransport()
        self._match = match
        self._exc = exc
        self.fired = 0

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        response = self._inner.handle_request(request)
        if not self.fired and self._match(request):
            self.fired += 1
            response.read()
            response.close()
            raise self._exc()
        return response

    def close(self) -> None:
        self._inner.close()


def close_all_twice(*closables) -> None:
    for _ in range(2):  # the second round must be harmless
        for obj in closables:
            obj.close()


@pytest.fixture
def before_threads(local_host):
    """The threads alive before the test (the host's are allowed to stay)."""
    return client_threads()


def test_policy_exception_mid_group_rollout(local_host, before_threads):
    calls = itertools.count()

    def policy(obs, instruction):
        if next(calls) == 4:
            raise RuntimeError("the policy blew up")
        return "pyautogui.moveTo(20, 20)"

    client = connect(url=local_host.url)
    parent = DrumsDesktopEnv("e0df059f", client=client, max_steps=3, screen=SCREEN)
    try:
        parent.reset(seed=0)
        with pytest.raises(PolicyError, match="blew up"):
            run_groups(parent, n=3, groups=2, policy=policy)
        assert local_host.model.counts() == {"live_desktops": 1, "saved_states": 0}, (
            "the group's children and saved state are gone; only the parent is left"
        )
    finally:
        close_all_twice(parent, client)
    assert local_host.model.counts() == NOTHING
    assert_threads_back(before_threads)


def test_exception_inside_client_blocks(local_host, before_threads):
    with connect(url=local_host.url) as client:
        with (
            pytest.raises(RuntimeError, match="mid-rollout"),
            client.create(task="e0df059f", screen=SCREEN) as parent,
        ):
            parent.wait_valid()
            with parent.fork(3) as group:
                results = client.map(lambda k: k.step("pyautogui.moveTo(3, 3)"), group)
                assert all(r.applied == 1 for r in results)
                raise RuntimeError("mid-rollout")
        assert local_host.model.counts() == NOTHING, "the with blocks cleaned up"
    assert_threads_back(before_threads)


def forked(server, n=3, **client_kwargs):
    client = connect(url=server.url, **client_kwargs)
    parent = DrumsDesktopEnv("e0df059f", client=client, max_steps=5, screen=SCREEN)
    parent.reset(seed=0)
    return client, parent, parent.fork_vector(n, autoreset_mode="DISABLED")


def test_keyboard_interrupt_from_a_worker_thread_mid_vector_step(
    local_host, before_threads, monkeypatch
):
    client, parent, vec = forked(local_host)
    vec.reset()
    real_step = Slot.step
    calls = itertools.count()
    raised_in: list[threading.Thread] = []

    def step(self, code):
        if next(calls) == 1:
            raised_in.append(threading.current_thread())
            raise KeyboardInterrupt
        return real_step(self, code)

    monkeypatch.setattr(Slot, "step", step)
    try:
        with pytest.raises(KeyboardInterrupt):
            vec.step(["pyautogui.moveTo(9, 9)"] * 3)
        assert raised_in and raised_in[0] is not threading.main_thread()
    finally:
        close_all_twice(vec, parent, client)
    assert local_host.model.counts() == NOTHING
    assert_threads_back(before_threads)


def test_ctrl_c_in_the_main_thread_while_children_step(local_host, before_threads, monkeypatch):
    if signal.getsignal(signal.SIGINT) is not signal.default_int_handler:
        pytest.skip("SIGINT is not Python's default handler here")
    client, parent, vec = forked(local_host)
    vec.reset()
    real_step = Slot.step
    sent = threading.Event()
    resume = threading.Event()

    def step(self, code):
        if not sent.is_set():
            sent.set()
            signal.pthread_kill(threading.main_thread().ident, signal.SIGINT)
            resume.wait(10)  # still stepping while the main thread handles the interrupt
        return real_step(self, code)

    monkeypatch.setattr(Slot, "step", step)
    try:
        with pytest.raises(KeyboardInterrupt):
            vec.step(["pyautogui.moveTo(9, 9)"] * 3)
        assert sent.is_set()
    finally:
        resume.set()
        close_all_twice(vec, parent, client)
    assert local_host.model.counts() == NOTHING
    assert_threads_back(before_threads)


def test_keyboard_interrupt_while_a_fork_reply_arrives(local_host, before_threads):
    """The host made the children, the client never saw their ids: closing the client
    replays the fork with its idempotency key, learns them, and deletes them."""
    transport = InterruptAfterReply(lambda r: r.url.path.endswith("/branch"), KeyboardInterrupt)
    client, parent, vec = forked(local_host, transport=transport)
    try:
        with pytest.raises(KeyboardInterrupt):
            vec.reset()
        assert transport.fired == 1
        assert local_host.model.counts() == {"live_desktops": 4, "saved_states": 1}
    finally:
        close_all_twice(vec, parent, client)
    assert local_host.model.counts() == NOTHING
    assert_threads_back(before_threads)


def test_keyboard_interrupt_while_a_create_reply_arrives(local_host):
    transport = InterruptAfterReply(
        lambda r: r.method == "POST" and r.url.path == "/v1/slots", KeyboardInterrupt
    )
    client = connect(url=local_host.url, transport=transport)
    with pytest.raises(KeyboardInterrupt):
        client.create(task="e0df059f", screen=SCREEN)
    assert local_host.model.counts()["live_desktops"] == 1
    client.close()
    assert local_host.model.counts() == NOTHING
    client.close()


ROLLOUT = textwrap.dedent(
    """
    import sys
    from drums_gym.client import connect
    from drums_gym.envs import DrumsDesktopEnv

    url, ttl = sys.argv[1], float(sys.argv[2])
    client = connect(url=url)
    parent = DrumsDesktopEnv("e0df059f", client=client, ttl=ttl, max_steps=10**6,
                             screen=(640, 480))
    parent.reset()
    vec = parent.fork_vector(3, autoreset_mode="DISABLED", keep_state=True, ttl=ttl)
    vec.reset()
    vec.step(["pyautogui.moveTo(5, 5)"] * 3)
    print("mid-run", flush=True)
    while True:
        vec.step(["pyautogui.moveTo(6, 6)"] * 3)
    """
)


def test_hard_kill_leaves_only_what_leases_bound(make_host, tmp_path):
    ttl = 3.0  # long enough that the leases outlive the kill, short enough to wait out
    server = make_host(HostConfig(gate_delay_s=0.05, state_idle_ttl_s=ttl))
    script = tmp_path / "rollout.py"
    script.write_text(ROLLOUT)
    proc = subprocess.Popen(
        [sys.executable, str(script), server.url, str(ttl)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env={**os.environ, "PYTHONUNBUFFERED": "1"},
    )
    try:
        deadline = time.monotonic() + 60
        line = b""
        while b"mid-run" not in line:
            remaining = deadline - time.monotonic()
            assert remaining > 0 and proc.poll() is None, proc.stderr.read().decode()
            ready, _, _ = select.select([proc.stdout], [], [], remaining)
            if ready:
                line = proc.stdout.readline()
        proc.send_signal(signal.SIGKILL)
        proc.wait(timeout=30)
        killed_at = time.time()
        left = server.model.counts()
        assert left["live_desktops"] >= 1 and left["saved_states"] == 1, left
        for ws in server.model._workspaces.values():
            for slot in ws.slots.values():
                assert slot.expires_at <= killed_at + ttl, "every desktop left has a lease"
            for state in ws.states.values():
                assert state.expires_at <= killed_at + ttl, "every saved state left has a lease"
        wait_until(lambda: server.model.counts() == NOTHING, ttl + 10,
                   "the host to reclaim what the killed process left")
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait(timeout=30)
        proc.stdout.close()
        proc.stderr.close()
