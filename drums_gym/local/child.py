"""The embedded host's process: ``python -m drums_gym.local.child`` (started by
:class:`drums_gym.local.embedded.EmbeddedHost`, not by hand).

It serves a :class:`~drums_gym.local.server.LocalHost` on a free loopback port configured
from the ``DRUMS_LOCAL_*`` variables it inherits, writes ``drums-embedded-port <port>`` on
its stdout once it listens (then nothing more: stdout becomes stderr), and lives exactly as long
as its parent: it stops when its stdin (a pipe the parent holds) reaches end of file, which
happens when the parent exits or dies however it dies; on Linux the kernel also sends it
SIGTERM when the parent dies (``PR_SET_PDEATHSIG``), upon which it stops the same way (its
desktops deleted, their workers ended and their files removed). A setting it cannot use ends it with
status 2 and the reason on stderr, which the parent keeps for its error message.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import os
import signal
import sys
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .config import HostConfig
    from .faults import FaultSpec

__all__ = ["ENV_PARENT", "PORT_LINE", "host_settings", "main"]

#: how the child's one line on stdout begins: the port follows
PORT_LINE = "drums-embedded-port "
#: the parent's pid, so that a child whose parent died before it was watching exits
ENV_PARENT = "DRUMS_EMBEDDED_PARENT"
_PR_SET_PDEATHSIG = 1


def _env_int(env: Mapping[str, str], name: str, default: int) -> int:
    raw = env.get(name, "").strip()
    if not raw:
        return default
    try:
        return int(raw)
    except ValueError:
        raise ValueError(f"{name} must be an int, got {raw!r}") from None


def host_settings(
    make_config: Callable[[Mapping[str, str]], HostConfig],
    env: Mapping[str, str] | None = None,
) -> tuple[HostConfig, FaultSpec, int]:
    """The config, fault spec and seed the ``DRUMS_LOCAL_*`` variables of ``env`` (default:
    this process's) describe; a bad value is a ``ValueError`` naming its variable."""
    from .faults import FaultSpec

    env = os.environ if env is None else env
    try:
        faults = FaultSpec.parse(env.get("DRUMS_LOCAL_FAULTS"))
    except ValueError as exc:
        raise ValueError(f"DRUMS_LOCAL_FAULTS: {exc}") from None
    return make_config(env), faults, _env_int(env, "DRUMS_LOCAL_SEED", 0)


def die_with_parent() -> None:
    """Ask Linux to send SIGTERM when the parent dies; exit now if it already has."""
    if sys.platform.startswith("linux"):
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6", use_errno=True)
        libc.prctl(_PR_SET_PDEATHSIG, signal.SIGTERM, 0, 0, 0)
    parent = os.environ.get(ENV_PARENT)
    if parent and str(os.getppid()) != parent:
        os._exit(0)  # the parent is gone already (we were re-parented): nobody to serve


def main() -> int:
    # Ctrl+C in the parent's terminal reaches the whole process group: the parent decides
    # (its clients still delete their desktops through us), we stop at its exit
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    die_with_parent()
    try:
        from .config import HostConfig
        from .server import LocalHost

        config, faults, seed = host_settings(HostConfig.from_env)
        server = LocalHost(config, faults=faults, seed=seed)
    except ValueError as exc:  # a bad DRUMS_LOCAL_* value, a bad task file: named
        print(f"drums-gym embedded host: {exc}", file=sys.stderr, flush=True)
        return 2
    server.start()
    sys.stdout.write(f"{PORT_LINE}{server.url.rsplit(':', 1)[1]}\n")
    sys.stdout.flush()
    os.dup2(2, 1)  # anything printed later goes to stderr (the parent reads no more stdout)
    # the parent's death sends SIGTERM (often before the pipe's end of file): stop as at
    # that end, so the desktops' workers end and their trees are removed, not left behind
    signal.signal(signal.SIGTERM, _stop_waiting)
    try:
        sys.stdin.buffer.read()  # until the parent's end of the pipe closes
    except _ParentGone:
        pass
    finally:
        signal.signal(signal.SIGTERM, signal.SIG_IGN)  # a second one must not cut the stop
        server.stop()
    return 0


class _ParentGone(Exception):
    """SIGTERM: the parent died (or someone asked the host to stop)."""


def _stop_waiting(signum: int, frame: object) -> None:
    raise _ParentGone


if __name__ == "__main__":
    sys.exit(main())
