"""Connections are capped per client address as well as globally (issue 19, item 6): one
client holding a thousand keep-alive sockets leaves room for a bystander at another
address. Real sockets against a real local host; the bystander binds 127.0.0.2."""

from __future__ import annotations

import socket
from urllib.parse import urlsplit

import httpx
import pytest

from drums_gym.local.config import KNOBS, HostConfig

HOG_SOCKETS = 1000
BYSTANDER_REQUESTS = 50
TIMEOUT = 10.0


def hog(url: str, n: int) -> list[socket.socket]:
    """``n`` sockets from 127.0.0.1, held open and idle (within the header timeout)."""
    parts = urlsplit(url)
    socks = []
    for _ in range(n):
        socks.append(socket.create_connection((parts.hostname, parts.port), timeout=TIMEOUT))
    return socks


def bystander_served(url: str) -> int:
    """How many of a bystander's fresh requests (a new connection each) from 127.0.0.2
    were answered."""
    served = 0
    for _ in range(BYSTANDER_REQUESTS):
        transport = httpx.HTTPTransport(local_address="127.0.0.2")
        with httpx.Client(transport=transport, timeout=TIMEOUT) as http:
            try:
                if http.get(url + "/healthz").json()["ok"] is True:
                    served += 1
            except httpx.TransportError:
                pass
    return served


def can_bind_127_0_0_2() -> bool:
    with socket.socket() as probe:
        try:
            probe.bind(("127.0.0.2", 0))
        except OSError:
            return False
    return True


pytestmark = pytest.mark.skipif(not can_bind_127_0_0_2(), reason="no 127.0.0.2 here")


def test_one_address_cannot_hold_every_connection(make_host):
    server = make_host(HostConfig(gate_delay_s=0.0, max_connections=128,
                                  max_client_connections=32, header_timeout_s=60))
    socks = hog(server.url, HOG_SOCKETS)
    try:
        assert bystander_served(server.url) == BYSTANDER_REQUESTS
    finally:
        for sock in socks:
            sock.close()


def test_without_a_per_client_cap_the_hog_starves_the_bystander(make_host):
    """The same attack with the per-client cap at the global one: the check above can fail."""
    server = make_host(HostConfig(gate_delay_s=0.0, max_connections=128,
                                  max_client_connections=128, header_timeout_s=60))
    socks = hog(server.url, HOG_SOCKETS)
    try:
        assert bystander_served(server.url) < BYSTANDER_REQUESTS
    finally:
        for sock in socks:
            sock.close()


def test_the_per_client_cap_is_a_knob():
    knob = {k.field: k for k in KNOBS}["max_client_connections"]
    assert (knob.flag, knob.env) == ("--max-client-connections",
                                     "DRUMS_LOCAL_MAX_CLIENT_CONNECTIONS")
    assert HostConfig.from_env({knob.env: "7"}).max_client_connections == 7
