"""Bomb pots in the hand engine and its histories: every player antes, no blinds, no preflop
betting (the first to act is position 0 on the flop), short stacks all in for less with exact
side pots, and the PHH (``_bomb_pot``, no preflop actions) and PokerStars texts of one."""

from __future__ import annotations

import tomllib

import pytest

from libs.history.histories import hands_of_player
from libs.poker import BettingStructure, HandConfig, Variant, legal_actions, new_hand
from libs.poker.cards import DECK
from libs.poker.commands import Check, DealBoard, DealHoleCards
from libs.poker.engine import step
from libs.poker.phh import loads, replay_text
from libs.poker.pots import build_pots
from libs.poker.state import Phase
from libs.table import TableConfig
from tests.table.seeded_table import BombTable


def bomb(n: int, ante: int, structure: BettingStructure = BettingStructure.NO_LIMIT) -> HandConfig:
    return HandConfig(
        Variant.HOLDEM, structure, (0,) * n, antes=(ante,) * n, min_bet=2, bomb_pot=True
    )


def test_a_bomb_pot_has_antes_and_no_blinds() -> None:
    with pytest.raises(ValueError, match="bomb pot"):
        HandConfig(Variant.HOLDEM, BettingStructure.NO_LIMIT, (1, 2, 0), (5,) * 3, bomb_pot=True)
    with pytest.raises(ValueError, match="bomb pot"):
        HandConfig(Variant.HOLDEM, BettingStructure.NO_LIMIT, (0, 0, 0), bomb_pot=True)


def test_the_hand_waits_for_the_flop_once_the_hole_cards_are_dealt() -> None:
    s = new_hand(bomb(3, 5), (100, 100, 100))
    for p in range(3):
        s, _ = step(s, DealHoleCards(p, (DECK[2 * p], DECK[2 * p + 1])))
    assert s.phase is Phase.DEALING_BOARD and s.street == 0 and s.pot == 15
    assert legal_actions(s) is None  # nobody bets preflop
    s, _ = step(s, DealBoard(tuple(DECK[10:13]), DECK[9]))
    options = legal_actions(s)
    assert options is not None and options.player == 0 and options.can_check
    for p in range(3):
        s, _ = step(s, Check(p))
    assert s.street == 1 and s.phase is Phase.DEALING_BOARD


def test_short_antes_cap_the_main_pot() -> None:
    s = new_hand(bomb(3, 10), (100, 3, 100))
    assert s.stacks == [90, 0, 90]
    pots = build_pots(s.committed, s.antes, [True] * 3, False, s.dead)
    assert [(p.amount, p.eligible) for p in pots] == [(9, (0, 1, 2)), (14, (0, 2))]


def _bomb_history() -> tuple[str, str]:
    t = BombTable(TableConfig(seats=6, bomb_pot_ante=5, bomb_pot_every=1), 3)
    t.start()
    t.check_down()
    [history] = hands_of_player([(1, 1.0, t.events)], "p0")
    return history.phh, history.pokerstars


def test_the_phh_of_a_bomb_pot_has_antes_no_blinds_no_preflop_actions_and_replays() -> None:
    phh, _ = _bomb_history()
    doc = tomllib.loads(phh)
    assert doc["_bomb_pot"] is True
    assert doc["antes"] == [5, 5, 5] and doc["blinds_or_straddles"] == [0, 0, 0]
    actions = doc["actions"]
    first_board = next(i for i, a in enumerate(actions) if a.startswith("d db"))
    assert all(a.startswith("d dh") for a in actions[:first_board])  # no preflop action
    assert loads(phh).config.bomb_pot
    assert replay_text(phh).status == "matched"


def test_the_pokerstars_text_of_a_bomb_pot_names_it_and_its_antes() -> None:
    _, text = _bomb_history()
    first = text.splitlines()[0]
    assert "(bomb pot, ante 5)" in first
    assert text.count("posts the ante 5") == 3
    assert "blind" not in text
    hole, flop = text.index("*** HOLE CARDS ***"), text.index("*** FLOP ***")
    between = text[hole:flop].splitlines()[1:]
    assert all(line.startswith("Dealt to") for line in between)
