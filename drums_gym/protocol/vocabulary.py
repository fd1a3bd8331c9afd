"""The Drums v1 wire vocabulary: paths, headers, query parameters, limits, error codes and
the values of the enumerations (the JSON objects themselves are :mod:`.shapes`)."""

from __future__ import annotations

import email.utils
import time
from urllib.parse import quote

__all__ = [
    "A11Y_FORMAT",
    "ACCESSIBILITY_SUFFIX",
    "ACTIONS_SUFFIX",
    "API_PREFIX",
    "API_VERSION",
    "BEARER",
    "BRANCH_SUFFIX",
    "CHILD_FAILED",
    "CHILD_RUNNING",
    "CODE_CHILD_FAILED",
    "CODE_CONFLICT",
    "CODE_INTERNAL",
    "CODE_INVALID_ACTION",
    "CODE_INVALID_REQUEST",
    "CODE_METHOD_NOT_ALLOWED",
    "CODE_NOT_FOUND",
    "CODE_OVERLOADED",
    "CODE_QUOTA_EXCEEDED",
    "CODE_TIMEOUT",
    "CODE_TOO_LARGE",
    "CODE_UNAUTHORIZED",
    "CONTROL_WORDS",
    "CUT_LOST",
    "CUT_SANDBOX",
    "DONE",
    "EPISODE_INVALID",
    "EPISODE_PENDING",
    "EPISODE_SUFFIX",
    "EPISODE_VALID",
    "FAIL",
    "FORMAT_PNG",
    "FORMAT_RAW",
    "HEALTHZ",
    "HOST",
    "H_ACCEPT",
    "H_AUTHORIZATION",
    "H_DELTA_BASE",
    "H_DELTA_BOXES",
    "H_EPISODE_STATUS",
    "H_FRAME",
    "H_FRAME_TOKEN",
    "H_IDEMPOTENCY_KEY",
    "H_RETRY_AFTER",
    "H_SCREEN_HEIGHT",
    "H_SCREEN_WIDTH",
    "H_USER_AGENT",
    "INVALID_DESKTOP_LOST",
    "INVALID_SANDBOX_FAILED",
    "INVALID_SETUP_CUT",
    "INVALID_VERIFY_CUT",
    "LAST_ACTION_CODE",
    "LEASE_SUFFIX",
    "MAX_SEED",
    "MAX_VERIFY_WAIT_S",
    "MAX_WAIT_S",
    "Q_FORMAT",
    "Q_SINCE",
    "Q_TIMEOUT_S",
    "Q_WAIT",
    "RESET_SUFFIX",
    "SCREENSHOT_FORMATS",
    "SCREENSHOT_SUFFIX",
    "SLOTS",
    "SLOT_DELETED",
    "SLOT_RUNNING",
    "STATES",
    "STATE_ROUTE",
    "TASKS",
    "TASK_ROUTE",
    "VERIFY_SUFFIX",
    "VIEW_SUFFIX",
    "WAIT",
    "parse_retry_after",
    "slot_accessibility_path",
    "slot_actions_path",
    "slot_branch_path",
    "slot_episode_path",
    "slot_lease_path",
    "slot_path",
    "slot_reset_path",
    "slot_route",
    "slot_screenshot_path",
    "slot_verify_path",
    "slot_view_path",
    "state_path",
    "task_path",
]


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
    return slot_path(slot_id) + EPISODE_SUFFIX


def slot_actions_path(slot_id: str) -> str:
    return slot_path(slot_id) + ACTIONS_SUFFIX


def slot_screenshot_path(slot_id: str) -> str:
    return slot_path(slot_id) + SCREENSHOT_SUFFIX


def slot_accessibility_path(slot_id: str) -> str:
    return slot_path(slot_id) + ACCESSIBILITY_SUFFIX


def slot_verify_path(slot_id: str) -> str:
    return slot_path(slot_id) + VERIFY_SUFFIX


def slot_reset_path(slot_id: str) -> str:
    return slot_path(slot_id) + RESET_SUFFIX


def slot_branch_path(slot_id: str) -> str:
    return slot_path(slot_id) + BRANCH_SUFFIX


def slot_lease_path(slot_id: str) -> str:
    return slot_path(slot_id) + LEASE_SUFFIX


def slot_view_path(slot_id: str) -> str:
    """The live view page of a slot (HTML for people, not part of the API)."""
    return slot_path(slot_id) + VIEW_SUFFIX


def state_path(state_id: str) -> str:
    return f"{STATES}/{_seg(state_id)}"


def slot_route(suffix: str = "") -> str:
    """A slot route as the host declares it (``/v1/slots/{slot_id}`` plus ``suffix``)."""
    return f"{SLOTS}/{{slot_id}}{suffix}"


EPISODE_SUFFIX = "/episode"
ACTIONS_SUFFIX = "/actions"
SCREENSHOT_SUFFIX = "/screenshot"
ACCESSIBILITY_SUFFIX = "/accessibility"
VERIFY_SUFFIX = "/verify"
RESET_SUFFIX = "/reset"
BRANCH_SUFFIX = "/branch"
LEASE_SUFFIX = "/lease"
VIEW_SUFFIX = "/view"  # the live view page (drums_gym/local/view.py)
TASK_ROUTE = f"{TASKS}/{{task_id}}"
STATE_ROUTE = f"{STATES}/{{state_id}}"

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
#: the longest a verify of a pending episode waits for its gates (``timeout_s``)
MAX_VERIFY_WAIT_S = 300.0
#: the largest seed of ``"randomize": {"seed": ...}``
MAX_SEED = 2**64 - 1

# --- screenshot formats ----------------------------------------------------------------------

FORMAT_PNG = "png"
FORMAT_RAW = "raw"
SCREENSHOT_FORMATS = (FORMAT_PNG, FORMAT_RAW)

# --- enumerations ----------------------------------------------------------------------------

#: the ``format`` of ``GET /v1/slots/{id}/accessibility``
A11Y_FORMAT = "drums-a11y-v1"

SLOT_RUNNING = "running"
SLOT_DELETED = "deleted"
CHILD_RUNNING = "running"
CHILD_FAILED = "failed"

EPISODE_PENDING = "pending"
EPISODE_VALID = "valid"
EPISODE_INVALID = "invalid"

#: invalid reasons the local host adds to the gates' and faults' (docs/http-api.md)
INVALID_SETUP_CUT = "setup_cut"
INVALID_VERIFY_CUT = "verify_cut"
INVALID_DESKTOP_LOST = "desktop_lost"
INVALID_SANDBOX_FAILED = "sandbox_failed"
#: ``cut.kind`` of work whose desktop's worker was lost meanwhile
CUT_LOST = "lost"
#: ``cut.kind`` of an action the desktop's sandbox could not run (a host failure: the
#: episode is invalid, ``sandbox_failed``)
CUT_SANDBOX = "sandbox"

CODE_UNAUTHORIZED = "unauthorized"
CODE_QUOTA_EXCEEDED = "quota_exceeded"
CODE_NOT_FOUND = "not_found"
CODE_CONFLICT = "conflict"
CODE_INVALID_REQUEST = "invalid_request"
CODE_INVALID_ACTION = "invalid_action"
CODE_OVERLOADED = "overloaded"
CODE_INTERNAL = "internal"
CODE_TOO_LARGE = "too_large"
CODE_METHOD_NOT_ALLOWED = "method_not_allowed"
CODE_CHILD_FAILED = "child_failed"
CODE_TIMEOUT = "timeout"

# --- control words (POST .../actions with {"code": WORD}) -----------------------------------

DONE = "DONE"
FAIL = "FAIL"
WAIT = "WAIT"
CONTROL_WORDS = (DONE, FAIL, WAIT)
#: ``last_action`` of an episode whose last action was pyautogui code
LAST_ACTION_CODE = "code"

API_VERSION = "v1"


def parse_retry_after(value: str | None) -> float | None:
    """A ``Retry-After`` header in seconds: delta-seconds or an HTTP date (None if absent
    or unreadable). Both sides of the wire, and the model servers' clients, read it so."""
    if not value:
        return None
    value = value.strip()
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    return max(0.0, when.timestamp() - time.time())

