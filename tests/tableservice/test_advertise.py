"""HOLDEM_TABLE_ADVERTISE_ADDR: where a replica tells callers to reach it
(services/table/config.py ``advertise_address``)."""

from __future__ import annotations

import socket

import pytest

from services.table.config import advertise_address


def test_set_explicitly_it_is_announced_as_is() -> None:
    assert advertise_address("10.1.2.3:50053", "0.0.0.0:50053") == "10.1.2.3:50053"


def test_auto_is_the_listen_address_with_a_concrete_host() -> None:
    assert advertise_address("auto", "127.0.0.1:7001") == "127.0.0.1:7001"


@pytest.mark.parametrize("listen", ["0.0.0.0:50053", "[::]:50053", ":50053"])
def test_auto_with_a_wildcard_host_is_this_hosts_address(listen: str) -> None:
    address = advertise_address("auto", listen)
    assert address is not None
    host, _, port = address.rpartition(":")
    assert port == "50053"
    assert host not in ("0.0.0.0", "[::]", "::", "")
    assert host in (socket.gethostname(), socket.gethostbyname(socket.gethostname()))


def test_auto_with_port_zero_announces_nothing() -> None:
    """The port is chosen at bind time: callers keep using HOLDEM_TABLE_ADDR."""
    assert advertise_address("auto", "127.0.0.1:0") is None
