"""Real programs for the local host's desktops: one bubblewrap sandbox per desktop.

- `Sandbox`: the sandbox of one desktop (lazy start, `close`, `run`, `spawn`: every
  program of the desktop, agent Python included, is started by its broker).
- `available`: whether a sandbox can run on this machine (tried once, cached), and why not.
- `tree`: the desktop's private root (home, etc, tmp, root, var) on the machine.

docs/terminal.md describes the boundaries.
"""

from __future__ import annotations

from .detect import (
    DEFAULT_SHELL,
    SHELL_BACKENDS,
    SHELL_VARIABLE,
    available,
    backend_from_env,
    resolve_backend,
    unavailable_reason,
)
from .limits import SandboxLimits
from .sandbox import Process, Result, Sandbox, SandboxError

__all__ = ["DEFAULT_SHELL", "SHELL_BACKENDS", "SHELL_VARIABLE", "Process", "Result", "Sandbox",
           "SandboxError", "SandboxLimits", "available", "backend_from_env", "resolve_backend",
           "unavailable_reason"]
