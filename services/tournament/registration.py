"""The registration and purchase sagas: the buy-in (or a rebuy's or the add-on's cost) moves
from the wallet into the tournament exactly once.

(1) The tournament is asked first (``decide`` on its state: a registration it would refuse is
refused before any chip moves, nothing changed). (2) The saga is put in the open-saga bucket
``holdem_tournament_sagas`` (key: the registration key). (3) The wallet pays (PayTournament,
key ``<tournament>:pay:<key>``). (4) The tournament registers the player (``Register`` with the
key; a repeat decides nothing). When it refuses now (it filled, or closed, in between), the
wallet is credited back (``<tournament>:refund:<key>``, the refund key an unregistration would
use: a key is refunded once, however it is reached). (5) The saga leaves the bucket.

A rebuy or the add-on (``purchase``) is the same saga with its own command (``Rebuy``,
``AddOn``) and amount (the rule's cost), its key kept apart from registrations' by a prefix
(``rebuy:<key>``, ``add-on:<key>``). A cost of 0 moves no chip (the lobby takes no empty
payment).

Every step is keyed, so ``resume_all`` (at start, then every few seconds) drives a saga that a
crash left in the bucket from the start again: the payment and the registration happen once
each, or the payment is refunded once. Unregistration, cancellation and prizes need no saga
here: the tournament decides the payment it owes (``PlayerUnregistered.refund``,
``TournamentCancelled.refunds``, ``PrizesAwarded``) and the director pays it (``PayPlayer``).
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import json
import time
from collections.abc import Callable

import structlog
from nats.aio.client import Client as NATS
from nats.js.api import KeyValueConfig, StorageType
from nats.js.errors import KeyNotFoundError
from nats.js.kv import KeyValue

from libs.errors import DomainError
from libs.eventstore.kv import open_bucket
from libs.eventstore.kvkeys import all_keys
from libs.tournament import commands as C
from libs.tournament import decide
from libs.tournament.events import Payment, PaymentReason
from libs.tournament.state import TournamentState

from .store import Tournaments
from .wallets import LobbyWallets

log = structlog.get_logger("tournament.registration")

SAGA_BUCKET = "holdem_tournament_sagas"
REGISTER, REBUY, ADD_ON = "register", "rebuy", "add-on"
PURCHASES = (REBUY, ADD_ON)
RESUME_AFTER_SECONDS = 5.0  # a saga this old is not its caller's any more


class Registrations:
    def __init__(
        self,
        nc: NATS,
        tournaments: Tournaments,
        wallets: LobbyWallets,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self.nc = nc
        self.tournaments = tournaments
        self.wallets = wallets
        self.clock = clock
        self._kv: KeyValue | None = None
        self._locks: dict[str, asyncio.Lock] = {}

    async def start(self) -> None:
        self._kv = await open_bucket(
            self.nc.jetstream(),
            KeyValueConfig(bucket=SAGA_BUCKET, history=1, storage=StorageType.FILE),
        )

    @property
    def kv(self) -> KeyValue:
        if self._kv is None:
            raise RuntimeError("Registrations.start() was not called")
        return self._kv

    async def register(
        self,
        tournament_id: str,
        player_id: str,
        key: str,
        is_bot: bool = False,
        bot_level: str = "",
    ) -> TournamentState:
        """Register ``player_id`` (``key``: the caller's, unique per registration), paying
        the buy-in from their wallet; a refusal raises the tournament's or the wallet's error
        with nothing changed."""
        command = C.Register(player_id, key, self.clock(), is_bot, bot_level)
        state = await self.tournaments.get(tournament_id)
        if state.keys.get(key) == player_id:
            return state  # a retry of a registration that was made
        decide(state, command)  # refused here: nothing moved
        cfg = state.cfg
        saga = {
            "tournament": tournament_id,
            "player": player_id,
            "key": key,
            "amount": cfg.buy_in + cfg.fee,
            "bot": is_bot,
            "level": bot_level,
            "at": self.clock(),
        }
        await self.kv.put(self._saga_key(tournament_id, key), json.dumps(saga).encode())
        return await self._drive(saga, refuse=True)

    async def purchase(
        self, tournament_id: str, player_id: str, key: str, kind: str
    ) -> TournamentState:
        """A rebuy or the add-on (``kind``) for ``player_id``, paying its cost from their
        wallet; ``key`` is the caller's (prefixed here with ``kind``). A refusal raises the
        tournament's or the wallet's error with nothing changed."""
        if kind not in PURCHASES:
            raise ValueError(f"unknown purchase {kind!r}")
        key = purchase_key(kind, key)
        command = _command(kind, player_id, key, self.clock())
        state = await self.tournaments.get(tournament_id)
        if state.keys.get(key) == player_id:
            return state  # a retry of a purchase that was made
        decide(state, command)  # refused here: nothing moved
        rule = state.cfg.rebuy if kind == REBUY else state.cfg.add_on
        assert rule is not None  # decide refuses a purchase the tournament does not sell
        saga = {
            "kind": kind,
            "tournament": tournament_id,
            "player": player_id,
            "key": key,
            "amount": rule.cost,
            "bot": False,
            "level": "",
            "at": self.clock(),
        }
        await self.kv.put(self._saga_key(tournament_id, key), json.dumps(saga).encode())
        return await self._drive(saga, refuse=True)

    @staticmethod
    def _saga_key(tournament_id: str, key: str) -> str:
        return hashlib.sha256(f"{tournament_id}\x00{key}".encode()).hexdigest()

    async def _drive(self, saga: dict[str, object], refuse: bool) -> TournamentState:
        tid, player, key = str(saga["tournament"]), str(saga["player"]), str(saga["key"])
        amount = int(str(saga["amount"]))
        kind = str(saga.get("kind", REGISTER))  # sagas written before purchases: registrations
        lock = self._locks.setdefault(f"{tid}:{key}", asyncio.Lock())
        async with lock:
            try:
                if amount > 0:
                    await self.wallets.pay(player, tid, amount, f"{tid}:pay:{key}")
            except DomainError:  # the wallet refused (not enough chips, no such player)
                await self._done(tid, key)
                raise
            command = _command(
                kind, player, key, self.clock(), bool(saga["bot"]), str(saga["level"])
            )
            try:
                # a purchase's key names its kind already (purchase_key)
                msg_id = f"register:{key}" if kind == REGISTER else key
                state = await self.tournaments.execute(tid, command, msg_id)
            except DomainError as refusal:
                log.info("refused after payment: refunding", kind=kind, key=key, error=str(refusal))
                await self._refund(tid, player, key, amount)
                await self._done(tid, key)
                if refuse:
                    raise
                return await self.tournaments.get(tid)
            await self._done(tid, key)
            return state

    async def _refund(self, tid: str, player: str, key: str, amount: int) -> None:
        if amount <= 0:
            return
        await self.wallets.credit(
            Payment(f"{tid}:refund:{key}", player, amount, PaymentReason.REFUND)
        )

    async def _done(self, tid: str, key: str) -> None:
        with contextlib.suppress(KeyNotFoundError):
            await self.kv.delete(self._saga_key(tid, key))

    async def resume_all(self, grace_seconds: float = RESUME_AFTER_SECONDS) -> int:
        """Drive every saga a crash left open (older than ``grace_seconds``); how many."""
        resumed = 0
        for name in await all_keys(self.nc, SAGA_BUCKET):
            try:
                entry = await self.kv.get(name)
            except KeyNotFoundError:
                continue
            if not entry.value:
                continue
            saga = json.loads(entry.value)
            if self.clock() - float(saga["at"]) < grace_seconds:
                continue
            try:
                await self._drive(saga, refuse=False)
            except DomainError as exc:
                log.info("open saga ended", saga=name, error=str(exc))
            resumed += 1
        return resumed


def purchase_key(kind: str, key: str) -> str:
    """The tournament's key of a rebuy or add-on bought with the caller's ``key``."""
    return f"{kind}:{key}"


def _command(
    kind: str, player: str, key: str, now: float, is_bot: bool = False, level: str = ""
) -> C.Register | C.Rebuy | C.AddOn:
    if kind == REBUY:
        return C.Rebuy(player, key, now)
    if kind == ADD_ON:
        return C.AddOn(player, key, now)
    return C.Register(player, key, now, is_bot, level)
