"""A betting round as the rules state it (RULES.md), rebuilt from the table's stakes and the
actions alone, without asking either engine (``BettingRound``): the bet to call, the size of a
full raise, who acted since the last full raise, every raise and whether it was full, the
fixed-limit cap and the raise-to bounds.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from libs.poker import (
    BettingStructure,
    HandConfig,
)

FIXED_LIMIT_BETS = 4  # per round: one bet and three raises (preflop the big blind is the bet)


@dataclass
class Raise:
    player: int
    increment: int  # raised by: the new highest bet minus the one before
    full: bool  # at least a full bet or raise (RULES.md); else a short all-in
    index: int  # position in the round's action list


@dataclass
class BettingRound:
    """One betting round as RULES.md states it, rebuilt from the table's stakes and the actions
    alone, without asking either engine: the bets in front of each player, the bet to call, the
    size a bet or raise must reach to be full (the street's bet size at least, else the largest
    full bet or raise so far; preflop the big blind is the first bet), who has acted since the
    last full bet or raise, and every raise with its increment.
    """

    street: int
    structure: BettingStructure
    bets: list[int]
    current: int
    full: int
    bets_made: int  # bets and raises this round, the preflop big blind included
    acted: set[int] = field(default_factory=set)
    last_action: dict[int, int] = field(default_factory=dict)  # player -> index of their last
    raises: list[Raise] = field(default_factory=list)
    actions: int = 0

    @classmethod
    def open(cls, config: HandConfig, street: int) -> BettingRound:
        """The round of ``street``: preflop the blinds are the bets (no blind is short here)."""
        fixed = config.structure is BettingStructure.FIXED_LIMIT
        size = config.big_bet if fixed and street >= 2 else config.min_bet
        n = config.player_count
        bets = list(config.blinds) if street == 0 else [0] * n
        current = max(bets)
        return cls(street, config.structure, bets, current, max(size, current), int(current > 0))

    @property
    def opened_short(self) -> bool:
        """This round's first bet was an all-in below the minimum bet."""
        return self.street > 0 and bool(self.raises) and not self.raises[0].full

    def record(self, player: int, kind: str, to: int = 0) -> Raise | None:
        """Apply one action (``fold``, ``check``, ``call`` with the amount now in front of the
        player, or ``raise`` to ``to``); a raise is returned with whether it was full."""
        index = self.actions
        self.actions += 1
        self.last_action[player] = index
        raised: Raise | None = None
        if kind == "raise":
            increment = to - self.current
            raised = Raise(player, increment, increment >= self.full, index)
            self.raises.append(raised)
            self.bets_made += 1
            self.current = to
            if raised.full:
                self.full = increment
                self.acted = set()
        if kind != "fold":
            self.bets[player] = to if kind in ("raise", "call") else self.bets[player]
        self.acted.add(player)
        return raised

    def owed(self, player: int) -> int:
        return self.current - self.bets[player]

    def reopened_for(self, player: int) -> bool:
        """May ``player`` raise by the reopening rule? Yes unless they acted since the last full
        bet or raise and what was raised since (short all-ins only) adds up to less than a full
        raise."""
        return player not in self.acted or self.owed(player) >= self.full

    def raises_since(self, player: int) -> list[Raise]:
        last = self.last_action.get(player, -1)
        return [r for r in self.raises if r.index > last]

    def counted_full_by_pokerkit_since(self, player: int) -> bool:
        """Was a short all-in since ``player`` acted a full raise for PokerKit? It starts each
        round's raise size at 0 (the blinds are not raises) and counts a raise as full when it
        is at least every raise before it in the round."""
        for r in self.raises_since(player):
            before = [q.increment for q in self.raises if q.index < r.index]
            if not r.full and r.increment >= max(before, default=0):
                return True
        return False

    def bounds(self, player: int, stack: int, pot: int) -> tuple[int, int]:
        """Raise-to bounds by RULES.md: at least a full raise (or all-in for less), at most the
        whole stack (no-limit), the one fixed amount (fixed-limit), or the bet to call plus the
        pot after calling it (pot-limit); ``pot`` counts every chip put in so far, bets too."""
        all_in = self.bets[player] + stack
        min_to = min(all_in, self.current + self.full)
        if self.structure is BettingStructure.NO_LIMIT:
            return min_to, all_in
        if self.structure is BettingStructure.FIXED_LIMIT:
            return min_to, min_to
        pot_after_call = pot + self.owed(player)
        return min_to, min(all_in, max(min_to, self.current + pot_after_call))
