"""A client on the host playing through the compose stack's published gateway, as a person would
with ``libs.client``: a guest, a table of its own with AIs and a hand limit, checking, calling
small bets, folding to big ones; the table closes at its limit and everyone is cashed out."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass, field

from holdem.common.v1 import common_pb2 as pb
from holdem.gateway.v1 import gateway_pb2

from libs.client import GatewayClient, GatewayError, RetryPolicy
from libs.client.view import is_my_turn, is_showdown_turn
from tests.conditions import wait_until

BUY_IN = 200
#: Retries that outlast a table container being restarted (a few seconds of UNAVAILABLE).
PATIENT = RetryPolicy(attempts=40, initial_delay=0.1, max_delay=1.0)


@dataclass
class Played:
    """What a client saw of its table."""

    table_id: str
    player_id: str
    starting_chips: int  # the wallet before the buy-in
    # the hands its views showed, in order (one that ended before the first view is not here)
    hand_ids: list[str] = field(default_factory=list)
    closed: bool = False
    final_wallet: int = 0


#: The client calls at most this much at once, and stops calling in a hand it has put this much
#: into (then it folds): at most 14 chips a hand, so its 200 outlast any table of these tests
#: (a busted client would leave its AIs idle, waiting for a person, and the table open).
CALL_AT_MOST = 4
HAND_AT_MOST = 12


def limited_table(hands: int) -> pb.TableConfig:
    """No-limit hold'em at 1/2 that closes after ``hands`` hands (its PokerStars text is what
    PokerKit reads: it parses no limit games only)."""
    return pb.TableConfig(
        variant=pb.VARIANT_HOLDEM,
        betting_structure=pb.BETTING_STRUCTURE_NO_LIMIT,
        max_seats=4,
        small_blind=1,
        big_blind=2,
        hand_limit=hands,
    )


def decide(legal: pb.LegalActions, put_in: int) -> pb.ActionType.ValueType:
    """Check, else call a small bet while the hand has cost little, else fold."""
    if legal.can_check:
        return pb.ACTION_TYPE_CHECK
    if legal.can_call and legal.call_amount <= CALL_AT_MOST and put_in < HAND_AT_MOST:
        return pb.ACTION_TYPE_CALL
    return pb.ACTION_TYPE_FOLD


@contextlib.asynccontextmanager
async def guest(gateway: str, name: str) -> AsyncIterator[GatewayClient]:
    async with GatewayClient(gateway, retry=PATIENT) as client:
        await client.guest_login(name)
        yield client


async def play_table(
    client: GatewayClient,
    hands: int,
    during_hand: Callable[[int, str], Awaitable[None]] | None = None,
    bots: int = 2,
) -> Played:
    """Create a table of ``hands`` hands with ``bots`` AIs, sit down, check or call until the
    table closes; ``during_hand(n, hand_id)`` is awaited once, at the client's turn in the
    ``n``-th hand it saw, from the middle of the table's hands on."""
    before = (await client.wallet()).balance
    table = await client.create_table(limited_table(hands), "", [pb.BOT_DIFFICULTY_EASY] * bots)
    await client.join_table(table.table_id, buy_in=BUY_IN)
    played = Played(table.table_id, client.player_id, before)
    acted = 0
    called_back = False
    put_in: dict[str, int] = {}  # hand id -> chips the client called in it
    async for update in client.watch(table.table_id):
        view = update.view
        if view.hand_id and view.hand_id not in played.hand_ids:
            played.hand_ids.append(view.hand_id)
        if view.table_status == pb.TABLE_STATUS_CLOSED:
            played.closed = True
        if view.sequence < acted or not is_my_turn(view):
            continue
        if during_hand is not None and not called_back and len(played.hand_ids) >= hands // 2:
            called_back = True
            await during_hand(len(played.hand_ids), view.hand_id)
        try:
            if is_showdown_turn(view):
                reply: object = await client.show(table.table_id, hand_id=view.hand_id)
            else:
                legal = view.legal_actions
                action = decide(legal, put_in.get(view.hand_id, 0))
                reply = await client.act(table.table_id, action, hand_id=view.hand_id)
                if action == pb.ACTION_TYPE_CALL:
                    put_in[view.hand_id] = put_in.get(view.hand_id, 0) + legal.call_amount
        except GatewayError as error:
            # the view was overtaken (the hand moved on, or was voided while the table restarted):
            # the next update says what to do
            if error.status.name in ("FAILED_PRECONDITION", "ABORTED"):
                continue
            raise
        acted = getattr(reply, "sequence", acted)

    # the cash-out reaches the wallet after the table closed (the lobby credits it from the
    # table's stream): wait until nothing is at a table or on its way
    async def settled() -> bool:
        wallet = await client.wallet()
        played.final_wallet = wallet.balance
        return wallet.on_tables == 0 and wallet.reserved == 0

    await wait_until(settled, "the cash-out to reach the wallet")
    return played


async def histories(client: GatewayClient, table_id: str) -> list[gateway_pb2.HandRecord]:
    return await client.hand_history(table_id, limit=100)
