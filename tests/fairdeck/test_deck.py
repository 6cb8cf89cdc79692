"""Provably fair decks: the documented algorithm, determinism, uniformity, verification."""

from __future__ import annotations

import hashlib
import hmac

import pytest

from libs.fairdeck import (
    FairnessError,
    commitment,
    deck_from_seed,
    new_seed,
    verify_deal,
)
from libs.poker.dealing import DealLayout


def _reference_deck(seed: bytes) -> list[int]:
    """The algorithm exactly as the module docstring words it, written independently."""
    stream = b""
    counter = 0

    def word() -> int:
        nonlocal stream, counter
        if len(stream) < 4:
            stream += hmac.new(
                seed, b"holdem-deck-v1" + counter.to_bytes(8, "big"), hashlib.sha256
            ).digest()
            counter += 1
        value, stream = int.from_bytes(stream[:4], "big"), stream[4:]
        return value

    deck = list(range(52))
    for i in range(51, 0, -1):
        n = i + 1
        while True:
            x = word()
            if x < 2**32 - (2**32 % n):
                break
        j = x % n
        deck[i], deck[j] = deck[j], deck[i]
    return deck


@pytest.mark.parametrize("seed", [bytes(32), b"\x01" * 32, bytes(range(32)), b"x" * 16])
def test_deck_follows_the_documented_algorithm(seed: bytes) -> None:
    assert list(deck_from_seed(seed)) == _reference_deck(seed)


def test_known_vector_guards_against_silent_algorithm_changes() -> None:
    assert deck_from_seed(bytes(32))[:8] == (33, 43, 20, 28, 8, 19, 3, 0)


def test_the_same_seed_always_gives_the_same_deck_and_every_card_once() -> None:
    seed = new_seed()
    deck = deck_from_seed(seed)
    assert deck == deck_from_seed(seed)
    assert sorted(deck) == list(range(52))
    assert deck != deck_from_seed(new_seed())


def test_commitment_is_sha256_of_the_seed() -> None:
    seed = bytes(range(32))
    assert commitment(seed) == hashlib.sha256(seed).hexdigest()


def test_cards_sit_at_fixed_positions_in_the_deck() -> None:
    layout = DealLayout(players=3, hole_cards=2)
    assert [layout.hole(p) for p in range(3)] == [(0, 3), (1, 4), (2, 5)]
    assert layout.burn(1) == 6 and layout.board(1) == (7, 8, 9)
    assert layout.burn(2) == 10 and layout.board(2) == (11,)
    assert layout.burn(3) == 12 and layout.board(3) == (13,)
    omaha = DealLayout(players=10, hole_cards=4)
    assert omaha.hole(9) == (9, 19, 29, 39)
    assert omaha.burn(1) == 40 and omaha.board(1) == (41, 42, 43)
    assert omaha.board(3) == (47,)  # the last card used: 10 x 4 + 3 burns + 5 board


def test_every_card_position_is_uniform() -> None:
    """Chi-square on where each card lands, over 20,000 shuffles (fixed seeds: deterministic).

    52 x 52 cells, 2,601 degrees of freedom: mean 2,601, sd ~72; fail beyond 6 sd.
    """
    shuffles = 20_000
    counts = [[0] * 52 for _ in range(52)]
    for k in range(shuffles):
        for position, card in enumerate(deck_from_seed(k.to_bytes(32, "big"))):
            counts[position][card] += 1
    expected = shuffles / 52
    chi2 = sum((c - expected) ** 2 / expected for row in counts for c in row)
    dof = 51 * 51
    assert abs(chi2 - dof) < 6 * (2 * dof) ** 0.5, chi2


def test_verify_accepts_an_honest_deal_and_rejects_any_difference() -> None:
    seed = new_seed()
    deck = deck_from_seed(seed)
    layout = DealLayout(players=2, hole_cards=2)
    holes = {p: [deck[i] for i in layout.hole(p)] for p in range(2)}
    boards = {s: [deck[i] for i in layout.board(s)] for s in (1, 2, 3)}
    burns = {s: deck[layout.burn(s)] for s in (1, 2, 3)}
    verify_deal(seed, commitment(seed), layout, holes, boards, burns)
    with pytest.raises(FairnessError, match="commitment"):
        verify_deal(seed, commitment(new_seed()), layout, holes, boards)
    forged = dict(boards)
    forged[3] = [next(c for c in range(52) if c not in deck[:14])]
    with pytest.raises(FairnessError, match="street 3"):
        verify_deal(seed, commitment(seed), layout, holes, forged)
    swapped = {0: holes[1], 1: holes[0]}
    with pytest.raises(FairnessError, match="position 0"):
        verify_deal(seed, commitment(seed), layout, swapped, boards)
