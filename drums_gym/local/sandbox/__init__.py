"""Real programs for the local host's desktops: one bubblewrap sandbox per desktop.

- `Sandbox`: the sandbox of one desktop (lazy start, `close`, `run`, `spawn`,
  `command_prefix` for programs the desktop runs itself, e.g. Python).
- `available`: whether a sandbox can run on this machine (tried once, cached), and why not.
- `tree`: the desktop's private root (home, etc, tmp, root, var) on the machine.

docs/terminal.md describes the boundaries.
"""

from __future__ import annotations

from .detect import SHELL_BACKENDS, available, resolve_backend, unavailable_reason
from .limits import SandboxLimits
from .sandbox import Process, Result, Sandbox, SandboxError

__all__ = ["SHELL_BACKENDS", "Process", "Result", "Sandbox", "SandboxError", "SandboxLimits",
           "available", "resolve_backend", "unavailable_reason"]
