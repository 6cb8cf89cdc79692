"""``holdem nemesis --network``: each fault of the cluster, in a short run of its own, under a
3-node NATS cluster, two table replicas, Redis, the lobby and the gateway on hosts of their own
(network namespaces: root, as tests/nemesis/test_network.py; the disk faults put each node's
store on a lazy filesystem: FUSE), with players playing through the gateway, loses no
acknowledged commit, applies none twice, leaves no gap and conserves chips; an isolated replica
gets nothing into the stream while cut off, a paused one nothing stale once it wakes, and the
other takes their tables over. Every service is a process in its own namespace, and the report
lists each with its namespace and pid. A machine without ip/nft or FUSE fails saying so
(require_tools, require_fuse), never skips."""

from __future__ import annotations

import asyncio
import json
import random
import socket
import subprocess
import sys
from types import SimpleNamespace
from typing import Any, cast

import pytest
from holdem.common.v1 import common_pb2

from libs.cli.nemesis_check import (
    Acknowledged,
    History,
    acked_while_cut_off,
    attributed,
    landed_while_cut_off,
    read_streams,
    stale_after_waking,
    taken_over,
)
from libs.cli.nemesis_client import Table
from libs.cli.nemesis_faults import parse_faults
from libs.cli.nemesis_netfaults import DISK_FAULTS, NET_FAULTS, NetRig
from libs.cli.nemesis_replicas import HostedService
from libs.eventstore import Commit
from libs.table import TableConfig
from libs.table.events import TableOpened
from libs.tableproto.envelope import encode_commit
from services.table.commits import WRITER_HEADER

#: how long a step may take before the test calls it a hang
GUARD = 30.0


def test_the_other_replicas_commits_on_a_cut_off_replicas_tables_are_a_takeover() -> None:
    """Appends the other replica made, while one was cut off, on tables the cut-off one had
    committed to before count as taken over; on its own tables, or outside the cut, they do not."""
    acks = [
        Acknowledged("t0", 1, "a", 0.5, "r0"),  # before: t0 is r0's
        Acknowledged("t1", 2, "b", 0.6, "r1"),
        Acknowledged("t0", 3, "c", 1.2, "r0"),  # r0's own, while cut off: not a takeover
        Acknowledged("t0", 4, "d", 3.0, "r1"),  # the takeover
        Acknowledged("t1", 5, "e", 3.5, "r1"),  # r1's own table: no takeover
        Acknowledged("t0", 6, "f", 5.5, "r1"),  # after the heal
    ]
    history = History(list(acks))
    assert taken_over(history, [("r0", "r1", 1.0, 5.0)]) == 1
    assert taken_over(history, [("r1", "r0", 1.0, 5.0)]) == 0  # r0 took none of r1's tables
    history.acknowledged.append(Acknowledged("t0", 7, "g", 4.0, "r1"))
    assert taken_over(history, [("r0", "r1", 1.0, 5.0)]) == 2


def _commit(sequence: int, msg_id: str, writer: str, at: float) -> Commit:
    """A stored commit ``writer`` appended, recorded at ``at`` (seconds since the epoch)."""
    opened = TableOpened("t0", TableConfig(seats=3), at)
    data = encode_commit("t0", [opened], msg_id, "OpenTable", at, False)
    return Commit("t0", sequence, msg_id, data, {WRITER_HEADER: writer})


def test_what_the_client_saw_is_attributed_to_the_writer_the_stream_names() -> None:
    """Through the gateway the client cannot see which replica answered: each acknowledged
    commit's writer is the one its commit in the stream names; one not there is nobody's."""
    streams = {"t0": [_commit(1, "a", "r0", 100.0), _commit(2, "b", "r1", 101.0)]}
    history = History([Acknowledged("t0", 2, "b", 1.0), Acknowledged("t0", 3, "c", 2.0)])
    assert [a.by for a in attributed(history, streams).acknowledged] == ["r1", ""]


def test_a_commit_a_cut_off_replica_got_into_the_stream_is_caught() -> None:
    """Whether or not anyone saw it acknowledged, a commit the cut-off replica recorded while
    cut off (past the grace) counts; one recorded before, or by the other, does not."""
    epoch = 1000.0  # the run's zero, on the wall clock
    streams = {
        "t0": [
            _commit(1, "a", "r0", epoch + 0.9),  # before the cut
            _commit(2, "b", "r0", epoch + 1.2),  # within the grace: on the wire already
            _commit(3, "c", "r1", epoch + 3.0),  # the other replica's
        ]
    }
    cut = [("r0", "r1", 1.0, 5.0)]
    assert landed_while_cut_off(streams, cut, 0.5, epoch) == set()
    # a retry answered after the cut began with r0's commit from before it: not while cut off
    late = History([Acknowledged("t0", 1, "a", 3.0), Acknowledged("t0", 3, "c", 3.5)])
    assert acked_while_cut_off(attributed(late, streams), set()) == 0
    streams["t0"].append(_commit(4, "d", "r0", epoch + 4.0))
    landed = landed_while_cut_off(streams, cut, 0.5, epoch)
    assert landed == {("t0", 4)}
    assert acked_while_cut_off(late, landed) == 0  # landed, seen by nobody
    late.acknowledged.append(Acknowledged("t0", 4, "d", 4.1))
    assert acked_while_cut_off(late, landed) == 1


def test_a_stale_ack_to_a_woken_replica_is_caught() -> None:
    """A paused replica's appends that landed before the other took its table over count not,
    whenever their answer was read, nor does a clean handover back; one that lands between the
    other's commits there, within the lease's time after waking, does (and one on a table
    nobody took over does not)."""
    acks = [
        Acknowledged("t0", 1, "a", 0.5, "r0"),
        Acknowledged("t0", 2, "b", 5.0, "r0"),  # sent before the pause, its answer read late
        Acknowledged("t0", 3, "c", 3.0, "r1"),  # the takeover, while r0 slept (1.0 to 5.0)
        Acknowledged("t1", 4, "d", 5.2, "r0"),  # a table r1 never touched
        Acknowledged("t0", 9, "e", 7.0, "r0"),  # past the window: r0 may hold t0 again
    ]
    history = History(list(acks))
    assert stale_after_waking(history, [("r0", "r1", 1.0, 5.0)], 1.0) == 0
    history.acknowledged.append(Acknowledged("t0", 5, "f", 5.3, "r0"))  # woke and wrote
    # alone, a clean handover back (r1 gave t0 up and wrote no more there)
    assert stale_after_waking(history, [("r0", "r1", 1.0, 5.0)], 1.0) == 0
    history.acknowledged.append(Acknowledged("t0", 6, "g", 5.4, "r1"))  # r1 still wrote there
    assert stale_after_waking(history, [("r0", "r1", 1.0, 5.0)], 1.0) == 1


def test_reading_the_streams_of_a_cluster_that_is_gone_ends() -> None:
    """The run's last step reads every table's stream; with every node gone it gives up at its
    deadline (the report's fields are then null) instead of connecting for ever."""
    with socket.socket() as free:
        free.bind(("127.0.0.1", 0))
        url = f"nats://127.0.0.1:{free.getsockname()[1]}"

    async def attempt() -> BaseException | None:
        task = asyncio.ensure_future(read_streams(url, ["t0"], seconds=1.0))
        done, _ = await asyncio.wait({task}, timeout=GUARD)
        assert task in done, "still connecting to a cluster that is gone"
        return task.exception()

    assert isinstance(asyncio.run(attempt()), TimeoutError)


def test_what_each_node_kept_is_read_from_its_own_replica() -> None:
    """When the table stream never serves again the report says what each node's own replica
    holds (its /jsz, no leader needed); a node that does not answer holds nothing known."""

    class Node:
        def __init__(self, jsz: dict[str, Any] | None) -> None:
            self.jsz = jsz

        def monitor_json(self, endpoint: str) -> dict[str, Any] | None:
            return self.jsz

    def holding(messages: int) -> dict[str, Any]:
        streams = [
            {"name": "KV_holdem_table_leases", "state": {"messages": 7}},
            {"name": "HOLDEM_TABLES", "state": {"messages": messages}, "cluster": {}},
        ]
        return {"account_details": [{"stream_detail": streams}]}

    cluster = SimpleNamespace(nodes=[Node(holding(1489)), Node(None), Node(holding(0))])
    rig = NetRig(cast(Any, None), cast(Any, cluster), [], random.Random(0), lambda: 0.0)
    assert rig.kept() == {"n0": 1489, "n1": None, "n2": 0}


def test_network_fault_names() -> None:
    assert parse_faults("all", NET_FAULTS) == tuple(NET_FAULTS)
    assert set(NET_FAULTS) > DISK_FAULTS and "pause-replica" in NET_FAULTS
    assert parse_faults("split,flap", NET_FAULTS) == ("split", "flap")
    with pytest.raises(ValueError, match="unknown fault"):
        parse_faults("kill-nats", NET_FAULTS)  # a process fault, not one of the network's


@pytest.mark.integration
@pytest.mark.timeout(300)
@pytest.mark.parametrize("fault", list(NET_FAULTS))
def test_each_network_fault_loses_nothing_acknowledged(fault: str) -> None:
    argv = [sys.executable, "-m", "libs.cli.main", "nemesis", "--network", "--faults", fault]
    argv += ["--duration", "2", "--seed", "5", "--tables", "2", "--json"]
    done = subprocess.run(argv, capture_output=True, text=True, timeout=280, check=False)
    lines = done.stdout.strip().splitlines()
    assert lines, done.stderr[-3000:]
    report = json.loads(lines[-1])
    assert done.returncode == 0, (report, done.stderr[-12000:])
    assert report["faults"] and set(report["faults"]) == {fault}
    assert report["acknowledged"] > 0 and report["closed"]
    # acknowledged through the gateway, every one written by a replica the stream names
    assert set(report["acknowledged_by"]) <= {"replica0", "replica1"}, report
    assert report["landed_while_isolated"] == 0
    assert (report["lost"], report["duplicated"], report["gaps"]) == (0, 0, 0)
    assert report["chips_conserved"] and report["acked_while_isolated"] == 0
    assert report["stale_after_waking"] == 0, report
    if fault in ("isolate-replica", "pause-replica"):
        assert report["taken_over"] > 0, report
    _assert_separate_processes(report, fault)


def _assert_separate_processes(report: dict[str, Any], fault: str) -> None:
    """Each NATS node, Redis, each table replica, the lobby and the gateway is a process of its
    own in a namespace of its own, on an address of its own; a paused replica is a process
    stopped by signal (the other served meanwhile: ``taken_over``), and an isolated one's
    commits did not land while it was cut off."""
    hosts = {host["name"]: host for host in report["hosts"]}
    processes = {"nats-n0", "nats-n1", "nats-n2", "redis", "replica0", "replica1"}
    assert set(hosts) == processes | {"lobby", "gateway"}
    assert len({h["namespace"] for h in hosts.values()}) == len(hosts)
    assert len({h["address"].rsplit(":", 1)[0] for h in hosts.values()}) == len(hosts)
    assert len({h["pid"] for h in hosts.values()}) == len(hosts)
    assert hosts["replica0"]["namespace"] == "nem-r0" and hosts["replica0"]["pid"] > 0
    assert hosts["lobby"]["namespace"] == "nem-lobby" and hosts["lobby"]["pid"] > 0
    assert hosts["gateway"]["namespace"] == "nem-gw" and hosts["gateway"]["pid"] > 0
    if fault == "pause-replica":
        stopped = [note for note in report["fault_log"] if "SIGSTOP to replica" in note]
        assert stopped, report["fault_log"]
        name, pid = stopped[0].split("SIGSTOP to ")[1].split(" (pid ")
        assert hosts[name]["pid"] == int(pid.rstrip(")"))
    if fault == "isolate-replica":
        (isolated, _other, began, healed) = report["isolated"][0]
        assert isolated in hosts and healed > began
        assert report["acked_while_isolated"] == 0


def test_a_failed_run_says_where_each_table_stood_and_what_the_services_warned(
    tmp_path: Any,
) -> None:
    """A table that did not close is described from its last answer and its refusals; each
    service's last warnings and errors are read from its log, one line each, no traceback."""
    table = Table("t0", [])
    assert table.describe() == "no view; refused {}"
    table.view = common_pb2.PlayerView(
        hand_id="h1", street=common_pb2.STREET_TURN, acting_seat=2,
        table_status=common_pb2.TABLE_STATUS_OPEN,
    )  # fmt: skip
    table.refused["muck"] = "NOT_AT_SHOWDOWN"
    said = table.describe()
    assert "hand h1 at STREET_TURN, seat 2 to act" in said and "NOT_AT_SHOWDOWN" in said
    log = tmp_path / "replica0.log"
    lines = [
        {"event": "serving", "level": "info", "timestamp": "2026-12-06T23:17:40.1Z"},
        {"event": "lease_lost", "shard": "shard-3", "level": "warning",
         "timestamp": "2026-12-06T23:17:41.250Z"},
        {"event": "adopt_loop_error", "level": "error", "exception": "Traceback ...",
         "timestamp": "2026-12-06T23:17:42.5Z"},
    ]  # fmt: skip
    log.write_text("\n".join(json.dumps(line) for line in lines) + "\nnot json\n")
    service = cast(Any, SimpleNamespace(process=SimpleNamespace(log_path=log)))
    assert HostedService.warnings(service) == [
        "23:17:41.250 lease_lost shard=shard-3",
        "23:17:42.5Z adopt_loop_error ",
    ]
    assert HostedService.warnings(service, count=1) == ["23:17:42.5Z adopt_loop_error "]
