"""How a player's wallet is stored: its events and its snapshots as JSON (libs/lobby/codec.py),
and a snapshot of an older lobby, still in a deployed lobby's Redis, read in today's shape."""

from __future__ import annotations

from typing import Any

from libs.lobby.codec import decode_events, decode_state, encode_events, encode_state
from libs.lobby.wallet import (
    EVENT_TYPES,
    LEDGER_WINDOW,
    MAX_LEFT_TABLES,
    MAX_OUTCOMES,
    Credit,
    Entry,
    Event,
    Outcome,
    Reservation,
    Seating,
    Wallet,
)


def encode(events: list[Event]) -> bytes:
    return encode_events(events)


def decode(data: bytes) -> list[Event]:
    return decode_events(data, EVENT_TYPES)


def encode_wallet(w: Wallet) -> bytes:
    return encode_state(w)


def decode_wallet(data: bytes) -> Wallet:
    return decode_state(
        data,
        Wallet,
        {
            "reservations": Reservation,
            "outcomes": Outcome,
            "seatings": Seating,
            "credits": Credit,
            "ledger": Entry,
        },
        migrate=_migrate,
    )


def _migrate(fields: dict[str, Any]) -> dict[str, Any]:
    """A snapshot of an older lobby (still in a deployed lobby's Redis) in today's shape: the
    list of every credited commit ``credited`` becomes the marks ``credits``, outcomes that kept
    no time get the latest time the wallet knows (so they stay the whole window from there),
    and the containers are cut to their bounds."""
    ledger = fields.get("ledger")
    if isinstance(ledger, list) and len(ledger) > LEDGER_WINDOW:
        fields["ledger"] = ledger = ledger[-LEDGER_WINDOW:]
    entries = ledger if isinstance(ledger, list) else []
    refs = fields.pop("credited", None)
    if isinstance(refs, list):
        paid = {e["reference"]: e for e in entries if isinstance(e, dict) and "reference" in e}
        credits: dict[str, dict[str, Any]] = {}
        for ref in refs:
            table_id, _, sequence = str(ref).rpartition(":")
            if not sequence.isdigit():
                continue
            mark = credits.pop(table_id, None)
            if mark is not None and mark["sequence"] >= int(sequence):
                credits[table_id] = mark
                continue
            entry = paid.get(ref, {})
            credits[table_id] = {
                "sequence": int(sequence),
                "amount": entry.get("amount", 0),
                "at": entry.get("at", 0.0),
            }
        seatings = fields.get("seatings") or {}
        reservations = fields.get("reservations") or {}
        active = set(seatings) | {
            r.get("table_id") for r in reservations.values() if isinstance(r, dict)
        }
        left = [t for t in credits if t not in active]
        for table_id in left[: max(len(left) - MAX_LEFT_TABLES, 0)]:
            del credits[table_id]
        fields["credits"] = credits
    outcomes = fields.get("outcomes")
    if isinstance(outcomes, dict):
        latest = max(
            [float(fields.get("created_at") or 0.0)]
            + [float(e.get("at", 0.0)) for e in entries if isinstance(e, dict)]
        )
        kept = list(outcomes.items())[-MAX_OUTCOMES:]
        for _, outcome in kept:
            if isinstance(outcome, dict) and "at" not in outcome:
                outcome["at"] = latest
        fields["outcomes"] = dict(kept)
    return fields
