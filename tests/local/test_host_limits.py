"""HTTP limits and bounded records of the local host (issue 11, items 9 and 10; issue 13, 1).

Raw sockets play the slow, lying and oversized clients; every assertion is about what the
host answers (or that it closed the connection), never about how fast.
"""

from __future__ import annotations

import json
import socket
import threading
from collections.abc import Iterator

import httpx
import pytest

from drums_gym.local.config import KNOBS, HostConfig

TIMEOUT = 30.0


def _connect(url: str) -> socket.socket:
    host, port = url.removeprefix("http://").rsplit(":", 1)
    sock = socket.create_connection((host, int(port)), timeout=TIMEOUT)
    return sock


def _read_reply(sock: socket.socket) -> bytes:
    """Everything the host sends until it closes the connection."""
    data = b""
    while chunk := sock.recv(65536):
        data += chunk
    return data


def _status_and_json(raw: bytes) -> tuple[int, dict]:
    head, _, body = raw.partition(b"\r\n\r\n")
    return int(head.split(b" ", 2)[1]), json.loads(body)


@pytest.fixture
def tight(make_host) -> Iterator:
    server = make_host(
        HostConfig(
            gate_delay_s=0.0,
            max_body_bytes=10_000,
            body_timeout_s=0.5,
            header_timeout_s=0.5,
            max_connections=8,
        )
    )
    yield server


def test_a_body_over_the_limit_is_413_before_it_is_read(tight):
    sock = _connect(tight.url)
    with sock:  # a 100 MB Content-Length, and no body sent at all: answered at once
        sock.sendall(
            b"POST /v1/slots HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
            b"Content-Length: 100000000\r\n\r\n"
        )
        status, body = _status_and_json(_read_reply(sock))
    assert status == 413 and body["error"]["code"] == "too_large"
    assert body["error"]["details"]["max_bytes"] == 10_000
    # a chunked body (no Content-Length) is counted as it arrives
    big = json.dumps({"task": "e0df059f", "pad": "x" * 20_000}).encode()
    r = httpx.post(tight.url + "/v1/slots", content=iter([big[:5000], big[5000:]]))
    assert r.status_code == 413 and r.json()["error"]["code"] == "too_large"
    # and under the limit, an ignored field is still fine
    ok = httpx.post(tight.url + "/v1/slots", json={"task": "e0df059f", "pad": "x" * 100})
    assert ok.status_code == 201
    httpx.delete(tight.url + f"/v1/slots/{ok.json()['id']}")


def test_a_lying_content_length_is_not_held_open(tight):
    sock = _connect(tight.url)
    with sock:
        sock.sendall(
            b"POST /v1/slots HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
            b'Content-Length: 500\r\n\r\n{"task": '
        )
        healthy = httpx.get(tight.url + "/healthz").json()
        assert (healthy["ok"], healthy["shell"]) == (True, "simulated"), "others go on"
        status, body = _status_and_json(_read_reply(sock))  # the host answers and closes
    assert status == 408 and body["error"]["code"] == "timeout"


def test_half_sent_request_heads_are_closed_and_block_no_one(tight):
    socks = [_connect(tight.url) for _ in range(4)]
    try:
        for sock in socks:
            sock.sendall(b"GET /healthz HTTP/1.1\r\nHost: x\r\n")  # never finished
        healthy = httpx.get(tight.url + "/healthz").json()
        assert (healthy["ok"], healthy["shell"]) == (True, "simulated")
        for sock in socks:
            assert _read_reply(sock) == b"", "closed without a reply"
    finally:
        for sock in socks:
            sock.close()


def test_a_request_head_over_the_limit_is_a_400_and_closed(local_host):
    """The head (request line and headers) is capped at MAX_HEAD_BYTES, whether it comes
    as many headers, one long one, or one header value that never ends; the connection
    closes, and a head just under the cap is served."""
    from drums_gym.local.server import MAX_HEAD_BYTES

    def ask(head: bytes, finish: bool = True) -> bytes:
        sock = _connect(local_host.url)
        with sock:
            sock.sendall(b"GET /healthz HTTP/1.1\r\nHost: x\r\n" + head
                         + (b"\r\n\r\n" if finish else b""))
            try:
                return _read_reply(sock)
            except ConnectionResetError:  # closed with our bytes still unread
                return b"closed"

    many = b"\r\n".join(b"X-Pad-%d: %s" % (i, b"y" * 100) for i in range(MAX_HEAD_BYTES // 100))
    for head, finish in ((many, True), (b"X-Long: " + b"y" * MAX_HEAD_BYTES, True),
                         (b"X-Endless: " + b"y" * (4 * MAX_HEAD_BYTES), False)):
        reply = ask(head, finish)
        assert reply == b"closed" or reply.startswith(b"HTTP/1.1 400 "), reply[:80]
        assert b'"ok":true' not in reply
    under = b"X-Pad: " + b"y" * (MAX_HEAD_BYTES - 200) + b"\r\nConnection: close"
    assert b'"ok":true' in ask(under), "a head under the cap is served"


def test_connections_beyond_the_cap_are_refused(make_host):
    tight = make_host(HostConfig(gate_delay_s=0.0, max_connections=8, header_timeout_s=60))
    idle = [_connect(tight.url) for _ in range(8)]
    try:
        extra = _connect(tight.url)
        with extra:
            extra.sendall(b"GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
            try:
                reply = _read_reply(extra)
            except ConnectionResetError:
                reply = b""
            assert b'"ok":true' not in reply, "the ninth connection is not served"
    finally:
        for sock in idle:
            sock.close()
    # once the idle ones are closed, the host serves again
    for _ in range(100):  # the host may not have seen the closes yet: try again
        try:
            healthy = httpx.get(tight.url + "/healthz", timeout=TIMEOUT).json()
            assert (healthy["ok"], healthy["shell"]) == (True, "simulated")
            break
        except httpx.TransportError:
            threading.Event().wait(0.05)
    else:
        raise AssertionError("the host never served again")


def test_a_lone_surrogate_is_a_422_that_does_not_echo_it(local_host):
    for path, body in (
        ("/v1/slots", b'{"task": "\\ud800"}'),
        ("/v1/slots", b'{"task": "e0df059f\\udfff"}'),
    ):
        r = httpx.post(
            local_host.url + path, content=body, headers={"content-type": "application/json"}
        )
        assert r.status_code == 422, r.text
        r.content.decode("utf-8")  # the reply is valid UTF-8
        error = r.json()["error"]
        assert error["code"] == "invalid_request" and error["details"]["field"] == "task"
        assert "\ud800" not in error["message"] and "\udfff" not in error["message"]
    sid = httpx.post(local_host.url + "/v1/slots", json={"task": "e0df059f"}).json()["id"]
    r = httpx.post(
        local_host.url + f"/v1/slots/{sid}/actions",
        content=b'{"code": "pyautogui.write(\'\\ud800\')"}',
        headers={"content-type": "application/json"},
    )
    assert r.status_code == 422 and r.json()["error"]["details"]["field"] == "code"
    httpx.delete(local_host.url + f"/v1/slots/{sid}")


def test_tokenless_workspaces_are_capped_oldest_empty_first(make_host):
    server = make_host(HostConfig(gate_delay_s=0.0, max_workspaces=3))
    keep = {"Authorization": "Bearer keep"}
    kept = httpx.post(server.url + "/v1/slots", json={"task": "e0df059f"}, headers=keep).json()
    for i in range(10):
        auth = {"Authorization": f"Bearer junk-{i}"}
        assert httpx.get(server.url + "/v1/slots", headers=auth).json() == {"slots": []}
        sid = httpx.post(server.url + "/v1/slots", json={"task": "e0df059f"}, headers=auth)
        assert sid.status_code == 201
        httpx.delete(server.url + f"/v1/slots/{sid.json()['id']}", headers=auth)
    assert len(server.model._workspaces) <= 3
    r = httpx.get(server.url + f"/v1/slots/{kept['id']}", headers=keep)
    assert r.status_code == 200 and r.json()["state"] == "running", "a busy workspace is kept"
    httpx.delete(server.url + f"/v1/slots/{kept['id']}", headers=keep)


def test_idempotency_records_are_capped_oldest_first(make_host):
    server = make_host(HostConfig(gate_delay_s=0.0, idempotency_keys=3))
    with httpx.Client(base_url=server.url, timeout=TIMEOUT) as http:
        made = {}
        for i in range(5):
            r = http.post(
                "/v1/slots", json={"task": "e0df059f"}, headers={"Idempotency-Key": f"k{i}"}
            )
            made[i] = r.json()["id"]
            http.delete(f"/v1/slots/{made[i]}")
        ws = server.model._workspaces["default"]
        assert len(ws.idempotency) == 3
        again = http.post("/v1/slots", json={"task": "e0df059f"}, headers={"Idempotency-Key": "k4"})
        assert again.json()["id"] == made[4], "a recent key still answers its first reply"
        fresh = http.post("/v1/slots", json={"task": "e0df059f"}, headers={"Idempotency-Key": "k0"})
        assert fresh.status_code == 201 and fresh.json()["id"] != made[0], "the oldest went"
        http.delete(f"/v1/slots/{fresh.json()['id']}")


def test_deleted_slot_records_are_capped_oldest_first(make_host):
    server = make_host(HostConfig(gate_delay_s=0.0, deleted_records=2))
    with httpx.Client(base_url=server.url, timeout=TIMEOUT) as http:
        ids = []
        for _ in range(4):
            sid = http.post("/v1/slots", json={"task": "e0df059f"}).json()["id"]
            http.delete(f"/v1/slots/{sid}")
            ids.append(sid)
        assert http.get(f"/v1/slots/{ids[0]}").status_code == 404
        last = http.get(f"/v1/slots/{ids[-1]}")
        assert last.status_code == 200 and last.json()["state"] == "deleted"


def test_every_limit_has_a_flag_and_an_env_var():
    fields = {f for f in HostConfig.__dataclass_fields__ if f != "capacity_retry_after_s"}
    assert {k.field for k in KNOBS} == fields
    assert all(k.env.startswith("DRUMS_LOCAL_") and k.flag.startswith("--") for k in KNOBS)
    env = {
        "DRUMS_LOCAL_LIVE_DESKTOPS": "40",
        "DRUMS_LOCAL_HOST_DESKTOPS": "64",
        "DRUMS_LOCAL_FORK_LIMIT": "32",
        "DRUMS_LOCAL_SAVED_STATES": "12",
        "DRUMS_LOCAL_DEFAULT_TTL": "60",
        "DRUMS_LOCAL_MAX_TTL": "120",
        "DRUMS_LOCAL_STATE_IDLE_TTL": "30",
        "DRUMS_LOCAL_ACTION_SECONDS": "2.5",
    }
    config = HostConfig.from_env(env)
    assert (config.live_desktops, config.host_desktops, config.fork_limit) == (40, 64, 32)
    assert (config.saved_states, config.default_ttl_s, config.max_ttl_s) == (12, 60.0, 120.0)
    assert config.state_idle_ttl_s == 30.0 and config.limits().seconds == 2.5
    assert HostConfig.from_env(env, fork_limit=4).fork_limit == 4, "a flag beats the env"
    with pytest.raises(ValueError, match="DRUMS_LOCAL_FORK_LIMIT must be an int"):
        HostConfig.from_env({"DRUMS_LOCAL_FORK_LIMIT": "many"})


def test_the_embedded_host_reads_its_limits_from_the_env(monkeypatch):
    from drums_gym.local.embedded import EmbeddedHost

    monkeypatch.setenv("DRUMS_LOCAL_FORK_LIMIT", "16")
    with EmbeddedHost().start() as host:  # the child inherits this process's environment
        assert httpx.get(host.url + "/v1/host").json()["limits"]["fork_limit"] == 16


def test_a_request_sweeps_only_its_own_workspace(make_host, monkeypatch):
    """Per-request expiry does not scale with the number of workspaces (the reaper thread
    sweeps them all, off the request path)."""
    from drums_gym.local import host as host_module
    from drums_gym.local import leases

    server = make_host(HostConfig(gate_delay_s=0.0))
    for i in range(50):
        auth = {"Authorization": f"Bearer other-{i}"}
        sid = httpx.post(server.url + "/v1/slots", json={"task": "e0df059f"}, headers=auth)
        httpx.delete(server.url + f"/v1/slots/{sid.json()['id']}", headers=auth)
    assert len(server.model._workspaces) >= 50
    swept: list[object] = []
    real = leases.sweep

    def counting(workspaces, ws, now=None):
        swept.append(ws)
        return real(workspaces, ws, now)

    monkeypatch.setattr(host_module, "sweep", counting)
    monkeypatch.setattr(host_module, "reap_all", lambda *a, **k: None)  # hold the reaper still
    mine = {"Authorization": "Bearer mine"}
    with httpx.Client(base_url=server.url, timeout=TIMEOUT, headers=mine) as http:
        sid = http.post("/v1/slots", json={"task": "e0df059f"}).json()["id"]
        swept.clear()
        for _ in range(3):
            http.get("/v1/slots")
            http.get("/v1/host")
            http.post(f"/v1/slots/{sid}/actions", json={"code": "pyautogui.moveTo(3, 3)"})
        assert swept and len({id(ws) for ws in swept}) == 1, "one workspace swept: the caller's"
        assert len(swept) <= 9, "at most one sweep per request"
        http.delete(f"/v1/slots/{sid}")
