"""4d117223: ``chmod 644`` every regular file under ``~/testDir``.

OSWorld config: run ``setup.sh`` in the home folder (``testDir/file1.txt`` 755,
``testDir/subDir1/file2.txt`` 644, ``testDir/subDir2/file3.txt`` 777), click the centre,
``ctrl+alt+t``, then type ``cd testDir`` and ``clear`` in the Terminal.
Evaluator: ``eval.sh`` runs ``find testDir -type f -exec ls -l {} \\;`` from the home
folder and passes when every listed permission string is ``-rw-r--r--``. As in the
original, a missing ``testDir`` lists nothing and passes.
"""

from __future__ import annotations

from ..desktop import Desktop
from .base import Task, open_terminal, pyautogui

__all__ = ["TASK"]

SETUP_SH = """#!/bin/bash
# Create the test directory structure
mkdir -p testDir/subDir1 testDir/subDir2

# Create test files with different permissions
touch testDir/file1.txt testDir/subDir1/file2.txt testDir/subDir2/file3.txt
chmod 755 testDir/file1.txt
chmod 644 testDir/subDir1/file2.txt
chmod 777 testDir/subDir2/file3.txt

# Display the initial permissions for verification
echo "Initial permissions:"
find testDir -type f -exec ls -l {} \\;
"""
FILES = {"file1.txt": 0o755, "subDir1/file2.txt": 0o644, "subDir2/file3.txt": 0o777}


def setup(desktop: Desktop) -> None:
    fs = desktop.fs
    fs.write_file("~/setup.sh", SETUP_SH, mode=0o775)
    fs.mkdir("~/testDir/subDir1", parents=True)
    fs.mkdir("~/testDir/subDir2", parents=True)
    for rel, mode in FILES.items():
        fs.write_file(f"~/testDir/{rel}", b"", mode=mode)
    open_terminal(desktop)
    pyautogui(desktop, "pyautogui.write('cd testDir')\npyautogui.press('enter')\n"
                       "pyautogui.write('clear')\npyautogui.press('enter')")


def check(desktop: Desktop) -> float:
    fs = desktop.fs
    for top, _, files in fs.walk("/home/user/testDir"):
        for name in files:
            if fs.stat(f"{top}/{name}").st_mode & 0o7777 != 0o644:
                return 0.0  # "Some files do not have the correct permissions."
    return 1.0  # "All files have the correct permissions."


TASK = Task(
    id="4d117223-a354-47fb-8b45-62ab1390a95f",
    domain="os",
    instruction="Change the permission of all regular files under current directory tree to 644",
    setup=setup,
    check=check,
)
