"""The stand-in gateway's tables (tests/client/fake_gateway.py): libs.table's aggregate driven in
memory, each command one commit with its public events and the state after it; what is due next
(cards from a seeded deck, bots that check or call, the clock that moves only when a test says
so) is applied at once; ``Refused`` is a call the stand-in refuses, with its status and code."""

from __future__ import annotations

import asyncio
import json
import random
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import grpc
from holdem.common.v1 import common_pb2 as pb
from holdem.events.v1 import events_pb2 as ev

from libs.poker.cards import DECK
from libs.poker.commands import DealBoard, DealHoleCards
from libs.table import TableState, codec, step_table
from libs.table import commands as tc
from libs.table import events as te
from libs.table.automation import (
    BoardDue,
    BotTurn,
    ClockDue,
    HandDue,
    HoleCardsDue,
    RevealDue,
    next_due,
)
from libs.table.commands import PlayerAction
from libs.tableproto.config import config_to_proto
from libs.tableproto.envelope import public_event


class Refused(Exception):
    def __init__(self, status: grpc.StatusCode, code: str, message: str) -> None:
        super().__init__(message)
        self.status, self.code, self.message = status, code, message


@dataclass
class Commit:
    sequence: int
    recorded: list[ev.RecordedEvent]  # public events, as sent to everyone
    state: TableState


@dataclass
class FakeTable:
    table_id: str
    name: str
    seed: int
    clock: Callable[[], float]
    state: TableState = field(default_factory=TableState)
    commits: list[Commit] = field(default_factory=list)
    names: dict[str, str] = field(default_factory=dict)
    changed: asyncio.Condition = field(default_factory=asyncio.Condition)
    # chips back to a wallet when a player leaves (after the hand) or the table closes
    cash_out: Callable[[str, int], None] = lambda player, chips: None

    @property
    def sequence(self) -> int:
        return self.commits[-1].sequence if self.commits else 0

    def summary(self) -> pb.TableSummary:
        s = self.state
        return pb.TableSummary(
            table_id=self.table_id,
            name=self.name,
            config=config_to_proto(s.config) if s.config else None,
            status=pb.TABLE_STATUS_CLOSED if s.closed else pb.TABLE_STATUS_OPEN,
            seated_players=len(s.seats),
        )

    async def apply(self, command: tc.TableCommand) -> int:
        """Commit ``command`` and whatever automation follows (bots, dealing); the sequence of
        the command's own commit."""
        sequence = await self._commit(command)
        for _ in range(5_000):
            nxt = self._automatic()
            if nxt is None:
                break
            await self._commit(nxt)
        return sequence

    async def _commit(self, command: tc.TableCommand) -> int:
        state, events = step_table(self.state, command)
        self.state = state
        for event in events:
            if isinstance(event, te.PlayerLeft):
                self.cash_out(event.player_id, event.stack)
            elif isinstance(event, te.TableClosed):
                for _, player, stack in event.stacks:
                    self.cash_out(player, stack)
        self.commits.append(Commit(self.sequence + 1, recorded(events), state))
        async with self.changed:
            self.changed.notify_all()
        return self.sequence

    def _automatic(self) -> tc.TableCommand | None:
        s, now = self.state, self.clock()
        due = next_due(s, now)
        rng = random.Random(f"{self.seed}:{s.hand_id}")
        deck = list(DECK)
        rng.shuffle(deck)
        match due:
            case None:
                return None
            case RevealDue():
                return tc.RevealSeed(due.hand_id, f"{self.seed:016x}", now)
            case HoleCardsDue():
                return tc.Deal(
                    tuple(
                        DealHoleCards(p, tuple(deck[i] for i in idx))
                        for p, idx in enumerate(due.positions)
                    ),
                    now,
                )
            case BoardDue():
                return tc.Deal((DealBoard(tuple(deck[i] for i in due.cards), deck[due.burn]),), now)
            case BotTurn():
                if due.options is None:
                    return tc.ShowOrMuck(due.player_id, True, now)
                o = due.options
                action = PlayerAction.CHECK if o.can_check else PlayerAction.CALL
                return tc.Act(due.player_id, action, 0, now)
            case ClockDue():
                return tc.Tick(now)
            case HandDue():
                people = any(not x.is_bot and not x.sitting_out for x in s.seats.values())
                if not people and not (s.config and s.config.hand_limit):
                    return None  # bots alone play only a table with a hand limit
                return tc.StartHand(due.hand_id, "c0ffee", now, f"deck-{due.hand_id}")
        return None


def recorded(events: list[Any]) -> list[ev.RecordedEvent]:
    """What the gateway sends of a commit: its public events as the table recorded them (nobody's
    hole cards, no burn cards); a player's own cards come in their view."""
    out = []
    for event in events:
        record = codec.encode(public_event(event))
        out.append(
            ev.RecordedEvent(
                type=record["type"],
                schema_version=record["v"],
                data=json.dumps(record["data"], separators=(",", ":")).encode(),
            )
        )
    return out
