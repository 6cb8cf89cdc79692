"""``holdem load --gateway HOST:PORT[,HOST:PORT...] --pace HANDS_PER_HOUR --tables N``: the paced
load against a running deployment, through its public gateway API only, as people's clients.

Nothing is started: each table is played through one of the listed gateways (table i through
gateway i mod G, over TLS with ``--tls`` or ``--tls-ca FILE``). For each table six guests log in
one after another (``GuestLogin``: each its own token), the first creates a six-seat table
(``CreateTable``, named for the run) and all six join it (``JoinTable``, each with its seat and an
idempotency key: the lobby buys them in from their grants); the first watches it (``WatchTable``:
whose turn it is and each hand's end, as a client sees them). 32 tables are set up at a time. A
call the gateway answers ``RATE_LIMITED`` is asked again after its ``grpc-retry-pushback-ms``
(a deployment lets one address make about ``HOLDEM_GATEWAY_RATE_PER_SECOND`` logins a second per
gateway), one answered ``UNAVAILABLE`` or out of time after a pause (a ``CreateTable`` only once
the table was not found by its name: it has no key). Then for S seconds, at each table, whoever
is to act thinks for a drawn time (``load_pace.think_seconds``: about HANDS_PER_HOUR hands an
hour) and folds (``Act``, with their own token and a fresh key), so every hand is five Acts; the
next actor comes with the Act's answer, a hand's first with the watch. At the end the first player
closes each table (``CloseTable``: a hand in play is finished at once, the players acting without
thinking) and the load waits until every table is closed (its watch ends) and every player's
wallet holds nothing on a table (``GetWallet``): the chips are back in the players' wallets.

Reported (JSON keys): ``gateways``, ``tables``, ``pace``, ``seconds``, ``setup_seconds``,
``close_seconds``, ``hands`` (the ends of hands the watches saw during play) and
``hands_per_table_hour``, ``acts``, ``errors`` (failed calls during play and dropped watches) and
``error_codes`` (by status and error code), ``act_p50_ms`` and ``act_p99_ms`` (Act as the client
sees it), ``setup_retries`` (calls asked again during setup and closing), ``tables_closed``,
``players``, ``players_settled`` (wallets with no chips on a table or reserved), ``client_cpu``
(cores this process kept busy during play: the deployment's own processes are not its to read).
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import random
import time
import uuid
from collections import Counter
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

import grpc
from holdem.common.v1 import common_pb2
from holdem.gateway.v1 import gateway_pb2, gateway_pb2_grpc

from libs.cli.load_pace import ACTIONS_PER_HAND, CONFIG, SEATS, LoadError, think_seconds
from libs.client.channel import gateway_channel
from libs.platform.errors import error_code_of

BUY_IN = CONFIG.max_buy_in
SETUP_TABLES = 32  # tables being set up (or closed) at once
CALL_SECONDS = 30.0
SETUP_SECONDS = 300.0  # how long a setup (or closing) call is asked again
#: failures after which a call may or may not have been carried out
UNSURE = frozenset({grpc.StatusCode.UNAVAILABLE, grpc.StatusCode.DEADLINE_EXCEEDED})
READY_SECONDS = 10.0  # how long a gateway may take to answer at all
SETTLE_SECONDS = 120.0  # closing: the hands in play finished, the chips back in the wallets
HAND_ENDS = frozenset({"HandEnded", "HandVoided"})
TABLE_CLOSED = "TableClosed"
PUSHBACK = "grpc-retry-pushback-ms"
#: what to do about a refusal during setup, by its error code
HINTS = {
    "TOO_MANY_GUESTS": " (a load needs six guests a table from this address: raise the lobby's "
    "HOLDEM_LOBBY_GUESTS_PER_ADDRESS on the deployment under test)",
}


def gateway_list(text: str) -> list[str]:
    """``HOST:PORT[,HOST:PORT...]`` checked (a ValueError says which part is wrong)."""
    addresses = [part.strip() for part in text.split(",")]
    for address in addresses:
        host, colon, port = address.rpartition(":")
        if not colon or not host or not port.isdigit() or not 1 <= int(port) <= 65535:
            raise ValueError(f"a gateway is HOST:PORT (port 1-65535), not {address[:40]!r}")
    return addresses


@dataclass
class RemoteReport:
    gateways: list[str]
    tables: int
    pace: float
    seconds: float = 0.0
    setup_seconds: float = 0.0
    close_seconds: float = 0.0
    hands: int = 0
    hands_per_table_hour: float = 0.0
    acts: int = 0
    errors: int = 0
    error_codes: dict[str, int] = field(default_factory=dict)
    act_p50_ms: float = 0.0
    act_p99_ms: float = 0.0
    setup_retries: int = 0
    tables_closed: int = 0
    players: int = 0
    players_settled: int = 0
    client_cpu: float = 0.0

    def as_dict(self) -> dict[str, Any]:
        return dict(self.__dict__)


@dataclass
class _Player:
    player_id: str
    auth: tuple[tuple[str, str], ...]


@dataclass
class _Table:
    """A table as its players' client knows it: the newest view an answer or the watch
    carried, and whether its watch has seen it closed."""

    table_id: str
    gateway: gateway_pb2_grpc.GatewayServiceAsyncStub
    players: list[_Player]
    view: Any = None
    closed: bool = False
    changed: asyncio.Event = field(default_factory=asyncio.Event)

    def see(self, view: Any) -> None:
        if self.view is None or view.sequence >= self.view.sequence:
            self.view = view
        if view.table_status == common_pb2.TABLE_STATUS_CLOSED:
            self.closed = True
        self.changed.set()

    def to_act(self) -> tuple[_Player, str] | None:
        """Who is to act and in which hand, if anyone."""
        view = self.view
        if view is None or not view.hand_id or not view.HasField("acting_seat"):
            return None
        return self.players[view.acting_seat], view.hand_id


def _code(exc: grpc.aio.AioRpcError) -> str:
    return f"{exc.code().name}/{error_code_of(exc) or '-'}"


def _pushback(exc: grpc.aio.AioRpcError) -> float | None:
    """Seconds to wait before asking again, when the gateway said so (RATE_LIMITED)."""
    for key, value in exc.trailing_metadata() or ():
        if key == PUSHBACK:
            return int(value) / 1000 if str(value).isdigit() else 1.0
    return None


class RemoteLoad:
    """The clients of one run (see the module docstring)."""

    def __init__(self, gateways: list[str], tls: bool | bytes, report: RemoteReport) -> None:
        self.addresses = gateways
        self.channels = [gateway_channel(a, tls) for a in gateways]
        self.stubs: list[gateway_pb2_grpc.GatewayServiceAsyncStub] = [
            gateway_pb2_grpc.GatewayServiceStub(c) for c in self.channels
        ]
        self.report = report
        self.tables: list[_Table] = []
        self.counting = False
        self.watches: list[asyncio.Task[None]] = []
        self.run = uuid.uuid4().hex[:8]  # in the tables' names

    async def check_reachable(self) -> None:
        for address, channel in zip(self.addresses, self.channels, strict=True):
            try:
                await asyncio.wait_for(channel.channel_ready(), READY_SECONDS)
            except TimeoutError:
                raise LoadError(
                    f"gateway {address} does not answer (waited {READY_SECONDS:g}s; "
                    "TLS: --tls or --tls-ca FILE when it serves TLS)"
                ) from None

    async def ask(self, call: Callable[[], Awaitable[Any]], what: str) -> Any:
        """``call`` (one that may be asked twice: a key, or nothing written) until answered:
        again after the pushback when rate-limited, after a pause when UNAVAILABLE or out of
        time (for SETUP_SECONDS in all); any other refusal is a LoadError naming it."""
        deadline = time.monotonic() + SETUP_SECONDS
        while True:
            try:
                return await call()
            except grpc.aio.AioRpcError as exc:
                wait = _pushback(exc)
                if wait is None and exc.code() in UNSURE:
                    wait = 0.5
                if wait is None or time.monotonic() + wait > deadline:
                    hint = HINTS.get(error_code_of(exc) or "", "")
                    raise LoadError(f"{what}: {_code(exc)}: {exc.details()}{hint}") from None
                self.report.setup_retries += 1
                await asyncio.sleep(wait)

    async def _create(
        self,
        stub: gateway_pb2_grpc.GatewayServiceAsyncStub,
        name: str,
        owner: tuple[tuple[str, str], ...],
    ) -> str:
        """A new table's id. CreateTable has no key: one that failed unanswered (UNSURE) may
        have made the table, so it is looked for by its name (unique to this run) before
        asking again, and nothing is left open unknown to the load."""
        request = gateway_pb2.CreateTableRequest(name=name, config=CONFIG)
        deadline = time.monotonic() + SETUP_SECONDS
        while True:
            try:
                made = await stub.CreateTable(request, metadata=owner, timeout=CALL_SECONDS)
                return str(made.table.table_id)
            except grpc.aio.AioRpcError as exc:
                wait = _pushback(exc)
                if wait is None and exc.code() in UNSURE:
                    if found := await self._find(stub, name):
                        return found
                    wait = 0.5
                if wait is None or time.monotonic() + wait > deadline:
                    raise LoadError(f"CreateTable: {_code(exc)}: {exc.details()}") from None
                self.report.setup_retries += 1
                await asyncio.sleep(wait)

    async def _find(self, stub: gateway_pb2_grpc.GatewayServiceAsyncStub, name: str) -> str | None:
        """The id of the newest listed table called ``name`` (among the newest 5,000)."""
        token = ""
        for _ in range(5):
            request = gateway_pb2.ListTablesRequest(
                newest_first=True, page_size=1000, page_token=token
            )
            page = await self.ask(
                functools.partial(stub.ListTables, request, timeout=CALL_SECONDS), "ListTables"
            )
            for table in page.tables:
                if table.name == name:
                    return str(table.table_id)
            token = page.next_page_token
            if not token:
                return None
        return None

    async def _guest(self, stub: gateway_pb2_grpc.GatewayServiceAsyncStub, name: str) -> _Player:
        request = gateway_pb2.GuestLoginRequest(display_name=name)
        login = await self.ask(
            lambda: stub.GuestLogin(request, timeout=CALL_SECONDS),
            "GuestLogin",
        )
        return _Player(login.player.player_id, (("authorization", f"Bearer {login.token}"),))

    async def open(self, index: int) -> None:
        """Six guests, a table made by the first, all six seated, the first watching it."""
        stub = self.stubs[index % len(self.stubs)]
        # one after another: a table's guests, as its six people arrive
        players = [await self._guest(stub, f"load{index}p{s}") for s in range(SEATS)]
        table_id = await self._create(stub, f"load {self.run} {index}", players[0].auth)
        table = _Table(table_id, stub, players)
        self.tables.append(table)

        async def join(seat: int) -> None:
            request = gateway_pb2.JoinTableRequest(
                table_id=table.table_id, seat=seat, buy_in=BUY_IN, idempotency_key="load-join"
            )
            auth = players[seat].auth
            await self.ask(
                lambda: stub.JoinTable(request, metadata=auth, timeout=CALL_SECONDS), "JoinTable"
            )

        await asyncio.gather(*(join(seat) for seat in range(SEATS)))
        self.watches.append(asyncio.create_task(self._watch(table)))

    async def _watch(self, table: _Table) -> None:
        """The first player's watch: views, hands ended (counted while playing), the close."""
        after = 0
        while not table.closed:
            request = gateway_pb2.WatchTableRequest(table_id=table.table_id, from_sequence=after)
            try:
                async for update in table.gateway.WatchTable(
                    request, metadata=table.players[0].auth
                ):
                    after = update.sequence
                    if update.HasField("commit"):
                        kinds = [e.type for e in update.commit.recorded]
                        if self.counting:
                            self.report.hands += sum(kind in HAND_ENDS for kind in kinds)
                        table.closed = table.closed or TABLE_CLOSED in kinds
                    if update.HasField("view"):
                        table.see(update.view)
                    elif update.HasField("snapshot"):
                        table.see(update.snapshot)
                table.closed = True  # the stream ends once its table has closed
            except grpc.aio.AioRpcError as exc:
                if exc.code() == grpc.StatusCode.CANCELLED:
                    return
                self._failed(exc)
                await asyncio.sleep(0.5)  # then resume after the last update seen
            table.changed.set()

    def _failed(self, exc: grpc.aio.AioRpcError) -> None:
        self.report.errors += 1
        codes = Counter(self.report.error_codes)
        codes[_code(exc)] += 1
        self.report.error_codes = dict(codes)

    async def _act(self, table: _Table, player: _Player, hand_id: str) -> None:
        request = gateway_pb2.ActRequest(
            table_id=table.table_id,
            hand_id=hand_id,
            action=common_pb2.ACTION_TYPE_FOLD,
            idempotency_key=uuid.uuid4().hex,
        )
        answer = await table.gateway.Act(request, metadata=player.auth, timeout=CALL_SECONDS)
        table.see(answer.view)

    async def play(
        self, table: _Table, until: float, latencies: list[float], rng: random.Random
    ) -> None:
        """Act at ``table`` at a person's pace until ``until`` (the first look after a drawn
        wait, as players arrive; a failed Act is tried again after a pause doubling to 30 s)."""
        pace = self.report.pace
        backoff = 0.5
        await asyncio.sleep(rng.uniform(0, 3600.0 / (pace * ACTIONS_PER_HAND)))
        while (left := until - time.monotonic()) > 0:
            table.changed.clear()
            turn = table.to_act()
            if turn is None:
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(table.changed.wait(), left)
                continue
            await asyncio.sleep(min(think_seconds(pace, rng), max(0.0, until - time.monotonic())))
            if time.monotonic() >= until:
                return
            started = time.perf_counter()
            try:
                await self._act(table, *turn)
            except grpc.aio.AioRpcError as exc:
                self._failed(exc)
                await asyncio.sleep(min(backoff, max(0.0, until - time.monotonic())))
                backoff = min(2 * backoff, 30.0)
                continue
            latencies.append(time.perf_counter() - started)
            self.report.acts += 1
            backoff = 0.5

    async def close(self, table: _Table, deadline: float) -> None:
        """Close the table: the hand in play finished at once, until the watch sees it closed."""
        request = gateway_pb2.CloseTableRequest(table_id=table.table_id)
        owner = table.players[0].auth
        answer = await self.ask(
            lambda: table.gateway.CloseTable(request, metadata=owner, timeout=CALL_SECONDS),
            "CloseTable",
        )
        table.closed = table.closed or answer.table.status == common_pb2.TABLE_STATUS_CLOSED
        while not table.closed and (left := deadline - time.monotonic()) > 0:
            table.changed.clear()
            turn = table.to_act()
            if turn is None:
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(table.changed.wait(), min(left, 1.0))
                continue
            try:
                await self._act(table, *turn)
            except grpc.aio.AioRpcError:
                self.report.setup_retries += 1  # e.g. the hand ended under us
                await asyncio.sleep(0.2)
        self.report.tables_closed += table.closed

    async def settled(
        self, player: _Player, stub: gateway_pb2_grpc.GatewayServiceAsyncStub, deadline: float
    ) -> None:
        """Wait until ``player`` has nothing on a table nor reserved (cash-outs land)."""
        while True:
            wallet = (
                await self.ask(
                    lambda: stub.GetWallet(
                        gateway_pb2.GetWalletRequest(), metadata=player.auth, timeout=CALL_SECONDS
                    ),
                    "GetWallet",
                )
            ).wallet
            if wallet.on_tables == 0 and wallet.reserved == 0:
                self.report.players_settled += 1
                return
            if time.monotonic() > deadline:
                return
            await asyncio.sleep(0.5)

    async def aclose(self) -> None:
        for task in self.watches:
            task.cancel()
        await asyncio.gather(*self.watches, return_exceptions=True)
        for channel in self.channels:
            await channel.close()
