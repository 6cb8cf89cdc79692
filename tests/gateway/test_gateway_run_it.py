"""Run it twice and the rabbit hunt through the gateway, with real processes (lobby, table,
gateway, nats-server, redis-server): a table created with both options; bad input (answering
when nobody is asked, N outside 1..3, a rabbit hunt during a hand, an unknown table) refused with
a clear status and nothing changed; both players agreeing deals two runs whose cards verify
against the revealed seed, chips exact; and the rabbit after a fold, seen by the whole table."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable

import grpc
import pytest
from holdem.common.v1 import common_pb2
from holdem.gateway.v1 import gateway_pb2

from libs.fairdeck.audit import outcomes_from_stream
from libs.poker.events import HandEnded, PotAwarded, RunDealt
from libs.table.events import RabbitHunted
from tests.gateway.chat_steps import Person, code_of, person, refused
from tests.gateway.play import truth
from tests.gateway.stack import CONFIG, GatewayStack, gateway_stack

pytestmark = [pytest.mark.integration, pytest.mark.timeout(300)]
__all__ = ["gateway_stack"]

S = grpc.StatusCode
g = gateway_pb2


def _table(gw: object, host: Person, **options: object) -> str:
    config = common_pb2.TableConfig()
    config.CopyFrom(CONFIG)
    for name, value in options.items():
        setattr(config, name, value)
    created = gw.CreateTable(  # type: ignore[attr-defined]
        g.CreateTableRequest(name="extras", config=config), metadata=host.meta, timeout=60
    )
    return str(created.table.table_id)


def _until(check: Callable[[], bool], what: str, seconds: float = 60) -> None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if check():
            return
        time.sleep(0.05)
    raise AssertionError(f"waited {seconds} s for {what}")


def _acting(stack: GatewayStack, table_id: str, people: dict[str, Person]) -> Person:
    view = stack.view(table_id)
    seat = next(s for s in view.seats if s.seat == view.acting_seat)
    return next(p for p in people.values() if p.player_id == seat.player_id)


def _events(stack: GatewayStack, table_id: str) -> list[object]:
    return list(asyncio.run(truth(stack.nats_url, table_id))[2])


def _verified(stack: GatewayStack, table_id: str) -> bool:
    outcomes = outcomes_from_stream(_events(stack, table_id))
    return bool(outcomes) and outcomes[0].ok


def _dealt_in(stack: GatewayStack, table_id: str) -> bool:
    view = stack.view(table_id)
    return bool(view.hand_id) and view.HasField("acting_seat")


def test_two_runs_agreed_through_the_gateway_verify_and_bad_input_changes_nothing(
    gateway_stack: GatewayStack,
) -> None:
    with grpc.insecure_channel(gateway_stack.gateway.address) as channel:
        gw = gateway_stack.gateway_stub(channel)
        ann, bob, eve = (person(gw, n) for n in ("ann", "bob", "eve"))
        table_id = _table(gw, ann, run_it_max=2, rabbit_hunt=True)
        for who in (ann, bob):
            gw.JoinTable(
                g.JoinTableRequest(table_id=table_id, buy_in=100), metadata=who.meta, timeout=60
            )
        _until(lambda: _dealt_in(gateway_stack, table_id), "the first hand")
        view = gateway_stack.view(table_id)
        assert view.config.run_it_max == 2 and view.config.rabbit_hunt
        hand_id, sequence = view.hand_id, view.sequence
        people = {"ann": ann, "bob": bob}
        first = _acting(gateway_stack, table_id, people)

        # bad input: clear statuses, nothing changed
        early = refused(
            gw.AnswerRunIt,
            g.RunItAnswerRequest(table_id=table_id, hand_id=hand_id, times=2),
            metadata=first.meta,
        )
        assert early.code() == S.FAILED_PRECONDITION and code_of(early) == "RUN_IT_NOT_OFFERED"
        for times in (0, 4):
            wrong = refused(
                gw.AnswerRunIt,
                g.RunItAnswerRequest(table_id=table_id, times=times),
                metadata=first.meta,
            )
            assert wrong.code() == S.INVALID_ARGUMENT, wrong.details()
        too_many = refused(
            gw.SetRunItTimes, g.RunItSetTimesRequest(table_id=table_id, times=4), metadata=ann.meta
        )
        assert too_many.code() == S.INVALID_ARGUMENT
        during = refused(gw.RabbitHunt, g.RabbitHuntRequest(table_id=table_id), metadata=ann.meta)
        assert during.code() == S.FAILED_PRECONDITION and code_of(during) == "HAND_IN_PROGRESS"
        unknown = refused(
            gw.RabbitHunt, g.RabbitHuntRequest(table_id="no-such-table"), metadata=ann.meta
        )
        assert unknown.code() == S.NOT_FOUND
        stranger = refused(
            gw.SetRunItTimes, g.RunItSetTimesRequest(table_id=table_id, times=2), metadata=eve.meta
        )
        assert stranger.code() == S.PERMISSION_DENIED
        assert gateway_stack.view(table_id).sequence == sequence  # nothing changed

        # a standing answer for bob, an answer when asked for ann
        gw.SetRunItTimes(
            g.RunItSetTimesRequest(table_id=table_id, times=2), metadata=bob.meta, timeout=30
        )
        second = bob if first is ann else ann
        for who, action in ((first, common_pb2.ACTION_TYPE_ALL_IN), (second, None)):
            if action is None:
                action = common_pb2.ACTION_TYPE_CALL
            gw.Act(
                g.ActRequest(
                    table_id=table_id, hand_id=hand_id, action=action, idempotency_key=who.name
                ),
                metadata=who.meta,
                timeout=30,
            )
        _until(lambda: len(gateway_stack.view(table_id).run_it.asked_seats) > 0, "the question")
        asked = gateway_stack.view(table_id, ann.player_id)
        assert not asked.run_boards  # nothing dealt before everyone answered
        answered = gw.AnswerRunIt(
            g.RunItAnswerRequest(table_id=table_id, hand_id=hand_id, times=2),
            metadata=ann.meta,
            timeout=30,
        )
        assert answered.view.run_it.viewer_answer in (0, 2)  # 0 once the hand is over

        _until(
            lambda: any(isinstance(e, HandEnded) for e in _events(gateway_stack, table_id)),
            "the hand's end",
        )
        _until(lambda: _verified(gateway_stack, table_id), "the seed")
        events = _events(gateway_stack, table_id)
        assert [e.run for e in events if isinstance(e, RunDealt)] == [2]
        awards = [e for e in events if isinstance(e, PotAwarded)]
        assert sum(a.amount for a in awards) == 200 and {a.run for a in awards} == {0, 1}
        outcome = outcomes_from_stream(events)[0]
        assert outcome.ok, outcome.failures
        assert outcome.cards == 4 + 8 + 8
        view = gateway_stack.view(table_id)
        assert sum(s.stack for s in view.seats) + sum(p.amount for p in view.pots) == 200


def test_the_rabbit_after_a_fold_is_shown_to_the_table(gateway_stack: GatewayStack) -> None:
    with grpc.insecure_channel(gateway_stack.gateway.address) as channel:
        gw = gateway_stack.gateway_stub(channel)
        ann, bob = (person(gw, n) for n in ("ann", "bob"))
        table_id = _table(gw, ann, rabbit_hunt=True)
        for who in (ann, bob):
            gw.JoinTable(
                g.JoinTableRequest(table_id=table_id, buy_in=100), metadata=who.meta, timeout=60
            )
        _until(lambda: _dealt_in(gateway_stack, table_id), "the first hand")
        hand_id = gateway_stack.view(table_id).hand_id
        folder = _acting(gateway_stack, table_id, {"ann": ann, "bob": bob})
        gw.Act(
            g.ActRequest(
                table_id=table_id,
                hand_id=hand_id,
                action=common_pb2.ACTION_TYPE_FOLD,
                idempotency_key="fold",
            ),
            metadata=folder.meta,
            timeout=30,
        )
        hunted: list[g.RabbitHuntResponse] = []

        def hunt() -> bool:
            try:
                hunted.append(
                    gw.RabbitHunt(
                        g.RabbitHuntRequest(table_id=table_id, hand_id=hand_id),
                        metadata=bob.meta,
                        timeout=30,
                    )
                )
            except grpc.RpcError as exc:  # the seed may be a moment behind the hand's end
                assert code_of(exc) == "SEED_NOT_REVEALED", exc.details()
                return False
            return True

        _until(hunt, "the rabbit")
        rabbit = hunted[0].rabbit
        assert rabbit.hand_id == hand_id and len(rabbit.cards) == 5
        assert rabbit.first_street == common_pb2.STREET_FLOP
        spectator = gateway_stack.view(table_id)  # the whole table sees it, spectators too
        assert spectator.rabbit == rabbit or spectator.hand_id  # unless the next hand began
        events = _events(gateway_stack, table_id)
        [stored] = [e for e in events if isinstance(e, RabbitHunted)]
        assert [(c.rank - 2) * 4 + c.suit - 1 for c in rabbit.cards] == [
            int(c) for c in stored.cards
        ]
        outcome = outcomes_from_stream(events)[0]
        assert outcome.ok, outcome.failures
        assert outcome.cards == 4 + 5  # the rabbit checked against the seed too
