"""Hostile input through the front door (issue 11, item 8).

Everything here is what an agent (or a client) can send a real local host over HTTP: terminal
lines typed with ``pyautogui.write`` into a Terminal opened with ctrl+alt+T, and raw
requests. Each attack class of issue 11 gets one case, and a hypothesis grammar of bash
lines (``tests/bash_grammar.py``) types many more. Asserted: no 5xx ever; an action whose
work ran out of budget answers 200 with ``cut`` and its episode stays valid; while a slow
attack runs, ``/healthz`` and another workspace's screenshot return before it does
(ordering: once the host process has burnt CPU on the attack, they come back while the
attack thread is still alive); the host's peak memory
stays bounded.

The attack host is a ``drums-gym serve`` process (``--action-seconds 2``), so its memory is
its own (``/proc/<pid>/status``).
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from bash_grammar import lines
from conftest import process_tree
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from drums_gym.local.config import HostConfig

pytestmark = pytest.mark.filterwarnings("ignore::hypothesis.errors.HypothesisWarning")

TIMEOUT = 60.0
TASK = "e0df059f"
MB = 1024 * 1024
#: peak resident memory the attack host may reach (it starts near 100 MB; issue 11 saw 1.4 GB
#: for one brace expansion and 3.1 GB for four BMP thumbnails)
PEAK_RSS = 700 * MB


def _stat(pid: int) -> list[str]:
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:  # it ended meanwhile
        return []


def _cpu(pid: int) -> float:
    fields = _stat(pid)
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK") if fields else 0.0


class Host:
    """A ``drums-gym serve`` process on loopback, its pid and URL."""

    def __init__(self, *args: str) -> None:
        cmd = [sys.executable, "-m", "drums_gym.cli", "serve", "--port", "0", *args]
        self.proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                     text=True)
        line = self.proc.stdout.readline() if self.proc.stdout else ""
        if "serving at " not in line:
            self.stop()
            raise RuntimeError(f"drums-gym serve did not start: {line!r}")
        self.url = line.split("serving at ")[1].split()[0]

    def status(self, field: str) -> int:
        """A ``/proc/<pid>/status`` field in bytes (``VmRSS``, ``VmHWM``)."""
        for row in Path(f"/proc/{self.proc.pid}/status").read_text().splitlines():
            if row.startswith(field + ":"):
                return int(row.split()[1]) * 1024
        raise LookupError(field)

    def cpu_seconds(self) -> float:
        """User plus system CPU time the host has used: its process and its live
        descendants (the zygote and the desktops' workers, where the attack's work runs)."""
        return sum(_cpu(pid) for pid in process_tree(self.proc.pid))

    def working(self, since: float, alive: threading.Thread, cpu: float = 0.2) -> None:
        """Return once the host has burnt ``cpu`` seconds since ``since`` (the attack's work is
        under way), while ``alive`` still runs; fail if it ended first."""
        tick = threading.Event()
        while self.cpu_seconds() - since < cpu:
            assert alive.is_alive(), "the attack ended before its work was seen"
            tick.wait(0.005)

    def stop(self) -> None:
        self.proc.terminate()
        try:
            self.proc.communicate(timeout=30)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.communicate()


@pytest.fixture(scope="module")
def host() -> Iterator[Host]:
    # the simulated bash's hostile lines (the sandbox's attacks: test_sandbox_escape.py)
    h = Host("--gate-delay", "0", "--action-seconds", "2", "--header-timeout", "1",
             "--body-timeout", "1", "--max-workspaces", "64", "--shell", "simulated")
    try:
        yield h
    finally:
        h.stop()


def client(url: str, token: str) -> httpx.Client:
    return httpx.Client(base_url=url, timeout=TIMEOUT,
                        headers={"Authorization": f"Bearer {token}"})


class Desk:
    """One slot of ``http``'s workspace, with a Terminal open."""

    def __init__(self, http: httpx.Client) -> None:
        self.http = http
        r = http.post("/v1/slots", json={"task": TASK})
        assert r.status_code == 201, r.text
        self.id = r.json()["id"]
        ep = http.get(f"/v1/slots/{self.id}/episode", params={"wait": "true", "timeout_s": 30})
        assert ep.status_code == 200 and ep.json()["status"] == "valid", ep.text
        self.act("pyautogui.hotkey('ctrl', 'alt', 't')")

    def act(self, code: str) -> dict[str, Any]:
        """Run ``code``: 200, the episode still valid; the reply."""
        r = self.http.post(f"/v1/slots/{self.id}/actions", json={"code": code})
        assert r.status_code == 200, r.text
        reply = r.json()
        assert reply["episode"]["status"] == "valid", reply
        return reply

    def type(self, line: str) -> dict[str, Any]:
        """Type ``line`` and Enter in one action."""
        return self.act(f"pyautogui.write({line!r})\npyautogui.press('enter')")

    def screenshot(self) -> httpx.Response:
        r = self.http.get(f"/v1/slots/{self.id}/screenshot")
        assert r.status_code == 200, r.text
        return r

    def delete(self) -> None:
        assert self.http.delete(f"/v1/slots/{self.id}").status_code in (200, 204)


@pytest.fixture(scope="module")
def desks(host: Host) -> Iterator[tuple[Desk, Desk]]:
    """The attacker's desktop and another workspace's desktop."""
    with client(host.url, "attacker") as a, client(host.url, "bystander") as b:
        attacker, other = Desk(a), Desk(b)
        yield attacker, other
        attacker.delete()
        other.delete()


def _healthz(url: str) -> None:
    r = httpx.get(url + "/healthz", timeout=TIMEOUT)
    assert r.status_code == 200 and (r.json()["ok"], r.json()["shell"]) == (True, "simulated")


def _cut_kind(reply: dict[str, Any]) -> str | None:
    cut = reply.get("cut")
    return None if cut is None else cut["kind"]


# -- the terminal lines of issue 11: (name, line, what the budget does, slow) -------------------

NESTED = ("for i in {1..10000}; do for j in {1..10000}; do for k in {1..10000}; do x=1; "
          "done; done; done")
LINES = [
    ("backtracking regex", "echo " + "a" * 52 + "! | grep -E '^(a+)+$'; echo rc=$?", None, False),
    ("big arithmetic", "echo $(( ((((3**64)**64)**64)**64)**64 ))", None, False),
    ("nested assignment loops", NESTED, "cut", True),
    ("brace range", "echo {1..20000000} | wc -c", "cut", False),
    ("brace groups", "echo " + "{a,b}" * 20 + " | wc -c", "cut", False),
    ("huge seq", "seq 1 100000000000000000000", "cut", False),
    ("printf precision", "printf '%.999999999d' 1", "cut", False),
    ("variable doubling", "x=a; for i in {1..30}; do x=$x$x; done; echo ${#x}", "cut", False),
    ("output flood", "while true; do echo " + "flood" * 20 + "; done", "cut", True),
]


@pytest.mark.parametrize(("name", "line", "expect", "slow"), LINES, ids=[r[0] for r in LINES])
def test_a_hostile_line_is_data_and_stalls_no_one(host, desks, name, line, expect, slow):
    attacker, other = desks
    box: list[dict[str, Any]] = []
    attack = threading.Thread(target=lambda: box.append(attacker.type(line)), daemon=True)
    cpu = host.cpu_seconds()
    attack.start()
    if slow:  # the host answers others while the attack's work runs
        host.working(cpu, attack)
        _healthz(host.url)
        other.screenshot()
        assert attack.is_alive(), f"{name}: the attack ended before the others were answered"
    attack.join(TIMEOUT)
    assert box, f"{name}: the action never answered"
    reply = box[0]
    if expect == "cut":
        assert _cut_kind(reply) in ("steps", "time", "output"), reply
    else:
        assert reply["cut"] is None, reply
    # the terminal goes on: the next line runs
    assert attacker.type("echo still here")["cut"] is None
    assert host.status("VmHWM") < PEAK_RSS


def test_a_200_deep_tree_then_branch(host, desks):
    attacker, _ = desks
    assert attacker.type("mkdir -p $(printf 'd/%.0s' {1..200}) && cd ~")["cut"] is None
    r = attacker.http.post(f"/v1/slots/{attacker.id}/branch",
                               json={"n": 1, "delete_state_with_children": True})
    assert r.status_code == 200, r.text
    (child,) = r.json()["children"]
    assert child["state"] == "running", child
    assert attacker.http.delete(f"/v1/slots/{child['id']}").status_code in (200, 204)


def test_many_files_then_a_long_action(host, desks):
    attacker, other = desks
    assert attacker.type("touch ~/Desktop/f{1..10000}")["cut"] is None
    attacker.type("exit")  # the Terminal closes: the clicks land on the crowded Desktop
    code = "\n".join(f"pyautogui.click({100 + i % 700}, {100 + i % 500}, clicks=3)"
                     for i in range(1000))
    box: list[dict[str, Any]] = []
    attack = threading.Thread(target=lambda: box.append(attacker.act(code)), daemon=True)
    attack.start()
    _healthz(host.url)
    other.screenshot()
    attack.join(TIMEOUT)
    assert box and _cut_kind(box[0]) in (None, "steps", "time", "output"), box
    attacker.screenshot()
    attacker.act("pyautogui.hotkey('ctrl', 'alt', 't')")
    assert attacker.type("rm -f ~/Desktop/f*")["cut"] is None
    assert host.status("VmHWM") < PEAK_RSS


# -- raw HTTP attacks ------------------------------------------------------------------------


def _connect(url: str) -> socket.socket:
    addr, port = url.removeprefix("http://").rsplit(":", 1)
    return socket.create_connection((addr, int(port)), timeout=TIMEOUT)


def _reply(sock: socket.socket) -> bytes:
    data = b""
    try:
        while chunk := sock.recv(65536):
            data += chunk
    except ConnectionResetError:
        pass
    return data


def _status(raw: bytes) -> int:
    return int(raw.split(b" ", 2)[1]) if raw else 0


def test_a_100_mb_body_is_refused_not_read(host, desks):
    attacker, _ = desks
    sock = _connect(host.url)
    with sock:
        sock.sendall(
            f"POST /v1/slots/{attacker.id}/actions HTTP/1.1\r\nHost: x\r\n"
            "Authorization: Bearer attacker\r\nContent-Type: application/json\r\n"
            f"Content-Length: {100 * MB}\r\n\r\n".encode()
        )
        try:  # the start of the body; the host may answer and close before it is all sent
            for _ in range(8):
                sock.sendall(b'{"code": "' + b"x" * MB)
        except (BrokenPipeError, ConnectionResetError):
            pass
        raw = _reply(sock)
    assert _status(raw) == 413, raw[:200]
    _healthz(host.url)
    assert host.status("VmHWM") < PEAK_RSS


def test_a_lying_content_length_and_half_sent_heads(host, desks):
    _, other = desks
    liar = _connect(host.url)
    liar.sendall(b"POST /v1/slots HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                 b'Content-Length: 500\r\n\r\n{"task": ')
    halves = [_connect(host.url) for _ in range(50)]
    for i, s in enumerate(halves):
        s.sendall(b"GET /v1/slots HTTP/1.1\r\nHost: x\r\nX-Slow-" + str(i).encode())
    # while all of them hang open, everyone else is answered
    _healthz(host.url)
    other.screenshot()
    with liar:
        raw = _reply(liar)  # the host answers the liar (408) or closes: never holds it
    assert _status(raw) in (0, 400, 408), raw[:200]
    for s in halves:
        with s:
            assert _status(_reply(s)) in (0, 400, 408)


def test_a_lone_surrogate_is_a_4xx(host, desks):
    attacker, _ = desks
    r = attacker.http.post(f"/v1/slots/{attacker.id}/actions",
                           content=b'{"code": "pyautogui.write(\'\\ud800\')"}',
                           headers={"Content-Type": "application/json"})
    assert 400 <= r.status_code < 500, r.text
    assert "\\ud800" not in r.text and "\ud800" not in r.text.encode("utf-8", "replace").decode()
    # and typed as text, a surrogate escape is just a bad action or data
    r = attacker.http.post(f"/v1/slots/{attacker.id}/actions",
                           json={"code": "pyautogui.write('\\ud800')"})
    assert r.status_code in (200, 422), r.text


def test_junk_tokens_are_capped_workspaces(host, desks):
    _, other = desks
    for i in range(300):
        r = httpx.get(host.url + "/v1/slots", headers={"Authorization": f"Bearer junk-{i}"},
                      timeout=TIMEOUT)
        assert r.status_code == 200, r.text
    _healthz(host.url)
    other.screenshot()
    usage = httpx.get(host.url + "/v1/host", headers={"Authorization": "Bearer bystander"},
                      timeout=TIMEOUT)
    assert usage.status_code == 200
    assert host.status("VmHWM") < PEAK_RSS


# -- property: lines from the grammar, typed over HTTP --------------------------------------

#: the simulated bash's grammar, so its shell (a real bash answers these lines in its own way)
FUZZ = HostConfig(gate_delay_s=0.0, action_steps=20_000, action_seconds=2.0,
                  action_output_bytes=256 * 1024, shell="simulated")
SETUP = "mkdir -p dir/sub && echo aaaa > f.txt && echo 'echo in script; source ./s.sh' > s.sh"


@pytest.fixture(scope="module")
def fuzz_desk() -> Iterator[Callable[[], Desk]]:
    from drums_gym.local.server import LocalHost

    server = LocalHost(FUZZ).start()
    made: list[Desk] = []
    http = client(server.url, "fuzz")

    def fresh() -> Desk:
        while made:
            made.pop().delete()
        d = Desk(http)
        made.append(d)
        d.type(SETUP)
        return d

    try:
        yield fresh
    finally:
        while made:
            made.pop().delete()
        http.close()
        server.stop()


@settings(max_examples=25, deadline=None, derandomize=True, database=None,
          suppress_health_check=list(HealthCheck))
@given(batch=st.lists(lines(), min_size=1, max_size=2))
def test_grammar_lines_typed_into_a_terminal_are_data(fuzz_desk, batch):
    desk = fuzz_desk()
    for line in batch:
        reply = desk.type(line.replace("\n", "; "))  # 200, the episode valid
        assert _cut_kind(reply) in (None, "steps", "time", "output"), reply
        desk.act("pyautogui.hotkey('ctrl', 'c')")
    desk.screenshot()
    r = desk.http.get(f"/v1/slots/{desk.id}/accessibility")
    assert r.status_code == 200, r.text
    assert json.loads(r.text)
