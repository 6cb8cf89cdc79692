"""What one played hand adds to each of its players' statistics (pure).

The input is a hand as a viewer saw it (``libs.history.PlayedHand``: hidden cards already
removed). Nothing here reads a card: every statistic comes from the public record of the hand
(who acted how on which street, who was left at the showdown, who was paid from a pot), so the
same hand gives the same numbers to every viewer, and no hidden card can move them."""

from __future__ import annotations

from dataclasses import dataclass, field

from libs.history.hands import PlayedHand
from libs.poker.events import (
    ActionKind,
    ActionTaken,
    HandEnded,
    HandStarted,
    PotAwarded,
    StreetDealt,
)

from .counts import Counts

_AGGRESSIVE = (ActionKind.BET, ActionKind.RAISE)


@dataclass
class _Player:
    preflop_chance: bool = False
    vpip: bool = False
    pfr: bool = False
    three_bet_chance: bool = False
    three_bet: bool = False
    saw_flop: bool = False
    folded: bool = False
    won: bool = False
    postflop: dict[ActionKind, int] = field(default_factory=dict)


@dataclass(frozen=True)
class HandCount:
    """One finished hand's statistics: its variant and what it adds for each player id."""

    table_id: str
    hand_number: int
    variant: str
    players: dict[str, Counts]


def hand_count(hand: PlayedHand) -> HandCount | None:
    """What ``hand`` adds to its players' statistics; None for a hand that did not finish
    (voided, or still running): it counts for nobody."""
    if not hand.complete or hand.voided:
        return None
    started = next((e for e in hand.events if isinstance(e, HandStarted)), None)
    if started is None or not any(isinstance(e, HandEnded) for e in hand.events):
        return None
    players = [_Player() for _ in started.stacks]
    street = 0
    raises = 0  # voluntary preflop raises so far (the blinds are not one)
    raiser = -1
    for event in hand.events:
        if isinstance(event, StreetDealt) and event.street > street:
            if street == 0:
                for p in players:
                    p.saw_flop = not p.folded
            street = event.street
        elif isinstance(event, ActionTaken):
            p = players[event.player]
            if event.kind is ActionKind.FOLD:
                p.folded = True
            if street == 0:
                p.preflop_chance = True
                if raises == 1 and raiser != event.player:
                    p.three_bet_chance = True
                    p.three_bet = event.kind in _AGGRESSIVE
                if event.kind is ActionKind.CALL or event.kind in _AGGRESSIVE:
                    p.vpip = True
                if event.kind in _AGGRESSIVE:
                    p.pfr = True
                    raises += 1
                    raiser = event.player
            else:
                p.postflop[event.kind] = p.postflop.get(event.kind, 0) + 1
        elif isinstance(event, PotAwarded):
            for winner, amount in event.winners:
                if amount > 0:
                    players[winner].won = True
    left = [p for p in players if not p.folded]
    showdown = len(left) >= 2
    counts = {}
    for position, p in enumerate(players):
        at_showdown = showdown and not p.folded
        counts[hand.players[position]] = Counts(
            hands=1,
            preflop_chances=int(p.preflop_chance),
            vpip=int(p.vpip),
            pfr=int(p.pfr),
            three_bet_chances=int(p.three_bet_chance),
            three_bets=int(p.three_bet),
            saw_flop=int(p.saw_flop),
            showdowns=int(at_showdown),
            showdowns_won=int(at_showdown and p.won),
            bets=p.postflop.get(ActionKind.BET, 0),
            raises=p.postflop.get(ActionKind.RAISE, 0),
            calls=p.postflop.get(ActionKind.CALL, 0),
            checks=p.postflop.get(ActionKind.CHECK, 0),
            folds=p.postflop.get(ActionKind.FOLD, 0),
        )
    return HandCount(hand.table_id, hand.hand_number, started.config.variant.value, counts)
