"""The fair compute budget (readiness/budget.py): admitted at once while the bucket can pay,
else in each client's turn (deficit round robin), one request's overdraft capped, a client's
queue and wait bounded, no state for clients with nothing waiting."""

from __future__ import annotations

import asyncio

import pytest

from readiness.budget import BudgetLimits, FairBudget
from readiness.domain.errors import Overloaded
from tests.conftest import Clock, gen_test


def limits(
    rate: int, *, overdraft: int = 0, max_wait: float = 5.0, per_client: int = 16, total: int = 100
) -> BudgetLimits:
    return BudgetLimits(rate, overdraft=overdraft, max_wait=max_wait, queue_per_client=per_client, queue_total=total)


def virtual_time(monkeypatch: pytest.MonkeyPatch) -> Clock:
    """A clock that the running loop's timers and a budget read alike, which only the test moves
    (``advance``): a busy machine cannot refill a budget between two steps of a test."""
    clock = Clock(100.0)
    monkeypatch.setattr(asyncio.get_running_loop(), "time", clock)
    return clock


async def advance(clock: Clock, seconds: float, step: float = 0.001) -> None:
    """Move ``clock`` on by ``seconds``, a ``step`` at a time, letting the loop run each step."""
    for _ in range(round(seconds / step)):
        clock.now += step
        for _ in range(3):
            await asyncio.sleep(0)


@gen_test
async def test_an_idle_budget_admits_anything_at_once_charging_at_most_a_second() -> None:
    clock = Clock(100.0)
    budget = FairBudget(limits(1000), clock)
    await budget.take("a", 10**9)  # far over a second's worth, on a full bucket
    assert budget.tokens == 0  # charged one second of the rate, not a million
    clock.now += 0.5
    await budget.take("b", 400)
    assert budget.tokens == pytest.approx(100)


@gen_test
async def test_one_requests_overdraft_is_capped() -> None:
    clock = Clock(100.0)
    budget = FairBudget(limits(1000, overdraft=200, max_wait=0.0), clock)
    await budget.take("a", 900)  # 100 left
    with pytest.raises(Overloaded):
        await budget.take("a", 400)  # would leave -300, past the 200 allowed
    await budget.take("a", 300)  # leaves -200: the most one request may overdraw
    with pytest.raises(Overloaded):
        await budget.take("b", 1)  # nothing left: anyone's next miss waits for the refill
    clock.now += 0.25
    await budget.take("b", 1)


@gen_test
async def test_without_waiting_the_budget_holds_its_rate_over_time() -> None:
    clock = Clock(100.0)
    budget = FairBudget(limits(10_000, max_wait=0.0), clock)
    admitted = 0
    for _ in range(1000):  # ten seconds of a request every 10 ms, each asking for 1,000
        clock.now += 0.01
        try:
            await budget.take("a", 1000)
            admitted += 1000
        except Overloaded:
            pass
    assert 100_000 <= admitted <= 100_000 + 10_000  # the rate, plus the full bucket at the start


@gen_test
async def test_a_small_client_is_served_before_a_large_clients_queue() -> None:
    budget = FairBudget(limits(100_000, overdraft=25_000))
    admitted: list[str] = []

    async def ask(client: str, cost: int, label: str) -> None:
        await budget.take(client, cost)
        admitted.append(label)

    await budget.take("large", 100_000)  # the bucket is empty: everything after waits
    large = [asyncio.ensure_future(ask("large", 50_000, f"large {n}")) for n in range(3)]
    await asyncio.sleep(0)
    small = asyncio.ensure_future(ask("small", 1_000, "small"))
    await asyncio.wait_for(asyncio.gather(*large, small), 10)
    # First come, first served would admit the small miss after 1.5 s of the large client's
    # work; in turns it waits at most for the one already chosen when it came.
    assert admitted.index("small") <= 1
    assert [label for label in admitted if label != "small"] == ["large 0", "large 1", "large 2"]


@gen_test
async def test_two_busy_clients_share_the_bytes_not_the_requests(monkeypatch: pytest.MonkeyPatch) -> None:
    clock = virtual_time(monkeypatch)  # a real second, stretched by a busy machine, let 300,000 bytes through
    budget = FairBudget(limits(200_000, max_wait=10.0, per_client=100, total=1000), clock)
    taken = {"large": 0, "small": 0}

    async def ask(client: str, cost: int) -> None:
        await budget.take(client, cost)
        taken[client] += cost

    await budget.take("start", 200_000)  # empty: from here on every request waits its turn
    waiting = [asyncio.ensure_future(ask("large", 20_000)) for _ in range(40)]
    waiting += [asyncio.ensure_future(ask("small", 2_000)) for _ in range(100)]
    await advance(clock, 1.0)  # 200,000 bytes refilled
    assert 200_000 - 20_000 <= taken["large"] + taken["small"] <= 200_000
    assert abs(taken["large"] - taken["small"]) <= 25_000  # equal shares of bytes, within a turn
    for request in waiting:
        request.cancel()
    await asyncio.gather(*waiting, return_exceptions=True)
    assert budget.waiting == 0 and budget.clients_waiting() == 0


@gen_test
async def test_a_clients_queue_is_bounded_and_refusing_it_leaves_the_others_theirs(
        monkeypatch: pytest.MonkeyPatch) -> None:
    clock = virtual_time(monkeypatch)
    budget = FairBudget(limits(1000, per_client=2), clock)
    await budget.take("a", 1000)
    queued = [asyncio.ensure_future(budget.take("a", 100)) for _ in range(2)]
    await asyncio.sleep(0)
    with pytest.raises(Overloaded):
        await budget.take("a", 100)  # a third waiting from one client
    other = asyncio.ensure_future(budget.take("b", 100))
    await asyncio.sleep(0)
    assert budget.waiting == 3 and budget.clients_waiting() == 2
    await advance(clock, 0.5)
    assert all(request.done() for request in [*queued, other])
    await asyncio.gather(*queued, other)
    assert budget.waiting == 0


@gen_test
async def test_all_clients_waiting_together_are_bounded(monkeypatch: pytest.MonkeyPatch) -> None:
    clock = virtual_time(monkeypatch)
    budget = FairBudget(limits(1000, total=3), clock)
    await budget.take("a", 1000)
    queued = [asyncio.ensure_future(budget.take(f"client {n}", 10)) for n in range(3)]
    await asyncio.sleep(0)
    with pytest.raises(Overloaded):
        await budget.take("one more", 10)
    await advance(clock, 0.1)
    assert all(request.done() for request in queued)
    await asyncio.gather(*queued)


@gen_test
async def test_a_request_waits_at_most_max_wait_then_leaves_its_queue(monkeypatch: pytest.MonkeyPatch) -> None:
    clock = virtual_time(monkeypatch)
    budget = FairBudget(limits(10, max_wait=0.05), clock)
    await budget.take("a", 10)  # a second to refill
    waiting = asyncio.ensure_future(budget.take("a", 5))
    await advance(clock, 0.049)
    assert not waiting.done()
    await advance(clock, 0.002)
    with pytest.raises(Overloaded) as refused:
        await waiting
    assert refused.value.retry_after == 1
    assert budget.waiting == 0 and budget.clients_waiting() == 0


@gen_test
async def test_a_cancelled_request_leaves_its_queue_and_the_next_is_served() -> None:
    budget = FairBudget(limits(1000))
    await budget.take("a", 1000)
    first = asyncio.ensure_future(budget.take("a", 900))
    second = asyncio.ensure_future(budget.take("b", 10))
    await asyncio.sleep(0)
    first.cancel()
    with pytest.raises(asyncio.CancelledError):
        await first
    await asyncio.wait_for(second, 5)
    assert budget.waiting == 0 and budget.clients_waiting() == 0


@gen_test
async def test_clients_with_nothing_waiting_hold_no_state() -> None:
    budget = FairBudget(limits(10**9))
    for n in range(10_000):
        await budget.take(f"2001:db8:{n:x}::/64", 10)
    assert budget.clients_waiting() == 0 and budget.waiting == 0
