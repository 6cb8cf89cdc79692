"""libs.platform.tasks: a retry loop stops when cancelled, even when a step swallowed the
cancellation (as Python 3.11's asyncio.wait_for can when its future completes at that moment)."""

from __future__ import annotations

import asyncio
import contextlib

import pytest

from libs.platform.tasks import cancel_requested, hold_until_done, honour_cancel


async def _step(swallowed: list[bool]) -> None:
    """A step that loses the first cancellation it meets (later ones go through), then fails
    as a closed connection would."""
    if swallowed:
        await asyncio.sleep(10)
    else:
        with contextlib.suppress(asyncio.CancelledError):
            await asyncio.sleep(10)
        swallowed.append(True)
    raise ConnectionError("closed")


async def _retry_loop(rounds: list[int], honour: bool) -> None:
    swallowed: list[bool] = []
    while True:
        rounds.append(1)
        try:
            await _step(swallowed)
        except Exception:
            if honour:
                honour_cancel()
            await asyncio.sleep(0.01)


@pytest.mark.parametrize("honour", [True, False])
def test_a_retry_loop_that_honours_cancel_stops_even_if_a_step_swallowed_it(honour: bool) -> None:
    async def scenario() -> bool:
        rounds: list[int] = []
        task = asyncio.create_task(_retry_loop(rounds, honour))
        await asyncio.sleep(0.05)
        task.cancel()
        done, _ = await asyncio.wait([task], timeout=1.0)
        task.cancel()  # the second time it is not swallowed: clean up
        with contextlib.suppress(asyncio.CancelledError):
            await task
        return bool(done)

    assert asyncio.run(scenario()) is honour


def test_cancel_requested_outside_and_inside_a_task() -> None:
    async def scenario() -> tuple[bool, list[bool]]:
        seen: list[bool] = []

        async def victim() -> None:
            seen.append(cancel_requested())
            try:
                await asyncio.sleep(10)
            except asyncio.CancelledError:
                seen.append(cancel_requested())  # still asked to stop while it cleans up
                raise

        task = asyncio.create_task(victim())
        await asyncio.sleep(0)
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task
        return cancel_requested(), seen

    assert asyncio.run(scenario()) == (False, [False, True])


def test_stop_tasks_cancels_and_waits_and_keeps_the_callers_own_cancellation() -> None:
    from libs.platform.tasks import stop_tasks

    async def forever(ended: list[str], name: str) -> None:
        try:
            await asyncio.sleep(100)
        finally:
            ended.append(name)

    async def failing() -> None:
        await asyncio.sleep(0)
        raise ValueError("broken")

    async def scenario() -> None:
        ended: list[str] = []
        tasks = [asyncio.create_task(forever(ended, n)) for n in "ab"]
        await asyncio.sleep(0)
        await stop_tasks([*tasks, None])
        assert sorted(ended) == ["a", "b"] and all(t.cancelled() for t in tasks)
        await stop_tasks([])  # nothing to stop

        broken = asyncio.create_task(failing())
        await asyncio.sleep(0.01)
        with pytest.raises(ValueError):
            await stop_tasks([broken])

        # the caller cancelled while it waits for a task that takes its time to end
        async def slow_to_end() -> None:
            try:
                await asyncio.sleep(100)
            finally:
                await asyncio.sleep(0.2)

        slow = asyncio.create_task(slow_to_end())
        await asyncio.sleep(0)
        stopper = asyncio.create_task(stop_tasks([slow]))
        await asyncio.sleep(0.05)
        stopper.cancel()
        with pytest.raises(asyncio.CancelledError):
            await stopper
        assert stopper.cancelled()
        await asyncio.sleep(0.3)

    asyncio.run(scenario())


def test_a_task_is_held_while_it_runs_and_dropped_when_it_ends() -> None:
    """``hold_until_done`` keeps a task per key only while it runs; a newer task under the same
    key is kept when the older ends, and a map emptied by whoever stopped them stays empty."""

    async def scenario() -> None:
        held: dict[str, asyncio.Task[object]] = {}
        gate = asyncio.Event()
        first: asyncio.Task[object] = asyncio.create_task(gate.wait())
        hold_until_done(held, "t1", first)
        hold_until_done(held, "t2", asyncio.create_task(asyncio.sleep(0)))
        await asyncio.sleep(0.01)
        assert held == {"t1": first}  # t2 ended and was dropped
        second: asyncio.Task[object] = asyncio.create_task(asyncio.Event().wait())
        hold_until_done(held, "t1", second)  # took first's place
        gate.set()
        await first
        await asyncio.sleep(0)
        assert held == {"t1": second}
        stopped, held = held, {}
        second.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await second
        assert not stopped and not held

    asyncio.run(scenario())
