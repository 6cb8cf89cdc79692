"""The straddle is voluntary (libs.table.bombpots.set_straddle, planning): posted only by a seat
that opted in, when first left of the big blind at a table that allows it; never heads-up."""

from __future__ import annotations

import pytest

from libs.poker import IllegalAction
from libs.poker.events import BlindPosted
from libs.poker.legal import legal_actions
from libs.table import TableConfig
from libs.table import commands as tc
from libs.table import errors as TE
from libs.table.events import StraddleSet
from tests.table.seeded_table import BombTable

ALLOWED = TableConfig(seats=6, straddle=True)


def _blinds(t: BombTable) -> list[tuple[int, int]]:
    return [(e.player, e.amount) for e in t.events if isinstance(e, BlindPosted)]


def test_nobody_straddles_unasked_at_a_table_that_allows_it() -> None:
    t = BombTable(ALLOWED, 4)
    t.start()
    assert _blinds(t) == [(0, 1), (1, 2)]
    options = legal_actions(t.state.hand)  # type: ignore[arg-type]
    assert options is not None and options.player == 2 and options.call_amount == 2


def test_a_seat_that_opted_in_straddles_when_first_left_of_the_big_blind() -> None:
    t = BombTable(ALLOWED, 4)
    # the first hand's button is seat 0: small blind seat 1, big blind seat 2, then seat 3
    assert t.run(tc.SetStraddle("p3", True)) == [StraddleSet(3, True)]
    t.start()
    assert _blinds(t) == [(0, 1), (1, 2), (2, 4)]
    hand = t.state.hand
    assert hand is not None and hand.config.big_blind_position == 2
    options = legal_actions(hand)
    assert options is not None and options.player == 3  # left of the straddle
    assert options.call_amount == 4 and options.min_to == 8  # RULES.md choice 2
    t.check_down()
    assert t.chips() == t.granted
    # the next hand seat 3 is the big blind: seat 0 is left of it, and did not opt in
    start = len(t.events)
    t.start()
    assert [e.amount for e in t.events[start:] if isinstance(e, BlindPosted)] == [1, 2]


def test_no_straddle_heads_up() -> None:
    t = BombTable(TableConfig(seats=2, straddle=True), 2)
    t.run(tc.SetStraddle("p0", True))
    t.run(tc.SetStraddle("p1", True))
    t.start()
    assert sorted(amount for _, amount in _blinds(t)) == [1, 2]


def test_no_straddle_in_a_bomb_pot() -> None:
    config = TableConfig(seats=6, straddle=True, bomb_pot_ante=2, bomb_pot_every=1)
    t = BombTable(config, 4)
    t.run(tc.SetStraddle("p3", True))
    assert t.start().config.bomb_pot
    assert _blinds(t) == []


def test_turning_it_off_again_and_repeats_change_nothing() -> None:
    t = BombTable(ALLOWED, 4)
    assert t.run(tc.SetStraddle("p3", False)) == []
    t.run(tc.SetStraddle("p3", True))
    assert t.run(tc.SetStraddle("p3", True)) == []
    assert t.run(tc.SetStraddle("p3", False)) == [StraddleSet(3, False)]
    t.start()
    assert _blinds(t) == [(0, 1), (1, 2)]


@pytest.mark.parametrize(
    ("config", "player", "code"),
    [
        (TableConfig(seats=6), "p3", TE.STRADDLE_NOT_ALLOWED),
        (TableConfig.fixed_limit(2, seats=6), "p3", TE.STRADDLE_NOT_ALLOWED),
        (ALLOWED, "stranger", TE.NOT_SEATED),
    ],
)
def test_a_straddle_setting_refused_changes_nothing(
    config: TableConfig, player: str, code: str
) -> None:
    t = BombTable(config, 4)
    before = t.state
    with pytest.raises(IllegalAction) as refused:
        t.run(tc.SetStraddle(player, True))
    assert refused.value.code == code
    assert t.state is before
