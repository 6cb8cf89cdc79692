"""Differential play of our engine against PokerKit 0.7.7 (a test dependency only).

``play_random_hand(seed, variant, structure, n)`` draws a table from the seed (blinds, antes,
2-10 stacks, many of them short), shuffles one deck, deals the SAME cards to both engines and
plays random decisions legal in both until the hand ends. At every decision it compares the
actor, fold/check/call, the call amount, whether a raise is allowed and the raise-to bounds, and
that one chip below the minimum and one above the maximum are rejected by both. At the end it
checks the finishing stacks, the pots and chip conservation.

Both engines are also held to a reference computed from neither: ``BettingRound`` rebuilds each
betting round from the table's stakes and the actions alone (the bet to call, the size of a full
raise, who acted since the last full raise, every raise and whether it was full), and the pay-out
is recomputed from what each player put in and PokerKit's hand classes. Our engine must offer a
raise exactly when the reopening rule and the fixed-limit cap allow one, with exactly the rules'
bounds, and pay exactly the rules' amounts.

Where docs/rules.md ("Where references disagree") says our rule differs from PokerKit, the
harness translates, only when the rule the translation stands for, computed from that reference,
explains both answers exactly, and counts every translation in ``HandResult.translations``:

``cap_preflop`` (choice 1)
    Fixed-limit preflop with the big blind and three raises made: we refuse the raise
    (``CAP_REACHED``) while PokerKit, which has counted three raises, allows a fourth.
``short_all_in_preflop`` (the TDA reopening rule; PokerKit differs)
    Preflop, the player acted since the last full raise and faces less than a full raise: we
    refuse a raise (``ACTION_NOT_REOPENED``); PokerKit allows it because one of the short
    all-ins since was at least every raise before it in the round, which PokerKit (its raise
    size starts at 0 each round, the blinds are not raises) counts as a full raise.
``short_all_in_bet``
    The same after the flop, in a round opened by an all-in bet below the minimum bet.
``short_all_in_sum_reset``
    The player acted since the last full raise, and two or more short all-ins since then add up
    to a full raise: we allow a raise (with the rules' bounds), PokerKit refuses it because it
    reset its running sum of short all-ins when it reached a full raise earlier.
``odd_chips`` (choice 4), ``hi_lo_side_pot`` (choice 5), ``pot_merging``
    The pay-out is recomputed under our rules and under PokerKit's: PokerKit's finishing stacks
    must equal the second, ours the first. A counter fires when switching that one rule changes
    the result. ``pot_merging`` (not in the rules' list): before paying, PokerKit kills every
    shown hand that cannot win any part of any pot and builds its pots again without those
    players, merging pots whose eligible players became the same, so their odd chips are shared
    out once; PokerKit's pots must be exactly ours rebuilt that way. We pay each pot separately
    (here everybody shows, so no pot of ours loses a player).

Straddles (choice 2) and blinds posted short (choice 3) are not generated: every stack is larger
than its position's ante plus blind. Nor are equal blinds heads-up (PokerKit then lets the big
blind act first preflop).

Reproduce one hand, printing every step: ``.venv/bin/python -m tests.poker.pokerkit_bridge SEED
VARIANT STRUCTURE N`` (for example ``... 17 omaha_hi_lo fixed_limit 6``).
"""

from __future__ import annotations

import sys
import warnings
from collections.abc import Sequence

from libs.poker import (
    BettingStructure,
    Card,
    DealBoard,
    DealHoleCards,
    Phase,
    PotAwarded,
    Show,
    Variant,
    format_cards,
    showdown_turn,
)
from tests.poker.pokerkit_decisions import DecidingDuel
from tests.poker.pokerkit_duel import HandResult
from tests.poker.pokerkit_hands import PK_CARDS
from tests.poker.reference_betting import BettingRound
from tests.poker.reference_payout import (
    RefPot,
    evaluate_hands,
    hopeless_hands,
    reference_payout,
    reference_pots,
)

TRANSLATIONS = (
    "cap_preflop",
    "short_all_in_preflop",
    "short_all_in_bet",
    "short_all_in_sum_reset",
    "odd_chips",
    "hi_lo_side_pot",
    "pot_merging",
)


class _Duel(DecidingDuel):
    """The hand played through in both engines: hole cards, decisions, board cards, showdown,
    and at the end the pots and the pay-out compared."""

    def play(self) -> HandResult:
        n = self.config.player_count
        count = self.config.variant.hole_card_count
        for p in range(n):
            cards = tuple(self.deck.pop() for _ in range(count))
            self.note(f"d dh p{p + 1} {format_cards(cards)}")
            self.pk_do("hole cards", self.theirs.deal_hole, [PK_CARDS[c] for c in cards], p)
            self.apply(DealHoleCards(p, cards))
        guard = 0
        while True:
            guard += 1
            if guard > 500:
                raise self.fail("the hand does not end")
            self._pk_showdown()
            phase = self.ours.phase
            if phase is Phase.BETTING:
                self._decision()
            elif phase is Phase.DEALING_BOARD:
                self._deal_board()
            elif phase is Phase.SHOWDOWN:
                turn = showdown_turn(self.ours)
                if turn is None:
                    raise self.fail("showdown without a player to show")
                self.note(f"p{turn.player + 1} shows")
                self.apply(Show(turn.player))
            elif phase is Phase.COMPLETE:
                break
            else:
                raise self.fail(f"unexpected phase {phase}")
        self._finish()
        return self.result

    def _pk_showdown(self) -> None:
        """PokerKit shows in its showdown (all-in runouts too): here everybody shows, as we do."""
        while self.theirs.showdown_index is not None:
            self.pk_do("showing", self.theirs.show_or_muck_hole_cards, True)

    def _deal_board(self) -> None:
        street = self.ours.street + 1
        size = 3 if street == 1 else 1
        if not self.theirs.can_burn_card():
            raise self.fail(f"we deal street {street}; PokerKit does not wait for a card")
        burn = self.deck.pop()
        cards = tuple(self.deck.pop() for _ in range(size))
        self.note(f"d db {format_cards(cards)} (burn {Card(burn)})")
        self.pk_do("burn", self.theirs.burn_card, PK_CARDS[burn])
        self.pk_do("board", self.theirs.deal_board, [PK_CARDS[c] for c in cards])
        self.apply(DealBoard(cards, burn))
        self.round = BettingRound.open(self.config, street)
        self.result.street_reached = street

    def _finish(self) -> None:
        t = self.theirs
        n = self.config.player_count
        if not t.can_push_chips():
            raise self.fail("our hand is over; PokerKit does not wait to push chips")
        # PokerKit leaves the last player's own uncalled bet in front of them (it is pulled back
        # with the pot); count it as returned.
        pre = [stack + bet for stack, bet in zip(t.stacks, t.bets, strict=True)]
        if any(t.bets) and sum(t.statuses) != 1:
            raise self.fail(f"PokerKit has bets {list(t.bets)} left when paying")
        pk_pots = [RefPot(pot.amount, tuple(pot.player_indices)) for pot in t.pots]
        pk_contenders = [i for i in range(n) if t.statuses[i]]
        while t.can_push_chips():
            self.pk_do("push chips", t.push_chips)
        if t.status:
            raise self.fail("PokerKit's hand is not over after paying")
        ours_final = list(self.ours.stacks)
        theirs_final = list(t.stacks)
        self.result.finishing_stacks = tuple(ours_final)
        self.note(f"finishing stacks: ours {ours_final} PokerKit {theirs_final}")
        if sum(ours_final) != sum(self.stacks):
            raise self.fail(f"our chips are not conserved: {sum(ours_final)} != {sum(self.stacks)}")

        live = [not f for f in self.folded]
        players = [i for i in range(n) if live[i]]
        if len(players) == 1:  # everybody else folded: they keep what they did not put in
            expected = list(pre)
            expected[players[0]] = sum(self.stacks) - (sum(pre) - pre[players[0]])
            if ours_final != expected or theirs_final != expected:
                raise self.fail(f"uncontested: expected {expected}")
            return

        contributions = [start - now for start, now in zip(self.stacks, pre, strict=True)]
        dead = [
            min(a, c) if self.config.dead_antes else 0
            for a, c in zip(self.config.antes, contributions, strict=True)
        ]
        our_pots = reference_pots(contributions, dead, live)
        awarded: dict[int, int] = {}
        eligible: dict[int, tuple[int, ...]] = {}
        for event in self.events:
            if isinstance(event, PotAwarded):
                awarded[event.pot] = awarded.get(event.pot, 0) + event.amount
                eligible[event.pot] = tuple(event.eligible)
        engine_pots = [RefPot(awarded[k], eligible[k]) for k in sorted(awarded)]
        if engine_pots != our_pots:
            raise self.fail(f"our pots {engine_pots} != reference pots {our_pots}")

        self.result.showdown = True
        hands = evaluate_hands(self.config.variant, self.ours.hole, self.ours.board, players)

        def payout(pots: Sequence[RefPot], one_each: bool, per_pot: bool) -> list[int]:
            paid = reference_payout(
                pots,
                hands,
                odd_chips_one_each=one_each,
                low_per_pot=per_pot,
                low_contenders=pk_contenders,
                n=n,
            )
            return [a + b for a, b in zip(pre, paid, strict=True)]

        # PokerKit kills every shown hand that cannot win any part of any pot, then builds its
        # pots again without those players, merging pots whose players became the same. Rebuild
        # that from our reference pots and PokerKit's hand classes, and hold PokerKit to it.
        killed = hopeless_hands(our_pots, hands)
        merged_pots = reference_pots(
            contributions, dead, [live[i] and i not in killed for i in range(n)]
        )
        if pk_pots != merged_pots or pk_contenders != [p for p in players if p not in killed]:
            raise self.fail(
                f"PokerKit's pots {pk_pots} (contenders {pk_contenders}) are not ours {our_pots} "
                f"without the hopeless hands {sorted(killed)}: {merged_pots}"
            )

        expected_ours = payout(our_pots, True, True)
        expected_theirs = payout(pk_pots, False, False)
        if theirs_final != expected_theirs:
            raise self.fail(
                f"PokerKit paid {theirs_final}, the reference of its rules says {expected_theirs} "
                f"(pots {pk_pots})"
            )
        if ours_final != expected_ours:
            raise self.fail(
                f"we paid {ours_final}, the reference of our rules says {expected_ours} "
                f"(pots {our_pots}; PokerKit paid {theirs_final})"
            )
        if ours_final != theirs_final:
            fired = False
            if payout(our_pots, False, True) != expected_ours:
                self.translate("odd_chips")
                fired = True
            if payout(our_pots, True, False) != expected_ours:
                self.translate("hi_lo_side_pot")
                fired = True
            if merged_pots != our_pots and payout(merged_pots, True, True) != expected_ours:
                self.translate("pot_merging")
                fired = True
            if not fired:
                raise self.fail("final stacks differ for none of the documented reasons")


def play_random_hand(
    seed: int,
    variant: Variant,
    structure: BettingStructure,
    n: int,
    verbose: bool = False,
) -> HandResult:
    """Play one seeded random hand in both engines; raises AssertionError on a difference."""
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        return _Duel(seed, variant, structure, n, verbose).play()


def main(argv: Sequence[str]) -> int:
    if len(argv) != 4:
        print(__doc__)
        return 2
    seed, variant, structure, n = argv
    result = play_random_hand(
        int(seed), Variant(variant), BettingStructure(structure), int(n), verbose=True
    )
    print(result)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
