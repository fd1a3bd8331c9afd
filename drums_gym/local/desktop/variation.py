"""Seeded variation of a fresh desktop: what no task checker reads, opt-in.

A desktop created with ``"randomize": {"seed": k}`` (see ``docs/http-api.md``) gets
`vary` applied BEFORE its task's setup runs, so everything the setup makes keeps its exact
state. What varies:

- the desktop icons' order and positions: the corner new icons fill from (as Desktop Icons
  NG's "new icons alignment"), a few slots left free as if icons had been moved, and the
  order of the names one change adds;
- the offset new windows (Files, Terminal) open at, kept inside the work area;
- the wallpaper: one of `art.WALLPAPERS`;
- the simulated clock's start (the top bar's date and time): a day of 2023 or 2024, in
  working hours;
- the modification times of what the filesystem holds before the setup (the home
  folder's defaults, ``/tmp``): some day in the months before the clock's start.

The same seed gives the same desktop (identical screenshots, trees and files); a desktop
that is not randomized is the original one.

>>> from drums_gym.local.desktop import Desktop
>>> a, b = Desktop(), Desktop()
>>> vary(a, rng_for(7)); vary(b, rng_for(7))
>>> a.render().tobytes() == b.render().tobytes(), a.clock_text() == Desktop().clock_text()
(True, False)
"""

from __future__ import annotations

import random
from typing import TYPE_CHECKING

from .art import WALLPAPERS

if TYPE_CHECKING:
    from .desktop import Desktop
    from .icons import IconGrid

__all__ = ["CLOCK_DAYS", "CORNERS", "rng_for", "vary"]

#: where new desktop icons start, as Desktop Icons NG offers it
CORNERS = ("top-left", "top-right", "bottom-left", "bottom-right")
#: the clock starts on a day of 2023 or 2024 (from 2023-01-02, a Monday, at midnight UTC)
CLOCK_FIRST_DAY = 1672617600
CLOCK_DAYS = 728
#: between these hours of the day (UTC, which the simulated desktop keeps)
CLOCK_HOURS = (7, 20)
#: the largest window offset, each way (pixels)
WINDOW_SHIFT = (160, 96)
#: the files that exist before the setup were last changed this many days before the clock
FILE_AGE_DAYS = (3, 240)
_DAY = 86400


def rng_for(seed: int) -> random.Random:
    """The generator a desktop randomized with ``seed`` is varied by (its own stream: the
    seed of the host's faults does not enter)."""
    if isinstance(seed, bool) or not isinstance(seed, int) or seed < 0:
        raise ValueError(f"seed must be an int >= 0, got {seed!r}")
    return random.Random(f"drums-desktop-variation/{seed}")


def _slot_order(grid: IconGrid, rng: random.Random) -> list[int]:
    """The screen's slots column by column from a random corner, a few taken out early
    (moved last) as if the user had dragged icons away from them."""
    rows, cols = grid.rows, grid.cols
    corner = rng.choice(CORNERS)
    col_range = range(cols - 1, -1, -1) if corner.endswith("right") else range(cols)
    row_range = range(rows - 1, -1, -1) if corner.startswith("bottom") else range(rows)
    order = [c * rows + r for c in col_range for r in row_range]
    early = min(len(order) - 1, 2 * rows)
    holes = sorted(rng.sample(range(early), rng.randint(0, min(3, early))), reverse=True)
    moved = [order.pop(i) for i in holes]
    return order + moved


#: the folders whose files get dated: the user's (on the sandbox backend the rest of ``/``
#: is the machine's read-only system or the desktop's /etc, which keep their own dates)
DATED = ("/home", "/tmp")


def _file_times(desk: Desktop, rng: random.Random) -> None:
    """Date everything the user's folders hold now at some time before the clock's start."""
    now = desk.fs.clock.now()
    install = now - rng.randint(*FILE_AGE_DAYS) * _DAY - rng.randrange(0, _DAY, 60)
    paths = []
    for root in DATED:
        for top, _dirs, files in desk.fs.walk(root):
            paths.append(top)
            paths.extend(f"{top.rstrip('/')}/{name}" for name in files)
    for path in sorted(paths):
        desk.fs.set_mtime(path, min(now, install + rng.randrange(0, 3 * _DAY, 1)))


def vary(desk: Desktop, rng: random.Random) -> None:
    """Vary ``desk`` (a fresh desktop, before its task's setup and its first render) by
    ``rng``: icon placement, window offset, wallpaper, clock, the dates of its files."""
    clock = desk.fs.clock
    day = CLOCK_FIRST_DAY + rng.randrange(CLOCK_DAYS) * _DAY
    clock.epoch = float(day + rng.randrange(CLOCK_HOURS[0] * 3600, CLOCK_HOURS[1] * 3600, 60))
    _file_times(desk, rng)
    desk.wallpaper = rng.randrange(len(WALLPAPERS))
    dx, dy = WINDOW_SHIFT
    desk.window_offset = (rng.randrange(-dx, dx + 1, 8), rng.randrange(-dy, dy + 1, 8))
    desk.grid.arrange(_slot_order(desk.grid, rng), salt=f"{rng.getrandbits(64):016x}")
