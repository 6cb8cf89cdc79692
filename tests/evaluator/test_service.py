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
