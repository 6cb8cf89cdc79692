"""Random tournaments driven through decide/evolve by a simulated world (tests/tournament/
sim.py) with random hands that conserve chips, random rebuys, add-ons, late entries, moves
landing in any order and a clock that jumps. After every command: chips in play = entrants x
starting stack + rebuys + add-ons, in the books and on the tables; nobody at two tables or
none; the books' stacks are the tables'; a table released only within one player of every
other, and no table left out of balance once nothing is in play; hand-for-hand deals every
table together; tables touched only between hands; every directive key names one action. At
the end: every entrant one final place, the prizes paid once each, adding up to the pool."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from libs.tournament import commands as C
from libs.tournament.config import AddOnRule, RebuyRule, TournamentConfig, TournamentKind
from libs.tournament.structure import LevelUnit, preset

from .sim import Sim


@st.composite
def tournaments(draw: st.DrawFn) -> tuple[TournamentConfig, int, int]:
    entrants = draw(st.integers(2, 60))
    late = draw(st.integers(0, 15))
    kind = TournamentKind.SCHEDULED if late else TournamentKind.SIT_AND_GO
    rebuy = draw(
        st.none()
        | st.builds(
            RebuyRule,
            chips=st.integers(100, 3000),
            cost=st.integers(0, 200),
            last_level=st.integers(1, 4),
            max_rebuys=st.integers(0, 2),
            decision_seconds=st.sampled_from([5.0, 30.0]),
        )
    )
    structure = preset(
        draw(st.sampled_from(["regular", "turbo", "hyper"])), draw(st.sampled_from(list(LevelUnit)))
    )
    breaks = [n for n, lv in enumerate(structure.levels, start=1) if lv.break_minutes][:1]
    add_on, wanted = None, draw(st.booleans())
    if breaks and wanted:
        add_on = AddOnRule(draw(st.integers(1, 5000)), draw(st.integers(0, 200)), breaks[0])
    seats = draw(st.integers(2, 10))
    places = draw(st.lists(st.integers(2, entrants + late), max_size=2)) if entrants > 2 else []
    config = TournamentConfig(
        "property",
        kind,
        seats_per_table=seats,
        starting_stack=draw(st.sampled_from([1500, 3000])),
        buy_in=draw(st.integers(0, 1000)),
        fee=draw(st.integers(0, 10)),
        min_entrants=2,
        max_entrants=entrants + late,
        start_at=100.0 if late else 0.0,
        late_registration_levels=draw(st.integers(1, 3)) if late else 0,
        structure=structure,
        rebuy=rebuy,
        add_on=add_on,
        hand_for_hand_places=tuple(sorted(set(places))),
    )
    return config, entrants, late


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(tournaments(), st.randoms(use_true_random=False), st.floats(0.05, 0.4))
def test_random_tournaments_keep_every_invariant(
    drawn: tuple[TournamentConfig, int, int], rng: object, all_in: float
) -> None:
    config, entrants, late = drawn
    sim = Sim(config)
    sim.all_in = all_in
    for i in range(entrants):
        sim.run(
            C.Register(
                f"p{i}", f"k{i}", 1.0, is_bot=i % 3 == 0, bot_level="normal" if i % 3 == 0 else ""
            )
        )
    sim.late = [f"late{i}" for i in range(late)]
    sim.run(C.Start("property-seed", 100.0))
    sim.walk(rng)  # type: ignore[arg-type]
