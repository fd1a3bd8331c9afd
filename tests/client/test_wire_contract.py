"""One typed wire (issue 23, item 3): every request and reply shape is defined once, in
``drums_gym.protocol``; the host declares each reply in its OpenAPI schema from those
shapes, and the client reads each reply through them (a malformed one is an error naming
the field)."""

from __future__ import annotations

import dataclasses
import re
import typing
from pathlib import Path
from typing import Any

import httpx
import pytest
from a11y import center, find

from drums_gym import protocol as P
from drums_gym.client import ProtocolError
from drums_gym.client.models import Episode, Reward, SlotInfo, StepResult
from drums_gym.local.bodies import ActionBody, ResetBody, VerifyBody, body_models
from drums_gym.local.host import HostConfig

PACKAGE = Path(__file__).resolve().parents[2] / "drums_gym"

RENAME = "pyautogui.click({x}, {y})\npyautogui.press('f2')\npyautogui.hotkey('ctrl', 'a')\n"
RENAME += "pyautogui.write('todo_list_Jan_2')\npyautogui.press('enter')"


def body(shape: Any) -> dict[str, Any]:
    return P.encode(shape, drop_none=True)


def exercise(http: httpx.Client) -> list[tuple[type, Any]]:
    """Real replies of every JSON endpoint, each with the shape protocol defines for it."""
    got: list[tuple[type, Any]] = [(P.HealthReply, http.get(P.HEALTHZ).json())]
    got.append((P.HostReply, http.get(P.HOST).json()))
    got.append((P.TaskList, http.get(P.TASKS).json()))
    got.append((P.TaskReply, http.get(P.task_path("e0df059f")).json()))
    slot = http.post(P.SLOTS, json=body(P.CreateSlotBody(task="e0df059f", ttl_s=120))).json()
    got.append((P.SlotReply, slot))
    sid = P.decode(P.SlotReply, slot, "a slot").id
    got.append((P.EpisodeReply,
                http.get(P.slot_episode_path(sid), params={P.Q_WAIT: "true"}).json()))
    tree = http.get(P.slot_accessibility_path(sid)).json()
    got.append((P.AccessibilityReply, tree))
    x, y = center(find(P.decode(P.AccessibilityReply, tree, "a tree").tree, "todo_list_Jan_1"))
    for code in (RENAME.format(x=x, y=y), "DONE", "pyautogui.nope()"):
        reply = http.post(P.slot_actions_path(sid), json=body(P.ActionBody(code=code)))
        # the unknown call: Python's AttributeError (an action_error) in the sandbox, a 422
        # on the simulated bash
        got.append((P.ActionReply if reply.status_code == 200 else P.ErrorReply, reply.json()))
    got.append((P.ActionLog, http.get(P.slot_actions_path(sid)).json()))
    got.append((P.VerifyReply, http.post(P.slot_verify_path(sid), json={}).json()))
    got.append((P.SlotReply,
                http.post(P.slot_lease_path(sid), json=body(P.LeaseBody(ttl_s=60))).json()))
    group = http.post(P.slot_branch_path(sid), json=body(P.BranchBody(n=1, ttl_s=60))).json()
    got.append((P.BranchReply, group))
    branch = P.decode(P.BranchReply, group, "a fork")
    got.append((P.StateList, http.get(P.STATES).json()))
    got.append((P.StateReply, http.get(P.state_path(branch.state)).json()))
    got.append((P.SlotList, http.get(P.SLOTS).json()))
    got.append((P.SlotReply, http.post(P.slot_reset_path(sid)).json()))
    now = body(P.VerifyBody(strict=True, timeout_s=0))
    got.append((P.ErrorReply, http.post(P.slot_verify_path(sid), json=now).json()))  # pending
    too_many = body(P.BranchBody(n=99))
    got.append((P.ErrorReply, http.post(P.slot_branch_path(sid), json=too_many).json()))
    got.append((P.ErrorReply, http.post(P.SLOTS, json={}).json()))
    got.append((P.ErrorReply, http.get(P.slot_path("slot_missing")).json()))
    child = branch.children[0].id
    got.append((P.DeletedReply, http.delete(P.slot_path(child)).json()))
    got.append((P.SlotReply, http.get(P.slot_path(child)).json()))  # a deleted slot's trace
    got.append((P.ErrorReply,
                http.post(P.slot_actions_path(child), json=body(P.ActionBody(code="x"))).json()))
    got.append((P.DeletedReply, http.delete(P.state_path(branch.state)).json()))
    got.append((P.DeletedReply, http.delete(P.slot_path(sid)).json()))
    return got


def undeclared(shape: Any, value: Any, where: str = "") -> list[str]:
    """Fields of a reply that its shape does not define, recursively (data left out)."""
    if not (dataclasses.is_dataclass(shape) and isinstance(value, dict)):
        return []
    types = typing.get_type_hints(shape)
    extra = [f"{where}{k}" for k in value if k not in types]
    for f in dataclasses.fields(shape):
        tp = types[f.name]
        inner = value.get(f.name)
        for arg in (tp, *getattr(tp, "__args__", ())):
            if dataclasses.is_dataclass(arg):
                items = inner if isinstance(inner, list) else [inner]
                for item in items:
                    extra += undeclared(arg, item, f"{where}{f.name}.")
    return extra


@pytest.fixture
def replies(local_host, make_host) -> list[tuple[type, Any]]:
    with httpx.Client(base_url=local_host.url, timeout=30) as http:
        got = exercise(http)
    shedding = make_host(faults="overload=1")
    got.append((P.ErrorReply, httpx.get(shedding.url + P.SLOTS).json()))  # 429
    with httpx.Client(base_url=make_host(HostConfig(gate_delay_s=0.0, action_steps=20)).url,
                      timeout=30) as tight:  # a checker cut by the work budget: a cut
        sid = tight.post(P.SLOTS, json={"task": "e0df059f"}).json()["id"]
        tight.get(P.slot_episode_path(sid), params={P.Q_WAIT: "true"})
        cut = tight.post(P.slot_verify_path(sid), json=body(P.VerifyBody(strict=False)))
        got.append((P.VerifyReply, cut.json()))
        tight.delete(P.slot_path(sid))
    return got


def test_every_reply_is_its_shape_and_nothing_more(replies):
    for shape, reply in replies:
        P.decode(shape, reply, shape.__name__)  # raises, naming the field, if it is not
        assert undeclared(shape, reply) == [], (shape.__name__, reply)
    kinds = {shape for shape, _ in replies}
    cut = [r for s, r in replies if s is P.VerifyReply and r["cut"]]
    assert cut and P.decode(P.VerifyReply, cut[0], "verify").cut.kind == "steps"
    errors = [P.decode(s, r, "error").error.code for s, r in replies if s is P.ErrorReply]
    assert {"conflict", "invalid_request", "not_found", "overloaded"} <= set(errors) <= {
        "conflict", "invalid_request", "not_found", "overloaded", "invalid_action"}, errors
    assert kinds == {P.HealthReply, P.HostReply, P.TaskList, P.TaskReply, P.SlotReply,
                     P.SlotList, P.DeletedReply, P.EpisodeReply, P.AccessibilityReply,
                     P.ActionReply, P.ActionLog, P.VerifyReply, P.BranchReply, P.StateList,
                     P.StateReply, P.ErrorReply}  # every reply of the API


def test_the_schema_declares_every_reply_with_the_shapes(local_host):
    spec = httpx.get(local_host.url + "/openapi.json").json()
    schemas = spec["components"]["schemas"]
    for path, operations in spec["paths"].items():
        for method, op in operations.items():
            ok = op["responses"].get("200") or op["responses"].get("201")
            content = ok["content"]
            if path.endswith(P.SCREENSHOT_SUFFIX):  # bytes: image/png or raw RGB
                assert set(content) == {"image/png", "application/octet-stream"}
                continue
            ref = content["application/json"]["schema"].get("$ref", "")
            name = ref.rsplit("/", 1)[-1]
            shape = getattr(P, name.removesuffix("-Output"), None)
            assert dataclasses.is_dataclass(shape), f"{method} {path} declares no reply: {ok}"
            props = schemas[name]["properties"]
            assert set(props) == {f.name for f in dataclasses.fields(shape)}, name
            for status in ("404", "422"):
                error = op["responses"][status]["content"]["application/json"]["schema"]
                assert error["$ref"].endswith("/ErrorReply"), (method, path, status)


def test_host_routes_are_the_protocol_paths(local_host):
    spec = httpx.get(local_host.url + "/openapi.json").json()
    routes = {P.HEALTHZ, P.HOST, P.TASKS, P.TASK_ROUTE, P.SLOTS, P.STATES, P.STATE_ROUTE}
    routes |= {
        P.slot_route(s)
        for s in (
            "",
            P.EPISODE_SUFFIX,
            P.ACTIONS_SUFFIX,
            P.SCREENSHOT_SUFFIX,
            P.ACCESSIBILITY_SUFFIX,
            P.VERIFY_SUFFIX,
            P.RESET_SUFFIX,
            P.BRANCH_SUFFIX,
            P.LEASE_SUFFIX,
        )
    }
    assert set(spec["paths"]) == routes


def test_request_bodies_are_the_protocol_shapes():
    """The host's pydantic bodies (bounds, descriptions) spell the protocol's fields, with
    its defaults."""
    models = body_models(HostConfig())
    pairs = [(models.create, P.CreateSlotBody), (models.branch, P.BranchBody),
             (models.lease, P.LeaseBody), (ActionBody, P.ActionBody),
             (VerifyBody, P.VerifyBody), (ResetBody, P.ResetBody)]
    for model, shape in pairs:
        fields = {f.name: f for f in dataclasses.fields(shape)}
        assert set(model.model_fields) == set(fields), shape.__name__
        for name, info in model.model_fields.items():
            default = fields[name].default
            if default is not dataclasses.MISSING:
                assert info.default == default, (shape.__name__, name)


@pytest.mark.parametrize(
    ("parse", "reply", "where"),
    [
        (SlotInfo.from_json, {"id": "s", "episode": {"id": "e", "status": 3}},
         "a slot: episode.status: expected a string, got int"),
        (SlotInfo.from_json, {"task": "t"}, "a slot: field 'id' is missing"),
        (Episode.from_json, {"id": "e", "status": "valid", "gates": [{"name": None}]},
         "an episode: gates[0].name: expected a string, got null"),
        (StepResult.from_json, {"applied": 1}, "an action reply: field 'episode' is missing"),
        (Reward.from_json, {"valid": "yes"}, "a verify reply: valid: expected true or false"),
        (Reward.from_json, [], "a verify reply: expected a JSON object, got list"),
    ],
)
def test_a_malformed_reply_names_the_field(parse, reply, where):
    with pytest.raises(ProtocolError, match=re.escape(where)):
        parse(reply)


def test_a_newer_hosts_extra_fields_are_ignored():
    episode = Episode.from_json({"id": "e", "status": "valid", "mood": "sunny", "gates": []})
    assert episode.valid and episode.gates == ()


def test_no_field_name_constants_remain():
    """Field names live only in the shapes: no ``F_*`` constant, no star-import shim."""
    constant = re.compile(r"^\s*F_[A-Z0-9_]+\s*=", re.M)
    used = re.compile(r"\b[PW]\.F_[A-Z0-9_]+\b")
    for path in PACKAGE.rglob("*.py"):
        text = path.read_text()
        assert not constant.search(text) and not used.search(text), path
    assert not (PACKAGE / "client" / "_wire.py").exists()
    assert not [name for name in P.__all__ if name.startswith("F_")]


def test_encode_writes_each_shapes_own_fields_in_order_and_drops_none_only_when_asked():
    """What every JSON reply and request body is made of: each shape's own fields (found
    once per class, so two shapes never share a list), nested shapes, lists and tuples as
    lists, None kept unless ``drop_none``."""
    wire = {
        "applied": 1,
        "episode": {
            "id": "ep_1", "number": 1, "status": "valid", "invalid_reason": None,
            "gates": [{"name": "desktop_ready", "status": "passed", "detail": None}],
            "actions": 1, "started_at": 1.5, "last_action": "code", "score": None,
        },
        "cut": {"kind": "time", "detail": "over 2 s"},
        "action_error": None, "runner": "fast", "shell": "sandbox",
    }
    reply = P.decode(P.ActionReply, wire, "a reply")
    assert P.encode(reply) == wire
    assert list(P.encode(reply)) == [f.name for f in dataclasses.fields(P.ActionReply)]
    assert list(P.encode(reply)["episode"]) == list(wire["episode"])
    lean = P.encode(reply, drop_none=True)
    assert "action_error" not in lean and "invalid_reason" not in lean["episode"]
    assert lean["episode"]["gates"] == [{"name": "desktop_ready", "status": "passed"}]
    assert lean["cut"] == {"kind": "time", "detail": "over 2 s"}
    gate = P.GateReply(name="app_ready")
    assert P.encode({"gates": (gate, gate)}, drop_none=True) == {
        "gates": [{"name": "app_ready", "status": "pending"}] * 2}
    assert P.encode([reply.cut, "x", 2, 0.5, True, None]) == [
        {"kind": "time", "detail": "over 2 s"}, "x", 2, 0.5, True, None]
