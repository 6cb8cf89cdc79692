"""The faults ``holdem nemesis`` injects, a registry (``FAULTS``): each is made for a run's
nats-server, whose JetStream store lives on the lazy filesystem (libs/nemesis/lazymount.py), and
has a ``start`` and a ``heal`` (blocking: run off the event loop).

- ``lose-unsynced``: the power fails under the server: it dies (SIGKILL) and every page it
  had not fsynced is dropped (``LazyMount.crash``); healed by starting it again on its store;
- ``kill-nats``: the process dies (SIGKILL), the operating system keeps its pages; started again;
- ``pause-nats``: the process is stopped (SIGSTOP) and wakes up (SIGCONT) at the heal;
- ``disk-full``: writes fail (ENOSPC) until the heal gives the space back.

Faults of the network (isolating the stream leader or a table replica, splits, flapping links,
delay and loss) are ``nemesis_netfaults``'s (``holdem nemesis --network``).
"""

from __future__ import annotations

import os
import signal
from collections.abc import Callable, Mapping
from dataclasses import dataclass

from libs.devstack import NatsServer
from libs.nemesis.lazymount import LazyMount

__all__ = ["FAULTS", "Fault", "Rig", "parse_faults"]


@dataclass
class Rig:
    """What the faults act on: the nats-server and the lazy filesystem under its store."""

    nats: NatsServer
    disk: LazyMount
    lost_bytes: int = 0  # unsynced bytes the power cuts dropped


@dataclass(frozen=True)
class Fault:
    name: str
    start: Callable[[], object]
    heal: Callable[[], object]


def _lose_unsynced(rig: Rig) -> Fault:
    def start() -> None:
        rig.nats.kill()
        rig.lost_bytes += rig.disk.crash()

    return Fault("lose-unsynced", start, lambda: rig.nats.restart(timeout=60.0))


def _kill_nats(rig: Rig) -> Fault:
    return Fault("kill-nats", lambda: rig.nats.kill(), lambda: rig.nats.restart(timeout=60.0))


def _pause_nats(rig: Rig) -> Fault:
    def signal_it(sig: signal.Signals) -> Callable[[], None]:
        return lambda: os.kill(rig.nats.pid, sig)

    return Fault("pause-nats", signal_it(signal.SIGSTOP), signal_it(signal.SIGCONT))


def _disk_full(rig: Rig) -> Fault:
    return Fault("disk-full", lambda: rig.disk.fill(True), lambda: rig.disk.fill(False))


#: What ``--faults`` may name (``all``: every one).
FAULTS: dict[str, Callable[[Rig], Fault]] = {
    "lose-unsynced": _lose_unsynced,
    "kill-nats": _kill_nats,
    "pause-nats": _pause_nats,
    "disk-full": _disk_full,
}


def parse_faults(text: str, registry: Mapping[str, object] = FAULTS) -> tuple[str, ...]:
    """``"kill-nats,pause-nats"`` or ``"all"`` -> the names of ``registry`` (the process faults
    unless told: ``nemesis_netfaults.NET_FAULTS``); ValueError naming unknown ones."""
    if text.strip() == "all":
        return tuple(registry)
    names = tuple(dict.fromkeys(n.strip() for n in text.split(",") if n.strip()))
    unknown = [n for n in names if n not in registry]
    if unknown or not names:
        raise ValueError(
            f"unknown fault(s) {', '.join(unknown) or '(none)'}: choose from "
            f"{', '.join(registry)} or all"
        )
    return names
