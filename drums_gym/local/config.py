"""Limits and timings of a local host, each settable by a ``serve`` flag and an env var.

:data:`KNOBS` is the table of them: field, ``drums-gym serve`` flag, ``DRUMS_LOCAL_*``
variable (read by the embedded host, :func:`HostConfig.from_env`) and what it bounds.
"""

from __future__ import annotations

import math
import os
from collections.abc import Mapping
from dataclasses import dataclass, fields
from typing import Any

from .. import protocol as P
from .budget import Limits
from .sandbox.detect import DEFAULT_SHELL, SHELL_BACKENDS

__all__ = ["KNOBS", "HostConfig", "Knob"]


@dataclass(frozen=True)
class Knob:
    """One limit: its :class:`HostConfig` field, ``serve`` flag, env var and help."""

    field: str
    flag: str
    env: str
    help: str


KNOBS: tuple[Knob, ...] = tuple(
    Knob(f, "--" + flag, "DRUMS_LOCAL_" + flag.upper().replace("-", "_"), text)
    for f, flag, text in (
        ("live_desktops", "live-desktops", "live desktops per workspace"),
        ("host_desktops", "host-desktops", "desktops on the whole host"),
        ("fork_limit", "fork-limit", "children per branch call"),
        ("saved_states", "saved-states", "saved states per workspace"),
        ("default_ttl_s", "default-ttl", "default lease, seconds"),
        ("max_ttl_s", "max-ttl", "longest lease, seconds"),
        ("state_idle_ttl_s", "state-idle-ttl", "idle lease of a saved state, seconds"),
        ("gate_delay_s", "gate-delay", "seconds until a new episode's gates resolve"),
        ("action_steps", "action-steps", "work steps per action, setup or verify"),
        ("action_seconds", "action-seconds", "wall seconds of work per action"),
        ("action_output_bytes", "action-output-bytes", "bytes of output per action"),
        ("slot_queue", "slot-queue", "requests waiting for one busy desktop (then 429)"),
        ("max_body_bytes", "max-body-bytes", "request body size (then 413)"),
        ("header_timeout_s", "header-timeout", "seconds to send a request's headers"),
        ("body_timeout_s", "body-timeout", "seconds between two chunks of a body (then 408)"),
        ("max_connections", "max-connections", "open connections (then refused)"),
        ("max_client_connections", "max-client-connections",
         "open connections from one client address (then refused)"),
        ("max_workspaces", "max-workspaces", "workspaces (oldest empty one forgotten)"),
        ("workspace_idle_s", "workspace-idle", "seconds an empty workspace is kept"),
        ("idempotency_keys", "idempotency-keys", "idempotency records per workspace"),
        ("deleted_records", "deleted-records", "deleted-slot records per workspace"),
        ("shell", "shell", "shell backend: auto (the sandbox where it works), sandbox, "
                           "simulated"),
        ("desktop_memory_bytes", "desktop-memory-bytes",
         "memory of one desktop's worker, bytes (cgroup, else RLIMIT_AS)"),
        ("desktop_processes", "desktop-processes", "processes of one desktop (pids cgroup)"),
        ("desktop_files", "desktop-files", "open files of one desktop's worker (RLIMIT_NOFILE)"),
        ("desktop_windows", "desktop-windows", "open windows of one desktop (then cut)"),
        ("desktop_reply_bytes", "desktop-reply-bytes",
         "one reply of a desktop's worker, bytes (then the desktop is lost)"),
        ("watchdog_grace_s", "watchdog-grace",
         "seconds past action-seconds before the host kills a desktop's worker"),
        ("workspace_threads", "workspace-threads",
         "requests of one workspace waiting on desktops at once (the rest queue)"),
        ("log_code_chars", "log-code-chars", "characters of an action kept in its log entry"),
        ("action_log_entries", "action-log-entries", "entries of an episode's action log"),
    )
)

_STRINGS = {"shell": SHELL_BACKENDS}
_INTS = {
    "live_desktops", "host_desktops", "fork_limit", "saved_states", "action_steps",
    "action_output_bytes", "slot_queue", "max_body_bytes", "max_connections",
    "max_client_connections",
    "max_workspaces", "idempotency_keys", "deleted_records",
    "desktop_memory_bytes",
    "desktop_processes", "desktop_files", "desktop_windows", "desktop_reply_bytes",
    "workspace_threads", "log_code_chars", "action_log_entries",
}


@dataclass(frozen=True)
class HostConfig:
    """Limits and timings of a local host (``drums-gym serve`` flags set them)."""

    live_desktops: int = 17  # per workspace: gym.make_vec(id, num_envs=16) and its parent
    host_desktops: int = 32  # the whole host
    fork_limit: int = 8
    saved_states: int = 8  # per workspace
    default_ttl_s: float = 900.0
    max_ttl_s: float = 86400.0
    state_idle_ttl_s: float = 1800.0
    gate_delay_s: float = 0.2
    capacity_retry_after_s: float = 2.0
    action_steps: int = 2_000_000
    action_seconds: float = 5.0
    action_output_bytes: int = 16 * 1024 * 1024
    slot_queue: int = 4
    max_body_bytes: int = 4 * 1024 * 1024
    header_timeout_s: float = 10.0
    body_timeout_s: float = 10.0
    max_connections: int = 512
    max_client_connections: int = 256  # per client address: one cannot hold them all
    max_workspaces: int = 1024
    workspace_idle_s: float = 600.0
    idempotency_keys: int = 1024
    deleted_records: int = 1024
    #: the terminal and commands: real programs in a bubblewrap sandbox per desktop, or the
    #: simulated bash (``auto``, the default: the sandbox where it can run, else the
    #: simulated bash; `shell_backend` resolves it)
    shell: str = DEFAULT_SHELL
    desktop_memory_bytes: int = 1024**3  # 1 GiB per desktop worker
    desktop_processes: int = 64
    desktop_files: int = 256
    desktop_windows: int = 64
    desktop_reply_bytes: int = 64 * 1024 * 1024
    #: past action_seconds: covers a cut's cleanup (killed programs exiting, up to the
    #: sandbox's STOP_WAIT_S) with room to spare, so a cut answers `cut` and not `lost`
    watchdog_grace_s: float = 5.0
    workspace_threads: int = 8
    log_code_chars: int = 4096
    action_log_entries: int = 10_000

    def __post_init__(self) -> None:
        for f in fields(self):
            value = getattr(self, f.name)
            if f.name in _STRINGS:
                if value not in _STRINGS[f.name]:
                    raise ValueError(f"HostConfig.{f.name} must be one of "
                                     f"{', '.join(_STRINGS[f.name])}, got {value!r}")
            elif f.name in _INTS:
                if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                    raise ValueError(f"HostConfig.{f.name} must be an int >= 1, got {value!r}")
            elif (
                isinstance(value, bool)
                or not isinstance(value, (int, float))
                or not math.isfinite(value)
                or value < 0
            ):
                raise ValueError(f"HostConfig.{f.name} must be a finite number >= 0, got {value!r}")
        if self.default_ttl_s > self.max_ttl_s:
            raise ValueError(
                f"HostConfig.default_ttl_s ({self.default_ttl_s}) exceeds max_ttl_s "
                f"({self.max_ttl_s})"
            )

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None, **overrides: Any) -> HostConfig:
        """A config from ``DRUMS_LOCAL_*`` variables (unset or empty: the default)."""
        env = os.environ if env is None else env
        values: dict[str, Any] = {}
        for knob in KNOBS:
            raw = env.get(knob.env, "").strip()
            if not raw:
                continue
            if knob.field in _STRINGS:
                if raw not in _STRINGS[knob.field]:
                    raise ValueError(f"{knob.env} must be one of "
                                     f"{', '.join(_STRINGS[knob.field])}, got {raw!r}")
                values[knob.field] = raw
                continue
            try:
                values[knob.field] = int(raw) if knob.field in _INTS else float(raw)
            except ValueError:
                kind = "an int" if knob.field in _INTS else "a number"
                raise ValueError(f"{knob.env} must be {kind}, got {raw!r}") from None
        values.update(overrides)
        return cls(**values)

    def shell_backend(self) -> str:
        """The shell backend in force: ``sandbox`` or ``simulated`` (``auto`` probes the
        machine once; ``sandbox`` where it cannot run raises RuntimeError saying why)."""
        from .sandbox import resolve_backend

        return resolve_backend(self.shell)

    def limits(self) -> Limits:
        """The work budget of one action, setup or verify."""
        return Limits(self.action_steps, self.action_seconds, self.action_output_bytes)

    def public(self) -> P.HostLimits:
        """The ``limits`` object of ``GET /v1/host``."""
        return P.HostLimits(
            live_desktops=self.live_desktops,
            host_desktops=self.host_desktops,
            fork_limit=self.fork_limit,
            saved_states=self.saved_states,
            default_ttl_s=self.default_ttl_s,
            max_ttl_s=self.max_ttl_s,
            state_idle_ttl_s=self.state_idle_ttl_s,
        )
