"""Terminal routes: open a Terminal (ctrl+alt+t) unless one has the focus, type commands.

Paths are absolute (``~/...``), so the routes work in a fresh terminal (which starts in
the home folder) as well as in one a task's setup left elsewhere.
"""

from __future__ import annotations

from collections.abc import Iterable

from . import a11y
from .a11y import Node
from .base import Solver, Step, write

__all__ = [
    "AppendBrTerminal",
    "ChmodTerminal",
    "CopyFailedNotebooksTerminal",
    "CopyFileToDirsTerminal",
    "CopyJpgsTerminal",
    "CountPhpLinesTerminal",
    "GzipOldFilesTerminal",
    "MoveTodoTerminal",
    "RenameFolderTerminal",
    "RestorePosterTerminal",
    "shell",
]


def _open_terminal(tree: Node) -> str:
    try:
        a11y.terminal(tree)
    except LookupError:
        return "pyautogui.hotkey('ctrl', 'alt', 't')"
    return ""


def shell(*lines: str) -> list[Step]:
    """Focus a terminal, then type each command line and Enter."""
    return [_open_terminal, *(write(line + "\n", check=a11y.terminal) for line in lines)]


class TerminalSolver(Solver):
    """A route that types ``COMMANDS`` into a terminal."""

    route = "terminal"
    COMMANDS: tuple[str, ...] = ()

    def plan(self) -> Iterable[Step]:
        return shell(*self.COMMANDS)


class RenameFolderTerminal(TerminalSolver):
    task_id = "e0df059f-28a6-4169-924f-b9623e7184cc"
    steps = 3
    COMMANDS = ("mv ~/Desktop/todo_list_Jan_1 ~/Desktop/todo_list_Jan_2",)


class MoveTodoTerminal(TerminalSolver):
    task_id = "7688b85f-87a4-4e4a-b2f8-f3d6c3f29b82"
    steps = 3
    COMMANDS = ("mv ~/Desktop/todo.txt ~/Desktop/done/",)


class RestorePosterTerminal(TerminalSolver):
    task_id = "5ea617a3-0e86-4ba6-aab2-dac9aa2e8d57"
    steps = 4
    COMMANDS = ("mv ~/.local/share/Trash/files/poster_party_night.webp ~/Desktop/",
                "rm -f ~/.local/share/Trash/info/poster_party_night.webp.trashinfo")


class CopyFileToDirsTerminal(TerminalSolver):
    task_id = "6f56bf42-85b8-4fbb-8e06-6c44960184ba"
    steps = 2
    COMMANDS = ("cd ~ && for d in dir1 dir2 dir3; do cp file1 \"$d\"/; done",)


class CopyJpgsTerminal(TerminalSolver):
    task_id = "23393935-50c7-4a86-aeea-2b78fd089c5c"
    steps = 3
    COMMANDS = ("find ~/Desktop/photos -type f -name '*.jpg' -exec cp {} ~/Desktop/cpjpg/ \\;",)


class ChmodTerminal(TerminalSolver):
    task_id = "4d117223-a354-47fb-8b45-62ab1390a95f"
    steps = 2
    COMMANDS = ("find ~/testDir -type f -exec chmod 644 {} +",)


class AppendBrTerminal(TerminalSolver):
    task_id = "5ced85fc-fa1a-4217-95fd-0fb530545ce2"
    steps = 2
    COMMANDS = ('for line in 1 2 3; do echo "$line<br/>"; done > ~/output.txt',)


class CopyFailedNotebooksTerminal(TerminalSolver):
    task_id = "5c1075ca-bb34-46a3-a7a0-029bd7463e79"
    steps = 2
    COMMANDS = ("cd ~/test_environment && mkdir -p fails && find . -name '*failed.ipynb' "
                "-not -path './fails/*' -print0 | xargs -0 cp --parents -t fails",)


class GzipOldFilesTerminal(TerminalSolver):
    task_id = "37887e8c-da15-4192-923c-08fa390a176d"
    steps = 2
    COMMANDS = ("find /tmp/test_files -type f -mtime +30 -exec gzip {} \\;",)


class CountPhpLinesTerminal(TerminalSolver):
    task_id = "4127319a-8b79-4410-b58a-7a151e15f3d7"
    steps = 3
    COMMANDS = ("cd ~/project && find . -name '*.php' -print0 | xargs -0 cat | wc -l",)
