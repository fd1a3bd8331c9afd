"""What ``drums-gym eval --record`` costs: eval wall time with and without recording.

Starts one local host in its own process (``drums-gym serve``, so the host does not share
the eval's GIL), then runs ``drums-gym eval`` against it ``--repeats`` times each way,
alternating, and prints the median wall times and their ratio. The target: recording
costs well under 1.5x (PNG and GIF encoding run on a background thread, off the step
path, on a core of its own when one is free). It also prints the CPU seconds of the eval
process both ways: on a machine whose cores are all busy, the wall ratio tends to the CPU
ratio, since the encoding then has no idle core to run on.

Run: ``python benchmarks/record_overhead.py`` (``--episodes 16 --num-envs 4 --repeats 3``).
"""

from __future__ import annotations

import argparse
import os
import resource
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _wait_ready(url: str, proc: subprocess.Popen[bytes], timeout: float = 60.0) -> None:
    import httpx

    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError("drums-gym serve exited before it was ready")
        try:
            if httpx.get(url + "/v1/host", timeout=1.0).status_code < 500:
                return
        except httpx.HTTPError:
            pass
        time.sleep(0.2)
    raise RuntimeError(f"the host at {url} did not come up in {timeout:.0f}s")


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def _eval(url: str, args: argparse.Namespace, record: Path | None) -> tuple[float, float]:
    """(wall seconds, CPU seconds) of one ``drums-gym eval`` process."""
    command = [
        sys.executable, "-m", "drums_gym.cli", "eval", "--url", url,
        "--episodes", str(args.episodes), "--num-envs", str(args.num_envs),
        "--steps", str(args.steps), "--no-progress", "--json",
    ]
    if record is not None:
        command += ["--record", str(record)]
    started, cpu = time.perf_counter(), _children_cpu()
    subprocess.run(command, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return time.perf_counter() - started, _children_cpu() - cpu


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--episodes", type=int, default=16)
    parser.add_argument("--num-envs", type=int, default=4)
    parser.add_argument("--steps", type=int, default=15)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()

    port = _free_port()
    url = f"http://127.0.0.1:{port}"
    env = {k: v for k, v in os.environ.items() if k not in ("DRUMS_URL", "DRUMS_TOKEN")}
    host = subprocess.Popen(
        [sys.executable, "-m", "drums_gym.cli", "serve", "--port", str(port)],
        env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )
    try:
        _wait_ready(url, host)
        plain: list[tuple[float, float]] = []
        recorded: list[tuple[float, float]] = []
        with tempfile.TemporaryDirectory(prefix="drums-record-bench-") as tmp:
            for i in range(args.repeats):
                plain.append(_eval(url, args, None))
                recorded.append(_eval(url, args, Path(tmp) / f"run-{i}"))
                print(f"run {i + 1}: eval {plain[-1][0]:.1f}s ({plain[-1][1]:.1f}s CPU), "
                      f"eval --record {recorded[-1][0]:.1f}s ({recorded[-1][1]:.1f}s CPU)",
                      flush=True)
        a = statistics.median(w for w, _ in plain)
        b = statistics.median(w for w, _ in recorded)
        ca = statistics.median(c for _, c in plain)
        cb = statistics.median(c for _, c in recorded)
        print(f"median over {args.repeats}: eval {a:.1f}s, eval --record {b:.1f}s: wall ratio "
              f"{b / a:.2f}x (target < 1.5x); CPU of the eval process {ca:.1f}s vs {cb:.1f}s "
              f"({cb / ca:.2f}x); {args.episodes} episodes on {args.num_envs} envs, up to "
              f"{args.steps} steps; load average {os.getloadavg()[0]:.1f} on "
              f"{os.cpu_count()} CPUs")
    finally:
        host.terminate()
        host.wait(timeout=30)


if __name__ == "__main__":
    main()
