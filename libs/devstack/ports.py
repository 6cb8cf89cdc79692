"""Ports for servers that are killed and started again on the same one (``restartable_port``):
below the kernel's ephemeral range, which the outgoing connections of every process on the
machine draw their local ports from, so none of them can take the port while its server is
down. ``free_port`` (libs.devstack.processes) is for the rest."""

from __future__ import annotations

import random
import socket
from pathlib import Path

from .processes import LOOPBACK, free_port

__all__ = ["RESTARTABLE_FROM", "restartable_port", "restartable_ports"]


def restartable_port(host: str = LOOPBACK, rng: random.Random | None = None) -> int:
    """A free TCP port for a server that is killed and started again on it: one below the
    kernel's ephemeral range, which the outgoing connections of every process on the machine
    draw their local ports from. A port from ``free_port`` lies inside that range, and while
    its server is down a client's connection can take it, so the restart cannot listen
    ("Address already in use"; seen in CI). A port outside the range is taken only by another
    server choosing it."""
    low = _ephemeral_low()
    chooser = rng or random.Random()
    for _ in range(200):
        port = chooser.randrange(RESTARTABLE_FROM, low)
        with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
            try:
                sock.bind((host, port))
            except OSError:
                continue
        return port
    return free_port(host)  # the whole range taken: the old way


def restartable_ports(host: str, count: int, rng: random.Random | None = None) -> list[int]:
    """``count`` distinct ``restartable_port``s (a cluster's nodes and routes)."""
    chosen: list[int] = []
    for _ in range(100 * count):
        port = restartable_port(host, rng)
        if port not in chosen:
            chosen.append(port)
        if len(chosen) == count:
            return chosen
    raise OSError(f"no {count} distinct free ports on {host}")


#: Where ``restartable_port`` looks (up to the ephemeral range's start).
RESTARTABLE_FROM = 20_000


def _ephemeral_low() -> int:
    """The first port of the kernel's ephemeral range (Linux's default when unreadable)."""
    try:
        low = int(Path("/proc/sys/net/ipv4/ip_local_port_range").read_text().split()[0])
    except (OSError, ValueError, IndexError):
        low = 32_768
    return max(low, RESTARTABLE_FROM + 1000)
