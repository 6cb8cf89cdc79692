"""A tournament table that seats the whole field sends its bots' Decide requests with the
prizes (``TableConfig.tournament_payouts``, ``tournament_whole_field``), real table service and
an ai service stand-in that records every request; a table holding part of a field sends none."""

from __future__ import annotations

import time
import uuid
from collections.abc import Iterator
from concurrent import futures
from functools import partial

import grpc
import pytest
from holdem.ai.v1 import ai_pb2_grpc
from holdem.common.v1 import common_pb2
from holdem.table.v1 import table_pb2

from libs.devstack.tablestub import table_as
from tests.services.conftest import Starter
from tests.services.lobby_stack import retry
from tests.services.test_table_bots import PATIENT, _Spy, _table

pytestmark = pytest.mark.integration

PAYOUTS = [650_000, 350_000]


@pytest.fixture
def spy() -> Iterator[tuple[_Spy, str]]:
    servicer = _Spy()
    server = grpc.server(futures.ThreadPoolExecutor(max_workers=4))
    ai_pb2_grpc.add_AiServiceServicer_to_server(servicer, server)
    port = server.add_insecure_port("127.0.0.1:0")
    server.start()
    try:
        yield servicer, f"127.0.0.1:{port}"
    finally:
        server.stop(grace=None)


def _tournament_table(whole_field: bool) -> common_pb2.TableConfig:
    return common_pb2.TableConfig(
        variant=common_pb2.VARIANT_HOLDEM,
        betting_structure=common_pb2.BETTING_STRUCTURE_NO_LIMIT,
        max_seats=3,
        small_blind=10,
        big_blind=20,
        action_clock_seconds=30,
        tournament=True,
        tournament_payouts=PAYOUTS,
        tournament_whole_field=whole_field,
    )


def _one_hand(address: str, config: common_pb2.TableConfig, servicer: _Spy) -> str:
    """Open the table, seat three bots, release hand 1 and wait for a bot's request."""
    table_id = f"t{uuid.uuid4().hex[:8]}"
    with table_as(address) as stub:

        def submit(key: str, **command: object) -> None:
            request = table_pb2.SubmitCommandRequest(
                table_id=table_id,
                idempotency_key=key,
                **command,  # type: ignore[arg-type]
            )
            retry(partial(stub.SubmitCommand, request, timeout=60))

        submit("open", open_table=table_pb2.OpenTable(config=config))
        for i in range(3):
            sitting = table_pb2.SeatPlayer(
                player_id=f"bot{i}",
                seat=i,
                buy_in=300,
                is_bot=True,
                bot_difficulty=common_pb2.BOT_DIFFICULTY_HARD,
            )
            submit(f"seat-{i}", seat_player=sitting)
        release = table_pb2.ReleaseHand(number=1, small_blind=10, big_blind=20)
        submit("release-1", release_hand=release)
    deadline = time.monotonic() + 60
    while not any(r.view.table_id == table_id for r in list(servicer.requests)):
        assert time.monotonic() < deadline, "no bot was asked to act"
        time.sleep(0.1)
    return table_id


def test_a_whole_field_table_sends_its_bots_the_prizes(
    start: Starter, nats_url: str, redis_url: str, spy: tuple[_Spy, str]
) -> None:
    servicer, address = spy
    table = _table(start, nats_url, redis_url, address, HOLDEM_TABLE_AI_TIMEOUT_MS=PATIENT)
    whole = _one_hand(table.address, _tournament_table(True), servicer)
    part = _one_hand(table.address, _tournament_table(False), servicer)
    asked = {t: [r for r in servicer.requests if r.view.table_id == t] for t in (whole, part)}
    assert asked[whole] and all(
        list(r.prizes.payouts) == PAYOUTS and not r.prizes.other_stacks for r in asked[whole]
    )
    assert asked[part] and not any(r.HasField("prizes") for r in asked[part])
