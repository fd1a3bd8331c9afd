"""The local host's model: workspaces, slots (desktops), episodes, saved states, quotas.

Everything here is plain Python and thread-safe; `drums_gym.local.app` maps it onto HTTP.
Structural changes (creating, forking, deleting, quotas) hold the host lock; work on one
desktop (actions, screenshots) holds only that slot's lock, so desktops run in parallel.
"""

from __future__ import annotations

import hashlib
import json
import math
import secrets
import threading
import time
from collections.abc import Callable
from typing import Any

from ..actions import ActionError, expand, parse
from .config import HostConfig
from .desktop import Desktop
from .episodes import Episode, HostError
from .faults import Faults
from .frames import Frame, encode, frame_delta
from .slots import Gone, SavedState, Slot, Workspace
from .tasks import Task, UnknownTask, get_task

__all__ = ["Host", "HostConfig", "SavedState", "Slot"]

#: how long a deleted slot still answers ``state: deleted`` before it is forgotten
GONE_KEEP_S = 600.0
IDEMPOTENCY_KEEP_S = 24 * 3600.0
#: desktop time that passes between two action requests
ACTION_GAP_S = 1.0


def workspace_of(token: str | None) -> str:
    """The workspace a token names; the token itself is never stored or shown."""
    if not token:
        return "default"
    return "ws_" + hashlib.sha256(token.encode()).hexdigest()[:16]


def _not_found(kind: str, ident: str) -> HostError:
    return HostError(404, "not_found", f"no {kind} {ident!r} in this workspace", {kind: ident})


class Host:
    """The local Drums host model.

    >>> host = Host(HostConfig(gate_delay_s=0))
    >>> slot = host.create_slot("default", {"task": "e0df059f"})
    >>> host.wait_episode_now("default", slot["id"])["status"]
    'valid'
    >>> host.delete_slot("default", slot["id"])["deleted"]
    True
    """

    def __init__(
        self, config: HostConfig | None = None, faults: Faults | None = None, seed: int = 0
    ) -> None:
        self.config = config or HostConfig()
        self.faults = faults or Faults(seed=seed)
        self._lock = threading.RLock()
        self._workspaces: dict[str, Workspace] = {}

    # ------------------------------------------------------------------ helpers
    def _ws(self, workspace: str) -> Workspace:
        ws = self._workspaces.get(workspace)
        if ws is None:
            ws = self._workspaces[workspace] = Workspace()
        return ws

    def _slot(self, workspace: str, slot_id: str) -> Slot:
        """A running slot, or 404 (unknown) / 409 (deleted).

        The hot path (every action, screenshot and episode poll): it expires only this
        slot's lease; the sweep over everything is the background reaper's and the
        listing and allocating calls'."""
        with self._lock:
            ws = self._ws(workspace)
            slot = ws.slots.get(slot_id)
            if slot is not None and slot.expires_at <= time.time():
                self._expire(ws, slot)
                slot = None
            if slot is not None:
                return slot
            if slot_id in ws.gone:
                reason = ws.gone[slot_id][1].deleted_reason
                raise HostError(
                    409,
                    "conflict",
                    f"slot {slot_id!r} is deleted ({reason})",
                    {"slot": slot_id, "reason": reason},
                )
        raise _not_found("slot", slot_id)

    def _task(self, task_id: Any) -> Task:
        if not isinstance(task_id, str) or not task_id:
            raise HostError(
                422, "invalid_request", "task must be a task id string", {"field": "task"}
            )
        try:
            return get_task(task_id)
        except UnknownTask as exc:
            raise HostError(404, "not_found", str(exc.args[0]), {"task": task_id}) from None

    def _ttl(self, value: Any, field_name: str = "ttl_s") -> float:
        if value is None:
            return self.config.default_ttl_s
        if (
            isinstance(value, bool)
            or not isinstance(value, (int, float))
            or not math.isfinite(value)
        ):
            raise HostError(
                422, "invalid_request", f"{field_name} must be a number", {"field": field_name}
            )
        if value <= 0 or value > self.config.max_ttl_s:
            raise HostError(
                422,
                "invalid_request",
                f"{field_name} must be in (0, {self.config.max_ttl_s:g}], got {value:g}",
                {"field": field_name},
            )
        return float(value)

    def _new_episode(self, task: Task, number: int) -> Episode:
        return Episode.start(number, task.gates, self.config.gate_delay_s, self.faults)

    def _live_count(self) -> int:
        return sum(len(ws.slots) for ws in self._workspaces.values())

    def _check_capacity(self, workspace: str, desktops: int, states: int = 0) -> None:
        ws = self._ws(workspace)
        cfg = self.config
        if len(ws.slots) + desktops > cfg.live_desktops:
            raise HostError(
                403,
                "quota_exceeded",
                f"live desktop limit reached: {len(ws.slots)} running + {desktops} requested "
                f"> {cfg.live_desktops}",
                {"limit": cfg.live_desktops, "live": len(ws.slots), "requested": desktops},
            )
        if states and len(ws.states) + states > cfg.saved_states:
            raise HostError(
                403,
                "quota_exceeded",
                f"saved state limit reached: {len(ws.states)} of {cfg.saved_states}",
                {"limit": cfg.saved_states, "saved_states": len(ws.states)},
            )
        if self._live_count() + desktops > cfg.host_desktops:
            retry = cfg.capacity_retry_after_s
            raise HostError(
                429,
                "overloaded",
                f"the host is full ({self._live_count()} of {cfg.host_desktops} desktops)",
                {"retry_after_ms": int(retry * 1000)},
                {"Retry-After": str(max(1, math.ceil(retry)))},
            )

    def idempotent(
        self, workspace: str, key: str | None, fingerprint: str, make: Callable[[], Any]
    ) -> Any:
        """Run ``make`` once per idempotency key; a retry with the key answers the first result."""
        if not key:
            return make()
        with self._lock:
            ws = self._ws(workspace)
            seen = ws.idempotency.get(key)
            if seen is not None:
                if seen[1] != fingerprint:
                    raise HostError(
                        409,
                        "conflict",
                        "Idempotency-Key was already used with a different request",
                        {"idempotency_key": key},
                    )
                return seen[2]
            result = make()
            ws.idempotency[key] = (time.time(), fingerprint, result)
            return result

    # ------------------------------------------------------------------ reaping
    def reap(self) -> None:
        """Expire leases: slots past ``expires_at`` and idle saved states."""
        now = time.time()
        with self._lock:
            for ws in self._workspaces.values():
                for slot in [s for s in ws.slots.values() if s.expires_at <= now]:
                    self._expire(ws, slot)
                for state in [s for s in ws.states.values() if s.expires_at <= now]:
                    del ws.states[state.id]
                for sid in [k for k, (t, _) in ws.gone.items() if t + GONE_KEEP_S <= now]:
                    del ws.gone[sid]
                for key in [
                    k for k, (t, _, _) in ws.idempotency.items() if t + IDEMPOTENCY_KEEP_S <= now
                ]:
                    del ws.idempotency[key]

    def _expire(self, ws: Workspace, slot: Slot) -> None:
        """A slot whose lease ended: its episode is invalid and its desktop gone."""
        slot.episode.invalidate("lease_expired")
        self._drop_slot(ws, slot, "lease_expired")

    def _drop_slot(self, ws: Workspace, slot: Slot, reason: str) -> None:
        del ws.slots[slot.id]
        slot.state, slot.deleted_reason = "deleted", reason
        ws.gone[slot.id] = (time.time(), Gone(slot.public(), reason))
        state = ws.states.get(slot.saved_state) if slot.saved_state else None
        if state is not None:
            state.children.discard(slot.id)
            if state.delete_with_children and not state.children:
                del ws.states[state.id]

    # ------------------------------------------------------------------ host, tasks
    def info(self, workspace: str) -> dict[str, Any]:
        self.reap()
        with self._lock:
            ws = self._ws(workspace)
            return {
                "api": "v1",
                "name": "drums-gym local host",
                "limits": self.config.public(),
                "usage": {
                    "live_desktops": len(ws.slots),
                    "host_desktops": self._live_count(),
                    "saved_states": len(ws.states),
                },
                "screenshot_formats": ["png", "raw"],
            }

    def counts(self) -> dict[str, int]:
        """Live desktops and saved states over all workspaces (for tests and monitoring)."""
        self.reap()
        with self._lock:
            return {
                "live_desktops": self._live_count(),
                "saved_states": sum(len(ws.states) for ws in self._workspaces.values()),
            }

    # ------------------------------------------------------------------ slots
    def create_slot(
        self, workspace: str, body: dict[str, Any], idempotency_key: str | None = None
    ) -> dict[str, Any]:
        task = self._task(body.get("task"))
        ttl = self._ttl(body.get("ttl_s"))
        width, height = self._screen(body.get("screen"), task)
        fingerprint = json.dumps(["create", body], sort_keys=True, default=str)

        def make() -> dict[str, Any]:
            self.reap()
            with self._lock:
                self._check_capacity(workspace, 1)
                desktop = Desktop(width=width, height=height, seed=self.faults.seed)
                task.setup(desktop)
                desktop.take_incidents()
                slot = Slot(
                    id="slot_" + secrets.token_hex(6),
                    workspace=workspace,
                    task=task,
                    desktop=desktop,
                    episode=self._new_episode(task, 1),
                    ttl_s=ttl,
                    expires_at=time.time() + ttl,
                )
                self._ws(workspace).slots[slot.id] = slot
                return slot.public()

        return self.idempotent(workspace, idempotency_key, fingerprint, make)

    def _screen(self, screen: Any, task: Task) -> tuple[int, int]:
        if screen is None:
            return task.screen
        if not isinstance(screen, dict):
            raise HostError(422, "invalid_request", "screen must be an object", {"field": "screen"})
        width, height = screen.get("width", task.screen[0]), screen.get("height", task.screen[1])
        for name, value, low, high in (("width", width, 640, 3840), ("height", height, 480, 2160)):
            if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
                raise HostError(
                    422,
                    "invalid_request",
                    f"screen.{name} must be an int in [{low}, {high}], got {value!r}",
                    {"field": f"screen.{name}"},
                )
        return width, height

    def list_slots(self, workspace: str) -> list[dict[str, Any]]:
        self.reap()
        with self._lock:
            slots = list(self._ws(workspace).slots.values())
        return [s.public() for s in slots]

    def get_slot(self, workspace: str, slot_id: str) -> dict[str, Any]:
        self.reap()
        with self._lock:
            ws = self._ws(workspace)
            slot: Slot | Gone | None = ws.slots.get(slot_id) or (
                ws.gone[slot_id][1] if slot_id in ws.gone else None
            )
        if slot is None:
            raise _not_found("slot", slot_id)
        return slot.public()

    def delete_slot(self, workspace: str, slot_id: str) -> dict[str, Any]:
        self.reap()
        with self._lock:
            ws = self._ws(workspace)
            slot = ws.slots.get(slot_id)
            if slot is None:
                raise _not_found("slot", slot_id)
            self._drop_slot(ws, slot, "deleted")
        return {"id": slot_id, "deleted": True}

    def extend_lease(self, workspace: str, slot_id: str, body: dict[str, Any]) -> dict[str, Any]:
        if "ttl_s" not in body:
            raise HostError(422, "invalid_request", "ttl_s is required", {"field": "ttl_s"})
        ttl = self._ttl(body.get("ttl_s"))
        slot = self._slot(workspace, slot_id)
        with self._lock:
            slot.ttl_s, slot.expires_at = ttl, time.time() + ttl
        return slot.public()

    # ------------------------------------------------------------------ episodes
    def episode(self, workspace: str, slot_id: str) -> Episode:
        """The slot's current episode, refreshed (for long-polling by the app)."""
        slot = self._slot(workspace, slot_id)
        slot.episode.refresh()
        return slot.episode

    def wait_episode_now(self, workspace: str, slot_id: str) -> dict[str, Any]:
        """Block (in this thread) until the episode is not pending; for non-HTTP callers."""
        while True:
            episode = self.episode(workspace, slot_id)
            if episode.status != "pending":
                return episode.public()
            time.sleep(max(0.0, min(0.05, episode.resolve_at - time.monotonic())))

    def act(self, workspace: str, slot_id: str, body: dict[str, Any]) -> dict[str, Any]:
        code = body.get("code")
        if not isinstance(code, str):
            raise HostError(422, "invalid_request", "code must be a string", {"field": "code"})
        try:
            actions = parse(code)
        except ActionError as exc:
            raise HostError(
                422,
                "invalid_action",
                str(exc),
                {"construct": exc.construct, "line": exc.lineno},
            ) from None
        slot = self._slot(workspace, slot_id)
        with slot.lock:
            episode = slot.episode
            episode.refresh()
            if episode.status == "invalid":
                raise HostError(
                    409,
                    "conflict",
                    f"episode {episode.id} is invalid ({episode.invalid_reason})",
                    {"episode": episode.public()},
                )
            pending = episode.status == "pending"
            desktop = slot.desktop
            try:
                events = expand(actions, pointer=desktop.pointer)
            except ActionError as exc:
                raise HostError(
                    422,
                    "invalid_action",
                    str(exc),
                    {"construct": exc.construct, "line": exc.lineno},
                ) from None
            desktop.advance(ACTION_GAP_S)  # separate requests are never one double-click
            desktop.apply(events)
            incidents = desktop.take_incidents()
            episode.actions += 1
            state = self._ws(workspace).states.get(slot.saved_state or "")
            if state is not None:
                state.touch()  # a state in use is not idle
            episode.log.append({"code": code, "applied": len(actions), "t": time.time()})
            episode.refresh()
            if pending and incidents and episode.status == "pending":
                episode.invalidate("window_closed")
            return {"applied": len(actions), "episode": episode.public()}

    def action_log(self, workspace: str, slot_id: str) -> dict[str, Any]:
        slot = self._slot(workspace, slot_id)
        with slot.lock:
            return {"episode": slot.episode.id, "actions": list(slot.episode.log)}

    def screenshot(self, workspace: str, slot_id: str, fmt: str, since: str | None = None) -> Frame:
        """The screen as PNG or raw RGB. With ``since`` (the token of the raw frame the caller
        holds), a raw reply is a delta: the rectangles that changed since that frame."""
        if fmt not in ("png", "raw"):
            raise HostError(
                422,
                "invalid_request",
                f"format must be png or raw, got {fmt!r}",
                {"field": "format"},
            )
        slot = self._slot(workspace, slot_id)
        with slot.lock:
            desktop = slot.desktop
            frame = desktop.frame
            cached = slot._encoded.get(fmt)
            if cached is not None and cached[0] == frame:
                data = cached[1]
            else:  # encode once per frame and format: polling an idle screen costs nothing
                data = encode(desktop.render(), fmt)
                slot._encoded[fmt] = (frame, data)
            slot.episode.refresh()
            token = f"{slot.epoch}.{frame}"
            shot = Frame(data, desktop.width, desktop.height, frame, token, slot.episode.status)
            if fmt == "raw":
                base, slot._served_raw = slot._served_raw, (token, data)
                if since is not None and base is not None and base[0] == since:
                    boxes, patch = frame_delta(base[1], data, desktop.width, desktop.height)
                    shot = Frame(
                        patch,
                        desktop.width,
                        desktop.height,
                        frame,
                        token,
                        slot.episode.status,
                        delta_base=since,
                        boxes=boxes,
                    )
        return shot

    def accessibility(self, workspace: str, slot_id: str) -> dict[str, Any]:
        slot = self._slot(workspace, slot_id)
        with slot.lock:
            return {"format": "drums-a11y-v1", "tree": slot.desktop.accessibility()}

    def verify(self, workspace: str, slot_id: str, body: dict[str, Any]) -> dict[str, Any]:
        strict = body.get("strict", True)
        if not isinstance(strict, bool):
            raise HostError(422, "invalid_request", "strict must be a boolean", {"field": "strict"})
        slot = self._slot(workspace, slot_id)
        with slot.lock:
            episode = slot.episode
            episode.refresh()
            valid = episode.status == "valid"
            if strict and not valid:
                raise HostError(
                    409,
                    "conflict",
                    f"episode {episode.id} is {episode.status}"
                    + (f" ({episode.invalid_reason})" if episode.invalid_reason else ""),
                    {"episode": episode.public()},
                )
            score = float(slot.task.check(slot.desktop))
            return {
                "valid": valid,
                "score": score,
                "reason": None if valid else (episode.invalid_reason or episode.status),
                "episode_id": episode.id,
                "gates": [g.public() for g in episode.gates],
            }

    def reset(self, workspace: str, slot_id: str) -> dict[str, Any]:
        slot = self._slot(workspace, slot_id)
        with slot.lock:
            desktop = Desktop(
                width=slot.desktop.width, height=slot.desktop.height, seed=self.faults.seed
            )
            slot.task.setup(desktop)
            desktop.take_incidents()
            slot.desktop = desktop
            slot.epoch += 1
            slot._encoded.clear()
            slot.episode = self._new_episode(slot.task, slot.episode.number + 1)
        return slot.public()

    # ------------------------------------------------------------------ fork
    def branch(
        self, workspace: str, slot_id: str, body: dict[str, Any], idempotency_key: str | None = None
    ) -> dict[str, Any]:
        n = body.get("n")
        if isinstance(n, bool) or not isinstance(n, int) or not 1 <= n <= self.config.fork_limit:
            raise HostError(
                422,
                "invalid_request",
                f"n must be an int from 1 to the fork limit {self.config.fork_limit}, got {n!r}",
                {"field": "n", "fork_limit": self.config.fork_limit},
            )
        delete_with_children = body.get("delete_state_with_children", False)
        if not isinstance(delete_with_children, bool):
            raise HostError(
                422,
                "invalid_request",
                "delete_state_with_children must be a boolean",
                {"field": "delete_state_with_children"},
            )
        ttl = self._ttl(body.get("ttl_s"))
        fingerprint = json.dumps(["branch", slot_id, body], sort_keys=True, default=str)

        def make() -> dict[str, Any]:
            self.reap()  # expired leases free capacity before it is counted
            parent = self._slot(workspace, slot_id)
            with self._lock:
                self._check_capacity(workspace, n, states=1)
                with parent.lock:
                    snapshot = parent.desktop.clone()
                ws = self._ws(workspace)
                state = SavedState(
                    id="st_" + secrets.token_hex(6),
                    workspace=workspace,
                    slot_id=parent.id,
                    task=parent.task,
                    desktop=snapshot,
                    delete_with_children=delete_with_children,
                    expires_at=time.time() + self.config.state_idle_ttl_s,
                    idle_ttl_s=self.config.state_idle_ttl_s,
                )
                ws.states[state.id] = state
                children: list[dict[str, Any]] = []
                for _ in range(n):
                    child_id = "slot_" + secrets.token_hex(6)
                    if self.faults.roll("fork_child_fail", self.faults.spec.fork_child_fail):
                        children.append(
                            {
                                "id": child_id,
                                "state": "failed",
                                "error": {
                                    "code": "child_failed",
                                    "message": "the child desktop did not come up",
                                },
                            }
                        )
                        continue
                    child = Slot(
                        id=child_id,
                        workspace=workspace,
                        task=parent.task,
                        desktop=snapshot.clone(),
                        episode=self._new_episode(parent.task, 1),
                        ttl_s=ttl,
                        expires_at=time.time() + ttl,
                        parent=parent.id,
                        saved_state=state.id,
                    )
                    ws.slots[child.id] = child
                    state.children.add(child.id)
                    children.append({"id": child.id, "state": "running"})
                if delete_with_children and not state.children:
                    del ws.states[state.id]
                return {"state": state.id, "children": children}

        return self.idempotent(workspace, idempotency_key, fingerprint, make)

    # ------------------------------------------------------------------ saved states
    def list_states(self, workspace: str) -> list[dict[str, Any]]:
        self.reap()
        with self._lock:
            return [s.public() for s in self._ws(workspace).states.values()]

    def get_state(self, workspace: str, state_id: str) -> dict[str, Any]:
        self.reap()
        with self._lock:
            state = self._ws(workspace).states.get(state_id)
            if state is None:
                raise _not_found("state", state_id)
            return state.public()

    def delete_state(self, workspace: str, state_id: str) -> dict[str, Any]:
        self.reap()
        with self._lock:
            ws = self._ws(workspace)
            if state_id not in ws.states:
                raise _not_found("state", state_id)
            del ws.states[state_id]
        return {"id": state_id, "deleted": True}
