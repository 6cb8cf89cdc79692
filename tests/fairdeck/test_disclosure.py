"""Which decks are public: the commitment of every finished hand at once, its seed ``delay``
seconds after the hand ended; unfinished hands are not listed; newest first, paged."""

from __future__ import annotations

from libs.fairdeck.disclosure import disclosed_decks
from libs.poker.events import HandEnded, HandVoided
from libs.table.events import Event, HandBegan, SeedRevealed


def _hand(number: int, *, voided: bool = False) -> list[Event]:
    end: Event = HandVoided("no deck", (100, 100)) if voided else HandEnded((100, 100))
    return [
        HandBegan(number, f"h{number}", 0, (0, 1), f"c{number}", float(number)),
        end,
        SeedRevealed(f"h{number}", "" if voided else f"s{number}"),
    ]


def _stream() -> list[tuple[float, list[Event]]]:
    commits = [(100.0 * n, _hand(n, voided=n == 2)) for n in (1, 2, 3)]
    commits.append((400.0, [HandBegan(4, "h4", 0, (0, 1), "c4", 400.0)]))  # in play
    return commits


def test_seeds_are_public_only_after_the_delay_and_hands_in_play_are_not_listed() -> None:
    early, more = disclosed_decks(_stream(), now=350.0, delay=100.0)
    assert [(d.hand_id, d.seed) for d in early] == [("h3", ""), ("h2", ""), ("h1", "s1")]
    assert not more and [d.commitment for d in early] == ["c3", "c2", "c1"]
    assert [d.disclosed_at for d in early] == [400.0, 300.0, 200.0]
    later, _ = disclosed_decks(_stream(), now=400.0, delay=100.0)
    assert [d.seed for d in later] == ["s3", "", "s1"]  # the voided hand's deck was lost
    assert [d.voided for d in later] == [False, True, False]


def test_decks_are_paged_newest_first_and_one_hand_can_be_asked_for() -> None:
    page, more = disclosed_decks(_stream(), now=1e9, delay=0, limit=2)
    assert [d.hand_number for d in page] == [3, 2] and more
    page, more = disclosed_decks(_stream(), now=1e9, delay=0, limit=2, before=2)
    assert [d.hand_number for d in page] == [1] and not more
    only, _ = disclosed_decks(_stream(), now=1e9, delay=0, hand_id="h3")
    assert [d.seed for d in only] == ["s3"]
    assert disclosed_decks(_stream(), now=1e9, delay=0, hand_id="h4") == ([], False)
