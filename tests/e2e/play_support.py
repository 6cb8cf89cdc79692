"""What the end-to-end play test shares between its parts: the sizes of the run (variants,
structures, people and AIs per table, buy-in, patience), what it remembers while it runs (each
table's last activity, what each player saw and did last, the stack's table service and logs),
the report of a stall, and the privacy spy that checks every message a client got."""

from __future__ import annotations

import asyncio
import contextlib
import json
import shutil
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import grpc
from holdem.common.v1 import common_pb2 as pb
from holdem.gateway.v1 import gateway_pb2 as gw
from holdem.table.v1 import table_pb2, table_pb2_grpc

from libs.client import RetryPolicy
from libs.client.view import is_my_turn, my_seat
from libs.devstack.identity import aio_channel_as
from libs.devstack.services import DEV_SERVICE_KEYS
from libs.eventstore.jetstream import JetStreamEventStore
from libs.platform.identity import TOOLS
from libs.platform.natsconn import connect_nats
from libs.platform.server import awaiting
from libs.tableproto.envelope import decode_commit

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


# ---------------------------------------------------------------------------------------------
# the privacy spy


# hand id -> (the sequence of the commit that showed them, the cards shown), per table; under
# hand id + RUNS, the further runs of its board (their own cards) the same way
Shown = dict[str, list[tuple[int, tuple[int, ...]]]]
RUNS = "#runs"
RABBIT = "#rabbit"


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
            elif record.type == "RunDealt":  # a further run of the board (run it twice)
                cards = tuple(sorted(json.loads(record.data)["cards"]))
                shown.setdefault(f"{hand}{RUNS}", []).append((stored.sequence, cards))
            elif record.type == "RabbitHunted":  # the cards that would have come, now public
                data = json.loads(record.data)
                cards = tuple(sorted(data["cards"]))
                shown.setdefault(f"{data['hand_id']}{RABBIT}", []).append((stored.sequence, cards))
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
                elif record.type == "RunDealt" and data.get("burns"):
                    found.append(f"{self.player_id} got a run's burn cards at {update.sequence}")
        views = [u.view for u in self.updates if u.HasField("view")]
        snapshots = [u.snapshot for u in self.updates if u.HasField("snapshot")]
        views += snapshots
        for view in views + self.views:
            found += _unseen_runs(self.player_id, view, shown)
            found += _unseen_rabbit(self.player_id, view, shown)
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


def _unseen_runs(player_id: str, view: pb.PlayerView, shown: Shown) -> list[str]:
    """Cards of a further run of the board in ``view`` before the stream dealt that run."""
    dealt = {
        int(c)
        for seq, cards in shown.get(f"{view.hand_id}{RUNS}", [])
        for c in cards
        if seq <= view.sequence
    }
    allowed = dealt | {(c.rank - 2) * 4 + (c.suit - 1) for c in view.board}
    return [
        f"{player_id} saw an undealt run's card at {view.sequence} (hand {view.hand_id!r})"
        for run in view.run_boards
        for c in run.cards
        if (c.rank - 2) * 4 + (c.suit - 1) not in allowed
    ]


def _unseen_rabbit(player_id: str, view: pb.PlayerView, shown: Shown) -> list[str]:
    """A rabbit hunt's cards in ``view`` before the stream recorded that hunt."""
    if not view.rabbit.cards:
        return []
    cards = tuple(sorted((c.rank - 2) * 4 + (c.suit - 1) for c in view.rabbit.cards))
    hunted = shown.get(f"{view.rabbit.hand_id}{RABBIT}", [])
    if any(seq <= view.sequence and cards == hunted_cards for seq, hunted_cards in hunted):
        return []
    return [f"{player_id} saw rabbit cards {cards} at {view.sequence} before they were hunted"]


async def standing_answer(client: Any, table_id: str) -> None:
    """Agree in advance to run the board three times (a new seat would be asked, and wait the
    question's clock); a refusal (the seat already gone: a leave, the table closed) is fine."""
    from libs.client import GatewayError

    with contextlib.suppress(GatewayError):
        await client.set_run_it_times(table_id, 3)
