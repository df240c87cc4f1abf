"""The suite's own rules (docs/TESTING.md) that a reviewer would otherwise have to remember,
and the suite's own Redis: started when none answers at the default."""

from __future__ import annotations

from pathlib import Path

import pytest
import redis

from tests.processes import RedisServer, free_port, redis_answers, redis_unless_one_answers

TESTS = Path(__file__).resolve().parent
SEAM = TESTS / "conftest.py"
"""The one module that may name pytest-tornado (its docstring says how to replace it)."""


@pytest.mark.parametrize("name", ["pytest.mark.gen_test", "pytest_tornado"])
def test_only_conftest_names_pytest_tornado(name: str) -> None:
    # Replacing pytest-tornado must stay a change to tests/conftest.py alone.
    offenders = [
        path.name for path in sorted(TESTS.glob("*.py"))
        if path not in (SEAM, Path(__file__).resolve()) and name in path.read_text()
    ]
    assert not offenders, f"{offenders} use {name}; use tests.conftest.gen_test and its fixtures"


# --- the suite's Redis -----------------------------------------------------------------------


def test_without_a_redis_at_the_default_the_suite_starts_its_own(tmp_path: Path) -> None:
    # A machine with Debian's redis-server but no Redis running must run the Redis tests,
    # not skip them (README.md#quick-start).
    closed = f"redis://127.0.0.1:{free_port()}/15"  # the probe socket is closed: nothing listens
    with redis_unless_one_answers(closed, tmp_path) as url:
        assert url != closed
        with redis.Redis.from_url(url) as client:
            client.set("written", "read")
            assert client.get("written") == b"read"
    assert not redis_answers(url), "the suite's own redis-server outlived its session"


def test_a_redis_answering_at_the_default_is_used_and_none_started(
    redis_server: RedisServer, tmp_path: Path
) -> None:
    own = tmp_path / "own"
    own.mkdir()
    with redis_unless_one_answers(redis_server.url, own) as url:
        assert url == redis_server.url
    assert not any(own.iterdir()), "a redis-server was started all the same"
    assert redis_answers(redis_server.url)
