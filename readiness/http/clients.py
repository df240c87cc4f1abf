"""Who asked: the client a request counts against, and which peers may say who that is.

A client is an address block, not an address: an IPv6 host is usually given a whole /64, so
keyed by its full 128 bits one host would be 2^64 clients, each with a share of its own
(docs/DECISIONS.md#fair-shares). IPv4 addresses count one each by default (a /32; carriers'
NAT puts many people behind one, so a wider prefix would punish them together).

Behind the edge the peer is the edge; the client's address then comes from the edge's
``X-Real-IP``, believed only from the peers the settings name (``READINESS_TRUSTED_PROXIES``):
from anyone else it would let a client choose whom its requests count against.
"""

from __future__ import annotations

import ipaddress
from collections.abc import Iterable
from dataclasses import dataclass
from functools import lru_cache

Network = ipaddress.IPv4Network | ipaddress.IPv6Network


@dataclass(frozen=True, slots=True)
class ClientPrefixes:
    """How many leading bits of an address name its client (``READINESS_CLIENT_IPV4_PREFIX``,
    ``READINESS_CLIENT_IPV6_PREFIX``)."""

    ipv4: int = 32
    ipv6: int = 64

    def of(self, address: str | None) -> str:
        """The client ``address`` belongs to (``client_key``); "" for no address."""
        return "" if address is None else client_key(address, self.ipv4, self.ipv6)


@lru_cache(maxsize=4096)
def client_key(address: str, ipv4: int = 32, ipv6: int = 64) -> str:
    """The client an address belongs to, as text: an IPv4 address by its first ``ipv4`` bits,
    an IPv6 one by its first ``ipv6`` (``2001:db8:1:2::/64``), an IPv4-mapped IPv6 address
    as the IPv4 address it maps; anything that is not an address (a Unix socket's peer) as it
    is. Cached: a client's requests come in runs."""
    ip = _ip(address)
    if ip is None:
        return address
    prefix = ipv4 if ip.version == 4 else ipv6
    if prefix >= ip.max_prefixlen:
        return str(ip)
    return str(ipaddress.ip_network((ip, prefix), strict=False))


class TrustedProxies:
    """The peers whose ``X-Real-IP`` / ``X-Forwarded-For`` name the client."""

    def __init__(self, networks: Iterable[Network]) -> None:
        self.networks = tuple(networks)
        self.trusts = lru_cache(maxsize=1024)(self._trusts)
        """Whether a peer's address (text) is in one of ``networks``; cached per peer (a
        proxy keeps its connections open, and there are few proxies)."""

    def _trusts(self, peer: str) -> bool:
        ip = _ip(peer)
        return ip is not None and any(ip in network for network in self.networks)


def _ip(address: str) -> ipaddress.IPv4Address | ipaddress.IPv6Address | None:
    """``address`` as an IP address, an IPv4-mapped IPv6 one as the IPv4 address it maps; None
    when it is not one."""
    try:
        ip = ipaddress.ip_address(address)
    except ValueError:
        return None
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
        return ip.ipv4_mapped
    return ip
