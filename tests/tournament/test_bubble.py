"""Hand-for-hand at the bubble of a large field (issue 27): whenever the field reaches the bubble
(the best place that pays nothing) while it needs two tables or more, hand-for-hand begins, and
the hands in play at that moment are its first round - counted in ``hand_for_hand_rounds`` (the
``hand_for_hand_hands`` of ``holdem tournament``), which therefore is at least 1 for a field whose
bubble came at more than one table. A 180-entrant turbo field at 9 seats (20 tables) through the
pure core, with random hands (tests/tournament/sim.py checking every invariant after each
command)."""

from __future__ import annotations

import random

import pytest

from libs.tournament import commands as C
from libs.tournament import events as E
from libs.tournament.config import TournamentConfig, TournamentKind
from libs.tournament.state import Status, players_left

from .sim import Sim

ENTRANTS, SEATS = 180, 9


@pytest.mark.parametrize("seed", [1, 2])
def test_a_large_field_plays_its_bubble_hand_for_hand(seed: int) -> None:
    config = TournamentConfig(
        "bubble", TournamentKind.SIT_AND_GO, max_entrants=ENTRANTS, seats_per_table=SEATS
    )
    sim = Sim(config)
    for i in range(ENTRANTS):
        sim.run(C.Register(f"p{i}", f"k{i}", 1.0))
    sim.run(C.Start(f"seed-{seed}", 2.0))
    bubble = config.payouts.paid_places(ENTRANTS) + 1
    assert -(-bubble // SEATS) >= 2  # the bubble comes with the field on several tables
    rng = random.Random(seed)
    lefts = [players_left(sim.s)]
    while sim.s.status is Status.RUNNING:
        sim.step(rng)
        lefts.append(players_left(sim.s))
    began = [e for e in sim.log if isinstance(e, E.HandForHandStarted)]
    if bubble in lefts:
        assert [e.players_left for e in began] == [bubble]
        assert sim.s.hand_for_hand_rounds >= 1
    else:  # one hand at one table took the field from above the bubble to the money
        assert not began
    assert sim.s.status is Status.FINISHED
