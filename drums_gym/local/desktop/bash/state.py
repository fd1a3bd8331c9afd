"""`ShellState`: everything a bash session remembers between lines (deep-copyable data)."""

from __future__ import annotations

from dataclasses import dataclass, field

from ..fs import HOME, FileSystem
from .context import HOST, USER

__all__ = ["ShellState", "default_vars"]


def default_vars() -> dict[str, str]:
    """The environment a GNOME Terminal's bash starts with on Ubuntu 22.04."""
    return {
        "HOME": HOME, "USER": USER, "LOGNAME": USER, "SHELL": "/bin/bash",
        "PATH": "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin:/usr/games:"
                "/usr/local/games:/snap/bin",
        "LANG": "en_US.UTF-8", "TERM": "xterm-256color", "COLORTERM": "truecolor",
        "HOSTNAME": HOST, "PWD": HOME, "SHLVL": "1", "IFS": " \t\n",
    }


_NOT_EXPORTED = frozenset({"HOSTNAME", "IFS"})


def _default_exported() -> set[str]:
    return set(default_vars()) - _NOT_EXPORTED


@dataclass
class ShellState:
    """Working directory, variables, last status, history, sudo credentials."""

    fs: FileSystem
    cwd: str = HOME
    vars: dict[str, str] = field(default_factory=default_vars)
    exported: set[str] = field(default_factory=_default_exported)
    status: int = 0
    history: list[str] = field(default_factory=list)
    sudo_until: float = -1.0  # simulated time until which sudo needs no password
    #: whether sudo asks for the password (an interactive terminal's session); a
    #: non-interactive run (task setups, getters) runs sudo as after ``sudo -S``
    asks_password: bool = False
    positional: list[str] = field(default_factory=list)
    columns: int = 80
    rows: int = 24  # the terminal's, as ``stty size`` reports them

    def set_cwd(self, path: str) -> None:
        old = self.cwd
        self.cwd = path
        self.vars["OLDPWD"], self.vars["PWD"] = old, path
        self.exported.add("OLDPWD")

    def tilde(self, path: str) -> str:
        """``path`` with the home directory shown as ``~`` (as the prompt shows it)."""
        if path == HOME:
            return "~"
        if path.startswith(HOME + "/"):
            return "~" + path[len(HOME):]
        return path
