"""The fairness audit: do a hand's dealt cards follow from its revealed seed?

For a hand, the seed must hash (SHA-256) to the commitment published before the deal, the shuffle
algorithm must be one we know (``holdem-deck-v1``, see ``libs.fairdeck.deck``), and every card
shown (hole cards by position, the board, burns when recorded) must be the card at its deck
position (``DealLayout``; the order within one player's hole cards or within the flop is not
significant). A board run more than once has each further run checked at the positions after a
single run's river (``DealLayout.run_streets``), and a rabbit hunt's cards at the positions of
the streets never dealt. ``check`` lists every difference.

``DealtHand`` is what a history shows; ``dealt_from_events`` builds it from a hand's engine events
and ``outcomes_from_stream`` audits every hand of a table's event stream (``libs.table`` events:
``HandBegan`` carries the commitment, ``SeedRevealed`` the seed). Pure: no I/O. Reading histories
from text is ``libs.fairdeck.histories``; ``holdem verify`` (libs/cli/verify.py) reads a table's
stream.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from libs.poker.cards import format_cards
from libs.poker.dealing import DealLayout
from libs.poker.events import (
    Event,
    HandEnded,
    HandStarted,
    HandVoided,
    HoleCardsDealt,
    RunDealt,
    RunItOffered,
    StreetDealt,
)
from libs.table.events import HandBegan, RabbitHunted, SeedRevealed

from .deck import ALGORITHM, commitment, deck_from_seed

__all__ = [
    "STREETS",
    "DealtHand",
    "Outcome",
    "Reveal",
    "check",
    "dealt_from_events",
    "outcomes_from_stream",
]

STREETS = {1: "flop", 2: "turn", 3: "river"}


@dataclass(frozen=True)
class Reveal:
    """What the dealer published for a hand: the commitment before it, the seed after it."""

    seed: str  # hex
    commitment: str  # hex SHA-256 of the seed
    algorithm: str = ALGORITHM


@dataclass
class DealtHand:
    """Every card a history shows, by where it was dealt."""

    reveal: Reveal
    players: int
    hole_cards_per_player: int
    holes: dict[int, tuple[int, ...]] = field(default_factory=dict)
    boards: dict[int, tuple[int, ...]] = field(default_factory=dict)
    burns: dict[int, int] = field(default_factory=dict)
    # Cards checked at positions given with them: (what, cards, deck positions): further runs
    # of the board, their burns, a rabbit hunt.
    placed: list[tuple[str, tuple[int, ...], tuple[int, ...]]] = field(default_factory=list)

    @property
    def card_count(self) -> int:
        return (
            sum(len(c) for c in self.holes.values())
            + sum(len(c) for c in self.boards.values())
            + len(self.burns)
            + sum(len(cards) for _, cards, _ in self.placed)
        )


def check(hand: DealtHand) -> list[str]:
    """Every way ``hand`` differs from what its revealed seed deals ([] = fair)."""
    reveal = hand.reveal
    if reveal.algorithm != ALGORITHM:
        return [f"unknown shuffle algorithm {reveal.algorithm!r} (known: {ALGORITHM})"]
    try:
        seed = bytes.fromhex(reveal.seed)
    except ValueError:
        return [f"the seed {reveal.seed[:80]!r} is not hex"]
    failures: list[str] = []
    actual = commitment(seed)
    if actual != reveal.commitment.lower():
        failures.append(
            f"commitment mismatch: SHA-256(seed) = {actual}, the hand committed to "
            f"{reveal.commitment}"
        )
    try:
        deck = deck_from_seed(seed)
        layout = DealLayout(hand.players, hand.hole_cards_per_player)
        if not 2 <= hand.players <= 10 or hand.hole_cards_per_player not in (2, 4):
            raise ValueError(
                f"{hand.players} players with {hand.hole_cards_per_player} hole cards each: "
                "not a hand we deal (2-10 players, 2 or 4 hole cards)"
            )
    except ValueError as exc:
        return [*failures, str(exc)]

    def compare(what: str, shown: Sequence[int], positions: Sequence[int]) -> None:
        expected = [deck[i] for i in positions]
        # The order within one player's hole cards or within the flop changes nothing in the
        # game (histories may sort them): the same cards from the same positions are fair.
        if sorted(shown) != sorted(expected):
            where = "deck position" + ("s" if len(positions) > 1 else "")
            failures.append(
                f"{what}: the history has {format_cards(shown) or 'nothing'}, the seed deals "
                f"{format_cards(expected)} ({where} {', '.join(map(str, positions))})"
            )

    for position, cards in sorted(hand.holes.items()):
        if not 0 <= position < hand.players:
            failures.append(f"hole cards for position {position}, but the hand has {hand.players}")
            continue
        if len(cards) != hand.hole_cards_per_player:
            failures.append(
                f"position {position} (p{position + 1}) has {len(cards)} hole cards, "
                f"not {hand.hole_cards_per_player}"
            )
            continue
        compare(f"position {position} (p{position + 1}) hole cards", cards, layout.hole(position))
    for street, cards in sorted(hand.boards.items()):
        if street not in STREETS:
            failures.append(f"board street {street}: there are only flop, turn and river")
            continue
        compare(f"{STREETS[street]} (street {street})", cards, layout.board(street))
    for street, card in sorted(hand.burns.items()):
        if street not in STREETS:
            failures.append(f"burn for street {street}: there are only flop, turn and river")
            continue
        compare(f"burn before the {STREETS[street]}", [card], [layout.burn(street)])
    for what, cards, positions in hand.placed:
        if len(cards) != len(positions) or not all(0 <= i < 52 for i in positions):
            failures.append(f"{what}: {len(cards)} cards for deck positions {positions}")
            continue
        compare(what, cards, positions)
    return failures


def dealt_from_events(events: Iterable[Event], reveal: Reveal) -> DealtHand:
    """The dealt cards of a hand's engine events (burns from ``StreetDealt.burn``)."""
    events = list(events)
    first = events[0]
    if not isinstance(first, HandStarted):
        raise ValueError("a hand's events begin with HandStarted")
    dealt = DealtHand(reveal, len(first.stacks), first.config.variant.hole_card_count)
    layout = DealLayout(dealt.players, dealt.hole_cards_per_player)
    street = run_from = 0
    for event in events:
        if isinstance(event, HoleCardsDealt):
            dealt.holes[event.player] = tuple(int(c) for c in event.cards)
        elif isinstance(event, StreetDealt):
            street = event.street
            dealt.boards[event.street] = tuple(int(c) for c in event.cards)
            if event.burn is not None:
                dealt.burns[event.street] = int(event.burn)
        elif isinstance(event, RunItOffered):
            run_from = street
        elif isinstance(event, RunDealt):
            streets = layout.run_streets(event.run, run_from)
            boards = tuple(i for _, board in streets for i in board)
            dealt.placed.append((f"run {event.run} board", _ints(event.cards), boards))
            if event.burns:
                burns = tuple(burn for burn, _ in streets)
                dealt.placed.append((f"run {event.run} burns", _ints(event.burns), burns))
    return dealt


def _ints(cards: Iterable[int]) -> tuple[int, ...]:
    return tuple(int(c) for c in cards)


def rabbit_placed(
    hunted: RabbitHunted, players: int, hole_cards: int
) -> tuple[str, tuple[int, ...], tuple[int, ...]]:
    """A rabbit hunt's cards with the deck positions they must come from."""
    layout = DealLayout(players, hole_cards)
    streets = [street for street in range(hunted.first_street, 4) if street in STREETS]
    positions = tuple(i for street in streets for i in layout.board(street))
    return "rabbit hunt", _ints(hunted.cards), positions


@dataclass(frozen=True)
class Outcome:
    """The audit of one hand: where it came from (a file, or ``hand N`` of a stream), every
    difference found (none = fair) and how many dealt cards were checked."""

    path: str
    failures: tuple[str, ...]
    cards: int = 0
    voided: bool = False  # the hand was voided (from a stream)
    seed_lost: bool = False  # the seed was revealed empty: the dealer no longer had it

    @property
    def ok(self) -> bool:
        return not self.failures


def outcomes_from_stream(events: Sequence[Any]) -> list[Outcome]:
    """One outcome per hand of a table's event stream (``libs.table`` and engine events)."""
    seeds = {e.hand_id: e.seed for e in events if isinstance(e, SeedRevealed)}
    rabbits = {e.hand_id: e for e in events if isinstance(e, RabbitHunted)}
    outcomes: list[Outcome] = []
    began: Any = None
    hand_events: list[Any] = []
    for event in events:
        if isinstance(event, HandBegan):
            began, hand_events = event, []
        elif began is not None:
            hand_events.append(event)
            if isinstance(event, (HandEnded, HandVoided)):
                path = f"hand {began.hand_id}"
                voided = isinstance(event, HandVoided)
                seed = seeds.get(began.hand_id)
                if not seed:
                    lost = seed is not None
                    why = "its seed was lost" if lost else "no seed revealed"
                    if voided:
                        why = f"voided and {why}"
                    outcomes.append(
                        Outcome(path, (f"cannot verify: {why}",), voided=voided, seed_lost=lost)
                    )
                else:
                    dealt = dealt_from_events(hand_events, Reveal(seed, began.commitment))
                    rabbit = rabbits.get(began.hand_id)
                    if rabbit is not None:
                        dealt.placed.append(
                            rabbit_placed(rabbit, dealt.players, dealt.hole_cards_per_player)
                        )
                    outcomes.append(
                        Outcome(path, tuple(check(dealt)), dealt.card_count, voided=voided)
                    )
                began = None
    return outcomes
