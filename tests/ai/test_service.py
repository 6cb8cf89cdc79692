"""The ai service over real gRPC (a subprocess): legal answers at every level, a seed repeats a
decision, bad requests are refused with INVALID_ARGUMENT, and ``holdem arena`` plays it."""

from __future__ import annotations

import json
import socket

import grpc
import pytest
from holdem.ai.v1 import ai_pb2, ai_pb2_grpc
from holdem.common.v1 import common_pb2 as pb

from libs.ai import Level, is_legal
from libs.aiproto.requests import decide_request, decision_from_response
from libs.cli.main import main
from libs.poker import BettingStructure, Variant
from services.ai.app import DEADLINE_MARGIN_SECONDS, DEFAULT_TIME_BUDGET_MS, budget_seconds
from tests.ai.spots import Hand
from tests.services.conftest import ServiceProcess

pytestmark = [pytest.mark.integration, pytest.mark.timeout(180)]


def spot() -> Hand:
    hand = Hand(Variant.HOLDEM, BettingStructure.NO_LIMIT, ["AsKs", "QdQh", "Tc9c"])
    return hand.raise_to(300).call().call().board("Qs7s2c").check()


@pytest.mark.parametrize("level", [Level.EASY, Level.NORMAL, Level.HARD])
def test_every_level_answers_legally(stub: ai_pb2_grpc.AiServiceStub, level: Level) -> None:
    view = spot().view()
    response = stub.Decide(decide_request(view, level, 0, 150), timeout=10)
    decision = decision_from_response(response, view)
    assert decision is not None and is_legal(view.options, decision)
    assert response.rationale


def test_a_seed_repeats_the_decision(stub: ai_pb2_grpc.AiServiceStub) -> None:
    view = spot().view()
    request = decide_request(view, Level.HARD, 1234, 10_000)
    first = stub.Decide(request, timeout=30)
    second = stub.Decide(request, timeout=30)
    assert (first.action, first.amount, first.rationale) == (
        second.action,
        second.amount,
        second.rationale,
    )


def _refused(stub: ai_pb2_grpc.AiServiceStub, request: ai_pb2.DecideRequest) -> str:
    with pytest.raises(grpc.RpcError) as caught:
        stub.Decide(request, timeout=10)
    assert caught.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    return caught.value.details() or ""


def test_bad_requests_are_refused_with_a_reason(stub: ai_pb2_grpc.AiServiceStub) -> None:
    view = spot().view()
    request = decide_request(view, Level.NORMAL, 1, 100)
    duplicate = ai_pb2.DecideRequest()
    duplicate.CopyFrom(request)
    viewer = next(s for s in duplicate.view.seats if s.seat == duplicate.view.viewer_seat)
    viewer.hole_cards[0].CopyFrom(duplicate.view.board[0])
    assert "appears in" in _refused(stub, duplicate)
    short = ai_pb2.DecideRequest()
    short.CopyFrom(request)
    viewer = next(s for s in short.view.seats if s.seat == short.view.viewer_seat)
    del viewer.hole_cards[1]
    assert "2 hole cards" in _refused(stub, short)
    unknown = ai_pb2.DecideRequest()
    unknown.CopyFrom(request)
    unknown.difficulty = pb.BotDifficulty.ValueType(42)
    assert "difficulty" in _refused(stub, unknown)
    out_of_range = ai_pb2.DecideRequest()
    out_of_range.CopyFrom(request)
    out_of_range.legal_actions.max_raise_to = 10**12
    assert "raise bounds" in _refused(stub, out_of_range)


def test_the_budget_is_cut_to_the_deadline() -> None:
    assert budget_seconds(0, None) == DEFAULT_TIME_BUDGET_MS / 1000
    assert budget_seconds(5_000, None) == 5.0
    assert budget_seconds(5_000, 1.0) == pytest.approx(1.0 - DEADLINE_MARGIN_SECONDS)
    assert budget_seconds(5_000, 0.001) == 0.0


def test_the_arena_plays_an_outside_bot_over_grpc(
    ai: ServiceProcess, capsys: pytest.CaptureFixture[str]
) -> None:
    spec = f"grpc://{ai.address}?difficulty=easy"
    status = main(["arena", "--a", spec, "--b", "call", "--hands", "6", "--json", "--quiet"])
    assert status == 0
    result = json.loads(capsys.readouterr().out)
    assert result["a"] == spec and result["hands"] == 6
    answers = result["answers"]["a"]
    assert answers["decisions"] > 0 and answers["illegal"] == 0 and answers["no_answer"] == 0


def test_the_arena_says_when_an_outside_bot_cannot_be_reached(
    capsys: pytest.CaptureFixture[str],
) -> None:
    with socket.socket() as free:
        free.bind(("127.0.0.1", 0))
        port = free.getsockname()[1]
    status = main(["arena", "--a", f"grpc://127.0.0.1:{port}", "--b", "call", "--hands", "2"])
    assert status == 2
    assert "cannot reach" in capsys.readouterr().err


def test_tournament_prizes_are_read_and_bad_ones_refused(stub: ai_pb2_grpc.AiServiceStub) -> None:
    view = spot().view()
    request = decide_request(view, Level.HARD, 7, 100)
    request.prizes.payouts.extend([50, 30, 20])
    request.prizes.other_stacks.extend([1500, 900])
    assert stub.Decide(request, timeout=10).rationale
    rising = ai_pb2.DecideRequest()
    rising.CopyFrom(request)
    rising.prizes.payouts[0] = 10
    assert "never rising" in _refused(stub, rising)
    negative = ai_pb2.DecideRequest()
    negative.CopyFrom(request)
    negative.prizes.other_stacks.append(-5)
    assert "other_stacks" in _refused(stub, negative)
