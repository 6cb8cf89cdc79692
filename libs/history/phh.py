"""A played hand as a PHH document (libs.poker.phh writes it): hole cards the viewer never saw are
``??`` (``holdem replay`` replays such hands: it deals placeholders, or the cards shown later),
players named by their player ids, and ``finishing_stacks`` from ``HandEnded``. A board run more
than once is written as its first run, the further runs' cards in ``_run_boards``."""

from __future__ import annotations

from libs.poker.cards import format_cards
from libs.poker.events import HandEnded, HandStarted, RunDealt
from libs.poker.phh import PhhHand, actions_from_events, dumps

from .hands import PlayedHand


def phh_actions(hand: PlayedHand) -> list[str]:
    """The hand's PHH action lines as the viewer saw it (libs.poker.phh writes them)."""
    return actions_from_events(hand.events)


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
    runs = [e for e in hand.events if isinstance(e, RunDealt)]
    if runs:
        # PHH has no syntax for a board run more than once: the actions hold the first run;
        # the others ride along as user fields (docs/table-features.md). ``finishing_stacks``
        # are the real ones, which a replay of the first run alone does not reach.
        doc.extra["_runs"] = len(runs) + 1
        doc.extra["_run_boards"] = [format_cards(e.cards) for e in runs]
    return dumps(doc)
