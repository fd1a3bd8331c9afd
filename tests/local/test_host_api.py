"""The local host over real loopback HTTP, spoken to in raw wire protocol (docs/http-api.md)."""

from __future__ import annotations

import io
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import numpy as np
import pytest
from a11y import center, find
from PIL import Image

from drums_gym.local.host import HostConfig
from drums_gym.local.pycode import available

RENAME = "pyautogui.click({x}, {y})\npyautogui.press('f2')\npyautogui.hotkey('ctrl', 'a')\n"
RENAME += "pyautogui.write('{name}')\npyautogui.press('enter')"


@pytest.fixture
def http(local_host) -> Iterator[httpx.Client]:
    with httpx.Client(base_url=local_host.url, timeout=30) as client:
        yield client


def create(http: httpx.Client, **body) -> dict:
    r = http.post("/v1/slots", json={"task": "e0df059f", **body})
    assert r.status_code == 201, r.text
    return r.json()


def wait(http: httpx.Client, slot_id: str) -> dict:
    r = http.get(f"/v1/slots/{slot_id}/episode", params={"wait": "true", "timeout_s": 10})
    assert r.status_code == 200, r.text
    return r.json()


def wait_until(predicate, timeout: float = 10.0, what: str = "condition"):
    deadline = time.monotonic() + timeout
    while True:
        value = predicate()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(0.02)


def solve(http: httpx.Client, slot_id: str, name: str = "todo_list_Jan_2") -> None:
    tree = http.get(f"/v1/slots/{slot_id}/accessibility").json()["tree"]
    x, y = center(find(tree, "todo_list_Jan_1"))
    r = http.post(f"/v1/slots/{slot_id}/actions", json={"code": RENAME.format(x=x, y=y, name=name)})
    assert r.status_code == 200, r.text


def verify(http: httpx.Client, slot_id: str, strict: bool = False) -> httpx.Response:
    return http.post(f"/v1/slots/{slot_id}/verify", json={"strict": strict})


def error(r: httpx.Response, status: int, code: str) -> dict:
    assert r.status_code == status, r.text
    body = r.json()["error"]
    assert body["code"] == code
    assert isinstance(body["message"], str) and body["message"]
    assert isinstance(body["details"], dict)
    return body


def test_slot_lifecycle_and_episode_gates(http):
    slot = create(http, ttl_s=120)
    assert slot["id"].startswith("slot_") and slot["state"] == "running"
    assert slot["task"].startswith("e0df059f") and slot["screen"] == {"width": 1920, "height": 1080}
    assert slot["episode"]["status"] == "pending"
    assert slot["expires_at"] - slot["created_at"] == pytest.approx(120, abs=1)
    episode = wait(http, slot["id"])
    assert episode["status"] == "valid" and episode["invalid_reason"] is None
    assert [g["status"] for g in episode["gates"]] == ["passed"] * len(episode["gates"])
    assert [s["id"] for s in http.get("/v1/slots").json()["slots"]] == [slot["id"]]
    assert http.get(f"/v1/slots/{slot['id']}").json()["episode"]["id"] == episode["id"]
    assert http.delete(f"/v1/slots/{slot['id']}").json() == {"id": slot["id"], "deleted": True}
    error(http.delete(f"/v1/slots/{slot['id']}"), 404, "not_found")
    assert http.get("/v1/slots").json()["slots"] == []


def test_gui_rename_solves_the_task_and_noop_does_not(http):
    solved, idle = create(http)["id"], create(http)["id"]
    wait(http, solved), wait(http, idle)
    solve(http, solved)
    reward = verify(http, solved, strict=True).json()
    assert reward["valid"] is True and reward["score"] == 1.0 and reward["reason"] is None
    assert verify(http, idle).json()["score"] == 0.0
    log = http.get(f"/v1/slots/{solved}/actions").json()
    assert log["actions"][0]["applied"] == 5 and "f2" in log["actions"][0]["code"]
    for sid in (solved, idle):
        http.delete(f"/v1/slots/{sid}")


def test_wrong_name_scores_zero(http):
    sid = create(http)["id"]
    wait(http, sid)
    solve(http, sid, name="todo_list_Jan_3")
    assert verify(http, sid).json() == verify(http, sid).json(), "verify changes nothing"
    assert verify(http, sid).json()["score"] == 0.0
    http.delete(f"/v1/slots/{sid}")


def test_hostile_action_never_touches_the_host(http, tmp_path: Path):
    """Code beyond plain calls runs as Python in the sandbox (where the host's files are not
    there), or is refused where there is no sandbox: either way the canary is never made."""
    sid = create(http)["id"]
    canary = tmp_path / "pwned"
    for code in (
        f"import os\nos.system('touch {canary}')",
        f"__import__('os').system('touch {canary}')",
        f"open('{canary}', 'w').write('x')",
        f"pyautogui.write(open('{canary}', 'w'))",
    ):
        r = http.post(f"/v1/slots/{sid}/actions", json={"code": code})
        if available():
            assert r.status_code == 200 and r.json()["runner"] == "python", r.text
        else:
            assert error(r, 422, "invalid_action")["details"]["construct"]
    body = http.post(f"/v1/slots/{sid}/actions", json={"code": f"open('{canary}', 'w')"}).json()
    if available():
        assert body["action_error"].startswith("FileNotFoundError"), body
    assert not canary.exists()
    http.delete(f"/v1/slots/{sid}")


def test_verify_strict_conflicts_until_valid(make_host):
    server = make_host(HostConfig(gate_delay_s=30))
    with httpx.Client(base_url=server.url) as http:
        sid = create(http)["id"]
        # timeout_s=0: judge now (by default verify waits for pending gates: contract 3)
        now = f"/v1/slots/{sid}/verify"
        body = error(http.post(now, json={"strict": True, "timeout_s": 0}), 409, "conflict")
        assert body["details"]["episode"]["status"] == "pending"
        reward = http.post(now, json={"strict": False, "timeout_s": 0}).json()
        assert reward["valid"] is False and reward["reason"] == "pending"
        # a long-poll with a short timeout answers the pending episode as it is
        assert http.get(f"/v1/slots/{sid}/episode?wait=true&timeout_s=0.1").json()["status"] == (
            "pending"
        )
        http.delete(f"/v1/slots/{sid}")


def test_screenshot_png_and_raw(http, artifacts):
    sid = create(http)["id"]
    wait(http, sid)
    png = http.get(f"/v1/slots/{sid}/screenshot")
    assert png.headers["content-type"] == "image/png"
    assert png.headers["x-screen-width"] == "1920" and png.headers["x-screen-height"] == "1080"
    image = np.asarray(Image.open(io.BytesIO(png.content)).convert("RGB"))
    raw = http.get(f"/v1/slots/{sid}/screenshot", params={"format": "raw"})
    assert raw.headers["content-type"] == "application/octet-stream"
    frame = np.frombuffer(raw.content, np.uint8).reshape(1080, 1920, 3)
    np.testing.assert_array_equal(image, frame)
    assert image.std() > 10, "a desktop, not a blank frame"
    before = png.headers["x-frame"]
    assert http.get(f"/v1/slots/{sid}/screenshot").headers["x-frame"] == before
    http.post(f"/v1/slots/{sid}/actions", json={"code": "pyautogui.moveTo(100, 500)"})
    assert http.get(f"/v1/slots/{sid}/screenshot").headers["x-frame"] != before
    error(http.get(f"/v1/slots/{sid}/screenshot", params={"format": "bmp"}), 422, "invalid_request")
    (artifacts / "host_desktop.png").write_bytes(png.content)
    http.delete(f"/v1/slots/{sid}")


def test_reset_starts_a_new_episode_from_the_task_image(http):
    sid = create(http)["id"]
    first = wait(http, sid)
    solve(http, sid)
    assert verify(http, sid).json()["score"] == 1.0
    slot = http.post(f"/v1/slots/{sid}/reset").json()
    assert slot["episode"]["number"] == 2 and slot["episode"]["id"] != first["id"]
    assert slot["episode"]["status"] == "pending" and slot["episode"]["actions"] == 0
    assert wait(http, sid)["status"] == "valid"
    assert verify(http, sid).json()["score"] == 0.0, "setup reran: the folder has its old name"
    http.delete(f"/v1/slots/{sid}")


def test_fork_children_are_independent(http):
    parent = create(http)["id"]
    wait(http, parent)
    http.post(f"/v1/slots/{parent}/actions", json={"code": "pyautogui.moveTo(960, 540)"})
    r = http.post(
        f"/v1/slots/{parent}/branch",
        json={"n": 2, "delete_state_with_children": True, "ttl_s": 600},
    )
    assert r.status_code == 200, r.text
    body = r.json()
    assert set(body) == {"state", "children"} and body["state"].startswith("st_")
    assert [set(c) for c in body["children"]] == [{"id", "state"}] * 2
    assert [c["state"] for c in body["children"]] == ["running", "running"]
    a, b = (c["id"] for c in body["children"])
    child = http.get(f"/v1/slots/{a}").json()
    assert child["parent"] == parent and child["saved_state"] == body["state"]
    parent_episode = http.get(f"/v1/slots/{parent}/episode").json()
    assert child["episode"]["number"] == 1 and child["episode"]["id"] != parent_episode["id"]
    assert child["episode"]["actions"] == 0, "each child is a new episode of its own"
    wait(http, a), wait(http, b)
    solve(http, a)
    assert verify(http, a).json()["score"] == 1.0
    assert verify(http, b).json()["score"] == 0.0
    assert verify(http, parent).json()["score"] == 0.0
    state = http.get(f"/v1/states/{body['state']}").json()
    assert state["slot"] == parent and sorted(state["children"]) == sorted([a, b])
    http.delete(f"/v1/slots/{a}")
    assert http.get(f"/v1/states/{body['state']}").status_code == 200, "b still uses it"
    http.delete(f"/v1/slots/{b}")
    error(http.get(f"/v1/states/{body['state']}"), 404, "not_found")
    http.delete(f"/v1/slots/{parent}")


def test_kept_state_survives_children_until_deleted(http):
    parent = create(http)["id"]
    before = time.time()
    body = http.post(f"/v1/slots/{parent}/branch", json={"n": 1}).json()
    http.delete(f"/v1/slots/{body['children'][0]['id']}")
    states = http.get("/v1/states").json()["states"]
    assert [s["id"] for s in states] == [body["state"]]
    assert states[0]["delete_with_children"] is False and states[0]["children"] == []
    assert states[0]["expires_at"] <= time.time() + 1800 + 1
    assert states[0]["expires_at"] >= before + 1800 - 1
    assert http.delete(f"/v1/states/{body['state']}").json()["deleted"] is True
    error(http.delete(f"/v1/states/{body['state']}"), 404, "not_found")
    http.delete(f"/v1/slots/{parent}")


def test_fork_limits(make_host):
    server = make_host(
        HostConfig(gate_delay_s=0.05, live_desktops=4, host_desktops=32, saved_states=1)
    )
    with httpx.Client(base_url=server.url) as http:
        parent = create(http)["id"]
        body = error(http.post(f"/v1/slots/{parent}/branch", json={"n": 9}), 422, "invalid_request")
        assert body["details"]["field"] == "n"
        error(http.post(f"/v1/slots/{parent}/branch", json={"n": -1}), 422, "invalid_request")
        error(http.post(f"/v1/slots/{parent}/branch", json={"n": "2"}), 422, "invalid_request")
        body = error(http.post(f"/v1/slots/{parent}/branch", json={"n": 4}), 403, "quota_exceeded")
        assert body["details"]["limit"] == 4
        assert http.get("/v1/states").json()["states"] == [], "refused before anything started"
        group = http.post(
            f"/v1/slots/{parent}/branch", json={"n": 1, "delete_state_with_children": True}
        ).json()
        error(http.post(f"/v1/slots/{parent}/branch", json={"n": 1}), 403, "quota_exceeded")
        for sid in (group["children"][0]["id"], parent):
            http.delete(f"/v1/slots/{sid}")


def test_workspace_quota_and_host_capacity(make_host):
    server = make_host(HostConfig(gate_delay_s=0.05, live_desktops=2, host_desktops=3))
    with (
        httpx.Client(base_url=server.url, headers={"Authorization": "Bearer a"}) as a,
        httpx.Client(base_url=server.url, headers={"Authorization": "Bearer b"}) as b,
    ):
        a_slots = [create(a)["id"], create(a)["id"]]
        error(a.post("/v1/slots", json={"task": "e0df059f"}), 403, "quota_exceeded")
        b_slot = create(b)["id"]
        r = b.post("/v1/slots", json={"task": "e0df059f"})
        body = error(r, 429, "overloaded")
        assert int(r.headers["retry-after"]) >= 1 and body["details"]["retry_after_ms"] > 0
        assert b.get("/v1/host").json()["usage"] == {
            "live_desktops": 1,
            "host_desktops": 3,
            "saved_states": 0,
        }
        for sid in a_slots:
            a.delete(f"/v1/slots/{sid}")
        b.delete(f"/v1/slots/{b_slot}")


def test_tokens_and_workspace_isolation(make_host):
    server = make_host(tokens=["alpha", "beta"])
    with httpx.Client(base_url=server.url) as anon:
        error(anon.get("/v1/slots"), 401, "unauthorized")
        error(anon.get("/v1/slots", headers={"Authorization": "Bearer gamma"}), 401, "unauthorized")
        health = anon.get("/healthz").json()
        assert (health["ok"], health["shell"]) == (True, "simulated")
    alpha = httpx.Client(base_url=server.url, headers={"Authorization": "Bearer alpha"})
    beta = httpx.Client(base_url=server.url, headers={"Authorization": "Bearer beta"})
    with alpha, beta:
        sid = create(alpha)["id"]
        for method, path, body in (
            ("GET", f"/v1/slots/{sid}", None),
            ("POST", f"/v1/slots/{sid}/actions", {"code": "pyautogui.click(1, 1)"}),
            ("POST", f"/v1/slots/{sid}/branch", {"n": 1}),
            ("POST", f"/v1/slots/{sid}/verify", {"strict": False}),
            ("DELETE", f"/v1/slots/{sid}", None),
        ):
            error(beta.request(method, path, json=body), 404, "not_found")
        assert beta.get("/v1/slots").json()["slots"] == []
        assert "alpha" not in alpha.get(f"/v1/slots/{sid}").text
        alpha.delete(f"/v1/slots/{sid}")


def test_lease_expiry_invalidates_and_frees(make_host):
    server = make_host()
    with httpx.Client(base_url=server.url) as http:
        sid = create(http, ttl_s=0.3)["id"]
        keep = create(http, ttl_s=0.3)["id"]
        before = time.time()
        extended = http.post(f"/v1/slots/{keep}/lease", json={"ttl_s": 60}).json()
        assert extended["expires_at"] >= before + 60 - 1
        gone = wait_until(
            lambda: (s := http.get(f"/v1/slots/{sid}").json())["state"] == "deleted" and s,
            what="the lease to expire",
        )
        assert gone["episode"]["status"] == "invalid"
        assert gone["episode"]["invalid_reason"] == "lease_expired"
        body = error(http.post(f"/v1/slots/{sid}/actions", json={"code": "pass"}), 409, "conflict")
        assert body["details"]["reason"] == "lease_expired"
        assert [s["id"] for s in http.get("/v1/slots").json()["slots"]] == [keep]
        error(http.post(f"/v1/slots/{keep}/lease", json={"ttl_s": -1}), 422, "invalid_request")
        http.delete(f"/v1/slots/{keep}")


def test_idempotent_create_and_branch(http, local_host):
    key = {"Idempotency-Key": "k-1"}
    first = http.post("/v1/slots", json={"task": "e0df059f"}, headers=key).json()
    again = http.post("/v1/slots", json={"task": "e0df059f"}, headers=key).json()
    assert again["id"] == first["id"]
    assert local_host.model.counts()["live_desktops"] == 1
    error(
        http.post("/v1/slots", json={"task": "e0df059f", "ttl_s": 5}, headers=key), 409, "conflict"
    )
    bkey = {"Idempotency-Key": "b-1"}
    body = {"n": 2, "delete_state_with_children": True}
    g1 = http.post(f"/v1/slots/{first['id']}/branch", json=body, headers=bkey).json()
    g2 = http.post(f"/v1/slots/{first['id']}/branch", json=body, headers=bkey).json()
    assert g1 == g2
    assert local_host.model.counts() == {"live_desktops": 3, "saved_states": 1}
    for child in g1["children"]:
        http.delete(f"/v1/slots/{child['id']}")
    http.delete(f"/v1/slots/{first['id']}")


def test_bad_requests_answer_json_errors(http):
    error(
        http.post("/v1/slots", content=b"{not json", headers={"content-type": "application/json"}),
        422,
        "invalid_request",
    )
    body = error(http.post("/v1/slots", json={}), 422, "invalid_request")
    assert body["details"]["field"] == "task"
    error(http.post("/v1/slots", json={"task": "nope"}), 404, "not_found")
    error(http.post("/v1/slots", json={"task": "e0df059f", "ttl_s": 10**9}), 422, "invalid_request")
    body = error(
        http.post("/v1/slots", json={"task": "e0df059f", "screen": {"width": 10}}),
        422,
        "invalid_request",
    )
    assert body["details"]["field"] == "screen.width"
    error(http.get("/v1/nowhere"), 404, "not_found")
    error(http.get("/v1/slots/slot_missing"), 404, "not_found")
    error(http.post("/v1/slots/slot_missing/actions", json={"code": "pass"}), 404, "not_found")


def test_tasks_host_and_openapi(http):
    tasks = http.get("/v1/tasks").json()["tasks"]
    task = next(t for t in tasks if t["short_id"] == "e0df059f")
    assert "todo_list_Jan_2" in task["instruction"]
    assert http.get("/v1/tasks/e0df059f").json()["id"] == task["id"]
    assert http.get(f"/v1/tasks/{task['id']}").json()["short_id"] == "e0df059f"
    limits = http.get("/v1/host").json()["limits"]
    assert limits["fork_limit"] == 8 and limits["state_idle_ttl_s"] == 1800
    spec = http.get("/openapi.json").json()
    assert "/v1/slots/{slot_id}/branch" in spec["paths"]
    props = spec["components"]["schemas"]["Branch"]["properties"]
    assert set(props) == {"n", "delete_state_with_children", "ttl_s"}


def test_custom_screen_size(http):
    sid = create(http, screen={"width": 1280, "height": 720})["id"]
    raw = http.get(f"/v1/slots/{sid}/screenshot", params={"format": "raw"})
    assert raw.headers["x-screen-width"] == "1280" and len(raw.content) == 1280 * 720 * 3
    http.delete(f"/v1/slots/{sid}")
