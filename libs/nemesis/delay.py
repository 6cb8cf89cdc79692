"""Delay on a host's link, made in user space: every packet the host sends waits in a netfilter
queue until this process lets it go, ``delay`` milliseconds (plus up to ``jitter``) later.

The usual tool, tc's netem qdisc, is not in every kernel (this machine's has
CONFIG_NET_SCH_NETEM unset); netfilter's queue (NFQUEUE, an iptables target) is. Run inside
the host's namespace, ``python -m libs.nemesis.delay --ms 100`` adds the iptables rule sending the
host's outgoing packets on eth0 to queue ``--queue`` (with ``--queue-bypass``: if this process
dies the packets flow undelayed), binds the queue over netlink (the nfnetlink_queue protocol,
spoken here directly: no C library needed), and gives each packet its verdict ACCEPT when its
time comes. SIGTERM removes the rule and exits.
"""

from __future__ import annotations

import argparse
import heapq
import random
import select
import signal
import socket
import struct
import subprocess
import time
from collections.abc import Iterator

NETLINK_NETFILTER = 12
NFNL_SUBSYS_QUEUE = 3
NFQNL_MSG_PACKET, NFQNL_MSG_VERDICT, NFQNL_MSG_CONFIG = 0, 1, 2
NFQA_CFG_CMD, NFQA_CFG_PARAMS = 1, 2
NFQA_PACKET_HDR, NFQA_VERDICT_HDR = 1, 2
NFQNL_CFG_CMD_BIND = 1
NFQNL_COPY_META = 1
NLM_F_REQUEST = 1
NLMSG_ERROR = 2
NF_ACCEPT = 1

_NLMSGHDR = struct.Struct("=IHHII")
_NFGENMSG = struct.Struct("!BBH")  # family, version, queue number (big-endian)
_NLATTR = struct.Struct("=HH")


def _align(n: int) -> int:
    return (n + 3) & ~3


def _attribute(kind: int, payload: bytes) -> bytes:
    size = _NLATTR.size + len(payload)
    return _NLATTR.pack(size, kind) + payload + bytes(_align(size) - size)


def _message(msg: int, queue: int, attributes: bytes, seq: int) -> bytes:
    body = _NFGENMSG.pack(socket.AF_UNSPEC, 0, queue) + attributes
    kind = (NFNL_SUBSYS_QUEUE << 8) | msg
    return _NLMSGHDR.pack(_NLMSGHDR.size + len(body), kind, NLM_F_REQUEST, seq, 0) + body


def _attributes(data: bytes) -> Iterator[tuple[int, bytes]]:
    offset = 0
    while offset + _NLATTR.size <= len(data):
        size, kind = _NLATTR.unpack_from(data, offset)
        if size < _NLATTR.size:
            return
        yield kind & 0x7FFF, data[offset + _NLATTR.size : offset + size]
        offset += _align(size)


def packet_ids(datagram: bytes) -> Iterator[int]:
    """The queued packets' ids in one netlink datagram (error answers raise OSError)."""
    offset = 0
    while offset + _NLMSGHDR.size <= len(datagram):
        size, kind, _flags, _seq, _pid = _NLMSGHDR.unpack_from(datagram, offset)
        if size < _NLMSGHDR.size:
            return
        body = datagram[offset + _NLMSGHDR.size : offset + size]
        if kind == NLMSG_ERROR:
            (code,) = struct.unpack_from("=i", body)
            if code:
                raise OSError(-code, f"nfnetlink_queue refused a request (errno {-code})")
        elif kind == (NFNL_SUBSYS_QUEUE << 8) | NFQNL_MSG_PACKET:
            for attr, payload in _attributes(body[_NFGENMSG.size :]):
                if attr == NFQA_PACKET_HDR:
                    yield struct.unpack_from("!I", payload)[0]
        offset += _align(size)


class Delayer:
    """Holds each packet of one queue for ``delay_ms`` (+ up to ``jitter_ms``) and lets it go."""

    def __init__(self, queue: int, delay_ms: float, jitter_ms: float, seed: int = 0) -> None:
        self.queue = queue
        self.delay = delay_ms / 1000
        self.jitter = jitter_ms / 1000
        self.random = random.Random(seed)
        self.sock = socket.socket(socket.AF_NETLINK, socket.SOCK_RAW, NETLINK_NETFILTER)
        self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 8 << 20)
        self.sock.bind((0, 0))
        self._seq = 0
        self._due: list[tuple[float, int]] = []
        self.passed = 0

    def _send(self, msg: int, attributes: bytes) -> None:
        self._seq += 1
        self.sock.send(_message(msg, self.queue, attributes, self._seq))

    def bind(self) -> None:
        self._send(
            NFQNL_MSG_CONFIG, _attribute(NFQA_CFG_CMD, struct.pack("!BxH", 1, socket.AF_INET))
        )
        self._send(NFQNL_MSG_CONFIG, _attribute(NFQA_CFG_PARAMS, struct.pack("!IB", 0, 1)))

    def _accept(self, packet_id: int) -> None:
        self._send(
            NFQNL_MSG_VERDICT,
            _attribute(NFQA_VERDICT_HDR, struct.pack("!II", NF_ACCEPT, packet_id)),
        )
        self.passed += 1

    def run(self, stop: list[bool]) -> None:
        while not stop:
            now = time.monotonic()
            while self._due and self._due[0][0] <= now:
                self._accept(heapq.heappop(self._due)[1])
            wait = max(0.0, self._due[0][0] - now) if self._due else 0.2
            ready, _, _ = select.select([self.sock], [], [], wait)
            if ready:
                try:
                    datagram = self.sock.recv(1 << 16)
                except OSError:  # ENOBUFS: the kernel dropped some; TCP sends them again
                    continue
                for packet_id in packet_ids(datagram):
                    due = time.monotonic() + self.delay + self.random.uniform(0, self.jitter)
                    heapq.heappush(self._due, (due, packet_id))
        for _, packet_id in self._due:  # leaving: let everything held go
            self._accept(packet_id)


def _iptables(action: str, queue: int) -> list[str]:
    return [
        "iptables", action, "OUTPUT", "-o", "eth0",
        "-j", "NFQUEUE", "--queue-num", str(queue), "--queue-bypass",
    ]  # fmt: skip


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--ms", type=float, required=True, help="delay of every packet sent")
    parser.add_argument("--jitter", type=float, default=0.0, help="plus up to this many ms")
    parser.add_argument("--queue", type=int, default=7, help="the netfilter queue number")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    delayer = Delayer(args.queue, args.ms, args.jitter, args.seed)
    delayer.bind()
    subprocess.run(_iptables("-I", args.queue), check=True)
    stop: list[bool] = []
    signal.signal(signal.SIGTERM, lambda *_: stop.append(True))
    signal.signal(signal.SIGINT, lambda *_: stop.append(True))
    print("delaying", flush=True)
    try:
        delayer.run(stop)
    finally:
        subprocess.run(_iptables("-D", args.queue), check=False)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
