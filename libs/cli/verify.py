"""``holdem verify HAND...``: check that a finished hand was dealt fairly from its revealed seed.

For each hand: the seed must hash (SHA-256) to the commitment published before the deal, the
shuffle algorithm must be one we know (``holdem-deck-v1``, see ``libs.fairdeck``), and every card
the history shows (hole cards by position, the board, burns when recorded) must be the card at
its deck position (``libs.fairdeck.DealLayout``; the order within one player's hole cards or
within the flop is not significant). Every difference is reported; exit 1 if any.

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

import argparse
import json
import sys
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from libs import fairdeck
from libs.poker import phh
from libs.poker.cards import format_cards, parse_cards
from libs.poker.events import Event, HandStarted, HoleCardsDealt, StreetDealt

STREETS = {1: "flop", 2: "turn", 3: "river"}


class HistoryError(ValueError):
    """A history we cannot verify (unreadable, or missing the seed or commitment)."""


@dataclass(frozen=True)
class Reveal:
    """What the dealer published for a hand: the commitment before it, the seed after it."""

    seed: str  # hex
    commitment: str  # hex SHA-256 of the seed
    algorithm: str = fairdeck.ALGORITHM


@dataclass
class DealtHand:
    """Every card a history shows, by where it was dealt."""

    reveal: Reveal
    players: int
    hole_cards_per_player: int
    holes: dict[int, tuple[int, ...]] = field(default_factory=dict)
    boards: dict[int, tuple[int, ...]] = field(default_factory=dict)
    burns: dict[int, int] = field(default_factory=dict)

    @property
    def card_count(self) -> int:
        return (
            sum(len(c) for c in self.holes.values())
            + sum(len(c) for c in self.boards.values())
            + len(self.burns)
        )


# --------------------------------------------------------------------------- checking


def check(hand: DealtHand) -> list[str]:
    """Every way ``hand`` differs from what its revealed seed deals ([] = fair)."""
    reveal = hand.reveal
    if reveal.algorithm != fairdeck.ALGORITHM:
        return [f"unknown shuffle algorithm {reveal.algorithm!r} (known: {fairdeck.ALGORITHM})"]
    try:
        seed = bytes.fromhex(reveal.seed)
    except ValueError:
        return [f"the seed {reveal.seed[:80]!r} is not hex"]
    failures: list[str] = []
    actual = fairdeck.commitment(seed)
    if actual != reveal.commitment.lower():
        failures.append(
            f"commitment mismatch: SHA-256(seed) = {actual}, the hand committed to "
            f"{reveal.commitment}"
        )
    try:
        deck = fairdeck.deck_from_seed(seed)
        layout = fairdeck.DealLayout(hand.players, hand.hole_cards_per_player)
        if not 2 <= hand.players <= 10 or hand.hole_cards_per_player not in (2, 4):
            raise ValueError(
                f"{hand.players} players with {hand.hole_cards_per_player} hole cards each: "
                "not a hand we deal (2-10 players, 2 or 4 hole cards)"
            )
    except ValueError as exc:
        return [*failures, str(exc)]

    def compare(what: str, shown: Sequence[int], positions: Sequence[int]) -> None:
        expected = [deck[i] for i in positions]
        # The order within one player's hole cards or within the flop changes nothing in the
        # game (histories may sort them): the same cards from the same positions are fair.
        if sorted(shown) != sorted(expected):
            where = "deck position" + ("s" if len(positions) > 1 else "")
            failures.append(
                f"{what}: the history has {format_cards(shown) or 'nothing'}, the seed deals "
                f"{format_cards(expected)} ({where} {', '.join(map(str, positions))})"
            )

    for position, cards in sorted(hand.holes.items()):
        if not 0 <= position < hand.players:
            failures.append(f"hole cards for position {position}, but the hand has {hand.players}")
            continue
        if len(cards) != hand.hole_cards_per_player:
            failures.append(
                f"position {position} (p{position + 1}) has {len(cards)} hole cards, "
                f"not {hand.hole_cards_per_player}"
            )
            continue
        compare(f"position {position} (p{position + 1}) hole cards", cards, layout.hole(position))
    for street, cards in sorted(hand.boards.items()):
        if street not in STREETS:
            failures.append(f"board street {street}: there are only flop, turn and river")
            continue
        compare(f"{STREETS[street]} (street {street})", cards, layout.board(street))
    for street, card in sorted(hand.burns.items()):
        if street not in STREETS:
            failures.append(f"burn for street {street}: there are only flop, turn and river")
            continue
        compare(f"burn before the {STREETS[street]}", [card], [layout.burn(street)])
    return failures


# --------------------------------------------------------------------------- reading


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


# --------------------------------------------------------------------------- writing


def dealt_from_events(events: Iterable[Event], reveal: Reveal) -> DealtHand:
    """The dealt cards of a hand's engine events (burns from ``StreetDealt.burn``)."""
    events = list(events)
    first = events[0]
    if not isinstance(first, HandStarted):
        raise ValueError("a hand's events begin with HandStarted")
    dealt = DealtHand(reveal, len(first.stacks), first.config.variant.hole_card_count)
    for event in events:
        if isinstance(event, HoleCardsDealt):
            dealt.holes[event.player] = tuple(int(c) for c in event.cards)
        elif isinstance(event, StreetDealt):
            dealt.boards[event.street] = tuple(int(c) for c in event.cards)
            if event.burn is not None:
                dealt.burns[event.street] = int(event.burn)
    return dealt


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


# --------------------------------------------------------------------------- command


@dataclass(frozen=True)
class Outcome:
    path: str
    failures: tuple[str, ...]
    cards: int = 0
    voided: bool = False  # the hand was voided (from a stream)
    seed_lost: bool = False  # the seed was revealed empty: the dealer no longer had it

    @property
    def ok(self) -> bool:
        return not self.failures


def verify_text(text: str, path: str = "-") -> Outcome:
    try:
        hand = read_hand(text)
    except HistoryError as exc:
        return Outcome(path, (f"cannot verify: {exc}",))
    return Outcome(path, tuple(check(hand)), hand.card_count)


def outcomes_from_stream(events: Sequence[Any]) -> list[Outcome]:
    """One outcome per hand of a table's event stream (``libs.table`` and engine events)."""
    from libs.poker.events import HandEnded, HandVoided
    from libs.table.events import HandBegan, SeedRevealed

    seeds = {e.hand_id: e.seed for e in events if isinstance(e, SeedRevealed)}
    outcomes: list[Outcome] = []
    began: Any = None
    hand_events: list[Any] = []
    for event in events:
        if isinstance(event, HandBegan):
            began, hand_events = event, []
        elif began is not None:
            hand_events.append(event)
            if isinstance(event, (HandEnded, HandVoided)):
                path = f"hand {began.hand_id}"
                voided = isinstance(event, HandVoided)
                seed = seeds.get(began.hand_id)
                if not seed:
                    lost = seed is not None
                    why = "its seed was lost" if lost else "no seed revealed"
                    if voided:
                        why = f"voided and {why}"
                    outcomes.append(
                        Outcome(path, (f"cannot verify: {why}",), voided=voided, seed_lost=lost)
                    )
                else:
                    dealt = dealt_from_events(hand_events, Reveal(seed, began.commitment))
                    outcomes.append(
                        Outcome(path, tuple(check(dealt)), dealt.card_count, voided=voided)
                    )
                began = None
    return outcomes


async def _read_table(nats_url: str, stream: str, table_id: str) -> list[Any]:
    import nats

    from libs.eventstore.jetstream import JetStreamEventStore
    from libs.tableproto.envelope import decode_commit

    nc = await nats.connect(nats_url)
    try:
        commits = await JetStreamEventStore(nc, stream=stream).read(table_id)
    finally:
        await nc.close()
    return [event for commit in commits for event in decode_commit(commit.data)[1]]


def run(args: argparse.Namespace) -> int:
    outcomes: list[Outcome] = []
    if args.table:
        import asyncio

        try:
            events = asyncio.run(_read_table(args.nats, args.stream, args.table))
        except Exception as exc:  # unreachable server, missing stream: say so plainly
            print(f"holdem verify: cannot read table {args.table}: {exc}", file=sys.stderr)
            return 2
        outcomes = outcomes_from_stream(events)
        if args.hand:
            outcomes = [o for o in outcomes if o.path == f"hand {args.hand}"]
        if not outcomes:
            print(f"holdem verify: no finished hand found for table {args.table}", file=sys.stderr)
            return 2
    elif not args.hands:
        print("holdem verify: name hand files, or --table TABLE_ID", file=sys.stderr)
        return 2
    for name in args.hands:
        try:
            text = Path(name).read_text(encoding="utf-8")
        except OSError as exc:
            print(f"holdem verify: cannot read {name}: {exc.strerror or exc}", file=sys.stderr)
            return 2
        outcomes.append(verify_text(text, name))
    if args.json:
        print(
            json.dumps(
                [
                    {"path": o.path, "ok": o.ok, "cards": o.cards, "failures": list(o.failures)}
                    for o in outcomes
                ],
                indent=2,
            )
        )
    else:
        for outcome in outcomes:
            if outcome.ok:
                print(
                    f"OK   {outcome.path}: commitment and all {outcome.cards} dealt cards "
                    "follow from the revealed seed"
                )
            else:
                print(f"FAIL {outcome.path}: {len(outcome.failures)} difference(s)")
                for failure in outcome.failures:
                    print(f"     - {failure}")
    return 0 if all(o.ok for o in outcomes) else 1


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "verify",
        help="check a hand's cards against its revealed seed (provably fair)",
        description=(
            "Recompute each hand's deck from its revealed seed and check the commitment "
            "(SHA-256 of the seed) and every dealt card: hole cards, board and burns. HAND is a "
            "PHH file with user fields _seed, _commitment, _shuffle_algorithm (and optionally "
            "_burns), or a JSON hand (see libs/cli/verify.py). Exit 0 if every hand is fair, "
            "1 on any difference, 2 if a file cannot be read."
        ),
        epilog=(
            "With --table, the hands come straight from the table's event stream in JetStream "
            "(every finished hand, or --hand N)."
        ),
    )
    parser.add_argument("hands", nargs="*", metavar="HAND", help="hand history file (PHH or JSON)")
    parser.add_argument("--table", help="verify the hands of this table's event stream")
    parser.add_argument("--hand", help="with --table: only this hand id")
    parser.add_argument(
        "--nats", default="nats://127.0.0.1:4222", help="with --table: the NATS server URL"
    )
    parser.add_argument(
        "--stream", default="HOLDEM_TABLES", help="with --table: the JetStream stream"
    )
    parser.add_argument("--json", action="store_true", help="print the results as JSON")
    parser.set_defaults(func=run)
