"""The sync client's plain-HTTP transport (`drums_gym.client._h1`): against the real local
host, and against a stand-in server on loopback that replies byte by byte as a test says
(chunks, ``Connection: close``, a connection dropped mid-reply, a reply that never comes)."""

from __future__ import annotations

import socket
import threading
from collections.abc import Callable

import httptools
import httpx
import pytest

from drums_gym.client._h1 import ENV_CHOICE, H1Client, H1Transport, use_for
from drums_gym.client._http import Transport

#: what the stand-in sends for a request: bytes, then ``close`` says whether to hang up
Reply = Callable[[int, bytes, bytes], tuple[bytes, bool]]


class _Request:
    """httptools' callbacks for one request."""

    def __init__(self) -> None:
        self.path, self.body, self.done = b"", b"", False
        self.headers: list[tuple[bytes, bytes]] = []

    def on_header(self, name: bytes, value: bytes) -> None:
        self.headers.append((name.lower(), value))

    def on_url(self, url: bytes) -> None:
        self.path += url

    def on_body(self, body: bytes) -> None:
        self.body += body

    def on_message_complete(self) -> None:
        self.done = True


class StandIn:
    """A loopback server: each request (method, path, body) is answered by ``reply``."""

    def __init__(self, reply: Reply) -> None:
        self.reply = reply
        self.requests: list[tuple[bytes, bytes, bytes]] = []
        self.heads: list[list[tuple[bytes, bytes]]] = []  # each request's headers, in order
        self.accepted = 0
        self.closed_by_client = threading.Event()
        self.hangups = threading.Semaphore(0)  # released once per connection it hung up
        self._sock = socket.create_server(("127.0.0.1", 0))
        self.url = f"http://127.0.0.1:{self._sock.getsockname()[1]}"
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        while True:
            try:
                conn, _ = self._sock.accept()
            except OSError:
                return
            self.accepted += 1
            threading.Thread(target=self._serve, args=(conn,), daemon=True).start()

    def _serve(self, conn: socket.socket) -> None:
        with conn:
            while True:
                got = _Request()
                parser = httptools.HttpRequestParser(got)
                while not got.done:
                    data = conn.recv(65536)
                    if not data:
                        self.closed_by_client.set()
                        return
                    parser.feed_data(data)
                request = (parser.get_method(), got.path, got.body)
                self.heads.append(got.headers)
                self.requests.append(request)
                data, close = self.reply(len(self.requests) - 1, *request)
                conn.sendall(data)
                if close:
                    conn.shutdown(socket.SHUT_RDWR)
                    self.hangups.release()
                    return

    def close(self) -> None:
        self._sock.close()


@pytest.fixture
def stand_in():
    servers: list[StandIn] = []

    def make(reply: Reply) -> StandIn:
        servers.append(StandIn(reply))
        return servers[-1]

    yield make
    for server in servers:
        server.close()


def ok(body: bytes = b"{}", *extra: bytes) -> bytes:
    head = b"HTTP/1.1 200 OK\r\ncontent-type: application/json\r\n" + b"".join(
        e + b"\r\n" for e in extra)
    return head + b"content-length: %d\r\n\r\n" % len(body) + body


def client(url: str, **kw) -> httpx.Client:
    return httpx.Client(base_url=url, transport=H1Transport(), **kw)


def test_the_client_takes_it_for_a_local_host_and_keeps_one_connection(local_host):
    transport = Transport(local_host.url, None)
    try:
        replies = [transport.request("GET", "/v1/host") for _ in range(5)]
        assert isinstance(transport._client._clients[0]._transport, H1Transport)
        ports = {r.extensions["network_stream"].get_extra_info("client_addr")[1]
                 for r in replies}
        with httpx.Client(base_url=local_host.url) as reference:  # httpx's own transport
            expected = reference.get("/v1/host")
    finally:
        transport.close()
    assert len(ports) == 1
    assert replies[0].status_code == expected.status_code == 200
    assert replies[0].json() == expected.json()
    drop = {"date"}
    assert ({k: v for k, v in replies[0].headers.items() if k not in drop}
            == {k: v for k, v in expected.headers.items() if k not in drop})


def test_the_clients_own_requests_are_the_ones_httpx_would_send(stand_in):
    """`H1Client` writes a plain request itself (httpx's Request, its URL parsed and
    checked, costs more than the rest of the exchange); on the wire it is what httpx sends,
    and anything unusual (a space in a path, a header said twice) is httpx's to build."""
    server = stand_in(lambda i, m, p, b: (ok(), False))
    defaults = {"User-Agent": "drums-gym/test", "Authorization": "Bearer s3cret"}
    cases = [
        ("POST", "/v1/slots/slot_1/actions", {"json": {"code": "pyautogui.moveTo(1, 2)",
                                                       "note": "é ü"}}),
        ("GET", "/v1/slots/slot_1/screenshot", {"params": {"format": "raw", "since": "3.14"}}),
        ("POST", "/v1/slots/slot_1/verify", {}),
        ("DELETE", "/v1/slots/slot_1", {"headers": {"Idempotency-Key": "k1", "X-None": None}}),
        ("GET", "/v1/slots/a b%/episode", {}),
        ("GET", "/v1/host", {"headers": {"user-agent": "another"}}),
    ]
    ours = H1Client(server.url, defaults, httpx.Timeout(5.0))
    with httpx.Client(base_url=server.url, headers=defaults, transport=H1Transport()) as ref:
        for method, path, kw in cases:
            reply = ours.request(method, path, **kw)
            assert reply.status_code == 200 and reply.raise_for_status() is reply
            ref_kw = {**kw, "headers": {k: v for k, v in kw.get("headers", {}).items()
                                        if v is not None}}
            expected = ref.request(method, path, **ref_kw)
            assert reply.request.url == expected.request.url, path  # made when asked for
            assert server.requests[-2] == server.requests[-1], path
            sent, wanted = server.heads[-2], server.heads[-1]
            # httpx.Client adds its own defaults (accept, accept-encoding, connection)
            assert {k: v for k, v in wanted if k not in {b"accept", b"accept-encoding",
                                                         b"connection"}} == dict(sent), path
    ours.close()


def test_a_timeout_a_hair_under_a_whole_second_is_set(stand_in):
    # 39.9999996 s rounds to 1,000,000 microseconds: the kernel refuses that (EDOM)
    server = stand_in(lambda i, m, p, b: (ok(), False))
    http = H1Client(server.url, {}, httpx.Timeout(39.9999996))
    assert http.request("GET", "/").status_code == 200
    http.close()


def test_a_request_body_and_a_large_reply_arrive_whole(stand_in):
    big = bytes(range(256)) * 12_000  # 3 MB: many receives
    server = stand_in(lambda i, m, p, body: (ok(big if p == b"/big" else body), False))
    with client(server.url) as http:
        assert http.post("/echo", json={"code": "x" * 100_000}).json() == {"code": "x" * 100_000}
        assert http.get("/big").content == big
    assert server.accepted == 1


def test_a_chunked_reply_and_one_that_ends_with_the_connection(stand_in):
    chunked = (b"HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\n"
               b"5\r\nhello\r\n6\r\n world\r\n0\r\n\r\n")
    unframed = b"HTTP/1.1 200 OK\r\n\r\nto the end"
    server = stand_in(lambda i, m, p, b: (chunked, False) if i == 0 else (unframed, True))
    with client(server.url) as http:
        assert http.get("/a").text == "hello world"
        assert http.get("/b").text == "to the end"
        assert http.get("/c").status_code == 200  # a new connection after the unframed one
    assert server.accepted == 2


def test_connection_close_and_a_server_that_hung_up_while_idle(stand_in):
    # the first reply says close; the second hangs up after replying, unannounced
    server = stand_in(lambda i, m, p, b: (ok(b"{}", b"connection: close"), True) if i == 0
                      else (ok(), i == 1))
    with client(server.url) as http:
        assert http.get("/1").status_code == 200
        assert http.get("/2").status_code == 200
        assert server.hangups.acquire(timeout=5) and server.hangups.acquire(timeout=5)
        assert http.get("/3").status_code == 200  # not an error: a fresh connection
    assert server.accepted == 3


def test_a_reply_cut_short_or_malformed_is_a_protocol_error(stand_in):
    cut = b"HTTP/1.1 200 OK\r\ncontent-length: 100\r\n\r\nonly this"
    server = stand_in(lambda i, m, p, b: (cut, True) if i == 0 else (b"NOT HTTP\r\n\r\n", True))
    with client(server.url) as http:
        with pytest.raises(httpx.RemoteProtocolError, match="before the end of the reply"):
            http.get("/cut")
        with pytest.raises(httpx.RemoteProtocolError, match="malformed"):
            http.get("/junk")


def test_no_reply_is_a_read_timeout_and_a_refused_connect_a_connect_error(stand_in):
    never = threading.Event()

    def hang(i: int, m: bytes, p: bytes, b: bytes) -> tuple[bytes, bool]:
        never.wait(10)
        return b"", True

    server = stand_in(hang)
    with client(server.url, timeout=httpx.Timeout(0.2)) as http, \
            pytest.raises(httpx.ReadTimeout):
        http.get("/slow")
    never.set()
    free = socket.create_server(("127.0.0.1", 0))
    port = free.getsockname()[1]
    free.close()
    with client(f"http://127.0.0.1:{port}") as http, pytest.raises(httpx.ConnectError):
        http.get("/")


def test_a_failed_get_is_retried_by_the_client_as_before(stand_in):
    server = stand_in(lambda i, m, p, b: (b"HTTP/1.1 200 OK\r\ncontent-le", True) if i == 0
                      else (ok(b'{"ok": true}'), False))
    transport = Transport(server.url, None, sleep=lambda s: None)
    try:
        assert transport.json("GET", "/v1/host") == {"ok": True}
    finally:
        transport.close()
    assert len(server.requests) == 2


def test_close_hangs_up_the_idle_connections(stand_in):
    server = stand_in(lambda i, m, p, b: (ok(), False))
    http = client(server.url)
    http.get("/")
    http.close()
    assert server.closed_by_client.wait(5)


def test_when_it_applies(monkeypatch):
    monkeypatch.delenv(ENV_CHOICE, raising=False)
    for name in ("HTTP_PROXY", "http_proxy", "ALL_PROXY", "all_proxy"):
        monkeypatch.delenv(name, raising=False)
    assert use_for("http://127.0.0.1:8000") and use_for("http://[::1]:80/")
    assert use_for("http://localhost:1") and use_for("http://10.0.0.5:8000")
    assert not use_for("https://api.drums.example")
    monkeypatch.setenv("HTTP_PROXY", "http://proxy.example:3128")
    assert not use_for("http://10.0.0.5:8000")  # through the proxy: httpx's transport
    assert use_for("http://127.0.0.1:8000")  # loopback never goes through a proxy
    monkeypatch.setenv(ENV_CHOICE, "httpx")
    assert not use_for("http://127.0.0.1:8000")
    monkeypatch.setenv(ENV_CHOICE, "fast")
    with pytest.raises(ValueError, match="DRUMS_CLIENT_HTTP must be one of auto, httpx"):
        use_for("http://127.0.0.1:8000")
