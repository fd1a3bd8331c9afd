"""5ea617a3: restore ``poster_party_night.webp`` from the Trash.

OSWorld config: download ``/home/user/Desktop/poster_party_night.webp``, then
``gio trash`` it (into ``~/.local/share/Trash`` with a .trashinfo), then a click at the
centre. Evaluator: ``[ -f /home/user/Desktop/poster_party_night.webp ]``.
"""

from __future__ import annotations

from ..desktop import Desktop
from .base import Task, click_center
from .media import poster_webp

__all__ = ["TASK"]

POSTER = "/home/user/Desktop/poster_party_night.webp"


def setup(desktop: Desktop) -> None:
    desktop.fs.write_file(POSTER, poster_webp())
    desktop.fs.trash(POSTER)
    click_center(desktop)


def check(desktop: Desktop) -> float:
    return 1.0 if desktop.fs.is_file(POSTER) else 0.0


TASK = Task(
    id="5ea617a3-0e86-4ba6-aab2-dac9aa2e8d57",
    domain="os",
    instruction="I am currently using an Ubuntu system, and I have wrongly deleted a poster of "
                "party night. Could you help me recover it from the Trash?",
    setup=setup,
    check=check,
)
