"""`HostCommands`: the desktop's own programs that a sandbox cannot have as real ones.

``gsettings``, ``dconf``, ``timedatectl``, ``pactl``, ``amixer`` (the desktop's settings
store, which the GUI shows: `settings_store`), ``snap`` (a store without network: the
simulated archive's packages) and ``xdg-open`` (the session opens a folder in Files: the
request file the desktop reads, `OPEN_REQUESTS`) are shims inside the sandbox that send
their argv over a unix socket to the desktop's owner process; this object runs them there,
with the simulated bash's implementation of the command over the desktop's real tree, as the
caller's user (root when it came through ``sudo``).
"""

from __future__ import annotations

import contextlib
import os

from ..sandbox.etc import set_timezone
from .bash.cmd_system import timezone_name
from .bash.commands import standard_commands
from .bash.context import IO
from .bash.interp import ExitShell, Interpreter
from .bash.state import ShellState
from .fs import HOME, FileSystem
from .tree_fs import TreeFileSystem

ZONEINFO = "/usr/share/zoneinfo/"

__all__ = ["HOST_COMMANDS", "HostCommands"]

#: the commands served by the owner process (shims of these names are on the sandbox's PATH)
HOST_COMMANDS: tuple[str, ...] = ("gsettings", "dconf", "timedatectl", "pactl", "amixer",
                                  "snap", "xdg-open")


class HostCommands:
    """Runs `HOST_COMMANDS` for a desktop whose files are ``fs``."""

    def __init__(self, fs: FileSystem) -> None:
        self.fs = fs

    def __call__(self, argv: list[str], cwd: str, uid: int, stdin: str = ""
                 ) -> tuple[str, str, int]:
        """``(stdout, stderr, status)`` of one command (refused unless in `HOST_COMMANDS`)."""
        if not argv or argv[0] not in HOST_COMMANDS:
            name = argv[0] if argv else ""
            return "", f"{name}: not a desktop command\n", 127
        state = ShellState(self.fs, cwd if self.fs.is_dir(cwd) else HOME)
        out: list[str] = []
        err: list[str] = []
        interp = Interpreter(state, standard_commands())
        try:
            status = interp.run_argv(list(argv), IO(stdin, out, err, False), root=uid == 0)
        except ExitShell as exc:
            status = exc.status
        if isinstance(self.fs, TreeFileSystem):
            if argv[0] == "timedatectl":  # the real programs read /etc/localtime
                zone = timezone_name(self.fs)
                with contextlib.suppress(OSError):
                    if os.readlink(self.fs.root + "/etc/localtime") != ZONEINFO + zone:
                        set_timezone(self.fs.root + "/etc", zone)
            self.fs.touched()
        return "".join(out), "".join(err), status
