"""The lobby in protobuf, the servicer's side of every translation (the use cases know none of
it): players, wallets, ledger entries and listed tables as holdem.lobby.v1 / common.v1 messages;
the table config a CreateTable names (checked whole, its derived values included: ``new_table``,
kept by the catalogue as configs.py encodes it); CreateTable's AI levels (``ai_level_names``).

A config's derived buy-ins are checked here because ``TableConfig`` fills what the client left 0
(20 and 100 big blinds) and every amount a client may name is at most ``MAX_CHIPS`` (the proto
rules of JoinTable.buy_in, TopUp.amount and the table's SeatPlayer.buy_in): a table whose derived
buy-ins pass it could be listed but never joined, and a house AI bought in with its maximum would
be refused by the table after its chips were granted. Such a config is refused naming the field
the client sent (``config.big_blind``), before anything is written."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime

from google.protobuf.timestamp_pb2 import Timestamp
from holdem.common.v1 import common_pb2
from holdem.lobby.v1 import lobby_pb2

from libs.errors import InvalidArgument
from libs.lobby import catalogue, wallet
from libs.lobby.catalogue import Listing
from libs.lobby.wallet import Entry, Wallet
from libs.table import TableConfig
from libs.table.config import INVALID_TABLE_CONFIG, TableConfigError
from libs.tableproto.config import config_from_proto, config_to_proto
from services.lobby.configs import encode_config
from services.lobby.listings import INVALID_BOTS, NewTable

_STATUSES = {
    catalogue.OPEN: common_pb2.TABLE_STATUS_OPEN,
    catalogue.CLOSED: common_pb2.TABLE_STATUS_CLOSED,
}
_LEDGER_KINDS = {
    wallet.GRANT: lobby_pb2.LEDGER_ENTRY_KIND_GRANT,
    wallet.LEDGER_BUY_IN: lobby_pb2.LEDGER_ENTRY_KIND_BUY_IN,
    wallet.CASH_OUT: lobby_pb2.LEDGER_ENTRY_KIND_CASH_OUT,
    wallet.LEDGER_TOP_UP: lobby_pb2.LEDGER_ENTRY_KIND_TOP_UP,
    wallet.REFUND: lobby_pb2.LEDGER_ENTRY_KIND_REFUND,
    wallet.TOURNAMENT_BUY_IN: lobby_pb2.LEDGER_ENTRY_KIND_TOURNAMENT_BUY_IN,
    wallet.TOURNAMENT_PRIZE: lobby_pb2.LEDGER_ENTRY_KIND_TOURNAMENT_PRIZE,
}
#: CreateTable's AI seats: level (the proto's BotDifficulty) -> the house AI's level name.
AI_LEVELS = {
    common_pb2.BOT_DIFFICULTY_EASY: "easy",
    common_pb2.BOT_DIFFICULTY_NORMAL: "normal",
    common_pb2.BOT_DIFFICULTY_HARD: "hard",
}


# ---- messages out ----


def timestamp(seconds: float) -> Timestamp:
    stamp = Timestamp()
    stamp.FromDatetime(datetime.fromtimestamp(seconds, UTC))
    return stamp


def table_to_proto(listing: Listing, config: TableConfig) -> common_pb2.TableSummary:
    return common_pb2.TableSummary(
        table_id=listing.table_id,
        name=listing.name,
        config=config_to_proto(config),
        status=_STATUSES.get(listing.status, common_pb2.TABLE_STATUS_OPEN),
        seated_players=listing.seated,
        created_by_player_id=listing.created_by,
        created_at=timestamp(listing.created_at),
        private=listing.private,
    )


def player_to_proto(player: Wallet) -> lobby_pb2.Player:
    return lobby_pb2.Player(
        player_id=player.player_id,
        username=player.username,
        display_name=player.display_name,
        is_bot=player.bot,
        created_at=timestamp(player.created_at),
    )


def wallet_to_proto(player: Wallet) -> lobby_pb2.Wallet:
    return lobby_pb2.Wallet(
        player_id=player.player_id,
        balance=player.balance,
        on_tables=player.on_tables,
        reserved=player.reserved,
    )


def entry_to_proto(entry: Entry) -> lobby_pb2.LedgerEntry:
    return lobby_pb2.LedgerEntry(
        index=entry.index,
        kind=_LEDGER_KINDS.get(entry.kind, lobby_pb2.LEDGER_ENTRY_KIND_UNSPECIFIED),
        amount=entry.amount,
        balance_after=entry.balance_after,
        table_id=entry.table_id,
        reference=entry.reference,
        at=timestamp(entry.at),
    )


# ---- table configs in ----


def refusal(field: str, problem: str) -> InvalidArgument:
    """INVALID_ARGUMENT / INVALID_TABLE_CONFIG naming the request's field ``config.<field>``."""
    return InvalidArgument(INVALID_TABLE_CONFIG, f"config.{field}: {problem}")


def checked_config(wire: common_pb2.TableConfig) -> TableConfig:
    """The table ``wire`` describes, refused (``refusal``) unless every setting is in range and
    the table can be joined: ``TableConfig`` itself refuses minimum and maximum buy-ins, given
    or derived, above ``MAX_CHIPS``, naming ``big_blind`` when a derived one is too big."""
    try:
        return config_from_proto(wire)
    except TableConfigError as error:
        raise refusal(error.field, error.problem) from None


def new_table(wire: common_pb2.TableConfig, *, needs_a_person: bool) -> NewTable:
    """The table a CreateTable asks for, checked whole before anything is written, and as the
    catalogue will keep it. ``needs_a_person``: a client's table (asked through the gateway),
    whose AIs do not play each other alone (they would play, and cost, for as long as the table
    is open, with nobody there)."""
    if needs_a_person:
        people = common_pb2.TableConfig()
        people.CopyFrom(wire)
        people.needs_a_person = True
        wire = people
    return NewTable(checked_config(wire), encode_config(wire))


def ai_level_names(bots: Sequence[int]) -> list[str]:
    """The house AI level names of CreateTable's ``bots``; INVALID_ARGUMENT for an unknown
    level."""
    levels = []
    for bot in bots:
        level = AI_LEVELS.get(bot)  # type: ignore[call-overload]
        if level is None:
            raise InvalidArgument(
                INVALID_BOTS, f"bots: unknown level {int(bot)} (EASY, NORMAL or HARD)"
            )
        levels.append(level)
    return levels
