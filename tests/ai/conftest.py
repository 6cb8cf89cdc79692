"""The ai service as a subprocess and a stub to it (tools' identity), one per test module that
asks for them (tests/ai/test_service.py, test_policy_service.py)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from holdem.ai.v1 import ai_pb2_grpc

from libs.devstack.identity import channel_as
from tests.services.conftest import ServiceProcess, start_service, stop_all


@pytest.fixture(scope="module")
def ai(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServiceProcess]:
    service = start_service("ai", tmp_path_factory.mktemp("ai"))
    try:
        yield service
    finally:
        stop_all([service])


@pytest.fixture(scope="module")
def stub(ai: ServiceProcess) -> Iterator[ai_pb2_grpc.AiServiceStub]:
    with channel_as(ai.address) as channel:
        yield ai_pb2_grpc.AiServiceStub(channel)
