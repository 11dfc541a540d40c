"""The limit of running subagents: first come, first served; a cancelled waiter takes no slot."""

from __future__ import annotations

import asyncio

import pytest

from miniroom.agent.subagents.slots import Slots


async def settle() -> None:
    for _ in range(5):
        await asyncio.sleep(0)


async def test_at_most_the_limit_hold_slots_and_waiters_get_them_in_order() -> None:
    slots = Slots(2)
    order: list[int] = []

    async def take(number: int) -> None:
        await slots.acquire()
        order.append(number)

    waiters = [asyncio.create_task(take(n)) for n in range(5)]
    await settle()
    assert order == [0, 1]
    assert (slots.taken, slots.waiting) == (2, 3)
    slots.release()
    await settle()
    assert order == [0, 1, 2]
    slots.release()
    slots.release()
    await settle()
    assert order == [0, 1, 2, 3, 4]
    assert slots.taken == 2
    await asyncio.gather(*waiters)


async def test_a_waiter_cancelled_takes_no_slot_and_the_next_one_goes_on() -> None:
    slots = Slots(1)
    await slots.acquire()
    first = asyncio.create_task(slots.acquire())
    second = asyncio.create_task(slots.acquire())
    await settle()
    first.cancel()
    await settle()
    assert slots.waiting == 1
    slots.release()
    await asyncio.wait_for(second, 5)
    assert (slots.taken, slots.waiting) == (1, 0)


async def test_a_slot_handed_over_as_the_wait_is_cancelled_passes_on() -> None:
    slots = Slots(1)
    await slots.acquire()
    first = asyncio.create_task(slots.acquire())
    second = asyncio.create_task(slots.acquire())
    await settle()
    slots.release()  # the slot goes to `first`...
    first.cancel()  # ...which is cancelled before it runs again: the slot must reach `second`
    await asyncio.wait_for(second, 5)
    assert first.cancelled()
    assert (slots.taken, slots.waiting) == (1, 0)


def test_a_limit_below_one_is_refused() -> None:
    with pytest.raises(ValueError, match="at least one slot"):
        Slots(0)
