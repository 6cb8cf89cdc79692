"""Spots for the AI tests: hands driven through the engine to a decision, and the seat view of
the player to act (built the one way the arena and the table build it)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from libs.ai import PublicAction, SeatView, public_actions, seat_view
from libs.poker import (
    BetOrRaise,
    BettingStructure,
    Call,
    Check,
    Command,
    DealBoard,
    DealHands,
    Event,
    Fold,
    HandConfig,
    HandState,
    Variant,
    fixed_limit_blinds,
    parse_cards,
    position_blinds,
    start_hand,
    step,
)
from libs.poker.evolve import replay

BB = 100


def config(variant: Variant, structure: BettingStructure, players: int) -> HandConfig:
    if structure is BettingStructure.FIXED_LIMIT:
        sb, bb = fixed_limit_blinds(BB)
    else:
        sb, bb = BB // 2, BB
    return HandConfig(variant, structure, position_blinds(players, sb, bb))


class Hand:
    """A hand in play with its events, so views carry the public history."""

    def __init__(
        self,
        variant: Variant,
        structure: BettingStructure,
        holes: Sequence[str],
        stacks: Sequence[int] | None = None,
        antes: Sequence[int] = (),
    ) -> None:
        """``antes`` by position (default none); a big blind ante (only the big blind posts)
        goes in dead, as a tournament's does."""
        n = len(holes)
        dealt = config(variant, structure, n)
        if antes:
            dead = sum(1 for a in antes if a) == 1
            dealt = replace(dealt, antes=tuple(antes), dead_antes=dead)
        opening = start_hand(dealt, list(stacks or [100 * BB] * n))
        self.events: list[Event] = list(opening)
        self.state: HandState = replay(opening)
        self.apply(DealHands(tuple(parse_cards(h) for h in holes)))

    def apply(self, *commands: Command) -> Hand:
        for command in commands:
            self.state, events = step(self.state, command)
            self.events += events
        return self

    def board(self, cards: str) -> Hand:
        return self.apply(DealBoard(parse_cards(cards)))

    @property
    def actions(self) -> tuple[PublicAction, ...]:
        return public_actions(self.events)

    def view(self) -> SeatView:
        actor = self.state.actor
        assert actor is not None, "nobody is to act"
        return seat_view(self.state, actor, self.actions)

    # short forms for the player to act
    def call(self) -> Hand:
        return self.apply(Call(self._actor()))

    def check(self) -> Hand:
        return self.apply(Check(self._actor()))

    def fold(self) -> Hand:
        return self.apply(Fold(self._actor()))

    def raise_to(self, to: int) -> Hand:
        return self.apply(BetOrRaise(self._actor(), to))

    def _actor(self) -> int:
        actor = self.state.actor
        assert actor is not None
        return actor
