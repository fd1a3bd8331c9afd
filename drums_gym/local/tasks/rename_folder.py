"""e0df059f: rename the Desktop folder ``todo_list_Jan_1`` to ``todo_list_Jan_2``.

OSWorld config: ``sudo mkdir ~/Desktop/todo_list_Jan_1``, then a click at the screen's
centre. Evaluator (``exact_match`` on a shell line): ``[ -d ~/Desktop/todo_list_Jan_2 ]``.
"""

from __future__ import annotations

from ..desktop import Desktop
from .base import Task, click_center

__all__ = ["TASK"]


def setup(desktop: Desktop) -> None:
    desktop.fs.mkdir("~/Desktop/todo_list_Jan_1", parents=True)
    click_center(desktop)


def check(desktop: Desktop) -> float:
    # "Directory exists." when ~/Desktop/todo_list_Jan_2 is a directory
    return 1.0 if desktop.fs.is_dir("/home/user/Desktop/todo_list_Jan_2") else 0.0


TASK = Task(
    id="e0df059f-28a6-4169-924f-b9623e7184cc",
    domain="os",
    instruction='I have a directory named "todo_list_Jan_1". Can you help me change its '
                'name into "todo_list_Jan_2"?',
    setup=setup,
    check=check,
)
