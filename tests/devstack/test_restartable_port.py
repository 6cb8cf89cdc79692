"""A server killed and started again keeps its port: ``restartable_port`` chooses it below the
kernel's ephemeral range, where no outgoing connection can take it while the server is down."""

from __future__ import annotations

import random
import socket
from pathlib import Path

import pytest

from libs.devstack import NatsCluster, start_nats, start_redis
from libs.devstack import servers as servers_module
from libs.devstack.ports import RESTARTABLE_FROM, restartable_port


def _ephemeral_low() -> int:
    return int(Path("/proc/sys/net/ipv4/ip_local_port_range").read_text().split()[0])


def test_the_port_is_free_and_below_the_ephemeral_range() -> None:
    rng = random.Random(7)
    for _ in range(50):
        port = restartable_port(rng=rng)
        assert RESTARTABLE_FROM <= port < _ephemeral_low()
        with socket.socket() as sock:
            sock.bind(("127.0.0.1", port))  # free: it binds


def test_a_taken_port_is_passed_over() -> None:
    taken = restartable_port(rng=random.Random(11))
    with socket.socket() as holder:
        holder.bind(("127.0.0.1", taken))
        holder.listen()
        # the same draw again, with the port now taken: it moves on to another
        assert restartable_port(rng=random.Random(11)) != taken


@pytest.mark.integration
def test_local_servers_and_a_clusters_nodes_listen_below_the_ephemeral_range() -> None:
    """The servers the tests kill and restart on their port: NATS and Redis started without a
    port, and every node of a cluster (client and route ports). With ports from the ephemeral
    range a restart could find its port taken by a client's connection."""
    low = _ephemeral_low()
    with start_nats() as nats, start_redis() as redis:
        assert RESTARTABLE_FROM <= nats.port < low and RESTARTABLE_FROM <= redis.port < low
        nats.kill()
        nats.restart()
        assert nats.running and RESTARTABLE_FROM <= nats.port < low
    with NatsCluster(size=3) as cluster:
        for node in cluster.nodes:
            route = int(next(a for a in node.extra_args if a.startswith("nats://")).rsplit(":")[-1])
            assert RESTARTABLE_FROM <= node.port < low and RESTARTABLE_FROM <= route < low


def test_a_port_another_server_took_first_is_chosen_again(monkeypatch: pytest.MonkeyPatch) -> None:
    """Between choosing a port and binding it another process may bind it: the server is
    started again on another."""
    with socket.socket() as holder:
        holder.bind(("127.0.0.1", 0))
        holder.listen()
        taken = holder.getsockname()[1]
        draws = iter([taken, restartable_port()])
        monkeypatch.setattr(servers_module, "restartable_port", lambda host: next(draws))
        with start_redis() as redis:
            assert redis.port != taken and redis.running
