"""The table service over real gRPC, on real NATS (JetStream) and Redis: bot tables play by
themselves, players act through SubmitAction, views hide other players' cards, bad input gets
the right status, and a second replica takes a table over when the first one dies."""

from __future__ import annotations

import asyncio
import time
import uuid
from functools import partial

import grpc
import pytest
from holdem.common.v1 import common_pb2
from holdem.table.v1 import table_pb2

from libs.devstack.tablestub import table_as
from libs.poker.events import PotAwarded
from libs.table.events import Event, HandBegan
from libs.tableproto.envelope import decode_commit
from tests.services.conftest import ServiceProcess, Starter
from tests.services.lobby_stack import retry

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
    # Calls for the table retry UNAVAILABLE as real callers do: the session's NATS is shared,
    # so the table's shard may still be leased by the replica of a test before (killed, its
    # lease not yet expired) or handed back by this one while it counted that replica alive.
    with table_as(table.address) as stub:
        opening = _command(table_id, "open", open_table=table_pb2.OpenTable(config=CONFIG))
        retry(lambda: stub.SubmitCommand(opening))
        for i, name in enumerate(["alice", "bob"]):
            seat = _command(
                table_id,
                f"seat-{name}",
                seat_player=table_pb2.SeatPlayer(player_id=name, seat=i, buy_in=100),
            )
            retry(partial(stub.SubmitCommand, seat))
        view = retry(
            lambda: stub.GetPlayerView(
                table_pb2.GetPlayerViewRequest(table_id=table_id, player_id="alice")
            )
        ).view
        assert view.hand_id  # the second player started the first hand
        seats = {s.player_id: s for s in view.seats}
        assert len(seats["alice"].hole_cards) == 2 and len(seats["bob"].hole_cards) == 0
        assert seats["bob"].hole_card_count == 2
        spectator = retry(
            lambda: stub.GetTableState(table_pb2.GetTableStateRequest(table_id=table_id))
        ).view
        assert all(len(s.hole_cards) == 0 for s in spectator.seats)
        acting = next(s.player_id for s in view.seats if s.seat == view.acting_seat)
        actor_view = retry(
            lambda: stub.GetPlayerView(
                table_pb2.GetPlayerViewRequest(table_id=table_id, player_id=acting)
            )
        ).view
        assert actor_view.legal_actions.can_call and actor_view.legal_actions.min_raise_to == 4
        # below the minimum: FAILED_PRECONDITION with the reason, nothing changes
        too_small = table_pb2.SubmitActionRequest(
            table_id=table_id,
            hand_id=view.hand_id,
            player_id=acting,
            action=common_pb2.ACTION_TYPE_RAISE,
            amount=3,
            idempotency_key="bad",
        )
        with pytest.raises(grpc.RpcError) as err:
            retry(lambda: stub.SubmitAction(too_small))
        assert err.value.code() == grpc.StatusCode.FAILED_PRECONDITION
        assert "minimum is 4" in (err.value.details() or "")
        fold = table_pb2.SubmitActionRequest(
            table_id=table_id,
            hand_id=view.hand_id,
            player_id=acting,
            action=common_pb2.ACTION_TYPE_FOLD,
            idempotency_key="fold-1",
        )
        first = retry(lambda: stub.SubmitAction(fold))
        again = retry(lambda: stub.SubmitAction(fold))
        assert again.sequence == first.sequence  # a retry returns the first outcome
        with pytest.raises(grpc.RpcError) as err:
            stub.SubmitAction(table_pb2.SubmitActionRequest(table_id="", idempotency_key="x"))
        assert err.value.code() == grpc.StatusCode.INVALID_ARGUMENT


def _state(replica: ServiceProcess, table_id: str) -> common_pb2.PlayerView | grpc.RpcError:
    """The table as ``replica`` serves it, or the error it answers."""
    with table_as(replica.address) as stub:
        try:
            return stub.GetTableState(table_pb2.GetTableStateRequest(table_id=table_id)).view
        except grpc.RpcError as exc:
            return exc


def test_a_second_replica_takes_over_a_table_when_the_first_dies(
    start: Starter, nats_url: str, redis_url: str
) -> None:
    env = {"HOLDEM_TABLE_LEASE_TTL_SECONDS": "1"}
    replicas = [_table(start, nats_url, redis_url, **env) for _ in range(2)]
    table_id = f"f{uuid.uuid4().hex[:8]}"
    opening = _command(table_id, "open", open_table=table_pb2.OpenTable(config=CONFIG))
    # Opened as a caller does: at whichever replica serves the table's shard (the other, or
    # the replica of a test before on this session's NATS, may hold it), retrying UNAVAILABLE.
    deadline = time.monotonic() + 30
    while True:
        for replica in replicas:
            with table_as(replica.address) as stub:
                try:
                    stub.SubmitCommand(opening)
                    break
                except grpc.RpcError as exc:
                    assert exc.code() == grpc.StatusCode.UNAVAILABLE, exc
        else:
            assert time.monotonic() < deadline, "no replica would open the table"
            time.sleep(0.2)
            continue
        break
    # Exactly one replica serves it; the other answers UNAVAILABLE (asked until the shards
    # settle: a replica over its fair share may hand the new table's shard to the other).
    while True:
        answers = [_state(replica, table_id) for replica in replicas]
        served = [i for i, a in enumerate(answers) if isinstance(a, common_pb2.PlayerView)]
        if len(served) == 1:
            break
        refusals = [a.code() for a in answers if isinstance(a, grpc.RpcError)]
        assert set(refusals) <= {grpc.StatusCode.UNAVAILABLE}, refusals
        assert len(served) == 0, "two replicas served one table"
        assert time.monotonic() < deadline, "no replica serves the table"
        time.sleep(0.2)
    owner, survivor = replicas[served[0]], replicas[1 - served[0]]
    before = answers[served[0]]
    assert isinstance(before, common_pb2.PlayerView)
    refused = answers[1 - served[0]]
    assert isinstance(refused, grpc.RpcError)
    assert refused.code() == grpc.StatusCode.UNAVAILABLE  # the owner holds it
    owner.process.kill()
    owner.process.wait()
    deadline = time.monotonic() + 10
    while True:
        after = _state(survivor, table_id)
        if isinstance(after, common_pb2.PlayerView):
            break
        assert after.code() == grpc.StatusCode.UNAVAILABLE
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
        # retrying UNAVAILABLE as callers do: the shard may still be leased by a replica a test
        # before killed (the session's NATS is shared)
        retry(
            lambda: stub.SubmitCommand(
                _command(table_id, "open", open_table=table_pb2.OpenTable(config=config))
            )
        )
        for i in range(4):
            seat = table_pb2.SeatPlayer(player_id=f"bot{i}", seat=i, buy_in=100, is_bot=True)
            retry(partial(stub.SubmitCommand, _command(table_id, f"bot-{i}", seat_player=seat)))
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
