"""Hand histories of a player's own hands: PHH that `holdem replay` replays, PokerStars text that
PokerKit parses, and no card the player never saw."""

from __future__ import annotations

import pytest
from pokerkit.notation import HandHistory as PokerKitHistory

from libs.history import MAX_HISTORY_COMMITS, StoredCommit, hands_of_player, history_page
from libs.history.phh import phh_actions
from libs.poker.cards import format_cards
from libs.poker.events import HandShown, HoleCardsDealt
from libs.poker.phh import replay_text
from libs.table.events import HandBegan, PlayerSeated
from tests.history.tables import PLAYERS, play

# PokerKit's parser warns about the time zone field of every PokerStars header; not our concern.
pytestmark = pytest.mark.filterwarnings("ignore:The field 'time_zone_abbreviation'")


def test_every_hand_replays_as_phh_and_parses_as_pokerstars_text() -> None:
    commits = play(12, seed=5)
    for player in PLAYERS:
        hands = hands_of_player(commits, player)
        assert len(hands) == 12
        for hand in hands:
            outcome = replay_text(hand.phh)
            assert outcome.status == "matched", (outcome.status, outcome.reason, hand.phh)
            parsed = list(PokerKitHistory.from_pokerstars(hand.pokerstars, error_status=True))
            assert len(parsed) == 1, hand.pokerstars
            assert list(parsed[0].players or ()) == list(hand.hand.players)
            assert _betting(parsed[0].actions) == _betting(phh_actions(hand.hand))


def _betting(actions: list[str]) -> list[str]:
    return [a for a in actions if a.split()[1] in ("f", "cc", "cbr")]


def test_no_card_the_player_never_saw() -> None:
    commits = play(12, seed=9)
    dealt: dict[str, dict[str, str]] = {}  # hand -> player -> their cards
    shown: dict[str, set[str]] = {}
    current = ""
    seat_players: dict[int, str] = {}
    positions: tuple[str, ...] = ()
    for _, _, events in commits:
        for event in events:
            if isinstance(event, HandBegan):
                current = event.hand_id
                positions = tuple(seat_players.get(s, "") for s in event.seats)
            elif isinstance(event, PlayerSeated):
                seat_players[event.seat] = event.player_id
            elif isinstance(event, HoleCardsDealt):
                dealt.setdefault(current, {})[positions[event.player]] = format_cards(event.cards)
            elif isinstance(event, HandShown):
                shown.setdefault(current, set()).add(positions[event.player])
    for viewer in PLAYERS:
        for hand in hands_of_player(commits, viewer):
            for owner, cards in dealt[hand.hand_id].items():
                pairs = [cards[i : i + 2] for i in range(0, len(cards), 2)]
                seen = owner == viewer or owner in shown.get(hand.hand_id, set())
                for text in (hand.phh, hand.pokerstars):
                    spaced = " ".join(pairs)
                    if not seen:
                        assert cards not in text and spaced not in text, (viewer, owner, text)


def test_a_page_is_the_newest_hands_first_and_the_next_page_follows_its_last() -> None:
    commits = play(12, seed=11)
    every = [h.hand_number for h in hands_of_player(commits, "bob")][::-1]
    assert every == list(range(12, 0, -1))
    first = history_page(commits, "bob")  # 10 by default
    assert [h.hand_number for h in first.hands] == every[:10] and first.more
    seen: list[int] = []
    before = 0
    while True:
        page = history_page(commits, "bob", limit=5, before=before)
        seen += [h.hand_number for h in page.hands]
        if not page.more:
            break
        before = page.hands[-1].hand_number
    assert seen == every
    assert len(history_page(commits, "bob", limit=1000).hands) == 12  # at most MAX_HANDS (100)
    one = history_page(commits, "bob", hand_id=first.hands[3].hand_id)
    assert [h.hand_number for h in one.hands] == [every[3]] and not one.more
    assert history_page(commits, "bob", hand_id="nosuchhand").hands == ()
    assert history_page(commits, "nobody").hands == ()


def test_only_the_latest_commits_are_read() -> None:
    commits = play(3, seed=2)
    # commits with no event (never stored, but they count against the bound like any)
    padding: list[StoredCommit] = [(0, 0.0, [])] * MAX_HISTORY_COMMITS
    assert len(history_page(commits, "alice").hands) == 3
    assert history_page([*commits, *padding], "alice").hands == ()
