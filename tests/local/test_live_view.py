"""The live view page (``GET /v1/slots/{id}/view``) over real loopback HTTP, without a browser.

What the page does in a browser (the frame changing, the token in the header) is in
tests/report/test_browser.py; here: it is served without a token and holds no data, the API it
reads still needs the token, and ``drums-gym serve`` says where to open it.
"""

from __future__ import annotations

import subprocess
import sys

import httpx

from drums_gym import protocol as P
from drums_gym.local.view import PAGE

TOKEN = "v1ew-t0ken"
AUTH = {"Authorization": f"Bearer {TOKEN}"}


def test_the_page_is_served_without_a_token_and_holds_no_data(make_host):
    host = make_host(tokens=[TOKEN])
    slot = httpx.post(host.url + P.SLOTS, json={"task": "e0df059f"}, headers=AUTH).json()
    try:
        pages = []
        for slot_id in (slot["id"], "slot_does_not_exist", '"><img src=x onerror=alert(1)>'):
            reply = httpx.get(host.url + P.slot_view_path(slot_id))
            assert reply.status_code == 200, reply.text
            assert reply.headers["content-type"].startswith("text/html")
            assert reply.headers["cache-control"] == "no-store"
            assert "connect-src 'self'" in reply.headers["content-security-policy"]
            assert reply.headers["referrer-policy"] == "no-referrer"
            pages.append(reply.text)
        # one page for every slot: nothing of the slot (nor the path) is in it
        assert pages[0] == pages[1] == pages[2] == PAGE
        assert slot["id"] not in PAGE and TOKEN not in PAGE and "alert(1)" not in PAGE
        # what the page reads still needs the token
        for suffix in (P.SCREENSHOT_SUFFIX, P.EPISODE_SUFFIX, P.ACTIONS_SUFFIX):
            assert httpx.get(host.url + P.slot_path(slot["id"]) + suffix).status_code == 401
            assert httpx.get(host.url + P.slot_path(slot["id"]) + suffix, headers=AUTH).is_success
    finally:
        httpx.delete(host.url + P.slot_path(slot["id"]), headers=AUTH)


def test_the_page_is_not_part_of_the_api(local_host):
    spec = httpx.get(local_host.url + "/openapi.json").json()
    assert P.slot_route(P.VIEW_SUFFIX) not in spec["paths"]
    reply = httpx.post(local_host.url + P.slot_view_path("slot_x"))
    assert reply.status_code == 405
    assert reply.json()["error"]["code"] == P.CODE_METHOD_NOT_ALLOWED


def test_the_page_sends_the_token_in_a_header_never_in_a_url():
    """(A reading of the script; the browser test watches the requests themselves.)"""
    assert "headers[N.authorization]=N.bearer+' '+token" in PAGE
    assert "?token" not in PAGE and "&token" not in PAGE
    assert "history.replaceState" in PAGE  # the #token= fragment leaves the address bar


def test_serve_prints_where_to_watch_a_desktop():
    proc = subprocess.Popen(
        [sys.executable, "-m", "drums_gym.cli", "serve", "--port", "0", "--token", TOKEN],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        line = proc.stdout.readline()
        assert "live view: http://127.0.0.1:" in line, line + proc.stderr.read()
        assert TOKEN not in line
        pattern = line.split("live view: ")[1].split()[0]
        url = line.split("serving at ")[1].split()[0]
        assert pattern == url + P.slot_route(P.VIEW_SUFFIX).replace("{slot_id}", "<slot-id>")
        slot = httpx.post(url + P.SLOTS, json={"task": "e0df059f"}, headers=AUTH).json()
        page = httpx.get(pattern.replace("<slot-id>", slot["id"]))
        assert page.status_code == 200 and page.text == PAGE
        httpx.delete(url + P.slot_path(slot["id"]), headers=AUTH)
    finally:
        proc.terminate()
        proc.wait(timeout=30)
