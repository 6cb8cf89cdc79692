"""A played hand as a PHH document (libs.poker.phh writes it): hole cards the viewer never saw are
``??`` (``holdem replay`` replays such hands: it deals placeholders, or the cards shown later),
players named by their player ids, and ``finishing_stacks`` from ``HandEnded``."""

from __future__ import annotations

from libs.poker.cards import format_cards
from libs.poker.events import (
    ActionKind,
    ActionTaken,
    HandEnded,
    HandMucked,
    HandShown,
    HandStarted,
    HoleCardsDealt,
    StreetDealt,
)
from libs.poker.phh import PhhHand, dumps

from .hands import PlayedHand


def phh_actions(hand: PlayedHand) -> list[str]:
    count = 0
    out: list[str] = []
    shown: set[int] = set()
    for event in hand.events:
        if isinstance(event, HandStarted):
            count = event.config.variant.hole_card_count
        elif isinstance(event, HoleCardsDealt):
            cards = format_cards(event.cards) if event.cards else "??" * count
            out.append(f"d dh p{event.player + 1} {cards}")
        elif isinstance(event, StreetDealt):
            out.append(f"d db {format_cards(event.cards)}")
        elif isinstance(event, ActionTaken):
            p = f"p{event.player + 1}"
            if event.kind is ActionKind.FOLD:
                out.append(f"{p} f")
            elif event.kind in (ActionKind.CHECK, ActionKind.CALL):
                out.append(f"{p} cc")
            else:
                out.append(f"{p} cbr {event.to}")
        elif isinstance(event, HandShown) and event.player not in shown:
            shown.add(event.player)
            out.append(f"p{event.player + 1} sm {format_cards(event.cards)}")
        elif isinstance(event, HandMucked):
            out.append(f"p{event.player + 1} sm")
    return out


def to_phh(hand: PlayedHand) -> str:
    started = next(e for e in hand.events if isinstance(e, HandStarted))
    ended = next((e for e in hand.events if isinstance(e, HandEnded)), None)
    doc = PhhHand(
        config=started.config,
        starting_stacks=started.stacks,
        actions=phh_actions(hand),
        finishing_stacks=tuple(float(s) for s in ended.stacks) if ended else None,
        players=hand.players,
        extra={
            "table": hand.table_id,
            "hand": hand.hand_number,
            "seats": [s + 1 for s in hand.seats],
            "seat_count": hand.max_seats,
        },
    )
    return dumps(doc)
