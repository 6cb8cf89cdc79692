"""What the terminal client shows, computed from the gateway's updates, without any widget: the
table as the viewer sees it (``view``), a readable running log of the hand, the last showdown, and
the texts of each panel. Pure, so it is tested without a terminal."""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from holdem.common.v1 import common_pb2 as pb
from holdem.gateway.v1 import gateway_pb2 as gw

from libs.client.view import (
    bet_sizes,
    can_muck,
    cards_text,
    is_my_turn,
    is_showdown_turn,
    my_seat,
    pot_total,
    run_it_asked,
)
from libs.poker import events as pe
from libs.poker.cards import DECK
from libs.table import codec
from libs.table import events as te
from libs.tui.bomb import bomb_keys
from libs.tui.clock import clock_text
from libs.tui.seatopts import blind_keys, blind_wait_line, event_line, my_settings

VARIANTS = {
    pb.VARIANT_HOLDEM: "Hold'em",
    pb.VARIANT_OMAHA: "Omaha",
    pb.VARIANT_OMAHA_HI_LO: "Omaha Hi-Lo",
}
STRUCTURES = {
    pb.BETTING_STRUCTURE_NO_LIMIT: "NL",
    pb.BETTING_STRUCTURE_POT_LIMIT: "PL",
    pb.BETTING_STRUCTURE_FIXED_LIMIT: "FL",
}
STREET_NAMES = {1: "Flop", 2: "Turn", 3: "River"}  # libs.poker's street numbers
STATUS = {
    pb.SEAT_STATUS_WAITING: "wait",
    pb.SEAT_STATUS_SITTING_OUT: "out",
    pb.SEAT_STATUS_FOLDED: "fold",
    pb.SEAT_STATUS_ALL_IN: "all-in",
}
LOG_LIMIT = 500
NAME_WIDTH = 10  # the seats' name column (names may have 32 characters)


def fit(name: str, width: int) -> str:
    """``name`` in ``width`` characters: a longer one keeps its start and its last two, so that
    names told apart only at their end ("Normal AI 1", "Normal AI 2") stay apart."""
    return name if len(name) <= width else name[: width - 3] + "…" + name[-2:]


def faces(cards: Sequence[int]) -> str:
    """Hand-event cards (deck indexes) as "As Kd"."""
    return " ".join(str(DECK[c]) for c in cards)


def hand_seats(view: pb.PlayerView) -> tuple[int, ...]:
    """Hand positions of a view joined mid-hand: the seats dealt in, clockwise from the first
    seat left of the button (the button is last), as the table numbers them."""
    dealt = sorted(s.seat for s in view.seats if s.hole_card_count)
    if not view.HasField("button_seat"):
        return tuple(dealt)
    after = [s for s in dealt if s > view.button_seat]
    return tuple(after + [s for s in dealt if s <= view.button_seat])


def stakes(config: pb.TableConfig) -> str:
    game = f"{STRUCTURES.get(config.betting_structure, '?')} {VARIANTS.get(config.variant, '?')}"
    return f"{game} {config.small_blind}/{config.big_blind}"


@dataclass
class TableModel:
    """Feed it every TableUpdate (``apply``) and every view an action returned (``set_view``)."""

    table_id: str
    view: pb.PlayerView = field(default_factory=pb.PlayerView)
    log: list[str] = field(default_factory=list)
    showdown: list[str] = field(default_factory=list)  # results of the last hand
    names: dict[int, str] = field(default_factory=dict)
    blinds: dict[int, str] = field(default_factory=dict)  # seat -> "SB" / "BB" this hand
    status: str = ""  # the last refusal or connection problem, for the status line
    on_hand_end: Callable[[], object] | None = None
    players: dict[int, str] = field(default_factory=dict)  # seat -> player id
    _seats: tuple[int, ...] = ()  # hand position -> seat, for the hand in play
    _dealt: str = ""  # the hand whose hole cards were logged

    # -- input

    def apply(self, update: gw.TableUpdate) -> None:
        # the view first: the names (and which seat is "You") of the seats the events mention
        if update.HasField("view"):
            self.set_view(update.view)
        elif update.HasField("snapshot"):
            self.set_view(update.snapshot)
        if update.HasField("commit"):
            for record in update.commit.recorded:
                try:
                    event = codec.decode(
                        {
                            "type": record.type,
                            "v": record.schema_version,
                            "data": json.loads(record.data),
                        }
                    )
                except (ValueError, KeyError, TypeError):
                    continue  # an event this client does not know: skip it, keep the rest
                self._event(event)

    def set_view(self, view: pb.PlayerView) -> None:
        if view.sequence < self.view.sequence:
            return  # an older view (an action's reply after the stream moved on)
        self.view = view
        for seat in view.seats:
            if seat.player_id:
                self.players[seat.seat] = seat.player_id
                self.names[seat.seat] = seat.display_name or self.names.get(
                    seat.seat, seat.player_id[:8]
                )
        me = my_seat(view)
        if me is not None and me.hole_cards and view.hand_id and view.hand_id != self._dealt:
            self._dealt = view.hand_id
            if me.status not in (pb.SEAT_STATUS_FOLDED,) and not view.board:
                self.say(f"Dealt to You: {cards_text(list(me.hole_cards))}")
        if view.hand_id and not self._seats:
            self._seats = hand_seats(view)

    def name(self, seat: int) -> str:
        me = self.view.viewer_player_id
        if (self.view.HasField("viewer_seat") and seat == self.view.viewer_seat) or (
            me and self.players.get(seat) == me
        ):
            return "You"
        return self.names.get(seat, f"seat {seat}")

    def who(self, seat: int, verb: str) -> str:
        """ "Ada shows" / "You show": the seat's name and the verb agreeing with it."""
        name = self.name(seat)
        if name == "You":
            first, _, rest = verb.partition(" ")
            first = {"is": "are", "has": "have"}.get(first, first.removesuffix("s"))
            verb = f"{first} {rest}".rstrip()
        return f"{name} {verb}"

    def say(self, line: str) -> None:
        self.log.append(line)
        del self.log[:-LOG_LIMIT]

    def seat_of(self, position: int) -> int:
        """The seat of a hand position (hand events number players by position)."""
        if position < len(self._seats):
            return self._seats[position]
        return -1

    def _event(self, event: object) -> None:
        handler = getattr(self, f"_on_{type(event).__name__}", None)
        if handler is not None:
            handler(event)
        elif line := event_line(event, self.who):  # sitting out and blinds (seatopts.py)
            self.say(line)

    # table events

    def _on_PlayerSeated(self, x: te.PlayerSeated) -> None:
        self.players[x.seat] = x.player_id
        if x.display_name:
            self.names[x.seat] = x.display_name
        else:
            self.names.setdefault(x.seat, x.player_id[:8])
        self.say(self.who(x.seat, f"sits in seat {x.seat} with {x.stack}"))

    def _on_PlayerLeft(self, x: te.PlayerLeft) -> None:
        self.players[x.seat] = x.player_id
        self.say(self.who(x.seat, f"leaves with {x.stack}"))

    def _on_PlayerSatOut(self, x: te.PlayerSatOut) -> None:
        reason = f" ({x.reason})" if x.reason and x.reason != "requested" else ""
        self.say(self.who(x.seat, f"sits out{reason}"))

    def _on_PlayerSatIn(self, x: te.PlayerSatIn) -> None:
        self.say(self.who(x.seat, "is back"))

    def _on_PlayerTimedOut(self, x: te.PlayerTimedOut) -> None:
        self.say(self.who(x.seat, "ran out of time"))

    def _on_TableClosed(self, x: te.TableClosed) -> None:
        self.say(f"The table is closed ({x.reason}).")

    def _on_BombPotProposed(self, x: te.BombPotProposed) -> None:
        self.say(self.who(x.seat, "proposes a bomb pot for the next hand"))

    def _on_BombPotVoteClosed(self, x: te.BombPotVoteClosed) -> None:
        self.say("Bomb pot agreed: next hand" if x.agreed else f"No bomb pot ({x.reason})")

    def _on_HandBegan(self, x: te.HandBegan) -> None:
        self.showdown = []
        self._seats = x.seats
        self.blinds = {}
        if x.small_blind_seat >= 0:
            self.blinds[x.small_blind_seat] = "SB"
        if x.big_blind_seat >= 0:
            self.blinds[x.big_blind_seat] = "BB"
        self.say(f"── Hand #{x.hand_number} ── button: {self.name(x.button)}")

    # hand events (players by position)

    def _on_AntePosted(self, x: pe.AntePosted) -> None:
        self.say(self.who(self.seat_of(x.player), f"posts ante {x.amount}"))

    def _on_BlindPosted(self, x: pe.BlindPosted) -> None:
        seat = self.seat_of(x.player)
        kind = {"SB": "small blind", "BB": "big blind"}.get(self.blinds.get(seat, ""), "a blind")
        self.say(self.who(seat, f"posts {kind} {x.amount}"))

    def _on_DeadBlindPosted(self, x: pe.DeadBlindPosted) -> None:
        self.say(self.who(self.seat_of(x.player), f"posts a dead blind {x.amount}"))

    def _on_ActionTaken(self, x: pe.ActionTaken) -> None:
        verb = {
            pe.ActionKind.FOLD: "folds",
            pe.ActionKind.CHECK: "checks",
            pe.ActionKind.CALL: f"calls {x.amount}",
            pe.ActionKind.BET: f"bets {x.to}",
            pe.ActionKind.RAISE: f"raises to {x.to}",
        }.get(x.kind, "acts")
        line = self.who(self.seat_of(x.player), verb)
        if x.all_in:
            line += " and are all-in" if line.startswith("You ") else " and is all-in"
        self.say(line)

    def _on_StreetDealt(self, x: pe.StreetDealt) -> None:
        name = STREET_NAMES.get(x.street, "Board")
        self.say(f"{name}: {faces(x.cards)}")

    def _on_RunItOffered(self, x: pe.RunItOffered) -> None:
        self.say(f"No betting left: run the board up to {x.most} times if everyone agrees")

    def _on_RunItDecided(self, x: pe.RunItDecided) -> None:
        self.say("The board is run once" if x.runs == 1 else f"The board is run {x.runs} times")

    def _on_RunDealt(self, x: pe.RunDealt) -> None:
        self.say(f"Run {x.run}: {faces(x.cards)}")

    def _on_RabbitHunted(self, x: te.RabbitHunted) -> None:
        street = STREET_NAMES.get(x.first_street, "board").lower()
        self.say(f"Rabbit hunt from the {street} (asked by {self.name(x.seat)}): {faces(x.cards)}")

    def _on_UncalledBetReturned(self, x: pe.UncalledBetReturned) -> None:
        self.say(f"Uncalled bet of {x.amount} returned to {self.name(self.seat_of(x.player))}")

    def _on_HandShown(self, x: pe.HandShown) -> None:
        line = self.who(self.seat_of(x.player), f"shows {faces(x.cards)}")
        self.say(line)
        self.showdown.append(line)

    def _on_HandMucked(self, x: pe.HandMucked) -> None:
        self.say(self.who(self.seat_of(x.player), "mucks"))

    def _on_PotAwarded(self, x: pe.PotAwarded) -> None:
        pot = "the pot" if x.pot == 0 else f"side pot {x.pot}"
        share = {"high": " (high)", "low": " (low)"}.get(x.share, "")
        share += f" on run {x.run + 1}" if x.run else ""
        hand = f" with {x.description}" if x.description else ""
        for position, amount in x.winners:
            line = self.who(self.seat_of(position), f"wins {amount} from {pot}{share}{hand}")
            self.say(line)
            self.showdown.append(line)

    def _on_HandEnded(self, x: pe.HandEnded) -> None:
        self._seats = ()
        if self.on_hand_end is not None:
            self.on_hand_end()

    def _on_HandVoided(self, x: pe.HandVoided) -> None:
        self._seats = ()
        self.say(f"Hand voided: {x.reason}")
        if self.on_hand_end is not None:
            self.on_hand_end()

    # -- panels

    def header(self, wallet: str = "") -> str:
        v = self.view
        table = v.table_id or self.table_id
        parts = [table if len(table) <= 12 else f"table {table[:8]}", stakes(v.config)]
        if v.hand_number:
            parts.append(f"hand #{v.hand_number}" + (" BOMB POT" if v.bomb_pot else ""))
        if v.table_status == pb.TABLE_STATUS_CLOSED:
            parts.append("closed")
        if wallet:
            parts.append(f"wallet {wallet}")
        return " · ".join(parts)

    def seat_lines(self) -> list[str]:
        v = self.view
        lines = []
        for seat in v.seats:
            if not seat.player_id:
                continue
            mark = ">" if v.HasField("acting_seat") and v.acting_seat == seat.seat else " "
            button = "D" if v.HasField("button_seat") and v.button_seat == seat.seat else " "
            blind = self.blinds.get(seat.seat, "") if v.hand_id else ""
            ai = "*" if seat.is_bot else ""
            name = fit(self.name(seat.seat), NAME_WIDTH - len(ai)) + ai
            cards = (
                cards_text(list(seat.hole_cards))
                if seat.hole_cards
                else ("[]" * seat.hole_card_count if seat.hole_card_count else "")
            )
            if seat.status == pb.SEAT_STATUS_FOLDED:
                cards = ""
            bet = str(seat.committed) if seat.committed else ""
            status = STATUS.get(seat.status, "") + (" disc" if seat.disconnected else "")
            lines.append(
                f"{mark}{button}{blind:<3}{seat.seat} {name:<{NAME_WIDTH}} {seat.stack:>6} "
                f"{bet:>5} {cards:<11} {status}".rstrip()[:48]
            )
        return lines

    def board_line(self) -> str:
        board = cards_text(list(self.view.board)) if self.view.board else "-"
        runs = "".join(
            f" | run {n}: {cards_text(list(run.cards))}"
            for n, run in enumerate(self.view.run_boards, start=2)
        )
        return f"Board: {board}{runs}"

    def pot_lines(self) -> list[str]:
        """The pot, and the pots a side pot splits it into when two or more are contested."""
        total = pot_total(self.view)
        if not total:
            return []
        contested = [p for p in self.view.pots if len(p.eligible_seats) >= 2]
        lines = [f"Pot: {total}"]
        all_in = any(s.status == pb.SEAT_STATUS_ALL_IN for s in self.view.seats)
        if all_in and len(contested) >= 2:
            parts = [f"main {contested[0].amount}"]
            for i, pot in enumerate(contested[1:], 1):
                seats = ",".join(str(s) for s in pot.eligible_seats)
                parts.append(f"side {i}: {pot.amount} (seats {seats})")
            lines.append("  " + "; ".join(parts))
        return lines

    def my_cards_line(self) -> str:
        me = my_seat(self.view)
        if me is None:
            return "Spectating"
        cards = cards_text(list(me.hole_cards)) if me.hole_cards else "-"
        return f"Your cards: {cards}   stack {me.stack}{my_settings(self.view)}"

    def turn_line(self, now: float) -> str:
        v = self.view
        if not v.hand_id or not v.HasField("acting_seat"):
            if v.table_status == pb.TABLE_STATUS_CLOSED:
                return ""
            return blind_wait_line(v, now, self.name) or "Waiting for the next hand"
        left = clock_text(v, now)
        if is_showdown_turn(v):
            return f"Your turn to show or muck{left}" if can_muck(v) else f"Your turn to show{left}"
        if is_my_turn(v):
            return f"Your turn{left}"
        return f"{self.name(v.acting_seat)} to act{left}"

    def action_line(self) -> str:
        """The keys that do something now, with the amounts."""
        v = self.view
        if blind_keys(v):
            return blind_keys(v)
        if run_it_asked(v):
            keys = ["[n] once", "[w] twice", "[e] three times"][: max(v.run_it.most, 1)]
            return "Run it how many times? " + "  ".join(keys)
        if is_showdown_turn(v):
            return "[s] show  [k] muck" if can_muck(v) else "[s] show"
        if not is_my_turn(v):
            hunt = "[b] rabbit hunt  " if v.config.rabbit_hunt and not v.hand_id else ""
            runs = "[g] run-it setting  " if v.config.run_it_max > 1 else ""
            return f"{hunt}{runs}{bomb_keys(v)}[o] sit out/in  [l] leave  [/] chat  [q] quit"
        legal = v.legal_actions
        keys = []
        if legal.can_fold:
            keys.append("[f] fold")
        if legal.can_check:
            keys.append("[c] check")
        elif legal.can_call:
            keys.append(f"[c] call {legal.call_amount}")
        sizes = bet_sizes(v)
        if sizes:
            verb = "raise" if any(s.committed for s in v.seats) else "bet"
            keys.append(
                f"[r] {verb} {sizes['min']}-{sizes['all_in']}: [m]in [h]alf {sizes['half']} "
                f"[p]ot {sizes['pot']} [a]ll-in"
            )
        return "  ".join(keys)
