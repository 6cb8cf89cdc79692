"""The table service and what it depends on, over real gRPC on servers of its own: an unknown
table reads as NOT_FOUND; Redis is a cache (down: reads and commits go on, health stays
SERVING); NATS down: health NOT_SERVING and calls UNAVAILABLE, and everything works again when
it is back on the same port, without a restart; the table metrics count what was played. The
lobby and the gateway go NOT_SERVING without NATS too, and the dealer without its Redis."""

from __future__ import annotations

import re
import urllib.request
import uuid
from collections.abc import Callable, Iterator

import grpc
import pytest
from holdem.common.v1 import common_pb2
from holdem.dealer.v1 import dealer_pb2, dealer_pb2_grpc
from holdem.table.v1 import table_pb2, table_pb2_grpc

from libs.devstack import NatsServer, RedisServer, start_redis
from libs.devstack.identity import aio_channel_as, channel_as
from libs.devstack.tablestub import table_as
from libs.platform import healthcheck
from tests.conditions import wait_until_sync
from tests.services.conftest import ServiceProcess, Starter

pytestmark = pytest.mark.integration

CONFIG = common_pb2.TableConfig(
    variant=common_pb2.VARIANT_HOLDEM,
    betting_structure=common_pb2.BETTING_STRUCTURE_NO_LIMIT,
    max_seats=6,
    small_blind=1,
    big_blind=2,
    action_clock_seconds=30,
)


@pytest.fixture
def own_redis() -> Iterator[RedisServer]:
    with start_redis() as server:
        yield server


def _table(start: Starter, nats: NatsServer, redis: RedisServer) -> ServiceProcess:
    return start(
        "table",
        {
            "HOLDEM_NATS_URL": nats.url,
            "HOLDEM_REDIS_URL": redis.url,
            "HOLDEM_TABLE_DEALER": "local",
            "HOLDEM_TABLE_EVALUATOR": "local",
            "HOLDEM_TABLE_SNAPSHOT_EVERY": "5",
            "HOLDEM_METRICS_LISTEN": "127.0.0.1:0",
        },
    )


def _open_bots(stub: table_pb2_grpc.TableServiceStub, table_id: str, hands: int) -> None:
    config = common_pb2.TableConfig()
    config.CopyFrom(CONFIG)
    config.hand_limit = hands
    config.min_players_to_start = 3
    stub.SubmitCommand(
        table_pb2.SubmitCommandRequest(
            table_id=table_id, idempotency_key="open", open_table=table_pb2.OpenTable(config=config)
        )
    )
    for i in range(3):
        stub.SubmitCommand(
            table_pb2.SubmitCommandRequest(
                table_id=table_id,
                idempotency_key=f"seat-{i}",
                seat_player=table_pb2.SeatPlayer(
                    player_id=f"bot{i}", seat=i, buy_in=100, is_bot=True
                ),
            )
        )


def _state(stub: table_pb2_grpc.TableServiceStub, table_id: str) -> common_pb2.PlayerView:
    request = table_pb2.GetTableStateRequest(table_id=table_id)
    view: common_pb2.PlayerView = stub.GetTableState(request, timeout=10).view
    return view


def _history(
    stub: table_pb2_grpc.TableServiceStub, table_id: str
) -> table_pb2.GetHandHistoryResponse:
    request = table_pb2.GetHandHistoryRequest(table_id=table_id, player_id="bot0")
    answer: table_pb2.GetHandHistoryResponse = stub.GetHandHistory(request, timeout=10)
    return answer


def _hands_of_bot0(stub: table_pb2_grpc.TableServiceStub, table_id: str) -> int:
    """How many hands bot0 played, over every page of its history."""
    count, before = 0, 0
    while True:
        request = table_pb2.GetHandHistoryRequest(
            table_id=table_id, player_id="bot0", before_hand_number=before
        )
        page = stub.GetHandHistory(request, timeout=10)
        count += len(page.hands)
        if not page.more:
            return count
        before = page.hands[-1].hand_number


def _closed(stub: table_pb2_grpc.TableServiceStub, table_id: str) -> bool:
    return _state(stub, table_id).table_status == common_pb2.TABLE_STATUS_CLOSED


def _played_out(stub: table_pb2_grpc.TableServiceStub, table_id: str) -> bool:
    """True once the bot table of ``_open_bots`` is closed. A bot that busts before the hand
    limit leaves two players, fewer than the three a hand needs there, so the table would wait
    for a third for good: it is closed then (a test must not depend on who wins)."""
    view = _state(stub, table_id)
    if view.table_status == common_pb2.TABLE_STATUS_CLOSED:
        return True
    with_chips = sum(1 for seat in view.seats if seat.player_id and seat.stack > 0)
    if not view.hand_id and with_chips < view.config.min_players_to_start:
        stub.SubmitCommand(
            table_pb2.SubmitCommandRequest(
                table_id=table_id, idempotency_key="close", close_table=table_pb2.CloseTable()
            )
        )
    return False


def _answers(call: Callable[[], object]) -> bool:
    """True once ``call`` succeeds; False while it answers UNAVAILABLE (a client retries)."""
    try:
        call()
    except grpc.RpcError as exc:
        if exc.code() != grpc.StatusCode.UNAVAILABLE:
            raise
        return False
    return True


def _metrics(table: ServiceProcess) -> dict[str, float]:
    port = next(r["metrics_port"] for r in table.log_lines() if r.get("event") == "serving")
    with urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=10) as response:
        text = response.read().decode()
    values: dict[str, float] = {}
    for line in text.splitlines():
        found = re.match(r"^(holdem_table_[a-z_]+(?:\{[^}]*\})?) (\S+)$", line)
        if found:
            values[found.group(1)] = float(found.group(2))
    return values


def test_an_unknown_table_reads_as_not_found(
    start: Starter, own_nats: NatsServer, own_redis: RedisServer
) -> None:
    table = _table(start, own_nats, own_redis)
    with table_as(table.address) as stub:
        for call in (
            lambda: stub.GetTableState(table_pb2.GetTableStateRequest(table_id="never-opened")),
            lambda: stub.GetPlayerView(
                table_pb2.GetPlayerViewRequest(table_id="never-opened", player_id="p")
            ),
            lambda: stub.GetHandHistory(
                table_pb2.GetHandHistoryRequest(table_id="never-opened", player_id="p")
            ),
        ):
            with pytest.raises(grpc.RpcError) as caught:
                call()
            assert caught.value.code() == grpc.StatusCode.NOT_FOUND


def test_the_table_metrics_count_what_was_played(
    start: Starter, own_nats: NatsServer, own_redis: RedisServer
) -> None:
    table = _table(start, own_nats, own_redis)
    table_id = f"m{uuid.uuid4().hex[:8]}"
    with table_as(table.address) as stub:
        _open_bots(stub, table_id, hands=3)
        wait_until_sync(lambda: _played_out(stub, table_id), "three bot hands played")
        sequence = _state(stub, table_id).sequence
        hands = _hands_of_bot0(stub, table_id)  # bot0 was dealt every hand
    metrics = _metrics(table)
    # one table on its own NATS: its last stream sequence is the number of commits made (a
    # hand takes 4 at least: start, hole cards, one action, the seed's reveal)
    assert 1 <= hands <= 3
    assert metrics["holdem_table_commits_total"] == sequence >= 4 + hands * 4
    assert (
        metrics["holdem_table_hands_completed_total"] + metrics["holdem_table_hands_voided_total"]
        == hands
    )
    assert metrics["holdem_table_snapshot_save_seconds_count"] >= 3  # one per hand end at least
    assert metrics["holdem_table_snapshot_load_seconds_count"] >= 1
    assert metrics["holdem_table_snapshot_store_up"] == 1
    assert metrics["holdem_table_conflicts_total"] == 0
    assert "holdem_table_leases_held" in metrics
    assert "holdem_table_evaluator_fallbacks_total" in metrics


def test_redis_is_a_cache_and_nats_coming_back_needs_no_restart(
    start: Starter, own_nats: NatsServer, own_redis: RedisServer
) -> None:
    table = _table(start, own_nats, own_redis)
    table_id = f"d{uuid.uuid4().hex[:8]}"

    def health() -> str:
        return healthcheck.check(table.address, "", 2.0)

    with table_as(table.address) as stub:
        _open_bots(stub, table_id, hands=2)
        wait_until_sync(lambda: _played_out(stub, table_id), "two bot hands played")

        # Redis down: a snapshot miss, never an error; the service keeps serving.
        own_redis.kill()
        other = f"r{uuid.uuid4().hex[:8]}"
        _open_bots(stub, other, hands=2)  # commits whose snapshots cannot be written
        wait_until_sync(lambda: _played_out(stub, other), "hands played without Redis")
        assert health() == healthcheck.SERVING
        assert _metrics(table)["holdem_table_snapshot_store_up"] == 0
        own_redis.restart(timeout=20.0)

        # NATS down: NOT_SERVING, and calls answer UNAVAILABLE (at once, not after a timeout).
        own_nats.halt()
        wait_until_sync(lambda: health() == "NOT_SERVING", "NOT_SERVING without NATS")
        with pytest.raises(grpc.RpcError) as caught:
            _state(stub, table_id)
        assert caught.value.code() == grpc.StatusCode.UNAVAILABLE
        with pytest.raises(grpc.RpcError) as caught:
            _history(stub, table_id)
        assert caught.value.code() == grpc.StatusCode.UNAVAILABLE

        # Back on the same port (same JetStream store): everything works again, no restart.
        own_nats.start(timeout=20.0)
        wait_until_sync(lambda: health() == healthcheck.SERVING, "SERVING with NATS back")
        third = f"n{uuid.uuid4().hex[:8]}"
        # JetStream may answer a moment after the connection is back: UNAVAILABLE means retry
        wait_until_sync(lambda: _answers(lambda: _open_bots(stub, third, hands=1)), "a commit")
        wait_until_sync(lambda: _played_out(stub, third), "a hand played after NATS came back")
        assert _closed(stub, table_id)  # what was played before is all there
        assert _history(stub, table_id).hands  # and its histories
    assert table.running and table.restarts == 0


def test_the_table_reads_a_deal_from_a_revealed_deck_as_a_lost_deck(
    start: Starter, redis_url: str
) -> None:
    """The dealer service refuses to deal once a deck's seed is out (FAILED_PRECONDITION,
    DECK_CLOSED); the table's port turns that into ``DeckLost``, so the hand is voided instead of
    the table asking for those cards again and again."""
    import asyncio

    from services.table.dealing import DeckLost, GrpcDealer

    dealer = start("dealer", {"HOLDEM_REDIS_URL": redis_url})

    async def main() -> None:
        async with aio_channel_as(dealer.address, "table") as channel:
            port = GrpcDealer(channel)
            deck_id, _ = await port.start_deck("revealed", "h1")
            assert len(await port.deal(deck_id, [0, 1])) == 2
            await port.reveal(deck_id)
            with pytest.raises(DeckLost, match="revealed"):
                await port.deal(deck_id, [2, 3])

    asyncio.run(main())


@pytest.mark.parametrize("service", ["table", "lobby", "gateway"])
def test_a_service_whose_nats_died_still_stops_on_sigterm(
    start: Starter, own_nats: NatsServer, own_redis: RedisServer, service: str
) -> None:
    """NATS holds what it serves: with NATS gone it says NOT_SERVING; its connection cannot be
    drained any more, so the drain is given up after a few seconds and the service exits 0
    instead of hanging until SIGKILL."""
    env = {"HOLDEM_NATS_URL": own_nats.url, "HOLDEM_REDIS_URL": own_redis.url}
    if service == "table":
        env |= {"HOLDEM_TABLE_DEALER": "local", "HOLDEM_TABLE_EVALUATOR": "local"}
    process = start(service, {**env, "HOLDEM_SHUTDOWN_GRACE_SECONDS": "1"})
    own_nats.kill()
    wait_until_sync(lambda: process.poll_ready() == "NOT_SERVING", "NOT_SERVING without NATS")
    assert process.stop(timeout=60) == 0  # SIGTERM; SIGKILL (-9) only after a minute
    assert [line.get("event") for line in process.log_lines()][-1] == "stopped"


def test_the_dealer_is_not_serving_while_its_redis_is_down(
    start: Starter, own_redis: RedisServer
) -> None:
    """The seeds live in Redis: without it the dealer says NOT_SERVING and its calls answer
    UNAVAILABLE; once Redis is back on the same port it serves again, without a restart."""
    dealer = start("dealer", {"HOLDEM_REDIS_URL": own_redis.url})

    def start_deck(table_id: str) -> str:
        with channel_as(dealer.address, "table") as channel:
            started = dealer_pb2_grpc.DealerServiceStub(channel).StartDeck(
                dealer_pb2.StartDeckRequest(table_id=table_id, hand_id="1", idempotency_key="k"),
                timeout=10,
            )
        return str(started.deck_id)

    assert start_deck("before")
    own_redis.kill()
    wait_until_sync(lambda: dealer.poll_ready() == "NOT_SERVING", "NOT_SERVING without Redis")
    with pytest.raises(grpc.RpcError) as caught:
        start_deck("during")
    assert caught.value.code() == grpc.StatusCode.UNAVAILABLE
    own_redis.restart(timeout=20.0)
    wait_until_sync(lambda: dealer.poll_ready() == healthcheck.SERVING, "SERVING, Redis back")
    assert start_deck("after")
    assert dealer.running and dealer.restarts == 0
