"""The sandbox is part of the host's isolation: attacks typed into a real Terminal.

A local host with the sandbox backend, over loopback HTTP; each attack is a line typed
with ``pyautogui.write`` into a Terminal opened with ctrl+alt+T, as an agent would, and
its outcome is read from the terminal's accessibility text. Asserted: no network (not even
the host's own port), no machine file readable but the read-only system folders, nothing
writable outside the desktop's tree, no escape through /proc, symlinks, ``..``, device
files, setuid binaries, ptrace, mount or unshare; a fork bomb and a memory bomb are stopped
by the desktop's limits while another desktop answers; no process is left once a desktop
is deleted. Each check fails when the attack succeeds (the marker is printed only then).
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from typing import Any
from urllib.parse import urlparse

import httpx
import pytest
from reliability import wait_until
from terminal_driver import walk

from drums_gym.local.config import HostConfig
from drums_gym.local.sandbox import available, unavailable_reason
from drums_gym.local.server import LocalHost

pytestmark = pytest.mark.skipif(not available(), reason=f"no sandbox: {unavailable_reason()}")

TASK = "e0df059f"
OK = "ESCAPED"  # printed only when an attack works ...
SAY = 'ESC""APED'  # ... by `echo {SAY}`, so the typed line never shows it


class Desk:
    """A slot of the host with a Terminal open."""

    def __init__(self, http: httpx.Client) -> None:
        self.http = http
        r = http.post("/v1/slots", json={"task": TASK})
        assert r.status_code == 201, r.text
        self.id = r.json()["id"]
        ep = http.get(f"/v1/slots/{self.id}/episode", params={"wait": "true", "timeout_s": 30})
        assert ep.json()["status"] == "valid", ep.text
        self.act("pyautogui.hotkey('ctrl', 'alt', 't')")

    def act(self, code: str) -> dict[str, Any]:
        r = self.http.post(f"/v1/slots/{self.id}/actions", json={"code": code})
        assert r.status_code == 200, r.text
        return r.json()

    def type(self, line: str) -> str:
        """Type ``line`` and Enter; the terminal's text afterwards (after a ``clear``)."""
        self.act("pyautogui.write('clear')\npyautogui.press('enter')")
        reply = self.act(f"pyautogui.write({line!r})\npyautogui.press('enter')")
        assert reply["shell"] == "sandbox"
        return self.text()

    def text(self) -> str:
        tree = self.http.get(f"/v1/slots/{self.id}/accessibility").json()["tree"]
        return next(n for n in walk(tree) if n["role"] == "terminal")["text"]


@pytest.fixture(scope="module")
def host() -> Iterator[LocalHost]:
    server = LocalHost(HostConfig(gate_delay_s=0.05, shell="sandbox")).start()
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture(scope="module")
def desks(host: LocalHost) -> Iterator[tuple[Desk, Desk]]:
    with httpx.Client(base_url=host.url, timeout=60.0,
                      headers={"Authorization": "Bearer attacker"}) as a, \
            httpx.Client(base_url=host.url, timeout=60.0,
                         headers={"Authorization": "Bearer bystander"}) as b:
        yield Desk(a), Desk(b)
        for http in (a, b):
            for slot in http.get("/v1/slots").json().get("slots", []):
                http.delete(f"/v1/slots/{slot['id']}")


def test_the_host_says_which_backend_is_in_force(host: LocalHost) -> None:
    health = httpx.get(host.url + "/healthz").json()
    assert (health["ok"], health["shell"]) == (True, "sandbox")


def test_no_network_not_even_the_hosts_own_port(host: LocalHost,
                                                desks: tuple[Desk, Desk]) -> None:
    port = urlparse(host.url).port
    text = desks[0].type(f"(exec 3<>/dev/tcp/127.0.0.1/{port}) 2>/dev/null && echo {SAY}; "
                         "cat /sys/class/net/*/operstate | sort -u | tr '\\n' ' '; echo net")
    assert OK not in text and "net" in text
    assert "up" not in text.split("net")[0].split("\n")[-1]


@pytest.mark.parametrize("line", [
    f"ls /work /opt /old_root 2>/dev/null && echo {SAY}",
    f"cat /proc/1/root/etc/shadow 2>/dev/null && echo {SAY}",
    f"ls /proc/1/root/work 2>/dev/null && echo {SAY}",
    f"ln -s /proc/1/root ~/r; ls ~/r/work 2>/dev/null && echo {SAY}",
    f"cd /; cd ../../../../..; ls work 2>/dev/null && echo {SAY}",
    f"grep -q '^root:[^*!]' /etc/shadow 2>/dev/null && echo {SAY}",
    f"echo password | sudo -S grep -c ':\\$' /etc/shadow | grep -qv '^1$' && echo {SAY}",
    f"ls /root/.ssh /root/.pyenv 2>/dev/null && echo {SAY}",
])
def test_no_machine_file_is_readable(desks: tuple[Desk, Desk], line: str) -> None:
    assert OK not in desks[0].type(line)


@pytest.mark.parametrize("line", [
    f"touch /usr/x 2>/dev/null && echo {SAY}",
    f"echo password | sudo -S touch /usr/bin/x 2>/dev/null && echo {SAY}",
    f"echo password | sudo -S mount -t tmpfs none /mnt 2>/dev/null && echo {SAY}",
    f"unshare -Ur true 2>/dev/null && echo {SAY}",
    f"echo password | sudo -S unshare -m true 2>/dev/null && echo {SAY}",
    f"echo password | sudo -S mknod /tmp/disk b 8 0 2>/dev/null && echo {SAY}",
    f"ls /dev | grep -qE '^(sd|vd|nvme|mem|kmem|port)' && echo {SAY}",
    f"python3 -c 'import ctypes,sys; sys.exit(ctypes.CDLL(None).ptrace(16, 2, 0, 0))' "
    f"2>/dev/null && echo {SAY}",
    f"su -c true root </dev/null 2>/dev/null && echo {SAY}",
    f"mkdir -p /tmp/m; mount -t tmpfs none /tmp/m 2>/dev/null && echo {SAY}",  # setuid
    f"newgrp root </dev/null 2>/dev/null && echo {SAY}",  # setuid as well
])
def test_nothing_escapes(desks: tuple[Desk, Desk], line: str) -> None:
    assert OK not in desks[0].type(line)


def test_a_planted_escape_is_seen(desks: tuple[Desk, Desk]) -> None:
    """The checks above can fail: a line that does print the marker is caught."""
    assert OK in desks[0].type(f"true && echo {SAY}")


def test_a_fork_bomb_is_held_by_the_desktops_pids_limit(host: LocalHost,
                                                        desks: tuple[Desk, Desk]) -> None:
    _, other = desks
    with httpx.Client(base_url=host.url, timeout=60.0,
                      headers={"Authorization": "Bearer bomber"}) as http:
        bomber = Desk(http)
        bomber.type("b() { b | b & }; b 2>/dev/null")
        assert other.type("echo alive").count("alive") == 2  # the typed line and its output
        assert http.delete(f"/v1/slots/{bomber.id}").status_code in (200, 204)
    assert other.type("echo still").count("still") == 2


def test_a_memory_bomb_is_killed_by_the_desktops_memory_limit(
        desks: tuple[Desk, Desk]) -> None:
    attacker, other = desks
    text = attacker.type("python3 -c 'x = bytearray(8 << 30)' ; echo status=$?")
    assert "status=0" not in text  # refused or killed, never granted 8 GiB
    assert other.type("echo alive").count("alive") == 2


def test_no_process_is_left_after_a_desktop_is_deleted(host: LocalHost) -> None:
    with httpx.Client(base_url=host.url, timeout=60.0,
                      headers={"Authorization": "Bearer leaver"}) as http:
        desk = Desk(http)
        desk.type("(sleep 601 &); (nohup sleep 601 >/dev/null 2>&1 &); setsid sleep 601 & "
                  "echo started")
        before = wait_until(lambda: (lambda p: p if len(p) == 3 else None)(_pids_of("sleep 601")),
                            10.0, "the three sleeps, seen from the host")
        assert http.delete(f"/v1/slots/{desk.id}").status_code in (200, 204)
        left = before & _pids_of("sleep 601")
        assert not left, f"processes left: {left}"


def _pids_of(cmdline: str) -> set[int]:
    """Host pids of the live processes whose command line is ``cmdline``."""
    out = set()
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            with open(f"/proc/{name}/cmdline", "rb") as f:
                argv = f.read().split(b"\0")
            with open(f"/proc/{name}/stat") as f:
                state = f.read().rsplit(")", 1)[1].split()[0]
        except OSError:
            continue
        if b" ".join(argv).strip() == cmdline.encode() and state != "Z":
            out.add(int(name))
    return out
