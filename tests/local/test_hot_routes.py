"""The hot path of actions and screenshots (`drums_gym.local.routes.hot`) answers as the
FastAPI routes do: one host served twice over loopback, by its app and by the same app
without the hot path, each request sent to both and the replies compared, happy or not
(a body or query FastAPI refuses falls through to it, body and all)."""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager

import httpx
import pytest
import uvicorn

from drums_gym import protocol as P
from drums_gym.local import routes
from drums_gym.local.app import create_app
from drums_gym.local.routes import hot

TOKEN = "tok-hot-routes"
JSON = {"content-type": "application/json"}


@contextmanager
def served(app) -> Iterator[str]:
    sock = socket.create_server(("127.0.0.1", 0))
    server = uvicorn.Server(uvicorn.Config(app, log_level="warning", lifespan="off"))
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    try:
        while not server.started:  # readiness, not a race: nothing is asserted on time
            time.sleep(0.01)
        yield f"http://127.0.0.1:{sock.getsockname()[1]}"
    finally:
        server.should_exit = True
        thread.join(10)


@pytest.fixture
def both(make_host, monkeypatch):
    """(hot, plain, calls): httpx clients of the host's own app and of one without the
    hot path, and how many requests the hot path answered."""
    calls = {"n": 0}
    for name in ("take_action", "screenshot_response"):
        real = getattr(hot, name)

        async def counted(*args, _real=real):
            calls["n"] += 1
            return await _real(*args)

        monkeypatch.setattr(hot, name, counted)
    server = make_host(tokens=[TOKEN])
    auth = {"authorization": f"Bearer {TOKEN}"}
    with served(create_app(server.model, [TOKEN], hot_routes=False)) as plain_url, \
            httpx.Client(base_url=server.url, headers=auth) as hot_http, \
            httpx.Client(base_url=plain_url, headers=auth) as plain_http:
        yield hot_http, plain_http, calls


def same(a: httpx.Response, b: httpx.Response) -> None:
    assert a.status_code == b.status_code, (a.text, b.text)
    skip = {"date", "server"}
    assert ({k: v for k, v in a.headers.items() if k not in skip}
            == {k: v for k, v in b.headers.items() if k not in skip})
    assert a.content == b.content


@contextmanager
def desktop(http: httpx.Client) -> Iterator[tuple[str, str]]:
    """A ready desktop's action and screenshot paths; deleted after."""
    sid = http.post(P.SLOTS, json={"task": "e0df059f"}).json()["id"]
    try:
        http.get(f"{P.SLOTS}/{sid}/episode", params={"wait": "true"})
        yield f"{P.SLOTS}/{sid}/actions", f"{P.SLOTS}/{sid}/screenshot"
    finally:
        http.delete(f"{P.SLOTS}/{sid}")


def test_errors_and_refusals_are_the_same_on_both(both):
    hot_http, plain_http, calls = both
    with desktop(hot_http) as (act, shot):
        cases = [
            ("POST", act, {"content": b'{"code": 7}', "headers": JSON}),  # not a string
            ("POST", act, {"content": b"{not json", "headers": JSON}),
            ("POST", act, {"content": b'{"code": "\xff"}', "headers": JSON}),  # not UTF-8
            ("POST", act, {"content": b'{"code": 7}'}),  # no content type
            ("POST", act, {"json": {"code": "x" * 200_000}}),  # over the code limit
            ("POST", act, {"json": {}}),
            ("POST", act, {"content": b'{"code": "DONE"}',
                           "headers": {"content-type": "text/plain"}}),
            ("POST", f"{P.SLOTS}/sl_nonesuch/actions", {"json": {"code": "WAIT"}}),
            ("POST", act, {"json": {"code": "WAIT"}, "headers": {"authorization": "Bearer no"}}),
            ("GET", shot, {"params": {"format": "jpeg"}}),
            ("GET", f"{P.SLOTS}/sl_nonesuch/screenshot", {}),
            ("GET", shot, {"headers": {"authorization": ""}}),
            ("GET", shot, {"params": {"format": "raw", "since": "not-a-token"}}),
        ]
        for method, path, kw in cases:
            same(hot_http.request(method, path, **kw), plain_http.request(method, path, **kw))
        # the raw frame, a full PNG and an action's reply: the same bytes and headers
        for params in ({"format": "raw"}, {}):
            same(hot_http.get(shot, params=params), plain_http.get(shot, params=params))
        a = hot_http.post(act, json={"code": "pyautogui.moveTo(300, 300)"})
        b = plain_http.post(act, json={"code": "pyautogui.moveTo(300, 300)"})
        assert a.status_code == b.status_code == 200
        a_body, b_body = a.json(), b.json()
        assert a_body["episode"].pop("actions") + 1 == b_body["episode"].pop("actions")
        assert a_body == b_body
        assert a.headers["content-type"] == b.headers["content-type"]
    # the hot path took what is on its path to the host (the unknown slots, the bad
    # `since`, the two frames and the action: 6), none of what it handed to FastAPI, and
    # not the two wrong tokens (refused before any host call)
    assert calls["n"] == 6


def test_a_delta_on_either_path_is_the_change_since_its_base(both):
    hot_http, plain_http, _ = both
    with desktop(hot_http) as (act, shot):
        deltas = []
        for http, x in ((hot_http, 640), (plain_http, 900)):  # a base, a move, its delta
            base = http.get(shot, params={"format": "raw"}).headers[P.H_FRAME_TOKEN]
            http.post(act, json={"code": f"pyautogui.moveTo({x}, 400)"})
            deltas.append(http.get(shot, params={"format": "raw", "since": base}))
        a, b = deltas
        assert a.status_code == b.status_code == 200
        assert set(a.headers) == set(b.headers) and P.H_DELTA_BOXES in a.headers
        for reply, x in ((a, 640), (b, 900)):  # a box holds the pointer's new place
            boxes = [tuple(map(int, box.split(","))) for box in
                     reply.headers[P.H_DELTA_BOXES].split(";")]
            assert any(bx <= x < bx + w and by <= 400 < by + h for bx, by, w, h in boxes)
        assert len(a.content) < 100_000 and len(b.content) < 100_000


def test_every_other_route_is_fastapis():
    assert routes  # the routers are FastAPI's; the hot path knows exactly two paths
    assert hot._ACTION.fullmatch(f"{P.SLOTS}/sl_1/actions")
    assert not hot._ACTION.fullmatch(f"{P.SLOTS}/sl_1/actions/extra")
    assert hot._SCREENSHOT.fullmatch(f"{P.SLOTS}/sl_1/screenshot")
    assert not hot._SCREENSHOT.fullmatch(f"{P.SLOTS}/sl_1/accessibility")


def test_fastapis_telemetry_is_off_unless_asked_for(make_host, monkeypatch):
    """With nothing configured, FastAPI's native OpenTelemetry asked for its providers on
    every request; the host turns it off, and ``FASTAPI_OTEL_AUTO_CONFIGURE=true`` (the
    one way a user configures it for a host in its own process) leaves it on."""
    server = make_host()
    if not hasattr(server.app, "_native_telemetry"):
        pytest.skip("this FastAPI has no native telemetry")
    assert not server.app._native_telemetry.config["tracing"]
    monkeypatch.setenv("FASTAPI_OTEL_AUTO_CONFIGURE", "true")
    assert create_app(server.model)._native_telemetry.config["tracing"]
