"""Poker Hand History (PHH, TOML) for the games we play: read, write, and replay strictly.

PHH codes: ``NT`` no-limit hold'em, ``FT`` fixed-limit hold'em, ``PO`` pot-limit Omaha,
``FO/8`` fixed-limit Omaha hi-lo. PHH has no code for our other combinations; we write them with
codes of the same shape (``PT``, ``NO``, ``FO``, ``NO/8``, ``PO/8``) and say exactly what they
are in the user fields ``_variant`` and ``_betting_structure``, which a reader prefers when
present.

PHH numbers players p1..pN from the small blind to the button (heads-up: p1 is the big blind), so
p(k+1) is our position k. Its ``antes`` and ``blinds_or_straddles`` lists are by role (small blind
first), so heads-up they are reversed into positions, as PokerKit does.

A bomb pot (every player antes, no blinds, no preflop betting) is written with its antes, zero
blinds, no preflop actions and the user field ``_bomb_pot = true``, which our reader honours (a
reader that ignores it would expect preflop checks).
"""

from __future__ import annotations

import tomllib
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from .cards import DECK, Card, format_cards, parse_cards
from .commands import BetOrRaise, Call, Check, Command, DealBoard, DealHoleCards, Fold, Muck, Show
from .config import BettingStructure, HandConfig, Variant
from .engine import new_hand, step
from .errors import PokerError
from .events import (
    ActionKind,
    ActionTaken,
    Event,
    HandMucked,
    HandShown,
    HandStarted,
    HoleCardsDealt,
    StreetDealt,
)
from .evolve import replay as replay_events
from .state import HandState, Phase

CODES: dict[str, tuple[Variant, BettingStructure]] = {
    "NT": (Variant.HOLDEM, BettingStructure.NO_LIMIT),
    "FT": (Variant.HOLDEM, BettingStructure.FIXED_LIMIT),
    "PT": (Variant.HOLDEM, BettingStructure.POT_LIMIT),
    "NO": (Variant.OMAHA, BettingStructure.NO_LIMIT),
    "FO": (Variant.OMAHA, BettingStructure.FIXED_LIMIT),
    "PO": (Variant.OMAHA, BettingStructure.POT_LIMIT),
    "NO/8": (Variant.OMAHA_HI_LO, BettingStructure.NO_LIMIT),
    "FO/8": (Variant.OMAHA_HI_LO, BettingStructure.FIXED_LIMIT),
    "PO/8": (Variant.OMAHA_HI_LO, BettingStructure.POT_LIMIT),
}
STANDARD_CODES = frozenset({"NT", "FT", "PO", "FO/8"})
_CODE_OF = {value: code for code, value in CODES.items()}


class PhhError(ValueError):
    """A PHH document we cannot read (malformed, or a variant we do not play)."""


class Unsupported(PhhError):
    """A PHH variant outside our games (stud, razz, draw, short-deck ...)."""


@dataclass(slots=True)
class PhhHand:
    """The parts of a PHH document we use; ``extra`` keeps every other field for writing back."""

    config: HandConfig
    starting_stacks: tuple[int, ...]
    actions: list[str]
    finishing_stacks: tuple[float, ...] | None = None
    players: tuple[str, ...] | None = None
    extra: dict[str, Any] = field(default_factory=dict)


def _by_position(values: Sequence[int], n: int) -> tuple[int, ...]:
    values = tuple(int(v) for v in values) + (0,) * (n - len(values))
    return tuple(reversed(values)) if n == 2 else values


def _to_role_order(values: Sequence[int]) -> list[int]:
    return list(reversed(values)) if len(values) == 2 else list(values)


def loads(text: str) -> PhhHand:
    """Parse a PHH document. Raises ``Unsupported`` for games we do not play."""
    try:
        doc = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise PhhError(f"not valid TOML: {exc}") from exc
    return from_dict(doc)


def from_dict(doc: dict[str, Any]) -> PhhHand:
    code = doc.get("variant")
    if "_variant" in doc and "_betting_structure" in doc:
        try:
            variant = Variant(doc["_variant"])
            structure = BettingStructure(doc["_betting_structure"])
        except ValueError as exc:
            raise PhhError(str(exc)) from exc
    elif code in CODES:
        variant, structure = CODES[code]
    else:
        raise Unsupported(f"variant {code!r} is not one we play")
    try:
        stacks = tuple(int(v) for v in doc["starting_stacks"])
        actions = [str(a) for a in doc["actions"]]
    except (KeyError, TypeError, ValueError) as exc:
        raise PhhError(f"missing or malformed field: {exc}") from exc
    n = len(stacks)
    blinds = _by_position(doc.get("blinds_or_straddles", []), n)
    antes = _by_position(doc.get("antes", []), n)
    if structure is BettingStructure.FIXED_LIMIT:
        min_bet = int(doc.get("small_bet", 0))
        big_bet = int(doc.get("big_bet", 0))
    else:
        min_bet = int(doc.get("min_bet", 0))
        big_bet = 0
    try:
        config = HandConfig(
            variant=variant,
            structure=structure,
            blinds=blinds,
            antes=antes,
            min_bet=min_bet,
            big_bet=big_bet,
            dead_antes=not doc.get("ante_trimming_status", False),
            bomb_pot=bool(doc.get("_bomb_pot", False)),
        )
    except ValueError as exc:
        raise PhhError(str(exc)) from exc
    finishing = doc.get("finishing_stacks")
    players = doc.get("players")
    known = {
        "variant",
        "_variant",
        "_betting_structure",
        "starting_stacks",
        "actions",
        "antes",
        "blinds_or_straddles",
        "min_bet",
        "small_bet",
        "big_bet",
        "ante_trimming_status",
        "finishing_stacks",
        "players",
        "_bomb_pot",
    }
    return PhhHand(
        config=config,
        starting_stacks=stacks,
        actions=actions,
        finishing_stacks=tuple(float(v) for v in finishing) if finishing is not None else None,
        players=tuple(str(p) for p in players) if players is not None else None,
        extra={k: v for k, v in doc.items() if k not in known},
    )


# --------------------------------------------------------------------------- writing


def _toml_value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return repr(value)
    if isinstance(value, str):
        escaped = value.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")
        return f'"{escaped}"'
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(_toml_value(v) for v in value) + "]"
    raise TypeError(f"cannot write {type(value).__name__} to PHH")


def dumps(hand: PhhHand) -> str:
    """Write a PHH document; ``loads(dumps(h))`` gives the same hand."""
    config = hand.config
    code = _CODE_OF[(config.variant, config.structure)]
    doc: dict[str, Any] = {"variant": code}
    if code not in STANDARD_CODES:
        doc["_variant"] = config.variant.value
        doc["_betting_structure"] = config.structure.value
    doc["ante_trimming_status"] = not config.dead_antes
    doc["antes"] = _to_role_order(config.antes)
    doc["blinds_or_straddles"] = _to_role_order(config.blinds)
    if config.structure is BettingStructure.FIXED_LIMIT:
        doc["small_bet"] = config.min_bet
        doc["big_bet"] = config.big_bet
    else:
        doc["min_bet"] = config.min_bet
    if config.bomb_pot:  # antes, no blinds, no preflop betting (a user field: PHH has none)
        doc["_bomb_pot"] = True
    doc["starting_stacks"] = list(hand.starting_stacks)
    doc["actions"] = list(hand.actions)
    if hand.players is not None:
        doc["players"] = list(hand.players)
    if hand.finishing_stacks is not None:
        doc["finishing_stacks"] = [
            int(v) if float(v).is_integer() else v for v in hand.finishing_stacks
        ]
    doc.update(hand.extra)
    return "".join(f"{key} = {_toml_value(value)}\n" for key, value in doc.items())


def actions_from_events(events: Iterable[Event]) -> list[str]:
    """PHH action lines for a hand's events (forced bets are implied by the header). Hole cards
    dealt with no cards (a viewer's projection: someone else's hand) are written ``??`` each."""
    out: list[str] = []
    runout_shown: set[int] = set()
    hole_cards = 0
    for event in events:
        if isinstance(event, HandStarted):
            hole_cards = event.config.variant.hole_card_count
        elif isinstance(event, HoleCardsDealt):
            cards = format_cards(event.cards) if event.cards else "??" * hole_cards
            out.append(f"d dh p{event.player + 1} {cards}")
        elif isinstance(event, StreetDealt):
            out.append(f"d db {format_cards(event.cards)}")
        elif isinstance(event, ActionTaken):
            p = f"p{event.player + 1}"
            if event.kind is ActionKind.FOLD:
                out.append(f"{p} f")
            elif event.kind in (ActionKind.CHECK, ActionKind.CALL):
                out.append(f"{p} cc")
            else:
                out.append(f"{p} cbr {event.to}")
        elif isinstance(event, HandShown) and event.player not in runout_shown:
            runout_shown.add(event.player)
            out.append(f"p{event.player + 1} sm {format_cards(event.cards)}")
        elif isinstance(event, HandMucked):
            out.append(f"p{event.player + 1} sm")
    return out


def hand_from_events(events: Sequence[Event], players: Sequence[str] | None = None) -> PhhHand:
    """A PHH hand for a played (or partly played) hand."""
    first = events[0]
    if not isinstance(first, HandStarted):
        raise ValueError("a hand's events begin with HandStarted")
    state = replay_events(events)
    return PhhHand(
        config=first.config,
        starting_stacks=first.stacks,
        actions=actions_from_events(events),
        finishing_stacks=tuple(float(s) for s in state.stacks) if state.is_complete else None,
        players=tuple(players) if players is not None else None,
    )


# --------------------------------------------------------------------------- replaying


@dataclass(slots=True)
class ReplayOutcome:
    """``status`` is matched, mismatched, illegal, unsupported or no_expectation."""

    status: str
    reason: str = ""
    state: HandState | None = None
    events: list[Event] = field(default_factory=list)


def _placeholder_hole_cards(hand: PhhHand) -> dict[int, tuple[Card, ...]]:
    """Cards for players dealt unknown cards (``????``): the cards they show later, else unused
    cards that appear nowhere in the hand."""
    known: set[int] = set()
    unknown: list[int] = []
    shown: dict[int, tuple[Card, ...]] = {}
    for action in hand.actions:
        words = action.split("#", 1)[0].split()
        if len(words) == 4 and words[:2] == ["d", "dh"]:
            if "?" in words[3]:
                unknown.append(int(words[2][1:]) - 1)
            else:
                known.update(parse_cards(words[3]))
        elif len(words) == 3 and words[:2] == ["d", "db"]:
            known.update(parse_cards(words[2]))
        elif len(words) == 3 and words[1] == "sm" and words[2] != "-" and "?" not in words[2]:
            cards = parse_cards(words[2])
            shown[int(words[0][1:]) - 1] = cards
            known.update(cards)
    spare = (c for c in DECK if c not in known)
    count = hand.config.variant.hole_card_count
    out: dict[int, tuple[Card, ...]] = {}
    for player in unknown:
        out[player] = shown.get(player) or tuple(next(spare) for _ in range(count))
    return out


def _command(
    state: HandState, words: list[str], placeholders: dict[int, tuple[Card, ...]]
) -> Command | None:
    """The engine command for one PHH action (None: nothing to do, e.g. a reveal repeated)."""
    match words:
        case ["d", "dh", player, cards]:
            p = int(player[1:]) - 1
            hole = placeholders[p] if "?" in cards else parse_cards(cards)
            return DealHoleCards(p, hole)
        case ["d", "db", cards]:
            return DealBoard(parse_cards(cards))
        case [player, "f"]:
            return Fold(int(player[1:]) - 1)
        case [player, "cc"]:
            p = int(player[1:]) - 1
            owed = state.current_bet - state.bets[p] if p < len(state.bets) else 0
            return Call(p) if owed > 0 else Check(p)
        case [player, "cbr", amount]:
            return BetOrRaise(int(player[1:]) - 1, int(amount))
        case [player, "sm"]:
            p = int(player[1:]) - 1
            return None if state.shown[p] is not None else Muck(p)
        case [player, "sm", cards]:
            p = int(player[1:]) - 1
            shown = None if cards == "-" or "?" in cards else parse_cards(cards)
            if state.shown[p] is not None:  # already face up (all-in runout)
                if shown is not None and sorted(shown) != sorted(state.shown[p] or ()):
                    raise PhhError(f"p{p + 1} shows {cards} but was dealt other cards")
                return None
            return Show(p, shown)
        case []:
            return None
    raise PhhError(f"unknown action {' '.join(words)!r}")


def replay_hand(hand: PhhHand) -> ReplayOutcome:
    """Replay a hand strictly through the engine and compare finishing stacks."""
    try:
        state = new_hand(hand.config, hand.starting_stacks)
    except (PokerError, ValueError) as exc:
        return ReplayOutcome("illegal", f"cannot start the hand: {exc}")
    events: list[Event] = []
    placeholders = _placeholder_hole_cards(hand)
    for index, action in enumerate(hand.actions):
        words = action.split("#", 1)[0].split()
        try:
            command = _command(state, words, placeholders)
            if command is None:
                continue
            state, new_events = step(state, command)
        except (PokerError, PhhError, ValueError, IndexError) as exc:
            return ReplayOutcome("illegal", f"action {index + 1} {action!r}: {exc}", state, events)
        events.extend(new_events)
    # Showdown decisions the history leaves out: show in turn (a hand must be shown to win).
    while state.phase is Phase.SHOWDOWN and state.showdown_queue:
        state, new_events = step(state, Show(state.showdown_queue[0]))
        events.extend(new_events)
    if hand.finishing_stacks is None:
        return ReplayOutcome("no_expectation", "", state, events)
    if not state.is_complete:
        return ReplayOutcome(
            "mismatched",
            f"the actions end before the hand does ({state.phase.value})",
            state,
            events,
        )
    if not stacks_match(state.stacks, hand.finishing_stacks):
        return ReplayOutcome(
            "mismatched",
            f"finishing stacks {list(state.stacks)} != expected "
            f"{[int(v) if v.is_integer() else v for v in hand.finishing_stacks]}",
            state,
            events,
        )
    return ReplayOutcome("matched", "", state, events)


def stacks_match(ours: Sequence[int], expected: Sequence[float]) -> bool:
    """Exact match, except that a history may record a split odd chip as two halves (x.5).

    Our rule gives the odd chip whole to the first of those winners left of the button (the
    lowest position), so halves must become +0.5 there and -0.5 for the others, in that order.
    """
    if len(ours) != len(expected) or sum(ours) != sum(expected):
        return False
    halves = [i for i, v in enumerate(expected) if not float(v).is_integer()]
    for i, v in enumerate(expected):
        if i not in halves and ours[i] != v:
            return False
    ups = [i for i in halves if ours[i] == expected[i] + 0.5]
    downs = [i for i in halves if ours[i] == expected[i] - 0.5]
    if len(ups) + len(downs) != len(halves):
        return False
    return all(u < d for u in ups for d in downs)


def replay_text(text: str) -> ReplayOutcome:
    try:
        hand = loads(text)
    except Unsupported as exc:
        return ReplayOutcome("unsupported", str(exc))
    except PhhError as exc:
        return ReplayOutcome("illegal", f"unreadable: {exc}")
    return replay_hand(hand)
