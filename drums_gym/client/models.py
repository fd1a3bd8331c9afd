"""Frozen dataclasses for what the host answers, built from JSON.

Every `from_json` reads the fields it knows (names from `_wire`) and ignores the rest, so a
host may send more than this client understands. Missing optional fields take defaults.
"""

from __future__ import annotations

import io
from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any, NamedTuple

import numpy as np
from PIL import Image

from .._rgb import rgb_array
from . import _wire as W
from .errors import ProtocolError

__all__ = [
    "Episode",
    "Gate",
    "HostInfo",
    "HostLimits",
    "HostUsage",
    "Observation",
    "Reward",
    "Screen",
    "SlotInfo",
    "StateInfo",
    "StepResult",
    "TaskInfo",
]


# -- small typed readers ---------------------------------------------------------------------


def _obj(data: Any, what: str) -> Mapping[str, Any]:
    if not isinstance(data, Mapping):
        raise ProtocolError(f"expected a JSON object for {what}, got {type(data).__name__}")
    return data


def _req_str(data: Mapping[str, Any], key: str, what: str) -> str:
    value = data.get(key)
    if not isinstance(value, str) or not value:
        raise ProtocolError(f"{what}: field {key!r} is missing or not a string")
    return value


def _str(data: Mapping[str, Any], key: str, default: str | None = None) -> str | None:
    value = data.get(key)
    return value if isinstance(value, str) else default


def _num(data: Mapping[str, Any], key: str) -> float | None:
    value = data.get(key)
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return float(value)
    return None


def _int(data: Mapping[str, Any], key: str, default: int | None = None) -> int | None:
    value = data.get(key)
    if isinstance(value, int) and not isinstance(value, bool):
        return value
    if isinstance(value, float) and value.is_integer():
        return int(value)
    return default


def _bool(data: Mapping[str, Any], key: str, default: bool = False) -> bool:
    value = data.get(key)
    return value if isinstance(value, bool) else default


# -- models -----------------------------------------------------------------------------------


class Screen(NamedTuple):
    """A screen size in pixels; unpacks as `width, height = slot.screen`."""

    width: int
    height: int

    @classmethod
    def from_json(cls, data: Any) -> Screen | None:
        if not isinstance(data, Mapping):
            return None
        width, height = _int(data, W.F_WIDTH), _int(data, W.F_HEIGHT)
        if width is None or height is None:
            return None
        return cls(width, height)

    def to_json(self) -> dict[str, int]:
        return {W.F_WIDTH: self.width, W.F_HEIGHT: self.height}

    def __repr__(self) -> str:
        return f"Screen({self.width}x{self.height})"


@dataclass(frozen=True)
class Gate:
    """One gate of an episode: `status` is `pending`, `passed` or `failed`."""

    name: str
    status: str
    detail: str | None = None

    @classmethod
    def from_json(cls, data: Any) -> Gate:
        data = _obj(data, "a gate")
        return cls(
            name=_str(data, W.F_NAME, "?") or "?",
            status=_str(data, W.F_STATUS, "pending") or "pending",
            detail=_str(data, W.F_DETAIL),
        )

    def to_dict(self) -> dict[str, str | None]:
        """The gate as a plain dict (`name`, `status`, `detail`), e.g. for an env's `info`."""
        return {W.F_NAME: self.name, W.F_STATUS: self.status, W.F_DETAIL: self.detail}

    # Read-only mapping access, so code written against the JSON (`gate["status"]`,
    # `dict(gate)`) keeps working.
    def keys(self) -> tuple[str, ...]:
        return (W.F_NAME, W.F_STATUS, W.F_DETAIL)

    def __getitem__(self, key: str) -> str | None:
        return self.to_dict()[key]

    def __repr__(self) -> str:
        detail = f" ({self.detail})" if self.detail else ""
        return f"<Gate {self.name}={self.status}{detail}>"


def _gates(data: Mapping[str, Any]) -> tuple[Gate, ...]:
    raw = data.get(W.F_GATES)
    if not isinstance(raw, list):
        return ()
    return tuple(Gate.from_json(g) for g in raw if isinstance(g, Mapping))


@dataclass(frozen=True)
class Episode:
    """An episode of a slot: `pending` until its gates resolve, then `valid` or `invalid`.

    `invalid` is final; `invalid_reason` says why (`gate_failed`, `app_crash`, ...).
    """

    id: str
    status: str
    number: int | None = None
    invalid_reason: str | None = None
    gates: tuple[Gate, ...] = ()
    actions: int = 0
    started_at: float | None = None
    #: the episode's last action: ``"DONE"``, ``"FAIL"``, ``"WAIT"``, ``"code"``, or None
    #: (before any action, or from a host that does not say)
    last_action: str | None = None

    @classmethod
    def from_json(cls, data: Any) -> Episode:
        data = _obj(data, "an episode")
        return cls(
            id=_req_str(data, W.F_ID, "episode"),
            status=_req_str(data, W.F_STATUS, "episode"),
            number=_int(data, W.F_NUMBER),
            invalid_reason=_str(data, W.F_INVALID_REASON),
            gates=_gates(data),
            actions=_int(data, W.F_ACTIONS, 0) or 0,
            started_at=_num(data, W.F_STARTED_AT),
            last_action=_str(data, W.F_LAST_ACTION),
        )

    @property
    def pending(self) -> bool:
        return self.status == W.EPISODE_PENDING

    @property
    def valid(self) -> bool:
        return self.status == W.EPISODE_VALID

    @property
    def invalid(self) -> bool:
        return self.status == W.EPISODE_INVALID

    def __repr__(self) -> str:
        reason = f" ({self.invalid_reason})" if self.invalid_reason else ""
        gates = " ".join(f"{g.name}={g.status}" for g in self.gates)
        return (
            f"<Episode {self.id} #{self.number} {self.status}{reason} "
            f"actions={self.actions} gates[{gates}]>"
        )


@dataclass(frozen=True)
class SlotInfo:
    """A slot as the host describes it (`GET /v1/slots/{id}`)."""

    id: str
    task: str
    state: str = W.SLOT_RUNNING
    screen: Screen | None = None
    created_at: float | None = None
    expires_at: float | None = None
    ttl_s: float | None = None
    parent: str | None = None
    saved_state: str | None = None
    episode: Episode | None = None

    @classmethod
    def from_json(cls, data: Any) -> SlotInfo:
        data = _obj(data, "a slot")
        episode = data.get(W.F_EPISODE)
        return cls(
            id=_req_str(data, W.F_ID, "slot"),
            task=_str(data, W.F_TASK, "") or "",
            state=_str(data, W.F_STATE, W.SLOT_RUNNING) or W.SLOT_RUNNING,
            screen=Screen.from_json(data.get(W.F_SCREEN)),
            created_at=_num(data, W.F_CREATED_AT),
            expires_at=_num(data, W.F_EXPIRES_AT),
            ttl_s=_num(data, W.F_TTL_S),
            parent=_str(data, W.F_PARENT),
            saved_state=_str(data, W.F_SAVED_STATE),
            episode=Episode.from_json(episode) if isinstance(episode, Mapping) else None,
        )


@dataclass(frozen=True)
class StepResult:
    """What an action did: how many calls it `applied`, and the `episode` after it."""

    applied: int
    episode: Episode
    shell: str | None = None  # the host's shell backend ("sandbox", "simulated"), if said

    @classmethod
    def from_json(cls, data: Any) -> StepResult:
        data = _obj(data, "an action reply")
        return cls(
            applied=_int(data, W.F_APPLIED, 0) or 0,
            episode=Episode.from_json(data.get(W.F_EPISODE)),
            shell=_str(data, W.F_SHELL),
        )


@dataclass(frozen=True)
class Reward:
    """The verdict of `verify`: `score` counts only when `valid` is true.

    An invalid (or pending) episode's score is meaningless: leave it out, never count it as 0.
    """

    valid: bool
    score: float
    reason: str | None = None
    episode_id: str | None = None
    gates: tuple[Gate, ...] = ()

    @property
    def pending(self) -> bool:
        """The episode's gates had not resolved: no verdict (`Slot.verify` waits past it)."""
        return not self.valid and self.reason == W.EPISODE_PENDING

    @classmethod
    def from_json(cls, data: Any) -> Reward:
        data = _obj(data, "a verify reply")
        score = _num(data, W.F_SCORE)
        return cls(
            valid=_bool(data, W.F_VALID),
            score=0.0 if score is None else score,
            reason=_str(data, W.F_REASON),
            episode_id=_str(data, W.F_EPISODE_ID),
            gates=_gates(data),
        )

    def __repr__(self) -> str:
        reason = f", reason={self.reason!r}" if self.reason else ""
        return (f"Reward(valid={self.valid}, score={self.score:g}{reason}, "
                f"episode={self.episode_id})")


@dataclass(frozen=True)
class Observation:
    """A screenshot as received: `data` holds the bytes (`format` `png` or `raw`).

    `array` decodes them (once per Observation) into a fresh `uint8` array `(H, W, 3)`;
    each Observation owns its own array, never a shared buffer. For a raw frame sent as a
    delta (only the rectangle that changed), `data` is that rectangle's pixels and `array`
    the whole screen, rebuilt by the slot that received it.
    """

    format: str
    width: int
    height: int
    data: bytes = field(repr=False)
    frame: int | None = None
    episode_status: str | None = None
    token: str | None = None
    rebuilt: np.ndarray | None = field(default=None, repr=False, compare=False)

    @cached_property
    def array(self) -> np.ndarray:
        if self.rebuilt is not None:
            return self.rebuilt
        if self.format == W.FORMAT_RAW:
            expected = self.width * self.height * 3
            if len(self.data) != expected:
                raise ProtocolError(
                    f"raw screenshot has {len(self.data)} bytes, expected {expected} "
                    f"({self.width}x{self.height}x3)"
                )
            # numpy >= 2.3 types .copy() as Self, which reads as Any under python_version 3.10
            return np.frombuffer(self.data, dtype=np.uint8).reshape(  # type: ignore[no-any-return, unused-ignore]
                self.height, self.width, 3
            ).copy()
        try:
            with Image.open(io.BytesIO(self.data)) as image:
                image.load()
                if image.mode != "RGB":
                    image = image.convert("RGB")
                return rgb_array(image)
        except (OSError, ValueError) as exc:
            raise ProtocolError(f"cannot decode the {self.format} screenshot: {exc}") from exc

    def __repr__(self) -> str:
        return (
            f"<Observation {self.format} {self.width}x{self.height} frame={self.frame} "
            f"episode={self.episode_status} {len(self.data)} bytes>"
        )


@dataclass(frozen=True)
class TaskInfo:
    """A task the host serves (`instruction` is what the agent is asked to do)."""

    id: str
    short_id: str
    domain: str | None = None
    instruction: str = ""
    screen: Screen | None = None

    @classmethod
    def from_json(cls, data: Any) -> TaskInfo:
        data = _obj(data, "a task")
        task_id = _req_str(data, W.F_ID, "task")
        return cls(
            id=task_id,
            short_id=_str(data, W.F_SHORT_ID) or task_id[:8],
            domain=_str(data, W.F_DOMAIN),
            instruction=_str(data, W.F_INSTRUCTION, "") or "",
            screen=Screen.from_json(data.get(W.F_SCREEN)),
        )


@dataclass(frozen=True)
class HostLimits:
    """The host's limits (per workspace, except `host_desktops`)."""

    live_desktops: int | None = None
    host_desktops: int | None = None
    fork_limit: int | None = None
    saved_states: int | None = None
    default_ttl_s: float | None = None
    max_ttl_s: float | None = None
    state_idle_ttl_s: float | None = None

    @classmethod
    def from_json(cls, data: Any) -> HostLimits:
        data = data if isinstance(data, Mapping) else {}
        return cls(
            live_desktops=_int(data, W.F_LIVE_DESKTOPS),
            host_desktops=_int(data, W.F_HOST_DESKTOPS),
            fork_limit=_int(data, W.F_FORK_LIMIT),
            saved_states=_int(data, W.F_SAVED_STATES),
            default_ttl_s=_num(data, W.F_DEFAULT_TTL_S),
            max_ttl_s=_num(data, W.F_MAX_TTL_S),
            state_idle_ttl_s=_num(data, W.F_STATE_IDLE_TTL_S),
        )


@dataclass(frozen=True)
class HostUsage:
    """What the caller's workspace (and the whole host, `host_desktops`) uses now."""

    live_desktops: int = 0
    host_desktops: int = 0
    saved_states: int = 0

    @classmethod
    def from_json(cls, data: Any) -> HostUsage:
        data = data if isinstance(data, Mapping) else {}
        return cls(
            live_desktops=_int(data, W.F_LIVE_DESKTOPS, 0) or 0,
            host_desktops=_int(data, W.F_HOST_DESKTOPS, 0) or 0,
            saved_states=_int(data, W.F_SAVED_STATES, 0) or 0,
        )


@dataclass(frozen=True)
class HostInfo:
    """`GET /v1/host`: the host's name, limits, the caller's usage, screenshot formats."""

    api: str
    name: str
    limits: HostLimits
    usage: HostUsage
    screenshot_formats: tuple[str, ...] = (W.FORMAT_PNG,)

    @classmethod
    def from_json(cls, data: Any) -> HostInfo:
        data = _obj(data, "the host")
        formats = data.get(W.F_SCREENSHOT_FORMATS)
        return cls(
            api=_str(data, W.F_API, "v1") or "v1",
            name=_str(data, W.F_NAME, "") or "",
            limits=HostLimits.from_json(data.get(W.F_LIMITS)),
            usage=HostUsage.from_json(data.get(W.F_USAGE)),
            screenshot_formats=tuple(f for f in formats if isinstance(f, str))
            if isinstance(formats, list)
            else (W.FORMAT_PNG,),
        )


@dataclass(frozen=True)
class StateInfo:
    """A saved state (made by a fork): `slot` it was saved from, live `children`."""

    id: str
    slot: str | None = None
    children: tuple[str, ...] = ()
    delete_with_children: bool = False
    created_at: float | None = None
    expires_at: float | None = None
    size_bytes: int | None = None

    @classmethod
    def from_json(cls, data: Any) -> StateInfo:
        data = _obj(data, "a saved state")
        children = data.get(W.F_CHILDREN)
        return cls(
            id=_req_str(data, W.F_ID, "saved state"),
            slot=_str(data, W.F_SLOT),
            children=tuple(c for c in children if isinstance(c, str))
            if isinstance(children, list)
            else (),
            delete_with_children=_bool(data, W.F_DELETE_WITH_CHILDREN),
            created_at=_num(data, W.F_CREATED_AT),
            expires_at=_num(data, W.F_EXPIRES_AT),
            size_bytes=_int(data, W.F_SIZE_BYTES),
        )

