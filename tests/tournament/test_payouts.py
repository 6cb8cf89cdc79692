"""Payout tables and prizes: every table pays 100 % in order, prizes are whole chips adding up
to the pool (remainder to first), ties split the places they share."""

from __future__ import annotations

from itertools import pairwise

import pytest
from hypothesis import given
from hypothesis import strategies as st

from libs.errors import InvalidArgument
from libs.tournament import errors as TE
from libs.tournament.payouts import (
    DEFAULT_PAYOUTS,
    SHARE_UNIT,
    PayoutTable,
    PayoutTier,
    from_percentages,
    harmonic_shares,
    prizes,
    split,
    validate_payouts,
)


def test_the_default_table_is_valid_and_pays_about_fifteen_percent_of_big_fields() -> None:
    validate_payouts(DEFAULT_PAYOUTS)
    assert DEFAULT_PAYOUTS.paid_places(2) == 1
    assert DEFAULT_PAYOUTS.paid_places(9) == 3
    assert DEFAULT_PAYOUTS.paid_places(180) == 22  # 15 % of 151, the tier's smallest field
    assert DEFAULT_PAYOUTS.paid_places(50_000) == 1_500  # past the last tier: as the last


def test_percentages_become_millionths_with_the_rounding_to_first() -> None:
    assert from_percentages([50, 30, 20]) == (500_000, 300_000, 200_000)
    thirds = from_percentages([100 / 3] * 3)
    assert sum(thirds) == SHARE_UNIT and thirds[0] >= thirds[1] == thirds[2]


def test_prizes_round_down_and_the_remainder_goes_to_first() -> None:
    assert prizes(1001, from_percentages([50, 30, 20])) == (501, 300, 200)
    assert prizes(7, from_percentages([65, 35])) == (5, 2)


@given(st.integers(0, 10**12), st.integers(1, 3000))
def test_prizes_add_up_to_the_pool_and_never_pay_a_worse_place_more(pool: int, n: int) -> None:
    paid = prizes(pool, DEFAULT_PAYOUTS.shares_for(n))
    assert sum(paid) == pool
    assert all(a >= b for a, b in pairwise(paid))


def test_a_tie_splits_its_chips_with_the_odd_ones_first() -> None:
    assert split(10, 3) == (4, 3, 3)
    assert split(9, 3) == (3, 3, 3)
    assert split(1, 2) == (1, 0)


@pytest.mark.parametrize("places", [1, 2, 9, 150, 1500])
def test_harmonic_shares_pay_every_place_in_order(places: int) -> None:
    shares = harmonic_shares(places)
    assert len(shares) == places
    small = PayoutTier(max(places - 1, 2), (SHARE_UNIT,))  # fields below ``places`` pay one
    validate_payouts(PayoutTable((small, PayoutTier(10 * places, shares))))


def refusal(table: PayoutTable) -> str:
    with pytest.raises(InvalidArgument) as caught:
        validate_payouts(table)
    assert caught.value.code == TE.INVALID_PAYOUTS
    return caught.value.message


def test_a_table_that_does_not_pay_the_whole_pool_is_refused() -> None:
    msg = refusal(PayoutTable((PayoutTier(10, (500_000, 300_000)),)))
    assert "80.0000 %, not 100 %" in msg


def test_a_worse_place_paid_more_is_refused() -> None:
    assert "better one" in refusal(PayoutTable((PayoutTier(10, (300_000, 700_000)),)))


def test_more_paid_places_than_players_is_refused() -> None:
    five = (200_000,) * 5
    msg = refusal(PayoutTable((PayoutTier(3, (1_000_000,)), PayoutTier(10, five))))
    assert "pays 5 places; a field of 4 pays 1 to 4" in msg


def test_tiers_out_of_order_are_refused() -> None:
    tiers = (PayoutTier(10, (1_000_000,)), PayoutTier(5, (1_000_000,)))
    assert "larger and larger" in refusal(PayoutTable(tiers))
