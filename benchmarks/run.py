"""drums-gym benchmarks: figures and ratios side by side, in one run.

Every benchmark talks to a local host started in its own process with ``drums-gym serve``
(so host and client do not share a GIL), and prints each figure as the median over
repeated runs, with the ratio a target is stated in:

1. concurrency: one vector step with 100 ms injected per request, as a ratio to one env's
   step (interleaved, so both see the same machine load), for ``fork_vector(n)`` with
   n = 1, 8, 16, 32, 64 (several branch calls past the fork limit of 8) beside Gymnasium's
   ``AsyncVectorEnv`` of n ``DrumsDesktopEnv`` where its workers fit in memory; client and
   host CPU per child step;
2. observation cost: client CPU per frame against the floor (Pillow decoding the same bytes
   in a tight loop), and bytes and decode time per screenshot format;
3. local host throughput: ``env.step``/s at 1920x1080 for one desktop and for 8 forks, and
   the latency of ``branch(n=8)`` until every child is valid (gate delay 0);
4. memory: client resident memory growth over many steps of ``fork_vector(8)``, and the
   host's live desktops and saved states after.

Run: ``python benchmarks/run.py`` (``--quick`` for a smoke run; ``--only NAME`` for one;
``--screen 640x480`` for the concurrency curve on smaller screens, where the host's
per-pixel work weighs less).
"""

from __future__ import annotations

import argparse
import gc
import io
import os
import statistics
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass

import gymnasium as gym
import numpy as np
from PIL import Image

import drums_gym  # noqa: F401  (registers Drums/*)
from drums_gym.client import Observation, connect
from drums_gym.envs import DrumsDesktopEnv

TASK = "e0df059f"
N = 8


@dataclass
class Row:
    group: str
    name: str
    value: float
    unit: str
    note: str = ""
    target: str = ""
    ok: bool | None = None


ROWS: list[Row] = []


def record(group: str, name: str, value: float, unit: str, note: str = "", target: str = "",
           ok: bool | None = None) -> None:
    row = Row(group, name, value, unit, note, target, ok)
    ROWS.append(row)
    flag = "" if ok is None else ("  ok" if ok else "  MISSED")
    print(f"  {name:<46} {value:>10.3f} {unit:<8} {note:<28} {target}{flag}", flush=True)


@contextmanager
def serve(*args: str) -> Iterator[str]:
    """A ``drums-gym serve`` process on a free port; yields its URL."""
    cmd = [sys.executable, "-m", "drums_gym.cli", "serve", "--port", "0", "--host-desktops",
           "64", "--live-desktops", "48", "--saved-states", "64", *args]
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        line = proc.stdout.readline() if proc.stdout else ""
        if "serving at " not in line:
            raise RuntimeError(f"drums-gym serve did not start: {line}{proc.stderr.read()}")
        yield line.split("serving at ")[1].split()[0]
    finally:
        proc.terminate()
        proc.wait(timeout=30)


def median_time(fn: Callable[[], object], repeats: int) -> float:
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def moves(k: int) -> list[str]:
    """Distinct pointer moves (so every step changes the screen)."""
    return [f"pyautogui.moveTo({200 + 37 * ((k + i) % 40)}, {300 + 11 * i})" for i in range(N)]


# ---------------------------------------------------------------------------- 1. concurrency
CURVE = (1, 8, 16, 32, 64)


def child_pids() -> list[int]:
    """This process's children (the ``drums-gym serve`` host, AsyncVectorEnv workers)."""
    pids: list[int] = []
    for task in os.listdir(f"/proc/{os.getpid()}/task"):
        try:
            with open(f"/proc/{os.getpid()}/task/{task}/children") as f:
                pids += [int(p) for p in f.read().split()]
        except OSError:
            continue
    return pids


def cpu_seconds(pids: list[int]) -> float:
    """User plus system CPU seconds of ``pids`` so far (0 for one that is gone)."""
    total = 0.0
    for pid in pids:
        try:
            with open(f"/proc/{pid}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
        except OSError:
            continue
        total += (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    return total


def pss_of(pids: list[int]) -> float:
    """Proportional resident MB of ``pids`` together (shared pages split between sharers)."""
    total = 0.0
    for pid in pids:
        try:
            with open(f"/proc/{pid}/smaps_rollup") as f:
                total += next(int(line.split()[1]) for line in f if line.startswith("Pss:"))
        except (OSError, StopIteration):
            continue
    return total / 1024


def mem_available_mb() -> float:
    with open("/proc/meminfo") as f:
        return next(int(line.split()[1]) for line in f if line.startswith("MemAvailable:")) / 1024


def load() -> str:
    one, five, _ = os.getloadavg()
    return f"load {one:.1f}/{five:.1f} on {os.cpu_count()} cores"


def curve_moves(k: int, n: int) -> list[str]:
    return [f"pyautogui.moveTo({200 + 37 * ((k + i) % 40)}, {300 + 11 * (i % 60)})"
            for i in range(n)]


@dataclass
class Timed:
    """Interleaved samples: one env's step and the vector step, under the same load."""

    single: list[float]
    vector: list[float]
    client_cpu: float  # client CPU seconds per child step (main process and its workers)
    host_cpu: float  # host CPU seconds per child step

    @property
    def ratio(self) -> float:
        return statistics.median(self.vector) / statistics.median(self.single)


def interleaved(single_step: Callable[[], object], vector_step: Callable[[], object], n: int,
                repeats: int, host: list[int], workers: list[int]) -> Timed:
    single: list[float] = []
    vector: list[float] = []
    client_cpu = 0.0
    host_cpu = 0.0
    for _ in range(repeats):
        start = time.perf_counter()
        single_step()
        single.append(time.perf_counter() - start)
        cpu, hcpu = time.process_time() + cpu_seconds(workers), cpu_seconds(host)
        start = time.perf_counter()
        vector_step()
        vector.append(time.perf_counter() - start)
        client_cpu += time.process_time() + cpu_seconds(workers) - cpu
        host_cpu += cpu_seconds(host) - hcpu
    return Timed(single, vector, client_cpu / (repeats * n), host_cpu / (repeats * n))


def bench_concurrency(repeats: int, quick: bool, screen: tuple[int, int] | None = None) -> None:
    sizes = CURVE[:3] if quick else CURVE
    size = f"{screen[0]}x{screen[1]}" if screen else "the task's 1920x1080"
    print(f"\n1. concurrency: one vector step against one env's step, latency_ms=100 per "
          f"request, fork limit {N}, screen {size} ({load()})", flush=True)
    most = max(sizes)
    with serve("--faults", "latency_ms=100", "--gate-delay", "0", "--live-desktops",
               str(2 * most + 2), "--host-desktops", str(2 * most + 2), "--fork-limit",
               str(N)) as url:
        host = child_pids()
        shape = {"screen": screen} if screen else {}
        env = DrumsDesktopEnv(TASK, url=url, max_steps=10**7, **shape)
        env.reset()
        k = iter(range(10**7))
        for _ in range(3):
            env.step(curve_moves(next(k), 1)[0])

        def one() -> None:
            env.step(curve_moves(next(k), 1)[0])

        fork_ratio: dict[int, float] = {}
        per_worker_mb = 0.0
        for n in sizes:
            vec = env.fork_vector(n, autoreset_mode="DISABLED")
            vec.reset()
            vec.step(curve_moves(0, n))
            t = interleaved(one, lambda v=vec, n=n: v.step(curve_moves(next(k), n)), n,
                            repeats, host, [])
            vec.close()
            fork_ratio[n] = t.ratio
            target, ok = {8: ("<= 1.15x one env", t.ratio <= 1.15),
                          32: ("<= 1.5x one env", t.ratio <= 1.5)}.get(n, ("", None))
            record("concurrency", f"fork_vector({n}) step", statistics.median(t.vector) * 1000,
                   "ms", f"{t.ratio:.2f}x one env ({statistics.median(t.single) * 1000:.0f})",
                   target, ok)
            record("concurrency", f"  fork_vector({n}): client / host CPU per child step",
                   t.client_cpu * 1000, "ms", f"host {t.host_cpu * 1000:.2f} ms")
            if n == 1:
                continue
            # Gymnasium's workers are processes: n of them must fit in half the free memory
            fits = per_worker_mb == 0.0 or n * per_worker_mb <= mem_available_mb() / 2
            if not fits or (quick and n > N):
                why = "--quick" if fits else (
                    f"{n} workers x {per_worker_mb:.0f} MB > half the "
                    f"{mem_available_mb():.0f} MB available")
                print(f"  AsyncVectorEnv({n}) skipped: {why}", flush=True)
                continue
            avec = gym.make_vec(f"Drums/{TASK}", num_envs=n, vectorization_mode="async",
                                url=url, max_steps=10**7, **shape)
            avec.reset()
            avec.step(curve_moves(0, n))
            workers = [p.pid for p in getattr(avec, "processes", []) if p.pid is not None]
            per_worker_mb = max(per_worker_mb, pss_of(workers) / max(1, len(workers)))
            a = interleaved(one, lambda v=avec, n=n: v.step(curve_moves(next(k), n)), n,
                            repeats, host, workers)
            avec.close()
            vs = fork_ratio[n] / a.ratio
            target, ok = ("<= 0.85x", vs <= 0.85) if n == N else ("", None)
            record("concurrency", f"AsyncVectorEnv({n}) step", statistics.median(a.vector) * 1000,
                   "ms", f"{a.ratio:.2f}x one env; {per_worker_mb:.0f} MB/worker")
            record("concurrency", f"  fork_vector({n}) vs AsyncVectorEnv({n})", vs, "ratio",
                   f"client CPU {a.client_cpu * 1000:.2f} ms/child", target, ok)
        env.close()
    print(f"  ({load()} after)", flush=True)


# ---------------------------------------------------------------------------- 2. observation
def _floor_decode(data: bytes) -> np.ndarray:
    with Image.open(io.BytesIO(data)) as image:
        return np.asarray(image)


def bench_observation(frames: int) -> None:
    print("\n2. observation cost: client CPU per frame against the decode floor", flush=True)
    with serve("--gate-delay", "0") as url, connect(url=url) as client:
        slot = client.create(task=TASK)
        slot.wait_valid()
        cpu: dict[str, list[float]] = {"png": [], "raw": []}
        floor: list[float] = []
        sizes: dict[str, list[int]] = {"png": [], "raw": []}
        for i in range(frames):  # interleaved, so every figure sees the same machine load
            slot.step(moves(i)[0])  # the screen changes before every frame, as in a rollout
            for fmt in ("png", "raw"):
                start = time.process_time()
                obs = slot.observe(format=fmt)
                fetch = time.process_time() - start
                sizes[fmt].append(len(obs.data))

                def client_decode(obs: Observation = obs) -> None:
                    assert obs.array.shape == (1080, 1920, 3)

                def floor_decode(obs: Observation = obs) -> None:
                    _floor_decode(obs.data)

                # alternate which decode runs first: neither gets the warmer allocator
                runs = [client_decode] if fmt == "raw" else [client_decode, floor_decode]
                for fn in runs if i % 2 else runs[::-1]:
                    start = time.process_time()
                    fn()
                    spent = time.process_time() - start
                    if fn is floor_decode:
                        floor.append(spent)
                    else:
                        cpu[fmt].append(fetch + spent)
        slot.delete()
    png, raw, base = (statistics.median(v) for v in (cpu["png"], cpu["raw"], floor))
    record("observation", "png: client CPU per frame", png * 1000, "ms",
           f"{png / base:.2f}x floor", "<= 1.15x floor", png / base <= 1.15)
    record("observation", "png: floor (Pillow decode to array)", base * 1000, "ms")
    record("observation", "raw (delta): client CPU per frame", raw * 1000, "ms",
           f"{raw / base:.2f}x png floor")
    record("observation", "png: bytes per frame", statistics.median(sizes["png"]) / 1e6, "MB")
    record("observation", "raw (delta): bytes per frame", statistics.median(sizes["raw"]) / 1e6,
           "MB", f"full frame {1920 * 1080 * 3 / 1e6:.1f} MB")


# ---------------------------------------------------------------------------- 3. throughput
def bench_throughput(steps: int, repeats: int) -> None:
    print("\n3. local host throughput at 1920x1080, no injected latency", flush=True)
    with serve("--gate-delay", "0") as url:
        for fmt in ("png", "auto"):
            env = DrumsDesktopEnv(TASK, url=url, max_steps=10**6, screenshot_format=fmt)
            env.reset()
            rates = []
            for r in range(repeats):
                actions = [moves(r * steps + i)[0] for i in range(steps)]
                start = time.perf_counter()
                for action in actions:
                    env.step(action)
                rates.append(steps / (time.perf_counter() - start))
            rate = statistics.median(rates)
            ok = rate >= 30 if fmt == "auto" else None
            record("throughput", f"1 desktop, format={fmt}: env.step", rate, "steps/s",
                   f"({env.unwrapped._format if hasattr(env, 'unwrapped') else fmt})",
                   ">= 30 steps/s" if fmt == "auto" else "", ok)
            vec = env.fork_vector(N, autoreset_mode="DISABLED")
            vec.reset()
            vec_rates = []
            for r in range(repeats):
                start = time.perf_counter()
                for i in range(max(1, steps // 4)):
                    vec.step(moves(r + i))
                vec_rates.append(N * max(1, steps // 4) / (time.perf_counter() - start))
            record("throughput", f"{N} forks, format={fmt}: child steps", statistics.median(
                vec_rates), "steps/s")
            vec.close()
            env.close()
        with connect(url=url) as client:
            parent = client.create(task=TASK)
            parent.wait_valid()
            latencies = []
            for _ in range(repeats):
                start = time.perf_counter()
                group = parent.fork(N, keep_state=False)
                client.map(lambda child: child.wait_valid(), group, workers=N)
                latencies.append(time.perf_counter() - start)
                group.close()
            fork = statistics.median(latencies)
            record("throughput", f"branch(n={N}) until all valid", fork * 1000, "ms", "",
                   "<= 200 ms", fork <= 0.2)
            parent.delete()


# ---------------------------------------------------------------------------- 4. memory
def rss_mb() -> float:
    with open("/proc/self/status") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return float("nan")


def bench_memory(steps: int) -> None:
    print(f"\n4. memory over {steps} vector steps of fork_vector({N})", flush=True)
    with serve("--gate-delay", "0") as url, connect(url=url) as client:
        env = DrumsDesktopEnv(TASK, client=client, max_steps=25)
        env.reset()
        vec = env.fork_vector(N)  # NEXT_STEP: children are replaced every 25 steps
        vec.reset()
        for i in range(50):  # warm up allocators and pools
            vec.step(moves(i))
        gc.collect()
        before = rss_mb()
        for i in range(steps):
            vec.step(moves(i))
        gc.collect()
        growth = rss_mb() - before
        usage_during = client.host().usage
        vec.close()
        env.close()
        usage = client.host().usage
        record("memory", "client RSS growth", growth, "MB", f"{steps} vector steps",
               "<= 50 MB", growth <= 50)
        record("memory", "live desktops during / after", usage_during.live_desktops, "",
               f"after: {usage.live_desktops}", "1 + 8 during, 0 after",
               usage_during.live_desktops == N + 1 and usage.live_desktops == 0)
        record("memory", "saved states after", usage.saved_states, "", "", "0",
               usage.saved_states == 0)


def _screen(text: str) -> tuple[int, int]:
    try:
        width, height = (int(v) for v in text.lower().split("x"))
    except ValueError:
        raise argparse.ArgumentTypeError(f"--screen must be WIDTHxHEIGHT, got {text!r}") from None
    return width, height


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="small sizes, a smoke run")
    parser.add_argument("--only", choices=["concurrency", "observation", "throughput", "memory"])
    parser.add_argument("--screen", metavar="WxH", type=_screen,
                        help="screen size of the concurrency curve (default: the task's)")
    args = parser.parse_args()
    repeats = 3 if args.quick else 7
    print(f"drums-gym benchmarks on {os.cpu_count()} cores, Python {sys.version.split()[0]}")
    start = time.perf_counter()
    if args.only in (None, "concurrency"):
        bench_concurrency(repeats, args.quick, args.screen)
    if args.only in (None, "observation"):
        bench_observation(10 if args.quick else 40)
    if args.only in (None, "throughput"):
        bench_throughput(20 if args.quick else 60, repeats)
    if args.only in (None, "memory"):
        bench_memory(100 if args.quick else 625)  # 625 vector steps = 5,000 child steps
    missed = [r for r in ROWS if r.ok is False]
    print(f"\n{len(ROWS)} figures in {time.perf_counter() - start:.0f} s; "
          f"targets met: {sum(r.ok is True for r in ROWS)}, missed: {len(missed)}")
    for row in missed:
        print(f"  missed: {row.group}: {row.name} = {row.value:.3f} {row.unit} ({row.target})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
