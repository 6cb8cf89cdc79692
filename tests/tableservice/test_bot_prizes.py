"""A tournament table tells its bots the prizes that came with the hand's release
(``ReleaseHand.payouts`` and ``others``, kept from ``HandReleased``): the bot's view then carries
them, so Hard decides by prize equity (how it then plays a bubble:
tests/ai/test_shortstack_prizes.py); a release without them (a big field) and cash tables do not.
They survive a restart (the event and the snapshot keep them). Bad prizes are refused and change
nothing."""

from __future__ import annotations

import pytest

from libs.ai import Level
from libs.aiproto.reading import read_request
from libs.aiproto.requests import decide_request
from libs.poker import BettingStructure, Variant
from libs.table import TableConfig, TableState
from libs.table import commands as tc
from libs.table.codec import decode, encode, state_dumps, state_loads
from libs.table.config import TableConfigError
from libs.table.events import HandReleased
from services.table.bots import with_prizes
from tests.ai.spots import Hand
from tests.table.table_steps import given, when

PAYOUTS = (500_000, 300_000, 200_000)
OTHERS = (4_000, 2_500)
CONFIG = TableConfig(seats=6, small_blind=10, big_blind=20, tournament=True)


def _seated() -> TableState:
    return given(*(tc.SitDown(f"p{i}", i, 1500) for i in range(3)), config=CONFIG)


def test_the_release_keeps_the_prizes_until_the_next_release() -> None:
    state, events = when(_seated(), tc.ReleaseHand(1, 10, 20, 0, 1.0, False, PAYOUTS, OTHERS))
    assert events == [HandReleased(1, 10, 20, 0, False, PAYOUTS, OTHERS)]
    assert (state.prize_payouts, state.prize_others) == (PAYOUTS, OTHERS)
    assert [decode(encode(e)) for e in events] == events
    restored = state_loads(state_dumps(state))  # a restarted table's snapshot keeps them
    assert (restored.prize_payouts, restored.prize_others) == (PAYOUTS, OTHERS)
    state, _ = when(state, tc.StartHand("h1", "c", 1.0))
    state, _ = when(state, tc.VoidCurrentHand("test"))
    state, _ = when(state, tc.ReleaseHand(2, 10, 20, 0, 2.0))
    assert (state.prize_payouts, state.prize_others) == ((), ())


@pytest.mark.parametrize(
    ("payouts", "others", "problem"),
    [
        ((20, 30), (), "never rising"),
        ((-1,), (), "amounts of 0.."),
        ((1,) * 101, (), "at most 100"),
        (PAYOUTS, (0,), "stacks of 1.."),
        (PAYOUTS, (1,) * 1001, "at most 1000"),
        ((), OTHERS, "come with the payouts"),
    ],
)
def test_bad_prizes_are_refused_and_change_nothing(
    payouts: tuple[int, ...], others: tuple[int, ...], problem: str
) -> None:
    state = _seated()
    with pytest.raises(TableConfigError) as caught:
        when(state, tc.ReleaseHand(1, 10, 20, 0, 1.0, False, payouts, others))
    assert problem in str(caught.value)
    assert state.released == 0 and state.prize_payouts == ()


def test_the_bots_view_carries_the_prizes_the_release_brought() -> None:
    view = Hand(Variant.HOLDEM, BettingStructure.NO_LIMIT, ["AsKs", "QdQh", "Tc9c"]).view()
    untold, _ = when(_seated(), tc.ReleaseHand(1, 10, 20, 0, 1.0))
    told, _ = when(_seated(), tc.ReleaseHand(1, 10, 20, 0, 1.0, False, PAYOUTS, OTHERS))
    assert with_prizes(view, untold).prizes is None
    prized = with_prizes(view, told)
    assert prized.prizes is not None
    assert (prized.prizes.payouts, prized.prizes.others) == (PAYOUTS, OTHERS)
    request = decide_request(prized, Level.HARD, 1, 100)
    assert tuple(request.prizes.payouts) == PAYOUTS
    assert tuple(request.prizes.other_stacks) == OTHERS
    assert read_request(request).view.prizes == prized.prizes
