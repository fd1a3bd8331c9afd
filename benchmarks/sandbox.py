"""The sandbox backend's costs against the simulated one, on the desktop itself.

- a step that types a line into the Terminal (``pyautogui.write('echo hi')`` + Enter,
  applied and rendered), median over the repeats, on each backend, and the difference
  (target: at most 30 ms more on the sandbox);
- creating a desktop (target <= 100 ms: the sandbox starts lazily, when a program first
  runs) and the first command on it (which starts bwrap and its broker);
- forking a desktop (``Desktop.clone``: the tree copied with ``cp -a``; target <= 100 ms),
  the tree's size;
- a command run by a setup step or getter (``run_command('true')``);
- each figure that both backends have, on both, and the ratio sandbox / simulated:
  creating a task's desktop with its setup (``e0df059f``: a ``sudo -S mkdir`` on the
  sandbox, which starts bwrap and its broker), a fork, a typed line.

Run: ``python benchmarks/sandbox.py`` (``--repeats N``; ``--quick`` for a smoke run).
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time
from collections.abc import Callable

from drums_gym.actions import expand, parse
from drums_gym.local.desktop import Desktop
from drums_gym.local.sandbox import available, unavailable_reason
from drums_gym.local.tasks import get_task
from drums_gym.local.tasks.shell import run_command

LINE = "pyautogui.write('echo hi')\npyautogui.press('enter')"


def ms(fn: Callable[[], object], repeats: int) -> float:
    """Median wall time of ``fn`` in milliseconds."""
    times = []
    for _ in range(repeats):
        t = time.perf_counter()
        fn()
        times.append((time.perf_counter() - t) * 1000)
    return statistics.median(times)


def act(d: Desktop, code: str) -> None:
    d.apply(expand(parse(code), d.pointer))
    d.render()


def typing_step(shell: str, repeats: int) -> float:
    d = Desktop(shell=shell)
    try:
        act(d, "pyautogui.hotkey('ctrl', 'alt', 't')")
        act(d, LINE)  # warm: the first prompt, caches
        return ms(lambda: act(d, LINE), repeats)
    finally:
        d.close()


def creation(repeats: int) -> tuple[float, float]:
    made: list[Desktop] = []
    create = ms(lambda: made.append(Desktop(shell="sandbox")), repeats)
    first = ms(lambda: run_command(made[len(made) - 1], "true"), 1)
    for d in made:
        d.close()
    return create, first


def task_desktop(shell: str, repeats: int, task_id: str = "e0df059f") -> float:
    """A task's desktop made and set up (what a slot's create costs before the gates)."""
    task = get_task(task_id)
    made: list[Desktop] = []

    def make() -> None:
        d = task.create_desktop(shell=shell)
        made.append(d)
        task.setup(d)

    took = ms(make, repeats)
    for d in made:
        d.close()
    return took


def forking(repeats: int, shell: str = "sandbox") -> tuple[float, str]:
    d = Desktop(shell=shell)
    try:
        run_command(d, "mkdir -p ~/Documents/work && seq 1 20000 > ~/Documents/work/n.txt")
        size = "in memory" if shell == "simulated" else subprocess.run(
            ["du", "-sh", getattr(d.fs, "root", "")], capture_output=True, text=True,
            check=False).stdout.split()[0]
        kids: list[Desktop] = []
        took = ms(lambda: kids.append(d.clone()), repeats)
        for k in kids:
            k.close()
        return took, size
    finally:
        d.close()


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--repeats", type=int, default=15)
    p.add_argument("--quick", action="store_true", help="3 repeats")
    args = p.parse_args()
    if not available():
        print(f"no sandbox here: {unavailable_reason()}")
        return 1
    n = 3 if args.quick else args.repeats
    simulated, sandbox = typing_step("simulated", n), typing_step("sandbox", n)
    create, first = creation(n)
    fork, size = forking(n)
    fork_sim, _ = forking(n, "simulated")
    task_sim, task_box = task_desktop("simulated", n), task_desktop("sandbox", n)
    d = Desktop(shell="sandbox")
    run_command(d, "true")
    command = ms(lambda: run_command(d, "true"), n)
    d.close()
    print(f"{'measure':44} {'ms':>9}")
    rows = [("typing step, simulated bash", simulated), ("typing step, sandbox", sandbox),
            ("  difference (target <= 30)", sandbox - simulated),
            ("create a desktop (target <= 100)", create),
            ("  its first command (starts bwrap)", first),
            (f"fork a desktop, tree {size} (target <= 100)", fork),
            ("run_command('true') (setup step, getter)", command)]
    for name, value in rows:
        print(f"{name:44} {value:9.1f}")
    print(f"\n{'on both backends':44} {'simulated':>9} {'sandbox':>9} {'ratio':>7}")
    for name, sim, box in (("a typed line (a step)", simulated, sandbox),
                           ("a task's desktop, setup included (e0df059f)", task_sim, task_box),
                           ("a fork", fork_sim, fork)):
        print(f"{name:44} {sim:9.1f} {box:9.1f} {box / max(sim, 1e-3):7.1f}")
    print(f"({n} repeats, medians; {os.cpu_count()} cores; python {sys.version.split()[0]})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
