"""Where the table gets hand values at showdown: the evaluator service (one EvaluateBatch per
showdown). With ``HOLDEM_TABLE_EVALUATOR=local`` there is no ranker: the aggregate's own evaluator
ranks in the same step.

The table aggregate is pure, so it cannot call out in the middle of a step. The table service runs
a step with ``KnownValues``; when the step reaches a showdown it raises ``HandValueNeeded``
(nothing has changed), ``values_for_showdown`` asks the ranker for every live hand on that board in
one call, and the step runs again with the values. The pot rules (side pots, eligibility, odd
chips, hi-lo halves) stay in the aggregate, so its events are decided in one place and replay
never needs the service.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Protocol

import grpc
import structlog

from libs.platform.metrics import table as metrics
from libs.poker.config import Variant
from libs.poker.known_values import HandValueNeeded, KnownValues, high_key, omaha_key
from libs.poker.runs import MOST_RUNS
from libs.poker.state import HandState
from libs.table import TableState, step_table
from libs.table.commands import TableCommand
from libs.table.events import Event

log = structlog.get_logger("table")

Holding = tuple[tuple[int, ...], tuple[int, ...]]  # hole cards, board
HandValues = tuple[int, int | None]  # high value, 8-or-better low value (None: no low)


class HandRanker(Protocol):
    async def rank(self, variant: Variant, holdings: Sequence[Holding]) -> list[HandValues]:
        """High (and, in hi-lo, low) values of each holding, in order."""
        ...


class EvaluatorUnavailable(Exception):
    """The evaluator service did not answer."""


class GrpcRanker:
    """holdem.evaluator.v1.EvaluatorService.EvaluateBatch."""

    def __init__(self, channel: Any) -> None:
        from holdem.evaluator.v1 import evaluator_pb2_grpc

        self._stub = evaluator_pb2_grpc.EvaluatorServiceStub(channel)

    async def rank(self, variant: Variant, holdings: Sequence[Holding]) -> list[HandValues]:
        from holdem.evaluator.v1 import evaluator_pb2

        from libs.tableproto.config import variant_to_proto
        from services.table.views import card_to_proto

        request = evaluator_pb2.EvaluateBatchRequest(
            variant=variant_to_proto(variant),
            holdings=[
                evaluator_pb2.Holding(
                    hole_cards=[card_to_proto(c) for c in hole],
                    board=[card_to_proto(c) for c in board],
                )
                for hole, board in holdings
            ],
        )
        try:
            reply = await self._stub.EvaluateBatch(request)
        except grpc.aio.AioRpcError as exc:
            raise EvaluatorUnavailable(f"{exc.code().name}: {exc.details()}") from exc
        if len(reply.values) != len(holdings):
            raise EvaluatorUnavailable(f"{len(reply.values)} values for {len(holdings)} holdings")
        return [
            (v.high.strength, v.low.strength if v.HasField("low") else None) for v in reply.values
        ]


def live_holdings(hand: HandState | None, need: HandValueNeeded) -> list[Holding]:
    """Every hand still in ``hand`` (not folded, cards known) on the board of ``need``, plus the
    one asked for."""
    # hold'em asks with one player's hole cards plus the board, Omaha with the two apart
    asked = (need.cards[:2], need.cards[2:]) if need.cards else (need.hole, need.board)
    if hand is None:
        return [asked]
    holes: list[tuple[int, ...]] = [
        h for h, folded in zip(hand.hole, hand.folded, strict=True) if h and not folded
    ]
    try:
        board = need.board_for(holes)
    except ValueError:
        return [asked]
    holdings: list[Holding] = [(hole, board) for hole in holes]
    if not need.cards and asked not in holdings:
        holdings.append(asked)
    return holdings


async def values_for_showdown(
    ranker: HandRanker,
    variant: Variant,
    hand: HandState | None,
    need: HandValueNeeded,
    known: KnownValues,
) -> None:
    """Ask ``ranker`` once for every live hand of the showdown ``need`` comes from; add the
    answers to ``known``."""
    holdings = live_holdings(hand, need)
    values = await ranker.rank(variant, holdings)
    for (hole, board), (high, low) in zip(holdings, values, strict=True):
        if variant is Variant.HOLDEM:
            known.highs[high_key(hole + board)] = high
        else:
            known.omaha_highs[omaha_key(hole, board)] = high
            known.omaha_lows[omaha_key(hole, board)] = low


class RankedStep:
    """``step_table`` with the hands of a showdown ranked by ``ranker`` (None: the aggregate's own
    evaluator, in the same step). A step that reaches a showdown stops, asks for every live
    hand's value in one call (one per board of a board run more than once), and runs again. If
    the ranker cannot answer, the same evaluator runs in-process (ranking is a pure function;
    the hand goes on), counted in ``fallbacks`` and logged."""

    def __init__(self, ranker: HandRanker | None) -> None:
        self.ranker = ranker
        self.fallbacks = 0

    async def __call__(
        self, state: TableState, command: TableCommand
    ) -> tuple[TableState, list[Event]]:
        if self.ranker is None:
            return step_table(state, command)
        known = KnownValues()
        # one call per board: a board run three times (libs.poker.runs) is three showdowns
        for _ in range(MOST_RUNS + 2):
            try:
                return step_table(state, command, known)
            except HandValueNeeded as need:
                assert state.config is not None
                try:
                    await values_for_showdown(
                        self.ranker, state.config.variant, state.hand, need, known
                    )
                except EvaluatorUnavailable as exc:
                    self.fallbacks += 1
                    metrics.EVALUATOR_FALLBACKS.inc()
                    log.warning("evaluator_unavailable", error=str(exc), fallback="in-process")
                    return step_table(state, command)
        raise RuntimeError("the evaluator's values do not cover the showdown")
