"""The dealer as a real process (``python -m services.dealer``) on a real redis-server."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from holdem.dealer.v1 import dealer_pb2_grpc

from libs.devstack.identity import channel_as
from tests.services.conftest import ServiceProcess, start_service

StartDealer = Callable[..., ServiceProcess]


@pytest.fixture
def start_dealer(tmp_path: Path, redis_url: str) -> Iterator[StartDealer]:
    """``start_dealer(redis_url=...)`` -> a running dealer, killed after the test."""
    started: list[ServiceProcess] = []

    def _start(redis_url: str = redis_url) -> ServiceProcess:
        dealer = start_service("dealer", tmp_path, {"HOLDEM_REDIS_URL": redis_url})
        started.append(dealer)
        return dealer

    yield _start
    for dealer in started:
        dealer.kill()


@pytest.fixture(scope="session")
def dealer_process(
    tmp_path_factory: pytest.TempPathFactory, redis_url: str
) -> Iterator[ServiceProcess]:
    """One dealer shared by the dealer tests (each test uses its own table ids)."""
    dealer = start_service(
        "dealer", tmp_path_factory.mktemp("dealer"), {"HOLDEM_REDIS_URL": redis_url}
    )
    yield dealer
    dealer.stop()


@pytest.fixture(scope="session")
def dealer(dealer_process: ServiceProcess) -> Iterator[dealer_pb2_grpc.DealerServiceStub]:
    with channel_as(dealer_process.address, "table") as channel:
        yield dealer_pb2_grpc.DealerServiceStub(channel)
