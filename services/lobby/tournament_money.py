"""Tournament money in the wallets (PayTournament, CreditTournament; the tournament service
calls them): one wallet commit each, decided once by the caller's key (the wallet remembers
the keys it took: libs/lobby/wallet_decide.py), inside the money gate like every other money
move, so an audit never sees a chip twice or nowhere."""

from __future__ import annotations

import functools

from libs.errors import InvalidArgument
from libs.lobby import wallet_decide
from services.lobby.app import Lobby
from services.lobby.gate import Gate

INVALID_REASON = "INVALID_REASON"
REASONS = ("prize", "refund")


async def pay(
    lobby: Lobby, gate: Gate, player_id: str, tournament_id: str, amount: int, key: str
) -> int:
    """The player's balance after paying ``amount`` into the tournament (once by ``key``)."""
    decide = functools.partial(
        wallet_decide.pay_tournament, key=key, tournament_id=tournament_id, amount=amount
    )
    async with gate.shared():
        w = await lobby.players.execute(
            player_id, lambda w: decide(w, now=lobby.clock()), msg_id=f"tpay-{key}"
        )
    return w.balance


async def credit(
    lobby: Lobby,
    gate: Gate,
    player_id: str,
    tournament_id: str,
    amount: int,
    reason: str,
    key: str,
) -> int:
    """The player's balance after the tournament's prize or refund (once by ``key``)."""
    if reason not in REASONS:
        raise InvalidArgument(INVALID_REASON, "a tournament credit is a prize or a refund")
    decide = functools.partial(
        wallet_decide.credit_tournament,
        key=key,
        tournament_id=tournament_id,
        amount=amount,
        reason=reason,
    )
    async with gate.shared():
        w = await lobby.players.execute(
            player_id, lambda w: decide(w, now=lobby.clock()), msg_id=f"tcredit-{key}"
        )
    return w.balance
