"""Can a sandbox run here? `available` starts a trivial one once and caches the answer;
`resolve_backend` turns ``DRUMS_LOCAL_SHELL`` (``auto``, ``sandbox``, ``simulated``) into
the backend in force."""

from __future__ import annotations

import os
import sys
import threading

from .bwrap import bwrap_path

__all__ = ["SHELL_BACKENDS", "available", "resolve_backend", "unavailable_reason"]

SHELL_BACKENDS: tuple[str, ...] = ("auto", "sandbox", "simulated")
_lock = threading.Lock()
_answer: dict[int, str | None] = {}  # pid -> None (works) or why not


def _probe() -> str | None:
    if not sys.platform.startswith("linux"):
        return f"not Linux ({sys.platform})"
    if bwrap_path() is None:
        return "bwrap is not installed (apt-get install bubblewrap)"
    if not os.access("/usr/bin/python3", os.X_OK):
        return "/usr/bin/python3 is missing (the sandbox's broker runs on it)"
    from .sandbox import Sandbox, SandboxError
    from .tree import new_tree, remove_tree

    try:
        tree = new_tree()
    except OSError as exc:
        return f"cannot make a desktop tree: {exc}"
    box = Sandbox(tree)
    try:
        result = box.run("id -u")
    except (SandboxError, OSError) as exc:
        return str(exc)
    finally:
        box.close()
        remove_tree(tree)
    if result.stdout.strip() != "1000":
        return f"a trivial sandbox answered {result.stdout!r} {result.stderr!r}"
    return None


def unavailable_reason() -> str | None:
    """None when sandboxes work on this machine, else why not (probed once per process)."""
    pid = os.getpid()
    with _lock:
        if pid not in _answer:
            _answer[pid] = _probe()
        return _answer[pid]


def available() -> bool:
    """Whether desktops can get a real sandbox here."""
    return unavailable_reason() is None


def resolve_backend(choice: str) -> str:
    """``sandbox`` or ``simulated`` for a ``DRUMS_LOCAL_SHELL`` choice; ``sandbox`` where it
    cannot run raises RuntimeError with the reason."""
    if choice not in SHELL_BACKENDS:
        raise ValueError(f"shell backend must be one of {', '.join(SHELL_BACKENDS)}, "
                         f"got {choice!r}")
    if choice == "simulated":
        return "simulated"
    reason = unavailable_reason()
    if reason is None:
        return "sandbox"
    if choice == "sandbox":
        raise RuntimeError(f"DRUMS_LOCAL_SHELL=sandbox, but the sandbox cannot run: {reason}")
    return "simulated"
