"""6f56bf42: copy ``file1`` into each of ``dir1``, ``dir2``, ``dir3`` (in the home folder).

OSWorld config: download and run ``setup.sh`` in the home folder (it creates ``file1``
and the three directories), click the centre, ``ctrl+alt+t``, activate the Terminal.
Evaluator: ``eval.sh`` prints "Success: file1 exists in dirN." while ``[ -f dirN/file1 ]``
holds for dir1, dir2, dir3 in turn (stopping at the first failure); the output must
include all three lines.
"""

from __future__ import annotations

from ..desktop import Desktop
from .base import Task, open_terminal

__all__ = ["TASK"]

SETUP_SH = """#!/bin/bash
# Create the directories and the file to copy
mkdir -p dir1 dir2 dir3
echo "This is file1." > file1
"""


def setup(desktop: Desktop) -> None:
    fs = desktop.fs
    fs.write_file("~/setup.sh", SETUP_SH, mode=0o775)
    for d in ("dir1", "dir2", "dir3"):
        fs.mkdir(f"~/{d}")
    fs.write_file("~/file1", "This is file1.\n")
    open_terminal(desktop)


def check(desktop: Desktop) -> float:
    ok = all(desktop.fs.is_file(f"/home/user/{d}/file1") for d in ("dir1", "dir2", "dir3"))
    return 1.0 if ok else 0.0


TASK = Task(
    id="6f56bf42-85b8-4fbb-8e06-6c44960184ba",
    domain="os",
    instruction="Copies file 'file1' to each of directories 'dir1', 'dir2', 'dir3'.",
    setup=setup,
    check=check,
)
