"""One URL names the Redis tier, whatever its topology: one server, a Sentinel-watched primary or
a Redis Cluster (config/redis_address.py, docs/CONFIGURATION.md)."""

from __future__ import annotations

import pytest

from config import RedisAddress, Settings, SettingsError, Topology
from config.settings import redis_url


@pytest.mark.parametrize(
    ("url", "topology", "nodes", "service", "db"),
    [
        ("redis://redis:6379/0", Topology.SERVER, (), "", 0),
        ("unix:///run/redis.sock", Topology.SERVER, (), "", 0),
        ("redis+sentinel://s1:26379,s2:26380/readiness/2", Topology.SENTINEL,
         (("s1", 26379), ("s2", 26380)), "readiness", 2),
        ("redis+sentinel://sentinel/readiness", Topology.SENTINEL, (("sentinel", 26379),), "readiness", 0),
        ("redis+cluster://n1:7000,[::1]:7001,n3", Topology.CLUSTER,
         (("n1", 7000), ("::1", 7001), ("n3", 6379)), "", 0),
        ("redis+cluster://n1:7000/0", Topology.CLUSTER, (("n1", 7000),), "", 0),
    ],
)
def test_redis_address_parse_reads_every_topology(
    url: str, topology: Topology, nodes: tuple[tuple[str, int], ...], service: str, db: int
) -> None:
    address = RedisAddress.parse(url)
    assert (address.topology, address.nodes, address.service, address.db, address.tls) == (
        topology, nodes, service, db, False)
    assert Settings.from_env({"READINESS_REDIS_URL": url}).redis_url == url


def test_redis_address_parse_reads_credentials_and_tls() -> None:
    address = RedisAddress.parse("rediss+sentinel://reader:p%40ss@s1:26379/readiness")
    assert (address.username, address.password, address.tls) == ("reader", "p@ss", True)
    assert "p@ss" not in repr(address)
    assert RedisAddress.parse("rediss+cluster://:secret@n1:7000").password == "secret"


@pytest.mark.parametrize(
    ("url", "says"),
    [
        ("redis+sentinel://s1:26379", "name the Sentinel service"),
        ("redis+sentinel://s1:26379/", "name the Sentinel service"),
        ("redis+sentinel://s1:26379/read iness", "name the Sentinel service"),
        ("redis+sentinel://s1:26379/readiness/zero", "its database is a whole number"),
        ("redis+sentinel://s1:26379/readiness/0/more", "name the Sentinel service"),
        ("redis+sentinel://s1:port/readiness", "'s1:port' is not HOST:PORT"),
        ("redis+sentinel://s1:0/readiness", "'s1:0' is not HOST:PORT"),
        ("redis+sentinel://s1:65536/readiness", "'s1:65536' is not HOST:PORT"),
        ("redis+sentinel://s1,,s2/readiness", "'' is not HOST:PORT"),
        ("redis+sentinel://[::1/readiness", "use redis+sentinel://HOST:PORT,HOST:PORT/SERVICE/DB"),
        ("redis+cluster://n1:7000/1", "a Redis Cluster has database 0 only"),
        ("redis+cluster://", "'' is not HOST:PORT"),
        ("redis+cluster://[nope]:7000", "use redis+cluster://HOST:PORT,HOST:PORT"),
        ("redis+cluster://n1:7000?ssl_cert_reqs=none", "takes no ?options"),
        ("redis+cluster://n１:7000", "use redis+cluster://HOST:PORT,HOST:PORT"),  # beyond ASCII
        ("redis+sentinels://s1/readiness", "or for Sentinel redis+sentinel://"),  # an unknown scheme
    ],
)
def test_redis_address_bad_url_says_what_to_use_naming_the_variable(url: str, says: str) -> None:
    with pytest.raises(SettingsError) as raised:
        Settings.from_env({"READINESS_REDIS_URL": url})
    assert str(raised.value).startswith(f"READINESS_REDIS_URL={url!r} is not valid; ")
    assert says in str(raised.value)
    with pytest.raises(SettingsError, match="^--redis-url="):
        redis_url(url, "--redis-url")


@pytest.mark.parametrize(
    ("url", "shown"),
    [
        ("redis+sentinel://user:hunter2@s1:26379,s2:26379/readiness/x",
         "redis+sentinel://user:***@s1:26379,s2:26379/readiness/x"),
        ("rediss+cluster://:hunter2@n1:port", "rediss+cluster://:***@n1:port"),
        ("redis+cluster://u:hunter2@n1:7000/3", "redis+cluster://u:***@n1:7000/3"),
    ],
)
def test_redis_address_bad_url_message_shows_no_password(url: str, shown: str) -> None:
    with pytest.raises(SettingsError) as raised:
        Settings.from_env({"READINESS_REDIS_URL": url})
    assert "hunter2" not in str(raised.value)
    assert f"READINESS_REDIS_URL={shown!r} is not valid" in str(raised.value)
