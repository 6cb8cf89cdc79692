"""Bot seats through the table and ai services, as real processes: every bot decision is one
Decide call with that seat's view only; the level is stored per seat; without the ai service the
clock rule plays (check, else fold), counted and logged, and the hands go on.

The privacy spy is an ai service stand-in (a real gRPC server implementing holdem.ai.v1.AiService,
in this test): it records every request across many hands of hold'em and Omaha and the test
fails on any card in a request that its seat may not see (checked against the table's private
stream: the seat's own hole cards and the board dealt so far, nothing else).
"""

from __future__ import annotations

import asyncio
import threading
import time
import uuid
from collections import defaultdict
from collections.abc import Iterator, Sequence
from concurrent import futures
from dataclasses import dataclass, field
from functools import partial

import grpc
import pytest
from google.protobuf.message import Message
from holdem.ai.v1 import ai_pb2, ai_pb2_grpc
from holdem.common.v1 import common_pb2
from holdem.table.v1 import table_pb2

from libs.ai import Level, decide
from libs.aiproto.reading import read_request
from libs.aiproto.requests import response_from_decision
from libs.devstack.tablestub import table_as
from libs.poker.events import HandEnded, HandVoided, HoleCardsDealt, StreetDealt
from libs.table.config import BotDifficulty
from libs.table.events import Event, HandBegan, PlayerSeated, TableClosed
from libs.tableproto.envelope import decode_commit
from tests.services.conftest import ServiceProcess, Starter
from tests.services.lobby_stack import retry
from tests.services.test_observability import scrape, value

pytestmark = pytest.mark.integration

BUY_IN = 200
#: A budget no answer misses on a loaded machine: any fallback then is a refused request.
PATIENT = "5000"
LEVELS = (
    common_pb2.BOT_DIFFICULTY_EASY,
    common_pb2.BOT_DIFFICULTY_NORMAL,
    common_pb2.BOT_DIFFICULTY_HARD,
)


def _config(variant: int, structure: int, hands: int, seats: int = 6) -> common_pb2.TableConfig:
    return common_pb2.TableConfig(
        variant=variant,  # type: ignore[arg-type]
        betting_structure=structure,  # type: ignore[arg-type]
        max_seats=seats,
        small_blind=1,
        big_blind=2,
        action_clock_seconds=30,
        hand_limit=hands,
        min_players_to_start=seats,  # every bot seated before the first hand
    )


def _table(
    start: Starter, nats_url: str, redis_url: str, ai_addr: str, **env: str
) -> ServiceProcess:
    return start(
        "table",
        {
            "HOLDEM_NATS_URL": nats_url,
            "HOLDEM_REDIS_URL": redis_url,
            "HOLDEM_TABLE_DEALER": "local",
            "HOLDEM_TABLE_EVALUATOR": "local",
            "HOLDEM_TABLE_AI": "service",
            "HOLDEM_AI_ADDR": ai_addr,
            **env,
        },
    )


def _play(
    table: ServiceProcess,
    config: common_pb2.TableConfig,
    levels: Sequence[common_pb2.BotDifficulty.ValueType],
    timeout: float = 120,
) -> str:
    """Open a table, seat one bot per entry of ``levels`` and wait until it closed: at its hand
    limit, or closed here once a bot went broke (no hand can start with fewer bots than
    seats). Return its id."""
    table_id = f"b{uuid.uuid4().hex[:8]}"
    # Every call retries UNAVAILABLE as real callers do: the session's NATS is shared, so the
    # table's shard may still be leased by the replica of a test before (killed, its lease
    # not yet expired) or handed back by this one while it counted that replica alive.
    with table_as(table.address) as stub:
        retry(
            lambda: stub.SubmitCommand(
                table_pb2.SubmitCommandRequest(
                    table_id=table_id,
                    idempotency_key="open",
                    open_table=table_pb2.OpenTable(config=config),
                )
            )
        )
        for i, level in enumerate(levels):
            seat = table_pb2.SubmitCommandRequest(
                table_id=table_id,
                idempotency_key=f"bot-{i}",
                seat_player=table_pb2.SeatPlayer(
                    player_id=f"bot{i}",
                    seat=i,
                    buy_in=BUY_IN,
                    is_bot=True,
                    bot_difficulty=level,
                ),
            )
            retry(partial(stub.SubmitCommand, seat, timeout=60))
        deadline = time.monotonic() + timeout
        state = table_pb2.GetTableStateRequest(table_id=table_id)
        close = table_pb2.SubmitCommandRequest(
            table_id=table_id, idempotency_key="close", close_table=table_pb2.CloseTable()
        )
        while True:
            view = retry(lambda: stub.GetTableState(state)).view
            if view.table_status == common_pb2.TABLE_STATUS_CLOSED:
                return table_id
            if not view.hand_id and sum(1 for s in view.seats if s.stack > 0) < len(levels):
                retry(lambda: stub.SubmitCommand(close))
                continue
            assert time.monotonic() < deadline, "the bot table did not finish its hands"
            time.sleep(0.2)


def _stream(nats_url: str, table_id: str) -> list[Event]:
    """Every event of the table's private stream (hole cards included)."""

    async def read() -> list[Event]:
        import nats

        from libs.eventstore.jetstream import JetStreamEventStore

        nc = await nats.connect(nats_url)
        try:
            commits = await JetStreamEventStore(nc, stream="HOLDEM_TABLES").read(table_id)
        finally:
            await nc.close()
        return [e for c in commits for e in decode_commit(c.data)[1]]

    return asyncio.run(read())


def _check_the_hands(events: list[Event], bots: int) -> int:
    """Every hand ended and the chips are conserved to the last one; return the hands."""
    began = [e for e in events if isinstance(e, HandBegan)]
    ended = [e for e in events if isinstance(e, (HandEnded, HandVoided))]
    assert len(ended) == len(began) > 0
    assert not any(isinstance(e, HandVoided) for e in ended)
    (closed,) = [e for e in events if isinstance(e, TableClosed)]
    assert sum(stack for _, _, stack in closed.stacks) == bots * BUY_IN
    return len(ended)


def _fallbacks(table: ServiceProcess) -> list[dict[str, object]]:
    return [line for line in table.log_lines() if line.get("event") == "ai_fallback"]


def _decide_calls(ai: ServiceProcess) -> list[dict[str, object]]:
    return [
        line
        for line in ai.log_lines()
        if line.get("event") == "rpc finished" and str(line.get("rpc", "")).endswith("/Decide")
    ]


def _kind(event: Event) -> str:
    """What an ActionTaken did ("check", "fold", ...); "" for other events."""
    from libs.poker.events import ActionTaken

    return event.kind.value if isinstance(event, ActionTaken) else ""


def _bot_actions(events: list[Event]) -> int:
    from libs.poker.events import ActionTaken

    return sum(1 for e in events if isinstance(e, ActionTaken))


def test_bots_of_every_level_play_through_the_ai_service(
    start: Starter, nats_url: str, redis_url: str
) -> None:
    ai = start("ai", {})
    table = _table(start, nats_url, redis_url, ai.address, HOLDEM_TABLE_AI_TIMEOUT_MS=PATIENT)
    hands = 12
    levels = [LEVELS[i % 3] for i in range(6)]
    config = _config(common_pb2.VARIANT_HOLDEM, common_pb2.BETTING_STRUCTURE_NO_LIMIT, hands)
    table_id = _play(table, config, levels)
    events = _stream(nats_url, table_id)
    _check_the_hands(events, bots=6)
    seated = {e.player_id: e.bot_difficulty for e in events if isinstance(e, PlayerSeated)}
    assert seated == {
        f"bot{i}": [BotDifficulty.EASY, BotDifficulty.NORMAL, BotDifficulty.HARD][i % 3]
        for i in range(6)
    }
    assert not _fallbacks(table)
    calls = _decide_calls(ai)
    assert calls and all(c["status"] == "OK" for c in calls)
    assert len(calls) == _bot_actions(events)  # one Decide per decision, every one answered
    assert value(scrape(table), "holdem_table_ai_fallbacks_total") == 0


def test_without_the_ai_service_the_clock_rule_plays_and_the_hands_finish(
    start: Starter, nats_url: str, redis_url: str
) -> None:
    ai = start("ai", {})
    table = _table(start, nats_url, redis_url, ai.address, HOLDEM_TABLE_AI_TIMEOUT_MS="300")
    ai.kill()
    hands = 6
    levels = [LEVELS[i % 3] for i in range(4)]
    config = _config(
        common_pb2.VARIANT_OMAHA, common_pb2.BETTING_STRUCTURE_POT_LIMIT, hands, seats=4
    )
    table_id = _play(table, config, levels)
    events = _stream(nats_url, table_id)
    assert _check_the_hands(events, bots=4) == hands  # nobody goes broke checking and folding
    fallbacks = _fallbacks(table)
    # every decision by the clock rule: each action taken was decided by a fallback (a step
    # lost to a newer state is decided again, so one action may have cost two fallbacks)
    assert len(fallbacks) >= _bot_actions(events) > 0
    assert {line["action"] for line in fallbacks} <= {"check", "fold"}
    assert {_kind(e) for e in events if _kind(e)} <= {"check", "fold"}
    assert value(scrape(table), "holdem_table_ai_fallbacks_total") == len(fallbacks)


# ---------------------------------------------------------------------------- the privacy spy


@dataclass
class _Spy(ai_pb2_grpc.AiServiceServicer):
    """Records every request; answers as a calling station (EASY seats, so hands reach the
    river) or as Easy (the others), from the request alone."""

    requests: list[ai_pb2.DecideRequest] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def Decide(self, request: ai_pb2.DecideRequest, context: object) -> ai_pb2.DecideResponse:
        copy = ai_pb2.DecideRequest()
        copy.CopyFrom(request)
        with self.lock:
            self.requests.append(copy)
        checked = read_request(request)  # a consistent view, or the test fails on the answer
        level = Level.CALL if request.difficulty == common_pb2.BOT_DIFFICULTY_EASY else Level.EASY
        return response_from_decision(decide(checked.view, level, 7))

    def Policy(self, request: ai_pb2.PolicyRequest, context: object) -> ai_pb2.PolicyResponse:
        raise NotImplementedError("a table never asks for a policy")


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


def _cards_in(message: Message) -> list[int]:
    """Every card anywhere in ``message`` (any field of type holdem.common.v1.Card, nested)."""
    found: list[int] = []
    for descriptor, content in message.ListFields():
        if descriptor.message_type is None:
            continue
        items = [content] if isinstance(content, Message) else list(content)  # repeated
        for item in items:
            if isinstance(item, common_pb2.Card):
                found.append((int(item.rank) - 2) * 4 + int(item.suit) - 1)
            elif isinstance(item, Message):
                found.extend(_cards_in(item))
    return found


@dataclass
class _Hand:
    seats: tuple[int, ...] = ()
    hole: dict[int, tuple[int, ...]] = field(default_factory=dict)  # by seat
    board: list[int] = field(default_factory=list)


def _hands(events: list[Event]) -> dict[str, _Hand]:
    hands: dict[str, _Hand] = defaultdict(_Hand)
    current = ""
    for event in events:
        if isinstance(event, HandBegan):
            current = event.hand_id
            hands[current].seats = event.seats
        elif isinstance(event, HoleCardsDealt):
            hand = hands[current]
            hand.hole[hand.seats[event.player]] = tuple(int(c) for c in event.cards)
        elif isinstance(event, StreetDealt):
            hands[current].board.extend(int(c) for c in event.cards)
    return hands


def test_the_ai_service_never_receives_a_card_its_seat_may_not_see(
    start: Starter, nats_url: str, redis_url: str, spy: tuple[_Spy, str]
) -> None:
    servicer, address = spy
    table = _table(start, nats_url, redis_url, address, HOLDEM_TABLE_AI_TIMEOUT_MS=PATIENT)
    played: list[str] = []
    for variant, structure, hands in (
        (common_pb2.VARIANT_HOLDEM, common_pb2.BETTING_STRUCTURE_NO_LIMIT, 25),
        (common_pb2.VARIANT_OMAHA, common_pb2.BETTING_STRUCTURE_POT_LIMIT, 20),
        (common_pb2.VARIANT_OMAHA_HI_LO, common_pb2.BETTING_STRUCTURE_FIXED_LIMIT, 15),
    ):
        levels = [LEVELS[i % 2] for i in range(6)]  # half calling stations: long hands
        played.append(_play(table, _config(variant, structure, hands), levels))
    assert not _fallbacks(table)

    by_table: dict[str, dict[str, _Hand]] = {}
    decisions = hands = 0
    for table_id in played:
        events = _stream(nats_url, table_id)
        hands += _check_the_hands(events, bots=6)
        decisions += _bot_actions(events)
        by_table[table_id] = _hands(events)
    # Every bot action was asked of the AI, and nothing else was: one decision point (table,
    # hand, seat, actions so far) per committed action. A point may be asked twice (a reply
    # that came after the table had moved its shard or timed the request out is asked again).
    points = {
        (r.view.table_id, r.view.hand_id, r.view.viewer_seat, len(r.view.actions))
        for r in servicer.requests
    }
    assert hands >= 15 and len(points) == decisions
    assert len(servicer.requests) - decisions <= 3, "decisions asked over and over"
    streets_seen: set[int] = set()
    for request in servicer.requests:
        view = request.view
        hand = by_table[view.table_id][view.hand_id]
        mine = hand.hole[view.viewer_seat]
        visible = set(mine) | set(hand.board[: len(view.board)])
        cards = _cards_in(request)
        assert set(cards) <= visible, (
            f"seat {view.viewer_seat} of {view.table_id} hand {view.hand_id} was sent "
            f"{sorted(set(cards) - visible)}, which it may not see"
        )
        shown = {s.seat: tuple(_cards_in(s)) for s in view.seats if s.hole_cards}
        assert shown == {view.viewer_seat: mine}  # its own cards, in its own seat, only
        assert [c for c in _cards_in(view) if c in hand.board] == hand.board[: len(view.board)]
        assert len(view.board) == (0, 3, 4, 5)[int(view.street) - 1]
        streets_seen.add(int(view.street))
        assert view.actions, "the public history of the hand goes with every request"
    assert len(streets_seen) == 4  # requests on every street, not just preflop
