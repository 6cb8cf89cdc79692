"""Hand histories the fairness audit reads and writes, as text: PHH or JSON.

Two history formats are read (chosen by content: JSON if it parses as a JSON object, else PHH):

PHH (TOML, ``libs.poker.phh``) with user fields::

    _seed = "<hex>"                  # the revealed seed
    _commitment = "<hex>"            # SHA-256 of the seed, as published at hand start
    _shuffle_algorithm = "holdem-deck-v1"
    _burns = ["7h", "2c", "Kd"]      # optional: burn before flop, turn, river (as dealt)

  Hole cards come from ``d dh pK CARDS`` (pK = position K-1, unknown ``????`` cards are
  skipped), the board from the ``d db`` lines in order (flop, turn, river); the number of
  players is the length of ``starting_stacks``.

JSON::

    {"seed": "<hex>", "commitment": "<hex>", "algorithm": "holdem-deck-v1",
     "players": 3, "hole_cards_per_player": 2,          # optional, default 2
     "hole_cards": {"0": ["As", "Kd"], "1": [...], ...},  # by position (0 = left of button)
     "board": {"1": ["2c", "7h", "Td"], "2": ["Js"], "3": ["4d"]},
     "burns": {"1": "5c", "2": "8h", "3": "Qs"}}          # optional

``phh_history`` and ``json_history`` write these formats for a dealt hand.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from libs.poker import phh
from libs.poker.cards import format_cards, parse_cards
from libs.poker.events import Event

from .audit import DealtHand, Outcome, Reveal, check, dealt_from_events

__all__ = [
    "HistoryError",
    "hand_from_json",
    "hand_from_phh",
    "json_history",
    "phh_history",
    "read_hand",
    "verify_text",
]


class HistoryError(ValueError):
    """A history we cannot verify (unreadable, or missing the seed or commitment)."""


def _cards(value: Any, what: str) -> tuple[int, ...]:
    try:
        if isinstance(value, str):
            return tuple(int(c) for c in parse_cards(value))
        if isinstance(value, list) and all(isinstance(v, str) for v in value):
            return tuple(int(c) for c in parse_cards("".join(value)))
    except ValueError as exc:
        raise HistoryError(f"{what}: {exc}") from exc
    raise HistoryError(f'{what}: expected card faces such as ["As", "Kd"], got {value!r}')


def _hex_field(doc: Mapping[str, Any], key: str, source: str) -> str:
    value = doc.get(key)
    if not isinstance(value, str) or not value:
        raise HistoryError(f"{source} has no {key!r} (hex string): the seed was not revealed?")
    return value


def hand_from_phh(text: str) -> DealtHand:
    try:
        hand = phh.loads(text)
    except phh.PhhError as exc:
        raise HistoryError(f"not a readable PHH hand: {exc}") from exc
    extra = hand.extra
    reveal = Reveal(
        seed=_hex_field(extra, "_seed", "the PHH file"),
        commitment=_hex_field(extra, "_commitment", "the PHH file"),
        algorithm=str(extra.get("_shuffle_algorithm", "")),
    )
    if not reveal.algorithm:
        raise HistoryError("the PHH file has no '_shuffle_algorithm'")
    dealt = DealtHand(reveal, len(hand.starting_stacks), hand.config.variant.hole_card_count)
    street = 0
    for number, action in enumerate(hand.actions, start=1):
        words = action.split("#", 1)[0].split()
        if words[:2] == ["d", "dh"] and len(words) == 4:
            player = words[2]
            if not (player.startswith("p") and player[1:].isdigit()):
                raise HistoryError(f"action {number} {action!r}: no player {player!r}")
            position = int(player[1:]) - 1
            if position in dealt.holes:
                raise HistoryError(f"action {number} {action!r}: {player} is dealt twice")
            if "?" not in words[3]:  # unknown cards cannot be checked
                dealt.holes[position] = _cards(words[3], f"action {number}")
        elif words[:2] == ["d", "db"] and len(words) == 3:
            street += 1
            dealt.boards[street] = _cards(words[2], f"action {number}")
    burns = extra.get("_burns")
    if burns is not None:
        if not isinstance(burns, list):
            raise HistoryError(f"'_burns' must be a list of cards, got {burns!r}")
        for street, face in enumerate(burns, start=1):
            burn = _cards(face, f"_burns[{street - 1}]")
            if len(burn) != 1:
                raise HistoryError(f"_burns[{street - 1}] must be one card, got {face!r}")
            dealt.burns[street] = burn[0]
    return dealt


def _int_keys(value: Any, what: str) -> dict[int, Any]:
    if not isinstance(value, dict):
        raise HistoryError(f"{what!r} must be an object keyed by number")
    try:
        return {int(k): v for k, v in value.items()}
    except ValueError as exc:
        raise HistoryError(f"{what!r} keys must be numbers: {exc}") from exc


def hand_from_json(doc: Any) -> DealtHand:
    if not isinstance(doc, dict):
        raise HistoryError("a JSON hand is an object")
    reveal = Reveal(
        seed=_hex_field(doc, "seed", "the JSON hand"),
        commitment=_hex_field(doc, "commitment", "the JSON hand"),
        algorithm=str(doc.get("algorithm", "")),
    )
    if not reveal.algorithm:
        raise HistoryError("the JSON hand has no 'algorithm'")
    players, per_player = doc.get("players"), doc.get("hole_cards_per_player", 2)
    if not isinstance(players, int) or not isinstance(per_player, int):
        raise HistoryError("'players' (and 'hole_cards_per_player') must be integers")
    dealt = DealtHand(reveal, players, per_player)
    for position, cards in _int_keys(doc.get("hole_cards", {}), "hole_cards").items():
        dealt.holes[position] = _cards(cards, f"hole_cards[{position}]")
    for street, cards in _int_keys(doc.get("board", {}), "board").items():
        dealt.boards[street] = _cards(cards, f"board[{street}]")
    for street, card in _int_keys(doc.get("burns", {}), "burns").items():
        burn = _cards(card, f"burns[{street}]")
        if len(burn) != 1:
            raise HistoryError(f"burns[{street}] must be one card")
        dealt.burns[street] = burn[0]
    return dealt


def read_hand(text: str) -> DealtHand:
    """A history in either format (JSON when the text is a JSON object, else PHH)."""
    try:
        doc = json.loads(text)
    except ValueError:
        return hand_from_phh(text)
    return hand_from_json(doc)


def phh_history(
    events: Sequence[Event], reveal: Reveal, players: Sequence[str] | None = None
) -> str:
    """A PHH document for a dealt hand carrying what ``holdem verify`` needs (seed, commitment,
    algorithm, and the burns when the events record them)."""
    dealt = dealt_from_events(events, reveal)
    hand = phh.hand_from_events(events, players)
    hand.extra.update(
        {
            "_seed": reveal.seed,
            "_commitment": reveal.commitment,
            "_shuffle_algorithm": reveal.algorithm,
        }
    )
    if dealt.burns:
        hand.extra["_burns"] = [format_cards([dealt.burns[s]]) for s in sorted(dealt.burns)]
    return phh.dumps(hand)


def json_history(events: Sequence[Event], reveal: Reveal) -> str:
    """The JSON form of a dealt hand (see the module docstring)."""
    dealt = dealt_from_events(events, reveal)

    def faces(cards: Iterable[int]) -> list[str]:
        return [format_cards([c]) for c in cards]

    doc = {
        "seed": reveal.seed,
        "commitment": reveal.commitment,
        "algorithm": reveal.algorithm,
        "players": dealt.players,
        "hole_cards_per_player": dealt.hole_cards_per_player,
        "hole_cards": {str(p): faces(c) for p, c in sorted(dealt.holes.items())},
        "board": {str(s): faces(c) for s, c in sorted(dealt.boards.items())},
        "burns": {str(s): format_cards([c]) for s, c in sorted(dealt.burns.items())},
    }
    return json.dumps(doc, indent=2) + "\n"


def verify_text(text: str, path: str = "-") -> Outcome:
    try:
        hand = read_hand(text)
    except HistoryError as exc:
        return Outcome(path, (f"cannot verify: {exc}",))
    return Outcome(path, tuple(check(hand)), hand.card_count)
