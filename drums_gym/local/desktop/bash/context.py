"""What a command sees while it runs: its streams (`IO`) and the shell (`Ctx`).

Commands are plain functions ``(ctx, args) -> exit status``; they read
``ctx.io.stdin``, write with `Ctx.out` / `Ctx.err`, and reach the simulated
filesystem through ``ctx.fs`` with paths resolved by `Ctx.path`.
"""

from __future__ import annotations

import stat as stat_mod
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ...budget import charge, charge_bytes
from ..fs import HOME, FileSystem

if TYPE_CHECKING:
    from .interp import Interpreter
    from .registry import Registry
    from .state import ShellState

__all__ = ["IO", "Ctx", "owner_of", "shell_quote"]

USER, HOST = "user", "ubuntu"


@dataclass
class IO:
    """Standard streams: ``stdin`` text; ``out``/``err`` are sinks (lists of strings)."""

    stdin: str = ""
    out: list[str] = field(default_factory=list)
    err: list[str] = field(default_factory=list)
    tty: bool = True  # whether stdout is the terminal (ls colours and columns)


def owner_of(path: str) -> str:
    """Who owns ``path``: the user for their home (and /tmp), root elsewhere."""
    for base in (HOME, "/tmp"):
        if path == base or path.startswith(base + "/"):
            return USER
    return "root"


def shell_quote(name: str) -> str:
    """How ``ls`` shows a name on a terminal (``'my file'``), as coreutils' shell-escape."""
    if name and all(c.isalnum() or c in "-_./+,:%@=^" for c in name):
        return name
    if "'" not in name:
        return f"'{name}'"
    return '"' + name.replace("\\", "\\\\").replace('"', '\\"').replace("$", "\\$") + '"'


class Ctx:
    """One command's view of the shell: streams, state, privileges."""

    def __init__(self, interp: Interpreter, io: IO, root: bool = False) -> None:
        self.interp = interp
        self.io = io
        self.root = root

    @property
    def state(self) -> ShellState:
        return self.interp.state

    @property
    def fs(self) -> FileSystem:
        return self.interp.state.fs

    @property
    def commands(self) -> Registry:
        """The commands this shell runs (``type``, ``which``, ``sudo`` look names up here)."""
        return self.interp.commands

    @property
    def cwd(self) -> str:
        return self.interp.state.cwd

    def with_io(self, io: IO) -> Ctx:
        return Ctx(self.interp, io, self.root)

    # -- output -----------------------------------------------------------
    def out(self, text: str) -> None:
        """Write ``text`` to standard output (charged to the work budget as produced data)."""
        charge_bytes(len(text))
        self.io.out.append(text)

    def err(self, text: str) -> None:
        """Write one line (a newline is added) to standard error."""
        charge_bytes(len(text) + 1)
        self.io.err.append(text + "\n")

    # -- paths ------------------------------------------------------------
    def path(self, p: str) -> str:
        """Absolute normalised path of ``p`` (relative to the working directory)."""
        return self.fs.normpath(p if p.startswith("/") else f"{self.cwd}/{p}")

    def may(self, path: str, bit: str) -> bool:
        """Whether the user may ``r``/``w``/``x`` ``path`` (root may do anything)."""
        if self.root:
            return True
        try:
            mode = self.fs.stat(path).st_mode
        except OSError:
            return True
        shift = 6 if self.owner(path) == USER else 0
        return bool(mode & ({"r": 4, "w": 2, "x": 1}[bit] << shift))

    def owner(self, path: str) -> str:
        """Who owns ``path``: whoever created it with ``sudo`` or got it by ``chown``, else
        the path's default (`owner_of`)."""
        try:
            explicit = self.fs.owner(path)
        except OSError:
            explicit = None
        return explicit if explicit is not None else owner_of(path)

    def may_change(self, path: str) -> bool:
        """Whether the user may create or remove entries in the parent of ``path``."""
        parent = path.rsplit("/", 1)[0] or "/"
        return self.may(parent, "w") and self.may(parent, "x")

    def is_dir(self, path: str) -> bool:
        return self.fs.is_dir(path)

    def mode(self, path: str) -> int:
        return stat_mod.S_IMODE(self.fs.stat(path).st_mode)

    # -- running other commands (find -exec, xargs, sudo) -----------------
    def run(self, argv: list[str], io: IO | None = None, root: bool | None = None) -> int:
        return self.interp.run_argv(argv, io if io is not None else self.io,
                                    self.root if root is None else root)

    def find_program(self, name: str) -> str | None:
        """The first executable file ``name`` in ``$PATH``'s folders (an installed program)."""
        if not name or "/" in name:
            return None
        for folder in self.var("PATH").split(":"):
            charge()
            path = f"{folder.rstrip('/')}/{name}"
            if folder.startswith("/") and self.fs.is_file(path) and self.mode(path) & 0o111:
                return path
        return None

    def var(self, name: str, default: str = "") -> str:
        return self.state.vars.get(name, default)

    def __repr__(self) -> str:  # pragma: no cover - debugging aid
        return f"Ctx(cwd={self.cwd!r}, root={self.root})"


def strerror(exc: OSError) -> str:
    """``os.strerror``-style text for an `OSError` raised by the filesystem."""
    return exc.strerror or "Input/output error"


def dump(value: Any) -> str:  # pragma: no cover - debugging aid
    return repr(value)
