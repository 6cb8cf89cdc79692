"""End to end over the real stack (nats-server, redis-server, table, lobby, gateway as processes):
scripted clients (libs.client, as people and the terminal client use it) and AIs play every
variant x betting structure through the gateway, with joins, leaves, sit-outs, dropped streams
resumed with from_sequence, and retried actions. Afterwards every wallet is back to exactly its
grant in total (the lobby's chip audit agrees), and a privacy spy has checked every message the
gateway sent each client for a card that client may not see at that moment, and each
person's statistics about every player they met are exactly their own projection's
(tests/e2e/stats_spy.py).

The CI-sized run plays 4 hands per combination (part of `make test`); the full run plays 20
(HOLDEM_NIGHTLY=1). Every wait is bounded: a player who gets no update for STALL_SECONDS at a table
still open fails the run at once, naming the player, the table, the hand and the last view it got
(with what every player of that table saw last), instead of waiting out the table's clocks."""

from __future__ import annotations

import asyncio
import os
import random
from collections.abc import Iterator

import grpc
import pytest
from holdem.common.v1 import common_pb2 as pb
from holdem.lobby.v1 import lobby_pb2, lobby_pb2_grpc
from holdem.table.v1 import table_pb2, table_pb2_grpc

from libs.cli.house import seat_ais
from libs.client import GatewayClient, GatewayError, new_key
from libs.devstack.identity import aio_channel_as
from tests.e2e.play_support import (
    ACTIVITY,
    AIS,
    BUY_IN,
    CALL_TIMEOUT,
    LOGS,
    PATIENT,
    PEOPLE,
    PROGRESS,
    STRUCTURES,
    TABLE_ADDRESS,
    TOOLS_KEY,
    VARIANTS,
    Spy,
    shown_in_stream,
    standing_answer,
)
from tests.e2e.scripted_player import (
    Counts,
    play,
)
from tests.e2e.stats_spy import stats_problems
from tests.gateway.stack import GatewayStack, start_gateway_stack

pytestmark = [pytest.mark.integration, pytest.mark.timeout(1200)]


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
    started.stop()


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
        # run it up to three times when every person all in agrees (their standing answer,
        # below; an AI runs it once): the spy checks no run is seen before it is dealt
        run_it_max=3,
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
        await standing_answer(client, table_id)
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
            problems += await stats_problems(stack.nats_url, table_id, people)
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
