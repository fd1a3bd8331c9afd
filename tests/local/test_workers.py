"""Desktops in worker processes (issue 19): each desktop is its own OS process, lost alone.

Every host here keeps its desktops in worker processes (the default). A worker is made to
hang with ``SIGSTOP`` (work stuck in C that never checks its budget, as the host sees it)
or to die with ``SIGKILL`` (an OOM kill, a crash): what is asserted is ordering and
outcome, never a wall-clock figure.
"""

from __future__ import annotations

import asyncio
import glob
import logging
import os
import signal
import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import httpx
import pytest
from conftest import process_tree

from drums_gym.local import budget
from drums_gym.local.host import HostConfig
from drums_gym.local.sandbox import available
from drums_gym.local.sandbox.tree import tree_base
from drums_gym.local.server import LocalHost
from drums_gym.local.workers import Worker, station
from drums_gym.local.workspaces import workspace_of

TIMEOUT = 60.0
TASK = "e0df059f"
#: the shell backend under test follows DRUMS_LOCAL_SHELL (CI runs this file on both)
FAST: dict[str, Any] = dict(gate_delay_s=0.0,
                            shell=os.environ.get("DRUMS_LOCAL_SHELL") or "simulated")


def _slot(server: LocalHost, slot_id: str) -> Any:
    for ws in server.model._workspaces.values():
        if slot_id in ws.slots:
            return ws.slots[slot_id]
    raise KeyError(slot_id)


def _worker(server: LocalHost, slot_id: str) -> Worker:
    worker = _slot(server, slot_id).station
    assert isinstance(worker, Worker), worker
    return worker


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


def _until(predicate: Callable[[], bool], what: str) -> None:
    tick = threading.Event()
    for _ in range(int(TIMEOUT / 0.01)):
        if predicate():
            return
        tick.wait(0.01)
    raise AssertionError(f"never saw: {what}")


def _http(server: LocalHost, token: str = "a") -> httpx.Client:
    return httpx.Client(base_url=server.url, timeout=TIMEOUT,
                        headers={"Authorization": f"Bearer {token}"})


def _create(http: httpx.Client) -> str:
    r = http.post("/v1/slots", json={"task": TASK})
    assert r.status_code == 201, r.text
    return r.json()["id"]


def _act(http: httpx.Client, sid: str, code: str) -> httpx.Response:
    return http.post(f"/v1/slots/{sid}/actions", json={"code": code})


def _carries_on(http: httpx.Client, sid: str) -> None:
    """The bystander desktop ``sid`` still shows its screen and acts in a valid episode."""
    assert http.get(f"/v1/slots/{sid}/screenshot").status_code == 200
    assert _act(http, sid, "pyautogui.click(5, 5)").json()["episode"]["status"] == "valid"


def _cleanup(*clients: httpx.Client) -> None:
    for http in clients:
        for slot in http.get("/v1/slots").json()["slots"]:
            http.delete(f"/v1/slots/{slot['id']}")
        for state in http.get("/v1/states").json()["states"]:
            http.delete(f"/v1/states/{state['id']}")


def test_each_desktop_is_its_own_process_and_deleting_it_ends_it(make_host):
    server = make_host(HostConfig(**FAST))
    health = httpx.get(server.url + "/healthz").json()
    assert health["ok"] is True and health["isolation"] in ("cgroup", "rlimit")
    with _http(server) as http:
        a, b = _create(http), _create(http)
        pa, pb = _worker(server, a).pid, _worker(server, b).pid
        assert len({pa, pb, os.getpid()}) == 3 and _alive(pa) and _alive(pb)
        assert http.delete(f"/v1/slots/{a}").status_code == 200
        _until(lambda: not _alive(pa), "the deleted slot's worker ended")
        assert _alive(pb)
        assert http.get(f"/v1/slots/{b}/screenshot").status_code == 200
        _cleanup(http)


def test_fork_children_are_copies_in_their_own_processes_and_outlive_the_parent(make_host):
    server = make_host(HostConfig(**FAST))
    with _http(server) as http:
        parent = _create(http)
        assert _act(http, parent, "pyautogui.hotkey('ctrl', 'alt', 't')").status_code == 200
        shot = http.get(f"/v1/slots/{parent}/screenshot", params={"format": "raw"}).content
        r = http.post(f"/v1/slots/{parent}/branch", json={"n": 3})
        assert r.status_code == 200, r.text
        kids = [c["id"] for c in r.json()["children"]]
        pids = {_worker(server, k).pid for k in kids} | {_worker(server, parent).pid}
        assert len(pids) == 4
        for kid in kids:  # each child starts as the parent's desktop
            raw = http.get(f"/v1/slots/{kid}/screenshot", params={"format": "raw"}).content
            assert raw == shot
        http.delete(f"/v1/slots/{parent}")
        _act(http, kids[0], "pyautogui.write('only here')")
        for kid in kids:
            assert http.get(f"/v1/slots/{kid}/screenshot").status_code == 200
        one, two = (http.get(f"/v1/slots/{k}/accessibility").json() for k in kids[:2])
        assert "only here" in str(one) and "only here" not in str(two)
        _cleanup(http)


def test_a_host_stop_ends_every_worker():
    server = LocalHost(HostConfig(**FAST)).start()
    try:
        with _http(server) as http:
            sid = _create(http)
            http.post(f"/v1/slots/{sid}/branch", json={"n": 2})
            pids = server.model.pool.pids()  # the parent, 2 children, the saved state's keeper
            assert len(pids) == 4 and all(_alive(p) for p in pids)
    finally:
        server.stop()
    _until(lambda: not any(_alive(p) for p in pids), "every worker ended with its host")


def test_a_worker_killed_from_outside_is_lost_alone_and_reset_brings_it_back(
    make_host, caplog
):
    server = make_host(HostConfig(**FAST))
    with _http(server, "a") as a, _http(server, "b") as b:
        lost, other = _create(a), _create(b)
        pid = _worker(server, lost).pid
        with caplog.at_level(logging.WARNING, logger="drums_gym.local"):
            os.kill(pid, signal.SIGKILL)  # as the kernel's OOM killer would
            r = _act(a, lost, "pyautogui.click(5, 5)")
        assert r.status_code == 200, r.text
        assert r.json()["cut"]["kind"] == "lost"
        episode = r.json()["episode"]
        assert episode["status"] == "invalid" and episode["invalid_reason"] == "desktop_lost"
        assert any(lost in rec.getMessage() and "desktop_lost" in rec.getMessage()
                   for rec in caplog.records)
        shot = a.get(f"/v1/slots/{lost}/screenshot")
        assert shot.status_code == 409 and shot.json()["error"]["details"]["reason"] == (
            "desktop_lost")
        _carries_on(b, other)
        again = a.post(f"/v1/slots/{lost}/reset")
        assert again.status_code == 200, again.text
        assert a.get(f"/v1/slots/{lost}/episode", params={"wait": "true"}).json()[
            "status"] == "valid"
        assert a.get(f"/v1/slots/{lost}/screenshot").status_code == 200
        assert _worker(server, lost).pid != pid
        _cleanup(a, b)


@pytest.mark.parametrize("what", ["action", "verify", "screenshot"])
def test_the_watchdog_kills_a_worker_that_stops_answering(make_host, what):
    server = make_host(HostConfig(gate_delay_s=0.0, action_seconds=0.2, watchdog_grace_s=0.3))
    with _http(server, "a") as a, _http(server, "b") as b:
        hung, other = _create(a), _create(b)
        pid = _worker(server, hung).pid
        os.kill(pid, signal.SIGSTOP)  # it will never answer by itself
        try:
            if what == "action":
                r = _act(a, hung, "pyautogui.click(5, 5)")
                assert r.status_code == 200 and r.json()["cut"]["kind"] == "lost", r.text
            elif what == "verify":
                r = a.post(f"/v1/slots/{hung}/verify", json={"strict": False})
                assert r.status_code == 200, r.text
                assert r.json()["valid"] is False and r.json()["reason"] == "verify_timeout"
            else:
                assert a.get(f"/v1/slots/{hung}/screenshot").status_code == 409
            _until(lambda: not _alive(pid), "the host killed the hung worker")
        finally:
            if _alive(pid):
                os.kill(pid, signal.SIGKILL)
        episode = a.get(f"/v1/slots/{hung}/episode").json()
        assert episode["status"] == "invalid" and episode["invalid_reason"] == f"{what}_timeout"
        assert b.get(f"/v1/slots/{other}/screenshot").status_code == 200
        _cleanup(a, b)


def test_a_verify_cut_by_its_budget_is_invalid_never_a_valid_zero(make_host, monkeypatch):
    def endless(task: Any, desktop: Any, last_action: Any) -> float:
        while True:
            budget.charge(256)

    monkeypatch.setattr(station, "score_episode", endless)
    server = make_host(HostConfig(gate_delay_s=0.0, action_steps=100_000), in_process=True)
    with _http(server) as http:
        sid = _create(http)
        r = http.post(f"/v1/slots/{sid}/verify", json={"strict": False})
        assert r.status_code == 200, r.text
        body = r.json()
        assert body["valid"] is False and body["reason"] == "verify_cut"
        assert body["cut"]["kind"] == "steps" and body["score"] == 0.0
        strict = http.post(f"/v1/slots/{sid}/verify")
        assert strict.status_code == 409  # the episode is invalid for good
        _cleanup(http)


def test_more_windows_than_the_cap_are_cut_and_closed(make_host):
    server = make_host(HostConfig(gate_delay_s=0.0, desktop_windows=3))
    with _http(server) as http:
        sid = _create(http)
        r = _act(http, sid, "\n".join(["pyautogui.hotkey('ctrl', 'alt', 't')"] * 8))
        assert r.status_code == 200 and r.json()["cut"]["kind"] == "windows", r.text
        assert r.json()["episode"]["status"] == "valid"
        tree = http.get(f"/v1/slots/{sid}/accessibility").json()["tree"]
        assert str(tree).count("'role': 'terminal'") == 3
        _cleanup(http)


def test_memory_past_the_limit_loses_that_desktop_alone(make_host):
    server = make_host(HostConfig(gate_delay_s=0.0, desktop_memory_bytes=200 * 1024**2))
    with _http(server, "a") as a, _http(server, "b") as b:
        other = _create(b)
        if server.model.isolation != "cgroup":
            _cleanup(a, b)
            pytest.skip("no writable memory cgroup: the rlimit fallback is not exercised here")
        greedy = _create(a)
        assert _act(a, greedy, "pyautogui.hotkey('ctrl', 'alt', 't')").status_code == 200
        for k in range(200):  # 12 MB a step: far past 200 MB if nothing stops it
            line = f"for i in 1 2 3 4; do printf '%3000000s' x > f{k}_$i; done"
            r = _act(a, greedy, f"pyautogui.write({line!r})\npyautogui.press('enter')")
            if r.status_code != 200 or r.json()["episode"]["status"] == "invalid":
                break
        episode = a.get(f"/v1/slots/{greedy}/episode").json()
        assert episode["status"] == "invalid" and episode["invalid_reason"] == "desktop_lost"
        _carries_on(b, other)
        _cleanup(a, b)


@pytest.mark.skipif(not available(), reason="the simulated shell's desktops hold no tree")
def test_fork_children_copy_their_files_on_their_own_memory(make_host):
    """Each fork child is put in its own cgroups before it copies the parent's files, so
    the copies are charged to the children: charged to the parent, four copies of a desktop
    holding a 48 MB file took the parent past its 200 MiB and lost it, and the branch."""
    server = make_host(HostConfig(gate_delay_s=0.0, desktop_memory_bytes=200 * 1024**2,
                                  shell="sandbox"))
    with _http(server) as http:
        parent = _create(http)
        if server.model.isolation != "cgroup":
            _cleanup(http)
            pytest.skip("no writable memory cgroup: the rlimit fallback does not count files")
        line = "head -c 48M /dev/zero > ~/big"
        code = f"pyautogui.hotkey('ctrl', 'alt', 't')\npyautogui.write({line + chr(10)!r})"
        assert _act(http, parent, code).json()["episode"]["status"] == "valid"
        r = http.post(f"/v1/slots/{parent}/branch", json={"n": 4})
        assert r.status_code == 200, r.text
        kids = [c["id"] for c in r.json()["children"]]
        assert [c["state"] for c in r.json()["children"]] == ["running"] * 4
        check = "[ $(stat -c %s ~/big) = 50331648 ] && echo big-ok-$HOSTNAME"
        for sid in (parent, *kids):
            r = _act(http, sid, f"pyautogui.write({check + chr(10)!r})")
            assert r.json()["episode"]["status"] == "valid", (sid, r.text)
            tree = http.get(f"/v1/slots/{sid}/accessibility").json()["tree"]
            assert "big-ok-" in str(tree), sid
        _cleanup(http)


def test_a_fork_child_that_does_not_come_up_fails_alone(make_host, monkeypatch):
    """The branch answers the others running and that one failed; the parent carries on."""
    server = make_host(HostConfig(**FAST))
    pool = server.model.pool
    admit, calls = type(pool)._admit, []

    def flaky(self: Any, sock: Any, workspace: str) -> Any:
        calls.append(workspace)
        if len(calls) == 3:  # the keeper is the first: the second child
            raise OSError("no cgroup for it")
        return admit(self, sock, workspace)

    monkeypatch.setattr(type(pool), "_admit", flaky)
    with _http(server) as http:
        parent = _create(http)
        before = set(pool.pids())
        r = http.post(f"/v1/slots/{parent}/branch", json={"n": 3})
        assert r.status_code == 200, r.text
        states = [c["state"] for c in r.json()["children"]]
        assert sorted(states) == ["failed", "running", "running"], states
        assert len(set(pool.pids()) - before) == 3  # the keeper and two children
        for child in r.json()["children"]:
            if child["state"] == "running":
                _carries_on(http, child["id"])
        _carries_on(http, parent)
        _cleanup(http)


def test_a_reply_over_the_cap_loses_that_desktop_alone(make_host):
    # a 1920x1080 raw frame is 6.2 MB, its PNG far less: the cap lets one through, not the other
    server = make_host(HostConfig(gate_delay_s=0.0, desktop_reply_bytes=2 * 1024**2))
    with _http(server, "a") as a, _http(server, "b") as b:
        big, other = _create(a), _create(b)
        pid = _worker(server, big).pid
        assert a.get(f"/v1/slots/{big}/screenshot").status_code == 200  # a PNG fits
        shot = a.get(f"/v1/slots/{big}/screenshot", params={"format": "raw"})
        assert shot.status_code == 409, shot.text
        assert shot.json()["error"]["details"]["reason"] == "desktop_lost"
        _until(lambda: not _alive(pid), "the host killed the worker whose reply was too big")
        episode = a.get(f"/v1/slots/{big}/episode").json()
        assert episode["status"] == "invalid" and episode["invalid_reason"] == "desktop_lost"
        _carries_on(b, other)
        _cleanup(a, b)


def test_a_request_cancelled_on_the_event_loop_still_reads_its_own_reply(make_host):
    """An env step's requests await the worker on the front's event loop. One cancelled
    there (the host stopping) must not leave its reply on the socket for the next request
    to read as its own: the next screenshot, asked as raw, gets raw bytes, not the PNG the
    cancelled one asked for."""
    server = make_host(HostConfig(**FAST))
    with _http(server, "a") as a:
        sid = _create(a)
        worker = _worker(server, sid)

        async def cancel_then_ask() -> Any:
            first = asyncio.ensure_future(
                worker.acall("screenshot", ("png", None, "valid"), deadline_s=TIMEOUT))
            while not worker._calling.locked():  # until its request is out
                await asyncio.sleep(0)
            first.cancel()
            with pytest.raises(asyncio.CancelledError):
                await first
            return await worker.acall("screenshot", ("raw", None, "valid"), deadline_s=TIMEOUT)

        frame = asyncio.run(cancel_then_ask())
        assert len(frame.data) == frame.width * frame.height * 3
        assert not frame.data.startswith(b"\x89PNG")
        assert a.get(f"/v1/slots/{sid}/screenshot").status_code == 200
        _cleanup(a)


def test_actions_sent_at_once_to_one_desktop_run_one_at_a_time(make_host):
    """The first takes the slot on the event loop; the others, finding it taken, queue for it
    on threads: every one is applied, each counted once, in the log in turn (the slot's
    queue holds them all: past it, a request is refused with 429, by design)."""
    codes = [f"pyautogui.moveTo({10 + i}, {20 + i})" for i in range(8)]
    server = make_host(HostConfig(**FAST, slot_queue=len(codes)))
    with _http(server, "a") as a:
        sid = _create(a)
        with ThreadPoolExecutor(len(codes)) as pool:
            replies = list(pool.map(lambda code: _act(a, sid, code), codes))
        assert [r.status_code for r in replies] == [200] * len(codes), [r.text for r in replies]
        assert sorted(r.json()["episode"]["actions"] for r in replies) == list(
            range(1, len(codes) + 1))
        log = a.get(f"/v1/slots/{sid}/actions").json()["actions"]
        assert sorted(entry["code"] for entry in log) == sorted(codes)
        assert [entry["t"] for entry in log] == sorted(entry["t"] for entry in log)
        _cleanup(a)


def test_one_busy_workspace_cannot_take_another_workspaces_threads(make_host):
    server = make_host(HostConfig(gate_delay_s=0.0, action_seconds=60, action_steps=10**12,
                                  watchdog_grace_s=60, workspace_threads=2))
    threads = server.app.state.threads
    with _http(server, "a") as a, _http(server, "b") as b:
        busy = [_create(a) for _ in range(4)]
        other = _create(b)
        for sid in busy:
            assert _act(a, sid, "pyautogui.hotkey('ctrl', 'alt', 't')").status_code == 200
        loop = "pyautogui.write('while true; do :; done')\npyautogui.press('enter')"
        box: list[int] = []
        attacks = [threading.Thread(target=lambda s=sid: box.append(_act(a, s, loop).status_code),
                                    daemon=True) for sid in busy]
        for t in attacks:
            t.start()
        limiter = threads.limiter(workspace_of("a"))
        _until(lambda: limiter.borrowed_tokens == 2 and limiter.statistics().tasks_waiting == 2,
               "workspace a's share of threads taken, and its other requests queued")
        assert httpx.get(server.url + "/healthz", timeout=TIMEOUT).json()["ok"] is True
        assert b.get(f"/v1/slots/{other}/screenshot").status_code == 200
        assert _act(b, other, "pyautogui.click(5, 5)").status_code == 200
        assert b.post("/v1/slots", json={"task": TASK}).status_code == 201
        assert all(t.is_alive() for t in attacks), "b was answered while a's loops ran"
        for sid in busy:  # deleting a slot kills its worker: its loop ends now
            a.delete(f"/v1/slots/{sid}")
        for t in attacks:
            t.join(TIMEOUT)
        assert sorted(box) == [409] * 4
        _cleanup(a, b)


def test_the_documented_limits_table_is_the_config():
    """docs/architecture.md's table of a desktop's limits: every row is a KNOBS row with its
    flag, variable and default (a planted wrong default fails: see the last lines)."""
    from pathlib import Path

    from drums_gym.local.config import KNOBS

    doc = (Path(__file__).resolve().parents[2] / "docs" / "architecture.md").read_text()
    table = doc.split("### Limits of one desktop", 1)[1].split("\n\n", 1)[0]
    rows = [[c.strip() for c in line.strip("|").split("|")]
            for line in table.splitlines()[3:] if line.startswith("|")]
    by_flag = {k.flag: k for k in KNOBS}

    def check(rows: list[list[str]]) -> None:
        for _, default, flag, env in rows:
            knob = by_flag[flag.strip("`")]
            assert env.strip("`") == knob.env
            value = getattr(HostConfig(), knob.field)
            assert str(value) in default.replace(" s", ""), (flag, default, value)

    assert len(rows) == 9
    check(rows)
    planted = [[*rows[0][:1], "2 GiB (2147483648)", *rows[0][2:]]]
    with pytest.raises(AssertionError):
        check(planted)


def _descendants(root: int) -> set[int]:
    return set(process_tree(root)[1:])


def _files(pid: int, name: str) -> list[str]:
    """The desktop trees of worker ``pid`` holding ~/``name``."""
    base = tree_base(pid)
    trees = [t for t in os.listdir(base) if t != "template"] if os.path.isdir(base) else []
    return [t for t in trees if os.path.exists(os.path.join(base, t, "home/user", name))]


def _touch(http: httpx.Client, sid: str, name: str) -> None:
    r = _act(http, sid, f"pyautogui.write('touch ~/{name}\\n')")
    assert r.status_code == 200 and r.json()["cut"] is None, r.text


@pytest.mark.skipif(not available(), reason="no bubblewrap sandbox on this machine")
def test_a_sandbox_desktop_lives_in_its_worker_forks_with_its_files_and_goes_with_it(
    make_host,
):
    """The sandbox backend: Python beyond plain calls runs in the desktop's sandbox, started
    by the worker; a fork child gets a copy of the tree (its writes stay its own); reset
    from the saved state copies the state's files; deleting a desktop ends its sandbox's
    programs and removes its tree."""
    server = make_host(HostConfig(gate_delay_s=0.0, shell="sandbox"))
    with _http(server) as http:
        parent = _create(http)
        r = _act(http, parent, "for key in ['shift']:\n    pyautogui.press(key)")
        assert r.status_code == 200 and r.json()["runner"] == "python", r.text
        assert r.json()["action_error"] is None and r.json()["shell"] == "sandbox"
        assert _act(http, parent, "pyautogui.hotkey('ctrl', 'alt', 't')").status_code == 200
        pid = _worker(server, parent).pid
        _touch(http, parent, "mark.txt")
        _until(lambda: bool(_files(pid, "mark.txt")), "the terminal's file in the tree")
        assert _descendants(pid), "the sandbox's programs are the worker's"
        # its tree is a copy of the zygote's template: the worker built none of its own
        assert not os.path.exists(os.path.join(tree_base(pid), "template"))
        r = http.post(f"/v1/slots/{parent}/branch", json={"n": 1})
        assert r.status_code == 200, r.text
        kid, state = r.json()["children"][0]["id"], r.json()["state"]
        kid_pid = _worker(server, kid).pid
        assert _files(kid_pid, "mark.txt")
        _touch(http, kid, "kid.txt")
        _until(lambda: bool(_files(kid_pid, "kid.txt")), "the child's terminal writes its tree")
        assert not _files(pid, "kid.txt"), "a child's writes are its own"
        r = http.post(f"/v1/slots/{kid}/reset", json={"state": state})
        assert r.status_code == 200, r.text
        new_pid = _worker(server, kid).pid
        assert new_pid != kid_pid and _files(new_pid, "mark.txt")
        assert not _files(new_pid, "kid.txt"), "the state is the parent's desktop at the fork"
        _until(lambda: not os.path.isdir(tree_base(kid_pid)), "the replaced worker's tree went")
        programs = _descendants(pid)
        assert http.delete(f"/v1/slots/{parent}").status_code == 200
        _until(lambda: not any(_alive(p) for p in programs | {pid}),
               "the deleted desktop's sandbox programs ended")
        _until(lambda: not os.path.isdir(tree_base(pid)), "the deleted desktop's tree went")
        # a worker killed before it could close its sandbox leaves nothing behind either
        _touch(http, kid, "again.txt")
        _until(lambda: bool(_files(new_pid, "again.txt")), "the restored desktop's terminal")
        groups = f"/sys/fs/cgroup/pids/drums-desktops/{new_pid}-*"
        had_groups = bool(glob.glob(groups))
        programs = _descendants(new_pid)
        os.kill(new_pid, signal.SIGKILL)
        r = _act(http, kid, "pyautogui.press('shift')")
        assert r.status_code == 200 and r.json()["cut"]["kind"] == "lost", r.text
        _until(lambda: not any(_alive(p) for p in programs), "the killed worker's sandbox ended")
        _until(lambda: not os.path.isdir(tree_base(new_pid)) and not glob.glob(groups),
               "the killed worker's tree and sandbox cgroups were removed by the host")
        assert had_groups or not os.path.isdir("/sys/fs/cgroup/pids/drums-desktops")
        _cleanup(http)
