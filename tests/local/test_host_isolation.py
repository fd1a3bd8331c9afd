"""Desktops cannot stall each other or the host (issue 11, items 2 and 11).

A slot is held busy by an action whose desktop work blocks on a ``threading.Event`` (the
desktop's ``apply`` is patched, so these hosts keep their desktops in this process:
``in_process=True``; tests/local/test_workers.py holds the same lines against worker
processes); everything the test asserts
happens while that work is still running, before the event is set: ordering, not timing.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Iterator
from typing import Any

import httpx
import pytest

from drums_gym.local.budget import charge
from drums_gym.local.desktop import Desktop
from drums_gym.local.host import HostConfig
from drums_gym.local.server import LocalHost

TIMEOUT = 30.0


class Hold:
    """Makes the desktop of one slot block inside ``apply`` until released."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch, *, charging: bool = False) -> None:
        self.target: Desktop | None = None
        self.started = threading.Event()
        self.release = threading.Event()
        self.finished = threading.Event()
        real = Desktop.apply

        def apply(desktop: Desktop, events: Any) -> None:
            if desktop is not self.target:
                return real(desktop, events)
            self.started.set()
            try:
                if charging:  # busy work the budget can stop: charge until released
                    while not self.release.wait(0.001):
                        charge(256)
                else:
                    self.release.wait(TIMEOUT)
            finally:
                self.finished.set()
            return None

        monkeypatch.setattr(Desktop, "apply", apply)


def _slot_object(server: LocalHost, slot_id: str) -> Any:
    for ws in server.model._workspaces.values():
        if slot_id in ws.slots:
            return ws.slots[slot_id]
    raise KeyError(slot_id)


def _wait_for(predicate: Callable[[], bool], what: str) -> None:
    done = threading.Event()
    for _ in range(int(TIMEOUT / 0.01)):
        if predicate():
            return
        done.wait(0.01)
    raise AssertionError(f"never saw: {what}")


class Background:
    """Run one request on a thread; ``result()`` joins it."""

    def __init__(self, call: Callable[[], httpx.Response]) -> None:
        self._box: list[Any] = []
        self._thread = threading.Thread(target=lambda: self._box.append(call()), daemon=True)
        self._thread.start()

    @property
    def running(self) -> bool:
        return self._thread.is_alive()

    def result(self) -> httpx.Response:
        self._thread.join(TIMEOUT)
        assert self._box, "the request never finished"
        return self._box[0]


@pytest.fixture
def two(make_host) -> Iterator[tuple[LocalHost, httpx.Client, httpx.Client]]:
    server = make_host(
        HostConfig(gate_delay_s=0.0, action_seconds=60, action_steps=10**12), in_process=True
    )
    with (
        httpx.Client(
            base_url=server.url, timeout=TIMEOUT, headers={"Authorization": "Bearer a"}
        ) as a,
        httpx.Client(
            base_url=server.url, timeout=TIMEOUT, headers={"Authorization": "Bearer b"}
        ) as b,
    ):
        yield server, a, b


def _create(http: httpx.Client) -> str:
    r = http.post("/v1/slots", json={"task": "e0df059f"})
    assert r.status_code == 201, r.text
    return r.json()["id"]


def _cleanup(http: httpx.Client) -> None:
    for slot in http.get("/v1/slots").json()["slots"]:
        http.delete(f"/v1/slots/{slot['id']}")
    for state in http.get("/v1/states").json()["states"]:
        http.delete(f"/v1/states/{state['id']}")


def test_a_busy_slots_fork_does_not_freeze_the_host(two, monkeypatch):
    server, a, b = two
    hold = Hold(monkeypatch)
    busy, other = _create(a), _create(b)
    hold.target = _slot_object(server, busy).desktop
    action = Background(
        lambda: a.post(f"/v1/slots/{busy}/actions", json={"code": "pyautogui.click(5, 5)"})
    )
    assert hold.started.wait(TIMEOUT)
    fork = Background(lambda: a.post(f"/v1/slots/{busy}/branch", json={"n": 1}))
    _wait_for(lambda: _slot_object(server, busy)._waiting == 1, "the fork queued on its parent")
    try:
        health = a.get("/healthz").json()
        assert (health["ok"], health["shell"]) == (True, "simulated")
        assert b.get(f"/v1/slots/{other}/screenshot").status_code == 200
        assert b.get("/v1/host").status_code == 200
        third = b.post("/v1/slots", json={"task": "e0df059f"})  # needs the host lock
        assert third.status_code == 201, third.text
        assert fork.running and action.running, "all of it answered while the slot was busy"
    finally:
        hold.release.set()
    assert action.result().status_code == 200
    assert fork.result().status_code == 200, fork.result().text
    _cleanup(a)
    _cleanup(b)


def test_an_action_queued_behind_a_deletion_answers_409(two, monkeypatch):
    server, a, _ = two
    hold = Hold(monkeypatch)
    sid = _create(a)
    hold.target = _slot_object(server, sid).desktop
    first = Background(
        lambda: a.post(f"/v1/slots/{sid}/actions", json={"code": "pyautogui.click(5, 5)"})
    )
    assert hold.started.wait(TIMEOUT)
    queued = Background(
        lambda: a.post(f"/v1/slots/{sid}/actions", json={"code": "pyautogui.click(6, 6)"})
    )
    _wait_for(lambda: _slot_object(server, sid)._waiting == 1, "the second action queued")
    assert a.delete(f"/v1/slots/{sid}").status_code == 200
    hold.release.set()
    first.result()
    r = queued.result()
    assert r.status_code == 409, r.text
    assert r.json()["error"]["code"] == "conflict"


def test_deleting_a_slot_stops_its_running_work(two, monkeypatch):
    server, a, _ = two
    hold = Hold(monkeypatch, charging=True)
    sid = _create(a)
    hold.target = _slot_object(server, sid).desktop
    action = Background(
        lambda: a.post(f"/v1/slots/{sid}/actions", json={"code": "pyautogui.click(5, 5)"})
    )
    assert hold.started.wait(TIMEOUT)
    assert a.delete(f"/v1/slots/{sid}").status_code == 200
    r = action.result()  # the budget was cancelled: the work stopped by itself
    try:
        assert hold.finished.is_set() and not hold.release.is_set(), "stopped, not released"
        assert r.status_code == 409 and r.json()["error"]["code"] == "conflict", r.text
    finally:
        hold.release.set()


def test_work_out_of_budget_is_cut_and_the_episode_goes_on(make_host, monkeypatch):
    server = make_host(
        HostConfig(gate_delay_s=0.0, action_steps=10_000, action_seconds=60), in_process=True
    )
    hold = Hold(monkeypatch, charging=True)
    with httpx.Client(base_url=server.url, timeout=TIMEOUT) as http:
        sid = _create(http)
        hold.target = _slot_object(server, sid).desktop
        r = http.post(f"/v1/slots/{sid}/actions", json={"code": "pyautogui.click(5, 5)"})
        assert r.status_code == 200, r.text
        body = r.json()
        assert body["cut"]["kind"] == "steps" and "10000" in body["cut"]["detail"]
        assert body["episode"]["status"] == "valid" and body["episode"]["actions"] == 1
        hold.target = None
        after = http.post(f"/v1/slots/{sid}/actions", json={"code": "pyautogui.click(7, 7)"})
        assert after.status_code == 200 and after.json()["cut"] is None
        log = http.get(f"/v1/slots/{sid}/actions").json()["actions"]
        assert log[0]["cut"]["kind"] == "steps" and "cut" not in log[1]
        http.delete(f"/v1/slots/{sid}")


def test_a_busy_slot_queues_at_most_slot_queue_requests(make_host, monkeypatch):
    server = make_host(
        HostConfig(gate_delay_s=0.0, slot_queue=2, action_seconds=60), in_process=True
    )
    hold = Hold(monkeypatch)
    with httpx.Client(base_url=server.url, timeout=TIMEOUT) as http:
        sid = _create(http)
        hold.target = _slot_object(server, sid).desktop
        shot = f"/v1/slots/{sid}/screenshot"
        action = Background(
            lambda: http.post(f"/v1/slots/{sid}/actions", json={"code": "pyautogui.click(5, 5)"})
        )
        assert hold.started.wait(TIMEOUT)
        waiting = [Background(lambda: http.get(shot)) for _ in range(2)]
        _wait_for(lambda: _slot_object(server, sid)._waiting == 2, "two requests queued")
        try:
            r = http.get(shot)
            assert r.status_code == 429, r.text
            assert r.json()["error"]["code"] == "overloaded"
            assert int(r.headers["retry-after"]) >= 1
        finally:
            hold.release.set()
        assert action.result().status_code == 200
        assert [w.result().status_code for w in waiting] == [200, 200]
        http.delete(f"/v1/slots/{sid}")


def test_a_5xx_is_logged_with_its_traceback(make_host, monkeypatch, caplog):
    local_host = make_host(in_process=True)

    def broken(self: Desktop) -> Any:
        raise RuntimeError("planted host bug")

    monkeypatch.setattr(Desktop, "accessibility", broken)
    with httpx.Client(base_url=local_host.url, timeout=TIMEOUT) as http:
        sid = _create(http)
        with caplog.at_level(logging.ERROR, logger="drums_gym.local"):
            r = http.get(f"/v1/slots/{sid}/accessibility")
        assert r.status_code == 500
        assert r.json()["error"]["code"] == "internal" and "RuntimeError" in r.text
        records = [rec for rec in caplog.records if rec.name == "drums_gym.local"]
        assert records and records[0].exc_info is not None
        assert "planted host bug" in str(records[0].exc_info[1])
        http.delete(f"/v1/slots/{sid}")


def test_a_lease_ending_stops_the_slots_running_work(two, monkeypatch):
    server, a, _ = two
    hold = Hold(monkeypatch, charging=True)
    sid = _create(a)
    hold.target = _slot_object(server, sid).desktop
    action = Background(
        lambda: a.post(f"/v1/slots/{sid}/actions", json={"code": "pyautogui.click(5, 5)"})
    )
    assert hold.started.wait(TIMEOUT)
    try:  # the lease now ends at once: the reaper thread expires the slot mid-action
        assert a.post(f"/v1/slots/{sid}/lease", json={"ttl_s": 0.001}).status_code == 200
        r = action.result()
        assert hold.finished.is_set() and not hold.release.is_set(), "the reaper stopped it"
        assert r.status_code == 409 and "lease_expired" in r.text, r.text
    finally:
        hold.release.set()
