"""Every nats-server the dev stack starts fsyncs each JetStream write before acknowledging it
(``sync_interval: always``, libs/devstack/natsconf.py), as the running server itself reports
(``varz``): alone, with a configuration file of the caller's, and in a cluster. The stack and
the cluster of the local stack are checked in tests/stack/test_stack_runner.py."""

from __future__ import annotations

from pathlib import Path

import pytest

from libs.devstack import NatsCluster, NatsServer
from libs.devstack.access import StackAccess
from libs.devstack.natsconf import nats_config

pytestmark = pytest.mark.integration


def test_a_nats_server_fsyncs_every_write_before_acknowledging_it() -> None:
    with NatsServer() as server:
        assert server.jetstream_config().get("sync_always") is True


def test_the_servers_default_policy_only_when_asked_for() -> None:
    """So the check above can fail: JetStream's own default is a flush every two minutes."""
    with NatsServer(sync_interval=None) as server:
        config = server.jetstream_config()
    assert config and not config.get("sync_always")
    assert config["sync_interval"] == 120 * 10**9  # nanoseconds


def test_the_policy_holds_with_a_users_file(tmp_path: Path) -> None:
    files = StackAccess.generate().write(tmp_path / "secrets")
    with NatsServer(config=files["nats.conf"], parent_dir=tmp_path) as server:
        assert server.jetstream_config().get("sync_always") is True
        assert "include" in server.config_path.read_text()


def test_a_callers_jetstream_block_replaces_the_policy(tmp_path: Path) -> None:
    """A caller's own ``jetstream`` block wins whole (how a test runs a server another way)."""
    own = tmp_path / "own.conf"
    own.write_text("jetstream {\n  sync_interval: 10s\n}\n")
    with NatsServer(config=own, parent_dir=tmp_path) as server:
        config = server.jetstream_config()
    assert not config.get("sync_always") and config["sync_interval"] == 10 * 10**9


def test_every_node_of_a_cluster_fsyncs_before_acknowledging(nats_cluster: NatsCluster) -> None:
    assert [n.jetstream_config().get("sync_always") for n in nats_cluster.nodes] == [True] * 3


def test_another_configuration_file_is_refused() -> None:
    with pytest.raises(ValueError, match="config="):
        NatsServer(extra_args=["-c", "/etc/nats/other.conf"])


def test_the_rendered_policy() -> None:
    assert nats_config(include="./users.conf") == (
        "# JetStream's sync policy (libs/devstack/natsconf.py; docs/operations.md)\n"
        "jetstream {\n  sync_interval: always\n}\n"
        'include "./users.conf"\n'
    )
