"""The host under attack: worst per-action latency and ``/healthz`` p99, per attack class.

A ``drums-gym serve`` process (``--action-seconds 2``: every action's work is cut at 2 s)
is attacked with each class of issues 11 and 19 in turn, from one workspace, while pollers
on loopback call ``/healthz`` and another workspace's (the bystander's) screenshot back to
back. For each class (and for no attack: the line ``echo hi``) it prints the worst latency
of one attack action (or request, for the HTTP classes; for junk tokens, 50 requests with
new tokens; for the slow clients, until the host closes them), the p99 of ``/healthz``
during the attack, with ratios to the no-attack row, and the bystander's worst screenshot
and worst ``/healthz``; then the peak resident memory of the host process and of its
desktop workers. A fast attack is repeated until the poller has 100 samples (at most 200
times or 3 s).

Run: ``python benchmarks/attacks.py`` (``--quick`` for a smoke run: one repeat each).
"""

from __future__ import annotations

import argparse
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

import httpx

TASK = "e0df059f"
MB = 1024 * 1024
TIMEOUT = 60.0
MIN_POLLS = 100  # /healthz samples wanted per class
MAX_REPEATS = 200  # attack repetitions per class at most
MAX_SECONDS = 3.0  # extra repetitions stop after this long

NESTED = ("for i in {1..10000}; do for j in {1..10000}; do for k in {1..10000}; do x=1; "
          "done; done; done")
LINES = {
    "no attack": "echo hi",
    "backtracking regex": "echo " + "a" * 52 + "! | grep -E '^(a+)+$'",
    "big arithmetic": "echo $(( ((((3**64)**64)**64)**64)**64 ))",
    "nested assignment loops": NESTED,
    "brace range": "echo {1..20000000} | wc -c",
    "brace groups": "echo " + "{a,b}" * 20 + " | wc -c",
    "huge seq": "seq 1 100000000000000000000",
    "printf precision": "printf '%.999999999d' 1",
    "variable doubling": "x=a; for i in {1..30}; do x=$x$x; done; echo ${#x}",
    "output flood": "while true; do echo " + "flood" * 20 + "; done",
    "sort -u of a big file": "rm -f big; for i in 1 2 3 4; do seq 700000 >> big; done; "
                             "sort -u big big big | wc -l",
    "64 KiB openssl passwd": "x=$(printf '%65536s' | tr ' ' a); "
                             "openssl passwd -6 -salt s \"$x\" | wc -c",
}
CLASSES = [*LINES, "200-deep tree, branch", "10,000 files, long action", "100 MB body",
           "lying Content-Length", "50 half-sent requests", "lone surrogate", "junk tokens",
           "printf memory growth", "1,000 hotkey terminals x20", "16 busy desktops"]


@contextmanager
def serve(*args: str) -> Iterator[tuple[str, int]]:
    """A ``drums-gym serve`` process on a free port; yields its URL and pid."""
    cmd = [sys.executable, "-m", "drums_gym.cli", "serve", "--port", "0", *args]
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        line = proc.stdout.readline() if proc.stdout else ""
        if "serving at " not in line:
            raise RuntimeError(f"drums-gym serve did not start: {line}")
        yield line.split("serving at ")[1].split()[0], proc.pid
    finally:
        proc.terminate()
        proc.communicate(timeout=30)


def peak_rss_mb(pid: int) -> float:
    try:
        rows = Path(f"/proc/{pid}/status").read_text().splitlines()
    except OSError:  # it ended meanwhile
        return 0.0
    for row in rows:
        if row.startswith("VmHWM:"):
            return int(row.split()[1]) / 1024
    return float("nan")


class Desk:
    def __init__(self, http: httpx.Client) -> None:
        self.http = http
        r = http.post("/v1/slots", json={"task": TASK})
        r.raise_for_status()
        self.id = r.json()["id"]
        http.get(f"/v1/slots/{self.id}/episode", params={"wait": "true", "timeout_s": 30})
        self.act("pyautogui.hotkey('ctrl', 'alt', 't')")

    def act(self, code: str) -> httpx.Response:
        r = self.http.post(f"/v1/slots/{self.id}/actions", json={"code": code})
        if r.status_code >= 500:
            raise RuntimeError(f"host answered {r.status_code}: {r.text}")
        return r

    def type(self, line: str) -> httpx.Response:
        return self.act(f"pyautogui.write({line!r})\npyautogui.press('enter')")


class Poller:
    """Calls ``path`` (``/healthz`` by default) back to back on its own connection, as
    ``token``'s workspace; records each latency."""

    def __init__(self, url: str, path: str = "/healthz", token: str = "bystander") -> None:
        self.latencies: list[float] = []
        self.path, self.token = path, token
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, args=(url,), daemon=True)

    def _run(self, url: str) -> None:
        with httpx.Client(base_url=url, timeout=TIMEOUT,
                          headers={"Authorization": f"Bearer {self.token}"}) as http:
            while not self._stop.is_set():
                t = time.perf_counter()
                http.get(self.path).raise_for_status()
                self.latencies.append(time.perf_counter() - t)

    def __enter__(self) -> Poller:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join(TIMEOUT)

    def worst(self) -> float:
        return max(self.latencies, default=float("nan"))

    def p99(self) -> float:
        xs = sorted(self.latencies)
        return xs[min(len(xs) - 1, int(0.99 * len(xs)))] if xs else float("nan")


def _connect(url: str) -> socket.socket:
    addr, port = url.removeprefix("http://").rsplit(":", 1)
    return socket.create_connection((addr, int(port)), timeout=TIMEOUT)


def _drain(sock: socket.socket) -> None:
    try:
        while sock.recv(65536):
            pass
    except OSError:
        pass


def attack(name: str, url: str, desk: Desk) -> Callable[[], None]:
    """One repetition of attack ``name`` (its latency is what is measured)."""
    if name in LINES:
        return lambda: (desk.type(LINES[name]), None)[1]
    if name == "200-deep tree, branch":
        desk.type("mkdir -p ~/$(printf 'd/%.0s' {1..200})")

        def branch() -> None:
            r = desk.http.post(f"/v1/slots/{desk.id}/branch",
                               json={"n": 1, "delete_state_with_children": True})
            r.raise_for_status()
            for child in r.json()["children"]:
                desk.http.delete(f"/v1/slots/{child['id']}")
        return branch
    if name == "10,000 files, long action":
        desk.type("touch ~/Desktop/f{1..10000}")
        desk.type("exit")  # the Terminal closes: the clicks land on the crowded Desktop
        code = "\n".join(f"pyautogui.click({100 + i % 700}, {100 + i % 500}, clicks=3)"
                         for i in range(1000))
        return lambda: (desk.act(code), None)[1]
    if name == "100 MB body":
        def body() -> None:
            with _connect(url) as sock:
                sock.sendall(f"POST /v1/slots/{desk.id}/actions HTTP/1.1\r\nHost: x\r\n"
                             "Authorization: Bearer attacker\r\nContent-Type: application/json"
                             f"\r\nContent-Length: {100 * MB}\r\n\r\n".encode())
                try:
                    for _ in range(8):
                        sock.sendall(b"x" * MB)
                except OSError:
                    pass
                _drain(sock)
        return body
    if name == "lying Content-Length":
        def liar() -> None:
            with _connect(url) as sock:
                sock.sendall(b"POST /v1/slots HTTP/1.1\r\nHost: x\r\nContent-Length: 500\r\n\r\n{")
                _drain(sock)
        return liar
    if name == "50 half-sent requests":
        def halves() -> None:
            socks = [_connect(url) for _ in range(50)]
            for s in socks:
                s.sendall(b"GET /v1/slots HTTP/1.1\r\nHost: x\r\nX-Slow")
            for s in socks:
                with s:
                    _drain(s)
        return halves
    if name == "lone surrogate":
        return lambda: (desk.http.post(f"/v1/slots/{desk.id}/actions",
                                       content=b'{"code": "\\ud800"}',
                                       headers={"Content-Type": "application/json"}), None)[1]
    if name == "junk tokens":
        counter = iter(range(10**9))

        def junk() -> None:
            for _ in range(50):
                httpx.get(url + "/v1/slots", timeout=TIMEOUT,
                          headers={"Authorization": f"Bearer junk-{next(counter)}"})
        return junk
    if name == "printf memory growth":
        counter = iter(range(10**9))
        return lambda: (desk.type(f"printf '%3000000s' x > f{next(counter)}"), None)[1]
    if name == "1,000 hotkey terminals x20":
        code = "\n".join(["pyautogui.hotkey('ctrl', 'alt', 't')"] * 1000)

        def terminals() -> None:
            for _ in range(20):
                desk.act(code)
        return terminals
    if name == "16 busy desktops":
        def busy() -> None:
            desks = [desk] + [Desk(desk.http) for _ in range(15)]
            loops = [threading.Thread(target=d.type, args=("while true; do :; done",))
                     for d in desks]
            for t in loops:
                t.start()
            for t in loops:
                t.join(TIMEOUT)
            for d in desks[1:]:
                d.http.delete(f"/v1/slots/{d.id}")
        return busy
    raise KeyError(name)


def tree(root: int) -> list[int]:
    """``root`` and its live descendants (the host's zygote and desktop workers)."""
    children: dict[int, list[int]] = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                ppid = int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1])
            except (OSError, IndexError, ValueError):
                continue
            children.setdefault(ppid, []).append(int(entry.name))
    out, todo = [], [root]
    while todo:
        pid = todo.pop()
        out.append(pid)
        todo.extend(children.get(pid, ()))
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="one repetition per class")
    ap.add_argument("--repeats", type=int, default=3, help="repetitions per class (default 3)")
    args = ap.parse_args(argv)
    repeats = 1 if args.quick else max(1, args.repeats)
    rows: list[tuple[str, float, float, float, float]] = []
    workers_peak = 0.0
    with serve("--gate-delay", "0", "--action-seconds", "2", "--header-timeout", "1",
               "--body-timeout", "1") as (url, pid), \
            httpx.Client(base_url=url, timeout=TIMEOUT,
                         headers={"Authorization": "Bearer attacker"}) as http, \
            httpx.Client(base_url=url, timeout=TIMEOUT,
                         headers={"Authorization": "Bearer bystander"}) as other:
        bystander = Desk(other)
        shot = f"/v1/slots/{bystander.id}/screenshot"
        for name in CLASSES:
            desk = Desk(http)
            run = attack(name, url, desk)
            worst = 0.0
            with Poller(url) as poller, Poller(url, shot) as shots:
                # repeat until the poller has its samples too (bounded in count and time)
                start, done = time.perf_counter(), 0
                while done < repeats or (
                    len(poller.latencies) < MIN_POLLS and done < MAX_REPEATS
                    and time.perf_counter() - start < MAX_SECONDS
                ):
                    t = time.perf_counter()
                    run()
                    worst = max(worst, time.perf_counter() - t)
                    done += 1
                workers_peak = max(workers_peak,
                                   sum(peak_rss_mb(p) for p in tree(pid)[1:]))
            http.delete(f"/v1/slots/{desk.id}")
            rows.append((name, worst, poller.p99(), shots.worst(), poller.worst()))
        peak = peak_rss_mb(pid)
    base_action, base_health = rows[0][1], rows[0][2]
    print(f"{'attack class':<28} {'worst action s':>15} {'x':>7} {'/healthz p99 ms':>16} {'x':>6}"
          f" {'bystander shot ms':>18} {'worst /healthz ms':>18}")
    for name, worst, p99, shot_worst, health_worst in rows:
        print(f"{name:<28} {worst:>15.3f} {worst / base_action:>7.1f} {p99 * 1000:>16.1f} "
              f"{p99 / base_health:>6.1f} {shot_worst * 1000:>18.1f} {health_worst * 1000:>18.1f}")
    print(f"host peak RSS: {peak:.0f} MB; its desktop workers' peak RSS, summed: "
          f"{workers_peak:.0f} MB (action budget 2 s; {repeats} repeat(s) per class)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
