"""Frozen dataclasses for what the host answers, built from JSON.

Every `from_json` reads its reply through the shape :mod:`drums_gym.protocol` defines for
it (`decode`): fields it does not know are ignored, so a host may send more than this
client understands; missing optional fields take the shape's defaults; a field of the
wrong type is a `ProtocolError` naming it.
"""

from __future__ import annotations

import dataclasses
import io
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any, NamedTuple, TypeVar

import numpy as np
from PIL import Image

from .. import protocol as P
from .._rgb import rgb_array
from .errors import ProtocolError

__all__ = [
    "Cut",
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
    "accessibility_of",
    "decode",
]

T = TypeVar("T")


# -- the one reader of replies -----------------------------------------------------------


def decode(shape: type[T], data: Any, what: str) -> T:
    """A reply read as its protocol ``shape``; a malformed one is a `ProtocolError` naming
    the field (the protocol's `WireError`, translated here, once)."""
    try:
        return P.decode(shape, data, what)
    except P.WireError as exc:
        raise ProtocolError(str(exc)) from None


def accessibility_of(data: Any) -> dict[str, Any]:
    """An accessibility reply (``{"format", "tree"}``), checked against its shape."""
    decode(P.AccessibilityReply, data, "an accessibility reply")
    reply: dict[str, Any] = data
    return reply


# -- models -----------------------------------------------------------------------------------


class Screen(NamedTuple):
    """A screen size in pixels; unpacks as `width, height = slot.screen`."""

    width: int
    height: int

    @classmethod
    def of(cls, wire: P.ScreenSize | None) -> Screen | None:
        return None if wire is None else cls(wire.width, wire.height)

    @classmethod
    def from_json(cls, data: Any) -> Screen | None:
        """A ``{"width", "height"}`` object as a Screen (None when it is not one)."""
        try:
            return cls.of(P.decode(P.ScreenSize, data, "a screen"))
        except P.WireError:
            return None

    def to_wire(self) -> P.ScreenSize:
        return P.ScreenSize(width=self.width, height=self.height)

    def to_json(self) -> dict[str, int]:
        """``{"width", "height"}``."""
        screen: dict[str, int] = P.encode(self.to_wire())
        return screen

    def __repr__(self) -> str:
        return f"Screen({self.width}x{self.height})"


@dataclass(frozen=True)
class Gate:
    """One gate of an episode: `status` is `pending`, `passed` or `failed`."""

    name: str
    status: str
    detail: str | None = None

    @classmethod
    def of(cls, wire: P.GateReply) -> Gate:
        return cls(name=wire.name, status=wire.status, detail=wire.detail)

    @classmethod
    def from_json(cls, data: Any) -> Gate:
        return cls.of(decode(P.GateReply, data, "a gate"))

    def to_dict(self) -> dict[str, str | None]:
        """The gate as a plain dict (`name`, `status`, `detail`), e.g. for an env's `info`."""
        return dataclasses.asdict(self)

    # Read-only mapping access, so code written against the JSON (`gate["status"]`,
    # `dict(gate)`) keeps working.
    def keys(self) -> tuple[str, ...]:
        return tuple(f.name for f in dataclasses.fields(self))

    def __getitem__(self, key: str) -> str | None:
        return self.to_dict()[key]

    def __repr__(self) -> str:
        detail = f" ({self.detail})" if self.detail else ""
        return f"<Gate {self.name}={self.status}{detail}>"


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
    def of(cls, wire: P.EpisodeReply) -> Episode:
        return cls(
            id=wire.id,
            status=wire.status,
            number=wire.number,
            invalid_reason=wire.invalid_reason,
            gates=tuple(Gate.of(g) for g in wire.gates),
            actions=wire.actions,
            started_at=wire.started_at,
            last_action=wire.last_action,
        )

    @classmethod
    def from_json(cls, data: Any) -> Episode:
        return cls.of(decode(P.EpisodeReply, data, "an episode"))

    @property
    def pending(self) -> bool:
        return self.status == P.EPISODE_PENDING

    @property
    def valid(self) -> bool:
        return self.status == P.EPISODE_VALID

    @property
    def invalid(self) -> bool:
        return self.status == P.EPISODE_INVALID

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
    state: str = P.SLOT_RUNNING
    screen: Screen | None = None
    created_at: float | None = None
    expires_at: float | None = None
    ttl_s: float | None = None
    parent: str | None = None
    saved_state: str | None = None
    episode: Episode | None = None

    @classmethod
    def of(cls, wire: P.SlotReply) -> SlotInfo:
        return cls(
            id=wire.id,
            task=wire.task,
            state=wire.state,
            screen=Screen.of(wire.screen),
            created_at=wire.created_at,
            expires_at=wire.expires_at,
            ttl_s=wire.ttl_s,
            parent=wire.parent,
            saved_state=wire.saved_state,
            episode=None if wire.episode is None else Episode.of(wire.episode),
        )

    @classmethod
    def from_json(cls, data: Any) -> SlotInfo:
        return cls.of(decode(P.SlotReply, data, "a slot"))

    @classmethod
    def list_from_json(cls, data: Any) -> list[SlotInfo]:
        return [cls.of(s) for s in decode(P.SlotList, data, "the slots").slots]


@dataclass(frozen=True)
class Cut:
    """A host limit stopped the work (an action's, or the checker's): which limit (`kind`,
    e.g. ``steps``, ``time``, ``output``) and the host's words (`detail`)."""

    kind: str
    detail: str = ""

    @classmethod
    def of(cls, wire: P.CutReply | None) -> Cut | None:
        """The ``cut`` of a reply (None when the work was not cut)."""
        return None if wire is None else cls(kind=wire.kind, detail=wire.detail)

    def to_dict(self) -> dict[str, str]:
        return dataclasses.asdict(self)


@dataclass(frozen=True)
class StepResult:
    """What an action did: how many calls it `applied`, and the `episode` after it.

    `action_error` is what stopped code run as Python (the traceback's last line; earlier
    calls stay applied, as in OSWorld); `runner` is the path it took (``fast``/``python``);
    `cut` says a host limit stopped it part way (the calls before the cut took effect).
    """

    applied: int
    episode: Episode
    action_error: str | None = None
    runner: str | None = None
    cut: Cut | None = None
    shell: str | None = None  # the host's shell backend ("sandbox", "simulated"), if said

    @classmethod
    def from_json(cls, data: Any) -> StepResult:
        wire = decode(P.ActionReply, data, "an action reply")
        return cls(
            applied=wire.applied,
            episode=Episode.of(wire.episode),
            action_error=wire.action_error,
            runner=wire.runner,
            cut=Cut.of(wire.cut),
            shell=wire.shell,
        )


@dataclass(frozen=True)
class Reward:
    """The verdict of `verify`: `score` counts only when `valid` is true.

    An invalid (or pending) episode's score is meaningless: leave it out, never count it as 0.
    `cut` is set when a host limit stopped the checker (a host that makes such an episode
    invalid says so in `valid` and `reason`; one that does not scores what it got to).
    """

    valid: bool
    score: float
    reason: str | None = None
    episode_id: str | None = None
    gates: tuple[Gate, ...] = ()
    cut: Cut | None = None

    @property
    def pending(self) -> bool:
        """The episode's gates had not resolved: no verdict (`Slot.verify` waits past it)."""
        return not self.valid and self.reason == P.EPISODE_PENDING

    @classmethod
    def from_json(cls, data: Any) -> Reward:
        wire = decode(P.VerifyReply, data, "a verify reply")
        return cls(
            valid=wire.valid,
            score=float(wire.score),
            reason=wire.reason,
            episode_id=wire.episode_id,
            gates=tuple(Gate.of(g) for g in wire.gates),
            cut=Cut.of(wire.cut),
        )

    def __repr__(self) -> str:
        reason = f", reason={self.reason!r}" if self.reason else ""
        cut = f", cut={self.cut.kind!r}" if self.cut else ""
        return (f"Reward(valid={self.valid}, score={self.score:g}{reason}{cut}, "
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
        if self.format == P.FORMAT_RAW:
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
    def of(cls, wire: P.TaskReply) -> TaskInfo:
        return cls(
            id=wire.id,
            short_id=wire.short_id or wire.id[:8],
            domain=wire.domain,
            instruction=wire.instruction,
            screen=Screen.of(wire.screen),
        )

    @classmethod
    def from_json(cls, data: Any) -> TaskInfo:
        return cls.of(decode(P.TaskReply, data, "a task"))

    @classmethod
    def list_from_json(cls, data: Any) -> list[TaskInfo]:
        return [cls.of(t) for t in decode(P.TaskList, data, "the tasks").tasks]


#: The host's limits (per workspace, except `host_desktops`): the protocol's shape itself.
HostLimits = P.HostLimits
#: What the caller's workspace (and the whole host, `host_desktops`) uses now.
HostUsage = P.HostUsage


@dataclass(frozen=True)
class HostInfo:
    """`GET /v1/host`: the host's name, limits, the caller's usage, screenshot formats."""

    api: str
    name: str
    limits: HostLimits
    usage: HostUsage
    screenshot_formats: tuple[str, ...] = (P.FORMAT_PNG,)

    @classmethod
    def from_json(cls, data: Any) -> HostInfo:
        wire = decode(P.HostReply, data, "the host")
        return cls(
            api=wire.api,
            name=wire.name,
            limits=wire.limits,
            usage=wire.usage,
            screenshot_formats=wire.screenshot_formats,
        )


class StateInfo(P.StateReply):
    """A saved state (made by a fork): `slot` it was saved from, live `children` (the
    protocol's `StateReply`, read from the host)."""

    @classmethod
    def of(cls, wire: P.StateReply) -> StateInfo:
        return cls(**dataclasses.asdict(wire))

    @classmethod
    def from_json(cls, data: Any) -> StateInfo:
        return cls.of(decode(P.StateReply, data, "a saved state"))

    @classmethod
    def list_from_json(cls, data: Any) -> list[StateInfo]:
        return [cls.of(s) for s in decode(P.StateList, data, "the saved states").states]
