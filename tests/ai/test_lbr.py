"""Local Best Response: the level's policy is exposed per holding, LBR's equities are the
evaluator's, and LBR takes the paper's reference point from always-fold (750 mbb/hand) and
beats a calling station; ``holdem arena --b lbr`` runs it and refuses what it cannot play."""

from __future__ import annotations

import json
from dataclasses import replace

import numpy as np
import pytest

from libs.ai import SeatView
from libs.ai.arena import MatchConfig
from libs.ai.lbr import equities, run_lbr
from libs.ai.policy import Level, decide
from libs.ai.probe import FOLD, HOLDINGS, PASSIVE, kind_index, policy, possible
from libs.cli.main import main
from libs.poker import BettingStructure, Variant, parse_cards
from libs.poker.cards import Card
from tests.ai.spots import BB, Hand

NLHE = (Variant.HOLDEM, BettingStructure.NO_LIMIT)


def _index(cards: str) -> int:
    a, b = sorted((int(c) for c in parse_cards(cards)), reverse=True)
    return int(np.flatnonzero((HOLDINGS[:, 0] == a) & (HOLDINGS[:, 1] == b))[0])


def test_the_policy_answers_for_every_holding_the_board_leaves() -> None:
    hand = Hand(*NLHE, ["QhQc", "AsKd"]).call().check().board("2c7h9d").check()
    view = hand.view()  # the button, facing a check on the flop
    shares = policy(view, Level.NORMAL, seed=3)
    blocked = ~possible(tuple(int(c) for c in view.board))
    assert shares.shape == (1326, 3)
    assert np.all(shares[blocked] == 0) and np.all(shares[~blocked].sum(axis=1) == 1)
    mine = _index("AsKd")
    assert shares[mine, kind_index(decide(view, Level.NORMAL, 3).kind)] == 1
    assert np.all(policy(view, Level.CALL, seed=3)[~blocked, PASSIVE] == 1)


def _hard_spots() -> list[SeatView]:
    heads_up = Hand(*NLHE, ["QhQc", "AsKd"])
    three = Hand(*NLHE, ["QhQc", "AsKd", "7s6s"]).raise_to(3 * BB).call().call()
    return [
        heads_up.call().check().board("2c7h9d").check().view(),  # checked to
        Hand(*NLHE, ["QhQc", "AsKd"]).call().check().board("2c7h9d").check().raise_to(BB).view(),
        Hand(*NLHE, ["QhQc", "AsKd"]).raise_to(3 * BB).view(),  # facing a raise preflop
        Hand(*NLHE, ["QhQc", "AsKd"])
        .call()
        .check()
        .board("2c7h9d")
        .check()
        .check()
        .board("Td")
        .check()
        .check()
        .board("3s")
        .view(),  # the river
        three.board("Kh8d2s").check().view(),  # three-way
    ]


def test_hards_policy_is_what_it_plays_with_each_holding() -> None:
    """One shared reading answers for every holding: the same action, holding by holding, as
    Hard deciding with that holding and that seed (with time enough not to cut sampling)."""
    rng = np.random.default_rng(0)
    for view in _hard_spots():
        shares = policy(view, Level.HARD, seed=5)
        live = np.flatnonzero(shares.sum(axis=1) > 0)
        assert len(live) == int(possible(tuple(int(c) for c in view.board)).sum())
        for i in rng.choice(live, 25, replace=False):
            hole = (Card(int(HOLDINGS[i, 0])), Card(int(HOLDINGS[i, 1])))
            decision = decide(replace(view, hole=hole), Level.HARD, 5, budget=10.0)
            assert shares[i, kind_index(decision.kind)] == 1.0


def test_draws_average_the_policy() -> None:
    view = _hard_spots()[1]
    shares = policy(view, Level.HARD, seed=5, draws=4)
    live = shares.sum(axis=1) > 0
    assert np.allclose(shares[live].sum(axis=1), 1.0)
    assert set(np.unique(shares[live] * 4).tolist()) <= {0.0, 1.0, 2.0, 3.0, 4.0}


def test_the_folder_folds_every_holding_to_a_bet() -> None:
    hand = Hand(*NLHE, ["QhQc", "AsKd"]).call().check().board("2c7h9d").check().raise_to(BB)
    shares = policy(hand.view(), Level.FOLD, seed=1)
    live = shares.sum(axis=1) > 0
    assert np.all(shares[live, FOLD] == 1)


def test_equities_on_the_river_are_the_showdowns() -> None:
    board = tuple(int(c) for c in parse_cards("2c7d9hJsKc"))
    aces = tuple(int(c) for c in parse_cards("AsAh"))
    wp = equities((aces[0], aces[1]), board, seed=1)
    assert wp[_index("KdKh")] == 0.0  # a set of kings
    assert wp[_index("QdQh")] == 1.0
    assert wp[_index("AdAc")] == 0.5
    assert wp[_index("AsKd")] == 0.0  # blocked by my ace of spades: no weight


def test_lbr_takes_the_blinds_from_always_fold() -> None:
    result = run_lbr(Level.FOLD, 6, MatchConfig(seed=2))
    assert result.summary().mean == pytest.approx(750.0)


def test_lbr_beats_a_calling_station() -> None:
    result = run_lbr(Level.CALL, 12, MatchConfig(seed=1))
    assert result.summary().mean > 1000


def test_the_arena_runs_lbr_and_refuses_what_it_cannot_play(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["arena", "--a", "fold", "--b", "lbr", "--hands", "4", "--json", "--quiet"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["lbr_mbb_per_hand"] == pytest.approx(750.0) and out["hands"] == 4
    assert main(["arena", "--a", "grpc://127.0.0.1:1", "--b", "lbr", "--hands", "2"]) == 2
    assert "in-process level" in capsys.readouterr().err
    assert main(["arena", "--a", "easy", "--b", "lbr", "--hands", "2", "--seats", "3"]) == 2
    assert "heads-up" in capsys.readouterr().err
