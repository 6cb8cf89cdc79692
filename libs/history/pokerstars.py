"""A played hand as PokerStars-style text, as the viewer saw it ("Dealt to" the viewer only;
others' cards only where shown). Written for hold'em; other games get the same shape with their
own game name. Amounts are whole chips; "raises X to Y" gives the raise and its total, as
PokerStars does (PokerKit's parser reads X as the increment over the current bet)."""

from __future__ import annotations

import datetime

from libs.poker.cards import DECK
from libs.poker.config import BettingStructure, Variant
from libs.poker.events import (
    ActionKind,
    ActionTaken,
    AntePosted,
    BlindPosted,
    HandEnded,
    HandMucked,
    HandShown,
    HandStarted,
    HoleCardsDealt,
    PotAwarded,
    RakeTaken,
    RunDealt,
    StreetDealt,
    UncalledBetReturned,
)

from .hands import PlayedHand

GAMES = {Variant.HOLDEM: "Hold'em", Variant.OMAHA: "Omaha", Variant.OMAHA_HI_LO: "Omaha Hi/Lo"}
LIMITS = {
    BettingStructure.NO_LIMIT: "No Limit",
    BettingStructure.POT_LIMIT: "Pot Limit",
    BettingStructure.FIXED_LIMIT: "Limit",
}
STREETS = ("FLOP", "TURN", "RIVER")


def _cards(cards: object) -> str:
    return " ".join(str(DECK[int(c)]) for c in cards)  # type: ignore[attr-defined]


def to_pokerstars(hand: PlayedHand) -> str:
    started = next(e for e in hand.events if isinstance(e, HandStarted))
    config = started.config
    names = hand.players
    big = max(config.blinds) if config.blinds else 0
    small = min((b for b in config.blinds if b), default=0)
    when = datetime.datetime.fromtimestamp(hand.started_at, datetime.UTC)
    game = f"{GAMES[config.variant]} {LIMITS[config.structure]}"
    # a bomb pot has no blinds: its stakes are the ante (and its preflop has no betting)
    stakes = f"bomb pot, ante {max(config.antes)}" if config.bomb_pot else f"{small}/{big}"
    lines = [
        f"PokerStars Hand #{hand.hand_number}: {game} ({stakes}) - {when:%Y/%m/%d %H:%M:%S} UTC",
        f"Table '{hand.table_id}' {hand.max_seats}-max Seat #{hand.button_seat + 1} is the button",
    ]
    for position, seat in sorted(enumerate(hand.seats), key=lambda item: item[1]):
        lines.append(f"Seat {seat + 1}: {names[position]} ({started.stacks[position]} in chips)")
    board: list[str] = []
    bets = [0] * len(names)
    showdown = False
    summary: list[str] = []
    runs: list[str] = []  # the cards of each further run of the board
    rake = 0
    pot_total = 0
    hole_header = False
    for event in hand.events:
        if isinstance(event, AntePosted):
            lines.append(f"{names[event.player]}: posts the ante {event.amount}")
            pot_total += event.amount
        elif isinstance(event, BlindPosted):
            kind = "big blind" if event.nominal >= big else "small blind"
            lines.append(f"{names[event.player]}: posts {kind} {event.amount}")
            bets[event.player] += event.amount
            pot_total += event.amount
        elif isinstance(event, HoleCardsDealt):
            if not hole_header:
                lines.append("*** HOLE CARDS ***")
                hole_header = True
            if event.cards:
                lines.append(f"Dealt to {names[event.player]} [{_cards(event.cards)}]")
        elif isinstance(event, ActionTaken):
            name = names[event.player]
            current = max(bets)
            if event.kind is ActionKind.FOLD:
                lines.append(f"{name}: folds")
            elif event.kind is ActionKind.CHECK:
                lines.append(f"{name}: checks")
            elif event.kind is ActionKind.CALL:
                lines.append(f"{name}: calls {event.amount}")
            elif current == 0:
                lines.append(f"{name}: bets {event.to}")
            else:
                lines.append(f"{name}: raises {event.to - current} to {event.to}")
            if event.kind not in (ActionKind.FOLD, ActionKind.CHECK):
                bets[event.player] = event.to
            pot_total += event.amount
        elif isinstance(event, UncalledBetReturned):
            lines.append(f"Uncalled bet ({event.amount}) returned to {names[event.player]}")
            pot_total -= event.amount
        elif isinstance(event, StreetDealt):
            cards = _cards(event.cards)
            street = STREETS[min(max(event.street - 1, 0), 2)]
            if board:
                lines.append(f"*** {street} *** [{' '.join(board)}] [{cards}]")
            else:
                lines.append(f"*** {street} *** [{cards}]")
            board.extend(cards.split())
            bets = [0] * len(names)
        elif isinstance(event, RunDealt):
            runs.append(_cards(event.cards))
            lines.append(f"*** RUN {event.run} *** [{_cards(event.cards)}]")
        elif isinstance(event, HandShown):
            if not showdown and not any(isinstance(e, HandEnded) for e in _before(hand, event)):
                lines.append("*** SHOW DOWN ***")
                showdown = True
            lines.append(f"{names[event.player]}: shows [{_cards(event.cards)}] (hand)")
        elif isinstance(event, HandMucked):
            lines.append(f"{names[event.player]}: mucks hand")
        elif isinstance(event, RakeTaken):
            rake += event.amount
        elif isinstance(event, PotAwarded):
            run = f" (run {event.run + 1})" if event.run else ""
            for winner, amount in event.winners:
                lines.append(f"{names[winner]} collected {amount} from pot{run}")
                seat = hand.seats[winner] + 1
                summary.append(f"Seat {seat}: {names[winner]} collected ({amount})")
    lines.append("*** SUMMARY ***")
    lines.append(f"Total pot {pot_total} | Rake {rake}")
    if board:
        lines.append(f"Board [{' '.join(board)}]")
    for number, cards in enumerate(runs, start=2):
        lines.append(f"Board run {number} [{cards}]")
    lines.extend(summary)
    return "\n".join(lines) + "\n"


def _before(hand: PlayedHand, event: object) -> list[object]:
    index = next(i for i, e in enumerate(hand.events) if e is event)
    return list(hand.events[:index])
