"""Dealer use cases on the in-memory seed store: decks per hand, dealing by position, reveal."""

from __future__ import annotations

import asyncio
import itertools
from collections.abc import Awaitable
from typing import TypeVar

import pytest

from libs.errors import AlreadyExists, InvalidArgument, NotFound, PreconditionFailed
from libs.fairdeck import ALGORITHM, commitment, deck_from_seed
from services.dealer.app import Dealer, deck_id_for
from services.dealer.server import card_from_proto, card_to_proto
from services.dealer.store import InMemorySeedStore

T = TypeVar("T")


def run(call: Awaitable[T]) -> T:
    async def main() -> T:
        return await call

    return asyncio.run(main())


def counting_seeds() -> Dealer:
    """A dealer whose seeds are 1, 2, 3 ... (32 bytes each), so tests know them."""
    counter = itertools.count(1)
    return Dealer(InMemorySeedStore(), new_seed=lambda: next(counter).to_bytes(32, "big"))


def test_start_deck_commits_to_a_fresh_seed() -> None:
    dealer = counting_seeds()
    deck = run(dealer.start_deck("t1", "h1", "k1"))
    assert deck.deck_id == deck_id_for("t1", "h1", deck.commitment)
    assert deck.commitment == commitment((1).to_bytes(32, "big"))
    assert (deck.algorithm, deck.deck_size) == (ALGORITHM, 52)
    other = run(dealer.start_deck("t1", "h2", "k1"))
    assert other.deck_id != deck.deck_id and other.commitment != deck.commitment


def test_a_repeated_start_deck_returns_the_same_deck() -> None:
    dealer = counting_seeds()
    first = run(dealer.start_deck("t1", "h1", "k1"))
    assert run(dealer.start_deck("t1", "h1", "k1")) == first


def test_the_same_hand_with_another_idempotency_key_is_refused() -> None:
    dealer = counting_seeds()
    run(dealer.start_deck("t1", "h1", "k1"))
    with pytest.raises(AlreadyExists, match="already has deck"):
        run(dealer.start_deck("t1", "h1", "k2"))


def test_deck_ids_do_not_collide_by_concatenation() -> None:
    assert deck_id_for("ab", "c", "x") != deck_id_for("a", "bc", "x")
    assert deck_id_for("t", "h", "x") != deck_id_for("t", "h", "y")  # another seed, another id
    assert len(deck_id_for("t", "h", "x")) == 32


def test_cards_are_dealt_by_deck_position() -> None:
    dealer = counting_seeds()
    deck_id = run(dealer.start_deck("t1", "h1", "k")).deck_id
    expected = deck_from_seed((1).to_bytes(32, "big"))
    assert run(dealer.deal(deck_id, [0, 1, 2])) == expected[:3]
    assert run(dealer.deal(deck_id, [51, 3])) == (expected[51], expected[3])
    assert run(dealer.deal(deck_id, list(range(4, 51)))) == expected[4:51]


def test_the_same_request_again_is_a_retry_and_gets_the_same_cards() -> None:
    """A table that crashed after the dealer answered asks again with exactly that request."""
    dealer = counting_seeds()
    deck_id = run(dealer.start_deck("t1", "h1", "k")).deck_id
    first = run(dealer.deal(deck_id, [0, 6]))
    assert run(dealer.deal(deck_id, [0, 6])) == first
    assert run(dealer.deal(deck_id, [0, 6])) == first


def test_dealing_position_0_three_times_deals_it_once() -> None:
    """Issue 9: DealCards accepted position 0 three times. Now a request may name a position
    once, and once dealt, a position goes to no other request."""
    dealer = counting_seeds()
    deck_id = run(dealer.start_deck("t1", "h1", "k")).deck_id
    with pytest.raises(InvalidArgument, match="appears twice") as twice:
        run(dealer.deal(deck_id, [0, 0, 0]))
    assert twice.value.code == "DUPLICATE_CARD_INDEX"
    run(dealer.deal(deck_id, [0]))
    for other in ([0, 1], [1, 0], [5, 0]):
        with pytest.raises(PreconditionFailed, match=r"position 0 .* another request") as taken:
            run(dealer.deal(deck_id, other))
        assert taken.value.code == "POSITION_DEALT"
    # The refused requests dealt nothing: positions 1 and 5 are still free.
    assert run(dealer.deal(deck_id, [1, 5])) == tuple(
        deck_from_seed((1).to_bytes(32, "big"))[i] for i in (1, 5)
    )


def test_reveal_gives_the_committed_seed_and_closes_the_deck() -> None:
    dealer = counting_seeds()
    started = run(dealer.start_deck("t1", "h1", "k"))
    before = run(dealer.deal(started.deck_id, [5, 9]))
    revealed = run(dealer.reveal(started.deck_id))
    assert revealed.seed == (1).to_bytes(32, "big")
    assert revealed.commitment == started.commitment == commitment(revealed.seed)
    assert before == tuple(deck_from_seed(revealed.seed)[i] for i in (5, 9))
    assert run(dealer.reveal(started.deck_id)) == revealed  # a repeated reveal: same seed


@pytest.mark.parametrize("indexes", [[0], [5, 9], [51]])
def test_dealing_after_the_seed_was_revealed_is_refused(indexes: list[int]) -> None:
    """Issue 9: the dealer dealt after the seed was revealed; a revealed deck is closed, even
    to a retry of a request it answered before."""
    dealer = counting_seeds()
    deck_id = run(dealer.start_deck("t1", "h1", "k")).deck_id
    run(dealer.deal(deck_id, [5, 9]))
    run(dealer.reveal(deck_id))
    with pytest.raises(PreconditionFailed, match="revealed") as closed:
        run(dealer.deal(deck_id, indexes))
    assert closed.value.code == "DECK_CLOSED"


@pytest.mark.parametrize(
    ("deck_id", "indexes", "match"),
    [
        ("", [0], "32 lower-case hex"),
        ("not-a-deck", [0], "32 lower-case hex"),
        (None, [], "at least one"),
        (None, [52], "0..51"),
        (None, [0, 99, 3], "got 99"),
        (None, [-1], "got -1"),
        (None, [0] * 53, "at most 52"),
        (None, [3, 4, 3], "appears twice"),
    ],
)
def test_deal_rejects_bad_input_and_deals_nothing(
    deck_id: str | None, indexes: list[int], match: str
) -> None:
    dealer = counting_seeds()
    real = run(dealer.start_deck("t", "h", "k")).deck_id
    with pytest.raises(InvalidArgument, match=match):
        run(dealer.deal(real if deck_id is None else deck_id, indexes))
    assert run(dealer.deal(real, [0, 3, 4, 51])) == tuple(
        deck_from_seed((1).to_bytes(32, "big"))[i] for i in (0, 3, 4, 51)
    )


def test_an_unknown_deck_is_not_found() -> None:
    dealer = counting_seeds()
    with pytest.raises(NotFound, match="no deck"):
        run(dealer.deal(deck_id_for("t", "h", "x"), [0]))
    with pytest.raises(NotFound):
        run(dealer.reveal(deck_id_for("t", "h", "x")))


def test_card_indices_map_to_proto_ranks_and_suits() -> None:
    ace_of_spades = card_to_proto(51)
    assert (ace_of_spades.rank, ace_of_spades.suit) == (14, 4)  # RANK_ACE, SUIT_SPADES
    two_of_clubs = card_to_proto(0)
    assert (two_of_clubs.rank, two_of_clubs.suit) == (2, 1)
    assert [card_from_proto(card_to_proto(c)) for c in range(52)] == list(range(52))


def test_a_deck_drawn_again_after_the_store_was_wiped_has_another_id() -> None:
    """A hand whose deck the store lost (Redis wiped) and that is started again gets a new deck
    under a new id: the first id finds nothing (the table voids that hand) instead of dealing
    from a seed that does not match the commitment the table already made public."""
    store = InMemorySeedStore()
    dealer = Dealer(store)
    first = run(dealer.start_deck("t", "h", "k"))
    for kept in (store._records, store._hands, store._ledgers):  # Redis crashed: all gone
        kept.clear()
    second = run(dealer.start_deck("t", "h", "k"))
    assert second.deck_id != first.deck_id and second.commitment != first.commitment
    with pytest.raises(NotFound):
        run(dealer.deal(first.deck_id, [0]))
    assert run(dealer.start_deck("t", "h", "k")) == second
