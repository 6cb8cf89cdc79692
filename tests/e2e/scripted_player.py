"""A scripted player of the end-to-end play test: it watches its table through the gateway and
takes its turns (random legal actions, sizes and show-or-muck), sits out and in, leaves and joins
again, and has its stream cut and resumed; every message it gets goes through the privacy spy."""

from __future__ import annotations

import asyncio
import random
from collections.abc import AsyncGenerator, Awaitable
from dataclasses import dataclass, field
from typing import Any, cast

import grpc
from holdem.common.v1 import common_pb2 as pb
from holdem.gateway.v1 import gateway_pb2 as gw

from libs.client import GatewayClient, GatewayError, new_key
from libs.client.view import bet_sizes, is_my_turn, is_showdown_turn, my_seat
from tests.e2e.play_support import (
    ACTIVITY,
    BUY_IN,
    CALL_TIMEOUT,
    PROGRESS,
    REJOIN_SECONDS,
    STALL_SECONDS,
    Spy,
    describe,
    moved,
    stalled,
    standing_answer,
)

# ---------------------------------------------------------------------------------------------
# a scripted player


@dataclass
class Counts:
    actions: dict[str, int] = field(default_factory=dict)
    retries: int = 0
    resumes: int = 0
    sit_outs: int = 0
    leaves: int = 0
    leaving: int = 0  # leaves answered during a hand (cashed out when it ended)
    joins: int = 0
    turns_at_own_move: int = 0  # our turn in the view of our own move's commit
    refused: list[str] = field(default_factory=list)

    def add(self, other: Counts) -> None:
        for k, v in other.actions.items():
            self.actions[k] = self.actions.get(k, 0) + v
        self.retries += other.retries
        self.resumes += other.resumes
        self.sit_outs += other.sit_outs
        self.leaves += other.leaves
        self.leaving += other.leaving
        self.joins += other.joins
        self.turns_at_own_move += other.turns_at_own_move
        self.refused += other.refused


def choose(
    view: pb.PlayerView, rng: random.Random, eager: bool = False
) -> tuple[pb.ActionType.ValueType, int, str]:
    """A random legal move (``eager``: all in whenever that is one of them)."""
    legal = view.legal_actions
    sizes = bet_sizes(view)
    me = my_seat(view)
    committed = me.committed if me is not None else 0
    options: list[tuple[pb.ActionType.ValueType, int, str]] = []
    if legal.can_check:
        options += [(pb.ACTION_TYPE_CHECK, 0, "check")] * 4
    if legal.can_call:
        options += [(pb.ACTION_TYPE_CALL, 0, "call")] * 4
    if legal.can_fold and not legal.can_check:
        options += [(pb.ACTION_TYPE_FOLD, 0, "fold")] * 2
    if sizes:
        kind = pb.ACTION_TYPE_RAISE if legal.can_call else pb.ACTION_TYPE_BET
        name = "raise" if legal.can_call else "bet"
        options += [(kind, sizes["min"], name)] * 2
        options.append((kind, rng.randint(sizes["min"], sizes["pot"]), name))
        if committed + legal.all_in_amount <= legal.max_raise_to:  # (not over a limit's cap)
            options.append((pb.ACTION_TYPE_ALL_IN, 0, "all_in"))
    if eager and options[-1][2] == "all_in":
        return options[-1]
    return rng.choice(options)


def safe(view: pb.PlayerView) -> tuple[pb.ActionType.ValueType, str]:
    """What a person does after a refusal they did not expect: check, else fold."""
    if view.legal_actions.can_check:
        return pb.ACTION_TYPE_CHECK, "check"
    return pb.ACTION_TYPE_FOLD, "fold"


async def play(
    address: str,
    table_id: str,
    client: GatewayClient,
    spy: Spy,
    rng: random.Random,
    counts: Counts,
    must_leave: bool = False,
    must_sit_out: bool = False,
) -> None:
    """Play until the table closes: act on every turn, and now and then retry an action, drop
    and resume the stream, sit out for a hand, or leave and join again (``must_leave``: at least
    once, in the first hand it sees, so a short run cannot roll no leave at all; ``must_sit_out``
    likewise)."""
    last = 0
    left = False
    # The sequence of our last move: a view before it is stale, while a view AT it is the state
    # our move made, which may be our turn again (our closing call opens the showdown, and the
    # first to show is us). A refused move skips the view it was made on.
    acted = 0
    sat_out_at = 0
    closed = False
    leaving: asyncio.Task[None] | None = None
    progress = PROGRESS.setdefault(table_id, {})
    while not closed:
        progress[client.player_id] = f"watching from {last}"
        drop_after = rng.randint(15, 60)
        received = 0
        stream = cast(
            AsyncGenerator[gw.TableUpdate, None], client.watch(table_id, from_sequence=last)
        )
        while True:
            try:
                update = await asyncio.wait_for(anext(stream), STALL_SECONDS)
            except StopAsyncIteration:
                closed = True  # the gateway ended the stream: the table is gone
                progress[client.player_id] = f"its stream ended without an error after {last}"
                break
            except TimeoutError:
                raise await stalled(table_id, client.player_id) from None
            spy.updates.append(update)
            last = update.sequence
            ACTIVITY[table_id] = asyncio.get_running_loop().time()
            received += 1
            if any(r.type == "TableClosed" for r in update.commit.recorded):
                closed = True
                progress[client.player_id] = f"saw the table close at {last}"
                break
            if not update.HasField("view"):
                continue
            view = update.view
            me = my_seat(view)
            progress[client.player_id] = describe(view, acted)
            if view.table_status == pb.TABLE_STATUS_CLOSED:
                closed = True  # a snapshot of a closed table (resumed after its close)
                progress[client.player_id] = f"saw a closed table's view at {last}"
                break
            if me is None:
                continue
            if sat_out_at and (view.hand_number > sat_out_at or not view.hand_id):
                # back in (or, refused, no longer sitting out: a leave and a new seat meanwhile)
                await housekeeping(client.sit_in(table_id), counts)
                sat_out_at = 0
            idle = leaving is None or leaving.done()
            if me.stack == 0 and not view.hand_id and idle:  # busted: leave, buy in again
                leaving = asyncio.create_task(leave_and_join(client, table_id, counts))
                continue
            if view.sequence >= acted and is_my_turn(view):
                counts.turns_at_own_move += view.sequence == acted
                # the first player at a table goes all in once at least (a short run could
                # roll none at all)
                eager = must_leave and not counts.actions.get("all_in")
                acted = await take_turn(client, table_id, view, rng, counts, spy, eager)
                continue
            if not view.hand_id or view.sequence < acted:
                continue
            roll = rng.random()
            if (roll < 0.02 or (must_sit_out and not counts.sit_outs)) and not sat_out_at and idle:
                # from the next hand on; back in the hand after
                if await housekeeping(client.sit_out(table_id), counts):
                    counts.sit_outs += 1
                    sat_out_at = view.hand_number
            elif (roll < 0.03 or (must_leave and not left)) and idle:
                # answered at once (`leaving`); the join after it waits for the hand's end
                leaving = asyncio.create_task(leave_and_join(client, table_id, counts))
                left = True
            if received >= drop_after:
                counts.resumes += 1
                break  # drop the stream; reopen it from the last sequence seen
        await stream.aclose()
    if leaving is not None:
        await asyncio.wait_for(leaving, REJOIN_SECONDS + 2 * CALL_TIMEOUT)


async def housekeeping(call: Awaitable[object], counts: Counts) -> bool:
    """A sit-out, sit-in or leave may race the table's close (or a bust): a refusal is fine."""
    try:
        await call
    except GatewayError as error:
        # the table closed, or our own leave (in the background) won the race
        assert (
            error.status == grpc.StatusCode.FAILED_PRECONDITION or error.code == "NOT_YOUR_SEAT"
        ), error
        counts.refused.append(f"{error.status.name} {error.code}")
        return False
    return True


async def take_turn(
    client: GatewayClient,
    table_id: str,
    view: pb.PlayerView,
    rng: random.Random,
    counts: Counts,
    spy: Spy,
    eager: bool = False,
) -> int:
    if is_showdown_turn(view):
        try:
            if rng.random() < 0.5:
                reply: Any = await client.muck(table_id, hand_id=view.hand_id)
                counts.actions["muck"] = counts.actions.get("muck", 0) + 1
            else:
                reply = await client.show(table_id, hand_id=view.hand_id)
                counts.actions["show"] = counts.actions.get("show", 0) + 1
        except GatewayError as error:  # mucking would give up an uncontested pot (or stale)
            counts.refused.append(f"{error.status.name} {error.code}")
            try:
                reply = await client.show(table_id, hand_id=view.hand_id)
            except GatewayError as again:  # not our turn any more: the stream says what is
                assert again.status == grpc.StatusCode.FAILED_PRECONDITION or (
                    again.code == "NOT_YOUR_SEAT"  # our own leave (in the background) went first
                ), again
                counts.refused.append(f"{again.status.name} {again.code}")
                return view.sequence + 1
            counts.actions["show"] = counts.actions.get("show", 0) + 1
        spy.views.append(reply.view)
        moved(client.player_id, table_id, "show/muck", view, reply)
        return int(reply.sequence)
    action, amount, name = choose(view, rng, eager)
    key = new_key()
    try:
        reply = await client.act(table_id, action, amount, hand_id=view.hand_id, key=key)
    except GatewayError as error:
        # refused (a stale view, or an amount out of bounds): the turn is still ours unless the
        # view was stale; a person then checks or folds rather than leave it to the clock
        counts.refused.append(f"{error.status.name} {error.code} {error.message}")
        action, name = safe(view)
        amount, key = 0, new_key()
        try:
            reply = await client.act(table_id, action, amount, hand_id=view.hand_id, key=key)
        except GatewayError as again:
            assert again.status in (
                grpc.StatusCode.FAILED_PRECONDITION,
                grpc.StatusCode.PERMISSION_DENIED,
            ), again
            counts.refused.append(f"{again.status.name} {again.code} {again.message}")
            return view.sequence + 1
    spy.views.append(reply.view)
    moved(client.player_id, table_id, name, view, reply)
    counts.actions[name] = counts.actions.get(name, 0) + 1
    if rng.random() < 0.15:  # the reply was "lost": the same request again
        repeat = await client.act(table_id, action, amount, hand_id=view.hand_id, key=key)
        assert repeat.sequence == reply.sequence, "a retried Act was applied twice"
        spy.views.append(repeat.view)
        counts.retries += 1
    return int(reply.sequence)


async def leave_and_join(client: GatewayClient, table_id: str, counts: Counts) -> None:
    try:
        left = await client.leave_table(table_id)
    except GatewayError as error:
        # the table closed, or our own leave (in the background) won the race
        assert (
            error.status == grpc.StatusCode.FAILED_PRECONDITION or error.code == "NOT_YOUR_SEAT"
        ), error
        counts.refused.append(f"{error.status.name} {error.code}")
        return
    counts.leaves += 1
    counts.leaving += left.leaving
    deadline = asyncio.get_running_loop().time() + REJOIN_SECONDS
    while True:  # a leave during a hand takes effect when it ends: then buy in again
        try:
            await client.join_table(table_id, BUY_IN)
            counts.joins += 1
            await standing_answer(client, table_id)
            return
        except GatewayError as error:
            if error.code == "TABLE_CLOSED" or error.status == grpc.StatusCode.NOT_FOUND:
                return
            if asyncio.get_running_loop().time() > deadline:
                who = client.player_id
                raise AssertionError(f"{who} could not join {table_id} again: {error}") from None
            await asyncio.sleep(0.1)
