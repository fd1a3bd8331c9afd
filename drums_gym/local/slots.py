"""What a workspace holds: slots (live desktops), saved states, and deleted slots' traces."""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass, field
from typing import Any

from .desktop import Desktop
from .episodes import Episode
from .tasks import Task

__all__ = ["STATE_SIZE_BYTES", "Gone", "SavedState", "Slot", "Workspace"]

#: what one saved state costs the host (the Drums docs: about 0.6 GB)
STATE_SIZE_BYTES = 644_245_094


@dataclass
class Slot:
    """A live desktop in a workspace, with its current episode."""

    id: str
    workspace: str
    task: Task
    desktop: Desktop
    episode: Episode
    ttl_s: float
    expires_at: float
    parent: str | None = None
    saved_state: str | None = None
    created_at: float = field(default_factory=time.time)
    state: str = "running"  # running | deleted
    deleted_reason: str | None = None
    lock: threading.RLock = field(default_factory=threading.RLock, repr=False)
    epoch: int = 0  # bumped when reset replaces the desktop: frame tokens never repeat
    _encoded: dict[str, tuple[int, bytes]] = field(default_factory=dict, repr=False)
    _served_raw: tuple[str, bytes] | None = field(default=None, repr=False)

    def public(self) -> dict[str, Any]:
        self.episode.refresh()
        return {
            "id": self.id,
            "task": self.task.id,
            "state": self.state,
            "created_at": self.created_at,
            "expires_at": self.expires_at,
            "ttl_s": self.ttl_s,
            "screen": {"width": self.desktop.width, "height": self.desktop.height},
            "parent": self.parent,
            "saved_state": self.saved_state,
            "episode": self.episode.public(),
        }


@dataclass
class SavedState:
    """A snapshot of a desktop that fork children are restored from."""

    id: str
    workspace: str
    slot_id: str
    task: Task
    desktop: Desktop
    delete_with_children: bool
    expires_at: float
    idle_ttl_s: float
    children: set[str] = field(default_factory=set)
    created_at: float = field(default_factory=time.time)

    def touch(self) -> None:
        self.expires_at = time.time() + self.idle_ttl_s

    def public(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "slot": self.slot_id,
            "children": sorted(self.children),
            "delete_with_children": self.delete_with_children,
            "created_at": self.created_at,
            "expires_at": self.expires_at,
            "size_bytes": STATE_SIZE_BYTES,
        }


@dataclass(frozen=True)
class Gone:
    """What a deleted slot still answers for a while (the host's ``GONE_KEEP_S``): its last
    public form and why it went. The desktop itself is not kept (tens of MB with its
    frame caches)."""

    last: dict[str, Any]
    deleted_reason: str | None

    def public(self) -> dict[str, Any]:
        return self.last


@dataclass
class Workspace:
    slots: dict[str, Slot] = field(default_factory=dict)
    gone: dict[str, tuple[float, Gone]] = field(default_factory=dict)
    states: dict[str, SavedState] = field(default_factory=dict)
    idempotency: dict[str, tuple[float, str, Any]] = field(default_factory=dict)
