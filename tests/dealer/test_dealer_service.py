"""The dealer over real gRPC, as a process, with its seeds in a real redis-server."""

from __future__ import annotations

import uuid
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import grpc
import pytest
import redis
from holdem.dealer.v1 import dealer_pb2, dealer_pb2_grpc

from libs.devstack.identity import channel_as
from libs.fairdeck import ALGORITHM, commitment, deck_from_seed
from libs.platform.unavailable import DEPENDENCY_DOWN
from services.dealer.app import deck_id_for
from services.dealer.server import card_from_proto
from services.dealer.store import hand_digest
from tests.dealer.conftest import StartDealer

pytestmark = [pytest.mark.integration, pytest.mark.timeout(60)]

Stub = dealer_pb2_grpc.DealerServiceStub


def start(
    stub: Stub, table_id: str, hand_id: str = "h1", key: str = "k1"
) -> dealer_pb2.StartDeckResponse:
    request = dealer_pb2.StartDeckRequest(table_id=table_id, hand_id=hand_id, idempotency_key=key)
    response: dealer_pb2.StartDeckResponse = stub.StartDeck(request, timeout=5)
    return response


def deal(stub: Stub, deck_id: str, indexes: list[int]) -> list[int]:
    response = stub.DealCards(
        dealer_pb2.DealCardsRequest(deck_id=deck_id, indexes=indexes), timeout=5
    )
    return [card_from_proto(c) for c in response.cards]


def fresh_table() -> str:
    return f"table-{uuid.uuid4().hex[:8]}"


def test_start_deck_is_idempotent(dealer: Stub) -> None:
    table = fresh_table()
    first = start(dealer, table)
    assert first.deck_id == deck_id_for(table, "h1", first.commitment)
    assert (first.shuffle_algorithm, first.deck_size) == (ALGORITHM, 52)
    assert len(first.commitment) == 64
    assert start(dealer, table) == first
    assert start(dealer, table, hand_id="h2").commitment != first.commitment


def test_concurrent_start_decks_agree_on_one_deck(dealer: Stub) -> None:
    table = fresh_table()
    with ThreadPoolExecutor(8) as pool:
        answers = list(pool.map(lambda _: start(dealer, table), range(16)))
    assert len({(a.deck_id, a.commitment) for a in answers}) == 1


def refusal(call: Callable[[], object]) -> grpc.RpcError:
    with pytest.raises(grpc.RpcError) as caught:
        call()
    return caught.value


def test_dealt_cards_are_stable_and_follow_the_revealed_seed(dealer: Stub) -> None:
    started = start(dealer, fresh_table())
    first = deal(dealer, started.deck_id, [0, 1, 2, 3, 4])
    assert deal(dealer, started.deck_id, [0, 1, 2, 3, 4]) == first  # a retry
    revealed = dealer.RevealSeed(dealer_pb2.RevealSeedRequest(deck_id=started.deck_id), timeout=5)
    seed = bytes.fromhex(revealed.seed)
    assert revealed.commitment == started.commitment == commitment(seed)
    assert revealed.shuffle_algorithm == ALGORITHM
    assert first == list(deck_from_seed(seed)[:5])


def test_dealer_deals_position_0_three_times_only_as_one_request(dealer: Stub) -> None:
    """Issue 9: DealCards accepted position 0 three times. Position 0 named three times in one
    request is invalid; once dealt, it goes to no other request; only the same request again (the
    table retrying after a crash) gets the same card."""
    deck_id = start(dealer, fresh_table()).deck_id
    thrice = refusal(lambda: deal(dealer, deck_id, [0, 0, 0]))
    assert thrice.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert "indexes: items must be distinct" in str(thrice.details())
    card = deal(dealer, deck_id, [0])
    assert deal(dealer, deck_id, [0]) == card
    for other in ([0, 1], [2, 0]):
        taken = refusal(lambda other=other: deal(dealer, deck_id, other))  # type: ignore[misc]
        assert taken.code() == grpc.StatusCode.FAILED_PRECONDITION
        assert "position 0" in str(taken.details())
    assert len(deal(dealer, deck_id, [1, 2])) == 2  # refused requests dealt nothing


def test_dealing_after_the_seed_was_revealed_is_refused(dealer: Stub) -> None:
    """Issue 9: the dealer dealt after the seed was revealed."""
    deck_id = start(dealer, fresh_table()).deck_id
    deal(dealer, deck_id, [0, 1])
    dealer.RevealSeed(dealer_pb2.RevealSeedRequest(deck_id=deck_id), timeout=5)
    for indexes in ([0, 1], [2], list(range(5, 52))):
        closed = refusal(lambda indexes=indexes: deal(dealer, deck_id, indexes))  # type: ignore[misc]
        assert closed.code() == grpc.StatusCode.FAILED_PRECONDITION
        assert "revealed" in str(closed.details())
    again = dealer.RevealSeed(dealer_pb2.RevealSeedRequest(deck_id=deck_id), timeout=5)
    assert len(again.seed) == 64  # revealing again is harmless: the seed is public


@pytest.mark.parametrize(
    ("table_id", "hand_id", "key"),
    [
        ("$JS", "h", "k"),
        ("a.b", "h", "k"),
        ("*", "h", "k"),
        (">", "h", "k"),
        ("tablé", "h", "k"),
        ("t\x00", "h", "k"),
        ("t", "h\n", "k"),
        ("t" * 100_000, "h", "k"),
        ("t", "h", "k y"),
        ("t", "h", "k" * 129),
    ],
)
def test_start_deck_refuses_bad_ids_and_stores_nothing(
    dealer: Stub, redis_url: str, table_id: str, hand_id: str, key: str
) -> None:
    """Issue 9: bad ids ("$JS", unicode, control characters, 100 KB) gave INTERNAL."""
    error = refusal(lambda: start(dealer, table_id, hand_id, key))
    assert error.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert len(str(error.details())) < 200
    client = redis.Redis.from_url(redis_url)
    try:
        assert client.exists(f"holdem:dealer:hand:{hand_digest(table_id, hand_id)}") == 0
    finally:
        client.close()


def test_a_restarted_dealer_deals_the_same_deck(start_dealer: StartDealer) -> None:
    table = fresh_table()
    before = start_dealer()
    with channel_as(before.address, "table") as channel:
        stub = Stub(channel)
        started = start(stub, table)
        cards = deal(stub, started.deck_id, list(range(50)))
    assert before.stop() == 0
    after = start_dealer()
    with channel_as(after.address, "table") as channel:
        stub = Stub(channel)
        assert deal(stub, started.deck_id, list(range(50))) == cards
        assert start(stub, table) == started
        # what it dealt before the restart is remembered too
        taken = refusal(lambda: deal(stub, started.deck_id, [49, 50]))
        assert taken.code() == grpc.StatusCode.FAILED_PRECONDITION


@pytest.mark.parametrize(
    ("method", "request_", "status", "message"),
    [
        ("StartDeck", dealer_pb2.StartDeckRequest(hand_id="h"), "INVALID_ARGUMENT", "table_id"),
        ("StartDeck", dealer_pb2.StartDeckRequest(table_id="t"), "INVALID_ARGUMENT", "hand_id"),
        ("DealCards", dealer_pb2.DealCardsRequest(indexes=[0]), "INVALID_ARGUMENT", "deck_id"),
        (
            "DealCards",
            dealer_pb2.DealCardsRequest(deck_id="zz", indexes=[0]),
            "INVALID_ARGUMENT",
            "deck_id: at least 32 characters",
        ),
        (
            "DealCards",
            dealer_pb2.DealCardsRequest(deck_id="0" * 32, indexes=[0]),
            "NOT_FOUND",
            "no deck",
        ),
        ("RevealSeed", dealer_pb2.RevealSeedRequest(deck_id="0" * 32), "NOT_FOUND", "no deck"),
        ("RevealSeed", dealer_pb2.RevealSeedRequest(), "INVALID_ARGUMENT", "deck_id"),
    ],
)
def test_bad_requests_get_the_right_status(
    dealer: Stub, method: str, request_: object, status: str, message: str
) -> None:
    with pytest.raises(grpc.RpcError) as caught:
        getattr(dealer, method)(request_, timeout=5)
    assert caught.value.code().name == status
    assert message in str(caught.value.details())


def test_bad_card_positions_are_invalid_and_the_deck_is_unchanged(dealer: Stub) -> None:
    started = start(dealer, fresh_table())
    before = deal(dealer, started.deck_id, list(range(52)))
    for indexes in ([52], [], [0, 1000]):
        with pytest.raises(grpc.RpcError) as caught:
            deal(dealer, started.deck_id, indexes)
        assert caught.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert deal(dealer, started.deck_id, list(range(52))) == before


def test_another_idempotency_key_for_a_started_hand_already_exists(dealer: Stub) -> None:
    table = fresh_table()
    first = start(dealer, table, key="a")
    with pytest.raises(grpc.RpcError) as caught:
        start(dealer, table, key="b")
    assert caught.value.code() == grpc.StatusCode.ALREADY_EXISTS
    assert start(dealer, table, key="a") == first


def test_without_redis_the_dealer_answers_unavailable(start_dealer: StartDealer) -> None:
    dealer = start_dealer(redis_url="redis://127.0.0.1:1/0")
    with channel_as(dealer.address, "table") as channel, pytest.raises(grpc.RpcError) as caught:
        start(Stub(channel), fresh_table())
    assert caught.value.code() == grpc.StatusCode.UNAVAILABLE
    # a coded error like every other refusal (the error layer's trailer)
    refused: Any = caught.value
    assert dict(refused.trailing_metadata())["x-error-code"] == DEPENDENCY_DOWN
