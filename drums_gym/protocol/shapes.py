"""Every JSON object of the Drums v1 wire, once: request bodies, replies, errors.

Frozen stdlib dataclasses whose field names are the JSON field names. The host builds its
replies from them and declares them as FastAPI ``response_model`` (so its OpenAPI schema
describes every reply); the client sends bodies with :func:`.codec.encode` and reads every
reply with :func:`.codec.decode`. A field with a default may be absent from what a host
sends (a client reads the default); fields a reply does not define are ignored.
"""

# No ``from __future__ import annotations``: the annotations stay objects, so neither pydantic
# nor `decode` compiles strings while serving a request.
from dataclasses import dataclass, field
from typing import Any

from .vocabulary import API_VERSION, CHILD_RUNNING, FORMAT_PNG, SLOT_RUNNING

__all__ = [
    "AccessibilityReply",
    "ActionBody",
    "ActionLog",
    "ActionLogEntry",
    "ActionReply",
    "BranchBody",
    "BranchReply",
    "ChildError",
    "ChildReply",
    "CreateSlotBody",
    "CutReply",
    "DeletedReply",
    "EpisodeReply",
    "ErrorBody",
    "ErrorDetails",
    "ErrorReply",
    "GateReply",
    "HealthReply",
    "HostLimits",
    "HostReply",
    "HostUsage",
    "LeaseBody",
    "Randomize",
    "ResetBody",
    "ScreenSize",
    "SlotList",
    "SlotReply",
    "StateList",
    "StateReply",
    "TaskList",
    "TaskReply",
    "VerifyBody",
    "VerifyReply",
]



# --- shared ----------------------------------------------------------------------------------


@dataclass(frozen=True, kw_only=True)
class ScreenSize:
    """A screen size in pixels (``screen`` of create, of slots and tasks)."""

    width: int
    height: int


@dataclass(frozen=True, kw_only=True)
class Randomize:
    """``"randomize": {"seed": k}``: vary what no checker reads (the local host's opt-in)."""

    seed: int


# --- request bodies --------------------------------------------------------------------------


@dataclass(frozen=True, kw_only=True)
class CreateSlotBody:
    """``POST /v1/slots``."""

    task: str
    ttl_s: float | None = None
    screen: ScreenSize | None = None
    randomize: Randomize | None = None


@dataclass(frozen=True, kw_only=True)
class LeaseBody:
    """``POST /v1/slots/{id}/lease``: the lease now ends ``ttl_s`` seconds from now."""

    ttl_s: float


@dataclass(frozen=True, kw_only=True)
class ActionBody:
    """``POST /v1/slots/{id}/actions``: pyautogui code or a control word."""

    code: str


@dataclass(frozen=True, kw_only=True)
class VerifyBody:
    """``POST /v1/slots/{id}/verify`` (``timeout_s`` bounds the wait for pending gates)."""

    strict: bool = True
    timeout_s: float = 30.0


@dataclass(frozen=True, kw_only=True)
class ResetBody:
    """``POST /v1/slots/{id}/reset``: optionally randomized, or from a saved ``state``."""

    randomize: Randomize | None = None
    state: str | None = None


@dataclass(frozen=True, kw_only=True)
class BranchBody:
    """``POST /v1/slots/{id}/branch`` (fixed byte-for-byte by the Drums docs)."""

    n: int
    delete_state_with_children: bool = False
    ttl_s: float | None = None


# --- episodes and slots ----------------------------------------------------------------------


@dataclass(frozen=True, kw_only=True)
class GateReply:
    """One gate of an episode: ``status`` is ``pending``, ``passed`` or ``failed``."""

    name: str
    status: str = "pending"
    detail: str | None = None


@dataclass(frozen=True, kw_only=True)
class EpisodeReply:
    """``GET /v1/slots/{id}/episode``."""

    id: str
    number: int | None = None
    status: str
    invalid_reason: str | None = None
    gates: tuple[GateReply, ...] = ()
    actions: int = 0
    started_at: float | None = None
    #: ``DONE``, ``FAIL``, ``WAIT``, ``code`` (LAST_ACTION_CODE), or None before any action
    last_action: str | None = None
    #: the last verify's score (the local host's live view), None before one
    score: float | None = None


@dataclass(frozen=True, kw_only=True)
class SlotReply:
    """A slot: ``GET /v1/slots/{id}``, and the reply of create, lease and reset."""

    id: str
    task: str = ""
    state: str = SLOT_RUNNING
    created_at: float | None = None
    expires_at: float | None = None
    ttl_s: float | None = None
    screen: ScreenSize | None = None
    parent: str | None = None
    saved_state: str | None = None
    episode: EpisodeReply | None = None


@dataclass(frozen=True, kw_only=True)
class SlotList:
    """``GET /v1/slots``."""

    slots: tuple[SlotReply, ...] = ()


@dataclass(frozen=True, kw_only=True)
class DeletedReply:
    """``DELETE /v1/slots/{id}`` and ``DELETE /v1/states/{id}``."""

    id: str
    deleted: bool = True


# --- actions and verify ----------------------------------------------------------------------


@dataclass(frozen=True, kw_only=True)
class CutReply:
    """A host limit stopped the work: which (``kind``: steps, time, output) and why."""

    kind: str
    detail: str = ""


@dataclass(frozen=True, kw_only=True)
class ActionReply:
    """``POST /v1/slots/{id}/actions``."""

    applied: int = 0
    episode: EpisodeReply
    cut: CutReply | None = None
    #: what stopped code run as Python (its traceback's last line)
    action_error: str | None = None
    #: the path the action took: ``fast`` (plain calls) or ``python``
    runner: str | None = None
    #: the shell backend that did the work: ``sandbox`` or ``simulated``
    shell: str | None = None


@dataclass(frozen=True, kw_only=True)
class ActionLogEntry:
    """One action of the log; a field that is None is left out of the reply."""

    code: str
    applied: int = 0
    t: float | None = None
    control: str | None = None
    runner: str | None = None
    action_error: str | None = None
    cut: CutReply | None = None
    #: why the host refused the action (a refused action is no action of the episode)
    error: str | None = None


@dataclass(frozen=True, kw_only=True)
class ActionLog:
    """``GET /v1/slots/{id}/actions``."""

    episode: str
    actions: tuple[ActionLogEntry, ...] = ()


@dataclass(frozen=True, kw_only=True)
class AccessibilityReply:
    """``GET /v1/slots/{id}/accessibility``: ``tree`` is data in ``format``."""

    format: str
    tree: dict[str, Any]


@dataclass(frozen=True, kw_only=True)
class VerifyReply:
    """``POST /v1/slots/{id}/verify``: ``score`` counts only when ``valid``."""

    valid: bool = False
    score: float = 0.0
    reason: str | None = None
    episode_id: str | None = None
    gates: tuple[GateReply, ...] = ()
    cut: CutReply | None = None
    shell: str | None = None


# --- fork and saved states -------------------------------------------------------------------


@dataclass(frozen=True, kw_only=True)
class ChildError:
    """Why a fork child did not come up."""

    code: str
    message: str = ""


@dataclass(frozen=True, kw_only=True)
class ChildReply:
    """One fork child: ``running``, or ``failed`` with its ``error`` (left out otherwise)."""

    id: str
    state: str = CHILD_RUNNING
    error: ChildError | None = None


@dataclass(frozen=True, kw_only=True)
class BranchReply:
    """``POST /v1/slots/{id}/branch``: the saved state and the children."""

    state: str
    children: tuple[ChildReply, ...] = ()


@dataclass(frozen=True, kw_only=True)
class StateReply:
    """A saved state: ``GET /v1/states/{id}``."""

    id: str
    slot: str | None = None
    children: tuple[str, ...] = ()
    delete_with_children: bool = False
    created_at: float | None = None
    expires_at: float | None = None
    size_bytes: int | None = None


@dataclass(frozen=True, kw_only=True)
class StateList:
    """``GET /v1/states``."""

    states: tuple[StateReply, ...] = ()


# --- tasks and the host ----------------------------------------------------------------------


@dataclass(frozen=True, kw_only=True)
class TaskReply:
    """``GET /v1/tasks/{id}``."""

    id: str
    short_id: str = ""
    domain: str | None = None
    instruction: str = ""
    screen: ScreenSize | None = None


@dataclass(frozen=True, kw_only=True)
class TaskList:
    """``GET /v1/tasks``."""

    tasks: tuple[TaskReply, ...] = ()


@dataclass(frozen=True, kw_only=True)
class HostLimits:
    """The host's limits (per workspace, except ``host_desktops``)."""

    live_desktops: int | None = None
    host_desktops: int | None = None
    fork_limit: int | None = None
    saved_states: int | None = None
    default_ttl_s: float | None = None
    max_ttl_s: float | None = None
    state_idle_ttl_s: float | None = None


@dataclass(frozen=True, kw_only=True)
class HostUsage:
    """What the caller's workspace (and the whole host, ``host_desktops``) uses now."""

    live_desktops: int = 0
    host_desktops: int = 0
    saved_states: int = 0


@dataclass(frozen=True, kw_only=True)
class HostReply:
    """``GET /v1/host``."""

    api: str = API_VERSION
    name: str = ""
    limits: HostLimits = field(default_factory=HostLimits)
    usage: HostUsage = field(default_factory=HostUsage)
    screenshot_formats: tuple[str, ...] = (FORMAT_PNG,)


@dataclass(frozen=True, kw_only=True)
class HealthReply:
    """``GET /healthz``: the host is up, which shell backend it runs, and what isolates its
    desktops (``cgroup``, ``rlimit``, ``in_process`` or ``pending``)."""

    ok: bool = True
    shell: str | None = None
    isolation: str | None = None


# --- errors ----------------------------------------------------------------------------------


@dataclass(frozen=True, kw_only=True)
class ErrorDetails:
    """What the ``details`` of an error may hold: each error sends the fields it has (the
    rest are left out), and a host may send others (``details`` is an open object)."""

    field: str | None = None  # invalid_request: the field that was wrong
    limit: int | None = None  # quota_exceeded
    live: int | None = None
    requested: int | None = None
    saved_states: int | None = None
    slot: str | None = None  # not_found, conflict
    state: str | None = None
    task: str | None = None
    reason: str | None = None
    episode: EpisodeReply | None = None  # conflict: the episode as it is
    idempotency_key: str | None = None
    construct: str | None = None  # invalid_action: what was refused, on which line
    line: int | None = None
    max_bytes: int | None = None  # too_large
    retry_after_ms: int | None = None  # overloaded


@dataclass(frozen=True, kw_only=True)
class ErrorBody:
    """``error`` of an error reply: the machine ``code``, a message, the details."""

    code: str
    message: str = ""
    #: an `ErrorDetails` as JSON (decode it to read what it holds)
    details: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True, kw_only=True)
class ErrorReply:
    """Every 4xx/5xx reply: ``{"error": {"code", "message", "details"}}``."""

    error: ErrorBody
