"""A workspace's share of the server's capacity (`WorkspaceThreads`) on the event loop:
held while a request waits on its worker, queued past it, and given back however the
request ends (answered, failed or cancelled)."""

from __future__ import annotations

import asyncio

import pytest

from drums_gym.local.fairness import WorkspaceThreads


def _on_thread() -> str:
    return "thread"


def test_a_share_is_held_while_waiting_on_the_loop_and_queues_past_the_limit():
    threads = WorkspaceThreads(per_workspace=2, keep=8)
    limiter = threads.limiter("a")

    async def main() -> None:
        gates = [asyncio.Event() for _ in range(3)]

        def now(gate: asyncio.Event):
            async def wait() -> str:
                await gate.wait()
                return "loop"
            return wait

        requests = [asyncio.ensure_future(threads.run_now("a", now(g), _on_thread))
                    for g in gates]
        for _ in range(5):
            await asyncio.sleep(0)
        assert limiter.borrowed_tokens == 2
        assert limiter.statistics().tasks_waiting == 1  # the third is in line
        other = threads.limiter("b")
        assert await threads.run_now("b", _answer, _on_thread) == "loop"
        assert other.borrowed_tokens == 0  # another workspace never waited on a's shares
        gates[0].set()
        assert await requests[0] == "loop"
        for _ in range(5):
            await asyncio.sleep(0)
        assert limiter.borrowed_tokens == 2 and limiter.statistics().tasks_waiting == 0
        for gate in gates[1:]:
            gate.set()
        assert await asyncio.gather(*requests[1:]) == ["loop", "loop"]
        assert limiter.borrowed_tokens == 0

    asyncio.run(main())


async def _answer() -> str:
    return "loop"


def test_a_share_comes_back_when_the_request_fails_or_is_cancelled():
    threads = WorkspaceThreads(per_workspace=1, keep=8)
    limiter = threads.limiter("a")

    async def main() -> None:
        async def fails() -> str:
            raise RuntimeError("the worker is gone")

        with pytest.raises(RuntimeError, match="gone"):
            await threads.run_now("a", fails, _on_thread)
        assert limiter.borrowed_tokens == 0

        held = asyncio.Event()

        async def forever() -> str:
            held.set()
            await asyncio.Event().wait()
            return "never"

        holder = asyncio.ensure_future(threads.run_now("a", forever, _on_thread))
        await held.wait()
        waiter = asyncio.ensure_future(threads.run_now("a", _answer, _on_thread))
        await asyncio.sleep(0)
        assert limiter.statistics().tasks_waiting == 1
        waiter.cancel()  # cancelled in line: leaves the line
        with pytest.raises(asyncio.CancelledError):
            await waiter
        assert limiter.statistics().tasks_waiting == 0
        holder.cancel()  # cancelled holding the share: gives it back
        with pytest.raises(asyncio.CancelledError):
            await holder
        assert limiter.borrowed_tokens == 0
        assert await threads.run_now("a", _answer, _on_thread) == "loop"

    asyncio.run(main())


def test_work_that_needs_a_thread_runs_on_one_of_the_share():
    threads = WorkspaceThreads(per_workspace=1, keep=8)

    async def needs_a_thread() -> None:
        return None

    async def main() -> str:
        return await threads.run_now("a", needs_a_thread, _on_thread)

    assert asyncio.run(main()) == "thread"
    assert threads.limiter("a").borrowed_tokens == 0
