"""services.table.viewcache: a kept view is exactly the view built afresh, for every viewer and
after every command of a hand (never another viewer's, never an older state's); a view asked
again of the same state is the one built; the tables kept are bounded."""

from __future__ import annotations

import pytest

from libs.table import TableConfig, TableState
from libs.tableproto.config import config_to_proto
from services.table.viewcache import ViewCache
from services.table.views import _config, player_view
from tests.tableservice.test_view_privacy import SHAPES, Hand, player

VIEWERS = (None, "stranger", *(player(seat) for seat in range(4)))


@pytest.mark.parametrize("shape", SHAPES[:4], ids=lambda s: s.name)
def test_every_kept_view_is_the_view_built_afresh(shape: object) -> None:
    cache = ViewCache()
    hand = Hand(shape)  # type: ignore[arg-type]
    for sequence, state in enumerate(hand.states(), start=1):
        # viewers in both orders: whoever asks first, each gets their own view
        for viewer in (*VIEWERS, *reversed(VIEWERS)):
            kept = cache.view("t", state, sequence, viewer)
            assert kept == player_view("t", state, sequence, viewer)


def test_the_same_state_is_viewed_once_and_a_new_one_afresh() -> None:
    cache = ViewCache()
    states = Hand(SHAPES[0]).states()
    first = next(states)
    view = cache.view("t", first, 1, player(0))
    assert cache.view("t", first, 1, player(0)) is view
    assert cache.view("t", first, 2, player(0)) is not view  # another sequence
    second = next(states)
    assert cache.view("t", second, 2, player(0)) == player_view("t", second, 2, player(0))
    assert cache.view("t", first, 1, player(0)) is not view  # the older state: built again


def test_the_tables_kept_are_bounded() -> None:
    cache = ViewCache(max_tables=3)
    state = TableState()
    for number in range(10):
        cache.view(f"t{number}", state, 0, None)
        assert len(cache.tables) <= 3
    assert set(cache.tables) == {"t7", "t8", "t9"}
    cache.view("t7", state, 0, None)  # viewed again: the most recent
    cache.view("t10", state, 0, None)
    assert set(cache.tables) == {"t7", "t9", "t10"}
    cache.forget("t7")
    assert set(cache.tables) == {"t9", "t10"}


def test_a_config_is_put_on_the_wire_once() -> None:
    kept = TableConfig(seats=6, tournament=True, big_blind_ante=True)
    assert _config(kept) is _config(TableConfig(seats=6, tournament=True, big_blind_ante=True))
    assert _config(kept) == config_to_proto(kept)
