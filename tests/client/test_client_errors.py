"""The client's error paths, retries and bookkeeping, with the network swapped for
handler functions (`httpx.MockTransport`): no host, no sockets."""

from __future__ import annotations

import gc
import io
import itertools
import json
import logging
import threading
from collections.abc import Callable
from typing import Any

import httpx
import numpy as np
import pytest
from PIL import Image

from drums_gym import client as drums
from drums_gym.client.errors import error_for_status

URL = "http://drums.test"
TOKEN = "tok-SECRET-9f8e7d6c5b4a"
TASK = "e0df059f-28a6-4169-924f-b9623e7184cc"

Handler = Callable[[httpx.Request], httpx.Response]


# -- helpers ------------------------------------------------------------------------------------


def err(status: int, code: str, message: str = "nope", details: dict | None = None,
        headers: dict | None = None) -> httpx.Response:
    body = {"error": {"code": code, "message": message, "details": details or {}}}
    return httpx.Response(status, json=body, headers=headers)


def episode(status: str = "valid", reason: str | None = None, **extra: Any) -> dict:
    return {"id": "ep_1", "number": 1, "status": status, "invalid_reason": reason,
            "gates": [{"name": "desktop_ready", "status": "passed", "detail": None}],
            "actions": 0, "started_at": 1.0, **extra}


def slot_json(slot_id: str, **extra: Any) -> dict:
    return {"id": slot_id, "task": TASK, "state": "running", "created_at": 1.0,
            "expires_at": 901.0, "ttl_s": 900, "screen": {"width": 4, "height": 2},
            "parent": None, "saved_state": None, "episode": episode("pending"), **extra}


class Recorder:
    """Wraps a handler: counts calls and keeps every request."""

    def __init__(self, handler: Handler) -> None:
        self.handler = handler
        self.requests: list[httpx.Request] = []
        self._lock = threading.Lock()

    def __call__(self, request: httpx.Request) -> httpx.Response:
        with self._lock:
            self.requests.append(request)
        return self.handler(request)

    @property
    def calls(self) -> int:
        return len(self.requests)

    def seen(self, method: str) -> list[str]:
        return [r.url.path for r in self.requests if r.method == method]


class FakeHost:
    """Just enough of a Drums host for bookkeeping tests: slots, branch, states, deletes."""

    def __init__(self, fail_children: int = 0) -> None:
        self.slots: set[str] = set()
        self.states: set[str] = set()
        self.fail_children = fail_children
        self._ids = itertools.count(1)
        self._lock = threading.Lock()

    def new_id(self, prefix: str) -> str:
        with self._lock:
            return f"{prefix}_{next(self._ids):04d}"

    def __call__(self, request: httpx.Request) -> httpx.Response:
        parts = request.url.path.strip("/").split("/")[1:]  # drop "v1"
        method = request.method
        if parts == ["slots"] and method == "POST":
            slot_id = self.new_id("slot")
            self.slots.add(slot_id)
            return httpx.Response(201, json=slot_json(slot_id))
        if len(parts) == 2 and parts[0] == "slots":
            if parts[1] not in self.slots:
                return err(404, "not_found", f"no slot {parts[1]}")
            if method == "DELETE":
                self.slots.discard(parts[1])
                return httpx.Response(200, json={"id": parts[1], "deleted": True})
            return httpx.Response(200, json=slot_json(parts[1]))
        if len(parts) == 3 and parts[0] == "slots" and parts[2] == "branch":
            n = json.loads(request.content)["n"]
            state = self.new_id("st")
            self.states.add(state)
            children = []
            for i in range(n):
                child = self.new_id("slot")
                if i < self.fail_children:
                    children.append({"id": child, "state": "failed",
                                     "error": {"code": "restore_failed", "message": "boom"}})
                else:
                    self.slots.add(child)
                    children.append({"id": child, "state": "running"})
            return httpx.Response(200, json={"state": state, "children": children})
        if len(parts) == 2 and parts[0] == "states" and method == "DELETE":
            if parts[1] not in self.states:
                return err(404, "not_found", f"no state {parts[1]}")
            self.states.discard(parts[1])
            return httpx.Response(200, json={"id": parts[1], "deleted": True})
        return err(404, "not_found", f"no route {method} {request.url.path}")


@pytest.fixture
def make_client() -> Any:
    """`make_client(handler, **connect_kwargs)`: a client over a MockTransport whose retry
    sleeps are recorded (in `client.sleeps`) instead of slept. Closed at teardown."""
    made: list[drums.Client] = []

    def make(handler: Handler, **kwargs: Any) -> drums.Client:
        client = drums.connect(URL, TOKEN, transport=httpx.MockTransport(handler), **kwargs)
        sleeps: list[float] = []
        client._session.http._sleep = sleeps.append
        client.sleeps = sleeps  # type: ignore[attr-defined]
        made.append(client)
        return client

    yield make
    for client in made:
        client.close()


# -- status codes map to exceptions --------------------------------------------------------------

CASES = [
    (401, "unauthorized", drums.Unauthorized),
    (403, "quota_exceeded", drums.QuotaExceeded),
    (404, "not_found", drums.NotFound),
    (409, "conflict", drums.Conflict),
    (422, "invalid_request", drums.InvalidRequest),
    (422, "invalid_action", drums.ActionError),
    (429, "overloaded", drums.Overloaded),
    (500, "internal", drums.ServerError),
    (503, "overloaded", drums.ServerError),
]


@pytest.mark.parametrize(("status", "code", "cls"), CASES)
def test_status_maps_to_exception(make_client, status, code, cls):
    details = {"limit": 16, "retry_after_ms": 1}
    client = make_client(lambda r: err(status, code, "it went wrong", details), max_retries=0)
    with pytest.raises(cls) as info:
        client.host()
    e = info.value
    assert isinstance(e, drums.APIError) and isinstance(e, drums.DrumsError)
    assert (e.status, e.code, e.message, e.details) == (status, code, "it went wrong", details)
    assert (e.method, e.path) == ("GET", "/v1/host")
    assert str(e) == f"{status} {code}: it went wrong (GET /v1/host)"


def test_invalid_request_is_not_an_action_error(make_client):
    client = make_client(lambda r: err(422, "invalid_request", "bad", {"field": "ttl_s"}))
    with pytest.raises(drums.InvalidRequest) as info:
        client.host()
    assert type(info.value) is drums.InvalidRequest
    assert info.value.details == {"field": "ttl_s"}


def test_non_json_error_body_still_maps(make_client):
    client = make_client(lambda r: httpx.Response(502, text="<html>bad gateway</html>"),
                         max_retries=0)
    with pytest.raises(drums.ServerError) as info:
        client.tasks()
    assert info.value.status == 502 and info.value.code == "http_502"
    assert info.value.message == "Bad Gateway" and info.value.details == {}


def test_malformed_success_reply_is_a_protocol_error(make_client):
    client = make_client(lambda r: httpx.Response(200, text="not json"))
    with pytest.raises(drums.ProtocolError):
        client.host()
    client2 = make_client(lambda r: httpx.Response(200, json={"tasks": "nope"}))
    with pytest.raises(drums.ProtocolError):
        client2.tasks()


def test_api_errors_pickle_round_trip():
    import pickle

    e = drums.Overloaded(429, "overloaded", "full", {"retry_after_ms": 5}, method="POST",
                         path="/v1/slots", retry_after=0.005)
    again = pickle.loads(pickle.dumps(e))
    assert type(again) is drums.Overloaded and str(again) == str(e)
    assert again.retry_after == 0.005 and again.details == e.details


def test_exception_tree():
    assert issubclass(drums.ConnectError, drums.TransportError)
    assert issubclass(drums.DrumsTimeout, drums.TransportError)
    assert issubclass(drums.DrumsTimeout, TimeoutError)
    assert issubclass(drums.ActionError, drums.InvalidRequest)
    for cls in (drums.TransportError, drums.APIError, drums.ForkError, drums.InvalidEpisode,
                drums.ProtocolError):
        assert issubclass(cls, drums.DrumsError)


# -- retries -----------------------------------------------------------------------------------


def test_429_with_retry_after_ms_is_retried_then_succeeds(make_client):
    answers = iter([err(429, "overloaded", "busy", {"retry_after_ms": 4}, {"Retry-After": "1"}),
                    err(429, "overloaded", "busy", {"retry_after_ms": 4}, {"Retry-After": "1"})])
    rec = Recorder(lambda r: next(answers, None) or httpx.Response(200, json={"tasks": []}))
    client = make_client(rec)
    assert client.tasks() == []
    assert rec.calls == 3
    # the body's retry_after_ms wins over the header; a little jitter on top
    assert len(client.sleeps) == 2
    assert all(0.004 <= s <= 0.0045 for s in client.sleeps)


def test_retry_after_header_is_honoured_without_body_hint(make_client):
    answers = iter([httpx.Response(429, headers={"Retry-After": "2"}, json={})])
    rec = Recorder(lambda r: next(answers, None) or httpx.Response(200, json={"tasks": []}))
    client = make_client(rec)
    client.tasks()
    assert rec.calls == 2 and 2.0 <= client.sleeps[0] <= 2.2


def test_real_sleep_with_tiny_retry_after(make_client):
    """No recorder: the transport really sleeps the few milliseconds it was told to."""
    answers = iter([err(429, "overloaded", "busy", {"retry_after_ms": 3})])
    rec = Recorder(lambda r: next(answers, None) or httpx.Response(200, json={"tasks": []}))
    with drums.connect(URL, TOKEN, transport=httpx.MockTransport(rec)) as client:
        assert client.tasks() == []
    assert rec.calls == 2


@pytest.mark.parametrize("status", [429, 502, 503, 504])
def test_transient_statuses_are_retried_for_gets(make_client, status):
    answers = iter([err(status, "overloaded", "busy")] * 2)
    rec = Recorder(lambda r: next(answers, None) or httpx.Response(200, json={"tasks": []}))
    client = make_client(rec)
    client.tasks()
    assert rec.calls == 3
    assert all(0 <= s <= 8 for s in client.sleeps)  # exponential backoff, full jitter


@pytest.mark.parametrize(("status", "code"), [(401, "unauthorized"), (403, "quota_exceeded"),
                                              (404, "not_found"), (409, "conflict"),
                                              (422, "invalid_request"), (500, "internal")])
@pytest.mark.parametrize("call", ["get", "create", "step", "fork"])
def test_permanent_errors_are_never_retried(make_client, status, code, call):
    rec = Recorder(lambda r: err(status, code))
    client = make_client(rec)
    slot = drums.Slot(client, drums.SlotInfo(id="slot_x", task=TASK))
    action = {
        "get": client.host,
        "create": lambda: client.create(TASK),
        "step": lambda: slot.step("pyautogui.click(1, 1)"),
        "fork": lambda: slot.fork(2),
    }[call]
    with pytest.raises(drums.APIError) as info:
        action()
    assert info.value.status == status
    assert rec.calls == 1 and client.sleeps == []


def test_actions_are_not_replayed_after_a_gateway_error(make_client):
    """A 502/504 may have reached the host: a non-idempotent action is not sent twice."""
    rec = Recorder(lambda r: err(502, "bad_gateway"))
    client = make_client(rec)
    slot = drums.Slot(client, drums.SlotInfo(id="slot_x", task=TASK))
    with pytest.raises(drums.ServerError):
        slot.step("pyautogui.click(1, 1)")
    assert rec.calls == 1


def test_actions_are_retried_after_429(make_client):
    answers = iter([err(429, "overloaded", "busy", {"retry_after_ms": 1})])
    ok = {"applied": 1, "episode": episode()}
    rec = Recorder(lambda r: next(answers, None) or httpx.Response(200, json=ok))
    client = make_client(rec)
    slot = drums.Slot(client, drums.SlotInfo(id="slot_x", task=TASK))
    assert slot.step("pyautogui.click(1, 1)").applied == 1
    assert rec.calls == 2


def _keys(rec: Recorder, method: str, suffix: str) -> list[str | None]:
    return [r.headers.get("Idempotency-Key") for r in rec.requests
            if r.method == method and r.url.path.endswith(suffix)]


def test_idempotency_key_is_stable_across_retries_of_create(make_client):
    host = FakeHost()
    failures = iter([err(503, "overloaded", "busy"), err(429, "overloaded", "busy",
                                                       {"retry_after_ms": 1})])

    def handler(request: httpx.Request) -> httpx.Response:
        if request.method == "POST":
            answer = next(failures, None)
            if answer is not None:
                return answer
        return host(request)

    rec = Recorder(handler)
    client = make_client(rec)
    first = client.create(TASK)
    second = client.create(TASK)
    keys = _keys(rec, "POST", "/v1/slots")
    assert len(keys) == 4 and keys[0] and keys[0] == keys[1] == keys[2]
    assert keys[3] and keys[3] != keys[0]  # a new logical call, a new key
    assert first.id != second.id


def test_idempotency_key_is_stable_across_retries_of_branch(make_client):
    host = FakeHost()
    calls = {"branch": 0}

    def handler(request: httpx.Request) -> httpx.Response:
        if request.url.path.endswith("/branch"):
            calls["branch"] += 1
            if calls["branch"] == 1:
                raise httpx.ConnectError("refused", request=request)
            if calls["branch"] == 2:
                raise httpx.ReadTimeout("slow", request=request)  # keyed: safe to replay
        return host(request)

    rec = Recorder(handler)
    client = make_client(rec)
    parent = client.create(TASK)
    with parent.fork(2) as group:
        assert len(group) == 2
    keys = _keys(rec, "POST", "/branch")
    assert len(keys) == 3 and keys[0] and len(set(keys)) == 1
    branch_bodies = [json.loads(r.content) for r in rec.requests if r.url.path.endswith("/branch")]
    assert branch_bodies[0] == {"n": 2, "delete_state_with_children": True}


def test_connection_errors_are_retried_then_raised(make_client):
    def refuse(request: httpx.Request) -> httpx.Response:
        raise httpx.ConnectError("[Errno 111] Connection refused", request=request)

    rec = Recorder(refuse)
    client = make_client(rec, max_retries=3)
    with pytest.raises(drums.ConnectError) as info:
        client.create(TASK)  # even a POST: the request never reached the host
    assert rec.calls == 4 and len(client.sleeps) == 3
    assert isinstance(info.value.__cause__, httpx.ConnectError)
    assert "POST /v1/slots" in str(info.value)


def test_connection_error_then_success(make_client):
    attempts = iter([1, 2])

    def flaky(request: httpx.Request) -> httpx.Response:
        if next(attempts, None) is not None:
            raise httpx.ConnectError("refused", request=request)
        return httpx.Response(200, json={"tasks": []})

    rec = Recorder(flaky)
    client = make_client(rec)
    assert client.tasks() == [] and rec.calls == 3


def test_read_timeouts_are_retried_for_gets_only(make_client):
    def slow(request: httpx.Request) -> httpx.Response:
        raise httpx.ReadTimeout("timed out", request=request)

    rec = Recorder(slow)
    client = make_client(rec, max_retries=2)
    with pytest.raises(drums.DrumsTimeout) as info:
        client.host()
    assert rec.calls == 3 and isinstance(info.value, TimeoutError)
    rec.requests.clear()
    slot = drums.Slot(client, drums.SlotInfo(id="slot_x", task=TASK))
    with pytest.raises(drums.DrumsTimeout):
        slot.step("pyautogui.click(1, 1)")
    assert rec.calls == 1


def test_retry_count_is_bounded(make_client):
    rec = Recorder(lambda r: err(429, "overloaded", "busy", {"retry_after_ms": 1}))
    client = make_client(rec, max_retries=3)
    with pytest.raises(drums.Overloaded) as info:
        client.create(TASK)
    assert rec.calls == 4 and info.value.retry_after == 0.001


def test_retry_budget_is_bounded(make_client):
    """A wait longer than the whole retry budget is not slept: the error is raised now."""
    rec = Recorder(lambda r: err(429, "overloaded", "full", {"retry_after_ms": 3_600_000}))
    client = make_client(rec, retry_budget=10.0)
    with pytest.raises(drums.Overloaded) as info:
        client.create(TASK)
    assert rec.calls == 1 and client.sleeps == []
    assert info.value.retry_after == 3600.0
    # the budget is cumulative: 4 s waits fit twice in 10 s, not three times
    rec2 = Recorder(lambda r: err(429, "overloaded", "full", {"retry_after_ms": 4000}))
    client2 = make_client(rec2, retry_budget=10.0, max_retries=10)
    with pytest.raises(drums.Overloaded):
        client2.tasks()
    assert rec2.calls == 3 and len(client2.sleeps) == 2


def test_backoff_without_hint_is_exponential_full_jitter(make_client):
    rec = Recorder(lambda r: err(503, "unavailable", "down"))
    client = make_client(rec, max_retries=5, retry_budget=1000)
    client._session.http._rand = lambda: 1.0  # the jitter's upper bound
    with pytest.raises(drums.ServerError):
        client.tasks()
    assert client.sleeps == [0.25, 0.5, 1.0, 2.0, 4.0]


# -- models --------------------------------------------------------------------------------------


def test_unknown_fields_are_tolerated(make_client):
    extra = {"future_field": {"nested": [1, 2]}, "another": None}
    ep = episode("valid", **extra)
    ep["gates"][0]["weight"] = 3

    def handler(request: httpx.Request) -> httpx.Response:
        path = request.url.path
        if path == "/v1/host":
            return httpx.Response(200, json={
                "api": "v1", "name": "h", "region": "eu",
                "limits": {"live_desktops": 16, "fork_limit": 8, "gpus": 0},
                "usage": {"live_desktops": 1, "coffee": 2}, "screenshot_formats": ["png"]})
        if path == "/v1/tasks":
            return httpx.Response(200, json={"tasks": [{"id": TASK, "short_id": "e0df059f",
                                                        "instruction": "do it", **extra}],
                                             **extra})
        if path == "/v1/states":
            return httpx.Response(200, json={"states": [{"id": "st_1", "children": ["a"],
                                                         "delete_with_children": True,
                                                         **extra}]})
        if path.endswith("/verify"):
            return httpx.Response(200, json={"valid": True, "score": 1, "reason": None,
                                             "episode_id": "ep_1", "gates": [], **extra})
        if path.endswith("/actions"):
            return httpx.Response(200, json={"applied": 2, "episode": ep, **extra})
        if path.endswith("/episode"):
            return httpx.Response(200, json=ep)
        return httpx.Response(200, json=slot_json("slot_1", episode=ep, **extra))

    client = make_client(handler)
    host = client.host()
    assert host.limits.live_desktops == 16 and host.limits.fork_limit == 8
    assert host.limits.saved_states is None and host.usage.live_desktops == 1
    [task] = client.tasks()
    assert (task.id, task.short_id, task.instruction) == (TASK, "e0df059f", "do it")
    [state] = client.states()
    assert state.children == ("a",) and state.delete_with_children
    slot = client.slot("slot_1")
    assert slot.screen == drums.Screen(4, 2) and slot.task == TASK
    result = slot.step("pyautogui.click(1, 1)")
    assert result.applied == 2 and result.episode.valid
    assert result.episode.gates[0] == drums.Gate("desktop_ready", "passed", None)
    reward = slot.verify()
    assert reward == drums.Reward(True, 1.0, None, "ep_1", ())
    assert slot.wait_valid().valid
    assert "valid=True" in repr(reward) and "ep_1" in repr(result.episode)


def test_models_are_frozen():
    reward = drums.Reward(True, 1.0)
    with pytest.raises(AttributeError):
        reward.score = 0.0  # type: ignore[misc]


# -- waiting for the episode ------------------------------------------------------------------


def test_wait_valid_long_polls_until_not_pending(make_client):
    answers = iter([episode("pending"), episode("pending"), episode("valid")])
    rec = Recorder(lambda r: httpx.Response(200, json=next(answers)))
    client = make_client(rec)
    slot = drums.Slot(client, drums.SlotInfo(id="slot_x", task=TASK))
    assert slot.wait_valid(timeout=30).valid
    assert rec.calls == 3
    params = rec.requests[0].url.params
    assert params["wait"] == "true" and 0 < float(params["timeout_s"]) <= 30


def test_wait_valid_raises_invalid_episode(make_client):
    client = make_client(lambda r: httpx.Response(200, json=episode("invalid", "app_crash")))
    slot = drums.Slot(client, drums.SlotInfo(id="slot_x", task=TASK))
    with pytest.raises(drums.InvalidEpisode) as info:
        slot.wait_valid()
    assert info.value.reason == "app_crash" and info.value.episode.invalid
    assert slot.wait_episode().invalid_reason == "app_crash"  # returned, not raised


def test_wait_valid_times_out(make_client):
    client = make_client(lambda r: httpx.Response(200, json=episode("pending")))
    slot = drums.Slot(client, drums.SlotInfo(id="slot_x", task=TASK))
    with pytest.raises(drums.DrumsTimeout):
        slot.wait_valid(timeout=0.05)
    with pytest.raises(TimeoutError):
        slot.wait_valid(timeout=0)


def test_step_conflict_and_action_error_carry_details(make_client):
    def handler(request: httpx.Request) -> httpx.Response:
        code = json.loads(request.content)["code"]
        if code == "os.system('rm -rf /')":
            return err(422, "invalid_action", "refused", {"construct": "os.system"})
        return err(409, "conflict", "episode is invalid",
                   {"episode": episode("invalid", "oom_killed")})

    client = make_client(handler)
    slot = drums.Slot(client, drums.SlotInfo(id="slot_x", task=TASK))
    with pytest.raises(drums.ActionError) as bad:
        slot.step("os.system('rm -rf /')")
    assert bad.value.details["construct"] == "os.system"
    with pytest.raises(drums.Conflict) as conflict:
        slot.step("pyautogui.click(1, 1)")
    assert conflict.value.details["episode"]["invalid_reason"] == "oom_killed"
    with pytest.raises(TypeError, match="code"):
        slot.step(b"pyautogui.click(1, 1)")  # type: ignore[arg-type]


# -- fork ------------------------------------------------------------------------------------


def test_fork_strict_with_a_failed_child_raises_fork_error(make_client):
    host = FakeHost(fail_children=1)
    rec = Recorder(host)
    client = make_client(rec)
    parent = client.create(TASK)
    with pytest.raises(drums.ForkError) as info:
        parent.fork(3)
    e = info.value
    assert e.state in host.states and len(e.ok) == 2 and len(e.failed) == 1
    child_id, error = e.failed[0]
    assert error["code"] == "restore_failed" and child_id not in host.slots
    assert all(c.parent == parent.id and c.saved_state == e.state for c in e.ok)
    assert "1 of 3" in str(e) and "restore_failed" in str(e)
    with e.ok:
        assert {c.id for c in e.ok} <= host.slots
    assert host.slots == {parent.id} and host.states == set()


def test_fork_non_strict_lists_failed_children(make_client):
    host = FakeHost(fail_children=2)
    client = make_client(host)
    parent = client.create(TASK)
    with parent.fork(3, strict=False) as group:
        assert len(group) == 1 and len(group.failed) == 2
        assert group[0].id in host.slots and group[0:1] == [group[0]]
        assert [c.id for c in group] == [group[0].id]
    assert group.closed and host.slots == {parent.id} and host.states == set()


def test_fork_group_close_deletes_children_and_state(make_client):
    host = FakeHost()
    rec = Recorder(host)
    client = make_client(rec)
    parent = client.create(TASK)
    group = parent.fork(4, ttl=600)
    assert json.loads(rec.requests[-1].content) == {
        "n": 4, "delete_state_with_children": True, "ttl_s": 600}
    children = {c.id for c in group}
    assert children <= host.slots and group.state in host.states
    group.close()
    assert host.slots == {parent.id} and host.states == set()
    assert set(rec.seen("DELETE")) == {f"/v1/slots/{c}" for c in children} | {
        f"/v1/states/{group.state}"}
    before = rec.calls
    group.close()  # idempotent
    assert rec.calls == before and all(c.closed for c in children_slots(group))


def children_slots(group: drums.ForkGroup) -> list[drums.Slot]:
    return group.slots


def test_fork_group_close_tolerates_state_already_gone(make_client):
    host = FakeHost()
    client = make_client(host)
    parent = client.create(TASK)
    group = parent.fork(2)
    host.states.clear()  # the host deleted it with its last child
    group.close()
    assert host.slots == {parent.id}


def test_fork_keep_state_keeps_the_state_until_the_client_closes(make_client):
    host = FakeHost()
    rec = Recorder(host)
    client = make_client(rec)
    parent = client.create(TASK)
    with parent.fork(2, keep_state=True) as group:
        pass
    assert json.loads(rec.requests[1].content)["delete_state_with_children"] is False
    assert host.states == {group.state}
    assert client.delete_state(group.state) is True
    assert client.delete_state(group.state) is False  # already gone: fine
    with parent.fork(1, keep_state=True) as group2:
        pass
    assert host.states == {group2.state}
    client.close()
    assert host.states == set() and host.slots == set()


def test_fork_argument_errors_name_the_argument(make_client):
    client = make_client(FakeHost())
    slot = drums.Slot(client, drums.SlotInfo(id="slot_x", task=TASK))
    for bad in (0, -1, 2.0, True):
        with pytest.raises(ValueError, match="n must be"):
            slot.fork(bad)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="ttl"):
        slot.fork(2, ttl=0)


# -- nothing leaks -----------------------------------------------------------------------------


def test_client_close_deletes_what_it_created(make_client):
    host = FakeHost()
    rec = Recorder(host)
    client = make_client(rec)
    a, b = client.create(TASK), client.create(TASK)
    group = parent_group = b.fork(2, keep_state=True)
    a.delete()
    assert a.delete() is False  # idempotent
    foreign = host.new_id("slot")
    host.slots.add(foreign)
    attached = client.slot(foreign)  # not created by this client: not deleted by it
    assert attached.id == foreign
    assert "2 slots" not in repr(client) and "3 slots" in repr(client)
    client.close()
    assert host.slots == {foreign} and host.states == set()
    assert client.closed and group is parent_group
    before = rec.calls
    client.close()
    b.close()  # already deleted by the client: no request
    group.close()
    assert rec.calls == before
    with pytest.raises(drums.DrumsError, match="closed"):
        client.tasks()


def test_client_context_manager_and_slot_context_manager(make_client):
    host = FakeHost()
    with make_client(host) as client:
        with client.create(TASK, ttl=60, screen=(800, 600)) as slot:
            assert slot.id in host.slots
        assert host.slots == set()
        client.create(TASK)
    assert host.slots == set()


def test_create_sends_the_documented_body(make_client):
    rec = Recorder(FakeHost())
    client = make_client(rec)
    client.create(TASK, ttl=120, screen={"width": 1280, "height": 720})
    assert json.loads(rec.requests[0].content) == {
        "task": TASK, "ttl_s": 120, "screen": {"width": 1280, "height": 720}}
    for bad in ((0, 10), (1.5, 2), "800x600"):
        with pytest.raises(ValueError, match="screen"):
            client.create(TASK, screen=bad)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="ttl"):
        client.create(TASK, ttl=-5)


def test_cleanup_runs_when_the_client_is_garbage_collected():
    host = FakeHost()
    client = drums.connect(URL, TOKEN, transport=httpx.MockTransport(host))
    client.create(TASK)
    client.create(TASK)
    assert len(host.slots) == 2
    del client
    gc.collect()
    assert host.slots == set()


def test_close_logs_but_survives_cleanup_failures(make_client, caplog):
    host = FakeHost()
    broken = {"on": False}

    def handler(request: httpx.Request) -> httpx.Response:
        if broken["on"] and request.method == "DELETE":
            return err(409, "conflict", "cannot delete now")
        return host(request)

    client = make_client(handler)
    client.create(TASK)
    broken["on"] = True
    with caplog.at_level(logging.WARNING, logger="drums_gym.client"):
        client.close()
    assert client.closed and "cannot delete now" in caplog.text


# -- the token never shows -----------------------------------------------------------------------


def test_token_is_sent_but_never_shown(make_client, caplog):
    host = FakeHost()
    answers = iter([err(429, "overloaded", "busy", {"retry_after_ms": 1})])

    def handler(request: httpx.Request) -> httpx.Response:
        assert request.headers["Authorization"] == f"Bearer {TOKEN}"
        assert request.headers["User-Agent"].startswith("drums-gym/")
        if request.url.path == "/v1/host":
            # even a host that echoes the token does not get it into our messages
            return err(401, "unauthorized", f"unknown token {TOKEN}")
        return next(answers, None) or host(request)

    seen: list[str] = []
    with caplog.at_level(logging.DEBUG):
        client = make_client(handler)
        slot = client.create(TASK)
        seen += [repr(client), str(client), repr(slot), repr(client._session.http._client)]
        with pytest.raises(drums.Unauthorized) as info:
            client.host()
        seen += [str(info.value), repr(info.value), str(info.value.args)]
        for status, code, cls in CASES:
            e = error_for_status(status, {"error": {"code": code}},
                                                     method="GET", path="/v1/host")
            assert isinstance(e, cls)
            seen += [str(e), repr(e)]
        client.close()
        seen.append(repr(client))
    seen.append(caplog.text)
    assert "retry" in caplog.text  # the retry was logged...
    assert "***" in str(info.value)
    for text in seen:
        assert TOKEN not in text  # ...without the token


def test_connect_reads_the_environment(monkeypatch):
    rec = Recorder(lambda r: httpx.Response(200, json={"tasks": []}))
    monkeypatch.setenv("DRUMS_URL", "http://from-env.test")
    monkeypatch.setenv("DRUMS_TOKEN", TOKEN)
    with drums.connect(transport=httpx.MockTransport(rec)) as client:
        client.tasks()
        assert client.url == "http://from-env.test" and TOKEN not in repr(client)
    assert rec.requests[0].url.host == "from-env.test"
    assert rec.requests[0].headers["Authorization"] == f"Bearer {TOKEN}"


# -- observations ------------------------------------------------------------------------------


def _screenshot_handler(pixels: np.ndarray) -> Handler:
    h, w, _ = pixels.shape
    frame = itertools.count(7)

    def handler(request: httpx.Request) -> httpx.Response:
        fmt = request.url.params.get("format", "png")
        if fmt == "raw":
            content, ctype = pixels.tobytes(), "application/octet-stream"
        else:
            buf = io.BytesIO()
            Image.fromarray(pixels).save(buf, format="PNG")
            content, ctype = buf.getvalue(), "image/png"
        return httpx.Response(200, content=content, headers={
            "Content-Type": ctype, "X-Screen-Width": str(w), "X-Screen-Height": str(h),
            "X-Episode-Status": "valid", "X-Frame": str(next(frame))})

    return handler


@pytest.mark.parametrize("fmt", ["png", "raw"])
def test_observe_decodes_into_fresh_arrays(make_client, fmt):
    rng = np.random.default_rng(0)
    pixels = rng.integers(0, 256, size=(5, 7, 3), dtype=np.uint8)
    client = make_client(_screenshot_handler(pixels))
    slot = drums.Slot(client, drums.SlotInfo(id="slot_x", task=TASK))
    one, two = slot.observe(fmt), slot.observe(format=fmt)
    assert (one.width, one.height, one.format, one.episode_status) == (7, 5, fmt, "valid")
    assert one.frame == 7 and two.frame == 8
    a, b = one.array, two.array
    assert a.dtype == np.uint8 and a.shape == (5, 7, 3)
    np.testing.assert_array_equal(a, pixels)
    np.testing.assert_array_equal(b, pixels)
    assert a is not b and not np.shares_memory(a, b)
    assert one.array is a  # decoded once per Observation
    assert a.flags.writeable
    a[:] = 0
    np.testing.assert_array_equal(two.array, pixels)  # another observation is untouched
    assert f"{fmt} 7x5" in repr(one) and "bytes" in repr(one)


def test_observe_rejects_unknown_format_and_short_raw(make_client):
    client = make_client(lambda r: httpx.Response(200, content=b"\x00" * 5, headers={
        "X-Screen-Width": "2", "X-Screen-Height": "2"}))
    slot = drums.Slot(client, drums.SlotInfo(id="slot_x", task=TASK))
    with pytest.raises(ValueError, match="format"):
        slot.observe("jpeg")
    with pytest.raises(drums.ProtocolError, match="raw screenshot"):
        _ = slot.observe("raw").array


# -- map -----------------------------------------------------------------------------------------


def test_map_returns_results_and_exceptions_in_order(make_client):
    client = make_client(FakeHost())

    def fn(x: int) -> int:
        if x % 3 == 0:
            raise ValueError(f"bad {x}")
        return x * 10

    out = client.map(fn, range(7), workers=3)
    assert [o if isinstance(o, int) else str(o) for o in out] == [
        "bad 0", 10, 20, "bad 3", 40, 50, "bad 6"]
    assert client.map(fn, []) == []


def test_map_propagates_keyboard_interrupt_and_cancels_pending(make_client):
    client = make_client(FakeHost())
    ran: list[int] = []
    gate = threading.Event()

    def fn(x: int) -> int:
        if x == 0:
            raise KeyboardInterrupt
        gate.wait(1.0)
        ran.append(x)
        return x

    with pytest.raises(KeyboardInterrupt):
        client.map(fn, range(50), workers=2)
    gate.set()
    assert len(ran) < 50


def test_screen_unpacks_and_gates_read_as_mappings():
    width, height = drums.Screen(1920, 1080)
    assert (width, height) == (1920, 1080) and drums.Screen(4, 2).width == 4
    gate = drums.Gate("task_setup", "failed", "no such file")
    assert dict(gate) == gate.to_dict() == {
        "name": "task_setup", "status": "failed", "detail": "no such file"}
    assert gate["status"] == "failed" and gate.status == "failed"
    with pytest.raises(KeyError):
        gate["weight"]
