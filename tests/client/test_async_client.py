"""The async client (`drums_gym.client.AsyncClient`) against the real local host over
loopback: its object model, `gather`, the error tree, retries, idempotent creates and
forks under lost replies, cleanup, and the token kept out of reprs, logs and errors.

Plain tests that run their coroutine with `asyncio.run` (no async test plugin needed).
Every host made by `make_host` is checked for leaked desktops and states at teardown.
"""

from __future__ import annotations

import asyncio
import logging
import os
import socket
import subprocess
import sys
import textwrap
from collections.abc import Callable

import httpx
import numpy as np
import pytest
from a11y import center, find

from drums_gym import client as drums
from drums_gym.local.host import HostConfig

TASK = "e0df059f"  # OSWorld: rename a folder on the Desktop
SCREEN = (640, 480)
NOTHING = {"live_desktops": 0, "saved_states": 0}
RENAME = ("pyautogui.click({x}, {y})\npyautogui.press('f2')\npyautogui.hotkey('ctrl', 'a')\n"
          "pyautogui.write('todo_list_Jan_2')\npyautogui.press('enter')")


def run(coro):
    return asyncio.run(coro)


class LossyWire(httpx.AsyncBaseTransport):
    """The network (async), counting requests; the replies to the first ``drop`` requests
    that ``match`` are lost after the host processed them (a connection dropped mid-reply)."""

    def __init__(self, match: Callable[[httpx.Request], bool] = lambda r: False,
                 drop: int = 0) -> None:
        self._inner = httpx.AsyncHTTPTransport()
        self._match = match
        self.drop = drop
        self.requests: list[httpx.Request] = []

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        response = await self._inner.handle_async_request(request)
        self.requests.append(request)
        if self.drop > 0 and self._match(request):
            self.drop -= 1
            await response.aread()
            await response.aclose()
            raise httpx.ReadError("connection lost mid-reply", request=request)
        return response

    async def aclose(self) -> None:
        await self._inner.aclose()

    def sent(self, method: str, path_end: str) -> list[httpx.Request]:
        return [r for r in self.requests if r.method == method and r.url.path.endswith(path_end)]


def record_sleeps(client: drums.AsyncClient) -> list[float]:
    """The client's retry waits, recorded as they are slept (the seconds asked for)."""
    slept: list[float] = []
    http = client._session.http
    real = http._sleep

    async def sleep(seconds: float) -> None:
        slept.append(seconds)
        await real(seconds)

    http._sleep = sleep
    return slept


# -- the object model ----------------------------------------------------------------------


def test_create_step_observe_verify_fork_reset_delete(local_host):
    async def main():
        async with drums.aconnect(local_host.url) as client:
            assert TASK in [t.short_id for t in await client.tasks()]
            async with await client.create(TASK, screen=SCREEN) as slot:
                assert isinstance(slot, drums.AsyncSlot) and slot.screen == SCREEN
                episode = await slot.wait_valid()
                assert episode.valid and (await slot.episode()).id == episode.id
                png = await slot.observe()
                raw = await slot.observe("raw")
                assert png.array.shape == raw.array.shape == (480, 640, 3)
                assert np.array_equal(png.array, raw.array)
                x, y = center(find((await slot.accessibility())["tree"], "todo_list_Jan_1"))
                result = await slot.step(RENAME.format(x=x, y=y))
                assert result.applied >= 5 and result.episode.valid
                changed = await slot.observe("raw")  # a delta over the last raw frame
                assert not np.array_equal(changed.array, raw.array)
                assert np.array_equal(changed.array, (await slot.observe("png")).array)

                async with await slot.fork(2, keep_state=True) as group:
                    assert len(group) == 2 and group.state
                    children = [await k.wait_valid() for k in group]
                    assert all(e.valid for e in children)
                    rewards = await client.gather(lambda k: k.verify(), group)
                    assert [r.score for r in rewards] == [1.0, 1.0]  # the state was solved
                    assert [s.id for s in await client.states()] == [group.state]
                assert local_host.model.counts() == {"live_desktops": 1, "saved_states": 1}
                assert await client.delete_state(group.state)
                assert not await client.delete_state(group.state)  # already gone
                assert (await slot.verify()).score == 1.0

                fresh = await slot.reset()
                assert fresh.id != episode.id
                await slot.wait_valid()
                reward = await slot.verify(strict=False)
                assert reward.valid and reward.score == 0.0  # a new episode, unsolved
                extended = await slot.extend(1200)
                assert extended.expires_at is not None
            assert slot.closed and not await slot.delete()
            assert local_host.model.counts() == NOTHING

    run(main())


def test_gather_answers_each_result_or_the_exception_it_raised(local_host):
    async def main():
        async with drums.aconnect(local_host.url) as client:
            parent = await client.create(TASK, screen=SCREEN)
            await parent.wait_valid()
            async with await parent.fork(3) as group:
                codes = ["pyautogui.moveTo(5, 5)", "pyautogui.click(", "pyautogui.moveTo(9, 9)"]

                async def act(pair):
                    kid, code = pair
                    return await kid.step(code)

                results = await client.gather(act, zip(group, codes, strict=True), workers=2)
            assert len(results) == 3
            assert isinstance(results[1], drums.ActionError)  # outside the action language
            assert [r.applied for r in (results[0], results[2])] == [1, 1]
            assert await client.gather(act, []) == []

            async def cancelled(_):
                raise asyncio.CancelledError

            with pytest.raises(asyncio.CancelledError):  # not an item's result: propagates
                await client.gather(cancelled, [1, 2])
            with pytest.raises(ValueError, match="workers"):
                await client.gather(act, [1], workers=0)

    run(main())
    assert local_host.model.counts() == NOTHING


# -- the error tree --------------------------------------------------------------------------


def test_unauthorized_not_found_and_quota(make_host, caplog):
    config = HostConfig(gate_delay_s=0.05, live_desktops=1)
    server = make_host(config, tokens=["tok-alice-123456"])

    async def main():
        async with drums.aconnect(server.url, token="tok-wrong-000000") as stranger:
            with pytest.raises(drums.Unauthorized) as info:
                await stranger.tasks()
            assert info.value.status == 401 and isinstance(info.value, drums.APIError)
            assert "tok-wrong" not in str(info.value) + repr(info.value) + repr(stranger)
        async with drums.aconnect(server.url, token="tok-alice-123456") as client:
            with pytest.raises(drums.NotFound):
                await client.task("ffffffff")
            with pytest.raises(drums.NotFound):
                await client.slot("slot_000000000000")
            slot = await client.create(TASK, screen=SCREEN)
            with pytest.raises(drums.QuotaExceeded) as quota:
                await client.create(TASK, screen=SCREEN)
            assert quota.value.status == 403 and quota.value.details["limit"] == 1
            with pytest.raises(drums.ActionError):
                await slot.step("pyautogui.click(")
            assert "tok-alice" not in repr(client) + repr(slot)

    with caplog.at_level(logging.DEBUG):
        run(main())
    assert "retry" not in caplog.text, "401, 404, 403 and 422 are never retried"
    assert "tok-wrong-000000" not in caplog.text and "tok-alice-123456" not in caplog.text


def test_429_with_retry_after_is_waited_out(make_host, caplog):
    server = make_host(HostConfig(gate_delay_s=0.05), faults="overload=0.5,retry_after_ms=5",
                       seed=2)

    async def main():
        async with drums.aconnect(server.url, max_retries=25) as client:
            slept = record_sleeps(client)
            async with await client.create(TASK, screen=SCREEN) as parent:
                await parent.wait_valid()
                async def judge(kid: drums.AsyncSlot) -> drums.Reward:
                    await kid.wait_valid()
                    return await kid.verify()

                async with await parent.fork(3) as group:
                    rewards = await client.gather(judge, group)
            return slept, rewards

    with caplog.at_level(logging.INFO, logger="drums_gym.client"):
        slept, rewards = run(main())
    assert all(isinstance(r, drums.Reward) and r.valid for r in rewards), rewards
    assert "429 overloaded; retry" in caplog.text
    assert slept, "the host shed load and the client waited"
    # the host's hint (5 ms) is what is waited, with at most 10% spread against herds
    assert all(0.005 <= s <= 0.0055 for s in slept), slept


def test_an_overload_beyond_the_retry_budget_raises_overloaded(make_host):
    server = make_host(HostConfig(gate_delay_s=0.05), faults="overload=1.0,retry_after_ms=5")

    async def main():
        async with drums.aconnect(server.url, max_retries=2) as client:
            slept = record_sleeps(client)
            with pytest.raises(drums.Overloaded) as info:
                await client.tasks()
            assert info.value.retry_after == pytest.approx(0.005)
            assert len(slept) == 2  # max_retries, then the error

    run(main())


# -- idempotency under lost replies -----------------------------------------------------------


def test_a_create_whose_reply_was_lost_is_made_once(make_host):
    server = make_host()
    wire = LossyWire(lambda r: r.method == "POST" and r.url.path == "/v1/slots", drop=1)

    async def main():
        async with drums.aconnect(server.url, transport=wire) as client:
            slot = await client.create(TASK, screen=SCREEN)
            sent = wire.sent("POST", "/v1/slots")
            assert len(sent) == 2, "the lost reply was retried"
            assert sent[0].headers["Idempotency-Key"] == sent[1].headers["Idempotency-Key"]
            assert server.model.counts()["live_desktops"] == 1, "one desktop, not two"
            assert [s.id for s in await client.slots()] == [slot.id]

    run(main())
    assert server.model.counts() == NOTHING


def test_a_fork_whose_reply_was_lost_is_made_once(make_host):
    server = make_host()
    wire = LossyWire(lambda r: r.url.path.endswith("/branch"), drop=2)

    async def main():
        async with drums.aconnect(server.url, transport=wire) as client:
            parent = await client.create(TASK, screen=SCREEN)
            await parent.wait_valid()
            async with await parent.fork(3) as group:
                sent = wire.sent("POST", "/branch")
                assert len(sent) == 3 and len({r.headers["Idempotency-Key"] for r in sent}) == 1
                assert len(group) == 3
                assert server.model.counts() == {"live_desktops": 4, "saved_states": 1}
            assert server.model.counts() == {"live_desktops": 1, "saved_states": 0}

    run(main())
    assert server.model.counts() == NOTHING


def test_an_action_whose_reply_was_lost_is_not_replayed(make_host):
    server = make_host()
    wire = LossyWire(lambda r: r.method == "POST" and r.url.path.endswith("/actions"), drop=1)

    async def main():
        async with drums.aconnect(server.url, transport=wire) as client:
            slot = await client.create(TASK, screen=SCREEN)
            await slot.wait_valid()
            with pytest.raises(drums.TransportError):
                await slot.step("pyautogui.press('a')")
            assert len(wire.sent("POST", "/actions")) == 1, "an action is never sent twice"

    run(main())


def test_a_create_whose_every_reply_was_lost_is_settled_on_aclose(make_host):
    server = make_host()
    wire = LossyWire(lambda r: r.method == "POST" and r.url.path == "/v1/slots", drop=100)

    async def main():
        client = await drums.aconnect(server.url, transport=wire, max_retries=2)
        with pytest.raises(drums.TransportError):
            await client.create(TASK, screen=SCREEN)
        assert len(wire.sent("POST", "/v1/slots")) == 3
        assert server.model.counts()["live_desktops"] == 1, "made once, whatever the retries"
        wire.drop = 0  # the network heals
        await client.aclose()

    run(main())
    assert server.model.counts() == NOTHING


# -- cleanup -------------------------------------------------------------------------------


def test_aclose_deletes_everything_the_client_created(local_host):
    async def main():
        client = await drums.aconnect(local_host.url)
        parent = await client.create(TASK, screen=SCREEN)
        await parent.wait_valid()
        await parent.fork(2, keep_state=True)
        await parent.fork(1)
        other = await client.create(TASK, screen=SCREEN)
        assert local_host.model.counts() == {"live_desktops": 5, "saved_states": 2}
        await other.delete()
        await client.aclose()
        assert client.closed and local_host.model.counts() == NOTHING
        await client.aclose()  # idempotent
        with pytest.raises(drums.DrumsError, match="closed"):
            await client.tasks()

    run(main())


def test_an_exception_or_a_cancellation_still_cleans_up(local_host):
    async def fails():
        async with drums.aconnect(local_host.url) as client:
            parent = await client.create(TASK, screen=SCREEN)
            await parent.wait_valid()
            await parent.fork(2)
            raise RuntimeError("the policy blew up")

    with pytest.raises(RuntimeError, match="blew up"):
        run(fails())
    assert local_host.model.counts() == NOTHING

    async def cancelled(started: asyncio.Event):
        async with drums.aconnect(local_host.url) as client:
            slot = await client.create(TASK, screen=SCREEN)
            await slot.wait_valid()
            await slot.fork(1)
            started.set()
            await asyncio.Event().wait()  # a rollout that never ends

    async def main():
        started = asyncio.Event()
        task = asyncio.ensure_future(cancelled(started))
        await started.wait()
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task

    run(main())
    assert local_host.model.counts() == NOTHING


def test_aclose_is_bounded_and_quiet_when_the_host_is_gone(make_host, caplog):
    from drums_gym.local.server import LocalHost

    server = LocalHost(HostConfig(gate_delay_s=0.05)).start()

    async def main():
        client = await drums.aconnect(server.url, close_timeout=1.0)
        await client.create(TASK, screen=SCREEN)
        server.stop()
        await client.aclose()  # logs the failure, never raises; the lease bounds the rest
        assert client.closed

    with caplog.at_level(logging.WARNING, logger="drums_gym.client"):
        run(main())
    assert "cleanup failed" in caplog.text and "leases" in caplog.text


def test_aclose_returns_when_the_host_hangs(caplog):
    listener = socket.create_server(("127.0.0.1", 0))  # accepts, never answers
    port = listener.getsockname()[1]

    async def main():
        # each request may wait 600 s: past the test's timeout (180 s), unless close_timeout
        # bounds the close as a whole
        client = await drums.aconnect(f"http://127.0.0.1:{port}", timeout=600,
                                      close_timeout=0.5)
        client._session.own_slot("slot_000000000001")  # as if a reply had made one
        await client.aclose()
        assert client.closed

    try:
        with caplog.at_level(logging.WARNING, logger="drums_gym.client"):
            run(main())
    finally:
        listener.close()
    assert "cleanup failed" in caplog.text


EXIT_SCRIPT = textwrap.dedent("""
    import asyncio, atexit, json, sys

    seen = {}

    def report():  # registered first: runs last, after every other atexit hook
        import httpx  # the embedded host (a child process) still serves: ask it
        usage = httpx.get(seen["host"].url + "/v1/host").json()["usage"]
        print("LEFT " + json.dumps({"live_desktops": usage["host_desktops"],
                                    "saved_states": usage["saved_states"]}), flush=True)

    atexit.register(report)

    from drums_gym import client as drums
    from drums_gym.local.embedded import embedded_host

    if sys.argv[1] == "planted":  # the break the check must see: no exit-time cleanup
        import drums_gym.client._async as impl
        impl.AsyncSession.close = lambda self, timeout=None: None

    kept = []

    async def main():
        client = await drums.aconnect()  # no DRUMS_URL: the embedded host
        parent = await client.create("e0df059f", screen=(640, 480))
        await parent.wait_valid()
        await parent.fork(2, keep_state=True)
        kept.append(client)  # never closed

    asyncio.run(main())
    seen["host"] = embedded_host()
    print("READY", flush=True)
""")


@pytest.mark.parametrize("variant", ["real", "planted"])
def test_an_unclosed_client_is_cleaned_up_at_exit_before_the_embedded_host_stops(variant):
    env = {**os.environ, "DRUMS_LOCAL_GATE_DELAY": "0.05"}
    env.pop("DRUMS_URL", None)
    env.pop("DRUMS_TOKEN", None)
    out = subprocess.run([sys.executable, "-c", EXIT_SCRIPT, variant], env=env,
                         capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr[-3000:]
    assert "READY" in out.stdout
    clean = 'LEFT {"live_desktops": 0, "saved_states": 0}' in out.stdout
    assert clean == (variant == "real"), out.stdout
    assert "cleanup failed" not in out.stderr and "cannot connect" not in out.stderr


def test_no_url_uses_the_embedded_host_the_sync_client_uses(monkeypatch):
    monkeypatch.delenv("DRUMS_URL", raising=False)
    monkeypatch.delenv("DRUMS_TOKEN", raising=False)
    with drums.connect() as sync_client:
        url = sync_client.url

    async def main():
        async with drums.aconnect() as client:
            assert client.url == url and not client.has_token
            async with await client.create(TASK, screen=SCREEN) as slot:
                assert (await slot.wait_valid()).valid

    run(main())  # the embedded host's leak check (conftest) runs at teardown


def test_the_token_is_never_in_reprs_logs_or_errors(make_host, caplog):
    token = "tok-secret-987654321"
    server = make_host(tokens=[token])

    async def main():
        seen = []
        async with drums.aconnect(server.url, token=token) as client:
            slot = await client.create(TASK, screen=SCREEN)
            await slot.wait_valid()
            async with await slot.fork(1) as group:
                seen += [repr(group), repr(group[0])]
            for bad in (slot.step("pyautogui.click("), client.task("ffffffff")):
                try:
                    await bad
                except drums.DrumsError as exc:
                    seen += [str(exc), repr(exc)]
            seen += [repr(client), str(client), repr(slot), repr(client._session.http._client)]
        return seen

    with caplog.at_level(logging.DEBUG):
        seen = run(main())
    assert len(seen) == 10 and all(token not in text for text in seen), seen
    assert token not in caplog.text


def test_bad_arguments_are_named():
    async def main():
        with pytest.raises(ValueError, match="url"):
            await drums.aconnect("ftp://drums.test")
        with pytest.raises(ValueError, match="timeout"):
            await drums.aconnect("http://drums.test", timeout=0)
        async with drums.aconnect("http://drums.test") as client:
            with pytest.raises(ValueError, match="task"):
                await client.create("")
            with pytest.raises(ValueError, match="ttl"):
                await client.create(TASK, ttl=-1)
            with pytest.raises(ValueError, match="screen"):
                await client.create(TASK, screen=(0, 10))

    run(main())
