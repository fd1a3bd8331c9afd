"""The two paths of an action, timed: the fast path (plain calls, parsed with `ast`) and the
Python path (agent code run in the bubblewrap sandbox), per action.

Three figures per path, medians over ``--n`` actions:

- ``plan``: deciding the path (parse, or refuse to the Python path);
- ``desktop``: planning and running the action on a Desktop in this process (for Python:
  a fork of the desktop's interpreter server, the calls over the pipe; the server and the
  sandbox are started by a warm-up action first);
- ``http``: one ``POST /v1/slots/{id}/actions`` to a local host over loopback.

Run: ``python benchmarks/pycode.py [--n 20]``.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from drums_gym.client import connect
from drums_gym.local.budget import Budget, running
from drums_gym.local.desktop import Desktop
from drums_gym.local.host import HostConfig
from drums_gym.local.pycode import perform, plan_action
from drums_gym.local.sandbox import available
from drums_gym.local.server import LocalHost

ACTIONS = {
    "fast": "pyautogui.moveTo(100, 100)\npyautogui.moveRel(10, 0)\npyautogui.moveRel(10, 0)",
    "python": "import pyautogui as pg\npg.moveTo(100, 100)\nfor _ in range(2): pg.moveRel(10, 0)",
}


def median_ms(fn: Callable[[], object], n: int) -> float:
    times = []
    for _ in range(n):
        start = time.perf_counter()
        fn()
        times.append((time.perf_counter() - start) * 1000)
    return statistics.median(times)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--n", type=int, default=20, help="actions per figure")
    args = parser.parse_args()
    if not available():
        print("the sandbox (bubblewrap) is not available here: only the fast path runs")
    desktop = Desktop(width=1920, height=1080,
                      shell="sandbox" if available() else "simulated")
    host = LocalHost(HostConfig(gate_delay_s=0.05)).start()
    rows = []
    try:
        with connect(url=host.url) as client, client.create("e0df059f") as slot:
            slot.wait_valid()
            for name, code in ACTIONS.items():
                if name == "python" and not available():
                    continue

                def on_desktop(code: str = code) -> None:
                    with running(Budget()):
                        perform(plan_action(code), desktop)

                on_desktop()  # warm: the sandbox and its interpreter server start
                slot.step(code)

                rows.append((
                    name,
                    median_ms(lambda code=code: plan_action(code), args.n),
                    median_ms(on_desktop, args.n),
                    median_ms(lambda code=code: slot.step(code), args.n),
                ))
    finally:
        host.stop()
        desktop.close()
    print(f"{'path':8} {'plan ms':>9} {'desktop ms':>11} {'http ms':>9}   (medians of {args.n})")
    for name, plan, desk, http in rows:
        print(f"{name:8} {plan:9.2f} {desk:11.2f} {http:9.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
