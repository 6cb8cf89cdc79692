"""HOLDEM_NATS_URL takes one URL or a cluster's nodes comma-separated; HOLDEM_NATS_REPLICAS is
the replica count of what the services create."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import signal
import socket
import time

import pytest

from libs.devstack.services import service_key_env
from libs.platform.config import load_platform_config
from libs.platform.configvars import ConfigError
from libs.platform.natsconn import connect_nats, nats_readiness, nats_servers

#: Every service needs its service-token keys (libs.platform.identity).
keyed = service_key_env


def test_a_cluster_url_lists_every_node() -> None:
    platform, _ = load_platform_config(
        "table",
        {
            **keyed("table"),
            "HOLDEM_NATS_URL": "nats://a:4222, nats://b:4222,nats://c:4222",
            "HOLDEM_NATS_REPLICAS": "3",
        },
    )
    assert platform.nats_url == "nats://a:4222,nats://b:4222,nats://c:4222"
    assert nats_servers(platform.nats_url) == ["nats://a:4222", "nats://b:4222", "nats://c:4222"]
    assert platform.nats_replicas == 3


def test_one_url_and_one_replica_by_default() -> None:
    platform, _ = load_platform_config("table", keyed("table"))
    assert nats_servers(platform.nats_url) == ["nats://127.0.0.1:4222"]
    assert platform.nats_replicas == 1


@pytest.mark.parametrize(
    ("name", "value"),
    [
        ("HOLDEM_NATS_URL", "nats://a:4222,http://b:4222"),
        ("HOLDEM_NATS_URL", ","),
        ("HOLDEM_NATS_REPLICAS", "0"),
        ("HOLDEM_NATS_REPLICAS", "7"),
    ],
)
def test_bad_values_are_named(name: str, value: str) -> None:
    with pytest.raises(ConfigError) as err:
        load_platform_config("table", {**keyed("table"), name: value})
    assert [n for n, _ in err.value.problems] == [name]


@pytest.mark.integration
def test_a_hung_nats_server_reads_as_not_connected_within_seconds_and_comes_back() -> None:
    """A server that stops answering without closing the connection (SIGSTOP) is noticed by
    the pings (readiness NOT_SERVING well within half a minute, not nats-py's minutes), and the
    client is connected again once the server answers again, without a restart."""
    from libs.devstack import start_nats

    async def main(url: str, pid: int) -> None:
        nc = await connect_nats(url)
        try:
            assert nats_readiness(nc) is None
            os.kill(pid, signal.SIGSTOP)
            started = time.monotonic()
            try:
                while nats_readiness(nc) is None:
                    assert time.monotonic() - started < 30, "still SERVING on a hung NATS"
                    await asyncio.sleep(0.2)
            finally:
                os.kill(pid, signal.SIGCONT)
            started = time.monotonic()
            while nats_readiness(nc) is not None:
                assert time.monotonic() - started < 30, "did not reconnect"
                await asyncio.sleep(0.2)
            await nc.flush(timeout=5)
        finally:
            await nc.close()

    with start_nats() as server:
        assert server.pid is not None
        asyncio.run(main(server.url, server.pid))


def test_a_client_says_it_waits_for_a_nats_it_cannot_reach_naming_it_without_its_password(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """Before its first connection a client tries without end (a service waits for its NATS):
    it warns while it does, or a service given a wrong or dead NATS would wait without a word."""
    with socket.socket() as free:
        free.bind(("127.0.0.1", 0))
        closed = free.getsockname()[1]
    url = f"nats://lobby:s3cret@127.0.0.1:{closed}"

    async def main() -> None:
        waiting = asyncio.ensure_future(connect_nats(url))
        try:
            started = time.monotonic()
            while not any("waiting for" in r.getMessage() for r in caplog.records):
                assert time.monotonic() - started < 10, "no warning while NATS cannot be reached"
                assert not waiting.done(), waiting
                await asyncio.sleep(0.05)
        finally:
            waiting.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await waiting

    with caplog.at_level(logging.WARNING, logger="holdem.nats"):
        asyncio.run(main())
    (warning,) = [r.getMessage() for r in caplog.records if "waiting for" in r.getMessage()]
    assert f"nats://lobby:***@127.0.0.1:{closed}" in warning
    assert "s3cret" not in warning
