"""The seams a new user hits (issue 10): one step limit, verify waits for gates, control
words reach the host, errors that say what happened, arguments checked where they enter,
closing that is bounded and quiet, cleanup before the embedded host stops.

Everything runs against real local hosts over loopback HTTP and real Gymnasium; a hung host
is a real socket that accepts and never answers, a dead one a closed port.
"""

from __future__ import annotations

import ast
import json
import logging
import math
import os
import socket
import subprocess
import sys
import textwrap
from collections.abc import Iterator
from pathlib import Path

import gymnasium as gym
import httpx
import numpy as np
import pytest
from gymnasium.wrappers import TimeLimit
from switch import Switch

import drums_gym  # noqa: F401  (registers Drums/*)
from drums_gym import client as drums
from drums_gym.envs import DrumsDesktopEnv, VerifyOnTruncation, info_at, member_info
from drums_gym.local.host import HostConfig

ROOT = Path(__file__).resolve().parents[2]
TASK = "e0df059f"
ENV_ID = f"Drums/{TASK}"
#: renames the folder in three steps: select it, F2, type the name and Enter
SOLVE = [
    "pyautogui.click(142, 98)",
    "pyautogui.press('f2')",
    "pyautogui.write('todo_list_Jan_2\\n')",
]


@pytest.fixture
def at_host(local_host, monkeypatch):
    """``DRUMS_URL`` points at a fresh local host (gym.make's envs make their own clients)."""
    monkeypatch.setenv("DRUMS_URL", local_host.url)
    monkeypatch.delenv("DRUMS_TOKEN", raising=False)
    return local_host


def run_solve(env: gym.Env) -> tuple[float, bool, bool, dict]:
    env.reset(seed=0)
    for action in SOLVE:
        _, reward, terminated, truncated, info = env.step(action)
    return float(reward), terminated, truncated, info


# -- 1. one step limit, however it is given -----------------------------------------------------


@pytest.mark.parametrize(
    "make",
    [
        pytest.param(lambda: VerifyOnTruncation(gym.make(ENV_ID, max_episode_steps=3)),
                     id="make-max_episode_steps"),
        pytest.param(lambda: gym.make(ENV_ID, max_steps=3), id="make-max_steps"),
        pytest.param(lambda: VerifyOnTruncation(TimeLimit(DrumsDesktopEnv(TASK), 3)),
                     id="TimeLimit-by-hand"),
        pytest.param(lambda: VerifyOnTruncation(gym.make(ENV_ID, max_steps=20,
                                                         max_episode_steps=3)),
                     id="both-the-first-reached"),
    ],
)
def test_a_solve_in_the_last_step_scores_however_the_limit_is_given(at_host, make):
    env = make()
    try:
        reward, terminated, truncated, info = run_solve(env)
    finally:
        env.close()
    assert truncated and not terminated
    assert info["valid"] and info["score"] == 1.0 and reward == 1.0, "verified at the limit"


def test_the_envs_limit_beyond_the_default(at_host):
    env = gym.make(ENV_ID, max_steps=20)
    try:
        env.reset(seed=0)
        assert env.unwrapped.max_steps == 20, "not cut to the registered default of 15"
        for _ in range(15):
            _, _, terminated, truncated, _ = env.step("pyautogui.moveTo(5, 5)")
            assert not (terminated or truncated)
    finally:
        env.close()


@pytest.mark.parametrize("mode", ["vector_entry_point", "sync"])
def test_make_vec_scores_a_solve_at_its_limit(at_host, mode):
    # sync: each member is gym.make's (a TimeLimit around it): the wrapper scores it
    wrappers = [VerifyOnTruncation] if mode == "sync" else None
    vec = gym.make_vec(ENV_ID, num_envs=2, vectorization_mode=mode, max_episode_steps=3,
                       wrappers=wrappers)
    try:
        vec.reset(seed=0)
        for action in SOLVE:
            _, rewards, terminations, truncations, infos = vec.step([action, action])
    finally:
        vec.close()
    assert truncations.all() and not terminations.any()
    assert rewards.tolist() == [1.0, 1.0]


def test_llm_policy_example_scores_its_one_step_solve():
    env = {**os.environ, "DRUMS_LOCAL_GATE_DELAY": "0.05"}
    env.pop("DRUMS_URL", None)
    out = subprocess.run(
        [sys.executable, str(ROOT / "examples" / "llm_policy.py"), "--steps", "1"],
        env=env, capture_output=True, text=True, timeout=120,
    )
    assert out.returncode == 0, out.stderr[-2000:]
    assert out.stdout.rstrip().endswith("episode ended after 1 steps: score 1.0, valid True")


# -- 2. verify waits for the gates ------------------------------------------------------------


def test_verify_right_after_fork_waits_for_the_gates(make_host):
    server = make_host(HostConfig(gate_delay_s=0.3))
    with drums.connect(server.url) as client, client.create(task=TASK) as parent:
        parent.wait_valid()
        with parent.fork(2, keep_state=False) as group:
            rewards = client.map(lambda k: k.verify(strict=False), group)
            strict = [child.verify() for child in group]
    assert [(r.valid, r.score, r.reason) for r in rewards] == [(True, 0.0, None)] * 2
    assert all(r.valid for r in strict)


def test_verify_of_a_fresh_desktop_waits_strict_or_not(make_host):
    server = make_host(HostConfig(gate_delay_s=0.3))
    with drums.connect(server.url) as client:
        with client.create(task=TASK) as slot:
            assert slot.verify(strict=True).valid, "strict waits too: pending is no conflict"
        with client.create(task=TASK) as slot:
            reward = slot.verify(strict=False)
            assert reward.valid and not reward.pending and reward.score == 0.0


def test_verify_is_bounded_by_its_timeout(make_host):
    server = make_host(HostConfig(gate_delay_s=60))
    with drums.connect(server.url) as client, client.create(task=TASK) as slot:
        with pytest.raises(drums.DrumsTimeout, match="still pending"):
            slot.verify(strict=False, timeout=0.2)
        with pytest.raises(ValueError, match="timeout"):
            slot.verify(timeout=float("nan"))


def test_verify_sends_strict_and_how_long_to_wait(make_host):
    server = make_host()
    sent: list[bytes] = []

    class Spy(httpx.HTTPTransport):
        def handle_request(self, request: httpx.Request) -> httpx.Response:
            if request.url.path.endswith("/verify"):
                sent.append(request.content)
            return super().handle_request(request)

    with drums.connect(server.url, transport=Spy()) as client, client.create(TASK) as slot:
        slot.wait_valid()
        slot.verify(strict=False, timeout=12)
    body = json.loads(sent[0])
    assert body["strict"] is False and body["timeout_s"] == pytest.approx(12, abs=0.5)


# -- 3. control words reach the host --------------------------------------------------------------


def test_control_words_are_sent_to_the_host_as_actions(local_host, monkeypatch):
    monkeypatch.setenv("DRUMS_URL", local_host.url)
    sent: list[str] = []
    real_step = drums.Slot.step

    def spy(self, code):
        sent.append(code)
        return real_step(self, code)

    monkeypatch.setattr(drums.Slot, "step", spy)
    env = DrumsDesktopEnv(TASK, wait_s=0)
    try:
        env.reset(seed=0)
        _, _, terminated, _, info = env.step("WAIT")
        assert not terminated and "action_error" not in info
        _, reward, terminated, _, info = env.step("DONE")
        assert terminated and info["valid"] and "action_error" not in info
    finally:
        env.close()
    assert sent == ["WAIT", "DONE"]


def test_a_solve_followed_by_fail_scores_zero(at_host):
    env = DrumsDesktopEnv(TASK)
    try:
        env.reset(seed=0)
        for action in SOLVE:
            env.step(action)
        _, reward, terminated, _, info = env.step("FAIL")
    finally:
        env.close()
    assert terminated and info["valid"]
    assert reward == 0.0, "OSWorld: a last action of FAIL scores 0 on a feasible task"


def test_a_solve_followed_by_done_scores_one(at_host):
    env = DrumsDesktopEnv(TASK)
    try:
        env.reset(seed=0)
        for action in SOLVE:
            env.step(action)
        _, reward, terminated, _, info = env.step("DONE")
    finally:
        env.close()
    assert terminated and info["valid"] and reward == 1.0


# -- 8. arguments checked where they enter -------------------------------------------------------


@pytest.mark.parametrize(
    ("kwargs", "name"),
    [
        ({"wait_s": math.nan}, "wait_s"),
        ({"wait_s": math.inf}, "wait_s"),
        ({"wait_s": -1}, "wait_s"),
        ({"screen": (10**6, 10**6)}, "screen"),
        ({"screen": (0, 480)}, "screen"),
        ({"task": "\ud800"}, "task"),
    ],
)
def test_bad_arguments_raise_value_error_naming_them(at_host, kwargs, name):
    with pytest.raises(ValueError, match=name):
        DrumsDesktopEnv(**kwargs)


def test_client_refuses_task_ids_that_are_not_text(local_host):
    with drums.connect(local_host.url) as client:
        for call in (client.task, client.create):
            with pytest.raises(ValueError, match="task"):
                call("\ud800")


# -- 11. one member's info out of vector infos ----------------------------------------------------


def test_member_info_is_public_and_reads_the_mask():
    infos = {"valid": np.array([True, False]), "_valid": np.array([True, True]),
             "score": np.array([1.0, 0.0]), "_score": np.array([True, False])}
    assert member_info(infos, 0) == {"valid": True, "score": 1.0}
    assert member_info(infos, 1) == {"valid": False}
    assert info_at(infos, "score", 1, "none") == "none"
    import drums_gym.envs as envs

    assert {"info_at", "member_info"} <= set(envs.__all__)
    assert member_info.__doc__ and info_at.__doc__


# -- 5. errors name what happened ---------------------------------------------------------------


def closed_port() -> int:
    """A loopback port nothing listens on."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def test_a_wrong_token_raises_unauthorized_saying_to_check_drums_token(make_host):
    server = make_host(tokens=["tok-right-123456"])
    with pytest.raises(drums.Unauthorized) as info:
        DrumsDesktopEnv(TASK, url=server.url, token="tok-wrong-000000")
    message = str(info.value)
    assert "DRUMS_TOKEN" in message and server.url in message
    assert "tok-wrong" not in message and "not known" not in message
    with pytest.raises(drums.Unauthorized, match=r"no token was sent.*DRUMS_TOKEN"):
        DrumsDesktopEnv(TASK, url=server.url)


def test_a_closed_port_raises_connect_error_naming_the_url():
    url = f"http://127.0.0.1:{closed_port()}"
    client = drums.connect(url, max_retries=0)
    with pytest.raises(drums.ConnectError) as info:
        DrumsDesktopEnv(TASK, client=client)
    client.close()
    message = str(info.value)
    assert url in message and "DRUMS_URL" in message and "not known" not in message


def test_an_unknown_task_says_what_the_host_serves(at_host):
    with pytest.raises(ValueError, match="not known") as info:
        DrumsDesktopEnv("deadbeef")
    message = str(info.value)
    assert at_host.url in message and "drums-gym tasks" in message
    first = min(t.short_id for t in at_host.model.catalog.values())
    assert first in message, "the host's tasks are listed (the first 20, then a count)"
    assert isinstance(info.value.__cause__, drums.NotFound)


# -- 7. close is bounded and quiet ----------------------------------------------------------------


@pytest.fixture
def switch(local_host) -> Iterator[Switch]:
    proxy = Switch(int(local_host.url.rsplit(":", 1)[1]))
    yield proxy
    proxy.close()
    with drums.connect(local_host.url) as client:  # what the hung host kept: its lease's
        for slot in client.slots():
            slot.delete()
        for state in client.states():
            client.delete_state(state)


def close_records(caplog) -> list[logging.LogRecord]:
    return [r for r in caplog.records if r.levelno >= logging.WARNING]


def test_closing_a_fork_vector_env_on_a_hung_host_is_bounded_and_quiet(switch, caplog):
    client = drums.connect(switch.url, close_timeout=1.0)
    parent = DrumsDesktopEnv(TASK, client=client)
    parent.reset(seed=0)
    vec = parent.fork_vector(4)
    vec.reset(seed=0)
    switch.hang()
    with caplog.at_level(logging.WARNING):
        vec.close()  # does not raise, does not retry into minutes
        assert switch.deletes == 4, "one DELETE per child, no retries on a read timeout"
        assert len(close_records(caplog)) == 1, "one warning for the whole close"
        assert "leases" in caplog.text and "4 desktops" in caplog.text
        caplog.clear()
        parent.close()
        assert len(close_records(caplog)) == 1
        caplog.clear()
        client.close()
        assert len(close_records(caplog)) == 1 and "cleanup failed" in caplog.text


def test_closing_make_vec_on_a_hung_host_is_bounded_by_the_default_budget(switch, monkeypatch,
                                                                          caplog):
    monkeypatch.setenv("DRUMS_URL", switch.url)
    vec = gym.make_vec(ENV_ID, num_envs=4)
    vec.reset(seed=0)
    switch.hang()
    with caplog.at_level(logging.WARNING):
        vec.close()
    assert switch.deletes <= 4 + 1 + 1, "each desktop and state is tried at most once"
    assert len(close_records(caplog)) == 1 and "leases bound" in caplog.text


@pytest.mark.parametrize("owns_client", [True, False])
def test_closing_on_a_dead_host_warns_once_and_never_raises(switch, caplog, owns_client):
    client = None if owns_client else drums.connect(switch.url, close_timeout=1.0)
    env = (DrumsDesktopEnv(TASK, url=switch.url) if owns_client
           else DrumsDesktopEnv(TASK, client=client))
    env.reset(seed=0)
    vec = env.fork_vector(2)
    vec.reset(seed=0)
    switch.kill()
    with caplog.at_level(logging.WARNING):
        vec.close()
        env.close()  # raised ConnectError before
        env.close()  # idempotent, and quiet
    records = close_records(caplog)
    assert len(records) == 2, [r.getMessage() for r in records]  # one per close
    assert all("leases" in r.getMessage() for r in records)
    if client is not None:
        client.close()


# -- 6. at exit, clients clean up before the embedded host stops -----------------------------------

EXIT_SCRIPT = textwrap.dedent("""
    import atexit, json, weakref

    seen = {}

    def report():  # registered first: runs last, after every other atexit hook
        import httpx  # the embedded host (a child process) still serves: ask it
        usage = httpx.get(seen["host"].url + "/v1/host").json()["usage"]
        print("LEFT " + json.dumps({"live_desktops": usage["host_desktops"],
                                    "saved_states": usage["saved_states"]}), flush=True)

    atexit.register(report)

    class Library:  # torch and transformers make a weakref.finalize at import
        pass

    library = Library()
    weakref.finalize(library, lambda: None)

    from drums_gym.envs import DrumsDesktopEnv
    from drums_gym.local.embedded import embedded_host

    env = DrumsDesktopEnv("e0df059f")
    env.reset(seed=0)
    group = env.fork_vector(2)
    group.reset(seed=0)
    seen["host"] = embedded_host()
    print("READY", flush=True)
    # exit without closing anything
""")


def test_clients_clean_up_before_the_embedded_host_stops_at_exit():
    env = {**os.environ, "DRUMS_LOCAL_GATE_DELAY": "0.05"}
    env.pop("DRUMS_URL", None)
    env.pop("DRUMS_TOKEN", None)
    out = subprocess.run([sys.executable, "-c", EXIT_SCRIPT], env=env, capture_output=True,
                         text=True, timeout=120)
    assert out.returncode == 0, out.stderr[-3000:]
    assert "READY" in out.stdout
    assert 'LEFT {"live_desktops": 0, "saved_states": 0}' in out.stdout, out.stdout
    assert "cleanup failed" not in out.stderr and "cannot connect" not in out.stderr


def test_member_info_docstring_examples_run():
    import doctest

    import drums_gym.envs.vector_info as module

    result = doctest.testmod(module)
    assert result.attempted >= 3 and result.failed == 0


# -- 13. no test asserts how fast the machine is ----------------------------------------------

CLOCKS = {"perf_counter", "monotonic", "time", "process_time", "perf_counter_ns",
          "monotonic_ns", "time_ns"}


def _is_clock(node: ast.AST) -> bool:
    return (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
            and isinstance(node.func.value, ast.Name) and node.func.value.id == "time"
            and node.func.attr in CLOCKS)


def _mentions(node: ast.AST, names: set[str]) -> bool:
    return any(_is_clock(n) or (isinstance(n, ast.Name) and n.id in names)
               for n in ast.walk(node))


def _is_duration(node: ast.AST, readings: set[str], durations: set[str]) -> bool:
    """An expression that is (or is made of) the time between two clock readings."""
    for n in ast.walk(node):
        if isinstance(n, ast.Name) and n.id in durations:
            return True
        if (isinstance(n, ast.BinOp) and isinstance(n.op, ast.Sub)
                and not isinstance(n.right, ast.Constant)
                and (_mentions(n.left, readings) or _mentions(n.right, readings))):
            return True
    return False


def wall_clock_assertions(source: str) -> list[int]:
    """Lines of ``assert``s that compare a measured duration with a threshold (a comparison
    with 0, such as ``remaining > 0`` in a wait loop, is a deadline check, not a speed)."""
    found = []
    for func in ast.walk(ast.parse(source)):
        if not isinstance(func, (ast.FunctionDef, ast.AsyncFunctionDef)):
            continue
        readings: set[str] = set()
        durations: set[str] = set()
        for _ in range(4):  # names made from names: to a fixpoint
            for node in ast.walk(func):
                if isinstance(node, (ast.Assign, ast.AnnAssign, ast.AugAssign)) and node.value:
                    targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                    names = {t.id for t in targets if isinstance(t, ast.Name)}
                    if _is_duration(node.value, readings, durations):
                        durations |= names
                    elif _mentions(node.value, readings):
                        readings |= names
                elif (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
                      and node.func.attr == "append" and isinstance(node.func.value, ast.Name)
                      and node.args):
                    if _is_duration(node.args[0], readings, durations):
                        durations.add(node.func.value.id)
                    elif _mentions(node.args[0], readings):
                        readings.add(node.func.value.id)
        for node in ast.walk(func):
            if not isinstance(node, ast.Assert):
                continue
            for cmp in (n for n in ast.walk(node.test) if isinstance(n, ast.Compare)):
                operands = [cmp.left, *cmp.comparators]
                timed = [o for o in operands if _is_duration(o, readings, durations)]
                others = [o for o in operands if o not in timed]
                zero = all(isinstance(o, ast.Constant) and o.value == 0 for o in others)
                if timed and others and not zero:
                    found.append(node.lineno)
    return found


def test_no_test_asserts_a_wall_clock_threshold():
    found = {
        str(path.relative_to(ROOT)): lines
        for path in sorted((ROOT / "tests").rglob("*.py"))
        if (lines := wall_clock_assertions(path.read_text()))
    }
    assert not found, f"wall-clock thresholds belong in benchmarks/timing.py: {found}"


def test_the_wall_clock_scan_finds_planted_thresholds():
    planted = textwrap.dedent("""
        def test_keystroke_is_fast():
            times = []
            for ch in "abc":
                start = time.perf_counter()
                apply(ch)
                times.append(time.perf_counter() - start)
            assert statistics.median(times) < 0.010

        def test_latency():
            start = time.perf_counter()
            get()
            assert time.perf_counter() - start >= 0.15

        def test_lease():
            assert info.expires_at - time.time() == pytest.approx(600, abs=5)

        def test_bracketed_lease_and_deadline_loop_are_fine():
            before = time.time()
            info = extend(600)
            assert before + 600 - 1 <= info.expires_at
            deadline = time.monotonic() + 60
            remaining = deadline - time.monotonic()
            assert remaining > 0
    """)
    assert wall_clock_assertions(planted) == [8, 13, 16]
