"""A table in play for ``make run``: six bots of mixed levels (two Easy, two Normal, two Hard)
at a no-limit hold'em table on the local stack, every decision of theirs asked of the ai service
by the table service, each hand printed as it happens from the table's public projection (what
any spectator sees: no hole cards until they are shown). A bot that goes broke buys in again."""

from __future__ import annotations

import asyncio
import contextlib
import time
from typing import Any

import grpc
from holdem.common.v1 import common_pb2
from holdem.table.v1 import table_pb2, table_pb2_grpc

from libs.devstack.identity import aio_channel_as
from libs.platform.configvars import redact_url
from libs.platform.natsconn import connect_nats
from libs.platform.tls import TlsFiles
from libs.poker.cards import format_cards
from libs.poker.events import (
    ActionKind,
    ActionTaken,
    BlindPosted,
    HandEnded,
    HandShown,
    HandVoided,
    PotAwarded,
    RakeTaken,
    StreetDealt,
)
from libs.table.events import (
    Event,
    HandBegan,
    PlayerSatOut,
    PlayerSeated,
    SeedRevealed,
    TableClosed,
)
from libs.tableproto.envelope import decode_commit

TABLE_ID = "demo"
BUY_IN = 200
#: The six bots: (name, level); the table asks the ai service for each decision at that level.
BOTS = (
    ("easy1", common_pb2.BOT_DIFFICULTY_EASY),
    ("normal1", common_pb2.BOT_DIFFICULTY_NORMAL),
    ("hard1", common_pb2.BOT_DIFFICULTY_HARD),
    ("easy2", common_pb2.BOT_DIFFICULTY_EASY),
    ("normal2", common_pb2.BOT_DIFFICULTY_NORMAL),
    ("hard2", common_pb2.BOT_DIFFICULTY_HARD),
)
SEATS = len(BOTS)
STREETS = {1: "flop", 2: "turn", 3: "river"}


class _Printer:
    def __init__(self, verify_url: str) -> None:
        self.verify_url = verify_url  # shown in the `holdem verify` hint: never a password
        self.seats: tuple[int, ...] = ()
        self.names: dict[int, str] = {}
        self.hands_done = 0
        self.rake = 0
        # every buy-in the table committed, the rebuys of broke bots included (counted from the
        # stream, not from the replies: a rebuy's reply may still be on its way when it closes)
        self.bought_in = 0
        # (seat, player, stack) when the table closed: what went back to the wallets
        self.final: tuple[tuple[int, str, int], ...] = ()

    def who(self, position: int) -> str:
        seat = self.seats[position] if position < len(self.seats) else position
        return self.names.get(seat, f"seat {seat}")

    def line(self, event: Event) -> str | None:
        if isinstance(event, PlayerSeated):
            self.names[event.seat] = event.player_id
            self.bought_in += event.stack
            level = (
                f" ({event.bot_difficulty.value} bot, ai service)" if event.bot_difficulty else ""
            )
            return f"{event.player_id}{level} sits in seat {event.seat} with {event.stack}"
        if isinstance(event, PlayerSatOut) and event.reason == "no chips":
            return f"{self.names.get(event.seat, event.seat)} is broke: buys in again"
        if isinstance(event, HandBegan):
            self.seats = event.seats
            return (
                f"\n-- hand {event.hand_number} - button {self.names.get(event.button)} - "
                f"deck commitment {event.commitment[:16]}..."
            )
        if isinstance(event, BlindPosted):
            return f"   {self.who(event.player)} posts {event.amount}"
        if isinstance(event, ActionTaken):
            verb = {
                ActionKind.FOLD: "folds",
                ActionKind.CHECK: "checks",
                ActionKind.CALL: f"calls {event.amount}",
                ActionKind.BET: f"bets {event.to}",
                ActionKind.RAISE: f"raises to {event.to}",
            }[event.kind]
            return f"   {self.who(event.player)} {verb}{' (all-in)' if event.all_in else ''}"
        if isinstance(event, StreetDealt):
            return f"   {STREETS[event.street]}: {format_cards(event.cards)}"
        if isinstance(event, HandShown):
            return f"   {self.who(event.player)} shows {format_cards(event.cards)}"
        if isinstance(event, PotAwarded):
            winners = ", ".join(f"{self.who(p)} wins {a}" for p, a in event.winners)
            return f"   {winners}{f' ({event.description})' if event.description else ''}"
        if isinstance(event, (HandEnded, HandVoided)):
            self.hands_done += 1
            stacks = "  ".join(f"{self.who(p)} {s}" for p, s in enumerate(event.stacks))
            return f"   stacks: {stacks}" + (" (voided)" if isinstance(event, HandVoided) else "")
        if isinstance(event, SeedRevealed):
            check = (
                f"holdem verify --table {TABLE_ID} --hand {event.hand_id} --nats {self.verify_url}"
            )
            if event.seed:  # HOLDEM_TABLE_SEED_DISCLOSURE_SECONDS=0: public at once
                return f"   seed revealed {event.seed[:16]}... (check the deck: {check})"
            # the seed would show every hand, folded and mucked ones too: public later
            return f"   deck closed: its seed is public later (GetDecks); the operator: {check}"
        if isinstance(event, RakeTaken):
            self.rake += event.amount
        if isinstance(event, TableClosed):
            self.final = event.stacks
            return f"table closed: {event.reason}"
        return None

    def summary(self, bought_in: int) -> tuple[str, bool]:
        """The end of ``make run HANDS=N``: hands played, final stacks, and whether the chips at
        the close (plus rake) are exactly the chips bought in."""
        total = sum(stack for _, _, stack in self.final) + self.rake
        conserved = bool(self.final) and total == bought_in
        stacks = ", ".join(f"{player} {stack}" for _, player, stack in self.final)
        lines = [
            "summary",
            f"  hands played:    {self.hands_done}",
            f"  final stacks:    {stacks or '(table not closed)'}",
            f"  rake:            {self.rake}",
            f"  chips conserved: {'yes' if conserved else 'no'} "
            f"({total} at the close + rake, {bought_in} bought in)",
        ]
        return "\n".join(lines), conserved


async def play_demo(table_addr: str, nats_url: str, hands: int) -> int:
    """Open the demo table, seat six bots, print its hands; return the hands played."""
    played, _ = await play_demo_summary(table_addr, nats_url, hands)
    return played


async def play_demo_summary(
    table_addr: str,
    nats_url: str,
    hands: int,
    verify_url: str | None = None,
    tls: TlsFiles | None = None,
) -> tuple[int, bool]:
    """``play_demo``, then print the summary; (hands played, chips conserved). ``verify_url``
    is the NATS URL the `holdem verify` hints name (default ``nats_url``); any password in it
    is printed as ``***``. ``tls``: the stack's tools files when it runs with TLS."""
    printer = _Printer(redact_url(verify_url or nats_url))
    done = asyncio.Event()
    broke: asyncio.Queue[int] = asyncio.Queue()
    rebuys = 0
    nc = await connect_nats(nats_url, tls)

    async def on_commit(msg: Any) -> None:
        for event in decode_commit(msg.data)[1]:
            text = printer.line(event)
            if text is not None:
                print(text, flush=True)
            if isinstance(event, PlayerSatOut) and event.reason == "no chips":
                broke.put_nowait(event.seat)
            if isinstance(event, TableClosed):
                done.set()

    await nc.subscribe(f"holdem.public.table.{TABLE_ID}", cb=on_commit)
    config = common_pb2.TableConfig(
        variant=common_pb2.VARIANT_HOLDEM,
        betting_structure=common_pb2.BETTING_STRUCTURE_NO_LIMIT,
        max_seats=SEATS,
        small_blind=1,
        big_blind=2,
        hand_limit=hands,
        min_players_to_start=SEATS,
    )
    # the demo seats its bots as tools (chips reach a table only from the lobby or tools)
    async with aio_channel_as(table_addr, tls=tls) as channel:
        stub = table_pb2_grpc.TableServiceStub(channel)
        await stub.SubmitCommand(
            table_pb2.SubmitCommandRequest(
                table_id=TABLE_ID,
                idempotency_key=f"open-{time.time()}",
                open_table=table_pb2.OpenTable(name="demo", config=config),
            ),
            timeout=30,
        )

        async def seat(number: int, key: str) -> None:
            name, level = BOTS[number]
            bot = table_pb2.SeatPlayer(
                player_id=name, seat=number, buy_in=BUY_IN, is_bot=True, bot_difficulty=level
            )
            await stub.SubmitCommand(
                table_pb2.SubmitCommandRequest(
                    table_id=TABLE_ID, idempotency_key=key, seat_player=bot
                ),
                timeout=120,
            )

        async def buy_in_again() -> None:
            nonlocal rebuys
            while True:
                number = await broke.get()
                rebuys += 1
                with contextlib.suppress(grpc.aio.AioRpcError):  # e.g. the table just closed
                    await stub.SubmitCommand(
                        table_pb2.SubmitCommandRequest(
                            table_id=TABLE_ID,
                            idempotency_key=f"leave-{number}-{rebuys}",
                            leave_seat=table_pb2.LeaveSeat(player_id=BOTS[number][0]),
                        ),
                        timeout=120,
                    )
                    await seat(number, f"seat-{number}-{rebuys}")

        for number in range(len(BOTS)):
            await seat(number, f"seat-{number}")
        rebuyer = asyncio.create_task(buy_in_again())
        with contextlib.suppress(asyncio.TimeoutError):
            # a hand takes well under a second; the bound only stops a wedged run
            await asyncio.wait_for(done.wait(), timeout=max(120.0, hands * 5.0))
        rebuyer.cancel()
    await asyncio.sleep(0.2)  # the last commits' messages
    await nc.close()
    # every buy-in, the rebuys of broke bots included (a broke bot leaves with nothing)
    text, conserved = printer.summary(printer.bought_in)
    print(f"\n{text}", flush=True)
    return printer.hands_done, conserved
