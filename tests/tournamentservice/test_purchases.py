"""Rebuys and the add-on through the purchase saga (services/tournament/registration.py) on a real
nats-server and Redis, with a wallet that takes each key once: the cost leaves the wallet once
per purchase (a retry pays nothing more), the chips reach the books, and every refusal - no such
tournament or player, outside the period, above the threshold, none left, the add-on taken, a
wallet too short - changes nothing: no chip moved, no event appended, no saga left open."""

from __future__ import annotations

import asyncio
import uuid

import pytest

from libs.errors import DomainError, NotFound, PreconditionFailed
from libs.eventstore.kvkeys import all_keys
from libs.tournament import commands as C
from libs.tournament import errors as TE
from libs.tournament.config import AddOnRule, RebuyRule, TournamentConfig, TournamentKind
from libs.tournament.events import HandResult, Payment
from libs.tournament.state import TournamentState
from libs.tournament.structure import BlindLevel, BlindStructure, LevelUnit
from services.tournament.registration import ADD_ON, REBUY, SAGA_BUCKET, Registrations
from services.tournament.store import Tournaments
from tests.tournamentservice.conftest import parts

pytestmark = pytest.mark.integration

GRANT, BUY_IN, REBUY_COST, ADD_ON_COST = 1_000, 100, 100, 50


class Wallets:
    """A wallet per player, each payment and credit taken once by its key; a payment above the
    balance refused as the lobby refuses it."""

    def __init__(self, players: list[str]) -> None:
        self.balances = dict.fromkeys(players, GRANT)
        self.keys: set[str] = set()

    async def pay(self, player_id: str, tournament_id: str, amount: int, key: str) -> int:
        if key not in self.keys:
            if self.balances[player_id] < amount:
                raise PreconditionFailed("INSUFFICIENT_FUNDS", "not enough chips")
            self.keys.add(key)
            self.balances[player_id] -= amount
        return self.balances[player_id]

    async def credit(self, payment: Payment) -> None:
        if payment.key not in self.keys:
            self.keys.add(payment.key)
            self.balances[payment.player_id] += payment.amount


class Clock:
    def __init__(self) -> None:
        self.now = 1_000.0

    def __call__(self) -> float:
        return self.now


def _config() -> TournamentConfig:
    levels = (
        BlindLevel(10, 20, length=1, break_minutes=1),  # the add-on is sold in this break
        BlindLevel(20, 40, length=10),
    )
    return TournamentConfig(
        "purchases",
        TournamentKind.SIT_AND_GO,
        seats_per_table=2,
        max_entrants=2,
        starting_stack=1_000,
        buy_in=BUY_IN,
        structure=BlindStructure("custom", LevelUnit.MINUTES, levels),
        rebuy=RebuyRule(chips=1_000, cost=REBUY_COST, last_level=1, max_rebuys=1),
        add_on=AddOnRule(chips=1_500, cost=ADD_ON_COST, after_level=1),
    )


async def _refused(
    regs: Registrations, store: Tournaments, wallets: Wallets, tid: str, *args: str
) -> DomainError:
    """The purchase is refused and changes nothing: no chip, no event, no open saga."""
    before = (await store.get(tid), dict(wallets.balances))
    with pytest.raises(DomainError) as caught:
        await regs.purchase(tid, *args)
    assert await store.get(tid) == before[0]
    assert wallets.balances == before[1]
    assert await all_keys(regs.nc, SAGA_BUCKET) == []
    return caught.value


async def _report_hands(store: Tournaments, tid: str, now: float) -> TournamentState:
    """Every released hand ends with the stacks unchanged."""
    state = await store.get(tid)
    for table in state.tables.values():
        if table.in_hand:
            results = tuple(
                HandResult(p, state.entrants[p].stack, state.entrants[p].stack)
                for p in table.seats.values()
            )
            command = C.ReportHand(table.table_id, table.hand, results, 0, now)
            state = await store.execute(tid, command, f"report:{table.table_id}:{table.hand}")
    return state


def test_rebuys_and_the_add_on_pay_once_and_refusals_change_nothing(
    nats_url: str, redis_url: str
) -> None:
    async def scenario() -> None:
        async with parts(nats_url, redis_url) as p:
            store = await p.tournaments()
            clock = Clock()
            players = ["p0", "p1", "p2"]
            wallets = Wallets(players)
            regs = Registrations(p.nc, store, wallets, clock)  # type: ignore[arg-type]
            await regs.start()
            tid = f"t{uuid.uuid4().hex[:10]}"
            await store.execute(tid, C.CreateTournament(tid, _config(), "test", clock()), "c")
            missing = await _refused(regs, store, wallets, "nope", "p0", "r0", REBUY)
            assert isinstance(missing, NotFound)
            await regs.register(tid, "p0", "reg0")
            await regs.register(tid, "p1", "reg1")
            early = await _refused(regs, store, wallets, tid, "p0", "r0", REBUY)
            assert early.code == TE.NOT_STARTED
            await store.execute(tid, C.Start("seed", clock()), "start")

            state = await regs.purchase(tid, "p0", "r0", REBUY)
            assert state.entrants["p0"].stack == 2_000 and state.entrants["p0"].rebuys == 1
            again = await regs.purchase(tid, "p0", "r0", REBUY)  # a retry: nothing more
            assert again == state
            assert wallets.balances["p0"] == GRANT - BUY_IN - REBUY_COST
            above = await _refused(regs, store, wallets, tid, "p0", "r1", REBUY)
            assert above.code == TE.REBUY_NOT_ALLOWED  # one rebuy each, and 2,000 > 1,000
            stranger = await _refused(regs, store, wallets, tid, "p2", "r2", REBUY)
            assert stranger.code == TE.NOT_REGISTERED
            wallets.balances["p1"] = REBUY_COST - 1
            short = await _refused(regs, store, wallets, tid, "p1", "r3", REBUY)
            assert short.code == "INSUFFICIENT_FUNDS"
            wallets.balances["p1"] = GRANT - BUY_IN
            closed = await _refused(regs, store, wallets, tid, "p1", "a1", ADD_ON)
            assert closed.code == TE.ADD_ON_CLOSED  # not in the break yet

            clock.now += 61  # level 1 is over: the break starts once the hand is
            await store.execute(tid, C.Tick(clock.now), "tick")
            state = await _report_hands(store, tid, clock.now)
            assert state.on_break
            late = await _refused(regs, store, wallets, tid, "p1", "r4", REBUY)
            assert late.code == TE.REBUY_CLOSED  # rebuys through level 1, not its break
            state = await regs.purchase(tid, "p1", "a1", ADD_ON)
            assert state.entrants["p1"].stack == 2_500
            taken = await _refused(regs, store, wallets, tid, "p1", "a2", ADD_ON)
            assert taken.code == TE.ADD_ON_TAKEN
            assert wallets.balances["p1"] == GRANT - BUY_IN - ADD_ON_COST
            assert state.prize_pool == 2 * BUY_IN + REBUY_COST + ADD_ON_COST
            assert state.chips_issued == 2 * 1_000 + 1_000 + 1_500

            cancelled = await store.execute(tid, C.Cancel("test", clock()), "cancel")
            for payment in cancelled.payments.values():  # the director's part
                await wallets.credit(payment)
            assert wallets.balances == {"p0": GRANT, "p1": GRANT, "p2": GRANT}

    asyncio.run(scenario())
