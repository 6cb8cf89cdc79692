"""Evaluator gRPC servicer (holdem.evaluator.v1.EvaluatorService): proto <-> app types.

CPU-bound work runs in a worker thread (numpy releases the GIL for most of it) so the event loop
keeps answering health checks during a long equity estimate; a cancelled call (the caller gave
up, or the server is stopping) stops its estimate too. What one call may cost is capped
(``app.Limits``: batch size, equity samples and time, the latter also cut to the call's deadline)
and each caller has at most HOLDEM_EVALUATOR_MAX_CALLS_PER_CALLER calls in flight (the platform's
per-caller limiter answers the next RESOURCE_EXHAUSTED with a retry hint).
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Iterable

from holdem.common.v1 import common_pb2
from holdem.evaluator.v1 import evaluator_pb2, evaluator_pb2_grpc

from libs.errors import InvalidArgument
from libs.platform.callers import EVALUATOR_CALLERS
from libs.platform.server import Context, Endpoint, Mount
from libs.poker.config import Variant
from libs.poker.errors import BAD_CARDS
from services.evaluator import app
from services.evaluator.config import DEFAULT_LIMITS, EvaluatorConfig, Limits

SERVICE_NAME = evaluator_pb2.DESCRIPTOR.services_by_name["EvaluatorService"].full_name

_VARIANTS = {
    common_pb2.VARIANT_HOLDEM: Variant.HOLDEM,
    common_pb2.VARIANT_OMAHA: Variant.OMAHA,
    common_pb2.VARIANT_OMAHA_HI_LO: Variant.OMAHA_HI_LO,
}
_SHARES = {
    "whole": common_pb2.POT_SHARE_WHOLE,
    "high": common_pb2.POT_SHARE_HIGH,
    "low": common_pb2.POT_SHARE_LOW,
}


def variant_from_proto(variant: common_pb2.Variant.ValueType) -> Variant:
    try:
        return _VARIANTS[variant]
    except KeyError:
        raise InvalidArgument(app.INVALID_VARIANT, "variant is required") from None


def card_from_proto(card: common_pb2.Card) -> int:
    rank, suit = int(card.rank), int(card.suit)
    if not (2 <= rank <= 14 and 1 <= suit <= 4):
        raise InvalidArgument(BAD_CARDS, f"not a card: rank {rank}, suit {suit}")
    return (rank - 2) * 4 + suit - 1


def cards_from_proto(cards: Iterable[common_pb2.Card]) -> list[int]:
    return [card_from_proto(c) for c in cards]


def card_to_proto(card: int) -> common_pb2.Card:
    return common_pb2.Card(
        rank=common_pb2.Rank.ValueType((card >> 2) + 2),
        suit=common_pb2.Suit.ValueType((card & 3) + 1),
    )


def hand_value_to_proto(result: app.HandResult) -> evaluator_pb2.HandValue:
    high = result.high
    value = evaluator_pb2.HandValue(
        high=evaluator_pb2.HighHand(
            category=evaluator_pb2.HandCategory.ValueType((high.value >> 20) + 1),
            strength=high.value,
            best_five=[card_to_proto(c) for c in high.best_five],
            description=high.description,
        )
    )
    if result.low is not None:
        value.low.CopyFrom(
            evaluator_pb2.LowHand(
                strength=result.low.value,
                best_five=[card_to_proto(c) for c in result.low.best_five],
                description=result.low.description,
            )
        )
    return value


#: Time kept back from a call's deadline for answering it.
_DEADLINE_MARGIN_SECONDS = 0.05


def _time_budget_ms(requested: int, context: Context) -> int:
    """The budget asked for, cut to what is left of the call's deadline (the caller stops waiting
    then: computing on would only burn CPU). 0 = the service default."""
    remaining = context.time_remaining()
    if remaining is None:
        return requested
    left_ms = max(1, int((remaining - _DEADLINE_MARGIN_SECONDS) * 1000))
    return min(requested, left_ms) if requested else left_ms


class EvaluatorServiceServicer(evaluator_pb2_grpc.EvaluatorServiceServicer):
    def __init__(self, limits: Limits = DEFAULT_LIMITS) -> None:
        self.limits = limits

    async def EvaluateBatch(
        self, request: evaluator_pb2.EvaluateBatchRequest, context: Context
    ) -> evaluator_pb2.EvaluateBatchResponse:
        variant = variant_from_proto(request.variant)
        app.check_batch(self.limits, len(request.holdings))
        holdings = [
            (cards_from_proto(h.hole_cards), cards_from_proto(h.board)) for h in request.holdings
        ]

        def run() -> list[app.HandResult]:
            return [app.evaluate(variant, hole, board) for hole, board in holdings]

        results = await asyncio.to_thread(run)
        return evaluator_pb2.EvaluateBatchResponse(values=[hand_value_to_proto(r) for r in results])

    async def ResolveShowdown(
        self, request: evaluator_pb2.ResolveShowdownRequest, context: Context
    ) -> evaluator_pb2.ResolveShowdownResponse:
        variant = variant_from_proto(request.variant)
        hands = [(c.seat, cards_from_proto(c.hole_cards)) for c in request.contenders]
        pots = [app.PotToSplit(p.amount, tuple(p.eligible_seats)) for p in request.pots]
        awards, results = app.resolve_showdown(
            variant,
            cards_from_proto(request.board),
            hands,
            pots,
            list(request.odd_chip_order),
        )
        return evaluator_pb2.ResolveShowdownResponse(
            awards=[
                evaluator_pb2.Award(
                    pot_index=a.pot_index,
                    seat=a.seat,
                    amount=a.amount,
                    share=_SHARES[a.share],
                    description=a.description,
                )
                for a in awards
            ],
            # In the order of the request's contenders.
            values=[hand_value_to_proto(results[c.seat]) for c in request.contenders],
        )

    async def Equity(
        self, request: evaluator_pb2.EquityRequest, context: Context
    ) -> evaluator_pb2.EquityResponse:
        variant = variant_from_proto(request.variant)
        players = [cards_from_proto(p.hole_cards) for p in request.players]
        abandoned = threading.Event()  # the call was cancelled: the worker thread stops too
        work = asyncio.to_thread(
            app.estimate_equity,
            variant,
            players,
            cards_from_proto(request.board),
            cards_from_proto(request.dead_cards),
            request.max_samples,
            _time_budget_ms(request.time_budget_ms, context),
            request.seed,
            request.target_std_error,
            self.limits,
            abandoned.is_set,
        )
        try:
            result = await work
        except asyncio.CancelledError:
            abandoned.set()
            raise
        return evaluator_pb2.EquityResponse(
            players=[
                evaluator_pb2.PlayerEquity(
                    equity=p.equity, win=p.win, tie=p.tie, std_error=p.std_error
                )
                for p in result.players
            ],
            samples=result.samples,
            exact=result.exact,
        )


async def build(config: EvaluatorConfig) -> Mount:
    await asyncio.to_thread(app.warm_up)
    servicer = EvaluatorServiceServicer(config.limits)
    return Mount(
        policy=EVALUATOR_CALLERS,
        endpoints=[
            Endpoint(
                SERVICE_NAME,
                lambda s: evaluator_pb2_grpc.add_EvaluatorServiceServicer_to_server(servicer, s),
            )
        ],
        max_calls_per_caller=config.max_calls_per_caller,
    )
