"""Bomb pots against PokerKit 0.7.7 (the differential harness of test_differential.py): every
player antes (live), no blinds, and our hand has no preflop betting. PokerKit has no bomb pot:
the same hand there is antes with zero blinds and a preflop round in which everybody checks
(``bomb_pot_checks``, counted), after which both engines must agree on every decision, the
pots and the finishing stacks, short stacks all in for less than the ante included (an ante
nobody can match: PokerKit trims it, we pay it back as a pot only its owner can win, the same
chips: ``ante_returned``, counted)."""

from __future__ import annotations

import itertools
import warnings
from dataclasses import replace

import pytest

from libs.poker import BettingStructure, HandConfig, PotAwarded, Variant, new_hand
from tests.poker.pokerkit_bridge import _Duel
from tests.poker.pokerkit_duel import HandResult
from tests.poker.pokerkit_tables import pokerkit_state
from tests.poker.reference_betting import BettingRound

COMBINATIONS = list(itertools.product(Variant, BettingStructure))
HANDS = 60  # per combination


class _BombDuel(_Duel):
    def __init__(
        self, seed: int, variant: Variant, structure: BettingStructure, n: int, verbose: bool
    ) -> None:
        super().__init__(seed, variant, structure, n, verbose)
        rng = self.rng
        unit = self.config.min_bet
        ante = rng.randint(1, 4 * unit)
        stacks = tuple(
            rng.randint(1, ante) if rng.random() < 0.2 else rng.randint(ante + 1, ante + 60 * unit)
            for _ in range(n)
        )
        self.config = HandConfig(
            variant, structure, (0,) * n, (ante,) * n, min_bet=unit, bomb_pot=True
        )
        self.stacks = stacks
        self.result.starting_stacks = stacks
        self.log = [f"config={self.config}", f"stacks={list(stacks)}"]
        self.ours = new_hand(self.config, stacks)
        self.theirs = pokerkit_state(self.config, stacks)
        self.round = BettingRound.open(self.config, 0)

    def _finish(self) -> None:
        # An ante nobody else can match: PokerKit trims it (the excess never goes in), we pay it
        # back to its owner as a pot only they can win; the same chips (the finishing stacks are
        # compared as always). Our last pot, only its owner's, is taken down by the excess.
        t = self.theirs
        put_in = sum(self.stacks) - sum(s + b for s, b in zip(t.stacks, t.bets, strict=True))
        trimmed = sum(self.ours.committed) - put_in
        if trimmed:
            self.translate("ante_returned")
            awards = [i for i, e in enumerate(self.events) if isinstance(e, PotAwarded)]
            last = max(awards, key=lambda i: self.events[i].pot)  # type: ignore[union-attr]
            award = self.events[last]
            assert isinstance(award, PotAwarded) and len(award.eligible) == 1
            assert award.amount >= trimmed, (award, trimmed)
            rest = replace(award, amount=award.amount - trimmed)
            self.events[last : last + 1] = [rest] if rest.amount else []
        super()._finish()

    def _deal_board(self) -> None:
        t = self.theirs
        while t.street_index == 0 and t.actor_index is not None:  # PokerKit's preflop round
            self.pk_do("a preflop check (bomb pot)", t.check_or_call)
            self.translate("bomb_pot_checks")
        super()._deal_board()


def _play(seed: int, variant: Variant, structure: BettingStructure, n: int) -> HandResult:
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        return _BombDuel(seed, variant, structure, n, False).play()


@pytest.mark.parametrize(
    ("variant", "structure"),
    COMBINATIONS,
    ids=[f"{v.value}-{s.value}" for v, s in COMBINATIONS],
)
def test_bomb_pots_agree_with_pokerkit(variant: Variant, structure: BettingStructure) -> None:
    results = [_play(seed, variant, structure, 2 + seed % 5) for seed in range(HANDS)]
    assert all(r.finishing_stacks for r in results)
    assert sum(r.translations["bomb_pot_checks"] > 0 for r in results) > HANDS // 2
    assert sum(r.all_in for r in results) > 0
    assert sum(r.decisions for r in results) > HANDS
