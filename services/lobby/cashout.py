"""The one path by which chips come back from tables (contract-13 §3): a durable JetStream
consumer of the tables' public projection (HOLDEM_PUBLIC) credits wallets from PlayerLeft and
TableClosed, deduplicated by table commit (``<table>:<seq>`` in each wallet), and records in the
catalogue who sits where, the rake and closed tables. A message is acknowledged only after its
credits are committed, so a lobby killed at any moment credits, when it is back, exactly what
it had not yet credited.

Also here: ``pending`` (what the consumer has not yet applied, for the chip audit) and
``find_commit`` (a saga's own commit at a table, for the process manager)."""

from __future__ import annotations

import asyncio
import contextlib
import functools
import time
from collections.abc import Callable

import grpc
import structlog
from nats.aio.client import Client as NATS
from nats.aio.msg import Msg
from nats.js import JetStreamContext
from nats.js.api import AckPolicy, ConsumerConfig, DeliverPolicy
from nats.js.errors import NotFoundError

from libs.eventstore.projection import (
    PUBLIC_STREAM,
    PUBLIC_SUBJECT_PREFIX,
    read_public,
)
from libs.eventstore.pull import pull_read
from libs.lobby import wallet, wallet_decide
from libs.lobby.cashouts import Money, money_of
from libs.table.events import ChipsAdded, PlayerSeated
from libs.tableproto.public import PublicCommit, decode_public
from services.lobby.app import Lobby
from services.lobby.feed_lease import FeedLease
from services.lobby.gate import Gate
from services.lobby.public_feed import (
    consume_forever,
    in_flight,
    projected_message,
    public_subscription,
)
from services.lobby.tables import TableRefusal

log = structlog.get_logger("lobby.cashout")

CONSUMER = "holdem-lobby-cashout"
#: A message not acknowledged in this time goes to another replica (its holder died); the
#: holder says "in progress" every third of it while it works.
ACK_WAIT_SECONDS = 10.0
#: Tables kept as not in the catalogue (then forgotten all at once, and read again).
MAX_UNLISTED = 100_000
# the table did not take a call for now: asking again later may work
TRANSIENT = frozenset(
    {
        grpc.StatusCode.UNAVAILABLE,
        grpc.StatusCode.DEADLINE_EXCEEDED,
        grpc.StatusCode.RESOURCE_EXHAUSTED,
        grpc.StatusCode.ABORTED,
    }
)


def _credit(
    player: wallet.Wallet, *, table_id: str, sequence: int, amount: int, now: float
) -> list[wallet.Event]:
    return wallet_decide.credit(player, table_id, sequence, amount, now)


class CashOuts:
    def __init__(self, nc: NATS, lobby: Lobby, gate: Gate) -> None:
        self.nc = nc
        self.js = nc.jetstream(timeout=10.0)
        self.lobby = lobby
        self.gate = gate
        self.applied = 0  # public commits applied by this process
        self.unlisted: set[str] = set()  # tables found not in the catalogue (never listed)
        self.lease = FeedLease(nc, CONSUMER, lambda: in_flight(self.js, CONSUMER), ACK_WAIT_SECONDS)

    async def _subscription(self) -> JetStreamContext.PullSubscription:
        return await public_subscription(self.js, CONSUMER, ACK_WAIT_SECONDS)

    async def run(self) -> None:
        """Consume for ever (reconnects on errors)."""
        await consume_forever(self._subscription, self.handle, "cash-out", self.lease)

    async def handle(self, msg: Msg) -> None:
        try:
            commit = decode_public(projected_message(msg))
        except Exception as exc:  # not a table commit: nothing in it can be credited
            log.error(
                "undecodable public commit skipped", subject=msg.subject, error=str(exc)[:200]
            )
            await msg.term()
            return
        if not await self._concerns_lobby(commit):  # most commits (actions, deals): nothing
            await msg.ack()  # to credit or record, so no need to pass the gate in Redis
            self.applied += 1
            return
        working = asyncio.create_task(self._in_progress(msg))
        try:
            async with self.gate.shared():
                await self.apply(commit)
                await msg.ack_sync()
        except Exception:
            with contextlib.suppress(Exception):
                await msg.nak(delay=0.5)  # tried again (public_feed.py: before the next)
            raise
        finally:
            working.cancel()
        self.applied += 1

    async def _concerns_lobby(self, commit: PublicCommit) -> bool:
        """Whether ``commit`` has anything for the lobby: chips to credit, a bust, or activity
        (seats, rake, a close) at a table of its catalogue. A table is listed before it is
        opened, so one whose commit finds no listing is never listed (opened by tools): its
        seats are not read from the catalogue again at each commit."""
        money = money_of(commit.events)
        if money.credits or money.busts:
            return True
        return money.relevant and await self._listed(commit.table_id)

    async def _listed(self, table_id: str) -> bool:
        """Whether the table is in the catalogue (those found not to be are kept as such)."""
        if table_id in self.lobby.listings:
            return True
        if table_id in self.unlisted:
            return False
        if (await self.lobby.stores.tables.get(table_id)).exists:
            return True
        if len(self.unlisted) >= MAX_UNLISTED:
            self.unlisted.clear()
        self.unlisted.add(table_id)
        return False

    @staticmethod
    async def _in_progress(msg: Msg) -> None:
        """Keep the message ours while we work on it (waiting for an audit, a slow table)."""
        while True:
            await asyncio.sleep(ACK_WAIT_SECONDS / 3)
            with contextlib.suppress(Exception):
                await msg.in_progress()

    async def apply(self, commit: PublicCommit) -> None:
        money = money_of(commit.events)
        if not money.relevant:
            return
        log.info(
            "table commit applied",
            table_id=commit.table_id,
            sequence=commit.sequence,
            returned=money.returned,
            closed=money.closed_reason,
        )
        now = self.lobby.clock()
        for player_id, amount in money.credits:
            if not (await self.lobby.players.get(player_id)).registered:
                continue  # not a lobby player (e.g. a bot seated by a test through the table)
            await self.lobby.players.execute(
                player_id,
                functools.partial(
                    _credit,
                    table_id=commit.table_id,
                    sequence=commit.sequence,
                    amount=amount,
                    now=now,
                ),
                msg_id=f"credit-{commit.table_id}-{commit.sequence}",
            )
        for player_id in money.busts:
            await self._bust(player_id, commit, now)
        if money.credits:
            async with self.lobby.credited:
                self.lobby.credited.notify_all()
        if await self._listed(commit.table_id):
            await self.lobby.record_activity(
                commit.table_id,
                commit.sequence,
                money.seated_delta,
                money.rake,
                money.closed_reason,
            )

    async def _bust(self, player_id: str, commit: PublicCommit, now: float) -> None:
        """A player the table sat out with no chips: their buy-in there is closed (a cash-out of
        0). A bot (it cannot buy in again by itself) also leaves, so its seat is free: the
        table's leave_seat, keyed by this commit, before the commit is acknowledged (a lobby
        stopped in between sends it again; the table applies it once). Its PlayerLeft of 0
        comes back here like anyone's."""
        player = await self.lobby.players.get(player_id)
        if not player.registered:
            return
        await self.lobby.players.execute(
            player_id,
            functools.partial(
                wallet_decide.bust, table_id=commit.table_id, sequence=commit.sequence, now=now
            ),
            msg_id=f"bust-{commit.table_id}-{commit.sequence}",
        )
        if player.bot:
            key = f"bust-{commit.table_id}-{commit.sequence}"
            try:
                await self.lobby.tables.leave(commit.table_id, key, player_id)
            except TableRefusal as refusal:
                if refusal.status in TRANSIENT:  # the table did not answer: this commit comes
                    raise  # again (nak), the leave with it, keyed, until the table takes it
                # closed, or left already: it stays sat out with 0
                log.info("busted bot stays seated", table_id=commit.table_id, error=str(refusal))

    async def ack_floor(self) -> int:
        """Stream position up to which every public commit was applied (0: none yet)."""
        try:
            info = await self.js.consumer_info(PUBLIC_STREAM, CONSUMER)
        except NotFoundError:
            return 0
        return int(info.ack_floor.stream_seq or 0) if info.ack_floor else 0

    async def pending(self) -> list[PublicCommit]:
        """Public commits not yet applied (call it with the gate held exclusively)."""
        floor = await self.ack_floor()
        try:
            info = await self.js.stream_info(PUBLIC_STREAM)
        except NotFoundError:
            return []
        last = int(info.state.last_seq or 0)
        if last <= floor:
            return []
        config = ConsumerConfig(
            deliver_policy=DeliverPolicy.BY_START_SEQUENCE,
            opt_start_seq=floor + 1,
            ack_policy=AckPolicy.NONE,
            inactive_threshold=30.0,
            mem_storage=True,
            filter_subject=f"{PUBLIC_SUBJECT_PREFIX}.>",
        )
        messages = await pull_read(
            self.js,
            f"{PUBLIC_SUBJECT_PREFIX}.>",
            stream=PUBLIC_STREAM,
            config=config,
            through=last,
            timeout=2.0,
            end_when_quiet=True,
        )
        return [decode_public(projected_message(msg)) for msg in messages]

    async def seated_by(self, table_id: str, causation_ids: set[str]) -> dict[str, int]:
        """Of ``causation_ids`` (sagas), those whose command seated someone or added chips at
        the table: saga -> that commit's sequence."""
        found: dict[str, int] = {}
        for projected in await read_public(self.nc, table_id):
            commit = decode_public(projected)
            if commit.causation_id in causation_ids and any(
                isinstance(event, PlayerSeated | ChipsAdded) for event in commit.events
            ):
                found.setdefault(commit.causation_id, commit.sequence)
        return found

    async def find_commit(self, table_id: str, causation_id: str) -> tuple[int, int] | None:
        """The table commit made by the command with idempotency key ``causation_id`` that
        seated someone or added chips: (its sequence, the seat)."""
        for projected in await read_public(self.nc, table_id):
            commit = decode_public(projected)
            if commit.causation_id != causation_id:
                continue
            for event in commit.events:
                if isinstance(event, PlayerSeated | ChipsAdded):
                    return commit.sequence, event.seat
        return None


def money_pending(
    commits: list[PublicCommit],
    through: dict[str, int],
    credited: Callable[[str, str, int], bool],
    recorded: Callable[[str, int], bool],
) -> Money:
    """What the commits not yet acknowledged still owe wallets and the rake, counting only
    commits the audit's table reads already reflect (sequence <= ``through[table]``) and not
    what was applied before the lobby stopped short of acknowledging (``credited(player, table,
    seq)``, ``recorded(table, seq)``)."""
    total = Money()
    for commit in commits:
        if commit.sequence > through.get(commit.table_id, 0):
            continue
        money = money_of(commit.events)
        total.credits.extend(
            (p, a) for p, a in money.credits if not credited(p, commit.table_id, commit.sequence)
        )
        if not recorded(commit.table_id, commit.sequence):
            total.rake += money.rake
    return total


async def wait_projected(nc: NATS, table_id: str, sequence: int, timeout: float = 5.0) -> bool:
    """Wait until the table's public projection has its commit ``sequence`` (it is published
    just after the commit)."""
    from libs.eventstore.projection import JetStreamProjection

    projection = JetStreamProjection(nc)
    deadline = time.monotonic() + timeout
    while True:
        last = await projection.last(table_id)
        if last is not None and last.sequence >= sequence:
            return True
        if time.monotonic() >= deadline:
            return False
        await asyncio.sleep(0.02)
