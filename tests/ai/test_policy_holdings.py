"""Easy's and Normal's policies over all holdings at once (``easy.easy_policy``,
``normal.normal_policy``, which ``probe.policy`` asks) are, holding by holding, exactly the
decisions the level makes with that holding and that seed: checked on random heads-up and
three-handed hold'em views before and after the flop, facing no bet, small and large bets,
raises and all-ins, at stacks from short (the push-or-fold and raise charts) to deep."""

from __future__ import annotations

import random
from collections.abc import Callable, Iterator
from dataclasses import replace

import numpy as np
import numpy.typing as npt
import pytest

from libs.ai import SeatView, seat_view
from libs.ai.arena import _Hand, command
from libs.ai.decision import Decision, legal
from libs.ai.easy import easy, easy_policy
from libs.ai.normal import _equity, heads_up_equities, normal, normal_policy
from libs.ai.policy import Level
from libs.ai.probe import HOLDINGS, kind_index, policy, possible
from libs.poker import BettingStructure, Variant
from libs.poker.cards import Card
from libs.poker.commands import DealBoard, DealHands, Show
from libs.poker.engine import start_hand
from libs.poker.events import ActionKind
from libs.poker.evolve import replay
from libs.poker.legal import showdown_turn
from libs.poker.state import Phase
from tests.ai.spots import BB, config

Policy = Callable[[SeatView, int, npt.NDArray[np.int64]], list[Decision]]
Single = Callable[[SeatView, int], Decision]


def _random_action(view: SeatView, rng: random.Random) -> Decision:
    """Fold now and then, mostly check or call, often bet or raise a small, pot-sized or
    all-in amount: views facing every kind of bet."""
    o = view.options
    roll = rng.random()
    if roll < 0.1:
        return legal(view, ActionKind.FOLD)
    if roll < 0.55 or not o.can_raise:
        return legal(view, ActionKind.CALL if o.can_call else ActionKind.CHECK)
    to = rng.choice([o.min_to, view.pot // 2 + view.to_call, view.pot + view.to_call, o.max_to])
    return legal(view, ActionKind.RAISE, to)


def random_views(seed: int, hands: int) -> Iterator[SeatView]:
    """Every decision of ``hands`` random hold'em no-limit hands (two or three players, 6 to
    120 big blinds)."""
    rng = random.Random(seed)
    for _ in range(hands):
        players = rng.choice([2, 2, 3])
        stacks = [rng.choice([6, 10, 14, 20, 40, 120]) * BB for _ in range(players)]
        opening = start_hand(config(Variant.HOLDEM, BettingStructure.NO_LIMIT, players), stacks)
        hand = _Hand(replay(opening), [])
        hand.record(opening)
        cards = [Card(c) for c in rng.sample(range(52), 2 * players + 8)]
        hand.apply(DealHands(tuple(tuple(cards[2 * i : 2 * i + 2]) for i in range(players))))
        rest = cards[2 * players :]
        streets = ((tuple(rest[1:4]), rest[0]), ((rest[5],), rest[4]), ((rest[7],), rest[6]))
        while not hand.state.is_complete:
            s = hand.state
            if s.phase is Phase.BETTING and s.actor is not None:
                view = seat_view(s, s.actor, hand.actions)
                yield view
                hand.apply(command(s.actor, _random_action(view, rng)))
            elif s.phase is Phase.DEALING_BOARD:
                board, burn = streets[s.street]
                hand.apply(DealBoard(tuple(board), burn))
            else:
                turn = showdown_turn(s)
                assert s.phase is Phase.SHOWDOWN and turn is not None
                hand.apply(Show(turn.player))


def _check_holding_by_holding(
    shared: Policy, single: Single, views: list[SeatView], per_view: int
) -> None:
    rng = np.random.default_rng(7)
    for n, view in enumerate(views):
        seed = int(rng.integers(1, 2**63))
        rows = np.flatnonzero(possible(tuple(int(c) for c in view.board)))
        answers = shared(view, seed, HOLDINGS[rows])
        assert len(answers) == len(rows)
        for k in rng.choice(len(rows), min(per_view, len(rows)), replace=False):
            a, b = HOLDINGS[rows[k]]
            mine = replace(view, hole=(Card(int(a)), Card(int(b))))
            assert answers[k] == single(mine, seed), (n, view.street, a, b)


@pytest.fixture(scope="module")
def views() -> list[SeatView]:
    found = list(random_views(seed=11, hands=40))
    assert {v.street for v in found} == {0, 1, 2, 3}
    assert any(v.to_call == 0 for v in found) and any(v.to_call > 0 for v in found)
    return found


def test_easys_policy_is_easy_holding_by_holding(views: list[SeatView]) -> None:
    _check_holding_by_holding(easy_policy, easy, views, per_view=40)


def test_normals_policy_is_normal_holding_by_holding(views: list[SeatView]) -> None:
    _check_holding_by_holding(normal_policy, normal, views, per_view=15)


def test_normals_heads_up_equities_are_its_own_to_the_last_bit(views: list[SeatView]) -> None:
    """The batch's equities, not only the decisions they lead to, equal each holding's own
    Monte Carlo bit for bit, on the flop, the turn and the river."""
    heads_up = [v for v in views if v.street > 0 and len(v.opponents) == 1]
    assert {v.street for v in heads_up} == {1, 2, 3}
    rng = np.random.default_rng(3)
    for view in heads_up[::3]:
        seed = int(rng.integers(1, 2**63))
        rows = np.flatnonzero(possible(tuple(int(c) for c in view.board)))
        equities = heads_up_equities(view, seed, HOLDINGS[rows])
        for k in rng.choice(len(rows), 10, replace=False):
            a, b = HOLDINGS[rows[k]]
            mine = replace(view, hole=(Card(int(a)), Card(int(b))))
            assert equities[k] == _equity(mine, seed)


@pytest.mark.parametrize("level", [Level.EASY, Level.NORMAL])
def test_the_probe_asks_the_shared_policy(views: list[SeatView], level: Level) -> None:
    single = easy if level is Level.EASY else normal
    view = next(v for v in views if v.street == 2 and v.to_call > 0)
    shares = policy(view, level, seed=9)
    rows = np.flatnonzero(possible(tuple(int(c) for c in view.board)))
    for i in rows[::97]:
        mine = replace(view, hole=(Card(int(HOLDINGS[i, 0])), Card(int(HOLDINGS[i, 1]))))
        assert shares[i, kind_index(single(mine, 9).kind)] == 1.0


def test_the_shared_policies_refuse_omaha(views: list[SeatView]) -> None:
    omaha = replace(views[0], variant=Variant.OMAHA)
    for shared in (easy_policy, normal_policy):
        with pytest.raises(ValueError, match="hold'em"):
            shared(omaha, 1, HOLDINGS[:3])
