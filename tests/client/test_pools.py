"""The sync transport's connection pools (`drums_gym.client._http.Pools`), over loopback:
one thread (an env) keeps one connection; many threads (a vector env's children) are
dealt the pools in turn, so they do not queue on one pool's lock, and open no more
connections than there are requests in flight. The pools are httpx's default transport's
(https, a remote host): to a plain-HTTP host the client uses `drums_gym.client._h1`, with
no pool lock, unless ``DRUMS_CLIENT_HTTP=httpx``."""

from __future__ import annotations

import threading
from collections import Counter

import pytest

from drums_gym.client._h1 import ENV_CHOICE
from drums_gym.client._http import POOLS, Transport


@pytest.fixture(autouse=True)
def httpx_default_transport(monkeypatch):
    monkeypatch.setenv(ENV_CHOICE, "httpx")


def local_port(response) -> int:
    stream = response.extensions["network_stream"]
    return stream.get_extra_info("client_addr")[1]


def test_one_thread_keeps_one_connection(local_host):
    transport = Transport(local_host.url, None)
    try:
        ports = {local_port(transport.request("GET", "/v1/host")) for _ in range(12)}
    finally:
        transport.close()
    assert len(ports) == 1
    assert transport.closed


def test_threads_are_dealt_the_pools_in_turn(local_host):
    transport = Transport(local_host.url, None)
    threads_n, rounds = 2 * POOLS, 4
    barrier = threading.Barrier(threads_n)
    dealt: dict[int, list[int]] = {}
    ports: list[int] = []
    lock = threading.Lock()

    def work(k: int) -> None:
        mine = []
        for _ in range(rounds):
            barrier.wait()  # every thread has a request in flight at once
            r = transport.request("GET", "/v1/host")
            assert r.status_code == 200
            mine.append(id(transport._client._client()))
            with lock:
                ports.append(local_port(r))
        dealt[k] = mine

    try:
        threads = [threading.Thread(target=work, args=(k,)) for k in range(threads_n)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
    finally:
        transport.close()
    assert len(dealt) == threads_n and len(ports) == threads_n * rounds
    assert all(len(set(mine)) == 1 for mine in dealt.values())  # a thread keeps its pool
    per_pool = Counter(mine[0] for mine in dealt.values())
    assert sorted(per_pool.values()) == [2] * POOLS  # dealt in turn: 2 threads per pool
    assert len(set(ports)) <= threads_n  # no more connections than requests in flight
