"""SingleFlight (loaders/singleflight.py): one run per key, its outcome shared.

``run``: a failing leader fails its followers, a cancelled one hands over, keys are independent.
``run_detached``: the run is started once, as a task or a thread's future of its own, and no
caller's cancellation reaches it. ``run_detached_within``: each caller's deadline counts from
the run's start; an overdue run is reported once and goes on."""

from __future__ import annotations

import asyncio
import gc
import threading
from collections.abc import Awaitable, Callable
from concurrent.futures import ThreadPoolExecutor

import pytest

from loaders.singleflight import Overdue, SingleFlight
from tests.conftest import eventually, gen_test


class Work:
    """Work that counts its runs and finishes (or fails) only when told to."""

    def __init__(self, result: str = "answer", error: Exception | None = None) -> None:
        self.result = result
        self.error = error
        self.runs = 0
        self.release = asyncio.Event()

    async def __call__(self) -> str:
        self.runs += 1
        await self.release.wait()
        if self.error is not None:
            raise self.error
        return f"{self.result} {self.runs}"


async def started(flights: SingleFlight[str], key: str, work: Callable[[], Awaitable[str]]) -> asyncio.Task[str]:
    """A task running ``flights.run(key, work)``, once it has reached its first await."""
    task = asyncio.ensure_future(flights.run(key, work))
    await asyncio.sleep(0)
    return task


def test_single_flight_followers_share_the_leaders_result() -> None:
    async def scenario() -> None:
        flights: SingleFlight[str] = SingleFlight()
        work = Work()
        tasks = [await started(flights, "KEN", work) for _ in range(5)]
        assert "KEN" in flights and len(flights) == 1
        work.release.set()
        assert await asyncio.gather(*tasks) == ["answer 1"] * 5
        assert work.runs == 1
        assert "KEN" not in flights and len(flights) == 0

    asyncio.run(scenario())


def test_single_flight_failing_leader_fails_every_follower_with_its_error() -> None:
    async def scenario() -> None:
        flights: SingleFlight[str] = SingleFlight()
        boom = LookupError("no such country")
        work = Work(error=boom)
        tasks = [await started(flights, "XXX", work) for _ in range(3)]
        work.release.set()
        outcomes = await asyncio.gather(*tasks, return_exceptions=True)
        assert outcomes == [boom, boom, boom]
        assert work.runs == 1  # the followers shared the failure, not repeated it
        assert len(flights) == 0  # the key is free: the next call runs again
        work.error = None
        assert await flights.run("XXX", work) == "answer 2"

    asyncio.run(scenario())


def test_single_flight_cancelled_leader_hands_over_to_a_follower() -> None:
    async def scenario() -> None:
        flights: SingleFlight[str] = SingleFlight()
        work = Work()
        leader = await started(flights, "KEN", work)
        followers = [await started(flights, "KEN", work) for _ in range(3)]
        leader.cancel()
        with pytest.raises(asyncio.CancelledError):
            await leader
        await asyncio.sleep(0)  # the followers wake; one of them leads a new run
        assert work.runs == 2 and "KEN" in flights
        work.release.set()
        assert await asyncio.gather(*followers) == ["answer 2"] * 3
        assert len(flights) == 0

    asyncio.run(scenario())


def test_single_flight_cancelled_follower_leaves_the_leader_running() -> None:
    async def scenario() -> None:
        flights: SingleFlight[str] = SingleFlight()
        work = Work()
        leader = await started(flights, "KEN", work)
        follower = await started(flights, "KEN", work)
        other = await started(flights, "KEN", work)
        follower.cancel()
        with pytest.raises(asyncio.CancelledError):
            await follower
        assert not leader.done() and "KEN" in flights
        work.release.set()
        assert await leader == "answer 1" and await other == "answer 1"
        assert work.runs == 1

    asyncio.run(scenario())


def test_single_flight_many_keys_run_independently() -> None:
    async def scenario() -> None:
        flights: SingleFlight[str] = SingleFlight()
        works = {key: Work(result=key) for key in ("KEN", "BRA", "IND")}
        tasks = {key: [await started(flights, key, work) for _ in range(2)] for key, work in works.items()}
        assert len(flights) == 3
        works["BRA"].release.set()  # one key finishing does not finish or block the others
        assert await asyncio.gather(*tasks["BRA"]) == ["BRA 1", "BRA 1"]
        assert "BRA" not in flights and "KEN" in flights and "IND" in flights
        assert not any(task.done() for task in tasks["KEN"] + tasks["IND"])
        works["KEN"].error = ValueError("KEN failed")
        works["KEN"].release.set()
        works["IND"].release.set()
        assert await asyncio.gather(*tasks["IND"]) == ["IND 1", "IND 1"]
        kenya = await asyncio.gather(*tasks["KEN"], return_exceptions=True)
        assert [str(outcome) for outcome in kenya] == ["KEN failed", "KEN failed"]
        assert all(work.runs == 1 for work in works.values())
        assert len(flights) == 0

    asyncio.run(scenario())


def test_single_flight_a_run_after_the_last_one_ended_runs_again() -> None:
    async def scenario() -> None:
        flights: SingleFlight[str] = SingleFlight()
        work = Work()
        work.release.set()
        assert await flights.run("KEN", work) == "answer 1"
        assert await flights.run("KEN", work) == "answer 2"  # nothing cached: sharing is only while running

    asyncio.run(scenario())


@gen_test
async def test_single_flight_failing_leader_alone_leaves_no_exception_unretrieved() -> None:
    reported: list[str] = []
    asyncio.get_running_loop().set_exception_handler(lambda _, context: reported.append(context["message"]))
    flights: SingleFlight[str] = SingleFlight()

    async def failing() -> str:
        raise LookupError("no such country")  # made here, so that only the run's frames hold it

    with pytest.raises(LookupError):
        await flights.run("XXX", failing)
    gc.collect()  # the run's future sits in a cycle: its error, the error's traceback, the frame holding it
    assert not [message for message in reported if "never retrieved" in message], reported


# --- run_detached: work that outlives its callers -----------------------------------------


class Detached:
    """Starts counted runs of ``Work`` as tasks: what a detached run's ``start`` does."""

    def __init__(self, work: Work) -> None:
        self.work = work
        self.starts = 0
        self.cancelled = 0

    def __call__(self) -> Awaitable[str]:
        self.starts += 1
        return self._run()

    async def _run(self) -> str:
        try:
            return await self.work()
        except asyncio.CancelledError:
            self.cancelled += 1
            raise


async def detached(flights: SingleFlight[str], key: str, start: Callable[[], Awaitable[str]]) -> asyncio.Task[str]:
    """A task running ``flights.run_detached(key, start)``, once it has reached its first await."""
    task = asyncio.ensure_future(flights.run_detached(key, start))
    await asyncio.sleep(0)
    return task


@gen_test
async def test_single_flight_detached_callers_share_one_run_started_once() -> None:
    flights: SingleFlight[str] = SingleFlight()
    start = Detached(Work())
    tasks = [await detached(flights, "2024-12", start) for _ in range(5)]
    assert start.starts == 1 and "2024-12" in flights
    start.work.release.set()
    assert await asyncio.gather(*tasks) == ["answer 1"] * 5
    assert start.work.runs == 1 and len(flights) == 0
    assert await flights.run_detached("2024-12", start) == "answer 2"  # ended: the next call starts again


@gen_test
async def test_single_flight_detached_cancelled_callers_leave_the_run_going() -> None:
    flights: SingleFlight[str] = SingleFlight()
    start = Detached(Work())
    starter = await detached(flights, "2024-12", start)
    others = [await detached(flights, "2024-12", start) for _ in range(2)]
    for task in (starter, *others):  # every caller goes away, the one that started the run first
        task.cancel()
    outcomes = await asyncio.gather(starter, *others, return_exceptions=True)
    assert all(isinstance(outcome, asyncio.CancelledError) for outcome in outcomes)
    assert start.cancelled == 0 and "2024-12" in flights  # the run is nobody's to cancel
    late = await detached(flights, "2024-12", start)  # a new caller joins it, starts nothing
    start.work.release.set()
    assert await late == "answer 1"
    assert start.starts == 1 and start.cancelled == 0 and len(flights) == 0


@gen_test
async def test_single_flight_detached_failing_run_fails_every_caller_with_its_error() -> None:
    flights: SingleFlight[str] = SingleFlight()
    boom = OSError("input/output error")
    start = Detached(Work(error=boom))
    tasks = [await detached(flights, "2024-12", start) for _ in range(3)]
    start.work.release.set()
    assert await asyncio.gather(*tasks, return_exceptions=True) == [boom, boom, boom]
    assert start.starts == 1 and len(flights) == 0


@gen_test
async def test_single_flight_detached_run_in_a_worker_thread_is_shared() -> None:
    flights: SingleFlight[str] = SingleFlight()
    release = threading.Event()
    reads: list[str] = []

    def read() -> str:
        reads.append("read")
        release.wait(10)
        return "bytes"

    loop = asyncio.get_running_loop()
    with ThreadPoolExecutor(2) as executor:
        try:
            tasks = [await detached(flights, "CURRENT", lambda: loop.run_in_executor(executor, read)) for _ in range(4)]
            tasks[0].cancel()  # a caller going away does not cancel the thread's future
            release.set()
            assert await asyncio.gather(*tasks[1:]) == ["bytes"] * 3
            assert reads == ["read"] and len(flights) == 0
        finally:
            release.set()


@gen_test
async def test_single_flight_detached_run_cancelled_from_outside_cancels_every_caller() -> None:
    flights: SingleFlight[str] = SingleFlight()
    shut: asyncio.Future[str] = asyncio.get_running_loop().create_future()  # as a shut-down executor's would
    tasks = [await detached(flights, "CURRENT", lambda: shut) for _ in range(2)]
    shut.cancel()
    outcomes = await asyncio.gather(*tasks, return_exceptions=True)
    assert all(isinstance(outcome, asyncio.CancelledError) for outcome in outcomes)
    await eventually(lambda: len(flights) == 0, "the cancelled run's key freed")


@gen_test
async def test_single_flight_detached_failing_run_nobody_awaits_leaves_no_exception_unretrieved() -> None:
    reported: list[str] = []
    asyncio.get_running_loop().set_exception_handler(lambda _, context: reported.append(context["message"]))
    flights: SingleFlight[str] = SingleFlight()
    release = asyncio.Event()

    async def failing() -> str:
        await release.wait()
        raise OSError("input/output error")  # made here, so that only the run holds it

    caller = await detached(flights, "2024-12", failing)
    caller.cancel()  # every caller gave up: nobody will read the run's error
    with pytest.raises(asyncio.CancelledError):
        await caller
    release.set()
    await eventually(lambda: len(flights) == 0, "the failed run's key freed")
    del caller
    gc.collect()
    assert not [message for message in reported if "never retrieved" in message], reported


# --- run_detached_within: a deadline per caller, counted from the run's start ---------------


@gen_test
async def test_single_flight_detached_within_overdue_run_is_first_reported_once_and_goes_on() -> None:
    flights: SingleFlight[str] = SingleFlight()
    start = Detached(Work())
    finished: list[str] = []
    with pytest.raises(Overdue, match="CURRENT has not finished") as overdue:
        await flights.run_detached_within("CURRENT", start, 0.2)
    assert overdue.value.first and overdue.value.seconds >= 0.2 - 0.01  # the loop may fire a timer a tick early
    overdue.value.when_finished(lambda: finished.append("finished"))
    late = asyncio.ensure_future(flights.run_detached_within("CURRENT", start, 0.2))
    await asyncio.sleep(0)  # one step: a caller finding the run overdue is not made to wait at all
    assert late.done()
    again = late.exception()
    assert isinstance(again, Overdue) and not again.first  # reported once per run
    assert "CURRENT" in flights and start.starts == 1 and start.cancelled == 0
    assert finished == []
    start.work.release.set()
    await eventually(lambda: finished == ["finished"], "the overdue run's end told")
    assert len(flights) == 0
    assert await flights.run_detached_within("CURRENT", start, 0.2) == "answer 2"  # a new run, not overdue


@gen_test
async def test_single_flight_detached_within_deadline_counts_from_the_runs_start() -> None:
    flights: SingleFlight[str] = SingleFlight()
    start = Detached(Work())
    with pytest.raises(Overdue):  # 0.5 s after the start
        await flights.run_detached_within("CURRENT", start, 0.5)
    with pytest.raises(Overdue) as second:  # asks at 0.5 s for 1.5 s: waits until 1.5 s after the start
        await flights.run_detached_within("CURRENT", start, 1.5)
    # Counted from its own call, it would have ended 2 s after the start; 0.5 s of margin for a
    # loaded machine's late timers (0.3 s was not enough under the whole suite: 0.97 s seen).
    assert 1.5 - 0.01 <= second.value.seconds < 2.0
    start.work.release.set()
    await eventually(lambda: len(flights) == 0, "the run's end")


@gen_test
async def test_single_flight_detached_within_outcome_within_the_deadline_is_every_callers() -> None:
    flights: SingleFlight[str] = SingleFlight()
    start = Detached(Work())
    tasks = [asyncio.ensure_future(flights.run_detached_within("CURRENT", start, 10)) for _ in range(3)]
    await asyncio.sleep(0)
    start.work.release.set()
    assert await asyncio.gather(*tasks) == ["answer 1"] * 3
    assert start.starts == 1
    stale = LookupError("CURRENT names nothing")
    start.work.error = stale
    with pytest.raises(LookupError) as raised:
        await flights.run_detached_within("CURRENT", start, 10)
    assert raised.value is stale


@gen_test
async def test_single_flight_detached_within_runs_own_timeout_error_is_not_overdue() -> None:
    flights: SingleFlight[str] = SingleFlight()

    async def timing_out() -> str:
        raise TimeoutError("connection timed out")  # a read's ETIMEDOUT: the run's outcome, not the deadline

    with pytest.raises(TimeoutError, match="connection timed out"):  # not Overdue
        await flights.run_detached_within("CURRENT", timing_out, 10)


@gen_test
async def test_single_flight_detached_within_run_done_at_once_is_never_overdue() -> None:
    flights: SingleFlight[str] = SingleFlight()
    done: asyncio.Future[str] = asyncio.get_running_loop().create_future()
    done.set_result("cached")  # a run that ended before its deadline could even be looked at
    assert await flights.run_detached_within("CURRENT", lambda: done, 0) == "cached"
