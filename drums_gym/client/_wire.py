"""The wire protocol as the client speaks it: every path, header, parameter and field name.

This is the only module of the client that spells the protocol (docs/http-api.md).
Everything else refers to these names, so a renamed field is a one-line change.
"""

from __future__ import annotations

from urllib.parse import quote

# --- paths -----------------------------------------------------------------------------------

API_PREFIX = "/v1"
HEALTHZ = "/healthz"
HOST = f"{API_PREFIX}/host"
TASKS = f"{API_PREFIX}/tasks"
SLOTS = f"{API_PREFIX}/slots"
STATES = f"{API_PREFIX}/states"


def _seg(value: str) -> str:
    """One path segment, percent-encoded (ids never carry a slash)."""
    return quote(str(value), safe="")


def task_path(task_id: str) -> str:
    return f"{TASKS}/{_seg(task_id)}"


def slot_path(slot_id: str) -> str:
    return f"{SLOTS}/{_seg(slot_id)}"


def slot_episode_path(slot_id: str) -> str:
    return f"{slot_path(slot_id)}/episode"


def slot_actions_path(slot_id: str) -> str:
    return f"{slot_path(slot_id)}/actions"


def slot_screenshot_path(slot_id: str) -> str:
    return f"{slot_path(slot_id)}/screenshot"


def slot_accessibility_path(slot_id: str) -> str:
    return f"{slot_path(slot_id)}/accessibility"


def slot_verify_path(slot_id: str) -> str:
    return f"{slot_path(slot_id)}/verify"


def slot_reset_path(slot_id: str) -> str:
    return f"{slot_path(slot_id)}/reset"


def slot_branch_path(slot_id: str) -> str:
    return f"{slot_path(slot_id)}/branch"


def slot_lease_path(slot_id: str) -> str:
    return f"{slot_path(slot_id)}/lease"


def state_path(state_id: str) -> str:
    return f"{STATES}/{_seg(state_id)}"


# --- headers ---------------------------------------------------------------------------------

H_AUTHORIZATION = "Authorization"
H_USER_AGENT = "User-Agent"
H_ACCEPT = "Accept"
H_IDEMPOTENCY_KEY = "Idempotency-Key"
H_RETRY_AFTER = "Retry-After"
H_SCREEN_WIDTH = "X-Screen-Width"
H_SCREEN_HEIGHT = "X-Screen-Height"
H_EPISODE_STATUS = "X-Episode-Status"
H_FRAME = "X-Frame"
H_FRAME_TOKEN = "X-Frame-Token"
H_DELTA_BASE = "X-Delta-Base"
H_DELTA_BOXES = "X-Delta-Boxes"

BEARER = "Bearer"

# --- query parameters ------------------------------------------------------------------------

Q_WAIT = "wait"
Q_TIMEOUT_S = "timeout_s"
Q_FORMAT = "format"
Q_SINCE = "since"

#: The host holds a long-poll for at most this many seconds.
MAX_WAIT_S = 60.0
#: The host holds a verify of a pending episode for at most this many seconds.
MAX_VERIFY_WAIT_S = 300.0

# --- screenshot formats ----------------------------------------------------------------------

FORMAT_PNG = "png"
FORMAT_RAW = "raw"
SCREENSHOT_FORMATS = (FORMAT_PNG, FORMAT_RAW)

# --- JSON fields -----------------------------------------------------------------------------

# shared
F_ID = "id"
F_TASK = "task"
F_STATE = "state"
F_SCREEN = "screen"
F_WIDTH = "width"
F_HEIGHT = "height"
F_TTL_S = "ttl_s"
F_CREATED_AT = "created_at"
F_EXPIRES_AT = "expires_at"
F_DELETED = "deleted"

# slot
F_PARENT = "parent"
F_SAVED_STATE = "saved_state"
F_EPISODE = "episode"
F_SLOTS = "slots"

# episode and gates
F_NUMBER = "number"
F_STATUS = "status"
F_INVALID_REASON = "invalid_reason"
F_GATES = "gates"
F_ACTIONS = "actions"
F_STARTED_AT = "started_at"
F_NAME = "name"
F_DETAIL = "detail"
F_LAST_ACTION = "last_action"  # "DONE" | "FAIL" | "WAIT" | "code" | null

# actions
F_CODE = "code"
F_APPLIED = "applied"

# verify
F_STRICT = "strict"
F_TIMEOUT_S = "timeout_s"  # how long a verify of a pending episode waits for its gates
F_VALID = "valid"
F_SCORE = "score"
F_REASON = "reason"
F_EPISODE_ID = "episode_id"

# branch (fixed byte-for-byte by the Drums docs)
F_N = "n"
F_DELETE_STATE_WITH_CHILDREN = "delete_state_with_children"
F_CHILDREN = "children"
F_ERROR = "error"

# saved states
F_STATES = "states"
F_SLOT = "slot"
F_DELETE_WITH_CHILDREN = "delete_with_children"
F_SIZE_BYTES = "size_bytes"

# tasks
F_TASKS = "tasks"
F_SHORT_ID = "short_id"
F_DOMAIN = "domain"
F_INSTRUCTION = "instruction"

# host
F_API = "api"
F_LIMITS = "limits"
F_USAGE = "usage"
F_SCREENSHOT_FORMATS = "screenshot_formats"
F_LIVE_DESKTOPS = "live_desktops"
F_HOST_DESKTOPS = "host_desktops"
F_FORK_LIMIT = "fork_limit"
F_SAVED_STATES = "saved_states"
F_DEFAULT_TTL_S = "default_ttl_s"
F_MAX_TTL_S = "max_ttl_s"
F_STATE_IDLE_TTL_S = "state_idle_ttl_s"

# errors: {"error": {"code", "message", "details"}}
F_MESSAGE = "message"
F_DETAILS = "details"
F_RETRY_AFTER_MS = "retry_after_ms"

# --- enumerations ----------------------------------------------------------------------------

SLOT_RUNNING = "running"
SLOT_DELETED = "deleted"
CHILD_RUNNING = "running"
CHILD_FAILED = "failed"

EPISODE_PENDING = "pending"
EPISODE_VALID = "valid"
EPISODE_INVALID = "invalid"

# the control words an action may be instead of pyautogui code (also episode.last_action)
CONTROL_DONE = "DONE"
CONTROL_FAIL = "FAIL"
CONTROL_WAIT = "WAIT"
LAST_ACTION_CODE = "code"

CODE_UNAUTHORIZED = "unauthorized"
CODE_QUOTA_EXCEEDED = "quota_exceeded"
CODE_NOT_FOUND = "not_found"
CODE_CONFLICT = "conflict"
CODE_INVALID_REQUEST = "invalid_request"
CODE_INVALID_ACTION = "invalid_action"
CODE_OVERLOADED = "overloaded"
CODE_INTERNAL = "internal"
