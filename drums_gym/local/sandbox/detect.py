"""Can a sandbox run here? `available` starts a trivial one once and caches the answer;
`resolve_backend` turns ``DRUMS_LOCAL_SHELL`` (``auto``, the default; ``sandbox``;
``simulated``) into the backend in force, `backend_from_env` reads the variable.

The sandbox runs where the machine is Linux, has bubblewrap, and lets the host be root
(bwrap without a user namespace, so uids are real; cgroups; chown in the trees). As
another user the host would need a user namespace mapping several ids, which is not done:
``auto`` picks the simulated bash there, and on any machine where the trivial sandbox fails.
"""

from __future__ import annotations

import os
import sys
import threading
from collections.abc import Mapping

from .bwrap import bwrap_path

__all__ = ["DEFAULT_SHELL", "SHELL_BACKENDS", "SHELL_VARIABLE", "available", "backend_from_env",
           "probe", "resolve_backend", "unavailable_reason"]

SHELL_BACKENDS: tuple[str, ...] = ("auto", "sandbox", "simulated")
#: the choice when nothing says otherwise: the sandbox where it works
DEFAULT_SHELL = "auto"
#: the environment variable of the choice (``serve --shell``, `HostConfig.shell`)
SHELL_VARIABLE = "DRUMS_LOCAL_SHELL"
_lock = threading.Lock()
_answer: dict[int, str | None] = {}  # pid -> None (works) or why not


def probe(platform: str | None = None) -> str | None:
    """None when a trivial sandbox starts and answers as the user (uid 1000), else why
    not; ``platform`` defaults to ``sys.platform``. Not cached: `unavailable_reason` is."""
    platform = sys.platform if platform is None else platform
    if not platform.startswith("linux"):
        return f"not Linux ({platform})"
    if bwrap_path() is None:
        return "bwrap is not installed (apt-get install bubblewrap)"
    if os.geteuid() != 0:
        return (f"the host runs as uid {os.geteuid()}, not root (the sandbox keeps real "
                "owners without a user namespace, which needs root)")
    if not os.access("/usr/bin/python3", os.X_OK):
        return "/usr/bin/python3 is missing (the sandbox's broker runs on it)"
    from .sandbox import Sandbox, SandboxError
    from .tree import remove_scratch_tree, scratch_tree

    try:
        tree = scratch_tree()
    except OSError as exc:
        return f"cannot make a desktop tree: {exc}"
    box = Sandbox(tree)
    try:
        result = box.run("id -u")
    except (SandboxError, OSError) as exc:
        return str(exc)
    finally:
        box.close()
        remove_scratch_tree(tree)
    if result.stdout.strip() != "1000":
        return f"a trivial sandbox answered {result.stdout!r} {result.stderr!r}"
    return None


def unavailable_reason() -> str | None:
    """None when sandboxes work on this machine, else why not (probed once per process)."""
    pid = os.getpid()
    with _lock:
        if pid not in _answer:
            _answer[pid] = probe()
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
        raise RuntimeError(f"{SHELL_VARIABLE}=sandbox, but the sandbox cannot run: {reason}")
    return "simulated"


def backend_from_env(env: Mapping[str, str] | None = None) -> str:
    """The backend ``DRUMS_LOCAL_SHELL`` asks for (unset or empty: `DEFAULT_SHELL`)."""
    env = os.environ if env is None else env
    return resolve_backend(env.get(SHELL_VARIABLE, "").strip() or DEFAULT_SHELL)
