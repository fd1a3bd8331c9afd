"""OSWorld's scoring on the host: control words, ``last_action``, FAIL, and verify that waits
for pending gates (contracts 2 and 3; issue 10, items 2 and 3)."""

from __future__ import annotations

import threading
from types import SimpleNamespace

import httpx
import pytest
from a11y import center, find

from drums_gym.local.host import HostConfig
from drums_gym.local.scoring import score_episode

RENAME = "pyautogui.click({x}, {y})\npyautogui.press('f2')\npyautogui.hotkey('ctrl', 'a')\n"
RENAME += "pyautogui.write('todo_list_Jan_2')\npyautogui.press('enter')"


def _solved(http: httpx.Client) -> str:
    sid = http.post("/v1/slots", json={"task": "e0df059f"}).json()["id"]
    episode = http.get(f"/v1/slots/{sid}/episode", params={"wait": "true"}).json()
    assert episode["last_action"] is None, "null before any action"
    x, y = center(
        find(http.get(f"/v1/slots/{sid}/accessibility").json()["tree"], "todo_list_Jan_1")
    )
    r = http.post(f"/v1/slots/{sid}/actions", json={"code": RENAME.format(x=x, y=y)})
    assert r.status_code == 200 and r.json()["episode"]["last_action"] == "code"
    return sid


@pytest.fixture
def http(local_host):
    with httpx.Client(base_url=local_host.url, timeout=30) as client:
        yield client


@pytest.mark.parametrize(("word", "score"), [("DONE", 1.0), (" FAIL\n", 0.0), ("WAIT", 1.0)])
def test_a_solve_then_a_control_word(http, word, score):
    sid = _solved(http)
    r = http.post(f"/v1/slots/{sid}/actions", json={"code": word})
    assert r.status_code == 200, r.text
    assert r.json()["applied"] == 0 and r.json()["episode"]["last_action"] == word.strip()
    log = http.get(f"/v1/slots/{sid}/actions").json()["actions"]
    assert log[-1]["control"] == word.strip()
    reward = http.post(f"/v1/slots/{sid}/verify", json={"strict": True}).json()
    assert reward["valid"] is True and reward["score"] == score
    http.delete(f"/v1/slots/{sid}")


def test_fail_after_a_later_action_is_not_the_last_action(http):
    sid = _solved(http)
    http.post(f"/v1/slots/{sid}/actions", json={"code": "FAIL"})
    http.post(f"/v1/slots/{sid}/actions", json={"code": "pyautogui.moveTo(3, 3)"})
    assert http.post(f"/v1/slots/{sid}/verify", json={}).json()["score"] == 1.0
    http.delete(f"/v1/slots/{sid}")


def test_the_rule_for_infeasible_and_feasible_tasks():
    solved = SimpleNamespace(check=lambda desktop: 1.0)
    unsolved = SimpleNamespace(check=lambda desktop: 0.0, infeasible=False)
    infeasible = SimpleNamespace(check=lambda desktop: 1.0, infeasible=True)
    assert score_episode(solved, None, "DONE") == 1.0
    assert score_episode(solved, None, None) == 1.0
    assert score_episode(solved, None, "FAIL") == 0.0
    assert score_episode(unsolved, None, "DONE") == 0.0
    assert score_episode(infeasible, None, "FAIL") == 1.0
    assert score_episode(infeasible, None, "DONE") == 0.0
    assert score_episode(infeasible, None, None) == 0.0


def test_verify_on_a_pending_episode_waits_for_its_gates(make_host):
    server = make_host(HostConfig(gate_delay_s=1.0))
    with httpx.Client(base_url=server.url, timeout=30) as http:
        sid = http.post("/v1/slots", json={"task": "e0df059f"}).json()["id"]
        assert http.get(f"/v1/slots/{sid}/episode").json()["status"] == "pending"
        r = http.post(f"/v1/slots/{sid}/verify", json={"strict": True})
        assert r.status_code == 200, r.text
        reward = r.json()
        assert reward["valid"] is True and reward["score"] == 0.0 and reward["reason"] is None
        http.delete(f"/v1/slots/{sid}")


def test_a_waiting_verify_holds_no_lock_and_does_not_block_the_event_loop(make_host):
    server = make_host(HostConfig(gate_delay_s=600.0))
    with httpx.Client(base_url=server.url, timeout=60) as http:
        sid = http.post("/v1/slots", json={"task": "e0df059f"}).json()["id"]
        box: list[httpx.Response] = []
        waiting = threading.Thread(
            target=lambda: box.append(
                http.post(f"/v1/slots/{sid}/verify", json={"strict": False, "timeout_s": 300})
            )
        )
        waiting.start()
        try:
            health = http.get("/healthz").json()
            assert (health["ok"], health["shell"]) == (True, "simulated")
            shot = http.get(f"/v1/slots/{sid}/screenshot")  # the slot's lock is free
            assert shot.status_code == 200
            act = http.post(f"/v1/slots/{sid}/actions", json={"code": "pyautogui.moveTo(4, 4)"})
            assert act.status_code == 200
            assert waiting.is_alive(), "verify is still waiting for the gates"
        finally:
            http.delete(f"/v1/slots/{sid}")  # ends the wait: the slot is gone
            waiting.join(60)
        assert box and box[0].status_code == 409, "a verify of a deleted slot is a conflict"
