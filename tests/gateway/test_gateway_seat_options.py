"""Sitting out and blinds through the gateway, with real processes (lobby, table, gateway,
nats-server, redis-server): bad input (nothing to set, a table the caller does not sit at, a blind
answer with nothing asked, an unknown table) refused with a clear status and nothing changed;
"sit out next big blind" seen to sit the seat out at its big blind (the setting shown to its
owner only); auto-post off asks before the blind and the answer posts it; and disconnect
protection end to end: a player whose stream is cut is shown disconnected to everyone, their
turn gets the time bank once, then they are folded and sat out, and a new stream marks them
connected again."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Iterator

import grpc
import pytest
from holdem.common.v1 import common_pb2
from holdem.gateway.v1 import gateway_pb2

from libs.table.events import HandBegan, PlayerSatOut, TimeBankStarted
from tests.conditions import wait_until_sync
from tests.gateway.chat_steps import Person, code_of, person, refused
from tests.gateway.play import truth
from tests.gateway.stack import CONFIG, GatewayStack, start_gateway_stack

pytestmark = [pytest.mark.integration, pytest.mark.timeout(300)]

S = grpc.StatusCode
g = gateway_pb2
FOLD, CHECK, CALL = (
    common_pb2.ACTION_TYPE_FOLD,
    common_pb2.ACTION_TYPE_CHECK,
    common_pb2.ACTION_TYPE_CALL,
)


@pytest.fixture(scope="module")
def stack(
    tmp_path_factory: pytest.TempPathFactory, nats_url: str, redis_url: str
) -> Iterator[GatewayStack]:
    started = start_gateway_stack(
        tmp_path_factory.mktemp("seatopts"),
        nats_url,
        redis_url,
        {"HOLDEM_GATEWAY_DISCONNECT_GRACE_SECONDS": "0.5"},
    )
    yield started
    started.stop()


def _table(gw: object, host: Person, **options: object) -> str:
    config = common_pb2.TableConfig()
    config.CopyFrom(CONFIG)
    for name, value in options.items():
        setattr(config, name, value)
    created = gw.CreateTable(  # type: ignore[attr-defined]
        g.CreateTableRequest(name="blinds", config=config), metadata=host.meta, timeout=60
    )
    return str(created.table.table_id)


def _events(stack: GatewayStack, table_id: str) -> list[object]:
    return list(asyncio.run(truth(stack.nats_url, table_id))[2])


def _seat_of(view: common_pb2.PlayerView, who: Person) -> common_pb2.SeatView:
    return next(s for s in view.seats if s.player_id == who.player_id)


def _play_a_turn(gw: object, stack: GatewayStack, table_id: str, people: list[Person]) -> None:
    """Whoever is to act (of ``people``) checks when free, else folds; nothing when nobody is."""
    view = stack.view(table_id)
    if not view.hand_id or not view.HasField("acting_seat"):
        return
    seat = next(s for s in view.seats if s.seat == view.acting_seat)
    who = next((p for p in people if p.player_id == seat.player_id), None)
    if who is None:
        return
    mine = stack.view(table_id, who.player_id)
    action = CHECK if mine.legal_actions.can_check else FOLD
    try:
        gw.Act(  # type: ignore[attr-defined]
            g.ActRequest(
                table_id=table_id,
                hand_id=view.hand_id,
                action=action,
                idempotency_key=f"{view.hand_id}-{view.sequence}-{who.name}",
            ),
            metadata=who.meta,
            timeout=30,
        )
    except grpc.RpcError as exc:  # the view moved on meanwhile
        assert exc.code() == S.FAILED_PRECONDITION, exc.details()


def test_bad_input_and_sit_out_next_big_blind(stack: GatewayStack) -> None:
    with grpc.insecure_channel(stack.gateway.address) as channel:
        gw = stack.gateway_stub(channel)
        ann, bob, cat, eve = (person(gw, n) for n in ("ann", "bob", "cat", "eve"))
        table_id = _table(gw, ann)
        for who in (ann, bob, cat):
            gw.JoinTable(
                g.JoinTableRequest(table_id=table_id, buy_in=100), metadata=who.meta, timeout=60
            )
        wait_until_sync(lambda: bool(stack.view(table_id).hand_id), "the first hand")
        sequence = stack.view(table_id).sequence

        # bad input: clear statuses, nothing changed
        empty = refused(
            gw.SetSeatOptions, g.SeatOptionsRequest(table_id=table_id), metadata=ann.meta
        )
        assert empty.code() == S.INVALID_ARGUMENT and code_of(empty) == "NO_SEAT_OPTION"
        stranger = refused(
            gw.SetSeatOptions,
            g.SeatOptionsRequest(table_id=table_id, auto_post_blinds=False),
            metadata=eve.meta,
        )
        assert stranger.code() == S.PERMISSION_DENIED and code_of(stranger) == "NOT_YOUR_SEAT"
        nothing = refused(
            gw.AnswerBlind, g.BlindAnswerRequest(table_id=table_id, post=True), metadata=ann.meta
        )
        assert nothing.code() == S.FAILED_PRECONDITION and code_of(nothing) == "NO_BLIND_DUE"
        unknown = refused(
            gw.SetSeatOptions,
            g.SeatOptionsRequest(table_id="no-such-table", wait_for_big_blind=False),
            metadata=ann.meta,
        )
        assert unknown.code() in (S.NOT_FOUND, S.PERMISSION_DENIED), unknown.details()
        assert stack.view(table_id).sequence == sequence

        # cat sits out at their next big blind: the setting is cat's own business
        gw.SetSeatOptions(
            g.SeatOptionsRequest(table_id=table_id, sit_out_next_big_blind=True),
            metadata=cat.meta,
            timeout=30,
        )
        assert _seat_of(stack.view(table_id, cat.player_id), cat).sit_out_next_big_blind
        assert not _seat_of(stack.view(table_id, bob.player_id), cat).sit_out_next_big_blind
        set_at = len(_events(stack, table_id))
        people = [ann, bob, cat]

        def sat_out() -> bool:
            if _seat_of(stack.view(table_id), cat).status == common_pb2.SEAT_STATUS_SITTING_OUT:
                return True
            _play_a_turn(gw, stack, table_id, people)
            return False

        wait_until_sync(sat_out, "cat sitting out at the big blind", timeout=120)
        events = _events(stack, table_id)
        cat_seat = _seat_of(stack.view(table_id), cat).seat
        assert PlayerSatOut(cat_seat, "sat out at the big blind", cat.player_id) in events
        later = [e for e in events[set_at:] if isinstance(e, HandBegan)]
        assert all(e.big_blind_seat != cat_seat for e in later)  # never posted it
        wait_until_sync(lambda: bool(stack.view(table_id).hand_id), "a hand without cat")


def test_auto_post_off_asks_and_the_answer_posts_the_blind(stack: GatewayStack) -> None:
    with grpc.insecure_channel(stack.gateway.address) as channel:
        gw = stack.gateway_stub(channel)
        ann, bob = (person(gw, n) for n in ("ann", "bob"))
        table_id = _table(gw, ann)
        for who in (ann, bob):
            gw.JoinTable(
                g.JoinTableRequest(table_id=table_id, buy_in=100), metadata=who.meta, timeout=60
            )
        gw.SetSeatOptions(
            g.SeatOptionsRequest(table_id=table_id, auto_post_blinds=False),
            metadata=ann.meta,
            timeout=30,
        )
        ann_seat = _seat_of(stack.view(table_id), ann).seat
        people = [ann, bob]

        def asked() -> bool:
            view = stack.view(table_id)
            if view.HasField("blind_question"):
                return True
            _play_a_turn(gw, stack, table_id, people)
            return False

        wait_until_sync(asked, "the blind question", timeout=120)
        question = stack.view(table_id, bob.player_id).blind_question  # public: the table waits
        assert question.seat == ann_seat and question.amount in (1, 2)
        hands = stack.view(table_id).hand_number
        gw.AnswerBlind(
            g.BlindAnswerRequest(table_id=table_id, post=True), metadata=ann.meta, timeout=30
        )
        wait_until_sync(lambda: stack.view(table_id).hand_number > hands, "the hand after it")
        began = [e for e in _events(stack, table_id) if isinstance(e, HandBegan)][-1]
        assert ann_seat in began.seats  # dealt in, posting the blind


def test_a_cut_stream_gets_the_time_bank_once_then_is_folded_and_sat_out(
    stack: GatewayStack,
) -> None:
    with grpc.insecure_channel(stack.gateway.address) as channel:
        gw = stack.gateway_stub(channel)
        ann, bob = (person(gw, n) for n in ("ann", "bob"))
        table_id = _table(gw, ann, action_clock_seconds=2, time_bank_seconds=2)
        # ann watches the table on a connection of her own, then the connection is cut
        cut = grpc.insecure_channel(stack.gateway.address)
        stream = stack.gateway_stub(cut).WatchTable(
            g.WatchTableRequest(table_id=table_id), metadata=ann.meta
        )
        first = threading.Event()

        def read() -> None:
            try:
                for _ in stream:
                    first.set()
            except grpc.RpcError:
                pass

        reader = threading.Thread(target=read, daemon=True)
        reader.start()
        wait_until_sync(first.is_set, "ann's stream")
        for who in (ann, bob):
            gw.JoinTable(
                g.JoinTableRequest(table_id=table_id, buy_in=100), metadata=who.meta, timeout=60
            )
        wait_until_sync(lambda: bool(stack.view(table_id).hand_id), "the first hand")
        cut.close()  # the client vanishes
        reader.join(timeout=30)
        wait_until_sync(
            lambda: _seat_of(stack.view(table_id, bob.player_id), ann).disconnected,
            "ann shown disconnected to everyone",
        )

        def sat_out() -> bool:
            if _seat_of(stack.view(table_id), ann).status == common_pb2.SEAT_STATUS_SITTING_OUT:
                return True
            _play_a_turn(gw, stack, table_id, [bob])  # bob plays on; ann's clock runs
            return False

        wait_until_sync(sat_out, "ann folded and sat out", timeout=120)
        events = _events(stack, table_id)
        ann_seat = _seat_of(stack.view(table_id), ann).seat
        assert PlayerSatOut(ann_seat, "disconnected", ann.player_id) in events
        banks = [e.seat for e in events if isinstance(e, TimeBankStarted)]
        assert banks == [ann_seat]  # once
        view = stack.view(table_id)
        assert sum(s.stack for s in view.seats) + sum(p.amount for p in view.pots) == 200

        # ann is back: a new stream marks her connected again
        back = stack.gateway_stub(channel).WatchTable(
            g.WatchTableRequest(table_id=table_id), metadata=ann.meta
        )
        next(back)
        wait_until_sync(
            lambda: not _seat_of(stack.view(table_id), ann).disconnected, "ann connected again"
        )
        back.cancel()
