"""Small helpers to write rule tests as given-when-then on events."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TypeVar

from libs.poker import (
    BettingStructure,
    Command,
    DealBoard,
    DealHoleCards,
    Event,
    HandConfig,
    HandState,
    Variant,
    new_hand,
    parse_cards,
    position_blinds,
    step,
)


def holdem(
    stacks: Sequence[int],
    sb: int = 1,
    bb: int = 2,
    structure: BettingStructure = BettingStructure.NO_LIMIT,
    variant: Variant = Variant.HOLDEM,
    straddle: int = 0,
    antes: Sequence[int] = (),
    **kwargs: object,
) -> HandState:
    blinds = position_blinds(len(stacks), sb, bb, straddle)
    config = HandConfig(
        variant,
        structure,
        blinds,
        tuple(antes),
        **kwargs,  # type: ignore[arg-type]
    )
    return new_hand(config, stacks)


def deal(state: HandState, *holes: str) -> HandState:
    """Deal hole cards to positions 0.. in order (``"AsKs"``, ...)."""
    for player, cards in enumerate(holes):
        state, _ = step(state, DealHoleCards(player, parse_cards(cards)))
    return state


def board(state: HandState, cards: str) -> HandState:
    state, _ = step(state, DealBoard(parse_cards(cards)))
    return state


def play(state: HandState, *commands: Command) -> tuple[HandState, list[Event]]:
    """Apply commands in order; return the final state and every event they caused."""
    events: list[Event] = []
    for command in commands:
        state, new = step(state, command)
        events.extend(new)
    return state, events


EventT = TypeVar("EventT")


def events_of(events: Sequence[Event], kind: type[EventT]) -> list[EventT]:
    """The events of one type, typed as that type."""
    return [e for e in events if isinstance(e, kind)]
