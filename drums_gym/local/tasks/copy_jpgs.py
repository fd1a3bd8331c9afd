"""23393935: copy every ``.jpg`` under ``~/Desktop/photos`` (recursively) into ``cpjpg``.

OSWorld config: ``mkdir -p`` ``~/Desktop/photos/{vacation/{thailand,hk},family,events}``
and ``~/Desktop/cpjpg``; download four JPEGs and one PNG into them; click the centre.
Evaluator (``check_moved_jpgs`` on ``list_directory`` of ``/home/user/Desktop/cpjpg``):
the names directly in ``cpjpg`` are exactly the four ``.jpg`` names (same count, same set).
"""

from __future__ import annotations

from ..desktop import Desktop
from .base import Task, click_center
from .media import jpeg, png

__all__ = ["EXPECTED", "TASK"]

PHOTOS = "/home/user/Desktop/photos"
CPJPG = "/home/user/Desktop/cpjpg"
MONK = "monk252520thailand252520wat252520arun252520scaled25255B225255D.jpg"
FILES = {
    f"vacation/thailand/{MONK}": jpeg("wat arun"),
    "vacation/hk/hong-kong-china.jpg": jpeg("hong kong"),
    "vacation/hk/hk_group_photo.jpg": jpeg("hk group photo"),
    "family/us_3.png": png("us 3"),
    "events/emnlp2023.jpg": jpeg("emnlp 2023"),
}
EXPECTED = frozenset({"emnlp2023.jpg", "hk_group_photo.jpg", "hong-kong-china.jpg", MONK})


def setup(desktop: Desktop) -> None:
    fs = desktop.fs
    fs.mkdir(CPJPG, parents=True)
    for sub in ("vacation/thailand", "vacation/hk", "family", "events"):
        fs.mkdir(f"{PHOTOS}/{sub}", parents=True)
    for rel, data in FILES.items():
        fs.write_file(f"{PHOTOS}/{rel}", data)
    click_center(desktop)


def check(desktop: Desktop) -> float:
    if not desktop.fs.is_dir(CPJPG):
        return 0.0  # the getter finds no directory and the metric fails
    names = desktop.fs.listdir(CPJPG)
    return 1.0 if len(names) == len(EXPECTED) and set(names) == EXPECTED else 0.0


TASK = Task(
    id="23393935-50c7-4a86-aeea-2b78fd089c5c",
    domain="os",
    instruction="Recursively go through the folders of the 'photos' directory and copy any .jpg "
                "files found into another directory named 'cpjpg'.",
    setup=setup,
    check=check,
)
