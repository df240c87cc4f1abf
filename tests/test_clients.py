"""Who asked (readiness/http/clients.py): an address block per client, IPv6 by its /64, and
the proxies whose headers are believed."""

from __future__ import annotations

import ipaddress

import pytest

from readiness.http.clients import ClientPrefixes, TrustedProxies, client_key


@pytest.mark.parametrize(("address", "client"), [
    ("203.0.113.7", "203.0.113.7"),  # IPv4: one address, one client
    ("2001:db8:1:2:aaaa:bbbb:cccc:dddd", "2001:db8:1:2::/64"),
    ("2001:db8:1:2::1", "2001:db8:1:2::/64"),  # the same host's other address
    ("2001:DB8:1:3::1", "2001:db8:1:3::/64"),  # the next /64 is another client
    ("::ffff:203.0.113.7", "203.0.113.7"),  # IPv4-mapped: the IPv4 client
    ("not an address", "not an address"),  # a Unix socket's peer: as it is
])
def test_client_key_is_the_address_block(address: str, client: str) -> None:
    assert client_key(address) == client


def test_client_prefixes_are_configurable() -> None:
    wide = ClientPrefixes(ipv4=24, ipv6=48)
    assert wide.of("203.0.113.7") == wide.of("203.0.113.200") == "203.0.113.0/24"
    assert wide.of("2001:db8:1:2::1") == wide.of("2001:db8:1:ffff::1") == "2001:db8:1::/48"
    assert ClientPrefixes(ipv6=128).of("2001:db8::1") == "2001:db8::1"
    assert ClientPrefixes().of(None) == ""


def test_trusted_proxies_trust_their_blocks_only() -> None:
    proxies = TrustedProxies([ipaddress.ip_network("10.0.0.0/8"), ipaddress.ip_network("fd00::/8")])
    assert proxies.trusts("10.1.2.3") and proxies.trusts("fd12::1") and proxies.trusts("::ffff:10.0.0.1")
    assert not proxies.trusts("203.0.113.7") and not proxies.trusts("2001:db8::1")
    assert not proxies.trusts("unix socket")
