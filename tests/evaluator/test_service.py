"""The evaluator service over real gRPC (a subprocess): batch evaluation, showdowns, equity."""

from __future__ import annotations

from collections.abc import Callable, Iterator

import grpc
import pytest
from holdem.common.v1 import common_pb2
from holdem.evaluator.v1 import evaluator_pb2, evaluator_pb2_grpc

from libs.poker.cards import parse_cards
from tests.services.conftest import start_service, stop_all

pytestmark = [pytest.mark.integration, pytest.mark.timeout(120)]

HOLDEM, OMAHA, HI_LO = (
    common_pb2.VARIANT_HOLDEM,
    common_pb2.VARIANT_OMAHA,
    common_pb2.VARIANT_OMAHA_HI_LO,
)


def cards(text: str) -> list[common_pb2.Card]:
    return [
        common_pb2.Card(
            rank=common_pb2.Rank.ValueType((c >> 2) + 2),
            suit=common_pb2.Suit.ValueType((c & 3) + 1),
        )
        for c in parse_cards(text)
    ]


def faces(proto_cards: object) -> set[str]:
    return {"23456789TJQKA"[c.rank - 2] + "cdhs"[c.suit - 1] for c in proto_cards}  # type: ignore[attr-defined]


@pytest.fixture(scope="module")
def stub(
    tmp_path_factory: pytest.TempPathFactory,
) -> Iterator[evaluator_pb2_grpc.EvaluatorServiceStub]:
    service = start_service("evaluator", tmp_path_factory.mktemp("evaluator"))
    try:
        with grpc.insecure_channel(service.address) as channel:
            yield evaluator_pb2_grpc.EvaluatorServiceStub(channel)
    finally:
        stop_all([service])


def test_evaluate_batch_ranks_describes_and_picks_the_best_five(
    stub: evaluator_pb2_grpc.EvaluatorServiceStub,
) -> None:
    response = stub.EvaluateBatch(
        evaluator_pb2.EvaluateBatchRequest(
            variant=HOLDEM,
            holdings=[
                evaluator_pb2.Holding(hole_cards=cards("AhKh"), board=cards("QhJhTh2c3d")),
                evaluator_pb2.Holding(hole_cards=cards("7c7d"), board=cards("7h2s2d9cKs")),
            ],
        ),
        timeout=10,
    )
    royal, boat = response.values
    assert royal.high.category == evaluator_pb2.HAND_CATEGORY_STRAIGHT_FLUSH
    assert faces(royal.high.best_five) == {"Ah", "Kh", "Qh", "Jh", "Th"}
    assert boat.high.category == evaluator_pb2.HAND_CATEGORY_FULL_HOUSE
    assert boat.high.description == "full house, 7s full of 2s"
    assert royal.high.strength > boat.high.strength
    assert not royal.HasField("low")


def test_evaluate_batch_omaha_hi_lo_uses_two_hole_cards(
    stub: evaluator_pb2_grpc.EvaluatorServiceStub,
) -> None:
    response = stub.EvaluateBatch(
        evaluator_pb2.EvaluateBatchRequest(
            variant=HI_LO,
            holdings=[
                evaluator_pb2.Holding(hole_cards=cards("As2sKdKc"), board=cards("3h4h8cKhQs"))
            ],
        ),
        timeout=10,
    )
    (value,) = response.values
    assert value.high.category == evaluator_pb2.HAND_CATEGORY_THREE_OF_A_KIND
    assert value.low.description == "8-4-3-2-A low"
    assert faces(value.low.best_five) == {"As", "2s", "3h", "4h", "8c"}


def test_showdown_splits_a_tie_with_the_odd_chip_to_the_first_seat_in_order(
    stub: evaluator_pb2_grpc.EvaluatorServiceStub,
) -> None:
    response = stub.ResolveShowdown(
        evaluator_pb2.ResolveShowdownRequest(
            variant=HOLDEM,
            board=cards("AsKdQhJc9s"),
            contenders=[
                evaluator_pb2.Contender(seat=1, hole_cards=cards("Td2c")),
                evaluator_pb2.Contender(seat=4, hole_cards=cards("Th3c")),
                evaluator_pb2.Contender(seat=7, hole_cards=cards("2h3d")),
            ],
            pots=[
                common_pb2.Pot(amount=101, eligible_seats=[1, 4, 7]),
                common_pb2.Pot(amount=40, eligible_seats=[4, 7]),
            ],
            odd_chip_order=[4, 7, 1],
        ),
        timeout=10,
    )
    awards = [(a.pot_index, a.seat, a.amount, a.share) for a in response.awards]
    whole = common_pb2.POT_SHARE_WHOLE
    assert sorted(awards) == [(0, 1, 50, whole), (0, 4, 51, whole), (1, 4, 40, whole)]
    assert len(response.values) == 3


def test_hi_lo_showdown_quarters_and_gives_the_odd_chip_to_high(
    stub: evaluator_pb2_grpc.EvaluatorServiceStub,
) -> None:
    response = stub.ResolveShowdown(
        evaluator_pb2.ResolveShowdownRequest(
            variant=HI_LO,
            board=cards("2c3d4hKcKd"),
            contenders=[
                evaluator_pb2.Contender(seat=0, hole_cards=cards("As5s9d9c")),
                evaluator_pb2.Contender(seat=1, hole_cards=cards("Ah5h9h9s")),
                evaluator_pb2.Contender(seat=2, hole_cards=cards("KhKsJcJd")),
            ],
            pots=[common_pb2.Pot(amount=103, eligible_seats=[0, 1, 2])],
            odd_chip_order=[1, 2, 0],
        ),
        timeout=10,
    )
    awards = sorted((a.share, a.seat, a.amount) for a in response.awards)
    # 103 = 52 high (odd chip) + 51 low; the low half 51 splits 26 (seat 1, first) / 25.
    assert awards == [
        (common_pb2.POT_SHARE_HIGH, 2, 52),
        (common_pb2.POT_SHARE_LOW, 0, 25),
        (common_pb2.POT_SHARE_LOW, 1, 26),
    ]


def test_equity_exact_on_the_turn_and_budgeted_monte_carlo(
    stub: evaluator_pb2_grpc.EvaluatorServiceStub,
) -> None:
    exact = stub.Equity(
        evaluator_pb2.EquityRequest(
            variant=HOLDEM,
            players=[
                evaluator_pb2.Holding(hole_cards=cards("AhKh")),
                evaluator_pb2.Holding(hole_cards=cards("QsQd")),
            ],
        ),
        timeout=30,
    )
    assert exact.exact and exact.samples == 1_712_304
    assert exact.players[0].win == pytest.approx(0.46018, abs=5e-6)
    assert exact.players[0].equity == pytest.approx(0.4621, abs=5e-5)

    estimate = stub.Equity(
        evaluator_pb2.EquityRequest(
            variant=HI_LO,
            players=[evaluator_pb2.Holding(hole_cards=cards("Ah2h3sKd"))]
            + [evaluator_pb2.Holding() for _ in range(5)],
            board=cards("4c7dTs"),
            time_budget_ms=150,
            target_std_error=0.015,
            seed=9,
        ),
        timeout=10,
    )
    assert not estimate.exact and estimate.samples > 0
    assert all(0 < p.std_error <= 0.015 for p in estimate.players)
    assert sum(p.equity for p in estimate.players) == pytest.approx(1.0)


def test_invalid_requests_answer_invalid_argument(
    stub: evaluator_pb2_grpc.EvaluatorServiceStub,
) -> None:
    bad: list[Callable[[], object]] = [
        lambda: stub.Equity(evaluator_pb2.EquityRequest(), timeout=5),
        lambda: stub.Equity(
            evaluator_pb2.EquityRequest(
                variant=HOLDEM,
                players=[
                    evaluator_pb2.Holding(hole_cards=cards("AhKh")),
                    evaluator_pb2.Holding(hole_cards=cards("AhQd")),
                ],
            ),
            timeout=5,
        ),
        lambda: stub.ResolveShowdown(
            evaluator_pb2.ResolveShowdownRequest(
                variant=OMAHA,
                board=cards("2c3d4hKcKd"),
                contenders=[evaluator_pb2.Contender(seat=0, hole_cards=cards("AsKs"))],
                pots=[common_pb2.Pot(amount=10, eligible_seats=[0])],
            ),
            timeout=5,
        ),
    ]
    for call in bad:
        with pytest.raises(grpc.RpcError) as caught:
            call()
        assert caught.value.code() == grpc.StatusCode.INVALID_ARGUMENT


def test_evaluator_refuses_a_holdem_hand_of_7_hole_cards(
    stub: evaluator_pb2_grpc.EvaluatorServiceStub,
) -> None:
    """Issue 9: the evaluator ranked a hold'em hand of 7 hole cards."""
    with pytest.raises(grpc.RpcError) as caught:
        stub.EvaluateBatch(
            evaluator_pb2.EvaluateBatchRequest(
                variant=HOLDEM,
                holdings=[evaluator_pb2.Holding(hole_cards=cards("AhKhQhJhTh2c3d"))],
            ),
            timeout=10,
        )
    assert caught.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert "holdings[0].hole_cards: at most 4 items" in str(caught.value.details())
    with pytest.raises(grpc.RpcError) as three:
        stub.EvaluateBatch(
            evaluator_pb2.EvaluateBatchRequest(
                variant=HOLDEM,
                holdings=[evaluator_pb2.Holding(hole_cards=cards("AhKhQh"), board=cards("Jh2c3d"))],
            ),
            timeout=10,
        )
    assert three.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert "needs 2" in str(three.value.details())


def test_resolve_showdown_with_eligible_seats_0_0_1_is_refused(
    stub: evaluator_pb2_grpc.EvaluatorServiceStub,
) -> None:
    """Issue 9: ResolveShowdown with eligible seats [0,0,1] paid seat 0 twice."""
    request = evaluator_pb2.ResolveShowdownRequest(
        variant=HOLDEM,
        board=cards("2c7d9hJsQc"),
        contenders=[
            evaluator_pb2.Contender(seat=0, hole_cards=cards("AhAd")),
            evaluator_pb2.Contender(seat=1, hole_cards=cards("KhKd")),
        ],
        pots=[common_pb2.Pot(amount=100, eligible_seats=[0, 0, 1])],
    )
    with pytest.raises(grpc.RpcError) as caught:
        stub.ResolveShowdown(request, timeout=10)
    assert caught.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert "pots[0].eligible_seats: items must be distinct" in str(caught.value.details())
    del request.pots[0].eligible_seats[0]
    (award,) = stub.ResolveShowdown(request, timeout=10).awards
    assert (award.seat, award.amount) == (0, 100)
    request.contenders.append(evaluator_pb2.Contender(seat=0, hole_cards=cards("3s3h")))
    with pytest.raises(grpc.RpcError) as twice:
        stub.ResolveShowdown(request, timeout=10)
    assert twice.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert "seat 0 shows a hand twice" in str(twice.value.details())


@pytest.fixture(scope="module")
def capped(
    tmp_path_factory: pytest.TempPathFactory,
) -> Iterator[evaluator_pb2_grpc.EvaluatorServiceStub]:
    """An evaluator with small caps: 2 holdings per batch, one call per caller at a time."""
    service = start_service(
        "evaluator",
        tmp_path_factory.mktemp("capped"),
        {
            "HOLDEM_EVALUATOR_MAX_BATCH": "2",
            "HOLDEM_EVALUATOR_MAX_CALLS_PER_CALLER": "1",
            "HOLDEM_EVALUATOR_MAX_EQUITY_MS": "60000",
        },
    )
    try:
        with grpc.insecure_channel(service.address) as channel:
            yield evaluator_pb2_grpc.EvaluatorServiceStub(channel)
    finally:
        stop_all([service])


def test_a_batch_above_the_cap_is_refused(capped: evaluator_pb2_grpc.EvaluatorServiceStub) -> None:
    holding = evaluator_pb2.Holding(hole_cards=cards("AhKh"), board=cards("QhJhTh"))
    request = evaluator_pb2.EvaluateBatchRequest(variant=HOLDEM, holdings=[holding] * 2)
    assert len(capped.EvaluateBatch(request, timeout=10).values) == 2
    request.holdings.append(holding)
    with pytest.raises(grpc.RpcError) as caught:
        capped.EvaluateBatch(request, timeout=10)
    assert caught.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert "at most 2 holdings" in str(caught.value.details())


def long_equity(time_budget_ms: int) -> evaluator_pb2.EquityRequest:
    return evaluator_pb2.EquityRequest(
        variant=OMAHA,
        players=[evaluator_pb2.Holding() for _ in range(6)],
        time_budget_ms=time_budget_ms,
        max_samples=4_000_000_000,
    )


def test_a_caller_over_its_concurrency_limit_is_told_when_to_retry(
    capped: evaluator_pb2_grpc.EvaluatorServiceStub,
) -> None:
    second = evaluator_pb2.EvaluateBatchRequest(
        variant=HOLDEM,
        holdings=[evaluator_pb2.Holding(hole_cards=cards("AhKh"), board=cards("QhJhTh"))],
    )
    refused = None
    for _ in range(20):  # a first call that ended first (refused itself while an earlier
        # test's call held the slot, or done on a fast machine) is made again
        first = capped.Equity.future(long_equity(40_000), timeout=60)
        while refused is None and not first.done():  # the second call, while the first runs
            try:
                capped.EvaluateBatch(second, timeout=10)
            except grpc.RpcError as error:
                if error.code() == grpc.StatusCode.RESOURCE_EXHAUSTED:
                    refused = error
        first.cancel()
        if refused is not None:
            break
    assert refused is not None, "the first call always ended before a second one was refused"
    trailing = {m.key: m.value for m in refused.trailing_metadata() or ()}
    assert int(trailing["grpc-retry-pushback-ms"]) > 0
    assert "retry in" in str(refused.details())


def test_equity_stops_within_the_callers_deadline(
    capped: evaluator_pb2_grpc.EvaluatorServiceStub,
) -> None:
    """A budget of a minute, a deadline of 3 s: the estimate is cut to the deadline and returned
    (not DEADLINE_EXCEEDED after burning a minute of CPU)."""
    while True:  # the previous test's call may still hold this caller's one slot
        try:
            estimate = capped.Equity(long_equity(60_000), timeout=3)
            break
        except grpc.RpcError as error:
            if error.code() != grpc.StatusCode.RESOURCE_EXHAUSTED:
                raise
    assert not estimate.exact and estimate.samples > 0
    assert all(0 < p.std_error < 1 for p in estimate.players)
