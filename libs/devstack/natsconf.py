"""JetStream's sync policy, one for every nats-server we start or ship: ``sync_interval: always``.

JetStream acknowledges a publish once the message is in the operating system's page cache and
by default fsyncs every two minutes: a power cut or a kernel crash (on every node at once, or on
one node combined with a partition) loses writes it acknowledged (Jepsen, NATS 2.12.1;
tests/nemesis/test_lazyfs.py shows it here). With ``always`` each write is fsynced before it is
acknowledged (docs/operations.md, "Durability": the policy and what it costs).

``nats_config`` renders the file a server loads: the policy, then (``include``) a file of the
caller's, which may set a ``jetstream`` block of its own (it replaces this one whole: a test
that wants JetStream's default policy says so that way, or with ``sync_interval=None``).
``deploy/nats/nats.conf`` (compose) is this file rendered for the users file; the Kubernetes
ConfigMap sets the same line in its own file; tests/deploy check both on a real nats-server.
"""

from __future__ import annotations

import os
from pathlib import Path

__all__ = ["CONFIG_NAME", "SYNC_ALWAYS", "nats_config", "write_nats_config"]

#: fsync every JetStream write before acknowledging it
SYNC_ALWAYS = "always"
#: the file a ``NatsServer`` writes into its directory and starts with (``-c``)
CONFIG_NAME = "holdem-nats.conf"


def nats_config(sync_interval: str | None = SYNC_ALWAYS, include: str | None = None) -> str:
    """The configuration file: JetStream's ``sync_interval`` (None: the server's default, a
    flush every two minutes), then ``include`` (a path relative to this file: nats-server
    resolves includes from the including file's directory)."""
    lines = ["# JetStream's sync policy (libs/devstack/natsconf.py; docs/operations.md)"]
    if sync_interval is None:
        lines.append("# sync_interval: the server's default (a flush every two minutes)")
        lines.append("jetstream {}")
    else:
        lines += ["jetstream {", f"  sync_interval: {sync_interval}", "}"]
    if include is not None:
        lines.append(f'include "{include}"')
    return "\n".join(lines) + "\n"


def write_nats_config(
    directory: Path, sync_interval: str | None = SYNC_ALWAYS, include: Path | None = None
) -> Path:
    """Write ``CONFIG_NAME`` into ``directory`` (``include``, the caller's own file, referred to
    by a path relative to it) and return its path."""
    path = directory / CONFIG_NAME
    relative = None if include is None else os.path.relpath(include.resolve(), directory.resolve())
    path.write_text(nats_config(sync_interval, relative))
    return path
