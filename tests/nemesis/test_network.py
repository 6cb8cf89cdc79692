"""Hosts in network namespaces on one switch, and the network's faults: a split lets packets
pass only within each side, an isolated host reaches nobody, loss drops a share, delay holds
every packet, and healing (or stopping the delay) gives the plain network back."""

from __future__ import annotations

import subprocess
import sys
import time
from collections.abc import Iterator

import pytest

from libs.nemesis.network import Host, Network

pytestmark = pytest.mark.integration

PROBE = """
import socket, sys, time
s = socket.socket(); s.settimeout(float(sys.argv[3])); t = time.monotonic()
try:
    s.connect((sys.argv[1], int(sys.argv[2])))
except OSError:
    print(-1)
else:
    print(time.monotonic() - t)
"""
PORT = 8765


@pytest.fixture(scope="module")
def net() -> Iterator[Network]:
    with Network("tnet", subnet_index=78) as network:
        servers = []
        for name in ("a", "b", "c"):
            host = network.add_host(name)
            argv = [sys.executable, "-m", "http.server", str(PORT), "--bind", host.address]
            servers.append(
                subprocess.Popen(
                    host.wrap(argv), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
                )
            )
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline and not all(
            _connect(None, network.hosts[n]) >= 0 for n in "abc"
        ):
            time.sleep(0.1)
        yield network
        for server in servers:
            server.kill()
            server.wait()


def _connect(source: Host | None, target: Host, timeout: float = 1.0) -> float:
    """Seconds a TCP connect from ``source`` (None: this process) to ``target`` took, or -1."""
    argv = [sys.executable, "-c", PROBE, target.address, str(PORT), str(timeout)]
    done = subprocess.run(source.wrap(argv) if source else argv, capture_output=True, text=True)
    return float(done.stdout.strip())


def _reaches(net: Network, source: str | None, target: str) -> bool:
    return _connect(None if source is None else net.hosts[source], net.hosts[target]) >= 0


def test_a_split_lets_packets_pass_only_within_each_side(net: Network) -> None:
    net.partition(["a", "b"], ["c"], client_with="c")
    try:
        assert _reaches(net, "a", "b")
        assert not _reaches(net, "a", "c")
        assert not _reaches(net, "c", "b")
        assert _reaches(net, None, "c")  # the client sits with c
        assert not _reaches(net, None, "a")
    finally:
        net.heal()
    assert _reaches(net, "a", "c") and _reaches(net, None, "a")


def test_an_isolated_host_reaches_nobody_and_the_rest_still_talk(net: Network) -> None:
    net.isolate("b")
    try:
        assert not _reaches(net, "a", "b")
        assert not _reaches(net, "b", "c")
        assert _reaches(net, "a", "c")
    finally:
        net.heal()
    assert _reaches(net, "a", "b")


def test_total_loss_drops_everything_and_partial_loss_some(net: Network) -> None:
    net.loss("a", 100)
    try:
        assert not _reaches(net, "a", "b")
        assert _reaches(net, "b", "c")
    finally:
        net.heal()
    net.loss("a", 60)
    try:
        tries = [_reaches(net, "a", "b") for _ in range(12)]
    finally:
        net.heal()
    assert not all(tries)


def test_a_partition_must_place_every_host_once(net: Network) -> None:
    with pytest.raises(ValueError, match="every host"):
        net.partition(["a"], ["b"])
    with pytest.raises(ValueError, match="every host"):
        net.partition(["a", "b"], ["b", "c"])


def test_delay_holds_every_packet_the_host_sends_until_stopped(net: Network) -> None:
    a, b = net.hosts["a"], net.hosts["b"]
    assert _connect(a, b) < 0.05
    delay = [sys.executable, "-m", "libs.nemesis.delay", "--ms", "150"]
    process = subprocess.Popen(a.wrap(delay), stdout=subprocess.PIPE, text=True)
    try:
        assert process.stdout is not None and process.stdout.readline().strip() == "delaying"
        assert _connect(a, b, timeout=3) >= 0.15  # the SYN waited 150 ms
        assert _connect(b, a, timeout=3) >= 0.15  # so did the SYN-ACK the other way
        assert _connect(b, net.hosts["c"]) < 0.05  # other hosts are not slowed
    finally:
        process.terminate()
        assert process.wait(10) == 0
    assert _connect(a, b) < 0.05  # its rule went with it


def test_sweep_removes_what_a_crashed_run_left() -> None:
    leftover = Network("tleft", subnet_index=79).create()
    leftover.add_host("x")
    Network.sweep("tleft")
    namespaces = subprocess.run(["ip", "netns", "list"], capture_output=True, text=True).stdout
    assert "tleft-" not in namespaces
