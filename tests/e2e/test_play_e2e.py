"""End to end over the real stack (nats-server, redis-server, table, lobby, gateway as processes):
scripted clients (libs.client, as people and the terminal client use it) and AIs play every
variant x betting structure through the gateway, with joins, leaves, sit-outs, dropped streams
resumed with from_sequence, and retried actions. Afterwards every wallet is back to exactly its
grant in total (the lobby's chip audit agrees), and a privacy spy has checked every message the
gateway sent each client for a card that client may not see at that moment.

The CI-sized run plays 4 hands per combination (part of `make test`); the full run plays 20
(HOLDEM_NIGHTLY=1). Every wait is bounded: a player who gets no update for STALL_SECONDS at a table
still open fails the run at once, naming the player, the table, the hand and the last view it got
(with what every player of that table saw last), instead of waiting out the table's clocks."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import random
import shutil
import tempfile
from collections.abc import AsyncGenerator, Awaitable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, cast

import grpc
import pytest
from holdem.common.v1 import common_pb2 as pb
from holdem.gateway.v1 import gateway_pb2 as gw
from holdem.lobby.v1 import lobby_pb2, lobby_pb2_grpc
from holdem.table.v1 import table_pb2, table_pb2_grpc

from libs.cli.house import seat_ais
from libs.client import GatewayClient, GatewayError, RetryPolicy, new_key
from libs.client.view import bet_sizes, is_my_turn, is_showdown_turn, my_seat
from libs.devstack.identity import aio_channel_as
from libs.devstack.services import DEV_SERVICE_KEYS
from libs.eventstore.jetstream import JetStreamEventStore
from libs.platform.identity import TOOLS
from libs.platform.natsconn import connect_nats
from libs.platform.server import awaiting
from libs.tableproto.envelope import decode_commit
from tests.gateway.stack import GatewayStack, start_gateway_stack

pytestmark = [pytest.mark.integration, pytest.mark.timeout(1200)]

VARIANTS = (pb.VARIANT_HOLDEM, pb.VARIANT_OMAHA, pb.VARIANT_OMAHA_HI_LO)
STRUCTURES = (
    pb.BETTING_STRUCTURE_NO_LIMIT,
    pb.BETTING_STRUCTURE_POT_LIMIT,
    pb.BETTING_STRUCTURE_FIXED_LIMIT,
)
PEOPLE = 2  # scripted clients per table
AIS = (pb.BOT_DIFFICULTY_EASY, pb.BOT_DIFFICULTY_HARD)
BUY_IN = 200
TOOLS_KEY = DEV_SERVICE_KEYS.key(TOOLS).format()  # not the CLI's: this run's own stack
ACTIVITY: dict[str, float] = {}  # table -> when a person last got an update
PROGRESS: dict[str, dict[str, str]] = {}  # table -> player -> what it saw last
PATIENT = RetryPolicy(attempts=10, initial_delay=0.05, max_delay=1.0)
CALL_TIMEOUT = 30.0  # every call answers promptly (a leave during a hand too: `leaving`)
# No update for this long at an open table is a stall: below the action clock (60 s), so a turn
# nobody takes fails the run instead of being covered up by the clock.
STALL_SECONDS = 40.0
REJOIN_SECONDS = 90.0  # a player leaving during a hand can buy in again once it ends


class Stalled(AssertionError):
    pass


MOVES: dict[str, list[str]] = {}  # player -> its last moves and their answers


async def stalled(table_id: str, player_id: str) -> Stalled:
    """What a stall looked like: what each player saw last, the table's own state right now
    (has it moved on without this player hearing of it, and whose turn is it?) and where every
    task of this test is waiting (a player stuck in a call cannot take its turn)."""
    seen = PROGRESS.get(table_id, {})
    others = "; ".join(f"{p[:8]}: {what}" for p, what in seen.items() if p != player_id)
    return Stalled(
        f"player {player_id} got no update for {STALL_SECONDS:.0f} s at table {table_id}; "
        f"its last view: {seen.get(player_id, 'none')}; its last moves: "
        f"{MOVES.get(player_id, [])[-3:]}; the other players: {others or 'none'}; "
        f"the table now: {await table_now(table_id)}; tasks: {tasks_now()}; the services' "
        f"logs: {keep_logs()}"
    )


TABLE_ADDRESS: list[str] = []  # the stack's table service (for a stall's report)
LOGS: list[Path] = []  # the stack's services' logs (kept when a run stalls)


def keep_logs() -> str:
    """Copy the services' logs where a stalled run's report can point (pytest's temporary
    directories are removed by later runs)."""
    kept = Path(tempfile.mkdtemp(prefix="holdem-e2e-stall-"))
    for log in LOGS:
        with contextlib.suppress(OSError):
            shutil.copy(log, kept / log.name)
    return str(kept)


async def table_now(table_id: str) -> str:
    if not TABLE_ADDRESS:
        return "unknown"
    try:
        async with aio_channel_as(TABLE_ADDRESS[0], "gateway") as channel:
            table = table_pb2_grpc.TableServiceStub(channel)
            request = table_pb2.GetPlayerViewRequest(table_id=table_id)
            view = (await table.GetPlayerView(request, timeout=10)).view
    except grpc.aio.AioRpcError as error:
        return f"unreadable ({error.code().name}: {error.details()})"
    acting = view.acting_seat if view.HasField("acting_seat") else None
    who = next((s.player_id for s in view.seats if s.seat == acting), "-")
    return (
        f"seq {view.sequence} hand {view.hand_number} {view.hand_id!r} street {view.street} "
        f"acting seat {acting} ({who}: its moves {MOVES.get(who, [])[-2:]}) clock "
        f"{view.action_deadline.seconds if view.HasField('action_deadline') else '-'} "
        f"status {view.table_status}"
    )


def tasks_now() -> list[str]:
    return [" > ".join(awaiting(task.get_coro())) for task in asyncio.all_tasks()]


def moved(player_id: str, table_id: str, name: str, view: pb.PlayerView, reply: Any) -> None:
    MOVES.setdefault(player_id, []).append(
        f"{name} on view {view.sequence} -> commit {reply.sequence}, answer's view "
        f"{describe(reply.view, reply.sequence)}"
    )


@pytest.fixture(scope="module")
def stack(
    tmp_path_factory: pytest.TempPathFactory, nats_url: str, redis_url: str
) -> Iterator[GatewayStack]:
    started = start_gateway_stack(
        tmp_path_factory.mktemp("e2e"),
        nats_url,
        redis_url,
        {"HOLDEM_GATEWAY_RATE_BURST": "1000"},
    )
    TABLE_ADDRESS[:] = [started.table.address]
    LOGS[:] = [p.log_path for p in (started.gateway, started.table, started.lobby)]
    yield started
    for process in (started.gateway, started.lobby, started.table):
        process.kill()


# ---------------------------------------------------------------------------------------------
# the privacy spy


# hand id -> (the sequence of the commit that showed them, the cards shown), per table
Shown = dict[str, list[tuple[int, tuple[int, ...]]]]


async def shown_in_stream(nats_url: str, table_id: str) -> Shown:
    """Every show of the table's hands, from its own commit stream (what is true)."""
    nc = await connect_nats(nats_url)
    try:
        commits = await JetStreamEventStore(nc).read(table_id)
    finally:
        await nc.close()
    shown: Shown = {}
    hand = ""
    for stored in commits:
        for record in decode_commit(stored.data)[0].recorded:
            if record.type == "HandBegan":
                hand = json.loads(record.data)["hand_id"]
            elif record.type == "HandShown":
                cards = tuple(sorted(json.loads(record.data)["cards"]))
                shown.setdefault(hand, []).append((stored.sequence, cards))
    return shown


@dataclass
class Spy:
    """Every message the gateway sent one client (stream updates and action replies)."""

    player_id: str
    updates: list[gw.TableUpdate] = field(default_factory=list)
    views: list[pb.PlayerView] = field(default_factory=list)  # replies' views

    def problems(self, shown: Shown) -> list[str]:
        """Cards this client saw that it could not see at that moment: any hole or burn card in
        a commit's events; in a view, another seat's hole cards unless that seat had shown them
        in that hand by the view's sequence (``shown``: read from the table's own stream, not
        from what this client happened to receive: a stream opened just after a show starts
        with a view that shows the cards) (own cards only while seated)."""
        found = []
        for update in self.updates:
            for record in update.commit.recorded:
                data = json.loads(record.data)
                if record.type == "HoleCardsDealt" and data.get("cards"):
                    found.append(
                        f"{self.player_id} got hole cards in a commit at {update.sequence}"
                    )
                elif record.type == "StreetDealt" and data.get("burn") is not None:
                    found.append(f"{self.player_id} got a burn card at {update.sequence}")
        views = [u.view for u in self.updates if u.HasField("view")]
        snapshots = [u.snapshot for u in self.updates if u.HasField("snapshot")]
        views += snapshots
        for view in views + self.views:
            for seat in view.seats:
                if not seat.hole_cards:
                    continue
                if view.HasField("viewer_seat") and seat.seat == view.viewer_seat:
                    if seat.player_id != self.player_id:
                        found.append(f"{self.player_id} was given seat {seat.seat}'s cards")
                    continue
                cards = tuple(sorted((c.rank - 2) * 4 + (c.suit - 1) for c in seat.hole_cards))
                legal = any(
                    seq <= view.sequence and cards == shown_cards
                    for seq, shown_cards in shown.get(view.hand_id, [])
                )
                if not legal:
                    found.append(
                        f"{self.player_id} saw seat {seat.seat}'s unshown cards at {view.sequence}"
                        f" (hand {view.hand_id!r}, street {view.street}, status {seat.status},"
                        f" shown in that hand {shown.get(view.hand_id)}, cards {cards},"
                        f" snapshot {view in snapshots})"
                    )
        return found


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


def describe(view: pb.PlayerView, acted: int) -> str:
    me = my_seat(view)
    legal = view.legal_actions
    return (
        f"seq {view.sequence} hand {view.hand_number} {view.hand_id!r} street {view.street} "
        f"acting {view.acting_seat if view.HasField('acting_seat') else '-'} "
        f"me {me.seat if me else '-'} (status {me.status if me else '-'}, "
        f"stack {me.stack if me else '-'}) legal "
        f"{legal.can_check, legal.can_call, legal.can_bet_or_raise, legal.max_raise_to}"
        f"{'' if view.HasField('legal_actions') else ' (none)'} "
        f"{'(its turn) ' if is_my_turn(view) else ''}acted at {acted} "
        f"table status {view.table_status}"
    )


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
            return
        except GatewayError as error:
            if error.code == "TABLE_CLOSED" or error.status == grpc.StatusCode.NOT_FOUND:
                return
            if asyncio.get_running_loop().time() > deadline:
                who = client.player_id
                raise AssertionError(f"{who} could not join {table_id} again: {error}") from None
            await asyncio.sleep(0.1)


# ---------------------------------------------------------------------------------------------


async def login(client: GatewayClient, name: str) -> None:
    """Guest logins are rate limited per caller: wait as told."""
    for _ in range(60):
        try:
            await client.guest_login(name)
            return
        except GatewayError as error:
            if error.status != grpc.StatusCode.RESOURCE_EXHAUSTED:
                raise
            await asyncio.sleep(1.0)
    raise AssertionError("guest login kept being refused")


async def run_table(
    stack: GatewayStack,
    variant: pb.Variant.ValueType,
    structure: pb.BettingStructure.ValueType,
    hands: int,
    seed: int,
    accounts: asyncio.Lock,
) -> tuple[list[GatewayClient], list[str], list[Spy], Counts, str]:
    """Two people create the table, join and play to its close; the AIs join once they sit
    (account creation is rate limited per caller: one table's logins at a time)."""
    address = stack.gateway.address
    rng = random.Random(seed)
    config = pb.TableConfig(
        variant=variant,
        betting_structure=structure,
        max_seats=6,
        small_blind=1,
        big_blind=2,
        hand_limit=hands,
        # everyone: the hands start once the people have joined the AIs (a table stalled by a
        # busted AI gets another one, below)
        min_players_to_start=PEOPLE + len(AIS),
        action_clock_seconds=60,
    )
    people = [GatewayClient(address, retry=PATIENT, timeout=CALL_TIMEOUT) for _ in range(PEOPLE)]
    async with accounts:
        for i, client in enumerate(people):
            await login(client, f"p{seed}-{i}")
        table = await people[0].create_table(config, f"e2e {variant}/{structure}")
        table_id = table.table_id
        ais = await seat_ais(stack.lobby.address, table_id, AIS, BUY_IN, key=TOOLS_KEY)
    counts = Counts()
    spies = [Spy(p.player_id) for p in people]
    seated = [asyncio.Event() for _ in people]

    async def person(
        client: GatewayClient, spy: Spy, c: Counts, sat: asyncio.Event, first: bool
    ) -> None:
        await client.join_table(table_id, BUY_IN)
        c.joins += 1
        sat.set()
        rng_of = random.Random(rng.random())
        # the first player leaves and goes all in, the second sits out, once at least each
        await play(address, table_id, client, spy, rng_of, c, first, not first)

    per_player = [Counts() for _ in people]
    tasks = [
        asyncio.create_task(person(p, spy, c, e, i == 0))
        for i, (p, spy, c, e) in enumerate(zip(people, spies, per_player, seated, strict=True))
    ]
    loop = asyncio.get_running_loop()
    ACTIVITY[table_id] = loop.time()
    while not all(t.done() for t in tasks):
        if any(t.done() and t.exception() for t in tasks):
            break  # gather below raises it
        await asyncio.sleep(1.0)
        if loop.time() - ACTIVITY[table_id] > 8.0:  # waiting for players: busted AIs sit out
            async with accounts:
                ais += await replace_busted_ais(stack, table_id, ais)
            ACTIVITY[table_id] = loop.time()
    await asyncio.gather(*tasks)
    for c in per_player:
        counts.add(c)
    return people, ais, spies, counts, table_id


async def replace_busted_ais(stack: GatewayStack, table_id: str, ais: list[str]) -> list[str]:
    """Between hands, a busted AI (0 chips, sitting out) leaves and a new one takes a seat."""
    async with (
        aio_channel_as(stack.table.address, "gateway") as table_channel,
        aio_channel_as(stack.lobby.address) as lobby_channel,
    ):
        table = table_pb2_grpc.TableServiceStub(table_channel)
        lobby = lobby_pb2_grpc.LobbyServiceStub(lobby_channel)
        request = table_pb2.GetPlayerViewRequest(table_id=table_id)
        view = (await table.GetPlayerView(request, timeout=CALL_TIMEOUT)).view
        if view.hand_id or view.table_status == pb.TABLE_STATUS_CLOSED:
            return []
        seated = [s for s in view.seats if s.player_id]
        busted = [s.player_id for s in seated if s.player_id in ais and s.stack == 0]
        for player_id in busted:
            try:
                await lobby.LeaveTable(
                    lobby_pb2.LeaveTableRequest(
                        player_id=player_id, table_id=table_id, idempotency_key=new_key()
                    ),
                    timeout=CALL_TIMEOUT,
                )
            except grpc.aio.AioRpcError as error:  # closed meanwhile
                assert error.code() == grpc.StatusCode.FAILED_PRECONDITION, error
                return []
        if len(seated) - len(busted) >= view.config.max_seats:
            return []
        try:
            return await seat_ais(stack.lobby.address, table_id, AIS[:1], BUY_IN, key=TOOLS_KEY)
        except grpc.aio.AioRpcError as error:  # closed (or a hand began) meanwhile
            assert error.code() == grpc.StatusCode.FAILED_PRECONDITION, error
            return []


async def settle(stack: GatewayStack, player_ids: list[str]) -> dict[str, lobby_pb2.Wallet]:
    """Every wallet once nothing is on a table or reserved any more (cash-outs are credited
    from the table's commits, a moment after the close)."""
    async with aio_channel_as(stack.lobby.address) as channel:
        lobby = lobby_pb2_grpc.LobbyServiceStub(channel)
        for _ in range(300):
            wallets = {
                pid: (await lobby.GetWallet(lobby_pb2.GetWalletRequest(player_id=pid))).wallet
                for pid in player_ids
            }
            if all(w.on_tables == 0 and w.reserved == 0 for w in wallets.values()):
                return wallets
            await asyncio.sleep(0.2)
    raise AssertionError(f"chips still on tables: {wallets}")


async def audit(stack: GatewayStack) -> lobby_pb2.AuditChipsResponse:
    async with aio_channel_as(stack.lobby.address) as channel:
        lobby = lobby_pb2_grpc.LobbyServiceStub(channel)
        return await lobby.AuditChips(lobby_pb2.AuditChipsRequest(), timeout=30)


def run_all(stack: GatewayStack, hands: int) -> None:
    async def main() -> None:
        grant_probe = GatewayClient(stack.gateway.address)
        await login(grant_probe, "probe")
        grant = (await grant_probe.wallet()).balance
        await grant_probe.close()
        combos = [(v, s) for v in VARIANTS for s in STRUCTURES]
        accounts = asyncio.Lock()
        budget = 180 + 45 * hands  # a backstop: a stall fails after STALL_SECONDS
        try:
            results = await asyncio.wait_for(
                asyncio.gather(
                    *(
                        run_table(stack, v, s, hands, i + 1, accounts)
                        for i, (v, s) in enumerate(combos)
                    )
                ),
                budget,
            )
        except TimeoutError:
            seen = "\n".join(f"{t}: {p}" for t, p in PROGRESS.items())
            raise AssertionError(f"the tables did not finish in {budget} s:\n{seen}") from None
        total = Counts()
        problems: list[str] = []
        player_ids: list[str] = []
        for people, ais, spies, counts, table_id in results:
            total.add(counts)
            shown = await shown_in_stream(stack.nats_url, table_id)
            for spy in spies:
                problems += spy.problems(shown)
            player_ids += [p.player_id for p in people] + ais
            for person in people:
                await person.close()
        wallets = await settle(stack, player_ids)
        # every chip granted to these players is back in their wallets (no rake configured)
        assert sum(w.balance for w in wallets.values()) == grant * len(player_ids)
        report = await audit(stack)
        assert report.holds, report
        assert not problems, problems[:10]
        # every kind of action, and the rest of the script, happened
        for kind in ("fold", "check", "call", "bet", "raise", "all_in"):
            assert total.actions.get(kind, 0) > 0, (kind, total.actions)
        assert total.retries and total.resumes and total.sit_outs and total.leaves
        print(f"\ne2e: {len(combos)} tables x {hands} hands; {total}")

    asyncio.run(main())


def test_every_variant_and_structure_through_the_gateway_ci_sized(stack: GatewayStack) -> None:
    run_all(stack, hands=4)


@pytest.mark.slow
@pytest.mark.skipif(
    not os.environ.get("HOLDEM_NIGHTLY"),
    reason="the 20-hand run is nightly-sized (HOLDEM_NIGHTLY=1); CI runs the short one",
)
def test_every_variant_and_structure_through_the_gateway_20_hands(stack: GatewayStack) -> None:
    run_all(stack, hands=20)
