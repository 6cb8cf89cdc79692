"""A viewer's statistics book (libs.stats.book) and a player's notes (libs.lobby.notes): the
event-sourced records the lobby keeps, decided and evolved without I/O."""

from __future__ import annotations

import pytest

from libs.errors import InvalidArgument, PreconditionFailed
from libs.lobby import notes
from libs.stats import Counts, HandCount, count_hand
from libs.stats import book as B


def _hand(number: int, variant: str = "holdem", table: str = "t1") -> HandCount:
    return HandCount(
        table,
        number,
        variant,
        {"me": Counts(hands=1, preflop_chances=1, vpip=1), "them": Counts(hands=1)},
    )


def _count(book: B.StatsBook, hand: HandCount) -> B.StatsBook:
    for event in count_hand(book, hand, 1.0):
        book = B.evolve(book, event)
    return book


def test_a_hand_is_counted_once_per_table() -> None:
    book = _count(_count(B.initial("me"), _hand(1)), _hand(2))
    assert count_hand(book, _hand(2), 2.0) == [] and count_hand(book, _hand(1), 2.0) == []
    assert book.of("me") == Counts(hands=2, preflop_chances=2, vpip=2)
    book = _count(book, _hand(1, table="t2"))  # another table's hand 1 is another hand
    assert book.of("them").hands == 3 and book.hands == 3


def test_a_book_reads_one_variant_or_all() -> None:
    book = _count(_count(B.initial("me"), _hand(1)), _hand(2, "omaha"))
    assert book.of("them", "omaha").hands == 1 and book.of("them").hands == 2
    assert book.of("nobody") == Counts() and book.players() == {"me", "them"}


def test_a_book_survives_its_snapshot_and_its_commits() -> None:
    book = _count(B.initial("me"), _hand(1))
    assert B.decode_book(B.encode_book(book)) == book
    events = count_hand(book, _hand(2), 3.0)
    assert B.decode(B.encode(events)) == events


def test_a_note_is_written_replaced_and_deleted() -> None:
    state = notes.initial("me")
    for text in ("calls too much", "  bluffs rivers "):
        for event in notes.write_note(state, "them", text, 1.0):
            state = notes.evolve(state, event)
    assert state.notes["them"].text == "bluffs rivers"
    assert notes.write_note(state, "them", "bluffs rivers", 2.0) == []  # says so already
    assert notes.decode_notes(notes.encode_notes(state)) == state
    for event in notes.delete_note(state, "them", 3.0):
        state = notes.evolve(state, event)
    assert state.notes == {} and notes.delete_note(state, "them", 4.0) == []


@pytest.mark.parametrize(
    ("about", "text", "code"),
    [
        ("them", "", notes.NOTE_EMPTY),
        ("them", "   ", notes.NOTE_EMPTY),
        ("them", "two\nlines", notes.NOTE_BAD_CHARACTERS),
        ("them", "x" * (notes.MAX_NOTE_CHARS + 1), notes.NOTE_TOO_LONG),
        ("them", "bell\x07", notes.NOTE_BAD_CHARACTERS),
        ("me", "myself", notes.NOTE_ABOUT_SELF),
    ],
)
def test_a_bad_note_is_refused(about: str, text: str, code: str) -> None:
    with pytest.raises(InvalidArgument) as refused:
        notes.write_note(notes.initial("me"), about, text, 1.0)
    assert refused.value.code == code


def test_an_author_keeps_a_bounded_number_of_notes() -> None:
    state = notes.Notes("me", {f"p{i}": notes.Note("x", 0.0) for i in range(notes.MAX_NOTES)})
    with pytest.raises(PreconditionFailed):
        notes.write_note(state, "another", "hi", 1.0)
    assert notes.write_note(state, "p1", "changed", 1.0)  # an existing note may change
