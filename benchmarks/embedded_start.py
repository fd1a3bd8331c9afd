"""How fast the embedded host (a child process) is ready, and how fast it goes with its parent.

For each run, in a fresh parent interpreter: the seconds from ``EmbeddedHost().start()``
to its first answered ``/healthz`` (the child imports the server stack and the catalog,
listens, and says its port), then the parent is killed with SIGKILL and the seconds until
the child is gone are polled. The child's CPU time to ready is printed too (on a loaded
machine the wall time is mostly waiting for a core). Prints each run and the median and
worst of both; the target is ready in <= 1.5 s (issue 19).

Run: ``python benchmarks/embedded_start.py`` (``--runs N``, default 5).
"""

from __future__ import annotations

import argparse
import os
import signal
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PARENT = """
import time, httpx
t0 = time.perf_counter()
from drums_gym.local.embedded import EmbeddedHost
host = EmbeddedHost().start()
httpx.get(host.url + "/healthz").raise_for_status()
print(host.pid, time.perf_counter() - t0, flush=True)
import sys; sys.stdin.read()
"""


def gone(pid: int) -> bool:
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except FileNotFoundError:
        return True
    return stat.rsplit(")", 1)[1].split()[0] in ("Z", "X")


def cpu_seconds(pid: int) -> float:
    """The process's user + system CPU time so far (a figure the machine's load leaves be)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def one_run() -> tuple[float, float, float]:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    env.pop("DRUMS_URL", None)
    proc = subprocess.Popen([sys.executable, "-c", PARENT], env=env, text=True,
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    assert proc.stdout is not None
    pid_text, ready_text = proc.stdout.readline().split()
    pid = int(pid_text)
    cpu = cpu_seconds(pid)
    killed = time.perf_counter()
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    while not gone(pid):
        time.sleep(0.002)
    return float(ready_text), time.perf_counter() - killed, cpu


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    ready, exits, cpus = [], [], []
    for i in range(args.runs):
        r, e, c = one_run()
        ready.append(r)
        exits.append(e)
        cpus.append(c)
        print(f"run {i + 1}: ready {r:.3f} s (child CPU {c:.2f} s), gone {e * 1000:.0f} ms "
              "after the parent's SIGKILL")
    print(f"ready: median {statistics.median(ready):.3f} s, worst {max(ready):.3f} s, child CPU "
          f"median {statistics.median(cpus):.2f} s "
          f"(target <= 1.5 s); gone after SIGKILL: median {statistics.median(exits) * 1000:.0f}"
          f" ms, worst {max(exits) * 1000:.0f} ms; load average {os.getloadavg()[0]:.1f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
