"""Behaviour bugs that the type check of the client found (mypy, strict on drums_gym.client).

- Exponential backoff computed ``0.25 * 2**attempt`` with an int power: from retry 1024 on
  that int is too large for a float, and the retry loop died with ``OverflowError``
  instead of waiting the 8 s cap (a client told to retry a long outage, ``max_retries``
  in the thousands, crashed mid-outage).
"""

from __future__ import annotations

import httpx

from drums_gym.client import connect

OUTAGE = 1100  # past retry 1024, where 2**attempt no longer fits a float


def test_backoff_stays_capped_after_a_thousand_retries():
    calls = 0

    def handler(request: httpx.Request) -> httpx.Response:
        nonlocal calls
        calls += 1
        if calls <= OUTAGE:  # unavailable, with no hint how long: the client backs off
            body = {"error": {"code": "unavailable", "message": "restarting"}}
            return httpx.Response(503, json=body)
        return httpx.Response(200, json={"tasks": []})

    slept: list[float] = []
    with connect("http://drums.test", transport=httpx.MockTransport(handler),
                 max_retries=OUTAGE + 10, retry_budget=1e9) as client:
        client._session.http._sleep = slept.append  # the waits, recorded, not slept
        assert client.tasks() == [], "the outage was waited out"
    assert calls == OUTAGE + 1 and len(slept) == OUTAGE
    assert all(0.0 <= s <= 8.0 for s in slept), "every wait within the 8 s backoff cap"
