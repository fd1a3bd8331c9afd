"""The embedded local host: what `drums_gym.client.connect()` talks to when no DRUMS_URL is set.

One host per process, started on first use on 127.0.0.1 (a free port, a background
thread), announced in one log line, and stopped at interpreter exit. Its environment:

- ``DRUMS_LOCAL_FAULTS``: a fault spec (see :mod:`drums_gym.local.faults`), e.g.
  ``gate_fail=0.1,latency_ms=50``.
- ``DRUMS_LOCAL_SEED``: the seed of its fault rolls (default 0).
- ``DRUMS_LOCAL_GATE_DELAY``: seconds until a new episode's gates resolve (default 0.2).
- every limit of :data:`drums_gym.local.config.KNOBS`, e.g. ``DRUMS_LOCAL_LIVE_DESKTOPS``,
  ``DRUMS_LOCAL_HOST_DESKTOPS``, ``DRUMS_LOCAL_FORK_LIMIT``, ``DRUMS_LOCAL_SAVED_STATES``,
  ``DRUMS_LOCAL_DEFAULT_TTL``, ``DRUMS_LOCAL_MAX_TTL``, ``DRUMS_LOCAL_STATE_IDLE_TTL``,
  ``DRUMS_LOCAL_ACTION_STEPS``, ``DRUMS_LOCAL_ACTION_SECONDS``, ... (the ``drums-gym
  serve`` flag of the same name sets it for a served host).

The environment is read when the host starts; later changes need a new process (or an
explicit :class:`drums_gym.local.LocalHost`).
"""

from __future__ import annotations

import atexit
import logging
import os
import sys
import threading
from typing import TYPE_CHECKING

from .config import HostConfig
from .faults import FaultSpec

if TYPE_CHECKING:
    from .server import LocalHost

__all__ = ["embedded_host", "ensure_embedded_host"]

log = logging.getLogger("drums_gym.local")

_lock = threading.Lock()
_host: LocalHost | None = None


def _env_float(name: str, default: float) -> float:
    raw = os.environ.get(name)
    if raw is None or not raw.strip():
        return default
    try:
        return float(raw)
    except ValueError:
        raise ValueError(f"{name} must be a number, got {raw!r}") from None


def ensure_embedded_host() -> str:
    """The base URL of this process's embedded local host, starting it on first use."""
    global _host
    with _lock:
        if _host is None:
            faults = FaultSpec.parse(os.environ.get("DRUMS_LOCAL_FAULTS"))
            seed = int(_env_float("DRUMS_LOCAL_SEED", 0))
            config = HostConfig.from_env()
            try:
                from .server import LocalHost
            except ModuleNotFoundError as exc:
                raise ModuleNotFoundError(
                    "no DRUMS_URL is set, and the embedded local Drums host needs its server "
                    f"stack ({exc.name} is missing): pip install 'drums-gym[local]', or set "
                    "DRUMS_URL to a Drums host",
                    name=exc.name,
                ) from exc
            host = LocalHost(config, faults=faults, seed=seed).start()
            atexit.register(host.stop)
            _host = host
            message = (
                f"drums-gym: no DRUMS_URL set; using the embedded local Drums host at {host.url}"
                f" (faults: {faults})"
            )
            if log.isEnabledFor(logging.INFO) and logging.getLogger().handlers:
                log.info(message)
            else:
                print(message, file=sys.stderr)
        return _host.url


def embedded_host() -> LocalHost | None:
    """The running embedded host, if one was started (for tests and diagnostics)."""
    return _host
