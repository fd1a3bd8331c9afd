"""drums-gym timing checks: the wall-clock figures tests must not assert.

Tests assert behaviour (a wait raises DrumsTimeout, a close never raises, each desktop is
tried once); how *soon* depends on the machine, so the figures live here, each printed
with its target and whether this machine met it:

- a keystroke in the simulated terminal (apply + render), median;
- bounded waits: ``wait_valid`` and ``verify`` past their timeout, a hung host's request,
  an env reset whose gates never resolve;
- retries: the host's ``retry_after_ms`` honoured, a wait beyond the budget not slept, the
  total retry sleep within its budget, 429 bursts waited out over a whole rollout;
- injected latency (``latency_ms``) and capacity waits really delay;
- closing: a client whose host is gone, a 4-child fork vector env on a hung host (the
  client's ``close_timeout``) and on a dead one.

Run: ``python benchmarks/timing.py`` (exit status 1 when a target is missed).
"""

from __future__ import annotations

import logging
import socket
import statistics
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path

import httpx

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))  # the tests' drivers: terminal_driver, switch

from switch import Switch  # noqa: E402
from terminal_driver import Term  # noqa: E402

import drums_gym  # noqa: E402,F401  (registers Drums/*)
from drums_gym import client as drums  # noqa: E402
from drums_gym.actions.events import KeyDown, KeyUp  # noqa: E402
from drums_gym.envs import DrumsDesktopEnv  # noqa: E402
from drums_gym.local.host import HostConfig  # noqa: E402
from drums_gym.local.server import LocalHost  # noqa: E402

TASK = "e0df059f"
SCREEN = (640, 480)
MISSED: list[str] = []


def check(name: str, value: float, unit: str, ok: bool, target: str) -> None:
    flag = "ok" if ok else "MISSED"
    if not ok:
        MISSED.append(name)
    print(f"  {name:<58} {value:>9.3f} {unit:<3} target {target:<12} {flag}", flush=True)


def timed(fn: Callable[[], object]) -> float:
    start = time.perf_counter()
    fn()
    return time.perf_counter() - start


def raises(exc: type[BaseException], fn: Callable[[], object]) -> Callable[[], None]:
    def run() -> None:
        try:
            fn()
        except exc:
            return
        raise AssertionError(f"{fn} did not raise {exc.__name__}")

    return run


def host(config: HostConfig | None = None, **kwargs: object) -> LocalHost:
    return LocalHost(config or HostConfig(gate_delay_s=0.05), **kwargs).start()


# -- the terminal ----------------------------------------------------------------------------


def bench_keystroke() -> None:
    t = Term(maximize=False)
    for k in range(20):
        t.write(f"echo line {k}; ls -la\n")
    d = t.d
    d.render()
    times = []
    for ch in "echo the quick brown fox jumps over the lazy dog":
        times.append(timed(lambda ch=ch: (d.apply([KeyDown(ch), KeyUp(ch)]), d.render())))
    median = statistics.median(times)
    check("terminal keystroke (apply + render), median", median * 1000, "ms", median < 0.010,
          "< 10 ms")


# -- bounded waits ---------------------------------------------------------------------------


def bench_waits() -> None:
    server = host(HostConfig(gate_delay_s=60))
    try:
        with drums.connect(server.url) as client, client.create(TASK, screen=SCREEN) as slot:
            s = timed(raises(drums.DrumsTimeout, lambda: slot.wait_valid(timeout=0.3)))
            check("wait_valid(timeout=0.3) on pending gates", s, "s", s < 2.0, "< 2 s")
            s = timed(raises(drums.DrumsTimeout,
                             lambda: slot.verify(strict=False, timeout=0.3)))
            check("verify(timeout=0.3) on pending gates", s, "s", s < 2.0, "< 2 s")
        with drums.connect(server.url) as client:
            env = DrumsDesktopEnv(TASK, client=client, wait_timeout=0.3, screen=SCREEN)
            try:
                s = timed(env.reset)
            finally:
                env.close()
            check("env.reset(wait_timeout=0.3) on pending gates", s, "s", s < 2.0, "< 2 s")
    finally:
        server.stop()
    listener = socket.create_server(("127.0.0.1", 0))  # accepts, never answers
    try:
        url = f"http://127.0.0.1:{listener.getsockname()[1]}"
        with drums.connect(url, timeout=0.3, max_retries=1) as client:
            s = timed(raises(drums.DrumsTimeout, client.tasks))
        check("a request to a hung host (timeout=0.3, 1 retry)", s, "s", s < 3.0, "< 3 s")
    finally:
        listener.close()


# -- retries ---------------------------------------------------------------------------------


def _overloaded(times: int, retry_after_ms: int, header: str) -> httpx.MockTransport:
    calls: list[float] = []

    def handler(request: httpx.Request) -> httpx.Response:
        calls.append(time.monotonic())
        if len(calls) <= times:
            body = {"error": {"code": "overloaded", "message": "busy",
                              "details": {"retry_after_ms": retry_after_ms}}}
            return httpx.Response(429, json=body, headers={"Retry-After": header})
        return httpx.Response(200, json={"tasks": []})

    return httpx.MockTransport(handler)


def bench_retries() -> None:
    with drums.connect("http://drums.test", transport=_overloaded(3, 60, "1")) as client:
        s = timed(client.tasks)
    check("three 429s with retry_after_ms=60 (Retry-After 1 s)", s, "s", 0.18 <= s < 0.6,
          "0.18-0.6 s")
    with drums.connect("http://drums.test",
                       transport=_overloaded(100, 3_600_000, "3600")) as client:
        s = timed(raises(drums.Overloaded, client.tasks))
    check("a 429 asking for an hour (beyond the budget)", s, "s", s < 0.5, "< 0.5 s")
    with drums.connect("http://drums.test", transport=_overloaded(100, 100, "1"),
                       max_retries=100, retry_budget=0.35) as client:
        s = timed(raises(drums.Overloaded, client.tasks))
    check("endless 429s, retry_budget=0.35", s, "s", 0.2 <= s < 0.6, "0.2-0.6 s")

    server = host(faults="overload=0.6,retry_after_ms=5", seed=1)
    try:
        def rollout() -> None:
            with drums.connect(server.url, max_retries=25) as client:
                env = DrumsDesktopEnv(TASK, client=client, max_steps=4, screen=SCREEN)
                try:
                    env.reset(seed=0)
                    for _ in range(3):
                        env.step("pyautogui.moveTo(7, 7)")
                    env.step("DONE")
                finally:
                    env.close()

        s = timed(rollout)
        check("a rollout through 60% 429 bursts", s, "s", s < 10.0, "< 10 s")
    finally:
        server.stop()


# -- injected delays really delay --------------------------------------------------------------


def bench_delays() -> None:
    server = host(faults="latency_ms=150")
    try:
        with httpx.Client(base_url=server.url) as http:
            http.get("/v1/host")
            s = timed(lambda: http.get("/v1/host"))
        check("a request with latency_ms=150 injected", s, "s", s >= 0.15, ">= 0.15 s")
    finally:
        server.stop()
    server = host(HostConfig(gate_delay_s=0.05, host_desktops=2, capacity_retry_after_s=0.2))
    try:
        with drums.connect(server.url, token="alice") as alice, \
                drums.connect(server.url, token="bob") as bob:
            first = alice.create(TASK)
            bob.create(TASK)
            threading.Timer(0.3, first.delete).start()
            s = timed(lambda: alice.create(TASK))
        check("a create waiting out a full host (retry_after 0.2 s)", s, "s", s >= 0.2,
              ">= 0.2 s")
    finally:
        server.stop()


# -- closing -----------------------------------------------------------------------------------


def bench_close() -> None:
    logging.getLogger("drums_gym").setLevel(logging.ERROR)  # the one warning each is expected
    server = host()
    client = drums.connect(server.url)
    client.create(TASK, screen=SCREEN)
    server.stop()
    s = timed(client.close)
    check("client.close() after the host stopped", s, "s", s < 5.0, "< 5 s")

    for mode in ("hang", "kill"):
        server = host()
        proxy = Switch(int(server.url.rsplit(":", 1)[1]))
        try:
            env = DrumsDesktopEnv(TASK, url=proxy.url)
            env.reset(seed=0)
            vec = env.fork_vector(4)
            vec.reset(seed=0)
            getattr(proxy, mode)()
            s = timed(lambda vec=vec, env=env: (vec.close(), env.close()))
            budget = drums.connect.__kwdefaults__["close_timeout"]
            host_state = "hung" if mode == "hang" else "dead"
            check(f"close a 4-child fork vector env and its parent, {host_state} host", s, "s",
                  s < 2 * budget + 1, f"< {2 * budget + 1:g} s")
        finally:
            proxy.close()
            server.stop()


def main() -> int:
    for bench in (bench_keystroke, bench_waits, bench_retries, bench_delays, bench_close):
        print(bench.__name__.removeprefix("bench_"), flush=True)
        bench()
    if MISSED:
        print(f"missed: {', '.join(MISSED)}")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
