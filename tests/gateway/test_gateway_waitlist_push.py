"""WatchWaitlist through the gateway, with real processes: a waiting player's place is pushed as
it changes (someone ahead leaves the line, the seat that came free is offered to them), nothing
is sent twice, and the stream ends once they sit; a player not waiting gets their place (0) and
the end at once; an unknown table is NOT_FOUND."""

from __future__ import annotations

import queue
import threading
import time
import uuid
from collections.abc import Iterator
from typing import Any

import grpc
import pytest
from holdem.common.v1 import common_pb2
from holdem.gateway.v1 import gateway_pb2

from tests.gateway.chat_steps import Person, code_of, person
from tests.gateway.stack import CONFIG, GatewayStack, start_gateway_stack

pytestmark = [pytest.mark.integration, pytest.mark.timeout(300)]

S = grpc.StatusCode
g = gateway_pb2
END = object()


@pytest.fixture(scope="module")
def push_stack(
    tmp_path_factory: pytest.TempPathFactory, nats_url: str, redis_url: str
) -> Iterator[GatewayStack]:
    stack = start_gateway_stack(
        tmp_path_factory.mktemp("waitpush"),
        nats_url,
        redis_url,
        {"HOLDEM_GATEWAY_RATE_BURST": "500"},
    )
    yield stack
    stack.stop()


class Pushed:
    """A WatchWaitlist stream read in a thread: each update (or END, or the error) in order."""

    def __init__(self, gw: Any, who: Person, table_id: str) -> None:
        self.items: queue.Queue[Any] = queue.Queue()
        request = g.WatchWaitlistRequest(table_id=table_id)
        self.stream = gw.WatchWaitlist(request, metadata=who.meta, timeout=120)
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        try:
            for update in self.stream:
                self.items.put(update)
            self.items.put(END)
        except grpc.RpcError as exc:
            self.items.put(exc)

    def next(self) -> Any:
        return self.items.get(timeout=60)


def fold_if_asked(gw: Any, stack: GatewayStack, table_id: str, who: Person) -> None:
    view = stack.view(table_id, who.player_id)
    if view.HasField("legal_actions") and view.hand_id:
        legal = view.legal_actions
        action = common_pb2.ACTION_TYPE_FOLD if legal.can_fold else common_pb2.ACTION_TYPE_CHECK
        request = g.ActRequest(
            table_id=table_id, hand_id=view.hand_id, action=action, idempotency_key=uuid.uuid4().hex
        )
        gw.Act(request, metadata=who.meta, timeout=30)


def place(update: Any) -> tuple[int, int, bool]:
    return update.position, update.waiting, update.HasField("offered_until")


def test_a_waiting_player_s_place_is_pushed_until_they_sit(push_stack: GatewayStack) -> None:
    stack = push_stack
    config = common_pb2.TableConfig()
    config.CopyFrom(CONFIG)
    config.max_seats = 2
    with grpc.insecure_channel(stack.gateway.address) as channel:
        gw = stack.gateway_stub(channel)
        ann, bob, cat, dan = (person(gw, n) for n in ("ann", "bob", "cat", "dan"))
        table_id = gw.CreateTable(
            g.CreateTableRequest(config=config), metadata=ann.meta, timeout=60
        ).table.table_id

        def join(who: Person) -> None:
            request = g.JoinTableRequest(
                table_id=table_id, buy_in=100, idempotency_key=uuid.uuid4().hex
            )
            gw.JoinTable(request, metadata=who.meta, timeout=60)

        join(ann)
        join(bob)
        deadline = time.monotonic() + 60
        while not any(
            t.table_id == table_id and t.seated_players == 2
            for t in gw.ListTables(g.ListTablesRequest(), timeout=30).tables
        ):
            assert time.monotonic() < deadline, "the lobby never counted both seats"
            time.sleep(0.1)
        for who in (cat, dan):
            try:
                join(who)
            except grpc.RpcError as exc:
                assert code_of(exc) == "WAITLISTED", exc
            else:
                raise AssertionError("sat at a full table")
        cat_sees = Pushed(gw, cat, table_id)
        assert place(cat_sees.next()) == (1, 2, False)
        gw.LeaveWaitlist(g.LeaveWaitlistRequest(table_id=table_id), metadata=dan.meta, timeout=30)
        assert place(cat_sees.next()) == (1, 1, False)  # pushed: cat asked nothing
        gw.LeaveTable(g.LeaveTableRequest(table_id=table_id), metadata=ann.meta, timeout=60)
        while ann.player_id in {s.player_id for s in stack.view(table_id, bob.player_id).seats}:
            fold_if_asked(gw, stack, table_id, bob)  # ann folds at her turn, then goes
            time.sleep(0.1)
        offered = cat_sees.next()
        assert place(offered) == (1, 1, True)
        join(cat)
        last = cat_sees.next()
        while last is not END and place(last) != (0, 0, False):
            last = cat_sees.next()  # the offer's clock may have passed meanwhile
        assert last is END or cat_sees.next() is END  # seated: the stream ended (OK)
        # not waiting: the place (0) at once, then the end
        ann_sees = Pushed(gw, ann, table_id)
        assert place(ann_sees.next()) == (0, 0, False)
        assert ann_sees.next() is END
        error = Pushed(gw, ann, "nosuchtable").next()
        assert isinstance(error, grpc.RpcError) and error.code() == S.NOT_FOUND
