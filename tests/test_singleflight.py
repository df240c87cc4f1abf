"""SingleFlight (loaders/singleflight.py): one run per key, its outcome shared; a failing
leader fails its followers, a cancelled one hands over, keys are independent."""

from __future__ import annotations

import asyncio
import gc
from collections.abc import Awaitable, Callable

import pytest

from loaders.singleflight import SingleFlight
from tests.conftest import gen_test


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
