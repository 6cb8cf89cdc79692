"""Table gRPC servicer (holdem.table.v1.TableService): proto <-> domain, nothing more."""

from __future__ import annotations

import asyncio
import functools
import time
from collections.abc import Awaitable, Callable
from typing import TypeVar

import nats.errors
import structlog
from holdem.common.v1 import common_pb2
from holdem.table.v1 import table_pb2, table_pb2_grpc
from nats.aio.client import Client as NATS
from nats.errors import NoRespondersError
from nats.js.errors import ServiceUnavailableError

from libs.errors import ErrorKind
from libs.eventstore import EventStore, SnapshotCache, StoreUnavailable
from libs.eventstore.jetstream import JetStreamEventStore
from libs.eventstore.jsbatch import BatchingAppender
from libs.eventstore.lease_thread import LeaseThread
from libs.eventstore.members import Announcement
from libs.eventstore.projection import JetStreamProjection
from libs.eventstore.redis_snapshots import RedisSnapshotStore
from libs.eventstore.registry import Registry
from libs.eventstore.shards import SHARDS_IN_USE
from libs.eventstore.store import StoreError
from libs.fairdeck.disclosure import DeckDisclosure
from libs.history import HandHistory
from libs.platform.callers import TABLE_CALLERS
from libs.platform.errors import ErrorMapper
from libs.platform.metrics import table as metrics
from libs.platform.natsconn import close_nats, connect_nats, nats_readiness
from libs.platform.redisconn import redis_client
from libs.platform.server import Context, Endpoint, Mount
from libs.platform.unavailable import DEPENDENCY_FAILURES, unavailable_on_failure
from libs.poker.errors import InvalidCommand
from libs.table import commands as tc
from libs.table.errors import TABLE_NOT_FOUND, UNKNOWN_ACTION
from libs.tableproto.actions import action_from_proto
from services.table.app import TableApp
from services.table.bots import Bots
from services.table.config import TableServiceConfig
from services.table.history import HandHistories
from services.table.kinds import authorize_table_command
from services.table.ownership import NotOwner
from services.table.peers import connect_peers
from services.table.requests import rabbit_command, table_command
from services.table.viewcache import ViewCache
from services.table.views import rabbit_to_proto, timestamp

TABLE_SERVICE = table_pb2.DESCRIPTOR.services_by_name["TableService"]
SERVICE_NAME = TABLE_SERVICE.full_name

# Error codes of malformed requests (the domain's come from libs.table.errors, libs.poker.errors).
INVALID_REQUEST = "INVALID_REQUEST"
INVALID_TABLE_ID = "INVALID_TABLE_ID"
INVALID_IDEMPOTENCY_KEY = "INVALID_IDEMPOTENCY_KEY"


def error_mapper() -> ErrorMapper:
    """Statuses by each error's ``kind`` (the engine's ``IllegalAction``: FAILED_PRECONDITION,
    ``InvalidCommand``: INVALID_ARGUMENT; ``NotOwner``: UNAVAILABLE; conflicts: ABORTED), except
    a table that was never opened, which is NOT_FOUND."""
    mapper = ErrorMapper()
    mapper.register_code(TABLE_NOT_FOUND, ErrorKind.NOT_FOUND)
    return mapper


R = TypeVar("R")
Q = TypeVar("Q")

# What a store that does not answer raises: NATS failing over to another node (no responders,
# no stream response, timeouts), Redis restarting (libs.platform.unavailable's one list). The
# caller gets UNAVAILABLE and retries. StoreError: e.g. a read that a NATS node's death cut
# short (a 503 mid-read): try again
_UNREACHABLE: tuple[type[BaseException], ...] = (*DEPENDENCY_FAILURES, StoreError)


def _store_unavailable_is_unavailable(
    method: Callable[[TableServiceServicer, Q, Context], Awaitable[R]],
) -> Callable[[TableServiceServicer, Q, Context], Awaitable[R]]:
    """Answer UNAVAILABLE (``STORE_UNAVAILABLE``) at once while the stores are known to be down;
    a store failing under a call is answered so by ``unavailable_on_failure`` (the class's)."""

    @functools.wraps(method)
    async def wrapped(self: TableServiceServicer, request: Q, context: Context) -> R:
        down = self.unready()
        if down is not None:  # at once, not after a publish's timeout
            raise StoreUnavailable(down)
        return await method(self, request, context)

    return wrapped


def _store_down(failure: BaseException) -> StoreUnavailable:
    return StoreUnavailable(type(failure).__name__)


@unavailable_on_failure(TABLE_SERVICE.methods_by_name, _store_down, _UNREACHABLE)
class TableServiceServicer(table_pb2_grpc.TableServiceServicer):
    def __init__(self, app: TableApp, unready: Callable[[], str | None] = lambda: None) -> None:
        self.app = app
        self.unready = unready  # why calls cannot be served now (NATS down), or None
        self.histories = HandHistories(app.events)
        self.views = ViewCache()  # each table's views of its current state, built once

    @_store_unavailable_is_unavailable
    async def SubmitCommand(
        self, request: table_pb2.SubmitCommandRequest, context: Context
    ) -> table_pb2.SubmitCommandResponse:
        table_id, key = _ids(request.table_id, request.idempotency_key)
        now = self.app.clock()
        which = request.WhichOneof("command")
        await authorize_table_command(self.app, context, request, which or "")
        if which == "start_hand":
            return table_pb2.SubmitCommandResponse(sequence=await self.app.start_hand(table_id))
        if which == "show_or_muck":
            # a player's move at showdown: answered at its own commit, as an action is
            som = request.show_or_muck
            shown = tc.ShowOrMuck(som.player_id, som.show, now, hand_id=som.hand_id)
            outcome = await self.app.act(table_id, shown, key)
            return table_pb2.SubmitCommandResponse(
                sequence=outcome.sequence, view=await self._view_now(table_id, som.player_id)
            )
        if which == "answer_run_it":
            answer = request.answer_run_it
            asked = tc.AnswerRunIt(answer.player_id, answer.times, now, hand_id=answer.hand_id)
            outcome = await self.app.act(table_id, asked, key)
            return table_pb2.SubmitCommandResponse(
                sequence=outcome.sequence, view=await self._view_now(table_id, answer.player_id)
            )
        if which == "rabbit_hunt":
            table = await self.app.existing(table_id)
            hunt = rabbit_command(table.state, request.rabbit_hunt, now)
            outcome = await self.app.execute(table_id, hunt, key)
            view = await self._view_now(table_id, hunt.player_id)
            after = (await self.app.table(table_id)).state  # the next hand may be on already
            return table_pb2.SubmitCommandResponse(
                sequence=outcome.sequence, view=view, rabbit=rabbit_to_proto(after)
            )
        command = table_command(request, which or "", table_id, now)
        if command is None:
            raise InvalidCommand(INVALID_REQUEST, "SubmitCommand needs a command")
        outcome = await self.app.execute(table_id, command, key)
        return table_pb2.SubmitCommandResponse(sequence=outcome.sequence)

    @_store_unavailable_is_unavailable
    async def SubmitAction(
        self, request: table_pb2.SubmitActionRequest, context: Context
    ) -> table_pb2.SubmitActionResponse:
        table_id, key = _ids(request.table_id, request.idempotency_key)
        action = action_from_proto(request.action)
        if action is None:
            raise InvalidCommand(UNKNOWN_ACTION, "unknown or missing action")
        command = tc.Act(
            request.player_id, action, request.amount, self.app.clock(), hand_id=request.hand_id
        )
        outcome = await self.app.act(table_id, command, key)
        return table_pb2.SubmitActionResponse(
            sequence=outcome.sequence, view=await self._view_now(table_id, request.player_id)
        )

    async def _view_now(self, table_id: str, player_id: str) -> common_pb2.PlayerView:
        """``player_id``'s view of the table as it is now (right after their move)."""
        table = await self.app.table(table_id)
        return self.views.view(table_id, table.state, table.sequence, player_id)

    @_store_unavailable_is_unavailable
    async def GetTableState(
        self, request: table_pb2.GetTableStateRequest, context: Context
    ) -> table_pb2.GetTableStateResponse:
        table = await self.app.existing(_ids(request.table_id, "-")[0])
        return table_pb2.GetTableStateResponse(
            view=self.views.view(request.table_id, table.state, table.sequence, None)
        )

    @_store_unavailable_is_unavailable
    async def GetPlayerView(
        self, request: table_pb2.GetPlayerViewRequest, context: Context
    ) -> table_pb2.GetPlayerViewResponse:
        table = await self.app.existing(_ids(request.table_id, "-")[0])
        view = self.views.view(request.table_id, table.state, table.sequence, request.player_id)
        return table_pb2.GetPlayerViewResponse(view=view)

    @_store_unavailable_is_unavailable
    async def GetHandHistory(
        self, request: table_pb2.GetHandHistoryRequest, context: Context
    ) -> table_pb2.GetHandHistoryResponse:
        table_id = _ids(request.table_id, "-")[0]
        if await self._never_dealt(table_id, request.player_id):
            return table_pb2.GetHandHistoryResponse()  # no hand of theirs: nothing to read
        page = await self.histories.page(
            table_id,
            request.player_id,
            hand_id=request.hand_id,
            before=request.before_hand_number,
            limit=request.limit,
        )
        return table_pb2.GetHandHistoryResponse(
            hands=[_record(hand) for hand in page.hands], more=page.more
        )

    @_store_unavailable_is_unavailable
    async def GetDecks(
        self, request: table_pb2.GetDecksRequest, context: Context
    ) -> table_pb2.GetDecksResponse:
        # any replica answers: a read of the stream, nothing claimed or cached
        decks, more = await self.histories.decks(
            _ids(request.table_id, "-")[0],
            now=self.app.clock(),
            delay=self.app.seed_disclosure,
            hand_id=request.hand_id,
            before=request.before_hand_number,
            limit=request.limit,
        )
        return table_pb2.GetDecksResponse(decks=[_deck(d) for d in decks], more=more)

    async def _never_dealt(self, table_id: str, player_id: str) -> bool:
        """The table's state says ``player_id`` was never dealt into a hand there (then their
        history is empty, and the stream is not read). Only the replica serving the table
        holds its state: on another one (NotOwner), or when the state does not know
        (``dealt_players`` None), the stream is read as ever. TABLE_NOT_FOUND for a table
        that was never opened."""
        try:
            table = await self.app.existing(table_id)
        except NotOwner:
            return False
        dealt = table.state.dealt_players
        return dealt is not None and player_id not in dealt


def _record(hand: HandHistory) -> table_pb2.HandRecord:
    return table_pb2.HandRecord(
        hand_id=hand.hand_id,
        hand_number=hand.hand_number,
        started_at=timestamp(hand.started_at),
        ended_at=timestamp(hand.ended_at),
        phh=hand.phh,
        pokerstars=hand.pokerstars,
    )


def _deck(deck: DeckDisclosure) -> table_pb2.Deck:
    return table_pb2.Deck(
        hand_id=deck.hand_id,
        hand_number=deck.hand_number,
        commitment=deck.commitment,
        algorithm=deck.algorithm,
        ended_at=timestamp(deck.ended_at),
        disclosed_at=timestamp(deck.disclosed_at),
        seed=deck.seed,
        voided=deck.voided,
    )


def _ids(table_id: str, key: str) -> tuple[str, str]:
    if not table_id or any(c in table_id for c in ".*> \t"):
        raise InvalidCommand(
            INVALID_TABLE_ID, "a table id without dots, spaces or wildcards is required"
        )
    if not key:
        raise InvalidCommand(INVALID_IDEMPOTENCY_KEY, "an idempotency key is required")
    return table_id, key


log = structlog.get_logger("table")


async def _patiently(step: Callable[[], Awaitable[object]], seconds: float = 60.0) -> None:
    """A start-up step against JetStream, again while it times out or JetStream is not ready
    yet: a cluster that has just formed (or is electing) answers creating a replicated stream
    late, and the service would otherwise exit at start."""
    deadline = time.monotonic() + seconds
    while True:
        try:
            await step()
            return
        except (nats.errors.TimeoutError, ServiceUnavailableError, NoRespondersError):
            if time.monotonic() > deadline:
                raise
            log.warning("jetstream_not_ready", retry_in=0.5)
            await asyncio.sleep(0.5)


async def build(config: TableServiceConfig) -> Mount:
    platform = config.platform
    nc = await connect_nats(platform.nats_url, platform.tls, name=f"table-{config.replica_id}")
    # Snapshots are a cache: short timeouts, and a Redis that does not answer is a miss; a
    # burst of opens or loads (128 tables at once) waits for one of the pool's connections.
    redis = redis_client(platform.redis_url, platform.tls)
    snapshots = SnapshotCache(RedisSnapshotStore(redis))
    replicas = platform.nats_replicas
    store = JetStreamEventStore(nc, stream=config.stream)
    await _patiently(
        lambda: store.ensure_stream(
            replicas=replicas,
            duplicate_window=config.idempotency_window_seconds,
            allow_atomic=config.group_commit,
        )
    )
    events: EventStore = store
    if config.group_commit:  # docs/operations.md, "Durability"
        batching = BatchingAppender(store)
        await _patiently(batching.check)  # an older NATS: every commit goes alone
        events = batching
    public = JetStreamProjection(nc)
    await _patiently(
        lambda: public.ensure_stream(
            max_age=config.public_max_age_seconds,
            max_per_subject=config.public_max_per_table,
            replicas=replicas,
        )
    )
    announce = Announcement(config.advertise_addr, config.shards)  # for callers' routing
    ttl = config.lease_ttl_seconds
    # Kept alive by a thread of their own (own loop, own connection): a serving loop starved
    # by thousands of tables renewed late, lost its shards and let their tables go.
    leases = LeaseThread(
        lambda: connect_nats(
            platform.nats_url, platform.tls, name=f"table-{config.replica_id}-leases"
        ),
        config.replica_id,
        ttl=ttl,
        replicas=replicas,
        announcement=announce,
    )
    await _patiently(leases.start)
    metrics.LEASES_HELD.set_function(lambda: len(leases.held()))
    metrics.SNAPSHOT_STORE_UP.set_function(lambda: 1 if snapshots.reachable else 0)
    registry = Registry(nc, replicas=replicas)
    await _patiently(registry.start)
    shards_in_use = Registry(nc, bucket=SHARDS_IN_USE, replicas=replicas)
    await _patiently(shards_in_use.start)
    peers = connect_peers(config)
    bots = Bots(peers.decider, timeout=config.ai_timeout_seconds)

    app = TableApp(
        events,
        snapshots,
        peers.dealer,
        leases=leases,
        projection=public,
        public_max_age=config.public_max_age_seconds,
        snapshot_every=config.snapshot_every,
        registry=registry,
        shards_in_use=shards_in_use,
        shards=config.shards,
        ranker=peers.ranker,
        idempotency_window=config.idempotency_window_seconds,
        bots=bots,
        seed_disclosure=config.seed_disclosure_seconds,
        idle_unload=config.idle_unload_seconds,
        writer=config.replica_id,
    )
    await app.start_background()
    servicer = TableServiceServicer(app, lambda: readiness(nc))

    async def cleanup() -> None:
        await app.stop()
        await leases.close()
        await peers.close()
        await close_nats(nc)
        await redis.aclose()

    return Mount(
        policy=TABLE_CALLERS,
        endpoints=[
            Endpoint(
                SERVICE_NAME,
                lambda s: table_pb2_grpc.add_TableServiceServicer_to_server(servicer, s),
            )
        ],
        error_mapper=error_mapper(),
        cleanups=[cleanup],
        readiness=lambda: readiness(nc),
    )


def readiness(nc: NATS) -> str | None:
    """Why the table service cannot serve now, or None. Only NATS counts: it holds the tables
    (JetStream) and their leases. Redis holds snapshots, a cache: while it is down tables load
    by replaying their streams and snapshots are skipped, so the service stays SERVING (the
    outage shows in the log and in holdem_table_snapshot_store_up)."""
    return nats_readiness(nc)
