"""`within`: an awaitable bounded in time on the awaiting task (the HTTP front's body
reads and its waits on a worker): the result, TimeoutError at the limit with the task
still usable, and a cancellation from outside left a cancellation."""

from __future__ import annotations

import asyncio

import pytest

from drums_gym.local.within import within


def test_the_result_or_timeout_error_and_the_task_carries_on():
    async def main() -> list[str]:
        seen = [await within(asyncio.sleep(0, "first"), 1.0)]
        with pytest.raises(TimeoutError):
            await within(asyncio.Event().wait(), 0.01)
        seen.append(await asyncio.sleep(0, "after"))  # not left cancelled
        seen.append(await within(asyncio.sleep(0, "no limit"), None))
        return seen

    assert asyncio.run(main()) == ["first", "after", "no limit"]


def test_a_cancellation_from_outside_is_not_a_timeout():
    async def main() -> None:
        started = asyncio.Event()

        async def waits() -> None:
            started.set()
            await within(asyncio.Event().wait(), 60.0)

        task = asyncio.ensure_future(waits())
        await started.wait()
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task

    asyncio.run(main())
