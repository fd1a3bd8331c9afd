"""Evaluator getters: what a task's ``result`` / ``expected`` reads from the desktop.

Each getter is one function ``(desktop, config) -> value`` registered in `GETTERS` by its
OSWorld ``type``; `REQUIRED` names the keys a task file must give it (checked on load).
A getter raises `FileNotFoundError` when what it reads is not there (the task scores 0).

- ``vm_command_line``: the stdout of ``command`` run in the desktop's shell (home folder):
  the real bash in the sandbox, or the simulated one (`shell.run_command`).
- ``vm_terminal_output``: the text of the focused terminal of the active window (None
  when no terminal has the focus), as OSWorld's ``/terminal`` reads it: a real terminal's
  whole scrollback, the simulated one's visible text.
- ``list_directory``: ``{"type": "directory", "name", "children": [...]}`` under ``path``.
- ``rule``: the literal ``rules`` object.
- ``calc_insensitive_md5``: ``{"include": [md5], "exclude": []}`` where md5 is the MD5 of
  the C/C++ file ``path`` (default ``~/Desktop/submission.cpp``) with comments and
  whitespace removed (reconstructed: OSWorld's own getter is not in its repository).
"""

from __future__ import annotations

import hashlib
import posixpath
import re
from collections.abc import Callable, Mapping
from typing import Any

from ..budget import charge
from ..desktop import Desktop
from ..desktop.fs import HOME
from ..desktop.terminal import TerminalWindow
from ..desktop.terminal_pty import PtyTerminalWindow
from .errors import TaskFileError
from .registry import Registry
from .shell import run_command
from .steps import check_commands, execute_plan

__all__ = ["GETTERS", "REQUIRED", "VALIDATORS", "getter"]

GETTERS: Registry[Any] = Registry("getter")
#: Keys each getter needs in its config.
REQUIRED: dict[str, tuple[str, ...]] = {}


#: Load-time checks of a getter's config (beyond `REQUIRED`), by type.
VALIDATORS: dict[str, Callable[[Mapping[str, Any], str], None]] = {}


def getter(name: str, *required: str,
           validate: Callable[[Mapping[str, Any], str], None] | None = None,
           ) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """Decorator: register a getter under its OSWorld ``type`` (the keys it needs, and a
    load-time check ``validate(config, source)`` raising `TaskFileError`)."""
    REQUIRED[name] = required
    if validate is not None:
        VALIDATORS[name] = validate
    return GETTERS.register(name)


def _path(path: str) -> str:
    if path.startswith("~"):
        path = HOME + path[1:]
    return posixpath.normpath(path if path.startswith("/") else f"{HOME}/{path}")


def _check_command(config: Mapping[str, Any], source: str) -> None:
    kind, line = execute_plan(config["command"], config.get("shell", False), source)
    if kind == "actions":
        raise TaskFileError(source, f"the command {config['command']!r} runs Python, which "
                                    "the simulator does not have")
    check_commands(line, source)


@getter("vm_command_line", "command", validate=_check_command)
def vm_command_line(desktop: Desktop, config: Mapping[str, Any]) -> str:
    _, line = execute_plan(config["command"], config.get("shell", False))
    return run_command(desktop, line).stdout


@getter("vm_terminal_output")
def vm_terminal_output(desktop: Desktop, config: Mapping[str, Any]) -> str | None:
    active = desktop.active_window()
    if isinstance(active, PtyTerminalWindow):
        active.settle(0.0)
        return active.scrollback_text().rstrip()
    return active.text().rstrip() if isinstance(active, TerminalWindow) else None


def _tree(desktop: Desktop, path: str) -> dict[str, Any]:
    children: list[dict[str, Any]] = []
    for name in desktop.fs.listdir(path):
        charge()
        full = f"{path.rstrip('/')}/{name}"
        if desktop.fs.is_dir(full):
            children.append(_tree(desktop, full))
        else:
            children.append({"type": "file", "name": name})
    return {"type": "directory", "name": posixpath.basename(path), "children": children}


@getter("list_directory", "path")
def list_directory(desktop: Desktop, config: Mapping[str, Any]) -> dict[str, Any] | None:
    path = _path(config["path"])
    if not desktop.fs.exists(path):
        raise FileNotFoundError(path)
    return _tree(desktop, path) if desktop.fs.is_dir(path) else None


@getter("rule", "rules")
def rule(desktop: Desktop, config: Mapping[str, Any]) -> Any:
    return config["rules"]


_C_COMMENTS = re.compile(r"//[^\n]*|/\*.*?\*/", re.S)


@getter("calc_insensitive_md5")
def calc_insensitive_md5(desktop: Desktop, config: Mapping[str, Any]) -> dict[str, Any]:
    path = _path(config.get("path", "~/Desktop/submission.cpp"))
    if not desktop.fs.is_file(path):
        raise FileNotFoundError(path)
    text = desktop.fs.read_file(path).decode(errors="replace")
    core = "".join(_C_COMMENTS.sub(" ", text).split())
    return {"include": [hashlib.md5(core.encode()).hexdigest()], "exclude": []}
