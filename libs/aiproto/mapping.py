"""The one mapping between the wire's enums and cards (``holdem.common.v1``) and libs.ai's:
variants, betting structures, difficulties, streets, public moves, actions and cards."""

from __future__ import annotations

from holdem.common.v1 import common_pb2 as pb

from libs.ai.policy import Level
from libs.ai.view import Move
from libs.poker.cards import Card
from libs.poker.config import BettingStructure, Variant
from libs.poker.errors import BAD_CARDS
from libs.poker.events import ActionKind

from .errors import InvalidRequest

VARIANTS = {
    pb.VARIANT_HOLDEM: Variant.HOLDEM,
    pb.VARIANT_OMAHA: Variant.OMAHA,
    pb.VARIANT_OMAHA_HI_LO: Variant.OMAHA_HI_LO,
}
STRUCTURES = {
    pb.BETTING_STRUCTURE_NO_LIMIT: BettingStructure.NO_LIMIT,
    pb.BETTING_STRUCTURE_POT_LIMIT: BettingStructure.POT_LIMIT,
    pb.BETTING_STRUCTURE_FIXED_LIMIT: BettingStructure.FIXED_LIMIT,
}
DIFFICULTIES = {
    pb.BOT_DIFFICULTY_EASY: Level.EASY,
    pb.BOT_DIFFICULTY_NORMAL: Level.NORMAL,
    pb.BOT_DIFFICULTY_HARD: Level.HARD,
}
STREETS = (pb.STREET_PREFLOP, pb.STREET_FLOP, pb.STREET_TURN, pb.STREET_RIVER)
MOVES = {
    Move.ANTE: pb.PUBLIC_ACTION_KIND_ANTE,
    Move.BLIND: pb.PUBLIC_ACTION_KIND_BLIND,
    Move.DEAD_BLIND: pb.PUBLIC_ACTION_KIND_DEAD_BLIND,
    Move.FOLD: pb.PUBLIC_ACTION_KIND_FOLD,
    Move.CHECK: pb.PUBLIC_ACTION_KIND_CHECK,
    Move.CALL: pb.PUBLIC_ACTION_KIND_CALL,
    Move.BET: pb.PUBLIC_ACTION_KIND_BET,
    Move.RAISE: pb.PUBLIC_ACTION_KIND_RAISE,
}
ACTIONS = {
    ActionKind.FOLD: pb.ACTION_TYPE_FOLD,
    ActionKind.CHECK: pb.ACTION_TYPE_CHECK,
    ActionKind.CALL: pb.ACTION_TYPE_CALL,
    ActionKind.BET: pb.ACTION_TYPE_BET,
    ActionKind.RAISE: pb.ACTION_TYPE_RAISE,
}


def card_to_proto(card: int) -> pb.Card:
    return pb.Card(rank=pb.Rank.ValueType((card >> 2) + 2), suit=pb.Suit.ValueType((card & 3) + 1))


def card_from_proto(card: pb.Card, where: str) -> Card:
    rank, suit = int(card.rank), int(card.suit)
    if not (2 <= rank <= 14 and 1 <= suit <= 4):
        raise InvalidRequest(BAD_CARDS, f"{where}: not a card (rank {rank}, suit {suit})")
    return Card((rank - 2) * 4 + suit - 1)


def level_to_proto(level: Level) -> pb.BotDifficulty.ValueType:
    for value, known in DIFFICULTIES.items():
        if known is level:
            return value
    raise ValueError(f"{level.value} is not a difficulty of the ai service (easy, normal, hard)")
