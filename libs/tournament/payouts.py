"""Payout tables and prizes in chips: the percentage of the prize pool each place wins, by field
size; prizes rounded down to whole chips with the remainder to first place; tied players'
shares of the places they tie for.

Shares are in millionths of the pool (``SHARE_UNIT``): a table of whole percentages is
``from_percentages``, and a field of thousands still gives its last paid place a share above 0.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from itertools import pairwise

from libs.errors import InvalidArgument

from .errors import INVALID_PAYOUTS

SHARE_UNIT = 1_000_000  # the whole pool
MAX_TIERS = 100
MAX_PAID_PLACES = 5_000


@dataclass(frozen=True, slots=True)
class PayoutTier:
    """Fields of at most ``up_to`` entrants (and more than the previous tier's) pay ``shares``,
    best place first, in millionths of the pool."""

    up_to: int
    shares: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class PayoutTable:
    """Tiers by field size, smallest first; fields larger than the last tier's pay as it does."""

    tiers: tuple[PayoutTier, ...]

    def shares_for(self, entrants: int) -> tuple[int, ...]:
        for tier in self.tiers:
            if entrants <= tier.up_to:
                return tier.shares
        return self.tiers[-1].shares

    def paid_places(self, entrants: int) -> int:
        """How many places a field of ``entrants`` pays (never more than there are players)."""
        return min(len(self.shares_for(entrants)), max(entrants, 1))


def from_percentages(percentages: Sequence[float]) -> tuple[int, ...]:
    """Shares in millionths from percentages (50, 30, 20); the rounding goes to first place."""
    shares = [round(p * SHARE_UNIT / 100) for p in percentages]
    if shares:
        shares[0] += SHARE_UNIT - sum(shares)
    return tuple(shares)


def _refuse(problem: str) -> InvalidArgument:
    return InvalidArgument(INVALID_PAYOUTS, problem)


def validate_payouts(table: PayoutTable, smallest_field: int = 2) -> None:
    """Refuse a table that does not pay the whole pool, pays a place more than a better one,
    pays more places than its smallest field has players, or whose tiers are out of order.
    ``smallest_field``: the fewest entrants the tournament may play with (2 for any)."""
    if not 1 <= len(table.tiers) <= MAX_TIERS:
        raise _refuse(f"a payout table needs 1 to {MAX_TIERS} tiers, not {len(table.tiers)}")
    previous = 1
    for number, tier in enumerate(table.tiers, start=1):
        name = f"tier {number} (fields up to {tier.up_to})"
        if tier.up_to <= previous:
            raise _refuse(f"{name}: tiers must cover larger and larger fields, from 2 up")
        smallest = max(previous + 1, smallest_field, 2)  # the smallest field it pays
        previous = tier.up_to
        if any(share <= 0 for share in tier.shares):
            raise _refuse(f"{name}: every paid place must win more than 0")
        if any(a < b for a, b in pairwise(tier.shares)):
            raise _refuse(f"{name}: a place must not win more than a better one")
        if sum(tier.shares) != SHARE_UNIT:
            raise _refuse(
                f"{name}: the shares add up to {sum(tier.shares) / SHARE_UNIT * 100:.4f} %, "
                "not 100 %"
            )
        if tier.up_to >= smallest and not 1 <= len(tier.shares) <= min(smallest, MAX_PAID_PLACES):
            raise _refuse(
                f"{name}: pays {len(tier.shares)} places; a field of {smallest} pays 1 to "
                f"{min(smallest, MAX_PAID_PLACES)}"
            )


def prizes(pool: int, shares: Sequence[int]) -> tuple[int, ...]:
    """Each paid place's prize in chips, best first: the share of ``pool`` rounded down, the
    chips left by the rounding to first place. The prizes add up to ``pool`` exactly."""
    amounts = [pool * share // SHARE_UNIT for share in shares]
    if amounts:
        amounts[0] += pool - sum(amounts)
    return tuple(amounts)


def split(total: int, players: int) -> tuple[int, ...]:
    """``total`` shared by ``players`` tied players, in the order that takes the odd chips:
    each gets ``total // players``, and the first ``total % players`` one chip more."""
    each, left = divmod(total, players)
    return tuple(each + (1 if i < left else 0) for i in range(players))


def harmonic_shares(places: int) -> tuple[int, ...]:
    """Shares for ``places`` paid places falling as 1/2, 1/3, 1/4, ... (place ``i`` weighs
    1/(i+1)), rounded down in millionths, the rounding to first place. Integer arithmetic
    only, so every machine computes the same table."""
    scale = 10**15
    weights = [scale // (place + 1) for place in range(1, places + 1)]
    total = sum(weights)
    shares = [SHARE_UNIT * w // total for w in weights]
    shares[0] += SHARE_UNIT - sum(shares)
    return tuple(shares)


def _default_table() -> PayoutTable:
    tiers = [
        PayoutTier(3, from_percentages([100])),
        PayoutTier(6, from_percentages([65, 35])),
        PayoutTier(10, from_percentages([50, 30, 20])),
        PayoutTier(18, from_percentages([40, 30, 20, 10])),
        PayoutTier(27, from_percentages([35, 25, 18, 13, 9])),
        PayoutTier(45, from_percentages([30, 20, 15, 12, 10, 7.5, 5.5])),
        PayoutTier(63, from_percentages([28, 18, 13, 10, 8.5, 7, 6, 5, 4.5])),
    ]
    # Larger fields pay about 15 % of the field (of the tier's smallest field).
    for up_to in (100, 150, 200, 300, 500, 1_000, 2_000, 5_000, 10_000, 20_000):
        smallest = tiers[-1].up_to + 1
        tiers.append(PayoutTier(up_to, harmonic_shares(smallest * 15 // 100)))
    return PayoutTable(tuple(tiers))


DEFAULT_PAYOUTS = _default_table()
