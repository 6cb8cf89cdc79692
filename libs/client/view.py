"""Pure helpers over a ``PlayerView`` (what the gateway says one viewer sees): whose turn, cards as
text, the pot, and the bet sizes the terminal client offers (min, half pot, pot, all-in)."""

from __future__ import annotations

from holdem.common.v1 import common_pb2

RANKS = {r: c for r, c in zip(range(2, 15), "23456789TJQKA", strict=True)}
SUITS = {1: "c", 2: "d", 3: "h", 4: "s"}
SUIT_SYMBOLS = {"c": "♣", "d": "♦", "h": "♥", "s": "♠"}


def card_text(card: common_pb2.Card) -> str:
    """Short form: "As", "Td", "2c" (PHH / PokerKit notation)."""
    return RANKS.get(card.rank, "?") + SUITS.get(card.suit, "?")


def cards_text(cards: list[common_pb2.Card] | tuple[common_pb2.Card, ...]) -> str:
    return " ".join(card_text(c) for c in cards)


def is_my_turn(view: common_pb2.PlayerView) -> bool:
    """The viewer is seated and is the acting seat: to bet (``legal_actions`` set) or, at the
    showdown, to show or muck (see ``is_showdown_turn``)."""
    return (
        view.HasField("viewer_seat")
        and view.HasField("acting_seat")
        and view.viewer_seat == view.acting_seat
    )


def is_showdown_turn(view: common_pb2.PlayerView) -> bool:
    """The viewer's turn to show or muck (the view's ``showdown`` choice is set). A person is
    asked only when mucking is a real choice: a hand that must be shown to win is shown by the
    table without asking."""
    return is_my_turn(view) and view.HasField("showdown")


def run_it_asked(view: common_pb2.PlayerView) -> bool:
    """The viewer is asked how many times to run the board and has not answered yet."""
    question = view.run_it
    return (
        view.HasField("run_it")
        and not question.runs
        and view.HasField("viewer_seat")
        and view.viewer_seat in question.asked_seats
        and not question.viewer_answer
    )


def can_muck(view: common_pb2.PlayerView) -> bool:
    """At the viewer's showdown turn: may they muck (else only showing is allowed)?"""
    return is_showdown_turn(view) and view.showdown.can_muck


def my_seat(view: common_pb2.PlayerView) -> common_pb2.SeatView | None:
    if not view.HasField("viewer_seat"):
        return None
    for seat in view.seats:
        if seat.seat == view.viewer_seat:
            return seat
    return None


def pot_total(view: common_pb2.PlayerView) -> int:
    """Chips in the middle. The table's pots already hold the current street's bets (each seat's
    ``committed`` is its part of them); a view without pots counts the bets."""
    if view.pots:
        return sum(p.amount for p in view.pots)
    return sum(s.committed for s in view.seats)


def bet_sizes(view: common_pb2.PlayerView) -> dict[str, int]:
    """The "to" amounts of the sizing keys, each within the legal bounds: ``min``, ``half``
    (half pot), ``pot``, ``all_in``. Empty when no bet or raise is allowed.

    A pot-sized raise is: call first, then raise by the pot as it would be after the call."""
    legal = view.legal_actions
    if is_showdown_turn(view) or not is_my_turn(view) or not legal.can_bet_or_raise:
        return {}
    lo, hi = legal.min_raise_to, legal.max_raise_to
    me = my_seat(view)
    committed = me.committed if me is not None else 0
    high_bet = max((s.committed for s in view.seats), default=0)
    call = max(0, high_bet - committed)
    after_call = pot_total(view) + call

    def clamp(amount: int) -> int:
        return max(lo, min(hi, amount))

    return {
        "min": lo,
        "half": clamp(high_bet + after_call // 2),
        "pot": clamp(high_bet + after_call),
        "all_in": hi,
    }
