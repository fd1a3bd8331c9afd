"""How the cost of desktop input grows with the number of files on the Desktop.

    python benchmarks/desktop_scale.py [--files 10000] [--events 5000]

Builds a desktop with N files on ~/Desktop (and a Files window showing it), then applies
one action of E events (pointer moves over the icons, clicks, arrow keys, wheel clicks over
the Files window) and prints the wall time per action and per event, and the work-budget
steps it charged. Issue 11 measured 18.6 s for 10,000 files and 5,000 events.
"""

from __future__ import annotations

import argparse
import time

from drums_gym.actions.events import Event, KeyDown, MouseDown, MouseMove, MouseUp, Scroll
from drums_gym.local.budget import Budget, Limits, running
from drums_gym.local.desktop import Desktop


def build(files: int, files_window: bool = True) -> Desktop:
    desk = Desktop()
    for i in range(files):
        desk.fs.write_file(f"~/Desktop/file-{i:05d}.txt", "x")
    if files_window:
        win = desk.open_folder("~/Desktop")
        win.move_to(900, 300)
    desk.render()
    return desk


def events(n: int) -> list[Event]:
    out: list[Event] = []
    i = 0
    while len(out) < n:
        x, y = 120 + (i * 37) % 700, 60 + (i * 53) % 900
        out.append(MouseMove(x, y))
        if i % 5 == 0:
            out += [MouseDown("left"), MouseUp("left")]
        if i % 7 == 0:
            out.append(KeyDown("down"))
        if i % 11 == 0:
            out += [MouseMove(1300, 600), Scroll(0, -1)]
        i += 1
    return out[:n]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--files", type=int, nargs="+", default=[100, 1000, 10000])
    parser.add_argument("--events", type=int, default=5000)
    parser.add_argument("--no-files-window", action="store_true",
                        help="only the desktop's icons (no Files window showing ~/Desktop)")
    args = parser.parse_args()
    print(f"{'files':>7} {'events':>7} {'action s':>9} {'us/event':>9} {'frame s':>8} "
          f"{'budget steps':>13}")
    for files in args.files:
        desk = build(files, files_window=not args.no_files_window)
        evs = events(args.events)
        budget = Budget(Limits(steps=10**12, seconds=10**6))
        with running(budget):
            t0 = time.perf_counter()
            desk.apply(evs)
            t1 = time.perf_counter()
        desk.render()
        t2 = time.perf_counter()
        used = budget.limits.steps - getattr(budget, "_steps_left", budget.limits.steps)
        print(f"{files:>7} {len(evs):>7} {t1 - t0:>9.2f} {(t1 - t0) / len(evs) * 1e6:>9.0f} "
              f"{t2 - t1:>8.2f} {used:>13}")


if __name__ == "__main__":
    main()
