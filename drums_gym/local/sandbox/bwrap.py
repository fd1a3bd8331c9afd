"""The bubblewrap command line of a desktop's sandbox (`bwrap_argv`).

One sandbox per desktop: no network (``--unshare-net``), new PID/IPC/UTS namespaces, host
name ``ubuntu``, ``--die-with-parent``, the desktop's tree read-write as ``/`` (so ``/home``,
``/etc``, ``/tmp``, ``/root``, ``/var`` and whatever root makes at the top, ``sudo mkdir
/test``, are the desktop's), the machine's system directories read-only over it (``/usr``
and the ``/bin``, ``/sbin``, ``/lib*`` links or folders beside it), a fresh ``/proc``, a
minimal ``/dev`` (null, zero, full, random, urandom, tty, pts, shm) and a private ``/run``
holding the broker and the sudo door, with the tree's ``/run/user/1000`` (the user's
runtime folder, `tree.RUNTIME_DIR`) bound in it. Nothing else of the machine is mounted: not its
``/etc``, ``/root``, ``/opt`` or the project's folders.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Sequence

from .tree import RUNTIME_DIR

__all__ = ["BROKER", "CAPS", "ENV", "SHIMS", "bwrap_argv", "bwrap_path", "join_cgroup"]

_INSIDE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "inside")
BROKER = os.path.join(_INSIDE, "broker.py")
SHIMS = os.path.join(_INSIDE, "bin")
#: what the root broker keeps (bwrap drops every other capability)
CAPS: tuple[str, ...] = ("CAP_CHOWN", "CAP_DAC_OVERRIDE", "CAP_DAC_READ_SEARCH", "CAP_FOWNER",
                         "CAP_FSETID", "CAP_SETUID", "CAP_SETGID", "CAP_KILL")
PATH = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin:/snap/bin"
#: the environment of the user's programs (a terminal adds TERM)
ENV: dict[str, str] = {"PATH": PATH, "HOME": "/home/user", "USER": "user", "LOGNAME": "user",
                       "SHELL": "/bin/bash", "LANG": "C.UTF-8"}
_SYSTEM = ("bin", "sbin", "lib", "lib32", "lib64", "libx32")


def bwrap_path() -> str | None:
    """The bubblewrap executable, if the machine has one."""
    return shutil.which("bwrap")


def _system_mounts(tree: str) -> list[str]:
    """The machine's /usr read-only, and /bin, /sbin, /lib* as the machine has them: links
    (made in the tree, where the tree does not have them yet) or read-only folders."""
    out = ["--ro-bind", "/usr", "/usr"]
    for name in _SYSTEM:
        host = "/" + name
        if os.path.islink(host):
            mine = os.path.join(tree, name)
            if not (os.path.islink(mine) and os.readlink(mine) == os.readlink(host)):
                out += ["--symlink", os.readlink(host), host]
        elif os.path.isdir(host):
            out += ["--ro-bind", host, host]
    return out


def join_cgroup(procs: Sequence[str], argv: Sequence[str]) -> list[str]:
    """``argv`` started by a shell that first moves itself into the cgroups (``procs``,
    their ``cgroup.procs`` files), so everything it becomes is counted from the start."""
    if not procs:
        return list(argv)
    script = 'IFS=:; for p in $DRUMS_CGROUP_PROCS; do echo $$ > "$p" || exit 125; done; ' \
             'unset DRUMS_CGROUP_PROCS IFS; exec "$@"'
    return ["/usr/bin/env", "DRUMS_CGROUP_PROCS=" + ":".join(procs), "/bin/sh", "-c", script,
            "sh", *argv]


def bwrap_argv(tree: str, inner: Sequence[str], *, caps: Sequence[str] = (),
               env: dict[str, str] | None = None, hostname: str = "ubuntu",
               host_sock: str | None = None) -> list[str]:
    """bwrap running ``inner`` in the sandbox over ``tree`` (as root with ``caps`` kept; no
    capability at all when ``caps`` is empty); ``host_sock``, the owner process's door for
    the desktop's own commands, is bound at /run/drums/host.sock."""
    bwrap = bwrap_path()
    if bwrap is None:
        raise FileNotFoundError("bwrap (package bubblewrap) is not installed")
    argv = [bwrap, "--unshare-net", "--unshare-pid", "--unshare-ipc", "--unshare-uts",
            "--unshare-cgroup-try", "--hostname", hostname, "--die-with-parent",
            "--new-session", "--bind", tree, "/", *_system_mounts(tree)]
    argv += ["--ro-bind", SHIMS, "/usr/local/sbin",
             "--proc", "/proc", "--dev", "/dev",
             "--perms", "0755", "--tmpfs", "/run", "--dir", "/run/drums",
             "--ro-bind", BROKER, "/run/drums/broker.py",
             "--bind", tree.rstrip("/") + RUNTIME_DIR, RUNTIME_DIR,
             *(["--bind", host_sock, "/run/drums/host.sock"] if host_sock else []),
             "--chdir", "/", "--clearenv"]
    for key, value in (env if env is not None else ENV).items():
        argv += ["--setenv", key, value]
    argv += ["--cap-drop", "ALL"]
    for cap in caps:
        argv += ["--cap-add", cap]
    return [*argv, "--", *inner]
