"""What the terminal client shows, computed from the gateway's updates, without any widget: the
table as the viewer sees it (``view``), a readable running log of the hand, the last showdown, and
the texts of each panel. Pure, so it is tested without a terminal."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from holdem.common.v1 import common_pb2 as pb
from holdem.events.v1 import events_pb2 as ev
from holdem.gateway.v1 import gateway_pb2 as gw

from libs.client.view import (
    bet_sizes,
    cards_text,
    is_my_turn,
    is_showdown_turn,
    my_seat,
    pot_total,
)

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
STREET_NAMES = {pb.STREET_FLOP: "Flop", pb.STREET_TURN: "Turn", pb.STREET_RIVER: "River"}
STATUS = {
    pb.SEAT_STATUS_WAITING: "wait",
    pb.SEAT_STATUS_SITTING_OUT: "out",
    pb.SEAT_STATUS_FOLDED: "fold",
    pb.SEAT_STATUS_ALL_IN: "all-in",
}
BLINDS = {
    ev.BLIND_KIND_SMALL: "small blind",
    ev.BLIND_KIND_BIG: "big blind",
    ev.BLIND_KIND_STRADDLE: "straddle",
    ev.BLIND_KIND_ENTRY: "entry bet",
    ev.BLIND_KIND_MISSED_SMALL: "missed small blind (dead)",
}
LOG_LIMIT = 500


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

    # -- input

    def apply(self, update: gw.TableUpdate) -> None:
        if update.HasField("commit"):
            for event in update.commit.events:
                self._event(event)
        if update.HasField("view"):
            self.set_view(update.view)
        elif update.HasField("snapshot"):
            self.set_view(update.snapshot)

    def set_view(self, view: pb.PlayerView) -> None:
        if view.sequence < self.view.sequence:
            return  # an older view (an action's reply after the stream moved on)
        self.view = view
        for seat in view.seats:
            if seat.player_id:
                self.names[seat.seat] = seat.display_name or seat.player_id

    def name(self, seat: int) -> str:
        if self.view.HasField("viewer_seat") and seat == self.view.viewer_seat:
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

    def _event(self, e: ev.TableEvent) -> None:
        kind = e.WhichOneof("event")
        handler = getattr(self, f"_on_{kind}", None)
        if kind is not None and handler is not None:
            handler(getattr(e, kind))

    def _on_player_seated(self, x: ev.PlayerSeated) -> None:
        self.names[x.seat] = x.display_name or x.player_id
        self.say(self.who(x.seat, f"sits in seat {x.seat} with {x.buy_in}"))

    def _on_player_left(self, x: ev.PlayerLeft) -> None:
        self.say(self.who(x.seat, f"leaves with {x.cash_out}"))
        self.names.pop(x.seat, None)

    def _on_player_sat_out(self, x: ev.PlayerSatOut) -> None:
        self.say(self.who(x.seat, "sits out"))

    def _on_player_sat_in(self, x: ev.PlayerSatIn) -> None:
        self.say(self.who(x.seat, "is back"))

    def _on_table_closed(self, x: ev.TableClosed) -> None:
        self.say("The table is closed.")

    def _on_hand_started(self, x: ev.HandStarted) -> None:
        self.showdown = []
        self.blinds = {}
        self.say(f"── Hand #{x.hand_number} ── button: {self.name(x.button_seat)}")

    def _on_ante_posted(self, x: ev.AntePosted) -> None:
        self.say(self.who(x.seat, f"posts ante {x.amount}"))

    def _on_blind_posted(self, x: ev.BlindPosted) -> None:
        if x.kind == ev.BLIND_KIND_SMALL:
            self.blinds[x.seat] = "SB"
        elif x.kind == ev.BLIND_KIND_BIG:
            self.blinds[x.seat] = "BB"
        self.say(self.who(x.seat, f"posts {BLINDS.get(x.kind, 'blind')} {x.amount}"))

    def _on_hole_cards_dealt(self, x: ev.HoleCardsDealt) -> None:
        for seat in x.seats:
            if seat.cards:
                self.say(f"Dealt to {self.name(seat.seat)}: {cards_text(list(seat.cards))}")

    def _on_action_taken(self, x: ev.ActionTaken) -> None:
        self.say(self._action(x))

    def _on_street_dealt(self, x: ev.StreetDealt) -> None:
        self.say(f"{STREET_NAMES.get(x.street, 'Board')}: {cards_text(list(x.cards))}")

    def _on_uncalled_bet_returned(self, x: ev.UncalledBetReturned) -> None:
        self.say(f"Uncalled bet of {x.amount} returned to {self.name(x.seat)}")

    def _on_hand_shown(self, x: ev.HandShown) -> None:
        described = f" ({x.description})" if x.description else ""
        line = self.who(x.seat, f"shows {cards_text(list(x.cards))}{described}")
        self.say(line)
        self.showdown.append(line)

    def _on_hand_mucked(self, x: ev.HandMucked) -> None:
        self.say(self.who(x.seat, "mucks"))

    def _on_pot_awarded(self, x: ev.PotAwarded) -> None:
        pot = "the pot" if x.pot_index == 0 else f"side pot {x.pot_index}"
        share = {pb.POT_SHARE_HIGH: " (high)", pb.POT_SHARE_LOW: " (low)"}.get(x.share, "")
        hand = f" with {x.description}" if x.description else ""
        line = self.who(x.seat, f"wins {x.amount} from {pot}{share}{hand}")
        self.say(line)
        self.showdown.append(line)

    def _on_hand_ended(self, x: ev.HandEnded) -> None:
        if self.on_hand_end is not None:
            self.on_hand_end()

    def _on_hand_voided(self, x: ev.HandVoided) -> None:
        self.say(f"Hand voided: {x.reason}")
        if self.on_hand_end is not None:
            self.on_hand_end()

    def _action(self, x: ev.ActionTaken) -> str:
        verb = {
            pb.ACTION_TYPE_FOLD: "folds",
            pb.ACTION_TYPE_CHECK: "checks",
            pb.ACTION_TYPE_CALL: f"calls {x.amount}",
            pb.ACTION_TYPE_BET: f"bets {x.committed_to}",
            pb.ACTION_TYPE_RAISE: f"raises to {x.committed_to}",
        }.get(x.action, "acts")
        line = self.who(x.seat, verb)
        if x.all_in:
            line += " and is all-in" if not line.startswith("You ") else " and are all-in"
        return line + (" (timed out)" if x.timed_out else "")

    # -- panels

    def header(self, wallet: str = "") -> str:
        v = self.view
        parts = [v.table_id or self.table_id, stakes(v.config)]
        if v.hand_number:
            parts.append(f"hand #{v.hand_number}")
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
            name = self.name(seat.seat) + ("*" if seat.is_bot else "")
            cards = (
                cards_text(list(seat.hole_cards))
                if seat.hole_cards
                else ("[]" * seat.hole_card_count if seat.hole_card_count else "")
            )
            if seat.status == pb.SEAT_STATUS_FOLDED:
                cards = ""
            bet = str(seat.committed) if seat.committed else ""
            status = STATUS.get(seat.status, "")
            lines.append(
                f"{mark}{button}{blind:<3}{seat.seat} {name[:10]:<10} {seat.stack:>6} "
                f"{bet:>5} {cards:<11} {status}".rstrip()[:48]
            )
        return lines

    def board_line(self) -> str:
        board = cards_text(list(self.view.board)) if self.view.board else "-"
        return f"Board: {board}"

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
        return f"Your cards: {cards}   stack {me.stack}"

    def turn_line(self, now: float) -> str:
        v = self.view
        if not v.hand_id or not v.HasField("acting_seat"):
            return "Waiting for the next hand" if v.table_status != pb.TABLE_STATUS_CLOSED else ""
        left = ""
        if v.HasField("action_deadline"):
            deadline = v.action_deadline.seconds + v.action_deadline.nanos / 1e9
            seconds = max(0, int(deadline - now + 0.999))
            bank = next((s.time_bank_seconds for s in v.seats if s.seat == v.acting_seat), 0)
            left = f" {seconds}s" + (f" (+{bank}s bank)" if bank else "")
        if is_showdown_turn(v):
            return f"Your turn to show or muck{left}"
        if is_my_turn(v):
            return f"Your turn{left}"
        return f"{self.name(v.acting_seat)} to act{left}"

    def action_line(self) -> str:
        """The keys that do something now, with the amounts."""
        v = self.view
        if is_showdown_turn(v):
            return "[s] show  [k] muck"
        if not is_my_turn(v):
            return "[o] sit out/in  [l] leave  [q] quit"
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
