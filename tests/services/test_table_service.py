"""The table service over real gRPC, on real NATS (JetStream) and Redis: bot tables play by
themselves, players act through SubmitAction, views hide other players' cards, bad input gets
the right status, and a second replica takes a table over when the first one dies."""

from __future__ import annotations

import asyncio
import time
import uuid

import grpc
import pytest
from holdem.common.v1 import common_pb2
from holdem.table.v1 import table_pb2

from libs.devstack.tablestub import table_as
from libs.poker.events import PotAwarded
from libs.table.events import Event, HandBegan
from libs.tableproto.envelope import decode_commit
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


def _table(start: Starter, nats_url: str, redis_url: str, **env: str) -> ServiceProcess:
    return start(
        "table",
        {
            "HOLDEM_NATS_URL": nats_url,
            "HOLDEM_REDIS_URL": redis_url,
            "HOLDEM_TABLE_DEALER": "local",
            "HOLDEM_TABLE_EVALUATOR": "local",
            "HOLDEM_TABLE_AI": "local",
            **env,
        },
    )


def _command(table_id: str, key: str, **command: object) -> table_pb2.SubmitCommandRequest:
    return table_pb2.SubmitCommandRequest(table_id=table_id, idempotency_key=key, **command)  # type: ignore[arg-type]


def test_players_act_and_views_hide_other_players_cards(
    start: Starter, nats_url: str, redis_url: str
) -> None:
    table = _table(start, nats_url, redis_url)
    table_id = f"g{uuid.uuid4().hex[:8]}"
    with table_as(table.address) as stub:
        stub.SubmitCommand(
            _command(table_id, "open", open_table=table_pb2.OpenTable(config=CONFIG))
        )
        for i, name in enumerate(["alice", "bob"]):
            stub.SubmitCommand(
                _command(
                    table_id,
                    f"seat-{name}",
                    seat_player=table_pb2.SeatPlayer(player_id=name, seat=i, buy_in=100),
                )
            )
        view = stub.GetPlayerView(
            table_pb2.GetPlayerViewRequest(table_id=table_id, player_id="alice")
        ).view
        assert view.hand_id  # the second player started the first hand
        seats = {s.player_id: s for s in view.seats}
        assert len(seats["alice"].hole_cards) == 2 and len(seats["bob"].hole_cards) == 0
        assert seats["bob"].hole_card_count == 2
        spectator = stub.GetTableState(table_pb2.GetTableStateRequest(table_id=table_id)).view
        assert all(len(s.hole_cards) == 0 for s in spectator.seats)
        acting = next(s.player_id for s in view.seats if s.seat == view.acting_seat)
        actor_view = stub.GetPlayerView(
            table_pb2.GetPlayerViewRequest(table_id=table_id, player_id=acting)
        ).view
        assert actor_view.legal_actions.can_call and actor_view.legal_actions.min_raise_to == 4
        # below the minimum: FAILED_PRECONDITION with the reason, nothing changes
        with pytest.raises(grpc.RpcError) as err:
            stub.SubmitAction(
                table_pb2.SubmitActionRequest(
                    table_id=table_id,
                    hand_id=view.hand_id,
                    player_id=acting,
                    action=common_pb2.ACTION_TYPE_RAISE,
                    amount=3,
                    idempotency_key="bad",
                )
            )
        assert err.value.code() == grpc.StatusCode.FAILED_PRECONDITION
        assert "minimum is 4" in (err.value.details() or "")
        first = stub.SubmitAction(
            table_pb2.SubmitActionRequest(
                table_id=table_id,
                hand_id=view.hand_id,
                player_id=acting,
                action=common_pb2.ACTION_TYPE_FOLD,
                idempotency_key="fold-1",
            )
        )
        again = stub.SubmitAction(
            table_pb2.SubmitActionRequest(
                table_id=table_id,
                hand_id=view.hand_id,
                player_id=acting,
                action=common_pb2.ACTION_TYPE_FOLD,
                idempotency_key="fold-1",
            )
        )
        assert again.sequence == first.sequence  # a retry returns the first outcome
        with pytest.raises(grpc.RpcError) as err:
            stub.SubmitAction(table_pb2.SubmitActionRequest(table_id="", idempotency_key="x"))
        assert err.value.code() == grpc.StatusCode.INVALID_ARGUMENT


def test_a_second_replica_takes_over_a_table_when_the_first_dies(
    start: Starter, nats_url: str, redis_url: str
) -> None:
    env = {"HOLDEM_TABLE_LEASE_TTL_SECONDS": "1"}
    first = _table(start, nats_url, redis_url, **env)
    second = _table(start, nats_url, redis_url, **env)
    table_id = f"f{uuid.uuid4().hex[:8]}"
    with table_as(first.address) as stub:
        stub.SubmitCommand(
            _command(table_id, "open", open_table=table_pb2.OpenTable(config=CONFIG))
        )
        before = stub.GetTableState(table_pb2.GetTableStateRequest(table_id=table_id)).view
    with table_as(second.address) as stub:
        with pytest.raises(grpc.RpcError) as err:
            stub.GetTableState(table_pb2.GetTableStateRequest(table_id=table_id))
        assert err.value.code() == grpc.StatusCode.UNAVAILABLE  # the first replica owns it
        first.process.kill()
        first.process.wait()
        deadline = time.monotonic() + 10
        while True:
            try:
                after = stub.GetTableState(table_pb2.GetTableStateRequest(table_id=table_id)).view
                break
            except grpc.RpcError as exc:
                assert exc.code() == grpc.StatusCode.UNAVAILABLE
                assert time.monotonic() < deadline, "no takeover within the lease TTL"
                time.sleep(0.2)
        assert after.sequence == before.sequence


def _bot_table_to_the_end(table: ServiceProcess, hands: int) -> str:
    """Open a table of four bots playing ``hands`` hands (fewer if one goes broke: then it is
    closed here); return its id once it closed."""
    table_id = f"e{uuid.uuid4().hex[:8]}"
    config = common_pb2.TableConfig()
    config.CopyFrom(CONFIG)
    config.hand_limit = hands
    config.min_players_to_start = 4  # all four seated before the first hand
    with table_as(table.address) as stub:
        stub.SubmitCommand(
            _command(table_id, "open", open_table=table_pb2.OpenTable(config=config))
        )
        for i in range(4):
            stub.SubmitCommand(
                _command(
                    table_id,
                    f"bot-{i}",
                    seat_player=table_pb2.SeatPlayer(
                        player_id=f"bot{i}", seat=i, buy_in=100, is_bot=True
                    ),
                )
            )
        deadline = time.monotonic() + 60
        while True:
            view = stub.GetTableState(table_pb2.GetTableStateRequest(table_id=table_id)).view
            if view.table_status == common_pb2.TABLE_STATUS_CLOSED:
                break
            if not view.hand_id and sum(1 for s in view.seats if s.stack > 0) < 4:
                stub.SubmitCommand(_command(table_id, "close", close_table=table_pb2.CloseTable()))
                continue
            assert time.monotonic() < deadline, "the bot table did not finish its hands"
            time.sleep(0.2)
    return table_id


def _showdowns(nats_url: str, table_id: str) -> int:
    """Hands of the table's stream whose pots were contested by two hands or more: the
    showdowns whose hands needed ranking."""

    async def read() -> list[Event]:
        import nats

        from libs.eventstore.jetstream import JetStreamEventStore

        nc = await nats.connect(nats_url)
        try:
            commits = await JetStreamEventStore(nc, stream="HOLDEM_TABLES").read(table_id)
        finally:
            await nc.close()
        return [e for c in commits for e in decode_commit(c.data)[1]]

    ranked: set[int] = set()
    hand = 0
    for event in asyncio.run(read()):
        if isinstance(event, HandBegan):
            hand = event.hand_number
        if isinstance(event, PotAwarded) and len(event.eligible) > 1:
            ranked.add(hand)
    return len(ranked)


def test_showdowns_are_ranked_by_the_evaluator_service(
    start: Starter, nats_url: str, redis_url: str
) -> None:
    evaluator = start("evaluator", {})
    table = _table(
        start,
        nats_url,
        redis_url,
        HOLDEM_TABLE_EVALUATOR="service",
        HOLDEM_EVALUATOR_ADDR=evaluator.address,
    )
    showdowns = 0
    for _ in range(3):  # AIs may fold every hand of a table before a showdown: play another
        showdowns += _showdowns(nats_url, _bot_table_to_the_end(table, hands=20))
        if showdowns:
            break
    events = [line.get("event") for line in table.log_lines()]
    assert "evaluator_unavailable" not in events
    calls = [
        line
        for line in evaluator.log_lines()
        if line.get("event") == "rpc finished"
        and str(line.get("rpc", "")).endswith("EvaluateBatch")
    ]
    assert calls and all(c["status"] == "OK" for c in calls)
    assert len(calls) == showdowns  # one per showdown


def test_without_the_evaluator_service_showdowns_fall_back_in_process(
    start: Starter, nats_url: str, redis_url: str
) -> None:
    table = _table(
        start,
        nats_url,
        redis_url,
        HOLDEM_TABLE_EVALUATOR="service",
        HOLDEM_EVALUATOR_ADDR="127.0.0.1:9",  # nothing listens there
        HOLDEM_RPC_TIMEOUT_SECONDS="1",
    )
    for _ in range(3):  # AIs may fold every hand of a table before a showdown: play another
        _bot_table_to_the_end(table, hands=20)
        events = [line.get("event") for line in table.log_lines()]
        if "evaluator_unavailable" in events:
            break
    assert "evaluator_unavailable" in events  # the service was asked, and the hands went on
