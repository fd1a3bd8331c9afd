"""The sandbox agent Python runs in: bubblewrap, no network, read-only system directories.

`sandbox_prefix` is the one place that builds it, so the per-desktop sandbox (the desktop's
own tree) can take its place. Today each run gets a fresh sandbox: ``/usr`` (and its
``/bin``, ``/lib`` links) read-only, a private ``/dev`` and a size-capped ``/tmp``, nothing
else of the machine; new user, PID, network, IPC and UTS namespaces; uid 1000 inside, a
uid of its own outside (so ``RLIMIT_NPROC`` counts this run only), no capabilities, its own
session, and killed with its parent.
"""

from __future__ import annotations

import functools
import itertools
import os
import shutil
import subprocess
from typing import Any

from .limits import PyLimits

__all__ = ["BWRAP", "PYTHON", "SHELL_VARIABLE", "available", "own_uids", "sandbox_prefix"]

BWRAP = "/usr/bin/bwrap"
SETPRIV = "/usr/bin/setpriv"
PYTHON = "/usr/bin/python3"
SHELL_VARIABLE = "DRUMS_LOCAL_SHELL"
"""``auto`` (default), ``sandbox`` or ``simulated``: ``simulated`` runs no agent Python."""

_OUTER_UID_BASE = 1 << 30
_runs = itertools.count()


def own_uids(pid: int | None = None) -> range:
    """The outer uids the sandboxes of process ``pid`` (default: this one) run as (64 per
    process, by its pid: a host's are its desktop workers')."""
    low = _OUTER_UID_BASE + ((os.getpid() if pid is None else pid) % (1 << 22)) * 64
    return range(low, low + 64)


def _outer_uid() -> int:
    """A uid no other run of this machine holds now (pid and a per-process counter)."""
    return own_uids()[next(_runs) % 64]


def sandbox_prefix(desktop: Any, limits: PyLimits | None = None) -> list[str]:
    """The argv that runs a command in ``desktop``'s sandbox (the command follows it).

    ``desktop`` is not read yet: the sandbox holds no file of the desktop. When the desktop
    has a tree of its own (the per-desktop sandbox), this is where it is bound.
    """
    limits = limits if limits is not None else PyLimits()
    uid = str(_outer_uid())
    drop = [SETPRIV, "--reuid", uid, "--regid", uid, "--clear-groups", "--"]
    bwrap = [
        BWRAP,
        "--ro-bind", "/usr", "/usr",
        "--symlink", "usr/bin", "/bin",
        "--symlink", "usr/lib", "/lib",
        "--symlink", "usr/lib64", "/lib64",
        "--symlink", "usr/sbin", "/sbin",
        "--dev", "/dev",
        "--size", str(limits.tmp_bytes), "--tmpfs", "/tmp",
        "--unshare-all",
        "--die-with-parent",
        "--new-session",
        "--uid", "1000", "--gid", "1000",
        "--hostname", "ubuntu",
        "--clearenv",
        "--setenv", "HOME", "/tmp",
        "--setenv", "PATH", "/usr/bin:/bin",
        "--chdir", "/tmp",
        "--",
    ]  # fmt: skip
    return limits.prlimit_argv() + drop + bwrap


def _shell_setting() -> str:
    return os.environ.get(SHELL_VARIABLE, "auto").strip().lower() or "auto"


def available() -> bool:
    """Whether agent Python can run here: the tools exist, the setting allows it, and a
    probe run in the sandbox works (probed once per process and setting)."""
    return _probe(_shell_setting())


@functools.cache
def _probe(setting: str) -> bool:
    if setting == "simulated":
        return False
    for tool in (BWRAP, SETPRIV, PYTHON, "/usr/bin/prlimit"):
        if shutil.which(tool) is None:
            return False
    argv = [*sandbox_prefix(None), PYTHON, "-I", "-S", "-c", "pass"]
    try:
        done = subprocess.run(argv, capture_output=True, timeout=10, check=False)
    except (OSError, subprocess.TimeoutExpired):
        return False
    return done.returncode == 0
