"""One wire vocabulary: the host sends and documents only names of ``drums_gym.protocol``,
and the client reads only names the host sends (issue 9, item 3)."""

from __future__ import annotations

import ast
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import httpx
import pytest
from a11y import center, find

from drums_gym import protocol as P
from drums_gym.local.host import HostConfig

CLIENT = Path(__file__).resolve().parents[2] / "drums_gym" / "client"
#: values under these keys are data (the accessibility tree, error details of a nested
#: episode are walked as episodes), not wire field names
DATA_KEYS = {P.F_TREE}


def keys_of(value: Any, into: set[str]) -> set[str]:
    """Every dict key in a JSON value, recursively (data subtrees left out)."""
    if isinstance(value, dict):
        for key, inner in value.items():
            into.add(key)
            if key not in DATA_KEYS:
                keys_of(inner, into)
    elif isinstance(value, list):
        for inner in value:
            keys_of(inner, into)
    return into


def openapi_names(spec: dict[str, Any]) -> set[str]:
    """Property names of every schema and the names of every parameter the document declares."""
    names: set[str] = set()

    def walk(node: Any) -> None:
        if isinstance(node, dict):
            names.update(node.get("properties", {}))
            for inner in node.values():
                walk(inner)
        elif isinstance(node, list):
            for inner in node:
                walk(inner)

    walk(spec.get("components", {}).get("schemas", {}))
    for operations in spec["paths"].values():
        for op in operations.values():
            names.update(p["name"] for p in op.get("parameters", []) if p["in"] == "query")
    # FastAPI's own validation-error schemas are not served: the host answers its own shape
    return names - {"loc", "msg", "type", "input", "ctx", "detail"}


def client_reads() -> set[str]:
    """The field names the client's modules spell (every ``W.F_*`` they use)."""
    used: set[str] = set()
    for path in CLIENT.glob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Attribute) and node.attr.startswith("F_"):
                used.add(getattr(P, node.attr))
    return used


def outside(names: Iterable[str], vocabulary: Iterable[str]) -> list[str]:
    return sorted(set(names) - set(vocabulary))


RENAME = "pyautogui.click({x}, {y})\npyautogui.press('f2')\npyautogui.hotkey('ctrl', 'a')\n"
RENAME += "pyautogui.write('todo_list_Jan_2')\npyautogui.press('enter')"


def exercise(http: httpx.Client) -> list[Any]:
    """Real replies of every endpoint, errors included."""
    replies: list[Any] = [http.get(P.HEALTHZ).json(), http.get(P.HOST).json()]
    replies.append(http.get(P.TASKS).json())
    replies.append(http.get(P.task_path("e0df059f")).json())
    slot = http.post(P.SLOTS, json={P.F_TASK: "e0df059f", P.F_TTL_S: 120})
    replies.append(slot.json())
    sid = slot.json()[P.F_ID]
    replies.append(http.get(P.slot_episode_path(sid), params={"wait": "true"}).json())
    tree = http.get(P.slot_accessibility_path(sid)).json()
    replies.append(tree)
    x, y = center(find(tree[P.F_TREE], "todo_list_Jan_1"))
    solve = {P.F_CODE: RENAME.format(x=x, y=y)}
    replies.append(http.post(P.slot_actions_path(sid), json=solve).json())
    replies.append(http.post(P.slot_actions_path(sid), json={P.F_CODE: "DONE"}).json())
    replies.append(http.post(P.slot_actions_path(sid), json={P.F_CODE: "pyautogui.nope()"}).json())
    replies.append(http.get(P.slot_actions_path(sid)).json())
    replies.append(http.post(P.slot_verify_path(sid), json={P.F_STRICT: True}).json())
    replies.append(http.post(P.slot_lease_path(sid), json={P.F_TTL_S: 60}).json())
    group = http.post(P.slot_branch_path(sid), json={P.F_N: 1, P.F_TTL_S: 60}).json()
    replies.append(group)
    replies.append(http.get(P.STATES).json())
    replies.append(http.get(P.state_path(group[P.F_STATE])).json())
    replies.append(http.get(P.SLOTS).json())
    replies.append(http.post(P.slot_reset_path(sid)).json())
    now = {P.F_STRICT: True, P.F_TIMEOUT_S: 0}
    replies.append(http.post(P.slot_verify_path(sid), json=now).json())
    replies.append(http.post(P.slot_branch_path(sid), json={P.F_N: 99}).json())
    replies.append(http.post(P.SLOTS, json={}).json())
    replies.append(http.get(P.slot_path("slot_missing")).json())
    child = group[P.F_CHILDREN][0][P.F_ID]
    replies.append(http.delete(P.slot_path(child)).json())
    replies.append(http.get(P.slot_path(child)).json())
    replies.append(http.post(P.slot_actions_path(child), json={P.F_CODE: "pass"}).json())
    replies.append(http.delete(P.state_path(group[P.F_STATE])).json())
    replies.append(http.delete(P.slot_path(sid)).json())
    return replies


@pytest.fixture
def host_names(local_host, make_host) -> tuple[set[str], set[str]]:
    with httpx.Client(base_url=local_host.url, timeout=30) as http:
        spec = http.get("/openapi.json").json()
        replies = exercise(http)
    shedding = make_host(faults="overload=1")
    replies.append(httpx.get(shedding.url + P.SLOTS).json())  # 429 with retry_after_ms
    with httpx.Client(base_url=make_host(HostConfig(gate_delay_s=0.0, action_steps=20)).url,
                      timeout=30) as tight:  # a checker cut by the work budget: a cut
        sid = tight.post(P.SLOTS, json={P.F_TASK: "e0df059f"}).json()[P.F_ID]
        tight.get(P.slot_episode_path(sid), params={"wait": "true"})
        replies.append(tight.post(P.slot_verify_path(sid), json={P.F_STRICT: False}).json())
        tight.delete(P.slot_path(sid))
    return openapi_names(spec), keys_of(replies, set())


def test_host_speaks_only_the_vocabulary(host_names):
    documented, sent = host_names
    vocabulary = P.field_names() | {P.Q_WAIT, P.Q_TIMEOUT_S, P.Q_FORMAT, P.Q_SINCE}
    assert outside(documented, vocabulary) == [], "the OpenAPI document uses names not in protocol"
    assert outside(sent, vocabulary) == [], "the host sends names not in protocol"


def test_client_reads_only_what_the_host_sends(host_names):
    documented, sent = host_names
    assert outside(client_reads(), sent | documented) == []


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


def test_the_check_catches_a_name_outside_the_vocabulary():
    """Planted break: a reply with a field protocol does not define is reported."""
    planted = {"episode": {"status": "valid", "statuz": "typo"}}
    assert outside(keys_of(planted, set()), P.field_names()) == ["statuz"]
    assert outside({"no_such_field"}, {"id"}) == ["no_such_field"]
