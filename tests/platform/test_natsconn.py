"""HOLDEM_NATS_URL takes one URL or a cluster's nodes comma-separated; HOLDEM_NATS_REPLICAS is
the replica count of what the services create."""

from __future__ import annotations

import pytest

from libs.devstack.services import service_key_env
from libs.platform.config import load_platform_config
from libs.platform.configvars import ConfigError
from libs.platform.natsconn import nats_servers

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
    import asyncio
    import os
    import signal
    import time

    from libs.devstack import start_nats
    from libs.platform.natsconn import connect_nats, nats_readiness

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
