"""Where the Redis tier is: one server, the primary a set of Sentinels watches, or a Redis
Cluster, each named by one URL (``READINESS_REDIS_URL``, docs/CONFIGURATION.md).

- ``redis://HOST:PORT/DB``, ``rediss://…`` (TLS), ``unix://PATH``: one server, as redis-py reads it.
- ``redis+sentinel://[USER:PASSWORD@]HOST:PORT[,HOST:PORT…]/SERVICE[/DB]``: whichever server the
  sentinels listed name as the primary of SERVICE, found again after a failover.
- ``redis+cluster://[USER:PASSWORD@]HOST:PORT[,HOST:PORT…]``: a Redis Cluster, its slot map read
  from any node listed (database 0 only: a cluster has no other).
- ``rediss+sentinel://``, ``rediss+cluster://``: the same over TLS.

One URL, not a variable per part: a password stays in the one value kept in a Secret, every log
line hides it the same way (config/redact.py), and the warm-up's ``--redis-url`` takes any of them.
"""

from __future__ import annotations

import ipaddress
import re
from dataclasses import dataclass, field
from enum import Enum
from urllib.parse import unquote, urlsplit

from redis.asyncio.connection import parse_url


class Topology(Enum):
    """How the servers of the Redis tier are arranged."""

    SERVER = "server"
    SENTINEL = "sentinel"
    CLUSTER = "cluster"


_SCHEMES = {
    "redis+sentinel": (Topology.SENTINEL, False),
    "rediss+sentinel": (Topology.SENTINEL, True),
    "redis+cluster": (Topology.CLUSTER, False),
    "rediss+cluster": (Topology.CLUSTER, True),
}
"""The schemes beyond redis-py's own: (topology, TLS)."""

DEFAULT_PORTS = {Topology.SENTINEL: 26379, Topology.CLUSTER: 6379}
"""A node listed without a port: Sentinel's and Redis' usual ports."""

_DIGITS = re.compile(r"[0-9]{1,15}")
_SERVICE = re.compile(r"[A-Za-z0-9._-]{1,64}")
"""A Sentinel service (its ``sentinel monitor`` name) as this URL accepts it."""
_NODE = re.compile(r"(?P<host>\[[^\]]*\]|[^:\[\]]*)(?::(?P<port>[^:]*))?")
"""``host``, ``host:port``, ``[v6]`` or ``[v6]:port``."""

SENTINEL_FORM = "redis+sentinel://HOST:PORT,HOST:PORT/SERVICE/DB"
CLUSTER_FORM = "redis+cluster://HOST:PORT,HOST:PORT"
SINGLE_FORMS = (f"use redis://HOST:PORT/DB, rediss://… or unix://PATH, or for Sentinel {SENTINEL_FORM}, "
                f"for a cluster {CLUSTER_FORM}")


@dataclass(frozen=True, slots=True)
class RedisAddress:
    """A parsed Redis URL: what a client needs to reach the tier, whatever its topology."""

    topology: Topology
    url: str
    """The URL as given: for one server, what redis-py reads."""
    nodes: tuple[tuple[str, int], ...] = ()
    """The sentinels, or the cluster nodes to read the slot map from (none for one server)."""
    service: str = ""
    db: int = 0
    username: str | None = None
    password: str | None = field(default=None, repr=False)
    tls: bool = False

    @classmethod
    def parse(cls, url: str) -> RedisAddress:
        """Read ``url``. Raises ValueError saying what to change; the message never quotes
        the URL, whose password the caller hides (config.redact)."""
        if not url.isascii():  # a host or password beyond ASCII fails only when connecting
            raise ValueError(_forms(url))
        scheme = url.partition("://")[0].lower()
        if scheme not in _SCHEMES:
            return cls._single(url)
        topology, tls = _SCHEMES[scheme]
        try:
            parts = urlsplit(url)
        except ValueError:  # an unclosed [ of an IPv6 address
            raise ValueError(_forms(url)) from None
        if parts.query or parts.fragment:
            raise ValueError(f"a {topology.value} URL takes no ?options or #fragment; {_forms(url)}")
        userinfo, _, hosts = parts.netloc.rpartition("@")
        username, _, password = userinfo.partition(":")
        service, db = _path(topology, parts.path)
        return cls(
            topology, url, _nodes(hosts, DEFAULT_PORTS[topology], url), service, db,
            unquote(username) or None, unquote(password) or None, tls,
        )

    @classmethod
    def _single(cls, url: str) -> RedisAddress:
        try:
            parse_url(url)
            parts = urlsplit(url)
        except ValueError:
            raise ValueError(SINGLE_FORMS) from None
        database = parts.path.lstrip("/")
        if parts.scheme != "unix" and database and not _DIGITS.fullmatch(database):
            # redis-py would ignore it, or read another script's digits as a number
            raise ValueError("its database is a whole number")
        return cls(Topology.SERVER, url)


def _forms(url: str) -> str:
    """What to use instead, for a message about ``url``."""
    scheme = url.partition("://")[0].lower()
    if scheme in _SCHEMES:
        return "use " + (SENTINEL_FORM if _SCHEMES[scheme][0] is Topology.SENTINEL else CLUSTER_FORM)
    return SINGLE_FORMS


def _nodes(hosts: str, default_port: int, url: str) -> tuple[tuple[str, int], ...]:
    """``host:port`` pairs separated by commas; at least one."""
    nodes = []
    for piece in hosts.split(","):
        match = _NODE.fullmatch(piece)
        host, port = (match["host"], match["port"]) if match else ("", None)
        if host.startswith("["):
            host = host[1:-1]
            try:
                ipaddress.IPv6Address(host)
            except ValueError:
                host = ""
        if not host or (port is not None and not (_DIGITS.fullmatch(port) and 1 <= int(port) <= 65535)):
            raise ValueError(f"{piece!r} is not HOST:PORT (a port from 1 to 65535); {_forms(url)}")
        nodes.append((host, default_port if port is None else int(port)))
    return tuple(nodes)


def _path(topology: Topology, path: str) -> tuple[str, int]:
    """The Sentinel service and database of a URL's path; a cluster's has database 0 only."""
    pieces = [piece for piece in path.split("/") if piece]
    if topology is Topology.CLUSTER:
        if pieces not in ([], ["0"]):
            raise ValueError(f"a Redis Cluster has database 0 only; use {CLUSTER_FORM}")
        return "", 0
    if not pieces or not _SERVICE.fullmatch(pieces[0]) or len(pieces) > 2:
        raise ValueError(f"name the Sentinel service (letters, digits, '.', '_', '-') after the sentinels; "
                         f"use {SENTINEL_FORM}")
    if len(pieces) == 2 and not _DIGITS.fullmatch(pieces[1]):
        raise ValueError("its database is a whole number")
    return pieces[0], int(pieces[1]) if len(pieces) == 2 else 0
