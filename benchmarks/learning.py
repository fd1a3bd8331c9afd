"""drums-gym learning figures: examples/learn.py on several tasks, each with a budget.

For each task it runs ``python examples/learn.py --task ID --minutes M`` (its own embedded
host, one after the other), and prints a table: the success rate from the task's initial
state over the last evaluation episodes, the training steps and the minutes it took, and
whether it reached the target (0.9 by default). The machine's load (``os.getloadavg``)
is printed before and after: on a shared machine the minutes are not comparable without it.

Run: ``python benchmarks/learning.py [--minutes 10] [--tasks e0df059f,bedcedc4,5ced85fc]
[--bc 0]`` (needs the ``[sb3]`` extra; ``[learn]`` for the PNGs). Exit status 1 when a
task misses the target. Its last figures (seven tasks of the three kinds, with the load
they were measured at) are the tables of docs/learning.md, the curves docs/learning/*.png.
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
LAST = re.compile(
    r"success (\d\.\d\d) over the last (\d+) episodes from the task's initial state "
    r"\(steps (\d+), minutes (\d+\.\d)\)"
)
#: a GUI task, a settings task, a terminal task, and more of each kind
TASKS = ("e0df059f", "bedcedc4", "5ced85fc", "ec4e3f68", "f9be0997", "7688b85f", "37887e8c",
         "a4d98375")


def load() -> str:
    one, five, _ = os.getloadavg()
    return f"load average {one:.1f} (1 min), {five:.1f} (5 min) on {os.cpu_count()} cores"


def run(task: str, minutes: float, bc: int | None, out: Path) -> tuple[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("DRUMS_")}
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), env.get("PYTHONPATH")]))
    args = [sys.executable, str(ROOT / "examples" / "learn.py"), "--task", task,
            "--minutes", str(minutes), "--out", str(out / task)]
    if bc is not None:  # else learn.py's own default
        args += ["--bc", str(bc)]
    proc = subprocess.run(args, cwd=ROOT, env=env, capture_output=True, text=True,
                          timeout=minutes * 60 + 600)
    lines = proc.stdout.strip().splitlines()
    return (lines[-1] if lines else ""), proc.stderr[-500:]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--minutes", type=float, default=10.0)
    parser.add_argument("--tasks", default=",".join(TASKS[:3]))
    parser.add_argument("--bc", type=int, default=None,
                        help="learn.py's --bc (0: pure RL); its own default when left out")
    parser.add_argument("--target", type=float, default=0.9)
    parser.add_argument("--out", type=Path, default=Path("learn-benchmark"))
    args = parser.parse_args()
    print(f"before: {load()}", flush=True)
    print(f"{'task':10} {'success':>8} {'over':>5} {'steps':>7} {'minutes':>8}  target "
          f"{args.target}", flush=True)
    missed = 0
    for task in args.tasks.split(","):
        last, err = run(task, args.minutes, args.bc, args.out)
        match = LAST.fullmatch(last)
        if not match:
            missed += 1
            print(f"{task:10} failed: {last or err.strip().splitlines()[-1:]}", flush=True)
            continue
        success = float(match[1])
        met = success >= args.target
        missed += not met
        print(f"{task:10} {success:8.2f} {match[2]:>5} {match[3]:>7} {match[4]:>8}  "
              f"{'met' if met else 'MISSED'}", flush=True)
    print(f"after: {load()}; curves under {args.out}/<task>/curve.png", flush=True)
    return 1 if missed else 0


if __name__ == "__main__":
    sys.exit(main())
