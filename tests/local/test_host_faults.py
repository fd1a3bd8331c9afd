"""Injected faults: every kind yields invalid episodes (or errors) with its reason."""

from __future__ import annotations

import asyncio

import httpx
import pytest
from a11y import center, find
from test_host_api import create, error, wait

from drums_gym.local.faults import FaultSpec
from drums_gym.local.host import HostConfig
from drums_gym.local.routes import common

REAL_SLEEP = asyncio.sleep


def run_until_invalid(http: httpx.Client, sid: str, max_actions: int = 5) -> dict:
    episode = wait(http, sid)
    for _ in range(max_actions):
        if episode["status"] == "invalid":
            return episode
        r = http.post(f"/v1/slots/{sid}/actions", json={"code": "pyautogui.moveTo(10, 10)"})
        episode = (
            r.json()["episode"] if r.status_code == 200 else r.json()["error"]["details"]["episode"]
        )
    return episode


@pytest.mark.parametrize(
    ("fault", "reason"),
    [
        ("gate_fail", "gate_failed"),
        ("crash", "app_crash"),
        ("oom", "oom_killed"),
        ("quarantine", "quarantined"),
    ],
)
def test_episode_faults_invalidate_with_their_reason(make_host, fault, reason):
    server = make_host(faults=f"{fault}=1.0")
    with httpx.Client(base_url=server.url) as http:
        sid = create(http)["id"]
        episode = run_until_invalid(http, sid)
        assert episode["status"] == "invalid" and episode["invalid_reason"] == reason
        if fault == "gate_fail":
            failed = [g for g in episode["gates"] if g["status"] == "failed"]
            assert len(failed) == 1 and failed[0]["detail"]
        reward = http.post(f"/v1/slots/{sid}/verify", json={"strict": False}).json()
        assert reward["valid"] is False and reward["reason"] == reason
        error(http.post(f"/v1/slots/{sid}/verify", json={"strict": True}), 409, "conflict")
        body = error(http.post(f"/v1/slots/{sid}/actions", json={"code": "pass"}), 409, "conflict")
        assert body["details"]["episode"]["invalid_reason"] == reason
        http.delete(f"/v1/slots/{sid}")


def test_fork_child_fail_lists_failed_children(make_host):
    server = make_host(faults="fork_child_fail=1.0")
    with httpx.Client(base_url=server.url) as http:
        parent = create(http)["id"]
        body = http.post(
            f"/v1/slots/{parent}/branch", json={"n": 3, "delete_state_with_children": True}
        ).json()
        assert [c["state"] for c in body["children"]] == ["failed"] * 3
        assert all(c["error"]["code"] == "child_failed" for c in body["children"])
        error(http.get(f"/v1/slots/{body['children'][0]['id']}"), 404, "not_found")
        assert server.model.counts() == {"live_desktops": 1, "saved_states": 0}
        kept = http.post(f"/v1/slots/{parent}/branch", json={"n": 1}).json()
        assert server.model.counts()["saved_states"] == 1, "a kept state stays for a retry"
        http.delete(f"/v1/states/{kept['state']}")
        http.delete(f"/v1/slots/{parent}")


def test_overload_sheds_with_retry_after(make_host):
    server = make_host(faults="overload=1.0,retry_after_ms=1500")
    with httpx.Client(base_url=server.url) as http:
        r = http.post("/v1/slots", json={"task": "e0df059f"})
        body = error(r, 429, "overloaded")
        assert body["details"]["retry_after_ms"] == 1500 and r.headers["retry-after"] == "2"
        assert http.get("/healthz").status_code == 200


def test_latency_is_a_round_trip_half_each_way(make_host, monkeypatch):
    """latency_ms=150 is a network's round trip: 75 ms before the host works on a request,
    75 ms before its reply starts (the action already in the desktop's log), so the host
    works on other requests while a reply travels (the total: benchmarks/timing.py)."""
    server = make_host(faults="latency_ms=150")
    seen: list[tuple[float, int]] = []
    with httpx.Client(base_url=server.url) as http:
        sid = create(http)["id"]
        wait(http, sid)

        class Clock:  # what the routes call ``asyncio``: its sleeps, recorded
            def __getattr__(self, name):
                return getattr(asyncio, name)

            @staticmethod
            async def sleep(delay):
                logged = len(server.model.action_log("default", sid).actions)
                seen.append((delay, logged))
                await REAL_SLEEP(delay)

        monkeypatch.setattr(common, "asyncio", Clock())
        r = http.post(f"/v1/slots/{sid}/actions", json={"code": "pyautogui.moveTo(10, 10)"})
        monkeypatch.undo()
        assert r.status_code == 200  # latency delays, never fails, a request
        http.delete(f"/v1/slots/{sid}")
    assert seen == [(0.075, 0), (0.075, 1)]


def test_fault_rolls_are_seeded(make_host):
    def statuses(seed: int) -> list[str]:
        server = make_host(faults="gate_fail=0.5", seed=seed)
        with httpx.Client(base_url=server.url) as http:
            out = []
            for _ in range(12):
                sid = create(http)["id"]
                out.append(wait(http, sid)["status"])
                http.delete(f"/v1/slots/{sid}")
            return out

    first = statuses(7)
    assert first == statuses(7)
    assert "valid" in first and "invalid" in first


def test_closing_a_window_before_gates_resolve_invalidates(make_host):
    server = make_host(HostConfig(gate_delay_s=30))
    with httpx.Client(base_url=server.url) as http:
        sid = create(http)["id"]
        tree = http.get(f"/v1/slots/{sid}/accessibility").json()["tree"]
        x, y = center(find(tree, "todo_list_Jan_1"))
        r = http.post(f"/v1/slots/{sid}/actions", json={"code": f"pyautogui.doubleClick({x}, {y})"})
        assert r.json()["episode"]["status"] == "pending", "opening a window is harmless"
        r = http.post(f"/v1/slots/{sid}/actions", json={"code": "pyautogui.hotkey('alt', 'f4')"})
        episode = r.json()["episode"]
        assert episode["status"] == "invalid" and episode["invalid_reason"] == "window_closed"
        http.delete(f"/v1/slots/{sid}")


def test_closing_a_window_after_gates_is_fine(local_host):
    with httpx.Client(base_url=local_host.url) as http:
        sid = create(http)["id"]
        wait(http, sid)
        tree = http.get(f"/v1/slots/{sid}/accessibility").json()["tree"]
        x, y = center(find(tree, "todo_list_Jan_1"))
        http.post(f"/v1/slots/{sid}/actions", json={"code": f"pyautogui.doubleClick({x}, {y})"})
        r = http.post(f"/v1/slots/{sid}/actions", json={"code": "pyautogui.hotkey('alt', 'f4')"})
        assert r.json()["episode"]["status"] == "valid"
        http.delete(f"/v1/slots/{sid}")


@pytest.mark.parametrize(
    "spec",
    ["gate_fail=2", "crash=-1", "bogus=1", "latency_ms=abc", "gate_fail", "oom=nan"],
)
def test_bad_fault_specs_name_the_problem(spec):
    with pytest.raises(ValueError) as info:
        FaultSpec.parse(spec)
    assert spec.split("=")[0] in str(info.value) or "kind=value" in str(info.value)
