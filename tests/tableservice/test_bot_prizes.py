"""A tournament table tells its bots what the places pay (``TableConfig.tournament_payouts``,
``tournament_whole_field``): the bot's view then carries the prizes, so Hard decides by prize
equity (how it then plays a bubble: tests/ai/test_shortstack_prizes.py); cash tables and
tables that hold only part of the field do not."""

from __future__ import annotations

import pytest

from libs.ai import Level
from libs.aiproto.reading import read_request
from libs.aiproto.requests import decide_request
from libs.poker import BettingStructure, Variant
from libs.table.config import TableConfig, TableConfigError
from libs.tableproto.config import config_from_proto, config_to_proto
from services.table.bots import with_prizes
from tests.ai.spots import Hand

PAYOUTS = (500_000, 300_000, 200_000)


def test_the_payouts_travel_with_the_tables_config() -> None:
    config = TableConfig(tournament=True, tournament_payouts=PAYOUTS, tournament_whole_field=True)
    assert config_from_proto(config_to_proto(config)) == config


@pytest.mark.parametrize(
    ("settings", "problem"),
    [
        ({"tournament_payouts": PAYOUTS}, "tournament's table only"),
        ({"tournament": True, "tournament_payouts": (20, 30)}, "never rising"),
        ({"tournament": True, "tournament_payouts": (-1,)}, "amounts of 0.."),
        ({"tournament": True, "tournament_payouts": (1,) * 101}, "at most 100"),
    ],
)
def test_bad_payouts_are_refused(settings: dict[str, object], problem: str) -> None:
    with pytest.raises(TableConfigError) as caught:
        TableConfig(**settings)  # type: ignore[arg-type]
    assert problem in str(caught.value)


def test_the_bots_view_carries_the_prizes_only_for_the_whole_field() -> None:
    view = Hand(Variant.HOLDEM, BettingStructure.NO_LIMIT, ["AsKs", "QdQh", "Tc9c"]).view()
    whole = TableConfig(tournament=True, tournament_payouts=PAYOUTS, tournament_whole_field=True)
    part = TableConfig(tournament=True, tournament_payouts=PAYOUTS)
    assert with_prizes(view, TableConfig()).prizes is None
    assert with_prizes(view, part).prizes is None
    prized = with_prizes(view, whole)
    assert prized.prizes is not None and prized.prizes.payouts == PAYOUTS
    request = decide_request(prized, Level.HARD, 1, 100)
    assert tuple(request.prizes.payouts) == PAYOUTS and not request.prizes.other_stacks
    assert read_request(request).view.prizes == prized.prizes
