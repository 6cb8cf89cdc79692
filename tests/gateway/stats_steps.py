"""Helpers of the statistics tests through the gateway: heads-up hands played to a script by
registered players (``play_heads_up``), what each script adds to each role by hand (the
expected numbers, written out, not computed), and the statistics a viewer can work out from
their own projected hands (``seen_by``: the spy's truth)."""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import Callable

import grpc
import nats
from holdem.common.v1 import common_pb2
from holdem.gateway.v1 import gateway_pb2

from libs.eventstore.jetstream import JetStreamEventStore
from libs.history import StoredCommit, played_hands
from libs.poker.events import PotAwarded
from libs.stats import Counts, hand_count
from libs.table.events import HandBegan, PlayerSeated
from libs.tableproto.envelope import decode_commit, recorded_seconds
from tests.conditions import wait_until_sync
from tests.gateway.chat_steps import Person
from tests.gateway.stack import GatewayStack

A = common_pb2
WORDS = {
    "f": A.ACTION_TYPE_FOLD,
    "x": A.ACTION_TYPE_CHECK,
    "c": A.ACTION_TYPE_CALL,
    "a": A.ACTION_TYPE_ALL_IN,
}

#: Heads-up scripts (the button posts the small blind and acts first before the flop, last
#: after it) and, by hand, what each adds to the small blind and to the big blind.
SCRIPTS = ("f", "r6 r18 f", "c x  x x  x x  x x", "r6 c  x r10 f")
EXPECTED: tuple[tuple[Counts, Counts], ...] = (
    (Counts(hands=1, preflop_chances=1), Counts(hands=1)),  # a walk
    (
        Counts(hands=1, preflop_chances=1, vpip=1, pfr=1),
        Counts(hands=1, preflop_chances=1, vpip=1, pfr=1, three_bet_chances=1, three_bets=1),
    ),
    (  # a limp checked down: both at the showdown (who won is read from the table)
        Counts(hands=1, preflop_chances=1, vpip=1, saw_flop=1, showdowns=1, checks=3),
        Counts(hands=1, preflop_chances=1, saw_flop=1, showdowns=1, checks=3),
    ),
    (
        Counts(hands=1, preflop_chances=1, vpip=1, pfr=1, saw_flop=1, bets=1),
        Counts(
            hands=1,
            preflop_chances=1,
            vpip=1,
            three_bet_chances=1,
            saw_flop=1,
            checks=1,
            folds=1,
        ),
    ),
)


def _acting(stack: GatewayStack, table_id: str, people: list[Person]) -> Person | None:
    view = stack.view(table_id)
    if not view.HasField("acting_seat"):
        return None
    seat = next(s for s in view.seats if s.seat == view.acting_seat)
    return next(p for p in people if p.player_id == seat.player_id)


def play_heads_up(
    gw: object,
    stack: GatewayStack,
    table_id: str,
    people: list[Person],
    after_hand: Callable[[int], None] = lambda number: None,
) -> None:
    """Play every script, one hand each; a beaten hand at the showdown is mucked;
    ``after_hand(n)`` once hand ``n`` is over."""
    for number, script in enumerate(SCRIPTS, start=1):
        wait_until_sync(
            lambda n=number: (
                stack.view(table_id).hand_number == n  # type: ignore[misc]
                and _acting(stack, table_id, people) is not None
            ),
            f"hand {number}",
        )
        hand_id = stack.view(table_id).hand_id
        for word in script.split():
            wait_until_sync(  # the board may be being dealt
                lambda: _acting(stack, table_id, people) is not None, f"a turn in hand {number}"
            )
            who = _acting(stack, table_id, people)
            assert who is not None, (number, word)
            request = gateway_pb2.ActRequest(
                table_id=table_id, hand_id=hand_id, idempotency_key=uuid.uuid4().hex
            )
            if word[0] == "r":
                own = stack.view(table_id, who.player_id)
                bet = not own.legal_actions.can_call and len(own.board) > 0  # nobody bet yet
                request.action = A.ACTION_TYPE_BET if bet else A.ACTION_TYPE_RAISE
                request.amount = int(word[1:])
            else:
                request.action = WORDS[word]
            gw.Act(request, metadata=who.meta, timeout=30)  # type: ignore[attr-defined]
        _finish(gw, stack, table_id, people, number)
        after_hand(number)


def _finish(
    gw: object, stack: GatewayStack, table_id: str, people: list[Person], number: int
) -> None:
    """Muck every beaten hand the showdown asks about, until the hand is over."""

    def over() -> bool:
        view = stack.view(table_id)
        if view.hand_number != number or not view.hand_id:
            return True
        who = _acting(stack, table_id, people)
        if who is None:
            return False
        own = stack.view(table_id, who.player_id)
        if own.HasField("showdown"):
            try:
                gw.Muck(  # type: ignore[attr-defined]
                    gateway_pb2.MuckRequest(
                        table_id=table_id, hand_id=own.hand_id, idempotency_key=uuid.uuid4().hex
                    ),
                    metadata=who.meta,
                    timeout=30,
                )
            except grpc.RpcError:  # not allowed to muck (or already done): show then
                return False
        return False

    wait_until_sync(over, f"the end of hand {number}")


async def read_table_commits(nats_url: str, table_id: str) -> list[StoredCommit]:
    """The table's own stream (hidden cards and all): the truth the spy projects from."""
    nc = await nats.connect(nats_url)
    try:
        commits = await JetStreamEventStore(nc).read(table_id)
    finally:
        await nc.close()
    out: list[StoredCommit] = []
    for commit in commits:
        envelope, events = decode_commit(commit.data)
        out.append((commit.sequence, recorded_seconds(envelope), events))
    return out


def table_commits(nats_url: str, table_id: str) -> list[StoredCommit]:
    return asyncio.run(read_table_commits(nats_url, table_id))


def counts_of(stats: gateway_pb2.PlayerStats) -> Counts:
    """A PlayerStats answer's counters."""
    return Counts(
        hands=stats.hands,
        preflop_chances=stats.preflop_chances,
        vpip=stats.vpip_hands,
        pfr=stats.pfr_hands,
        three_bet_chances=stats.three_bet_chances,
        three_bets=stats.three_bets,
        saw_flop=stats.saw_flop,
        showdowns=stats.showdowns,
        showdowns_won=stats.showdowns_won,
        bets=stats.bets,
        raises=stats.raises,
        calls=stats.calls,
        checks=stats.checks,
        folds=stats.folds,
    )


def expected(commits: list[StoredCommit]) -> dict[str, Counts]:
    """Each player's numbers by the written-out expectations (who won the showdown of hand 3
    read from its pots)."""
    totals: dict[str, Counts] = {}
    seated: dict[int, str] = {}
    number = 0
    positions: tuple[str, ...] = ()
    won: set[str] = set()
    for _, _, events in commits:
        for event in events:
            if isinstance(event, PlayerSeated):
                seated[event.seat] = event.player_id
            elif isinstance(event, HandBegan):
                number = event.hand_number
                positions = tuple(seated[s] for s in event.seats)
                big, small = positions  # heads-up: the big blind at position 0
                sb, bb = EXPECTED[number - 1]
                totals[small] = totals.get(small, Counts()) + sb
                totals[big] = totals.get(big, Counts()) + bb
            elif isinstance(event, PotAwarded) and number == 3:
                won |= {positions[w] for w, amount in event.winners if amount}
    for player in won:
        totals[player] += Counts(showdowns_won=1)
    return totals


def seen_by(commits: list[StoredCommit], viewer: str) -> dict[str, Counts]:
    """Every player's numbers from the hands ``viewer`` was dealt into, each as projected for
    ``viewer`` (their own hole cards, shown cards, nothing else)."""
    totals: dict[str, Counts] = {}
    for hand in played_hands(commits, viewer):
        count = hand_count(hand) if hand.viewer is not None else None
        if count is None:
            continue
        for player, counts in count.players.items():
            totals[player] = totals.get(player, Counts()) + counts
    return totals
