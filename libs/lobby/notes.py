"""A player's private notes about other players (stream ``holdem.lobby.notes.<author>``): one
note per player written about, visible only to its author. Writing replaces the note, deleting
removes it; each change is a commit appended with the expected sequence and the client's
idempotency key (libs.eventstore.aggregates), so a retried write lands once.

A note is at most :data:`MAX_NOTE_CHARS` characters of text (printable, on one line: the wire's
TEXT), an author keeps at most :data:`MAX_NOTES` notes, and nobody writes a note about
themselves. Deleting a note that is not there does nothing. Whether the player written about
exists is the lobby's to check (it knows the players); here, the rules of the notes themselves."""

from __future__ import annotations

import unicodedata
from dataclasses import dataclass, field

from libs.errors import InvalidArgument, PreconditionFailed, echo
from libs.lobby.codec import decode_events, decode_state, encode_events, encode_state

MAX_NOTE_CHARS = 1000
MAX_NOTES = 1000

NOTE_EMPTY = "NOTE_EMPTY"
NOTE_TOO_LONG = "NOTE_TOO_LONG"
NOTE_BAD_CHARACTERS = "NOTE_BAD_CHARACTERS"
NOTE_ABOUT_SELF = "NOTE_ABOUT_SELF"
TOO_MANY_NOTES = "TOO_MANY_NOTES"


@dataclass(frozen=True)
class NoteWritten:
    about: str
    text: str
    at: float


@dataclass(frozen=True)
class NoteDeleted:
    about: str
    at: float


Event = NoteWritten | NoteDeleted
EVENT_TYPES: dict[str, type[Event]] = {"NoteWritten": NoteWritten, "NoteDeleted": NoteDeleted}


@dataclass(frozen=True)
class Note:
    text: str
    updated_at: float


@dataclass
class Notes:
    author: str
    notes: dict[str, Note] = field(default_factory=dict)  # player id -> note


def initial(author: str) -> Notes:
    return Notes(author)


def evolve(state: Notes, event: Event) -> Notes:
    notes = dict(state.notes)
    if isinstance(event, NoteWritten):
        notes[event.about] = Note(event.text, event.at)
    else:
        notes.pop(event.about, None)
    return Notes(state.author, notes)


def note_text(text: str) -> str:
    """``text`` as a note keeps it (ends trimmed); refused when empty, too long or holding
    control characters (line breaks too)."""
    tidy = text.strip()
    if any(unicodedata.category(c)[0] == "C" for c in tidy):
        raise InvalidArgument(NOTE_BAD_CHARACTERS, f"a note holds control characters: {echo(text)}")
    if not tidy:
        raise InvalidArgument(NOTE_EMPTY, "a note needs some text (delete it to remove it)")
    if len(tidy) > MAX_NOTE_CHARS:
        raise InvalidArgument(
            NOTE_TOO_LONG, f"a note is at most {MAX_NOTE_CHARS} characters, not {len(tidy)}"
        )
    return tidy


def write_note(state: Notes, about: str, text: str, now: float) -> list[Event]:
    if about == state.author:
        raise InvalidArgument(NOTE_ABOUT_SELF, "notes are about other players, not yourself")
    tidy = note_text(text)
    if about not in state.notes and len(state.notes) >= MAX_NOTES:
        raise PreconditionFailed(
            TOO_MANY_NOTES, f"at most {MAX_NOTES} notes: delete one to write another"
        )
    current = state.notes.get(about)
    if current is not None and current.text == tidy:
        return []  # already says so
    return [NoteWritten(about, tidy, now)]


def delete_note(state: Notes, about: str, now: float) -> list[Event]:
    """Nothing to do when there is no note (a retried delete finds it gone already)."""
    return [NoteDeleted(about, now)] if about in state.notes else []


def encode(events: list[Event]) -> bytes:
    return encode_events(events)


def decode(data: bytes) -> list[Event]:
    return decode_events(data, EVENT_TYPES)


def encode_notes(state: Notes) -> bytes:
    return encode_state(state)


def decode_notes(data: bytes) -> Notes:
    return decode_state(data, Notes, nested={"notes": Note})
