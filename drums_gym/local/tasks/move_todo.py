"""7688b85f: move ``~/Desktop/todo.txt`` into ``~/Desktop/done/``.

OSWorld config: ``sudo touch ~/Desktop/todo.txt && sudo mkdir ~/Desktop/done``, both
``chmod 777``, then a click at the centre. Evaluator: ``[ -f ~/Desktop/done/todo.txt ]``.
"""

from __future__ import annotations

from ..desktop import Desktop
from .base import Task, click_center

__all__ = ["TASK"]


def setup(desktop: Desktop) -> None:
    desktop.fs.write_file("~/Desktop/todo.txt", b"", mode=0o777)
    desktop.fs.mkdir("~/Desktop/done", mode=0o777)
    click_center(desktop)


def check(desktop: Desktop) -> float:
    # "File exists." when ~/Desktop/done/todo.txt is a regular file
    return 1.0 if desktop.fs.is_file("/home/user/Desktop/done/todo.txt") else 0.0


TASK = Task(
    id="7688b85f-87a4-4e4a-b2f8-f3d6c3f29b82",
    domain="os",
    instruction="Can you move the file 'todo.txt' on the Desktop to the directory 'done/' on "
                "the Desktop?",
    setup=setup,
    check=check,
)
