"""The ai service's Policy call over real gRPC (a subprocess): a level's action shares per
asked holding, the same as in-process and, with the seed it played with, what it did; bad input
is refused with INVALID_ARGUMENT and a reason, and only tools may ask."""

from __future__ import annotations

import grpc
import numpy as np
import pytest
from holdem.ai.v1 import ai_pb2, ai_pb2_grpc

from libs.ai import Level, SeatView, decide
from libs.ai.probe import HOLDINGS, kind_index, policy
from libs.aiproto.mapping import card_to_proto
from libs.aiproto.requests import decide_request
from libs.devstack.identity import channel_as
from libs.poker import BettingStructure, Variant, parse_cards
from tests.ai.spots import BB, Hand
from tests.services.conftest import ServiceProcess

pytestmark = [pytest.mark.integration, pytest.mark.timeout(180)]


def _view() -> SeatView:
    """The big blind facing a pot-size bet on the flop, heads-up."""
    hand = Hand(Variant.HOLDEM, BettingStructure.NO_LIMIT, ["QhQc", "AsKd"])
    return hand.call().check().board("2c7h9d").check().raise_to(4 * BB).view()


def _ask(
    view: SeatView, level: Level, seed: int, holdings: list[str], draws: int = 0
) -> ai_pb2.PolicyRequest:
    decision = decide_request(view, level, seed, 1_000)
    viewer = next(s for s in decision.view.seats if s.seat == decision.view.viewer_seat)
    del viewer.hole_cards[:]
    return ai_pb2.PolicyRequest(decision=decision, holdings=holdings, draws=draws)


def _index(text: str) -> int:
    a, b = sorted((int(c) for c in parse_cards(text)), reverse=True)
    return int(np.flatnonzero((HOLDINGS[:, 0] == a) & (HOLDINGS[:, 1] == b))[0])


@pytest.mark.parametrize("level", [Level.EASY, Level.NORMAL, Level.HARD])
def test_the_policy_is_the_levels_own(stub: ai_pb2_grpc.AiServiceStub, level: Level) -> None:
    view = _view()
    asked = ["AsKd", "Kd7c", "3s4s", "9s9h", "QhQc"]
    answer = stub.Policy(_ask(view, level, 11, asked), timeout=60)
    assert [h.holding for h in answer.holdings] == ["AsKd", "Kd7c", "4s3s", "9s9h", "QhQc"]
    local = policy(view, level, 11, budget=1.0)
    for h in answer.holdings:
        row = (h.fold, h.check_call, h.bet_raise)
        assert sum(row) == pytest.approx(1.0)
        assert row == tuple(local[_index(h.holding)].tolist())
    mine = decide(view, level, 11, 1.0)  # the viewer really holds QhQc
    real = answer.holdings[-1]
    assert (real.fold, real.check_call, real.bet_raise)[kind_index(mine.kind)] == 1.0


def test_an_empty_ask_is_every_holding_the_board_leaves(stub: ai_pb2_grpc.AiServiceStub) -> None:
    answer = stub.Policy(_ask(_view(), Level.HARD, 3, [], draws=2), timeout=60)
    assert len(answer.holdings) == 1_176  # C(49, 2): the flop's three cards are out
    shares = np.array([(h.fold, h.check_call, h.bet_raise) for h in answer.holdings])
    assert np.allclose(shares.sum(axis=1), 1.0)
    assert set(np.unique(shares)) <= {0.0, 0.5, 1.0}  # two draws


def _refused(stub: ai_pb2_grpc.AiServiceStub, request: ai_pb2.PolicyRequest) -> str:
    with pytest.raises(grpc.RpcError) as caught:
        stub.Policy(request, timeout=30)
    assert caught.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    return caught.value.details() or ""


def test_bad_policy_requests_are_refused_with_a_reason(stub: ai_pb2_grpc.AiServiceStub) -> None:
    view = _view()
    assert "not two cards" in _refused(stub, _ask(view, Level.HARD, 1, ["AsKx"]))
    assert "not two cards" in _refused(stub, _ask(view, Level.HARD, 1, ["hello"]))
    assert "is two cards" in _refused(stub, _ask(view, Level.HARD, 1, ["AsKdQc"]))
    assert "twice" in _refused(stub, _ask(view, Level.HARD, 1, ["AsAs"]))
    assert "again" in _refused(stub, _ask(view, Level.HARD, 1, ["AsKd", "KdAs"]))
    assert "the board" in _refused(stub, _ask(view, Level.HARD, 1, ["2c3c"]))
    assert "draws" in _refused(stub, _draws(view))
    shown = _ask(view, Level.HARD, 1, ["AsKd"])
    viewer = next(s for s in shown.decision.view.seats if s.seat == shown.decision.view.viewer_seat)
    viewer.hole_cards.extend(card_to_proto(c) for c in parse_cards("AsKd"))
    assert "leave them out" in _refused(stub, shown)
    broke = _ask(view, Level.HARD, 1, ["AsKd"])
    other = next(s for s in broke.decision.view.seats if s.seat != broke.decision.view.viewer_seat)
    other.stack = 0
    assert "stack of 0" in _refused(stub, broke)
    deep = _ask(view, Level.HARD, 1, ["AsKd"])
    for s in deep.decision.view.seats:
        s.stack = 10**9
    deep.decision.view.config.big_blind = 2
    deep.decision.view.config.small_blind = 1
    assert "big blinds" in _refused(stub, deep)
    omaha = Hand(Variant.OMAHA, BettingStructure.POT_LIMIT, ["AsKdQhJc", "2c3d4h5s"]).call()
    request = _ask(omaha.view(), Level.HARD, 1, [])
    assert "hold'em" in _refused(stub, request)
    assert "decision" in _refused(stub, ai_pb2.PolicyRequest(holdings=["AsKd"]))


def _draws(view: SeatView) -> ai_pb2.PolicyRequest:
    request = _ask(view, Level.HARD, 1, ["AsKd"])
    request.draws = 9
    return request


def test_only_tools_may_ask_for_a_policy(ai: ServiceProcess) -> None:
    with channel_as(ai.address, "table") as channel, pytest.raises(grpc.RpcError) as caught:
        ai_pb2_grpc.AiServiceStub(channel).Policy(_ask(_view(), Level.EASY, 1, ["AsKd"]))
    assert caught.value.code() == grpc.StatusCode.PERMISSION_DENIED
