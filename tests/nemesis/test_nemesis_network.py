"""``holdem nemesis --network``: each network fault, in a short run of its own, under a 3-node
NATS cluster and two table replicas on hosts of their own (network namespaces: root, as
tests/nemesis/test_network.py), loses no acknowledged commit, applies none twice, leaves no gap
and conserves chips; an isolated replica gets nothing acknowledged while cut off and the other
takes its tables over. A machine without ip/nft fails saying so (require_tools), never skips."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from libs.cli.nemesis_check import Acknowledged, History, isolation
from libs.cli.nemesis_faults import parse_faults
from libs.cli.nemesis_netfaults import NET_FAULTS


def test_an_ack_to_a_cut_off_replica_is_caught_and_a_takeover_counted() -> None:
    """The isolation check can fail: an append acknowledged to the cut-off replica past the
    grace counts; the other replica's appends on its tables meanwhile are the takeover."""
    acks = [
        Acknowledged("t0", 1, "a", 0.5, "r0"),  # before: t0 is r0's
        Acknowledged("t1", 2, "b", 0.6, "r1"),
        Acknowledged("t0", 3, "c", 1.2, "r0"),  # within the grace: on the wire already
        Acknowledged("t0", 4, "d", 3.0, "r1"),  # the takeover
        Acknowledged("t1", 5, "e", 3.5, "r1"),  # r1's own table: no takeover
    ]
    history = History(list(acks))
    assert isolation(history, [("r0", "r1", 1.0, 5.0)], 0.5) == (0, 1)
    history.acknowledged.append(Acknowledged("t0", 6, "f", 4.0, "r0"))  # landed while cut off
    assert isolation(history, [("r0", "r1", 1.0, 5.0)], 0.5) == (1, 1)


def test_network_fault_names() -> None:
    assert parse_faults("all", NET_FAULTS) == tuple(NET_FAULTS)
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
    assert done.returncode == 0, (report, done.stderr[-3000:])
    assert report["faults"] and set(report["faults"]) == {fault}
    assert report["acknowledged"] > 0 and report["closed"]
    assert (report["lost"], report["duplicated"], report["gaps"]) == (0, 0, 0)
    assert report["chips_conserved"] and report["acked_while_isolated"] == 0
    if fault == "isolate-replica":
        assert report["taken_over"] > 0, report
