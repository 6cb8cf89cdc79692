"""What one hand adds to each player's statistics (libs.stats.hand), hands played to a script
through the table aggregate and cut as a viewer saw them (libs.history)."""

from __future__ import annotations

from libs.history import PlayedHand
from libs.poker.config import BettingStructure, HandConfig, Variant
from libs.poker.events import (
    ActionKind,
    ActionTaken,
    BlindPosted,
    HandEnded,
    HandStarted,
    HandVoided,
    PotAwarded,
    StreetDealt,
)
from libs.stats import Counts, hand_count, ratios
from libs.stats.hand import HandCount

from .script import hands_seen, play_script


def roles(hand: PlayedHand) -> tuple[str, str, str]:
    """(small blind, big blind, button) of a three-handed hand."""
    sb, bb, button = hand.players
    return sb, bb, button


def counted(
    script: str, viewer: str | None = "alice", muck: frozenset[str] = frozenset()
) -> tuple[HandCount, tuple[str, str, str]]:
    hand = hands_seen(play_script([script], muck=muck), viewer)[0]
    count = hand_count(hand)
    assert count is not None
    return count, roles(hand)


def test_a_walk_gives_the_big_blind_no_preflop_chance() -> None:
    count, (sb, bb, button) = counted("f f")
    assert count.players[bb] == Counts(hands=1)
    assert count.players[sb] == Counts(hands=1, preflop_chances=1)
    assert count.players[button] == Counts(hands=1, preflop_chances=1)


def test_the_big_blind_checking_its_option_is_not_vpip_but_limps_are() -> None:
    count, (sb, bb, button) = counted("c c x  x x x  x x x  x x x")
    assert count.players[button].vpip == 1 and count.players[button].pfr == 0
    assert count.players[sb].vpip == 1  # completing the small blind is a call
    assert count.players[bb].preflop_chances == 1 and count.players[bb].vpip == 0
    for player in (sb, bb, button):
        c = count.players[player]
        assert (c.saw_flop, c.showdowns, c.checks) == (1, 1, 3)
        assert c.three_bet_chances == 0
    assert sum(c.showdowns_won for c in count.players.values()) >= 1


def test_a_three_bet_is_a_reraise_of_the_first_raise() -> None:
    count, (sb, bb, button) = counted("r6 r18 f f")
    assert count.players[button] == Counts(hands=1, preflop_chances=1, vpip=1, pfr=1)
    assert count.players[sb] == Counts(
        hands=1, preflop_chances=1, vpip=1, pfr=1, three_bet_chances=1, three_bets=1
    )
    # facing a 3-bet is a 4-bet chance, not a 3-bet one
    assert count.players[bb] == Counts(hands=1, preflop_chances=1)


def test_calling_or_folding_to_a_raise_is_a_missed_three_bet_chance() -> None:
    count, (sb, bb, button) = counted("r6 c f  x x  x x  x x")
    assert count.players[sb].three_bet_chances == 1 and count.players[sb].three_bets == 0
    assert count.players[bb].three_bet_chances == 1 and count.players[bb].vpip == 0
    assert count.players[bb].saw_flop == 0
    assert count.players[button].three_bet_chances == 0  # their own raise
    assert count.players[sb].showdowns == count.players[button].showdowns == 1


def test_all_in_preflop_sees_the_flop_and_the_showdown() -> None:
    count, (sb, bb, button) = counted("a c f")
    for player in (sb, button):
        c = count.players[player]
        assert (c.vpip, c.saw_flop, c.showdowns) == (1, 1, 1)
        assert (c.bets, c.raises, c.calls, c.checks, c.folds) == (0, 0, 0, 0, 0)
    assert count.players[button].pfr == 1 and count.players[sb].pfr == 0
    assert count.players[sb].showdowns_won + count.players[button].showdowns_won >= 1
    assert count.players[bb].saw_flop == 0


def test_postflop_bets_raises_calls_and_folds_are_counted_per_street() -> None:
    # flop: sb bets 4, bb raises to 12, button folds, sb calls; turn: sb checks, bb bets, sb folds
    count, (sb, bb, button) = counted("c c x  r4 r12 f c  x r20 f")
    assert (count.players[sb].bets, count.players[sb].calls, count.players[sb].checks) == (1, 1, 1)
    assert count.players[sb].folds == 1
    assert (count.players[bb].raises, count.players[bb].bets) == (1, 1)
    assert count.players[button].folds == 1
    assert all(c.showdowns == 0 for c in count.players.values())  # nobody was left to show
    assert ratios(count.players[bb]).aggression_factor is None  # no call to divide by
    assert ratios(count.players[sb]).aggression_factor == 1.0
    assert ratios(count.players[sb]).aggression_frequency == 1 / 3


def test_a_mucked_hand_still_went_to_showdown_and_lost() -> None:
    count, _ = counted("c c x  x x x  x x x  x x x", muck=frozenset({"alice", "bob", "carol"}))
    # the first to show cannot muck: the others may, and a muck is a showdown lost
    assert all(c.showdowns == 1 for c in count.players.values())
    assert sum(c.showdowns_won for c in count.players.values()) >= 1


def test_every_viewer_counts_the_same_hand_the_same_way() -> None:
    """The viewer who folded first still saw every later action; nobody's counts depend on
    whose hole cards the projection kept (a spectator's has none)."""
    commits = play_script(["r6 c c  r10 c f  x x  x x"], muck=frozenset({"bob"}))
    seen = [hand_count(hands_seen(commits, v)[0]) for v in ("alice", "bob", "carol", None)]
    assert all(s == seen[0] for s in seen)


def _hilo_hand(awards: list[PotAwarded]) -> PlayedHand:
    config = HandConfig(
        variant=Variant.OMAHA_HI_LO,
        structure=BettingStructure.POT_LIMIT,
        blinds=(1, 2, 0),
        min_bet=2,
    )
    events = [
        HandStarted(config, (100, 100, 100)),
        BlindPosted(0, 1, 1),
        BlindPosted(1, 2, 2),
        ActionTaken(2, ActionKind.CALL, 2, 2, False),
        ActionTaken(0, ActionKind.CALL, 1, 2, False),
        ActionTaken(1, ActionKind.CHECK, 0, 2, False),
        StreetDealt(1, ()),
        *[ActionTaken(p, ActionKind.CHECK, 0, 0, False) for p in (0, 1, 2)],
        *awards,
        HandEnded((100, 100, 100)),
    ]
    hand = PlayedHand("t", "t", "h", 1, 2, (0, 1, 2), ("a", "b", "c"), 6, None, 0.0)
    hand.events = events  # type: ignore[assignment]
    hand.complete = True
    return hand


def test_a_low_half_is_won_at_showdown_too() -> None:
    count = hand_count(
        _hilo_hand(
            [
                PotAwarded(0, 3, "high", ((0, 3),), (0, 1, 2)),
                PotAwarded(0, 3, "low", ((1, 3),), (0, 1, 2)),
            ]
        )
    )
    assert count is not None and count.variant == "omaha_hi_lo"
    assert [count.players[p].showdowns_won for p in "abc"] == [1, 1, 0]
    assert [count.players[p].showdowns for p in "abc"] == [1, 1, 1]


def test_a_voided_hand_counts_for_nobody() -> None:
    hand = _hilo_hand([])
    hand.events[-1] = HandVoided("fault", (100, 100, 100))
    hand.voided = True
    assert hand_count(hand) is None


def test_ratios_say_none_until_there_is_a_chance() -> None:
    r = ratios(Counts())
    assert (r.vpip, r.pfr, r.three_bet, r.wtsd, r.wsd, r.aggression_factor) == (None,) * 6
    r = ratios(Counts(hands=4, preflop_chances=4, vpip=2, pfr=1, saw_flop=2, showdowns=1))
    assert (r.vpip, r.pfr, r.wtsd, r.wsd) == (0.5, 0.25, 0.5, 0.0)
