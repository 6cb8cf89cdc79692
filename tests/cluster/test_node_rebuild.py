"""The operator's way back for a NATS node whose store cannot be trusted (docs/operations.md,
"Durability"): a node whose raft snapshot is corrupt exits at its start (``Can't start
JetStream: raft: snapshot corrupt``); ``NatsCluster.recover_node`` sees it, removes the node's
store and starts it empty, and it copies every stream back from its peers."""

from __future__ import annotations

import asyncio
import time

import pytest

from libs.devstack import NatsCluster
from libs.devstack.processes import StartError
from libs.platform.natsconn import close_nats, connect_nats

pytestmark = pytest.mark.integration

MESSAGES = 50


async def _publish(url: str) -> None:
    nc = await connect_nats(url)
    try:
        await nc.jetstream().add_stream(name="T", subjects=["t.>"], num_replicas=3)
        deadline = time.monotonic() + 30
        published = 0
        while published < MESSAGES:  # a new stream answers once its replicas elected a leader
            try:
                await nc.jetstream(timeout=2).publish(
                    "t.a", b"x", headers={"Nats-Msg-Id": str(published)}
                )
                published += 1
            except Exception:
                assert time.monotonic() < deadline, "the stream never took the messages"
                await asyncio.sleep(0.2)
    finally:
        await close_nats(nc)


async def _replica_of(url: str, name: str) -> tuple[int, bool, int]:
    """T's messages, and whether node ``name``'s replica is current and how far behind."""
    nc = await connect_nats(url)
    try:
        info = await nc.jetstream().stream_info("T")
        assert info.cluster is not None
        peers = [info.cluster.leader, *(r.name for r in info.cluster.replicas or [])]
        replica = next((r for r in info.cluster.replicas or [] if r.name == name), None)
        if replica is None:  # it leads T now
            assert info.cluster.leader == name, peers
            return int(info.state.messages), True, 0
        return int(info.state.messages), bool(replica.current), int(replica.lag or 0)
    finally:
        await close_nats(nc)


def test_a_node_with_a_corrupt_raft_snapshot_is_rebuilt_from_its_peers(
    nats_cluster: NatsCluster,
) -> None:
    asyncio.run(_publish(nats_cluster.url))
    node = nats_cluster.node(2)
    node.kill()
    # the meta group's newest snapshot is garbage (as a torn write leaves one)
    snapshots = node.store_dir / "jetstream" / "$SYS" / "_js_" / "_meta_" / "snapshots"
    snapshots.mkdir(parents=True, exist_ok=True)
    (snapshots / "snap.999.999").write_bytes(b"\0" * 64)
    rebuilt: list[str] = []
    nats_cluster.recover_node(2, current_within=10.0, timeout=60.0, rebuilding=rebuilt.append)
    assert len(rebuilt) == 1 and "snapshot corrupt" in rebuilt[0], rebuilt
    assert node.running
    assert asyncio.run(_replica_of(nats_cluster.url, "n2")) == (MESSAGES, True, 0)
    assert not (snapshots / "snap.999.999").exists()


def test_a_node_is_not_wiped_when_its_peers_have_no_leader_to_copy_from(
    nats_cluster: NatsCluster,
) -> None:
    """With the others unable to lead (here: both down; after a power cut of every node under
    the default fsync policy: every replica waiting for a leader) a rebuild would only lose
    what this node holds: it is refused, the node left running on its store."""
    asyncio.run(_publish(nats_cluster.url))
    nats_cluster.node(0).kill()
    nats_cluster.node(1).kill()
    with pytest.raises(StartError, match="no leader"):
        nats_cluster.rebuild_node(2, timeout=2.0)
    node = nats_cluster.node(2)
    assert node.running and (node.store_dir / "jetstream").is_dir()
