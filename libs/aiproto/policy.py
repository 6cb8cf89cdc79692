"""A policy request to the ai service checked (``read_policy_request``) and its answer written
(``policy_response``). The decision is read as Decide's (``reading.read_request``), with the
viewer's seat showing no cards; then the holdings: each two cards of text, none shared with the
board, a shown card or another holding, and the game must be hold'em at a sane depth."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import numpy.typing as npt
from holdem.ai.v1 import ai_pb2

from libs.ai.probe import HOLDINGS, possible
from libs.poker.cards import Card, format_cards, parse_cards
from libs.poker.config import Variant
from libs.poker.errors import BAD_CARDS, DUPLICATE_CARD

from .errors import AMOUNT_OUT_OF_RANGE, BAD_HOLE_CARDS, BAD_VARIANT, MISSING_FIELD, InvalidRequest
from .mapping import card_from_proto
from .reading import Request, read_request

#: Deepest stack (in big blinds) a policy is asked at: beyond it a request is a mistake.
MAX_DEPTH_BB = 10_000
#: Most draws per holding.
MAX_DRAWS = 8
_INDEX = {(int(a), int(b)): i for i, (a, b) in enumerate(HOLDINGS.tolist())}


@dataclass(frozen=True)
class PolicyQuery:
    """A checked policy request: the decision and the holdings' indices into ``HOLDINGS``."""

    request: Request
    holdings: npt.NDArray[np.int64]
    draws: int


def _holding(text: str, where: str) -> int:
    try:
        cards = parse_cards(text)
    except ValueError:
        raise InvalidRequest(
            BAD_CARDS, f"{where}: {text!r} is not two cards such as 'AsKd'"
        ) from None
    if len(cards) != 2:
        raise InvalidRequest(
            BAD_HOLE_CARDS, f"{where}: a hold'em holding is two cards, {text!r} has {len(cards)}"
        )
    a, b = sorted((int(c) for c in cards), reverse=True)
    if a == b:
        raise InvalidRequest(DUPLICATE_CARD, f"{where}: {text!r} names {cards[0]} twice")
    return _INDEX[(a, b)]


def read_policy_request(request: ai_pb2.PolicyRequest) -> PolicyQuery:
    """Check a policy request; anything wrong raises ``InvalidRequest`` with the reason."""
    if not request.HasField("decision"):
        raise InvalidRequest(MISSING_FIELD, "decision is required")
    checked = read_request(request.decision, viewer_cards=False)
    view = checked.view
    if view.variant is not Variant.HOLDEM:
        raise InvalidRequest(
            BAD_VARIANT, f"a policy is answered per hold'em holding, not for {view.variant.value}"
        )
    depth = max(s + b for s, b in zip(view.stacks, view.bets, strict=True)) / view.big_blind
    if depth > MAX_DEPTH_BB:
        raise InvalidRequest(
            AMOUNT_OUT_OF_RANGE,
            f"the deepest stack is {depth:,.0f} big blinds: a policy is asked at up to "
            f"{MAX_DEPTH_BB:,}",
        )
    if request.draws > MAX_DRAWS:
        raise InvalidRequest(
            AMOUNT_OUT_OF_RANGE, f"draws must be at most {MAX_DRAWS}, got {request.draws}"
        )
    shown = {
        int(card_from_proto(c, f"seat {s.seat}")): f"seat {s.seat}"
        for s in request.decision.view.seats
        for c in s.hole_cards
    }
    dead = {int(c): "the board" for c in view.board} | shown
    free = possible(tuple(dead))
    if not request.holdings:
        return PolicyQuery(checked, np.flatnonzero(free), request.draws or 1)
    asked: dict[int, int] = {}
    for k, text in enumerate(request.holdings):
        where = f"holdings[{k}]"
        i = _holding(text, where)
        if i in asked:
            raise InvalidRequest(DUPLICATE_CARD, f"{where}: {text!r} is holdings[{asked[i]}] again")
        for c in HOLDINGS[i].tolist():
            if c in dead:
                raise InvalidRequest(
                    DUPLICATE_CARD, f"{where}: {Card(c)} of {text!r} is in {dead[c]}"
                )
        asked[i] = k
    return PolicyQuery(checked, np.array(list(asked), dtype=np.int64), request.draws or 1)


def policy_response(
    holdings: npt.NDArray[np.int64], shares: npt.NDArray[np.float64]
) -> ai_pb2.PolicyResponse:
    """The answer: for each of ``holdings`` (indices into ``HOLDINGS``) its row of ``shares``
    (``[1326, 3]``: fold, check or call, bet or raise)."""
    out = ai_pb2.PolicyResponse()
    for i in holdings.tolist():
        fold, passive, aggressive = shares[i].tolist()
        out.holdings.add(
            holding=format_cards(HOLDINGS[i].tolist()),
            fold=fold,
            check_call=passive,
            bet_raise=aggressive,
        )
    return out
